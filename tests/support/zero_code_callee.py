"""A plain a2a-sdk agent server with no telemetry code, for ``opentelemetry-instrument``.

``python -m support.zero_code_callee`` (with ``tests`` on ``PYTHONPATH``) serves
:class:`support.agents.ToolAgent` over JSON-RPC with uvicorn on a free loopback port, prints
``PORT <n>`` once the port listens, and stops on SIGINT or SIGTERM. (uvicorn re-raises the
signal it handled: SIGINT then ends the process as Ctrl+C does, through the exit hooks that flush
the telemetry; on SIGTERM the instrumentor's handler flushes it, then the signal ends the process.)
"""

import socket

import uvicorn
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from a2a.utils.constants import PROTOCOL_VERSION_1_0, TransportProtocol
from starlette.applications import Starlette

from support.agents import ToolAgent


def main() -> None:
    sock = socket.create_server(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    card = AgentCard(
        name="zero-code callee",
        description="Runs two tools and replies.",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(
                url=f"http://127.0.0.1:{port}",
                protocol_binding=TransportProtocol.JSONRPC.value,
                protocol_version=PROTOCOL_VERSION_1_0,
            )
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="tools", name="tools", description="Runs tools.", tags=["test"])],
    )
    handler = DefaultRequestHandler(ToolAgent(), InMemoryTaskStore(), card)
    app = Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/")])
    print(f"PORT {port}", flush=True)
    uvicorn.Server(uvicorn.Config(app, lifespan="off", log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    main()
