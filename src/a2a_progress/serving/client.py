"""`create_client`: an a2a-sdk client for any agent card, over the transport the card picks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Final, cast

import grpc.aio
import httpx
import wrapt
from a2a.client import (
    Client,
    ClientCallContext,
    ClientCallInterceptor,
    ClientConfig,
    ClientFactory,
)
from a2a.client.interceptors import AfterArgs, BeforeArgs
from a2a.types import AgentCard

from a2a_progress.serving.transports import BINDINGS

__all__ = ["create_client"]

# Client methods that return a stream; they get no overall deadline.
_STREAMING_METHODS: Final = frozenset({"send_message_streaming", "subscribe"})


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

    Raises:
        ValueError: the card offers none of the three transports.
    """
    http = httpx.AsyncClient(timeout=timeout)
    config = ClientConfig(
        streaming=streaming,
        polling=polling,
        httpx_client=http,
        grpc_channel_factory=grpc.aio.insecure_channel,
        supported_protocol_bindings=list(BINDINGS.values()),
    )
    defaults = _CallDefaults(headers or {}, timeout)
    client = ClientFactory(config).create(card, [defaults, *interceptors])
    return cast(Client, _ClientOwningHttp(client, http))


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


if (
    TYPE_CHECKING
):  # wrapt 2 is generic for mypy; wrapt 1.x (beside OTel 1.39/1.40) is not at run time
    _ClientProxy = wrapt.ObjectProxy[Client]
else:
    _ClientProxy = wrapt.ObjectProxy


class _ClientOwningHttp(_ClientProxy):
    """The factory's client, which also closes the httpx client it was configured with.

    The SDK never closes an ``httpx.AsyncClient`` passed in `ClientConfig`, and it builds its
    own without our timeout, so we pass one and own it. Everything but closing goes straight
    to the SDK's client (``isinstance(proxy, Client)`` holds too).
    """

    def __init__(self, client: Client, http: httpx.AsyncClient) -> None:
        super().__init__(client)
        self._self_http = http

    async def close(self) -> None:
        try:
            await self.__wrapped__.close()
        finally:
            await self._self_http.aclose()

    # The proxy does not forward special methods looked up on the type; ``async with``
    # must close through `close` above, not the SDK client's.
    async def __aenter__(self) -> _ClientOwningHttp:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
