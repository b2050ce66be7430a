"""Serve an ASGI app under uvicorn on a free loopback port, inside the test's event loop."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Callable
from typing import Any

import uvicorn


@contextlib.asynccontextmanager
async def loopback_server(make_app: Callable[[int], Any]) -> AsyncIterator[str]:
    """``make_app(port)`` served on 127.0.0.1 (lifespan on); yields its base URL.

    The port is bound before the app is built, so apps that put their own URL in an agent
    card (ADK's ``to_a2a(host=, port=)``) advertise the right one.
    """
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(make_app(port), log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
        sock.close()
