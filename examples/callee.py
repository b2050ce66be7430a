"""A callee that reports its progress: thinking, tool calls (one fails), text, then the reply.

Run it, then ask it something with ``caller.py`` (or ``a2a-progress watch``):

    python examples/callee.py --port 9999
    python examples/caller.py http://127.0.0.1:9999 "Why is the deploy blocked?"
"""

import argparse
import asyncio
import contextlib
import logging
import sys

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue

from a2a_progress import ProgressEmitter, open_task, progress_extension
from a2a_progress.serving import PortInUseError, serve_forever


async def check_ci() -> str:
    await asyncio.sleep(0.3)  # your tool: an API call, a query, a subprocess ...
    return "red (2 failing tests)"


async def read_dashboard() -> str:
    raise TimeoutError("the dashboard timed out after 1s")  # a tool that fails


class ResearchAgent(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = await open_task(context, event_queue)  # enqueues the new task, SUBMITTED
        async with ProgressEmitter(updater) as progress:  # open calls end "aborted" on errors
            await progress.thinking("The user wants the deploy status; check CI first.")
            async with progress.tool_call("ci_status", tool_call_id="call-1"):  # running, done
                status = await check_ci()
            if not status:  # nothing to go on: the turn fails, and says why
                await progress.failed("CI did not answer, so the cause is unknown.")
                return
            call = await progress.tool_call("dashboard", tool_call_id="call-2")  # running
            try:
                await read_dashboard()
                await call.done()
            except TimeoutError as error:
                await call.aborted(str(error))  # report the failed tool, and go on
            await progress.text(f"CI is {status}")
            await progress.complete(f"The deploy is blocked: CI is {status}.")

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        # Reaches the emitter execute() is using: its open tool calls end "aborted" first.
        task_id, context_id = context.task_id or "", context.context_id or ""
        await ProgressEmitter.for_task(event_queue, task_id, context_id).cancel()


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve the example research agent.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9999, help="0 picks a free port")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")  # says where it serves
    agent = ResearchAgent()
    # JSON-RPC and REST on --port, gRPC on a free port; the agent card lists them all and
    # declares the progress extension. Ctrl-C or SIGTERM stops it.
    extensions = [progress_extension()]
    serving = serve_forever(
        agent, name="research", host=args.host, http_port=args.port, extensions=extensions
    )
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serving)
    except PortInUseError as error:  # e.g. a second copy on the first one's port
        sys.exit(f"{error}; choose another with --port (0 picks a free one)")


if __name__ == "__main__":
    main()
