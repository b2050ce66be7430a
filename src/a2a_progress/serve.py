"""Serve any A2A ``AgentExecutor`` over every a2a-sdk transport, and build a client for any of them.

`serve_agent` runs one agent on a host, in the current event loop, over JSON-RPC,
HTTP+JSON (REST) and gRPC, each in protocol 1.0 and (by default) the v0.3
compatibility line. It is what the demo, the end-to-end tests and the
benchmarks all run; `create_client` is their client side.

URL layout of a served agent (``http_url`` is e.g. ``http://127.0.0.1:43123``):

* ``{http_url}/.well-known/agent-card.json``: the agent card. It carries the
  1.0 ``supportedInterfaces`` and, when v0.3 compatibility is on, the v0.3
  ``url`` / ``preferredTransport`` / ``additionalInterfaces`` fields too.
* ``{http_url}/`` (POST): JSON-RPC. Protocol 1.0 and v0.3 share the endpoint;
  the ``A2A-Version`` request header picks one, and no header means v0.3.
* ``{http_url}/rest``: HTTP+JSON (`REST_PATH`). Protocol 1.0 lives at
  ``/rest/message:send``, ``/rest/tasks/{id}`` and so on, v0.3 at
  ``/rest/v1/message:send`` and so on, and tenant-scoped 1.0 routes at
  ``/{tenant}/rest/...``.
* ``grpc_target`` (e.g. ``127.0.0.1:43124``): the 1.0 service
  ``lf.a2a.v1.A2AService`` and the v0.3 service ``a2a.v1.A2AService`` on the
  same port.

A client for transport ``T`` in protocol line ``L`` is
``create_client(served.card_for(T, v0_3=L))``. The SDK's `ClientFactory` picks the
transport from the card's interfaces, and the protocol version of the
interface it picks decides between the 1.0 transport and the v0.3 "Compat" one.
"""

import asyncio
import contextlib
import logging
import signal
import socket
from collections.abc import AsyncIterator, Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

import grpc
import grpc.aio
import httpx
import sse_starlette.sse
import uvicorn
from a2a.client import (
    Client,
    ClientCallContext,
    ClientCallInterceptor,
    ClientConfig,
    ClientFactory,
)
from a2a.client.interceptors import AfterArgs, BeforeArgs
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
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    ListTasksRequest,
    ListTasksResponse,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
    a2a_pb2_grpc,
)
from a2a.utils.constants import PROTOCOL_VERSION_0_3, PROTOCOL_VERSION_1_0, TransportProtocol
from starlette.applications import Starlette

from a2a_progress.version import __version__

__all__ = [
    "REST_PATH",
    "TRANSPORTS",
    "ServedAgent",
    "Transport",
    "build_agent_card",
    "create_client",
    "serve_agent",
    "serve_forever",
]

logger = logging.getLogger(__name__)

Transport = Literal["jsonrpc", "rest", "grpc"]
TRANSPORTS: tuple[Transport, ...] = ("jsonrpc", "rest", "grpc")

REST_PATH: Final = "/rest"
"""Path under ``http_url`` where the HTTP+JSON (REST) binding is mounted."""

_BINDINGS: Final[Mapping[Transport, str]] = {
    "jsonrpc": TransportProtocol.JSONRPC.value,
    "rest": TransportProtocol.HTTP_JSON.value,
    "grpc": TransportProtocol.GRPC.value,
}
_MODES: Final = ("text/plain", "application/json")
# Seconds in-flight requests get to finish when the agent stops; then their executions
# are cancelled. The servers themselves cut what still hangs after twice that.
_SHUTDOWN_GRACE: Final = 1
_SERVER_GRACE: Final = 2 * _SHUTDOWN_GRACE
# Client methods that return a stream; they get no overall deadline.
_STREAMING_METHODS: Final = frozenset({"send_message_streaming", "subscribe"})
# Bind addresses that are not a destination; the card advertises loopback for them.
_WILDCARD_TO_LOOPBACK: Final = {"0.0.0.0": "127.0.0.1", "::": "::1"}


