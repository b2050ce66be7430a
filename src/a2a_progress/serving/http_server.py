"""uvicorn as a task of the current event loop, on a socket that is already listening."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Generator

import sse_starlette.sse
import uvicorn
from starlette.applications import Starlette

__all__ = ["HttpServer", "stop_idle_sse_watcher"]


class _SignalFreeServer(uvicorn.Server):
    """A uvicorn server that leaves signal handling to whoever owns the event loop.

    uvicorn's own handlers would swallow Ctrl+C, and servers stopped out of
    start order would restore each other's stale handlers.
    """

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


class HttpServer:
    """uvicorn serving ``app`` on a listening socket, as a task of the current loop.

    Args:
        app: the ASGI application.
        sock: a listening socket (bound first, so port 0 resolves before serving).
        graceful_shutdown: seconds in-flight requests get on `stop` before uvicorn cuts them.
    """

    def __init__(self, app: Starlette, sock: socket.socket, *, graceful_shutdown: int) -> None:
        config = uvicorn.Config(
            app,
            lifespan="off",
            ws="none",
            log_config=None,
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=graceful_shutdown,
        )
        self._server = _SignalFreeServer(config)
        self._sock = sock
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Serve; returns once uvicorn accepts connections (raises if it exits first)."""
        self._task = asyncio.create_task(self._server.serve(sockets=[self._sock]))
        while not self._server.started:
            if self._task.done():
                await self._task
                raise RuntimeError("uvicorn exited while starting")
            await asyncio.sleep(0.005)

    async def stop(self) -> None:
        """Stop accepting, let in-flight requests finish (within the grace), and return."""
        if self._task is not None:
            self._server.should_exit = True
            await self._task


async def stop_idle_sse_watcher() -> None:
    """Cancel sse-starlette's shutdown watcher when no SSE stream of this loop needs it.

    The first SSE response on a loop starts a watcher task that polls for a
    process-wide shutdown signal and otherwise never ends. Once no stream is
    registered with it, cancelling it loses nothing (the next stream starts a
    new one) and keeps it from outliving the server.
    """
    # sse-starlette's private names: it has no public way to stop its watcher. Read with
    # getattr, so a release that renames them leaves the task running rather than breaking the
    # server; tests/test_serve.py::test_exit_closes_ports_and_leaves_nothing_running (an SSE
    # stream, then no task left) fails when that happens.
    watcher = getattr(sse_starlette.sse, "_shutdown_watcher", None)
    get_state = getattr(sse_starlette.sse, "_get_shutdown_state", None)
    if watcher is None or get_state is None or get_state().events:
        return
    current = asyncio.current_task()
    for task in asyncio.all_tasks():
        if task is not current and getattr(task.get_coro(), "cr_code", None) is watcher.__code__:
            task.cancel()
            await asyncio.wait([task])
