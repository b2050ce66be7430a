"""Helpers for the web panel tests: real Chromium, agents the test steps through, SSE reading.

Chromium is Debian's ``/usr/bin/chromium`` driven by Playwright (the pip wheel's driver; no browser
download). The agents are :mod:`support.scripted`'s (``wait(gate)`` holds a turn until the test
opens the gate, so "the page shows X before the turn ends" needs no sleeps).
:class:`SeveringProxy` forwards TCP and can cut every connection, as a dropped network does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import httpx
from a2a.server.agent_execution import AgentExecutor
from a2a.types.a2a_pb2 import (
    StreamResponse,
    TaskState,
)
from playwright.async_api import Browser, Page, async_playwright
from starlette.applications import Starlette

from a2a_progress import Envelope, Kind
from a2a_progress.serving import create_client, serve_agent, user_message
from a2a_progress.serving.http_server import HttpServer
from a2a_progress.web import ProgressRelay, serve_panel
from support import events

CHROMIUM: Final = "/usr/bin/chromium"
BROWSER_ARGS: Final = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS: Final = os.environ.get("A2A_PROGRESS_SCREENSHOTS") == "1"
"""Set ``A2A_PROGRESS_SCREENSHOTS=1`` to (re)write the README's pictures in ``docs/``."""
DOCS: Final = Path(__file__).resolve().parents[2] / "docs"
WAIT_MS: Final = 20_000


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    """A headless Chromium (fails, never skips, when it is not installed)."""
    assert os.access(CHROMIUM, os.X_OK), f"{CHROMIUM} missing: apt-get install -y chromium"
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


async def open_page(browser: Browser, url: str, *, dark: bool = False) -> Page:
    """A page at ``url`` that fails the test on any script error."""
    context = await browser.new_context(
        color_scheme="dark" if dark else "light", viewport={"width": 1000, "height": 800}
    )
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(WAIT_MS)
    await page.goto(url)
    page.script_errors = errors  # type: ignore[attr-defined]
    return page


# The rendered turn, as the user reads it: one entry per list item of the panel, in page order.
RENDERED_JS: Final = """() => [
  ...document.querySelectorAll('a2a-progress-panel .a2ap-tree > li')
].map(li => ({
  kind: li.dataset.kind || li.className,
  state: li.dataset.state || null,
  tool: li.querySelector('.a2ap-tool')?.textContent ?? null,
  text: li.innerText,
}))"""


async def rendered(page: Page) -> list[dict[str, Any]]:
    """The panel's items in page order: ``{kind, state, tool, text}``."""
    items: list[dict[str, Any]] = await page.evaluate(RENDERED_JS)
    return items


async def wait_ended(page: Page) -> None:
    """Until the panel has received the end of the turn (``event: end``)."""
    await page.locator("a2a-progress-panel[data-ended]").wait_for(state="attached")


@contextlib.asynccontextmanager
async def panel_after_turn(agent: AgentExecutor, text: str = "go") -> AsyncIterator[Page]:
    """Serve ``agent``, relay one whole turn of ``text`` to a panel and open it in Chromium; the
    page, once it shows the turn's end."""
    async with serve_agent(agent, grpc_port=None) as served, chromium() as browser:
        relay = ProgressRelay()
        async with create_client(served.card) as client:
            await relay.run(client.send_message(user_message(text)))
        async with serve_panel(relay) as url:
            page = await open_page(browser, url)
            await wait_ended(page)
            yield page


async def until(check: Callable[[], bool]) -> None:
    """Wait until ``check()`` holds (the test's timeout bounds it; no timing is asserted)."""
    while True:
        if check():
            return
        await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def serve_app(app: Starlette) -> AsyncIterator[str]:
    """Serve a Starlette app on a free loopback port; yields its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    server = HttpServer(app, sock, graceful_shutdown=1)
    await server.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        await server.stop()
        sock.close()


# -- events without a network ---------------------------------------------------------------


def working_event(task_id: str, envelope: Envelope) -> StreamResponse:
    """A WORKING status update carrying ``envelope`` (for feeding a relay without a network)."""
    return events.working(envelope, envelope.content or envelope.kind.value, task_id=task_id)


def completed_event(task_id: str, reply: str) -> StreamResponse:
    """The COMPLETED status update with ``reply``."""
    return events.terminal(TaskState.TASK_STATE_COMPLETED, reply, task_id=task_id)


def text_envelope(seq: int, text: str) -> Envelope:
    return Envelope(Kind.TEXT, seq, {"text": text})


# -- SSE ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sse:
    """One event as an EventSource would dispatch it."""

    event: str
    id: int | None
    data: dict[str, Any]


async def sse_events(response: httpx.Response) -> AsyncIterator[Sse]:
    """Parse an SSE response body into events (comments and ``retry:`` skipped)."""
    event, event_id, data = "message", None, []
    async for line in response.aiter_lines():
        if line == "":
            if data:
                yield Sse(event, event_id, json.loads("\n".join(data)))
            event, event_id, data = "message", None, []
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                event = value
            elif name == "id":
                event_id = int(value)
            elif name == "data":
                data.append(value)


async def read_stream(
    client: httpx.AsyncClient,
    url: str,
    *,
    last_id: int | None = None,
    stop_after: int | None = None,
) -> list[Sse]:
    """The events of one connection (until it ends, or after ``stop_after`` id'd events)."""
    headers = {"last-event-id": str(last_id)} if last_id is not None else {}
    events: list[Sse] = []
    async with client.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200, response.status_code
        numbered = 0
        async for sse in sse_events(response):
            events.append(sse)
            numbered += sse.id is not None
            if stop_after is not None and numbered >= stop_after:
                break
    return events


# -- network -----------------------------------------------------------------------------------


class SeveringProxy:
    """A TCP proxy on 127.0.0.1 in front of ``target_port`` that can cut every connection.

    ``requests`` keeps the head of each HTTP request that went through (to see what a
    reconnecting browser sent).
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.requests: list[str] = []
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None
        self.port = 0

    async def __aenter__(self) -> SeveringProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.sever()
        assert self._server is not None
        self._server.close()

    def sever(self) -> None:
        """Close every open connection, both ways, as a network drop would."""
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.transport.abort()
            return
        self._writers.update((writer, up_writer))
        await asyncio.gather(
            self._pipe(reader, up_writer, record=True),
            self._pipe(up_reader, writer, record=False),
            return_exceptions=True,
        )

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, record: bool
    ) -> None:
        try:
            while chunk := await reader.read(65536):
                if record and chunk[:4] in (b"GET ", b"POST"):
                    self.requests.append(chunk.decode("latin-1").split("\r\n\r\n")[0])
                writer.write(chunk)
                await writer.drain()
        finally:
            self._writers.discard(writer)
            writer.transport.abort()