def build_agent_card(
    name: str,
    *,
    description: str,
    http_url: str,
    grpc_target: str | None,
    streaming: bool = True,
    skills: Sequence[AgentSkill] = (),
    v0_3: bool = True,
) -> AgentCard:
    """Build the card of an agent served at ``http_url`` (and ``grpc_target``).

    ``supported_interfaces`` lists JSON-RPC at ``http_url``, HTTP+JSON at
    ``http_url`` + `REST_PATH` and, when ``grpc_target`` is given, gRPC there,
    in protocol 1.0; when ``v0_3`` is true the same three follow again in
    protocol 0.3. The 1.0 JSON-RPC interface comes first, so a client that lets
    the card decide speaks JSON-RPC 1.0.

    The spec requires at least one skill, so without ``skills`` the card gets
    one generic skill named after the agent.
    """
    base = http_url.rstrip("/")
    endpoints = [
        (_BINDINGS["jsonrpc"], base),
        (_BINDINGS["rest"], base + REST_PATH),
    ]
    if grpc_target is not None:
        endpoints.append((_BINDINGS["grpc"], grpc_target))
    versions = (PROTOCOL_VERSION_1_0, PROTOCOL_VERSION_0_3) if v0_3 else (PROTOCOL_VERSION_1_0,)
    default_skill = AgentSkill(
        id="default", name=name, description=description, tags=["a2a-progress"]
    )
    return AgentCard(
        name=name,
        description=description,
        version=__version__,
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding=binding, protocol_version=version)
            for version in versions
            for binding, url in endpoints
        ],
        capabilities=AgentCapabilities(streaming=streaming),
        default_input_modes=_MODES,
        default_output_modes=_MODES,
        skills=list(skills) or [default_skill],
    )


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
        binding = _BINDINGS[transport]
        version = PROTOCOL_VERSION_0_3 if v0_3 else PROTOCOL_VERSION_1_0
        chosen = [
            interface
            for interface in self.card.supported_interfaces
            if interface.protocol_binding == binding and interface.protocol_version == version
        ]
        if not chosen:
            raise ValueError(f"{self.card.name!r} is not served over {transport} {version}")
        card = AgentCard()
        card.CopyFrom(self.card)
        del card.supported_interfaces[:]
        card.supported_interfaces.extend(chosen)
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
) -> AsyncIterator[ServedAgent]:
    """Serve ``executor`` on ``host`` over every transport until the block exits.

    One uvicorn server in the current event loop serves the agent card, JSON-RPC
    and REST on ``http_port``; unless ``grpc_port`` is None, a ``grpc.aio``
    server serves gRPC on it. Port 0 picks a free port; the `ServedAgent`
    carries the real ones. ``enable_v0_3_compat`` serves the v0.3 protocol
    beside 1.0 on every transport and lists it in the card. ``public_host`` is
    the host name the card advertises; it defaults to ``host``, or to loopback
    when ``host`` is a wildcard address such as ``0.0.0.0``.

    Neither server touches signal handlers. On exit both stop accepting at once;
    in-flight requests get a second's grace, then the request handler is closed,
    which cancels the executions still running and ends their streams. No task,
    thread or port of the agent outlives the block.
    """
    advertised = public_host or _WILDCARD_TO_LOOPBACK.get(host, host)
    http_socket = _listen(host, http_port)
    http_server: _HttpServer | None = None
    grpc_server: grpc.aio.Server | None = None
    handler: DefaultRequestHandler | None = None
    try:
        http_url = f"http://{_host_port(advertised, http_socket.getsockname()[1])}"
        grpc_target = None
        if grpc_port is not None:
            grpc_server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
            bound = grpc_server.add_insecure_port(_host_port(host, grpc_port))
            grpc_target = _host_port(advertised, bound)
        card = build_agent_card(
            name,
            description=description,
            http_url=http_url,
            grpc_target=grpc_target,
            streaming=streaming,
            v0_3=enable_v0_3_compat,
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
        app = Starlette(
            # The card first: the REST routes end in a catch-all "/{tenant}" mount.
            routes=[
                *create_agent_card_routes(card),
                *create_jsonrpc_routes(handler, "/", enable_v0_3_compat=enable_v0_3_compat),
                *create_rest_routes(
                    handler, enable_v0_3_compat=enable_v0_3_compat, path_prefix=REST_PATH
                ),
            ]
        )
        http_server = _HttpServer(app, http_socket)
        await http_server.start()
        yield ServedAgent(card=card, http_url=http_url, grpc_target=grpc_target, handler=handler)
    finally:
        try:
            await _shut_down(http_server, grpc_server, handler)
        finally:
            http_socket.close()


async def serve_forever(
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
) -> None:
    """Serve ``executor`` like `serve_agent` until cancelled or sent SIGTERM.

    SIGTERM makes it stop the servers and return; cancellation (Ctrl+C under
    `asyncio.run`) stops them and propagates. The SIGTERM handler is only
    installed from the main thread of a Unix event loop. Where the agent is
    served is logged at INFO.
    """
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    try:
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        on_sigterm = True
    except (NotImplementedError, RuntimeError):  # not Unix, or not the main thread
        on_sigterm = False
    try:
        async with serve_agent(
            executor,
            name=name,
            description=description,
            host=host,
            http_port=http_port,
            grpc_port=grpc_port,
            enable_v0_3_compat=enable_v0_3_compat,
            streaming=streaming,
            public_host=public_host,
        ) as served:
            logger.info(
                "serving %r: agent card %s/.well-known/agent-card.json, JSON-RPC %s, "
                "REST %s%s, gRPC %s",
                name,
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


def create_client(
    card: AgentCard,
    *,
    streaming: bool = True,
    polling: bool = False,
    interceptors: Sequence[ClientCallInterceptor] = (),
    headers: Mapping[str, str] | None = None,
    timeout: float | None = 30.0,
) -> Client:
    """Create an SDK client for the agent ``card`` describes; the card picks the transport.

    The `ClientFactory` is offered JSON-RPC, HTTP+JSON and gRPC (insecure
    channels), and takes the first of the card's interfaces in that set,
    preferring its 1.0 version over 0.3 (see `ServedAgent.card_for`).

    ``headers`` (e.g. ``{"Authorization": "Bearer ..."}``) go with every call as
    `ClientCallContext.service_parameters`, below any the caller's own context
    sets: the SDK sends them as HTTP headers on JSON-RPC and REST and as
    (lower-cased) metadata on gRPC. ``timeout`` bounds each connect, read and
    write on HTTP, so also a silence in a stream, and is the deadline of every
    non-streaming call on every transport except v0.3 gRPC, whose SDK transport
    takes no deadline; None means no timeout. Close the client (``async with``)
    to release its connections.
    """
    http = httpx.AsyncClient(timeout=timeout)
    config = ClientConfig(
        streaming=streaming,
        polling=polling,
        httpx_client=http,
        grpc_channel_factory=grpc.aio.insecure_channel,
        supported_protocol_bindings=list(_BINDINGS.values()),
    )
    defaults = _CallDefaults(headers or {}, timeout)
    client = ClientFactory(config).create(card, [defaults, *interceptors])
    return _ClientOwningHttp(client, http)


def _listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port``, so port 0 resolves before serving."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][0]
    return socket.create_server((host, port), family=family)


def _host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class _SignalFreeServer(uvicorn.Server):
    """A uvicorn server that leaves signal handling to whoever owns the event loop.

    uvicorn's own handlers would swallow Ctrl+C, and servers stopped out of
    start order would restore each other's stale handlers.
    """

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


class _HttpServer:
    """uvicorn serving ``app`` on a listening socket, as a task of the current loop."""

    def __init__(self, app: Starlette, sock: socket.socket) -> None:
        config = uvicorn.Config(
            app,
            lifespan="off",
            ws="none",
            log_config=None,
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=_SERVER_GRACE,
        )
        self._server = _SignalFreeServer(config)
        self._sock = sock
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._server.serve(sockets=[self._sock]))
        while not self._server.started:
            if self._task.done():
                await self._task
                raise RuntimeError("uvicorn exited while starting")
            await asyncio.sleep(0.005)

    async def stop(self) -> None:
        if self._task is not None:
            self._server.should_exit = True
            await self._task


async def _shut_down(
    http_server: _HttpServer | None,
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
        await _stop_idle_sse_watcher()
    for result in results:
        if isinstance(result, BaseException):
            raise result


async def _stop_idle_sse_watcher() -> None:
    """Cancel sse-starlette's shutdown watcher when no SSE stream of this loop needs it.

    The first SSE response on a loop starts a watcher task that polls for a
    process-wide shutdown signal and otherwise never ends. Once no stream is
    registered with it, cancelling it loses nothing (the next stream starts a
    new one) and keeps it from outliving `serve_agent`.
    """
    watcher = getattr(sse_starlette.sse, "_shutdown_watcher", None)
    get_state = getattr(sse_starlette.sse, "_get_shutdown_state", None)
    if watcher is None or get_state is None or get_state().events:
        return
    current = asyncio.current_task()
    for task in asyncio.all_tasks():
        if task is not current and getattr(task.get_coro(), "cr_code", None) is watcher.__code__:
            task.cancel()
            await asyncio.wait([task])


class _CallDefaults(ClientCallInterceptor):
    """Gives each call the client's headers (as service parameters) and non-stream deadline."""

    def __init__(self, headers: Mapping[str, str], timeout: float | None) -> None:
        self._headers = dict(headers)
        self._timeout = timeout

    async def before(self, args: BeforeArgs) -> None:
        context = args.context.model_copy() if args.context else ClientCallContext()
        if self._headers:
            context.service_parameters = {**self._headers, **(context.service_parameters or {})}
        if context.timeout is None and args.method not in _STREAMING_METHODS:
            context.timeout = self._timeout
        args.context = context

    async def after(self, args: AfterArgs) -> None:
        return None


class _ClientOwningHttp(Client):
    """The factory's client, also closing the httpx client it was configured with.

    The SDK never closes an ``httpx.AsyncClient`` passed in `ClientConfig`.
    """

    def __init__(self, client: Client, http: httpx.AsyncClient) -> None:
        super().__init__()
        self._client = client
        self._http = http

    def send_message(
        self, request: SendMessageRequest, *, context: ClientCallContext | None = None
    ) -> AsyncIterator[StreamResponse]:
        return self._client.send_message(request, context=context)

    async def get_task(
        self, request: GetTaskRequest, *, context: ClientCallContext | None = None
    ) -> Task:
        return await self._client.get_task(request, context=context)

    async def list_tasks(
        self, request: ListTasksRequest, *, context: ClientCallContext | None = None
    ) -> ListTasksResponse:
        return await self._client.list_tasks(request, context=context)

    async def cancel_task(
        self, request: CancelTaskRequest, *, context: ClientCallContext | None = None
    ) -> Task:
        return await self._client.cancel_task(request, context=context)

    async def create_task_push_notification_config(
        self, request: TaskPushNotificationConfig, *, context: ClientCallContext | None = None
    ) -> TaskPushNotificationConfig:
        return await self._client.create_task_push_notification_config(request, context=context)

    async def get_task_push_notification_config(
        self,
        request: GetTaskPushNotificationConfigRequest,
        *,
        context: ClientCallContext | None = None,
    ) -> TaskPushNotificationConfig:
        return await self._client.get_task_push_notification_config(request, context=context)

    async def list_task_push_notification_configs(
        self,
        request: ListTaskPushNotificationConfigsRequest,
        *,
        context: ClientCallContext | None = None,
    ) -> ListTaskPushNotificationConfigsResponse:
        return await self._client.list_task_push_notification_configs(request, context=context)

    async def delete_task_push_notification_config(
        self,
        request: DeleteTaskPushNotificationConfigRequest,
        *,
        context: ClientCallContext | None = None,
    ) -> None:
        await self._client.delete_task_push_notification_config(request, context=context)

    def subscribe(
        self, request: SubscribeToTaskRequest, *, context: ClientCallContext | None = None
    ) -> AsyncIterator[StreamResponse]:
        return self._client.subscribe(request, context=context)

    async def get_extended_agent_card(
        self,
        request: GetExtendedAgentCardRequest,
        *,
        context: ClientCallContext | None = None,
        signature_verifier: Callable[[AgentCard], None] | None = None,
    ) -> AgentCard:
        return await self._client.get_extended_agent_card(
            request, context=context, signature_verifier=signature_verifier
        )

    async def add_interceptor(self, interceptor: ClientCallInterceptor) -> None:
        await self._client.add_interceptor(interceptor)

    async def close(self) -> None:
        try:
            await self._client.close()
        finally:
            await self._http.aclose()
