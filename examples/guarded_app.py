"""An a2a-sdk app you build yourself, guarded as the agents a2a-progress serves are.

``BrowserGuard`` wraps the whole app: it answers only requests addressed to this machine's
loopback names (``Host``), from no other web site (``Origin``, ``Sec-Fetch-Site``) and with JSON
bodies, so a web page the user has open can neither start a turn nor read a reply. A2A clients
send none of what it refuses and are served as before.

    python examples/guarded_app.py --port 9997
"""

import argparse
import asyncio
import logging
import socket
import sys

import uvicorn
from a2a.helpers import new_task
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import Part, TaskState
from starlette.applications import Starlette
from starlette.middleware import Middleware

from a2a_progress.serving import BrowserGuard, build_agent_card


class Greeter(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        await event_queue.enqueue_event(
            new_task(task_id, context_id, TaskState.TASK_STATE_SUBMITTED)
        )
        updater = TaskUpdater(event_queue, task_id, context_id)
        await updater.complete(updater.new_agent_message([Part(text="hello")]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


async def main(sock: socket.socket) -> None:
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    card = build_agent_card("greeter", description="Says hello.", http_url=url, grpc_target=None)
    handler = DefaultRequestHandler(Greeter(), InMemoryTaskStore(), card)
    app = Starlette(
        routes=[
            *create_agent_card_routes(card),
            *create_jsonrpc_routes(handler, "/"),
            *create_rest_routes(handler, path_prefix="/rest"),
        ],
        # Loopback names only; for a server other machines reach, add the names they use:
        # Middleware(BrowserGuard, allowed_hosts=["agent.example", "127.0.0.1", "localhost"])
        middleware=[Middleware(BrowserGuard)],
    )
    logging.info("serving: agent card %s/.well-known/agent-card.json", url)
    await uvicorn.Server(uvicorn.Config(app, log_level="warning")).serve(sockets=[sock])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=9997, help="0 picks a free port")
    port = parser.parse_args().port
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        listening = socket.create_server(("127.0.0.1", port))
    except OSError as error:  # e.g. another server has the port
        sys.exit(
            f"cannot listen on 127.0.0.1:{port}: {error.strerror}; "
            "choose another with --port (0 picks a free one)"
        )
    asyncio.run(main(listening))
