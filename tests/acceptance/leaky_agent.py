"""A README-style callee that prints credentials everywhere an agent can: thinking, text, errors,
tool names and the exceptions its tools raise; then ordinary text. Run as a script by the tests."""

import argparse
import asyncio
import contextlib

from a2a.server.agent_execution import RequestContext
from a2a.server.events import EventQueue
from credentials import CASES, PLAIN
from readme_agent import ChainAgent

from a2a_progress import ProgressEmitter, open_task
from a2a_progress.serving import serve_forever


class LeakyAgent(ChainAgent):
    """The README agent's cancel(); an execute() that prints credentials."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = await open_task(context, event_queue)
        async with ProgressEmitter(updater) as progress:
            for index, (name, text, _) in enumerate(CASES):
                await progress.thinking(f"I found this in the logs: {text}")
                await progress.text(text)
                await progress.error(f"step failed: {text}")
                # Agents build tool names from commands and URLs: some carry the credential.
                tool = text.splitlines()[0][:200] if index % 3 == 0 else f"check_{name}"
                with contextlib.suppress(RuntimeError):
                    async with progress.tool_call(tool, tool_call_id=f"call-{index}"):
                        raise RuntimeError(f"request failed: {text}")
            for text in PLAIN:
                await progress.text(text)
            await progress.complete("done")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    port = parser.parse_args().port
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(
            serve_forever(
                LeakyAgent("leaky", None, "jsonrpc"), name="leaky", http_port=port, grpc_port=None
            )
        )
