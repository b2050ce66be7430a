"""The demo callee: an SRE agent that investigates a failing deploy, narrating with envelopes.

Its turn exercises every kind the protocol has: thinking, progress text, tool calls run one after
another and two at once, one tool whose output streams line by line (``tool_output_append``,
switched on here, though off by default in v1), one tool that fails and ends ``aborted``, a
callee-side ``error`` block, and the final answer on the COMPLETED state. ``pace`` scales every
pause (1.0 takes about seven seconds; 0 runs as fast as the wire allows). Given the URL of the
`change auditor <a2a_progress.cli.demo.auditor>`, its ``diff_config`` tool consults it over
A2A inside a span of its own.
"""

from __future__ import annotations

import asyncio
from typing import Final

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from opentelemetry.trace import NoOpTracer, Tracer

from a2a_progress.cli.demo.auditor import AUDITOR_NAME, AUDITOR_QUESTION
from a2a_progress.cli.demo.consult import ask_agent
from a2a_progress.cli.errors import CliError
from a2a_progress.producer import ProgressEmitter, open_task

AGENT_NAME: Final = "deploy-investigator"
SERVICE_NAME: Final = "demo-callee"
"""Its ``service.name`` when nothing else names it."""
AGENT_DESCRIPTION: Final = (
    "Demo SRE agent: investigates a failing deploy and streams its tool calls as progress "
    "envelopes."
)
DEMO_QUESTION: Final = "The checkout-api deploy to production just failed. What went wrong?"

_SMOKE_TEST_OUTPUT: Final = (
    "$ pytest smoke/checkout -q --env=canary",
    "smoke/checkout/test_health.py::test_liveness PASSED",
    "smoke/checkout/test_health.py::test_readiness PASSED",
    "smoke/checkout/test_cart.py::test_add_item PASSED",
    "smoke/checkout/test_payment.py::test_authorize FAILED",
    "E   psycopg.OperationalError: connection to payments-db:5433 refused",
    "1 failed, 3 passed in 1.52s",
)

FINAL_ANSWER: Final = """\
Root cause: deploy #4812 (checkout-api v2.14.0) changed PAYMENTS_DB_PORT from 5432 to 5433 in \
config/prod.yaml. payments-db only listens on 5432, so every payment call from the canary is \
refused and its readiness checks fail.
Fix: revert the PAYMENTS_DB_PORT change (commit 9f3c2e1) and redeploy; the canary will pass.
Note: the metrics backend timed out, so the error-rate graph was not checked."""


class DemoAgentExecutor(AgentExecutor):
    """Runs the scripted investigation for any message it is sent.

    Args:
        pace: multiplies every pause; lower is faster.
        consult: the change auditor's URL; ``diff_config`` asks it who changed the config.
        tracer: where the span around that consultation goes.
    """

    def __init__(
        self, pace: float = 1.0, *, consult: str | None = None, tracer: Tracer | None = None
    ) -> None:
        self._pace = max(0.0, pace)
        self._consult = consult
        self._tracer = tracer or NoOpTracer()

    async def _pause(self, seconds: float) -> None:
        await asyncio.sleep(seconds * self._pace)

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Investigate, emitting progress, then complete with the diagnosis."""
        updater = await open_task(context, event_queue)
        async with ProgressEmitter(updater, enable_output=True) as progress:
            await self._investigate(progress)
            await progress.complete(FINAL_ANSWER)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Abort the open tool calls, then CANCELED."""
        emitter = ProgressEmitter.for_task(
            event_queue, context.task_id or "", context.context_id or ""
        )
        await emitter.cancel("Investigation canceled by the caller.")

    async def _investigate(self, progress: ProgressEmitter) -> None:
        await progress.thinking(
            "The deploy failed: first find the stage where it stopped.\n"
            "Then read the logs and the error-rate metrics side by side."
        )
        await self._pause(0.8)
        async with progress.tool_call("get_deploy_status", "call-1"):
            await self._pause(0.7)
        await progress.text(
            "Deploy #4812 (checkout-api v2.14.0) stopped at canary: readiness failing on 3/3 pods."
        )
        await self._pause(0.4)
        await asyncio.gather(self._search_logs(progress), self._query_metrics(progress))
        await progress.error("query_metrics: metrics backend timed out; going on without it")
        await self._pause(0.3)
        await progress.thinking(
            "Logs: 'connection refused' to payments-db since the rollout.\n"
            "Reproduce it with the smoke tests before blaming the database."
        )
        await self._pause(0.5)
        async with progress.tool_call("run_smoke_tests", "call-4") as smoke:
            for line in _SMOKE_TEST_OUTPUT:
                await self._pause(0.35)
                await smoke.output(line + "\n")
        await progress.text("Only the payment path fails: comparing the deployed config.")
        await self._pause(0.3)
        async with progress.tool_call("diff_config", "call-5"):
            await self._pause(0.3)
            if self._consult is not None:
                await self._ask_auditor(progress, self._consult)
            await self._pause(0.3)
        await progress.text("Root cause found; writing up the diagnosis.")
        await self._pause(0.4)

    async def _ask_auditor(self, progress: ProgressEmitter, url: str) -> None:
        try:
            finding = await ask_agent(url, AUDITOR_QUESTION, self._tracer)
        except CliError as error:
            # The diagnosis stands without it: say so and go on, as with the metrics backend.
            await progress.error(f"{AUDITOR_NAME} did not answer: {error.message}")
            return
        await progress.text(f"{AUDITOR_NAME}: {finding}")

    async def _search_logs(self, progress: ProgressEmitter) -> None:
        async with progress.tool_call("search_logs", "call-2"):
            await self._pause(1.4)

    async def _query_metrics(self, progress: ProgressEmitter) -> None:
        call = await progress.tool_call("query_metrics", "call-3")
        await self._pause(1.0)
        await call.aborted("metrics backend timed out after 1.0s")
