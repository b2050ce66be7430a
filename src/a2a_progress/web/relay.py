"""`ProgressRelay`: stream one turn's progress to browsers as Server-Sent Events.

The relay takes a turn's updates — from `ProgressRelay.run` (any async source of A2A events,
or a `a2a_progress.follow` iterator) or pushed one by one with `ProgressRelay.publish`
— and serves them to any number of browsers: one ``watch --json`` object per update
(`a2a_progress.schema`), each with the next integer event id, closed after the outcome.
Publishing never waits for a browser: each update is encoded once into a bounded replay buffer,
and each browser is only a cursor into it.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterable, AsyncIterator, Iterable
from functools import cached_property
from typing import Any, Final, TypeAlias

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from a2a_progress import (
    DEFAULT_REDACTOR,
    CallRecord,
    ProgressUpdate,
    TurnOutcome,
    error_text,
    follow,
)
from a2a_progress.schema import SCHEMA_VERSION, call_json, error_json, update_json
from a2a_progress.serving.guard import cross_site
from a2a_progress.web.assets import page_response, static_routes
from a2a_progress.web.log import EventLog, sse_frame
from a2a_progress.web.stream import EventStreamResponse, no_content, refused

Item: TypeAlias = ProgressUpdate | TurnOutcome
# A2A events of the installed a2a-sdk (any line), or updates.
Source: TypeAlias = AsyncIterable[Any] | AsyncIterable[Item]

DEFAULT_REPLAY_EVENTS: Final = 10_000
DEFAULT_REPLAY_BYTES: Final = 16 * 1024 * 1024
DEFAULT_MAX_CLIENTS: Final = 100
_MAX_GAP_CALLS: Final = 1_000
_KEEPALIVE_SECONDS: Final = 15.0


class ProgressRelay:
    """Streams one turn's progress to browsers as Server-Sent Events.

    Feed it with ``await relay.run(source)`` or ``relay.publish(item)``; serve it with
    `app` (a Starlette app: the page ``/``, the stream ``/stream``, the panel's files under
    ``/static/``), `routes` (the same routes under a path of your app) or `stream` (the
    stream response, for your own endpoint).

    Args:
        title: the panel's heading (e.g. the agent's name); agent text, shown as text only.
        request: what the user asked, shown under the heading.
        replay_events: updates kept for browsers that connect late or reconnect.
        replay_bytes: bytes of encoded updates kept for them (the newest is always kept).
        max_clients: browsers streaming at once; more get HTTP 503.
        keepalive: seconds of silence after which a ``: keep-alive`` comment is sent.
        allowed_origins: other web origins whose pages may open the stream (e.g. where your
            app's page is served from); by default only pages of the relay's own origin can.
            A request from another site gets HTTP 403.
    """

    def __init__(
        self,
        *,
        title: str = "",
        request: str = "",
        replay_events: int = DEFAULT_REPLAY_EVENTS,
        replay_bytes: int = DEFAULT_REPLAY_BYTES,
        max_clients: int = DEFAULT_MAX_CLIENTS,
        keepalive: float = _KEEPALIVE_SECONDS,
        allowed_origins: Iterable[str] = (),
    ) -> None:
        self._title = title
        self._origins = frozenset(origin.strip().lower().rstrip("/") for origin in allowed_origins)
        self._request = request
        self.started = time.time()
        self._log = EventLog(max_events=replay_events, max_bytes=replay_bytes)
        self._max_clients = max(1, max_clients)
        self._keepalive = keepalive
        # The latest view of every tool call, for the snapshot a browser gets with a gap.
        self._calls: dict[int, dict[str, Any]] = {}
        self.outcome: TurnOutcome | None = None
        """The turn's outcome, once published."""
        self.closed = False

    # -- feeding -------------------------------------------------------------------------------

    def describe(self, *, title: str | None = None, request: str | None = None) -> None:
        """Change the heading or the request; connected browsers get a new ``hello`` at once."""
        if title is not None:
            self._title = title
        if request is not None:
            self._request = request
        self._log.touch()

    @property
    def ended(self) -> bool:
        """Whether the outcome (or an error) has been published: the stream is complete."""
        return self._log.ended

    @property
    def last_id(self) -> int:
        """The id of the latest update (0 before the first)."""
        return self._log.next_id - 1

    @property
    def clients(self) -> int:
        """Browsers connected now."""
        return self._log.readers

    @property
    def buffered_bytes(self) -> int:
        """Bytes the replay buffer holds now (at most ``replay_bytes`` plus one update)."""
        return self._log.buffered_bytes

    def publish(self, item: Item) -> int | None:
        """Send one update (or the outcome, which ends the stream) to every browser.

        Never blocks. Returns the update's event id; None once the turn has ended (later items
        are ignored). Call it from the event loop that serves the relay (not another thread).
        """
        if self._log.ended:
            return None
        self._remember_calls(item)
        obj = update_json(item)
        event_id = self._log.append(obj["type"], obj)
        if isinstance(item, TurnOutcome):
            self.outcome = item
            self._log.end()
        return event_id

    def fail(self, message: str, exit_code: int | None = None) -> int | None:
        """End the stream with an ``error`` object: the turn could not be followed to an outcome.

        ``message`` is redacted and made one line; ``exit_code`` is the ``watch`` exit code when
        known, else null. Ignored (None) once the turn has ended.
        """
        if self._log.ended:
            return None
        obj = error_json(DEFAULT_REDACTOR.redact(message), exit_code)
        event_id = self._log.append("error", obj)
        self._log.end()
        return event_id

    async def run(self, source: Source) -> TurnOutcome | None:
        """Publish a whole turn from ``source``; return its outcome.

        ``source`` is an A2A event stream (``client.send_message(...)``, ``client.subscribe(...)``,
        `a2a_progress.poll_task`) — fed through `a2a_progress.follow` — or the updates
        of a ``follow()`` you run yourself. When the source raises, the stream ends with an
        ``error`` object and the exception propagates; a source that ends without an outcome
        ends it with an ``error`` too.
        """
        try:
            async for item in _updates(source):
                self.publish(item)
        except Exception as error:
            self.fail(f"{type(error).__name__}: {error_text(error)}")
            raise
        if self.outcome is None:
            self.fail("the progress source ended before the turn's outcome")
        return self.outcome

    def close(self) -> None:
        """Disconnect every browser (``dropped``, reason ``shutdown``) and refuse new ones."""
        self.closed = True
        self._log.drop_all("shutdown")

    def _remember_calls(self, item: Item) -> None:
        calls: list[CallRecord] = list(item.closed)
        if isinstance(item, ProgressUpdate) and item.call is not None:
            calls.append(item.call)
        for call in calls:
            if call.index in self._calls or len(self._calls) < _MAX_GAP_CALLS:
                self._calls[call.index] = call_json(call)

    # -- serving -------------------------------------------------------------------------------

    def stream(self, request: Request) -> Response:
        """The SSE response for one browser (``Last-Event-ID`` header or ``last_event_id`` query).

        Use it as the body of your own endpoint, e.g. ``return relay.stream(request)``.
        """
        why = cross_site(request.headers, self._origins)
        if why is not None:
            # Another site's page could otherwise hold the browser slots (and, rebound to this
            # host's address, read the turn).
            return Response(f"refused {why}", status_code=403, media_type="text/plain")
        last_id = _last_event_id(request)
        log = self._log
        if self.closed or (log.ended and last_id is not None and last_id == self.last_id):
            return no_content()
        if log.readers >= self._max_clients:
            return refused("too many browsers are following this turn", retry_after=5)
        notices = b""
        if last_id is None:
            cursor = 1
        elif 0 <= last_id <= self.last_id:
            cursor = last_id + 1
        else:
            # An id this relay never sent (a restarted server): start the browser afresh.
            notices += sse_frame("reset", {"v": SCHEMA_VERSION, "type": "reset"})
            cursor = 1
        if cursor < log.first_id:
            notices += sse_frame("gap", self._gap(cursor))
        reader = log.attach(cursor)
        return EventStreamResponse(
            log, reader, notices=notices, hello=self._hello, keepalive=self._keepalive
        )

    def _gap(self, cursor: int) -> dict[str, Any]:
        first = self._log.first_id
        return {
            "v": SCHEMA_VERSION,
            "type": "gap",
            "after_id": cursor - 1,
            "next_id": first,
            "missed": first - cursor,
            "calls": [self._calls[index] for index in sorted(self._calls)],
        }

    def _hello(self) -> bytes:
        hello = {
            "v": SCHEMA_VERSION,
            "type": "hello",
            "title": self._title,
            "request": self._request,
            "started": round(self.started, 3),
            "last_id": self.last_id,
            "ended": self._log.ended,
        }
        return sse_frame("hello", hello)

    def routes(self, path: str = "") -> list[BaseRoute]:
        """The page (``{path}/``), the stream (``{path}/stream``) and the panel's files
        (``{path}/static/…``), to add to your Starlette or FastAPI app's routes."""
        base = path.rstrip("/")
        return [
            Route(f"{base}/", page_response, methods=["GET"]),
            Route(f"{base}/stream", self.stream, methods=["GET"]),
            *static_routes(f"{base}/static"),
        ]

    @cached_property
    def app(self) -> Starlette:
        """A Starlette app serving `routes` at its root; mount it anywhere."""
        return Starlette(routes=self.routes())


def _last_event_id(request: Request) -> int | None:
    raw = request.headers.get("last-event-id") or request.query_params.get("last_event_id")
    if raw is None:
        return None
    try:
        return int(raw.strip())
    except ValueError:
        return None


async def _updates(source: Source) -> AsyncIterator[Item]:
    """The updates of ``source``: as they are, or through ``follow()`` for A2A events."""
    iterator: AsyncIterator[Any] = aiter(source)
    try:
        first = await anext(iterator)
    except StopAsyncIteration:
        return
    if isinstance(first, ProgressUpdate | TurnOutcome):
        yield first
        async for item in iterator:
            if isinstance(item, ProgressUpdate | TurnOutcome):
                yield item
        return

    async def events() -> AsyncIterator[Any]:
        yield first
        async for event in iterator:
            yield event

    async for update in follow(events()):
        yield update
