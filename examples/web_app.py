"""Your own web app showing a remote agent's progress: a relay mounted at /progress.

It asks the agent at AGENT_URL one question and streams the turn to every browser that opens
http://127.0.0.1:PORT/progress/ (the page), until Ctrl-C:

    python examples/web_app.py http://127.0.0.1:9999 "Why is the deploy blocked?" --port 8080
"""

import argparse
import asyncio
import contextlib
import logging
import socket
import sys

import uvicorn
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from a2a_progress.cli import CliError, agent_errors, fetch_card, open_client
from a2a_progress.serving import user_message
from a2a_progress.web import ProgressRelay


async def main(agent_url: str, question: str, sock: socket.socket) -> None:
    card = await fetch_card(agent_url)  # the agent card, read as `a2a-progress watch` reads it
    relay = ProgressRelay(title=card.name, request=question)  # one relay per turn
    app = Starlette(routes=[Route("/", lambda request: PlainTextResponse("your app"))])
    app.mount("/progress", relay.app)  # /progress/ (page), /progress/stream, /progress/static/
    # No lifespan: nothing to start, and a turn that fails stops it without a logged traceback.
    server = uvicorn.Server(uvicorn.Config(app, log_level="info", lifespan="off"))
    async with open_client(card) as client:  # the card picks the transport
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        logging.info("the page: http://127.0.0.1:%d/progress/", sock.getsockname()[1])
        await relay.run(client.send_message(user_message(question)))  # or relay.run(follow(...))
    await serving  # browsers can still open the page and replay the turn; Ctrl-C stops


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Serve a page that shows one turn of an agent.")
    parser.add_argument("agent_url")
    parser.add_argument("question")
    parser.add_argument("--port", type=int, default=8080, help="0 picks a free port")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request to the agent
    try:  # the port first: a taken one is said before the agent is asked anything
        listening = socket.create_server(("127.0.0.1", args.port))
    except OSError as error:  # e.g. another server has the port
        sys.exit(
            f"cannot listen on 127.0.0.1:{args.port}: {error.strerror}; "
            "choose another with --port (0 picks a free one)"
        )
    try:
        # Ctrl-C stops serving, quietly: suppressed before agent_errors would report it.
        with agent_errors(args.agent_url), contextlib.suppress(KeyboardInterrupt):
            asyncio.run(main(args.agent_url, args.question, listening))
    except CliError as error:  # nothing answers at the URL, it is no A2A agent...: watch's line
        print(f"web_app.py: {error}", file=sys.stderr)
        sys.exit(error.code)
