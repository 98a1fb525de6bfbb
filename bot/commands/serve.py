"""`codebias serve`: the webhook service under uvicorn."""

from __future__ import annotations

import argparse
import logging

from bot.settings import settings_for


def run(args: argparse.Namespace) -> int:
    settings = settings_for("serve")
    if settings is None:
        return 2
    import uvicorn

    from bot.service import create_app

    app = create_app(settings)
    mode = "embedded workers" if settings.embedded else "RQ on REDIS_URL"
    logging.getLogger("codebias").info("serving on %s:%d (%s)", args.host, args.port, mode)
    # log_config=None: uvicorn's records go through the service's own (JSON) handler.
    uvicorn.run(
        app, host=args.host, port=args.port, log_level="info", access_log=False, log_config=None
    )
    return 0
