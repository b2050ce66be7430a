"""Every hop, one trace: three agents A → B → C, each a plain a2a-sdk server in its own process
under ``opentelemetry-instrument`` (a2a-sdk's own tracing on, httpx instrumented), exporting over
real OTLP into the project's receiver. Each agent's tool opens a span of its own with the global
tracer, fetches a loopback URL with httpx, and calls the next agent.

Checked on JSON-RPC, REST and gRPC, and with ``SIDES=callee`` on B: one trace id for the whole
chain; each agent's own span and httpx span under its ``execute_tool`` span; B's CLIENT span under
B's tool span and C's SERVER span under it; a2a-sdk's own spans in that trace.
"""

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

import pytest

from a2a_progress.otlp import OtlpReceiver, ReceivedSpan
from support.chain import (
    HTTPX_SCOPE,
    Agent,
    agent,
    ancestors,
    one,
    probe_server,
    request,
    send,
    server_turn,
)
from support.otlp import BRIDGE_SCOPE, SDK_SCOPE

TRANSPORTS: Final = ["jsonrpc", "rest", "grpc"]
SIDES: Final = "OTEL_INSTRUMENTATION_A2A_PROGRESS_SIDES"


@dataclass
class Chain:
    receiver: OtlpReceiver
    a: Agent
    b: Agent
    b_callee_only: Agent
    c: Agent
    probe: str


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chain]:
    """One receiver and one process per agent for every case of the module."""
    logs = tmp_path_factory.mktemp("chain")
    with (
        OtlpReceiver(grpc_port=None) as receiver,
        probe_server() as probe,
        agent(receiver, "c", logs / "c.log", "--grpc") as c,
        agent(receiver, "b", logs / "b.log", "--grpc") as b,
        agent(receiver, "b2", logs / "b2.log", "--grpc", **{SIDES: "callee"}) as b2,
        agent(receiver, "a", logs / "a.log", "--grpc") as a,
    ):
        yield Chain(receiver, a, b, b2, c, probe)


def the_trace(chain: Chain, b: Agent, transport: str) -> list[ReceivedSpan]:
    """Send one request down A → b → C; the spans of its trace once every agent's work arrived."""
    message = request([b.url, chain.c.url], transport, probe=chain.probe)
    events = asyncio.run(send(chain.a.url, message))
    assert events[-1].status_update.status.message.parts[0].text == "a done"
    spans = chain.receiver.wait_for_spans(lambda spans: _new_trace(spans, chain) is not None)
    trace_id = _new_trace(spans, chain)
    assert trace_id is not None
    _seen_traces.add(trace_id)
    spans = chain.receiver.wait_for_spans(lambda spans: _arrived(spans, trace_id, chain, b))
    return [span for span in spans if span.trace_id == trace_id]


# The traces of the requests sent so far (the module's agents serve every case).
_seen_traces: set[str] = set()


def _new_trace(spans: list[ReceivedSpan], chain: Chain) -> str | None:
    new = [s for s in server_turn(spans, chain.a.service) if s.trace_id not in _seen_traces]
    return new[0].trace_id if new else None


def _arrived(spans: list[ReceivedSpan], trace_id: str, chain: Chain, b: Agent) -> bool:
    in_trace = [span for span in spans if span.trace_id == trace_id]
    wanted = {chain.a.service, b.service, chain.c.service}
    # The bridge's own SERVER span (what the test asserts on), not just any SERVER span of the
    # service: an ASGI or a2a-sdk server span can arrive in an earlier batch than the turn's.
    turns = {
        span.service_name for span in in_trace if span.name.startswith("execute_tool tool_")
    } & {service for service in wanted if server_turn(in_trace, service)}
    own = {span.service_name for span in in_trace if span.name.endswith(" own work")}
    return turns >= wanted and own >= wanted


def callee_tool(spans: list[ReceivedSpan], agent: Agent, name: str) -> ReceivedSpan:
    [tool] = [
        span
        for span in spans
        if span.service_name == agent.service
        and span.name == f"execute_tool tool_{name}"
        and span.attributes.get("a2a.progress.observer") == "callee"
    ]
    return tool


