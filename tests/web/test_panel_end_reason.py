"""A call the end of its turn closed says why in words (``turn failed``), in a real Chromium."""

from __future__ import annotations

from support import scripted as step
from support.scripted import ScriptedAgent
from support.web import panel_after_turn


async def test_a_call_closed_by_a_failed_turn_says_turn_failed() -> None:
    agent = ScriptedAgent([step.start("search", "c1"), step.fail()])
    async with panel_after_turn(agent, "go") as page:
        reason = await page.locator("li.a2ap-call .a2ap-reason").inner_text()
        state = await page.locator("li.a2ap-call").get_attribute("data-state")
    assert state == "aborted"
    assert reason == "turn failed"
