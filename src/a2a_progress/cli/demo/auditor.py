"""The demo's third agent: a change auditor the deploy investigator consults from inside a tool.

It answers who changed a config key and when, with two tool calls of its own, so the demo's
trace shows a hop to a further agent nested under the tool that made the call.
"""

from __future__ import annotations

import asyncio
from typing import Final

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue

from a2a_progress.producer import ProgressEmitter, open_task

AUDITOR_NAME: Final = "change-auditor"
AUDITOR_SERVICE_NAME: Final = "demo-auditor"
"""Its ``service.name`` when nothing else names it."""
AUDITOR_DESCRIPTION: Final = (
    "Demo audit agent: finds which change set a config key, and streams its tool calls as "
    "progress envelopes."
)
AUDITOR_QUESTION: Final = "Who changed PAYMENTS_DB_PORT in checkout-api's config/prod.yaml?"
AUDITOR_ANSWER: Final = (
    "Commit 9f3c2e1 (shipped in deploy #4812) changed PAYMENTS_DB_PORT from 5432 to 5433."
)


class AuditorAgentExecutor(AgentExecutor):
    """Looks the change up in two tool calls, then completes with `AUDITOR_ANSWER`.

    Args:
        pace: multiplies every pause; lower is faster.
    """

    def __init__(self, pace: float = 1.0) -> None:
        self._pace = max(0.0, pace)

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Search the history of the key, read the commit, answer."""
        updater = await open_task(context, event_queue)
        async with ProgressEmitter(updater) as progress:
            async with progress.tool_call("search_commits", "audit-1"):
                await asyncio.sleep(0.25 * self._pace)
            await progress.text("One change touched PAYMENTS_DB_PORT: 9f3c2e1.")
            async with progress.tool_call("read_commit", "audit-2"):
                await asyncio.sleep(0.15 * self._pace)
            await progress.complete(AUDITOR_ANSWER)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Abort the open tool calls, then CANCELED."""
        emitter = ProgressEmitter.for_task(
            event_queue, context.task_id or "", context.context_id or ""
        )
        await emitter.cancel("Audit canceled by the caller.")
