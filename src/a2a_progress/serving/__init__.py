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

The HTTP server answers only requests a web page cannot forge (`BrowserGuard`: ``Host``,
``Origin`` / ``Sec-Fetch-Site``, JSON bodies); add the same middleware to an a2a-sdk app you
build yourself.

Modules: `transports` (the transport table and the card filter), `card` (`build_agent_card`),
`guard` (`BrowserGuard`),
`server` (`serve_agent`, `serve_forever`, `PortInUseError`), `http_server` (uvicorn inside the
event loop),
`client` (`create_client`), `requests` (`user_message`, the request that starts a turn).
"""

import a2a_progress.cli_extra  # without the [cli] extra: one clear line
import a2a_progress.sdk.v1_only  # noqa: F401 - 1.x only: one clear error on 0.3
from a2a_progress.serving.card import REST_PATH, build_agent_card
from a2a_progress.serving.client import create_client
from a2a_progress.serving.guard import BrowserGuard
from a2a_progress.serving.requests import user_message
from a2a_progress.serving.server import (
    PortInUseError,
    ServedAgent,
    ServeOptions,
    serve_agent,
    serve_forever,
)
from a2a_progress.serving.transports import (
    BINDINGS,
    TRANSPORTS,
    Transport,
    card_with_interfaces,
    transport_of,
)

__all__ = [
    "BINDINGS",
    "REST_PATH",
    "BrowserGuard",
    "PortInUseError",
    "TRANSPORTS",
    "ServeOptions",
    "ServedAgent",
    "Transport",
    "build_agent_card",
    "card_with_interfaces",
    "create_client",
    "serve_agent",
    "serve_forever",
    "transport_of",
    "user_message",
]
