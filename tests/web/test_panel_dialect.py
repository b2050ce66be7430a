"""The panel marks what an agent dialect reported (here ADK's own parts) with ``[adk]``, as
text, and marks nothing for an agent that sends envelopes — in a real headless Chromium."""

from __future__ import annotations

from a2a.server.agent_execution import AgentExecutor

from support.dialect_agents import AdkPartsAgent, EnvelopeAgent
from support.web import panel_after_turn


async def _tags(agent: AgentExecutor) -> dict[str, list[str]]:
    """The page's ``[dialect]`` tags: on tool call rows (by tool) and on the other notes."""
    async with panel_after_turn(agent, "why?") as page:
        tags: dict[str, list[str]] = await page.evaluate(
            """() => {
              const out = {calls: [], notes: []};
              for (const li of document.querySelectorAll('li.a2ap-item')) {
                const tag = li.querySelector('.a2ap-dialect');
                if (!tag) continue;
                if (li.matches('.a2ap-call')) {
                  const tool = li.querySelector('.a2ap-tool').textContent;
                  out.calls.push(tool + ' ' + tag.textContent);
                } else {
                  out.notes.push(li.dataset.kind + ' ' + tag.textContent);
                }
              }
              return out;
            }"""
        )
    return tags


async def test_the_panel_marks_adk_updates_and_not_envelopes() -> None:
    assert await _tags(AdkPartsAgent()) == {
        "calls": ["ci_status [adk]", "deploy_log [adk]"],
        "notes": ["thinking [adk]"],
    }
    assert await _tags(EnvelopeAgent()) == {"calls": [], "notes": []}
