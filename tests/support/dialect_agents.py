"""Agents for the views' dialect tests: one that reports its work only as Google ADK's own
parts (no envelope), and one that sends our envelopes, to tell the two apart in a view."""

from __future__ import annotations

from typing import Final

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types import Message, Part, Role, TaskState

from a2a_progress import ProgressEmitter, open_task
from dialects.fixtures import adk_call, adk_response, adk_thought

REPLY: Final = "The deploy is blocked by a red CI run."


class AdkPartsAgent(AgentExecutor):
    """ADK-shaped working updates: a thought, a call that succeeds (``adk-1``) and one whose
    response reports an error (``adk-2``)."""

    THOUGHT: Final = "Check CI first, then the deploy log."
    ERROR: Final = "log store offline"

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = await open_task(context, event_queue)
        adk_parts = [
            [adk_thought(self.THOUGHT)],
            [adk_call("adk-1", "ci_status", {"branch": "main"})],
            [adk_response("adk-1", "ci_status", {"result": "red"})],
            [adk_call("adk-2", "deploy_log")],
            [adk_response("adk-2", "deploy_log", {"error": self.ERROR})],
        ]
        for index, parts in enumerate(adk_parts):
            message = Message(role=Role.ROLE_AGENT, message_id=f"adk-{index}", parts=parts)
            await updater.update_status(TaskState.TASK_STATE_WORKING, message)
        await updater.complete(updater.new_agent_message([Part(text=REPLY)]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


class EnvelopeAgent(AgentExecutor):
    """Our own envelopes (no dialect): a thought and one tool call ``env-1``."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        progress = ProgressEmitter(await open_task(context, event_queue))
        await progress.thinking("Reading the request.")
        async with progress.tool_call("ci_status", tool_call_id="env-1"):
            pass
        await progress.complete(REPLY)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError
