"""An agent that asks a question, then answers in the same task: the multi-turn case.

The first turn thinks, runs a tool and ends INPUT_REQUIRED; the follow-up (a message naming only
the task) runs another tool and completes. Written against a2a-progress's public API and the
``AgentExecutor`` import both a2a-sdk lines share, so it runs on 1.x and 0.3 alike.
"""

from __future__ import annotations

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue

from a2a_progress import ProgressEmitter, open_task


class AskingAgent(AgentExecutor):
    """Asks which environment, then deploys there."""

    def __init__(self) -> None:
        self.context_ids: list[str] = []  # the context id each turn's updater used

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = await open_task(context, event_queue)
        self.context_ids.append(updater.context_id)
        async with ProgressEmitter(updater) as progress:
            if context.current_task is None:
                await progress.thinking("I need the environment first.")
                async with progress.tool_call("list_envs", tool_call_id="c1"):
                    pass
                await progress.input_required("Which environment: staging or prod?")
                return
            async with progress.tool_call("deploy", tool_call_id="c2"):
                pass
            await progress.complete("Deployed to staging.")

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError
