"""A call the end of its turn closed says why in words (``turn failed``), and a failed turn shows
the agent's error, redacted, in a real Chromium."""

from __future__ import annotations

from a2a.types import TaskState

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


async def test_a_failed_turn_shows_the_agents_error_redacted() -> None:
    reason = "migration failed: password=Hunter2Correct-Horse rejected"
    agent = ScriptedAgent(
        [step.start("migrate", "c1"), step.status(TaskState.TASK_STATE_FAILED, reason)]
    )
    async with panel_after_turn(agent, "go") as page:
        title = await page.locator(".a2ap-reply-title").inner_text()
        text = await page.locator(".a2ap-reply-text").inner_text()
    assert title == "Error (failed)"
    assert text.startswith("migration failed: password=")
    assert "Hunter2Correct-Horse" not in text
