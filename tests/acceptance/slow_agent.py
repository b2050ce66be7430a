"""A README-style callee whose one tool runs for a minute (run as a script by the tests)."""

import argparse
import asyncio
import contextlib

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue

from a2a_progress import ProgressEmitter, open_task
from a2a_progress.serving import serve_forever


class SlowAgent(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = await open_task(context, event_queue)
        async with ProgressEmitter(updater) as progress:
            await progress.thinking("This takes a while.")
            async with progress.tool_call("long_job", tool_call_id="call-1"):
                await asyncio.sleep(60)
            await progress.complete("finished")

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        await ProgressEmitter.for_task(event_queue, task_id, context_id).cancel()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--grpc-port", type=int, required=True)
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(
            serve_forever(SlowAgent(), name="slow", http_port=args.port, grpc_port=args.grpc_port)
        )
