"""Issue 8 from the outside: three README agents A -> B -> C, each its own process under
``opentelemetry-instrument``, the caller too; all export into ``a2a-progress traces``.

Every agent's batch processor waits a minute before exporting, so each span the file holds was
sent by the SIGTERM that stopped its agent: a span lost on SIGTERM fails the test.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import NamedTuple

import pytest
from user_processes import INSTRUMENT, Span, TracesCommand, read_otlp_json, started, terminate

from support.processes import free_port

HERE = Path(__file__).parent
AGENT = str(HERE / "readme_agent.py")
CALLER = str(HERE.parent.parent / "examples" / "caller.py")
CLIENT, SERVER = 3, 2


def _ancestors(span: Span, by_id: dict[str, Span]) -> list[Span]:
    chain = []
    parent = by_id.get(span.parent_id)
    while parent is not None:
        chain.append(parent)
        parent = by_id.get(parent.parent_id)
    return chain


def _one(spans: list[Span], name: str, service: str, **attributes: str) -> Span:
    found = [
        s
        for s in spans
        if s.name == name
        and s.service == service
        and all(s.attributes.get(k) == v for k, v in attributes.items())
    ]
    assert len(found) == 1, (name, service, found, spans)
    return found[0]


# a2a-sdk spans the README says start a trace of their own: a subscriber queue closed by the
# garbage collector after the request, the handler closed at shutdown, the caller's client closed
# after its call.
SDK_OUTSIDE_ANY_CALL = {
    "a2a.server.events.event_queue_v2.EventQueueSource.remove_sink",
    "a2a.server.request_handlers.default_request_handler_v2.DefaultRequestHandlerV2.aclose",
    "a2a.client.transports.jsonrpc.JsonRpcTransport.close",
}


class Chain(NamedTuple):
    """How the agents call each other, are served, end on SIGTERM, and trace a2a-sdk."""

    a_to_b: str
    b_to_c: str
    serve: str
    exit_status: int
    sdk_tracing: bool = False


@pytest.mark.parametrize(
    "chain",
    [
        Chain("jsonrpc", "jsonrpc", "readme", 0),
        Chain("rest", "grpc", "readme", 0),
        # uvicorn re-raises SIGTERM after its graceful shutdown: killed by it, as without OTel.
        Chain("jsonrpc", "rest", "uvicorn", -signal.SIGTERM),
        Chain("jsonrpc", "grpc", "readme", 0, sdk_tracing=True),
    ],
    ids=lambda chain: "-".join(str(part) for part in chain),
)
def test_one_trace_across_three_agents_and_nothing_lost_on_sigterm(
    tmp_path: Path, chain: Chain
) -> None:
    a_to_b, b_to_c, serve, exit_status, sdk_tracing = chain
    traces = TracesCommand(tmp_path)
    ports = {name: (free_port(), free_port()) for name in "abc"}
    nexts = {"a": ("b", a_to_b), "b": ("c", b_to_c), "c": None}
    with traces.running(), ExitStack() as stack:
        agents = {}
        for name in "cba":
            command = [INSTRUMENT, sys.executable, AGENT, "--name", name, "--serve", serve]
            command += ["--port", str(ports[name][0]), "--grpc-port", str(ports[name][1])]
            if (hop := nexts[name]) is not None:
                command += ["--next", f"http://127.0.0.1:{ports[hop[0]][0]}", "--transport", hop[1]]
            env = traces.environment(
                f"{name}-agent",
                OTEL_BSP_SCHEDULE_DELAY="60000",
                OTEL_INSTRUMENTATION_A2A_SDK_ENABLED=str(sdk_tracing).lower(),
            )
            log = tmp_path / f"{name}.log"
            agents[name] = stack.enter_context(started(command, log, ports[name][0], env))
        caller = subprocess.run(
            [INSTRUMENT, sys.executable, CALLER, f"http://127.0.0.1:{ports['a'][0]}", "go"],
            env=traces.environment(
                "caller",
                OTEL_PYTHON_DISABLED_INSTRUMENTATIONS="httpx",
                OTEL_INSTRUMENTATION_A2A_SDK_ENABLED=str(sdk_tracing).lower(),
            ),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert caller.returncode == 0, caller.stdout + caller.stderr
        assert "a did it / b did it / c did it" in caller.stdout
        statuses = {name: terminate(agent) for name, agent in agents.items()}
        assert statuses == dict.fromkeys("abc", exit_status), statuses

    spans = read_otlp_json(traces.directory)
    ours = [s for s in spans if s.scope != "a2a-python-sdk"]
    assert {s.trace_id for s in ours} == {ours[0].trace_id}, "one trace across A -> B -> C"
    sdk = [s for s in spans if s.scope == "a2a-python-sdk"]
    assert bool(sdk) == sdk_tracing
    elsewhere = {s.name for s in sdk if s.trace_id != ours[0].trace_id}
    assert elsewhere <= SDK_OUTSIDE_ANY_CALL
    by_id = {s.span_id: s for s in spans}
    tools = {}
    for name in "abc":
        service = f"{name}-agent"
        tools[name] = _one(
            ours, f"execute_tool tool_{name}", service, **{"a2a.progress.observer": "callee"}
        )
        own = _one(ours, f"{name} own work", service)
        assert own.parent_id == tools[name].span_id, f"{name}'s own span is under its tool"
        server = next(s for s in ours if s.service == service and s.kind == SERVER)
        assert server in _ancestors(own, by_id)
    # C's turn hangs under B's CLIENT span, which is under B's tool span.
    c_server = next(s for s in ours if s.service == "c-agent" and s.kind == SERVER)
    b_client = next(
        s
        for s in ours
        if s.service == "b-agent" and s.kind == CLIENT and s.name == "SendStreamingMessage"
    )
    assert b_client in _ancestors(c_server, by_id)
    assert tools["b"] in _ancestors(b_client, by_id)
    ends = {s.attributes.get("a2a.progress.end_reason") for s in ours if "execute_tool" in s.name}
    assert ends == {"done"}
