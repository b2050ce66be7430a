"""A call the end of its turn closed says why in words (``turn failed``), in a real Chromium."""

from __future__ import annotations

from a2a_progress.serving import create_client, serve_agent, user_message
from a2a_progress.web import ProgressRelay, serve_panel
from support import scripted as step
from support.scripted import ScriptedAgent
from support.web import chromium, open_page, wait_ended


async def test_a_call_closed_by_a_failed_turn_says_turn_failed() -> None:
    agent = ScriptedAgent([step.start("search", "c1"), step.fail()])
    async with serve_agent(agent, grpc_port=None) as served, chromium() as browser:
        relay = ProgressRelay()
        async with create_client(served.card) as client:
            await relay.run(client.send_message(user_message("go")))
        async with serve_panel(relay) as url:
            page = await open_page(browser, url)
            await wait_ended(page)
            reason = await page.locator("li.a2ap-call .a2ap-reason").inner_text()
            state = await page.locator("li.a2ap-call").get_attribute("data-state")
    assert state == "aborted"
    assert reason == "turn failed"
