"""`serve_agent`: one ``AgentExecutor`` over JSON-RPC, REST and gRPC, 1.0 and v0.3, in this loop."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal
import socket
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Final, TypedDict, Unpack

import grpc
import grpc.aio
from a2a.compat.v0_3 import a2a_v0_3_pb2_grpc
from a2a.compat.v0_3.grpc_handler import CompatGrpcHandler
from a2a.server.agent_execution import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler, RequestHandler
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCard, AgentExtension, a2a_pb2_grpc
from a2a.utils.constants import PROTOCOL_VERSION_0_3, PROTOCOL_VERSION_1_0
from starlette.applications import Starlette
from starlette.middleware import Middleware

from a2a_progress.serving.card import REST_PATH, build_agent_card
from a2a_progress.serving.guard import BrowserGuard, served_names
from a2a_progress.serving.http_server import HttpServer, stop_idle_sse_watcher
from a2a_progress.serving.transports import Transport, card_with_interfaces

__all__ = ["PortInUseError", "ServeOptions", "ServedAgent", "serve_agent", "serve_forever"]

# The name this logger has had since serving lived in ``a2a_progress.serve``: applications
# (and ``a2a-progress serve-demo``) configure it by that name.
logger = logging.getLogger("a2a_progress.serve")

# Seconds in-flight requests get to finish when the agent stops; then their executions
# are cancelled. The servers themselves cut what still hangs after twice that.
_SHUTDOWN_GRACE: Final = 1
_SERVER_GRACE: Final = 2 * _SHUTDOWN_GRACE
# Bind addresses that are not a destination; the card advertises loopback for them.
_WILDCARD_TO_LOOPBACK: Final = {"0.0.0.0": "127.0.0.1", "::": "::1"}


# grpcio reports a port it cannot bind as a RuntimeError with this text, and no errno.
_GRPC_BIND_FAILED: Final = "Failed to bind to address"


class PortInUseError(OSError):
    """`serve_agent` could not listen: ``port`` on ``host`` is taken (another process, or a
    second copy of this one). An `OSError` with ``errno`` ``EADDRINUSE``; its text is one line,
    ``cannot listen on HOST:PORT: the port is taken``, for an entry point to print as it is,
    followed by how to choose another port.
    """

    def __init__(self, host: str, port: int, *, grpc: bool = False) -> None:
        self.host = host
        """The address it was asked to listen on."""
        self.port = port
        """The port that is taken."""
        self.grpc = grpc
        """Whether it is the gRPC port (``grpc_port``), else the HTTP one (``http_port``)."""
        text = f"cannot listen on {_host_port(host, port)}: the port is taken"
        super().__init__(errno.EADDRINUSE, text)

    def __str__(self) -> str:
        return str(self.strerror)  # one line, without OSError's "[Errno 98]"


class ServeOptions(TypedDict, total=False):
    """The keyword arguments of `serve_agent` (and `serve_forever`); see `serve_agent`."""

    name: str
    description: str
    host: str
    http_port: int
    grpc_port: int | None
    enable_v0_3_compat: bool
    streaming: bool
    public_host: str | None
    extensions: Sequence[AgentExtension]
    allowed_hosts: Sequence[str]
    allowed_origins: Sequence[str]


@dataclass(frozen=True)
class ServedAgent:
    """An agent being served by `serve_agent`, and where to reach it."""

    card: AgentCard
    """The card served at ``{http_url}/.well-known/agent-card.json``."""
    http_url: str
    """Base URL of the HTTP server, as advertised: JSON-RPC endpoint and agent card."""
    grpc_target: str | None
    """``host:port`` of the gRPC server, as advertised; None when gRPC is not served."""
    handler: RequestHandler
    """The `DefaultRequestHandler` behind every transport."""

    def card_for(self, transport: Transport, *, v0_3: bool = False) -> AgentCard:
        """A copy of `card` whose only interface is ``transport`` in protocol 1.0 or 0.3.

        `create_client` on it speaks exactly that transport and protocol line.

        Raises:
            ValueError: the agent is not served over that transport in that version.
        """
        version = PROTOCOL_VERSION_0_3 if v0_3 else PROTOCOL_VERSION_1_0
        card = card_with_interfaces(self.card, transport, version)
        if not card.supported_interfaces:
            raise ValueError(f"{self.card.name!r} is not served over {transport} {version}")
        return card


@contextlib.asynccontextmanager
async def serve_agent(
    executor: AgentExecutor,
    *,
    name: str = "a2a-progress agent",
    description: str = "An A2A agent served by a2a-progress.",
    host: str = "127.0.0.1",
    http_port: int = 0,
    grpc_port: int | None = 0,
    enable_v0_3_compat: bool = True,
    streaming: bool = True,
    public_host: str | None = None,
    extensions: Sequence[AgentExtension] = (),
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
) -> AsyncIterator[ServedAgent]:
    """Serve ``executor`` on ``host`` over every transport until the block exits.

    One uvicorn server in the current event loop serves the agent card, JSON-RPC
    and REST on ``http_port``; unless ``grpc_port`` is None, a ``grpc.aio``
    server serves gRPC on it. Port 0 picks a free port; the `ServedAgent`
    carries the real ones. ``enable_v0_3_compat`` serves the v0.3 protocol
    beside 1.0 on every transport and lists it in the card. ``public_host`` is
    the host name the card advertises; it defaults to ``host``, or to loopback
    when ``host`` is a wildcard address such as ``0.0.0.0``. ``extensions`` are
    declared in the card (pass ``(progress_extension(),)`` for an agent that sends
    progress envelopes through ``ProgressEmitter``).

    The HTTP server refuses what a web page can make a browser send
    (`BrowserGuard`): requests addressed to another
    ``Host`` than the loopback names, ``host`` and the advertised name (plus
    ``allowed_hosts``; ``"*"`` for any), requests from another site (``Origin``,
    ``Sec-Fetch-Site``) unless their origin is in ``allowed_origins``, and bodies that are not
    JSON. A2A clients, which send neither, are served as before.

    Neither server touches signal handlers. On exit both stop accepting at once;
    in-flight requests get a second's grace, then the request handler is closed,
    which cancels the executions still running and ends their streams. No task,
    thread or port of the agent outlives the block.

    Raises:
        PortInUseError: ``http_port`` or ``grpc_port`` is taken (nothing is left bound).
    """
    advertised = public_host or _WILDCARD_TO_LOOPBACK.get(host, host)
    http_socket = _listen(host, http_port)
    http_server: HttpServer | None = None
    grpc_server: grpc.aio.Server | None = None
    handler: DefaultRequestHandler | None = None
    try:
        http_url = f"http://{_host_port(advertised, http_socket.getsockname()[1])}"
        grpc_target = None
        if grpc_port is not None:
            grpc_server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
            try:
                bound = grpc_server.add_insecure_port(_host_port(host, grpc_port))
            except RuntimeError as error:
                if not str(error).startswith(_GRPC_BIND_FAILED):
                    raise
                raise PortInUseError(host, grpc_port, grpc=True) from error
            grpc_target = _host_port(advertised, bound)
        card = build_agent_card(
            name,
            description=description,
            http_url=http_url,
            grpc_target=grpc_target,
            streaming=streaming,
            v0_3=enable_v0_3_compat,
            extensions=extensions,
        )
        handler = DefaultRequestHandler(executor, InMemoryTaskStore(), card)
        if grpc_server is not None:
            a2a_pb2_grpc.add_A2AServiceServicer_to_server(  # type: ignore[no-untyped-call]
                GrpcHandler(handler), grpc_server
            )
            if enable_v0_3_compat:
                a2a_v0_3_pb2_grpc.add_A2AServiceServicer_to_server(  # type: ignore[no-untyped-call]
                    CompatGrpcHandler(handler), grpc_server
                )
            await grpc_server.start()
        guard = Middleware(
            BrowserGuard,
            allowed_hosts=served_names(host, [advertised, *allowed_hosts]),
            allowed_origins=allowed_origins,
        )
        app = Starlette(
            # The card first: the REST routes end in a catch-all "/{tenant}" mount.
            routes=[
                *create_agent_card_routes(card),
                *create_jsonrpc_routes(handler, "/", enable_v0_3_compat=enable_v0_3_compat),
                *create_rest_routes(
                    handler, enable_v0_3_compat=enable_v0_3_compat, path_prefix=REST_PATH
                ),
            ],
            middleware=[guard],
        )
        http_server = HttpServer(app, http_socket, graceful_shutdown=_SERVER_GRACE)
        await http_server.start()
        yield ServedAgent(card=card, http_url=http_url, grpc_target=grpc_target, handler=handler)
    finally:
        try:
            await _shut_down(http_server, grpc_server, handler)
        finally:
            http_socket.close()


async def serve_forever(executor: AgentExecutor, **options: Unpack[ServeOptions]) -> None:
    """Serve ``executor`` like `serve_agent` (same keyword arguments) until cancelled or SIGTERM.

    SIGTERM makes it stop the servers and return; cancellation (Ctrl+C under
    `asyncio.run`) stops them and propagates. The SIGTERM handler is only
    installed from the main thread of a Unix event loop. Where the agent is
    served is logged at INFO.
    """
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    # The loop's removal sets SIG_DFL; whatever was installed before (e.g. the instrumentor's
    # flush-then-exit handler) must come back after serving.
    previous = signal.getsignal(signal.SIGTERM)
    try:
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        on_sigterm = True
    except (NotImplementedError, RuntimeError):  # not Unix, or not the main thread
        on_sigterm = False
    try:
        async with serve_agent(executor, **options) as served:
            logger.info(
                "serving %r: agent card %s/.well-known/agent-card.json, JSON-RPC %s, "
                "REST %s%s, gRPC %s",
                served.card.name,
                served.http_url,
                served.http_url,
                served.http_url,
                REST_PATH,
                served.grpc_target or "off",
            )
            await stop.wait()
    finally:
        if on_sigterm:
            loop.remove_signal_handler(signal.SIGTERM)
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)


def _listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port``, so port 0 resolves before serving."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][0]
    try:
        return socket.create_server((host, port), family=family)
    except OSError as error:
        if error.errno != errno.EADDRINUSE:
            raise
        raise PortInUseError(host, port) from error


def _host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


async def _shut_down(
    http_server: HttpServer | None,
    grpc_server: grpc.aio.Server | None,
    handler: DefaultRequestHandler | None,
) -> None:
    """Stop both servers; after `_SHUTDOWN_GRACE` seconds, end what still runs.

    The servers stop accepting at once and in-flight requests get the grace.
    Then closing the handler cancels the executions still running, which ends
    their calls and streams cleanly; only what still hangs after
    `_SERVER_GRACE` is cut by the servers. Raises the first failure of a
    server once everything is down.
    """
    stops: list[asyncio.Future[None]] = []
    if http_server is not None:
        stops.append(asyncio.ensure_future(http_server.stop()))
    if grpc_server is not None:
        stops.append(asyncio.ensure_future(grpc_server.stop(_SERVER_GRACE)))
    try:
        if stops:
            await asyncio.wait(stops, timeout=_SHUTDOWN_GRACE)
    finally:
        if handler is not None:
            await handler.aclose()
        results = await asyncio.gather(*stops, return_exceptions=True)
        await stop_idle_sse_watcher()
    for result in results:
        if isinstance(result, BaseException):
            raise result
