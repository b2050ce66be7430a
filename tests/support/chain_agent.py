"""An agent of a chain A → B → C, written as the README tells a user to write one.

``python -m support.chain_agent NAME [--grpc] [--handler NAME]`` (``tests`` on ``PYTHONPATH``,
under ``opentelemetry-instrument``) serves one a2a-sdk agent on loopback and prints
``PORT <n>`` once it listens: JSON-RPC at ``/`` and REST at ``/rest`` with a plain
``uvicorn.Server(config).run()``, or, with ``--grpc``, also gRPC (then uvicorn's ``serve()`` and a
``grpc.aio`` server share one event loop; the card lists every interface). ``--handler``
installs a SIGTERM handler of the application's own that prints ``HANDLER`` and exits 0.

Each turn reads a JSON request from the user's text::

    {"route": ["http://127.0.0.1:PORT_OF_C", ...], "transport": "grpc", "probe": URL, "hold": false}

and runs one tool, ``tool_NAME``: inside it the agent opens a span of its own with the global
tracer (``NAME own work``), fetches ``probe`` with httpx (when given), then calls the first agent
of ``route`` over ``transport`` with the rest of the route, reading its stream to the end. With
``"hold": true`` the tool then waits forever (a turn still in flight when the process stops).
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import sys
from typing import Any

import grpc.aio
import httpx
import uvicorn
from a2a.client import A2ACardResolver
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import a2a_pb2_grpc
from opentelemetry import trace
from starlette.applications import Starlette

from a2a_progress import ProgressEmitter, open_task
from a2a_progress.serving import user_message
from a2a_progress.serving.card import REST_PATH, build_agent_card
from a2a_progress.serving.client import create_client
from a2a_progress.serving.transports import card_with_interfaces

tracer = trace.get_tracer("chain-agent")


def request_of(context: RequestContext) -> dict[str, Any]:
    message = context.message
    text = message.parts[0].text if message is not None and message.parts else "{}"
    try:
        parsed = json.loads(text)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


async def call_next(route: list[str], transport: str, rest: dict[str, Any]) -> int:
    """Send the rest of the route to its first agent; the number of events it streamed back."""
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, route[0]).get_agent_card()
    forwarded = json.dumps({**rest, "route": route[1:], "transport": transport})
    async with create_client(card_with_interfaces(card, transport)) as client:  # type: ignore[arg-type]
        return len([event async for event in client.send_message(user_message(forwarded))])


class ChainAgent(AgentExecutor):
    def __init__(self, name: str) -> None:
        self.name = name

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        request = request_of(context)
        updater = await open_task(context, event_queue)
        async with ProgressEmitter(updater) as progress:
            await progress.thinking(f"{self.name} works on it")
            async with progress.tool_call(f"tool_{self.name}", tool_call_id=f"{self.name}-1"):
                with tracer.start_as_current_span(f"{self.name} own work"):
                    if request.get("probe"):
                        async with httpx.AsyncClient(timeout=30) as http:
                            await http.get(request["probe"])
                route = list(request.get("route") or [])
                if route:
                    await call_next(route, str(request.get("transport", "jsonrpc")), request)
                if request.get("hold"):
                    await asyncio.Event().wait()
            await progress.complete(f"{self.name} done")

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None
        emitter = ProgressEmitter.for_task(event_queue, context.task_id, context.context_id or "")
        await emitter.cancel()


def app_for(
    name: str, port: int, grpc_target: str | None
) -> tuple[Starlette, DefaultRequestHandler]:
    card = build_agent_card(
        f"agent {name}",
        description="One agent of a chain.",
        http_url=f"http://127.0.0.1:{port}",
        grpc_target=grpc_target,
        v0_3=False,
    )
    handler = DefaultRequestHandler(ChainAgent(name), InMemoryTaskStore(), card)
    app = Starlette(
        routes=[
            *create_agent_card_routes(card),
            *create_jsonrpc_routes(handler, "/"),
            *create_rest_routes(handler, path_prefix=REST_PATH),
        ]
    )
    return app, handler


async def serve_with_grpc(name: str, sock: socket.socket) -> None:
    """uvicorn and a ``grpc.aio`` server in one event loop (gRPC needs the running loop)."""
    grpc_server = grpc.aio.server()
    grpc_target = f"127.0.0.1:{grpc_server.add_insecure_port('127.0.0.1:0')}"
    app, handler = app_for(name, sock.getsockname()[1], grpc_target)
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), grpc_server)  # type: ignore[no-untyped-call]
    await grpc_server.start()
    server = uvicorn.Server(uvicorn.Config(app, lifespan="off", log_level="warning"))
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    try:
        await server.serve(sockets=[sock])
    finally:
        await grpc_server.stop(1)


def main() -> None:
    name, *options = sys.argv[1:]
    sock = socket.create_server(("127.0.0.1", 0))
    if "--handler" in options:

        def own_handler(signum: int, frame: object) -> None:
            print("HANDLER", flush=True)
            sys.exit(0)

        signal.signal(signal.SIGTERM, own_handler)
    if "--grpc" in options:
        asyncio.run(serve_with_grpc(name, sock))
        return
    app, _ = app_for(name, sock.getsockname()[1], None)
    server = uvicorn.Server(uvicorn.Config(app, lifespan="off", log_level="warning"))
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
