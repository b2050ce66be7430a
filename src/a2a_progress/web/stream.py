"""One browser's Server-Sent Events connection to a relay: replay, live frames, then ``end``.

The connection sends, in order: ``retry:`` (reconnect after 1 s), a ``hello`` event (no id), a
``reset`` and/or ``gap`` event when the browser's ``Last-Event-ID`` cannot be resumed exactly, every
frame after that id, and — once the turn has ended and everything is sent — ``end``, after which
the response finishes. A ``dropped`` event (``slow_client``, ``shutdown``) ends it early; a
browser that does not read at all is cut off without it. Comments (``: keep-alive``) keep idle
proxies from closing the stream.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Final

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from a2a_progress.web.log import EventLog, Reader, sse_frame

_BATCH_BYTES: Final = 256 * 1024
_RETRY: Final = b"retry: 1000\n\n"  # reconnect after a second
_HEADERS: Final = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"x-accel-buffering", b"no"),  # nginx and friends: do not buffer the stream
    (b"x-content-type-options", b"nosniff"),
]


class EventStreamResponse(Response):
    """The streaming response of one browser; built by `ProgressRelay.stream`."""

    def __init__(
        self,
        log: EventLog,
        reader: Reader,
        *,
        notices: bytes,
        hello: Callable[[], bytes],
        keepalive: float,
    ) -> None:
        # Response.__init__ would render a body; this response streams its own.
        self.status_code = 200
        self.background = None
        self._log = log
        self._reader = reader
        self._notices = notices
        self._hello = hello
        self._keepalive = keepalive

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        reader = self._reader
        try:
            await send({"type": "http.response.start", "status": 200, "headers": _HEADERS})
            sender = asyncio.ensure_future(self._send_all(send))
            gone = asyncio.ensure_future(_disconnected(receive))
            kicked = asyncio.ensure_future(reader.kicked.wait())
            tasks = {sender, gone, kicked}
            try:
                await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                if kicked.done() and not sender.done() and not reader.sending:
                    # Dropped while idle: the sender says why before it finishes.
                    await asyncio.wait({sender, gone}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            self._log.detach(reader)

    async def _send_all(self, send: Send) -> None:
        reader = self._reader
        log = self._log
        version = log.version
        await self._write(send, _RETRY + self._hello() + self._notices)
        while True:
            if version != log.version:
                version = log.version
                await self._write(send, self._hello())
            if reader.dropped is not None:
                dropped = {"v": 1, "type": "dropped", "reason": reader.dropped}
                dropped["last_id"] = reader.cursor - 1
                await self._write(send, sse_frame("dropped", dropped), more=False)
                return
            frames = log.frames_from(reader.cursor, _BATCH_BYTES)
            if frames:
                reader.cursor = frames[-1].id + 1
                await self._write(send, b"".join(frame.data for frame in frames))
                continue
            if log.ended:
                await self._write(send, sse_frame("end", {"v": 1, "type": "end"}), more=False)
                return
            reader.wake.clear()
            try:
                async with asyncio.timeout(self._keepalive):
                    await reader.wake.wait()
            except TimeoutError:
                await self._write(send, b": keep-alive\n\n")

    async def _write(self, send: Send, body: bytes, *, more: bool = True) -> None:
        self._reader.sending = True
        try:
            await send({"type": "http.response.body", "body": body, "more_body": more})
        finally:
            self._reader.sending = False


async def _disconnected(receive: Receive) -> None:
    """Returns when the browser has gone."""
    while (await receive())["type"] != "http.disconnect":
        pass


def no_content() -> Response:
    """204: tells an EventSource not to reconnect (the turn ended and it has everything)."""
    return Response(status_code=204, headers={"cache-control": "no-cache"})


def refused(reason: str, retry_after: int) -> Response:
    """503 for a connection over the limit."""
    return Response(
        reason,
        status_code=503,
        media_type="text/plain",
        headers={"retry-after": str(retry_after), "cache-control": "no-cache"},
    )
