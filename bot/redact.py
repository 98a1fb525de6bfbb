"""Secrets out of what is logged: credentials and queries in URLs, and the configured keys.

Provider errors name the endpoint they could not reach (`OPENAI_BASE_URL`, which may carry
`user:password@` or an `?api-key=`), and their bodies may quote the key. Such text is only
ever logged, through `redacted`; what is posted on a pull request is a sentence of our own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit, urlunsplit

URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+")
USERINFO = re.compile(r"//[^/@\s]*@")
MASK = "***"
# Environment variables whose values are credentials (OPENAI_API_KEY, GITHUB_TOKEN, ...).
SECRET_NAMES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")


def secrets_in(env: Mapping[str, str]) -> list[str]:
    """The credential values of an environment, to be masked wherever they appear."""
    return [value for name, value in env.items() if name.upper().endswith(SECRET_NAMES)]


def redacted(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every secret masked and every URL stripped of its credentials and query."""
    # Longest first, so that a secret holding another is masked whole; very short values
    # would mask ordinary words.
    for secret in sorted({s for s in secrets if len(s) >= 6}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return URL.sub(lambda m: _without_credentials(m.group()), text)


def _without_credentials(url: str) -> str:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # not a URL urllib can take apart: drop what looks like userinfo
        return USERINFO.sub(f"//{MASK}@", url)
    netloc = (parts.hostname or "") + (f":{port}" if port is not None else "")
    if parts.username is not None or parts.password is not None:
        netloc = f"{MASK}@{netloc}"
    return urlunsplit((parts.scheme, netloc, parts.path, MASK if parts.query else "", ""))
