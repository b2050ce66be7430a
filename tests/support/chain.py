"""Agents of ``support.chain_agent`` as real processes under ``opentelemetry-instrument``, exporting
over OTLP/HTTP into the project's receiver; a loopback HTTP server for their tools to fetch; and
queries over the spans received."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import httpx
from a2a.client import A2ACardResolver
from a2a.types import (
    SendMessageRequest,
    StreamResponse,
)

from a2a_progress.otlp import OtlpReceiver, ReceivedSpan
from a2a_progress.serving import user_message
from a2a_progress.serving.client import create_client
from a2a_progress.serving.transports import card_with_interfaces
from support.listeners import web_server
from support.otlp import BRIDGE_SCOPE
from support.processes import AgentProcess, agent_process, instrumented, otel_environment

HTTPX_SCOPE: Final = "opentelemetry.instrumentation.httpx"


@dataclass
class Agent(AgentProcess):
    """One chain agent process; ``url`` is its HTTP base URL (card, JSON-RPC; REST under it)."""

    service: str


@contextlib.contextmanager
def agent(
    receiver: OtlpReceiver, name: str, log: Path, *options: str, **overrides: str
) -> Iterator[Agent]:
    """Run ``support.chain_agent name *options`` as service ``chain-{name}``."""
    service = f"chain-{name}"
    command = instrumented("support.chain_agent", name, *options)
    env = otel_environment(service, receiver.http_endpoint, "http/protobuf", **overrides)
    with agent_process(command, env, log) as running:
        yield Agent(running.url, running.process, service)


def request(
    route: list[str],
    transport: str = "jsonrpc",
    *,
    probe: str | None = None,
    hold: bool = False,
    return_immediately: bool = False,
) -> SendMessageRequest:
    """The user's message to the first agent: the rest of the route and what each tool does."""
    text = json.dumps({"route": route, "transport": transport, "probe": probe, "hold": hold})
    return user_message(text, return_immediately=return_immediately)


async def send(url: str, message: SendMessageRequest, *, streaming: bool = True) -> list[Any]:
    """Send ``message`` to the agent at ``url`` over JSON-RPC; the events it answered with."""
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
    async with create_client(card_with_interfaces(card, "jsonrpc"), streaming=streaming) as client:
        events: list[StreamResponse] = [event async for event in client.send_message(message)]
    return events


async def start_and_leave(url: str, tool: str) -> None:
    """Start a held turn at the agent at ``url``, read until ``tool`` runs, then walk away:
    the turn goes on in the agent with no connection open."""
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
    async with create_client(card_with_interfaces(card, "jsonrpc")) as client:
        stream = client.send_message(request([], hold=True))
        async for event in stream:
            parts = event.status_update.status.message.parts
            if parts and parts[0].text == f"Calling tool {tool}":
                break
        await stream.aclose()  # type: ignore[attr-defined]


@contextlib.contextmanager
def probe_server() -> Iterator[str]:
    """A loopback HTTP server answering a GET of its URL with 200; that URL."""
    with web_server({"/probe": ("text/plain", b"ok")}) as url:
        yield f"{url}/probe"


# -- span queries --------------------------------------------------------------------------------


def server_turn(spans: list[ReceivedSpan], service: str) -> list[ReceivedSpan]:
    """The bridge's SERVER spans of ``service``."""
    return [
        span
        for span in spans
        if span.service_name == service
        and span.scope_name == BRIDGE_SCOPE
        and span.kind == "SERVER"
    ]


def one(spans: list[ReceivedSpan], **where: Any) -> ReceivedSpan:
    """The one span whose fields (``service_name``, ``name``, ``kind``, ...) match ``where``."""
    found = [span for span in spans if all(getattr(span, k) == v for k, v in where.items())]
    assert len(found) == 1, f"{len(found)} spans match {where}"
    return found[0]


def ancestors(spans: list[ReceivedSpan], span: ReceivedSpan) -> list[str]:
    """The span ids from ``span``'s parent up to its root, as far as they were received."""
    by_id = {item.span_id: item for item in spans}
    chain: list[str] = []
    parent = span.parent_span_id
    while parent is not None:
        chain.append(parent)
        found = by_id.get(parent)
        parent = None if found is None else found.parent_span_id
    return chain
