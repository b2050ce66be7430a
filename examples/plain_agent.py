"""An A2A agent as you may already have one: plain-text progress, no a2a-progress in execute().

`a2a-progress watch` shows any agent's working updates as they come; this one stands in for
yours in the tutorial's first step:

    python examples/plain_agent.py --port 9999
    a2a-progress watch http://127.0.0.1:9999 "Why is the deploy blocked?"
"""

import argparse
import asyncio
import contextlib
import logging
import sys

from a2a.helpers import new_task
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Part, TaskState

from a2a_progress.serving import PortInUseError, serve_forever


class PlainAgent(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        history = [context.message] if context.message else []
        await event_queue.enqueue_event(
            new_task(task_id, context_id, TaskState.TASK_STATE_SUBMITTED, history=history)
        )
        updater = TaskUpdater(event_queue, task_id, context_id)

        async def say(text: str) -> None:  # one working update with a line of text
            message = updater.new_agent_message([Part(text=text)])
            await updater.update_status(TaskState.TASK_STATE_WORKING, message=message)

        await say("Checking CI")
        await asyncio.sleep(0.3)  # your tool: an API call, a query, a subprocess ...
        await say("CI is red (2 failing tests)")
        await updater.complete(updater.new_agent_message([Part(text="The deploy is blocked.")]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve a plain A2A agent.")
    parser.add_argument("--port", type=int, default=9999, help="0 picks a free port")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")  # says where it serves
    try:
        with contextlib.suppress(KeyboardInterrupt):  # serve it as you already do: a2a-sdk's
            asyncio.run(serve_forever(PlainAgent(), name="plain", http_port=args.port))
    except PortInUseError as error:  # e.g. a second copy on the first one's port
        sys.exit(f"{error}; choose another with --port (0 picks a free one)")


if __name__ == "__main__":
    main()
