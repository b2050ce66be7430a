"""The panel's files (one script, one stylesheet, shipped in the package) and the plain page.

The page links both files and the stream by *relative* URLs (``static/…``, ``stream``), so the
same page works wherever the routes are mounted. It is served with a strict Content Security
Policy: only this origin's script and style, no inline code, no plugins — a second wall behind
the panel's rule of showing agent text as text only.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib.resources import files
from typing import Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

PANEL_SCRIPT: Final = "a2a-progress-panel.js"
"""The web component's file name (an ES module defining ``<a2a-progress-panel>``)."""
PANEL_STYLESHEET: Final = "a2a-progress-panel.css"
"""The panel's stylesheet (light and dark)."""

_MEDIA_TYPES: Final = {
    PANEL_SCRIPT: "text/javascript; charset=utf-8",
    PANEL_STYLESHEET: "text/css; charset=utf-8",
}
_PAGE_CSP: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_PAGE: Final = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>a2a-progress</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="static/{PANEL_STYLESHEET}">
<script type="module" src="static/{PANEL_SCRIPT}"></script>
</head>
<body class="a2ap-page">
<main>
<a2a-progress-panel src="stream"></a2a-progress-panel>
<noscript><p>This page shows an agent's progress live; it needs JavaScript.</p></noscript>
</main>
</body>
</html>
"""


@cache
def static_file(name: str) -> bytes:
    """The bytes of one of the panel's files (``PANEL_SCRIPT`` or ``PANEL_STYLESHEET``)."""
    if name not in _MEDIA_TYPES:
        raise KeyError(name)
    return (files("a2a_progress.web") / "static" / name).read_bytes()


def page_response(request: Request) -> Response:
    """The plain page showing the panel for the stream next to it."""
    return Response(
        _PAGE,
        media_type="text/html; charset=utf-8",
        headers={
            "content-security-policy": _PAGE_CSP,
            "x-content-type-options": "nosniff",
            "referrer-policy": "no-referrer",
            "cache-control": "no-cache",
        },
    )


def static_routes(path: str = "/static") -> list[BaseRoute]:
    """Routes serving the panel's script and stylesheet under ``path``."""
    base = path.rstrip("/")
    return [Route(f"{base}/{name}", _file_endpoint(name), methods=["GET"]) for name in _MEDIA_TYPES]


def _file_endpoint(name: str) -> Callable[[Request], Response]:
    media_type = _MEDIA_TYPES[name]

    def endpoint(request: Request) -> Response:
        return Response(
            static_file(name),
            media_type=media_type,
            headers={"cache-control": "no-cache", "x-content-type-options": "nosniff"},
        )

    return endpoint