def assert_own_work_nests(spans: list[ReceivedSpan], agent: Agent, name: str) -> None:
    tool = callee_tool(spans, agent, name)
    own = one(spans, service_name=agent.service, name=f"{name} own work")
    assert own.parent_span_id == tool.span_id
    [probe] = [
        span
        for span in spans
        if span.service_name == agent.service
        and span.scope_name == HTTPX_SCOPE
        and span.parent_span_id == own.span_id
    ]
    assert probe.kind == "CLIENT"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_chain_of_three_agents_is_one_trace(chain: Chain, transport: str) -> None:
    spans = the_trace(chain, chain.b, transport)
    a, b, c = chain.a, chain.b, chain.c
    a_server, b_server, c_server = (server_turn(spans, x.service) for x in (a, b, c))
    assert [len(x) for x in (a_server, b_server, c_server)] == [1, 1, 1]
    for x, name in ((a, "a"), (b, "b"), (c, "c")):
        assert_own_work_nests(spans, x, name)
        [server] = server_turn(spans, x.service)
        assert callee_tool(spans, x, name).parent_span_id == server.span_id
    # B's call to C: B's CLIENT span under B's tool span, C's turn under B's CLIENT span (with
    # the httpx POST of the JSON-RPC / REST transport between them).
    b_tool = callee_tool(spans, b, "b")
    b_client = one(spans, service_name=b.service, kind="CLIENT", scope_name=BRIDGE_SCOPE)
    assert b_client.parent_span_id == b_tool.span_id
    assert b_client.span_id in ancestors(spans, c_server[0])
    if transport == "grpc":
        assert c_server[0].parent_span_id == b_client.span_id
    # The same for A's call to B.
    a_client = one(spans, service_name=a.service, kind="CLIENT", scope_name=BRIDGE_SCOPE)
    assert a_client.parent_span_id == callee_tool(spans, a, "a").span_id
    assert a_client.span_id in ancestors(spans, b_server[0])
    # a2a-sdk's own spans (its tracing is on in every agent) are in the chain's trace.
    for x in (a, b, c):
        assert any(s.service_name == x.service and s.scope_name == SDK_SCOPE for s in spans)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_with_the_callee_side_only_on_b_the_chain_is_still_one_trace(
    chain: Chain, transport: str
) -> None:
    b = chain.b_callee_only
    spans = the_trace(chain, b, transport)
    c_server = server_turn(spans, chain.c.service)[0]
    b_tool = callee_tool(spans, b, "b2")
    assert_own_work_nests(spans, b, "b2")
    # No CLIENT span of the bridge on B: C's turn hangs under B's tool span (through httpx
    # on JSON-RPC and REST, directly on gRPC).
    bridge_clients = [
        s
        for s in spans
        if s.service_name == b.service and s.kind == "CLIENT" and s.scope_name == BRIDGE_SCOPE
    ]
    assert bridge_clients == []
    assert b_tool.span_id in ancestors(spans, c_server)
    if transport == "grpc":
        assert c_server.parent_span_id == b_tool.span_id


def test_no_span_of_the_chain_is_in_a_trace_of_its_own(chain: Chain) -> None:
    """Every span any agent exported belongs to one of the requests' traces: the cases' above
    (in file order they ran first) and this case's own, so that it holds run alone too."""
    the_trace(chain, chain.b, "jsonrpc")
    services = {chain.a.service, chain.b.service, chain.b_callee_only.service, chain.c.service}
    strays = [
        f"{span.service_name}/{span.scope_name}/{span.name}"
        for span in chain.receiver.spans()
        if span.service_name in services
        and span.trace_id not in _seen_traces
        # a2a-sdk closes a subscriber queue from an internal generator that the garbage
        # collector finalizes, after the request and outside any context of it.
        and not span.name.endswith("EventQueueSource.remove_sink")
    ]
    assert sorted(set(strays)) == []
