"""`codebias serve`: the webhook service under uvicorn (limits: bot/serving.py)."""

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
    from bot.serving import server_config

    app = create_app(settings)
    mode = "embedded workers" if settings.embedded else "RQ on REDIS_URL"
    logging.getLogger("codebias").info("serving on %s:%d (%s)", args.host, args.port, mode)
    uvicorn.Server(server_config(app, args.host, args.port)).run()
    return 0
