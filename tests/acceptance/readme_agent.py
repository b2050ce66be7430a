"""An agent written the way the README tells a user to write one (run as a script by the tests).

``execute()`` uses `ProgressEmitter`; its one tool opens a span of its own with the global tracer
and, when ``--next`` is given, asks the next agent over A2A streaming with `create_client` and
`follow`. It is served either as the README serves it (`serve_forever`) or the way plain a2a-sdk
users do, with ``uvicorn.Server(config).run()`` on a Starlette app of a2a-sdk's routes.
"""

import argparse
import asyncio
import contextlib

import httpx
from a2a.client import A2ACardResolver
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from opentelemetry import trace

from a2a_progress import ProgressEmitter, TurnOutcome, follow, open_task
from a2a_progress.serving import (
    Transport,
    build_agent_card,
    card_with_interfaces,
    create_client,
    serve_forever,
    user_message,
)

# --8<-- [start:tracer]
tracer = trace.get_tracer("readme-agent")
# --8<-- [end:tracer]


class ChainAgent(AgentExecutor):
    """Thinks, runs ``tool_<name>`` (own span inside, maybe a call to the next agent), replies."""

    def __init__(
        self, name: str, next_url: str | None, transport: Transport, tool_seconds: float = 0.0
    ) -> None:
        self.name, self.next_url, self.transport = name, next_url, transport
        self.tool_seconds = tool_seconds

    async def ask_next(self, next_url: str) -> str:
        async with httpx.AsyncClient() as http:
            card = await A2ACardResolver(http, next_url).get_agent_card()
        reply = ""
        async with create_client(card_with_interfaces(card, self.transport)) as client:
            async for update in follow(client.send_message(user_message(f"from {self.name}"))):
                if isinstance(update, TurnOutcome):
                    reply = update.reply
        return reply

    # --8<-- [start:execute]
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = await open_task(context, event_queue)
        async with ProgressEmitter(updater) as progress:
            await progress.thinking(f"{self.name} looks into it")
            async with progress.tool_call(f"tool_{self.name}", tool_call_id=f"call-{self.name}"):
                with tracer.start_as_current_span(f"{self.name} own work"):
                    await asyncio.sleep(self.tool_seconds)
                    answer = f"{self.name} did it"
                    if self.next_url:
                        answer += " / " + await self.ask_next(self.next_url)
            await progress.complete(answer)

    # --8<-- [end:execute]

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        await ProgressEmitter.for_task(event_queue, task_id, context_id).cancel()


def serve_with_plain_uvicorn(agent: AgentExecutor, name: str, port: int) -> None:
    """a2a-sdk's routes in a Starlette app, run by ``uvicorn.Server(config).run()``."""
    import uvicorn
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import (
        create_agent_card_routes,
        create_jsonrpc_routes,
        create_rest_routes,
    )
    from a2a.server.tasks import InMemoryTaskStore
    from starlette.applications import Starlette

    card = build_agent_card(
        name, description=name, http_url=f"http://127.0.0.1:{port}", grpc_target=None
    )
    handler = DefaultRequestHandler(agent, InMemoryTaskStore(), card)
    app = Starlette(
        routes=[
            *create_agent_card_routes(card),
            *create_jsonrpc_routes(handler, "/"),
            *create_rest_routes(handler, path_prefix="/rest"),
        ]
    )
    uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")).run()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--grpc-port", type=int, default=0)
    parser.add_argument("--next")
    parser.add_argument("--transport", default="jsonrpc", choices=["jsonrpc", "rest", "grpc"])
    parser.add_argument("--serve", default="readme", choices=["readme", "uvicorn"])
    parser.add_argument("--tool-seconds", type=float, default=0.0, help="how long the tool works")
    args = parser.parse_args()
    agent = ChainAgent(args.name, args.next, args.transport, args.tool_seconds)
    if args.serve == "uvicorn":
        serve_with_plain_uvicorn(agent, args.name, args.port)
        return
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(
            serve_forever(agent, name=args.name, http_port=args.port, grpc_port=args.grpc_port)
        )


if __name__ == "__main__":
    main()
