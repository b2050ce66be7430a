"""Serve a relay's page on loopback, in the current event loop (``watch --web``, ``demo --web``)."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Final

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware

from a2a_progress.serving.http_server import HttpServer
from a2a_progress.web.relay import ProgressRelay

LOOPBACK: Final = "127.0.0.1"
_GRACE_SECONDS: Final = 1


@contextlib.asynccontextmanager
async def serve_panel(
    relay: ProgressRelay, *, host: str = LOOPBACK, port: int = 0
) -> AsyncIterator[str]:
    """Serve ``relay``'s routes on ``host:port`` (0: a free port); yield the page's URL.

    Requests whose ``Host`` is not ``host`` (or ``localhost`` for 127.0.0.1) get HTTP 400.

    On exit the browsers are disconnected (``shutdown``) and the server stops. Raises
    `OSError` when the port cannot be bound.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    # Only requests addressed to this host: a web page cannot reach the turn by rebinding its own
    # domain name to 127.0.0.1 (DNS rebinding), since its requests carry that name as Host.
    hosts = [host, "localhost"] if host == LOOPBACK else [host]
    app = Starlette(
        routes=relay.routes(),
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
    )
    server = HttpServer(app, sock, graceful_shutdown=_GRACE_SECONDS)
    try:
        await server.start()
        yield f"http://{host}:{sock.getsockname()[1]}/"
    finally:
        relay.close()
        await server.stop()
        sock.close()
