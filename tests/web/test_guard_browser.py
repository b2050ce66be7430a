"""A real Chromium on a page of another origin cannot drive a local agent: the "simple"
cross-site ``text/plain`` JSON-RPC ``SendMessage`` it sends without a preflight reaches the
agent (the browser's own network log shows it answered) and is refused, and no turn runs. A
page of the agent's own origin is served as before.

The other page is served from loopback too (``http://localhost:<port>``, another origin and site
than ``http://127.0.0.1:<agent port>``), as another local web app would be: Chromium's own
local-network protection already stops a public page's request before it leaves the browser,
and other browsers do not.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator

from playwright.async_api import Browser

from a2a_progress.serving import serve_agent
from support import scripted as step
from support.listeners import web_server
from support.scripted import ScriptedAgent
from support.web import chromium

SEND = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "SendMessage",
    "params": {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}},
}
FORGE = """async ([url, body]) => {
  const headers = {"Content-Type": "text/plain"};
  await fetch(url, {method: "POST", mode: "no-cors", headers, body});
  return "sent";
}"""


@contextlib.contextmanager
def another_local_app() -> Iterator[str]:
    """A page on loopback at another origin than the agent's; its URL (by ``localhost``)."""
    page = ("text/html", b"<!doctype html><title>another local app</title>")
    with web_server({"/": page}) as base:
        yield base.replace("127.0.0.1", "localhost") + "/"


async def test_a_cross_site_page_cannot_start_a_turn() -> None:
    executor = ScriptedAgent([step.complete("hello")])
    with another_local_app() as other:
        async with serve_agent(executor, grpc_port=None) as served, chromium() as browser:
            own = await forge_then_send(browser, other, served.http_url + "/")
    assert own == 200
    assert len(executor.turns) == 1


async def forge_then_send(browser: Browser, other: str, url: str) -> int:
    """From ``other``'s page, forge a SendMessage to ``url`` (checked refused); then send it as
    JSON from a page of the agent's own origin: the status it got."""
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.goto(other)
        # The browser's network log: what the agent answered (the page only gets an opaque
        # response, whatever the status).
        answered: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
        page.on("response", lambda response: answered.put_nowait((response.url, response.status)))
        assert await page.evaluate(FORGE, [url, json.dumps(SEND)]) == "sent"
        assert await asyncio.wait_for(answered.get(), 20) == (url, 403)
        # From the agent's own origin the same request (as JSON) runs a turn.
        await page.goto(url.rstrip("/") + "/.well-known/agent-card.json")
        own: int = await page.evaluate(
            """async ([url, body]) => (await fetch(url, {method: "POST", body,
                headers: {"Content-Type": "application/json", "A2A-Version": "1.0"}})).status""",
            [url, json.dumps(SEND)],
        )
        return own
    finally:
        await context.close()
