# mypy: ignore-errors
# (a2a-sdk 0.3's types: type-checked where 0.3 is installed, not beside 1.x)
"""The README's callee on a2a-sdk 0.3 (CrewAI, Strands, Agno and BeeAI pin it): the agent is the
same code, and a2a-sdk 0.3's own app serves it (``a2a_progress.serving`` needs a2a-sdk 1.x).

    pip install a2a-progress 'a2a-sdk[http-server]==0.3.*' uvicorn opentelemetry-sdk \
        opentelemetry-exporter-otlp opentelemetry-distro
    opentelemetry-instrument python examples/sdk03_callee.py --port 9999
"""

import argparse
import asyncio
import socket
import sys

import uvicorn
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentSkill

from a2a_progress import ProgressEmitter, open_task, progress_extension


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
            call = await progress.tool_call("dashboard", tool_call_id="call-2")  # running
            try:
                await read_dashboard()
                await call.done()
            except TimeoutError as error:
                await call.aborted(str(error))  # report the failed tool, and go on
            await progress.text(f"CI is {status}")
            await progress.complete(f"The deploy is blocked: CI is {status}.")

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        await ProgressEmitter.for_task(event_queue, task_id, context_id).cancel()


def agent_card(url: str) -> AgentCard:
    """The agent's card: JSON-RPC at ``url``, streaming, the progress extension declared."""
    return AgentCard(
        name="research",
        description="Finds out why a deploy is blocked.",
        url=url,
        version="1.0.0",
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        capabilities=AgentCapabilities(streaming=True, extensions=[progress_extension()]),
        skills=[AgentSkill(id="research", name="research", description="why", tags=["ci"])],
    )


def app(url: str) -> A2AStarletteApplication:
    """The agent as a2a-sdk 0.3's JSON-RPC application."""
    handler = DefaultRequestHandler(agent_executor=ResearchAgent(), task_store=InMemoryTaskStore())
    return A2AStarletteApplication(agent_card=agent_card(url), http_handler=handler)


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve the example agent on a2a-sdk 0.3.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9999, help="0 picks a free port")
    args = parser.parse_args()
    try:
        listening = socket.create_server((args.host, args.port))
    except OSError as error:  # e.g. another agent has the port
        sys.exit(
            f"cannot listen on {args.host}:{args.port}: {error.strerror}; "
            "choose another with --port (0 picks a free one)"
        )
    url = f"http://{args.host}:{listening.getsockname()[1]}/"
    print(f"serving: agent card {url}.well-known/agent-card.json", file=sys.stderr, flush=True)
    uvicorn.Server(uvicorn.Config(app(url).build())).run(sockets=[listening])


if __name__ == "__main__":
    main()
