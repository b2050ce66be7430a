"""A plain a2a-sdk agent nobody tuned for a2a-progress: text-only WORKING updates (some of them
hostile HTML), then an artifact with the reply. Served by uvicorn.Server(config).run()."""

import asyncio
import sys

import uvicorn
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Part,
    Task,
    TaskState,
    TaskStatus,
)
from starlette.applications import Starlette

UPDATES = [
    "Checking the inventory service...",
    "<img src=x onerror=\"document.title='PWNED-IMG'\">",
    "<script>document.title='PWNED-SCRIPT'</script>",
    'Result: <b>bold?</b> & "quotes" `code`',
]
REPLY = "Final answer: 42 widgets in stock <i>really</i>."


class PlainAgent(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        if context.current_task is None:
            submitted = TaskStatus(state=TaskState.TASK_STATE_SUBMITTED)
            await event_queue.enqueue_event(
                Task(id=task_id, context_id=context_id, status=submitted, history=[context.message])
            )
        updater = TaskUpdater(event_queue, task_id, context_id)
        for text in UPDATES:
            message = updater.new_agent_message([Part(text=text)])
            await updater.update_status(TaskState.TASK_STATE_WORKING, message=message)
            await asyncio.sleep(0.2)
        await updater.add_artifact([Part(text=REPLY)], name="answer")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        pass


if __name__ == "__main__":
    port = int(sys.argv[1])
    card = AgentCard(
        name="plain-inventory",
        description="An a2a-sdk agent that sends plain text.",
        version="1.0",
        supported_interfaces=[
            AgentInterface(
                url=f"http://127.0.0.1:{port}", protocol_binding="JSONRPC", protocol_version="1.0"
            )
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="stock", name="stock", description="stock", tags=["stock"])],
    )
    handler = DefaultRequestHandler(PlainAgent(), InMemoryTaskStore(), card)
    app = Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/")])
    uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")).run()
