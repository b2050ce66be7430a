"""The agent card of an agent served by `serve_agent`: every transport, both protocol lines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from a2a.types import AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill
from a2a.utils.constants import PROTOCOL_VERSION_0_3, PROTOCOL_VERSION_1_0

from a2a_progress.serving.transports import BINDINGS
from a2a_progress.version import __version__

__all__ = ["REST_PATH", "build_agent_card"]

REST_PATH: Final = "/rest"
"""Path under ``http_url`` where the HTTP+JSON (REST) binding is mounted."""

_MODES: Final = ("text/plain", "application/json")


def build_agent_card(
    name: str,
    *,
    description: str,
    http_url: str,
    grpc_target: str | None,
    streaming: bool = True,
    skills: Sequence[AgentSkill] = (),
    v0_3: bool = True,
    extensions: Sequence[AgentExtension] = (),
) -> AgentCard:
    """Build the card of an agent served at ``http_url`` (and ``grpc_target``).

    ``supported_interfaces`` lists JSON-RPC at ``http_url``, HTTP+JSON at
    ``http_url`` + `REST_PATH` and, when ``grpc_target`` is given, gRPC there,
    in protocol 1.0; when ``v0_3`` is true the same three follow again in
    protocol 0.3. The 1.0 JSON-RPC interface comes first, so a client that lets
    the card decide speaks JSON-RPC 1.0.

    The spec requires at least one skill, so without ``skills`` the card gets
    one generic skill named after the agent. ``extensions`` go to
    ``capabilities.extensions`` (e.g. ``progress_extension()`` for an agent that
    sends progress envelopes).
    """
    base = http_url.rstrip("/")
    endpoints = [
        (BINDINGS["jsonrpc"], base),
        (BINDINGS["rest"], base + REST_PATH),
    ]
    if grpc_target is not None:
        endpoints.append((BINDINGS["grpc"], grpc_target))
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
        capabilities=AgentCapabilities(streaming=streaming, extensions=list(extensions)),
        default_input_modes=_MODES,
        default_output_modes=_MODES,
        skills=list(skills) or [default_skill],
    )
