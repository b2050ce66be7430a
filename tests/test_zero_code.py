"""Zero-code instrumentation: agents with no telemetry code, run under ``opentelemetry-instrument``.

A plain a2a-sdk callee (``support/zero_code_callee.py``, using ``ProgressEmitter``) and a plain
a2a-sdk caller (``support/zero_code_caller.py``, no a2a-progress import at all) run as
subprocesses under ``opentelemetry-instrument`` with the OTLP/HTTP exporter configured only by
environment variables. The ``a2a_progress`` entry point alone turns their calls into one trace of
two services; switched off, it leaves no span behind; and a caller that exits mid-stream still
exports its open spans, ended with reason ``shutdown``.
"""

from collections.abc import Iterator
from contextlib import AbstractContextManager
from importlib.metadata import entry_points
from pathlib import Path
from typing import Final

import pytest
from a2a.types import StreamResponse, TaskState
from google.protobuf import json_format

from a2a_progress.otel import A2AProgressInstrumentor
from a2a_progress.otlp import OtlpReceiver, ReceivedSpan
from support import agents, processes
from support.otlp import assert_turn_trace, bridge_spans, has_turn_trace
from support.processes import AgentProcess, agent_process, instrumented, run_to_end
from support.spans import tool_name

CALLER: Final = "zero-code-caller"
CALLEE: Final = "zero-code-callee"
DISABLED: Final = {"OTEL_PYTHON_DISABLED_INSTRUMENTATIONS": "a2a_progress"}


def otel_environment(receiver: OtlpReceiver, service: str, **overrides: str) -> dict[str, str]:
    """Zero-code OTLP/HTTP export of traces and metrics to ``receiver``."""
    return processes.otel_environment(
        service,
        receiver.http_endpoint,
        "http/protobuf",
        OTEL_METRICS_EXPORTER="otlp",
        **overrides,
    )


def running_callee(
    receiver: OtlpReceiver, log: Path, **overrides: str
) -> AbstractContextManager[AgentProcess]:
    env = otel_environment(receiver, CALLEE, **overrides)
    return agent_process(instrumented("support.zero_code_callee"), env, log)


def run_caller(
    receiver: OtlpReceiver, url: str, *args: str, service: str = CALLER, **overrides: str
) -> list[StreamResponse]:
    """Run the caller to its exit (which flushes its telemetry); the events it printed."""
    env = otel_environment(receiver, service, **overrides)
    printed = run_to_end(instrumented("support.zero_code_caller", url, *args), env)
    return [json_format.Parse(line, StreamResponse()) for line in printed.splitlines()]


def caller_turn(receiver: OtlpReceiver, service: str) -> ReceivedSpan:
    [turn] = [
        span
        for span in bridge_spans(receiver.spans())
        if span.service_name == service and span.kind == "CLIENT"
    ]
    return turn


def of_trace(spans: list[ReceivedSpan], trace_id: str) -> list[ReceivedSpan]:
    return [span for span in spans if span.trace_id == trace_id]


@pytest.fixture(scope="module")
def receiver() -> Iterator[OtlpReceiver]:
    with OtlpReceiver(grpc_port=None) as running:
        yield running


@pytest.fixture(scope="module")
def callee(
    receiver: OtlpReceiver, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[AgentProcess]:
    """One instrumented callee for the module; each test's spans are told apart by trace id."""
    with running_callee(receiver, tmp_path_factory.mktemp("callee") / "stderr.log") as running:
        yield running


def test_entry_point_is_registered() -> None:
    [entry_point] = [
        ep for ep in entry_points(group="opentelemetry_instrumentor") if ep.name == "a2a_progress"
    ]
    assert entry_point.load() is A2AProgressInstrumentor


def test_one_trace_of_two_services_without_code(
    receiver: OtlpReceiver, callee: AgentProcess
) -> None:
    events = run_caller(receiver, callee.url, "find it")

    assert agents.summary(events) == agents.EXPECTED_ENVELOPES
    assert agents.final_state(events) == TaskState.TASK_STATE_COMPLETED
    # The caller exported at exit; the callee's batch follows within its schedule delay.
    trace_id = caller_turn(receiver, CALLER).trace_id
    spans = receiver.wait_for_spans(
        lambda spans: has_turn_trace(of_trace(spans, trace_id), CALLER, CALLEE)
    )
    assert_turn_trace(of_trace(spans, trace_id), CALLER, CALLEE)
    # The caller's metrics went out at its exit too. Its tool calls are counted by the callee,
    # which traced them: the caller records no execute_tool duration of its own for them.
    points = receiver.metric_points()
    assert any(
        name == "a2a.progress.envelopes" and attributes.get("a2a.progress.observer") == "caller"
        for name, attributes, _ in points
    )
    assert not any(
        name == "gen_ai.execute_tool.duration"
        and attributes.get("a2a.progress.observer") == "caller"
        for name, attributes, _ in points
    )


def test_spans_open_at_exit_end_with_shutdown(receiver: OtlpReceiver, callee: AgentProcess) -> None:
    # The caller's stream is still open (the callee holds inside "fetch") when it exits.
    events = run_caller(
        receiver, callee.url, agents.HOLD, "--exit-mid-stream", service=f"{CALLER}-exit"
    )

    assert agents.summary(events) == agents.EXPECTED_ENVELOPES[:5]
    turn = caller_turn(receiver, f"{CALLER}-exit")
    tools = {
        tool_name(span.attributes): span
        for span in bridge_spans(of_trace(receiver.spans(), turn.trace_id))
        if span.service_name == f"{CALLER}-exit" and span.parent_span_id == turn.span_id
    }
    assert turn.attributes["a2a.task.state"] == "TASK_STATE_WORKING"
    # "search" ended on the callee's word: its span is the callee's alone. "fetch" was cut off
    # by this process's exit: the caller writes its view of it (the callee's may never come).
    assert sorted(tools) == ["fetch"]
    assert tools["fetch"].attributes["a2a.progress.mirror"] is True
    assert tools["fetch"].attributes["a2a.progress.end_reason"] == "shutdown"
    assert tools["fetch"].end_time_unix_nano <= turn.end_time_unix_nano


def test_disabled_instrumentation_makes_no_spans(tmp_path: Path) -> None:
    with OtlpReceiver(grpc_port=None) as receiver:
        with running_callee(receiver, tmp_path / "callee.log", **DISABLED) as disabled_callee:
            events = run_caller(receiver, disabled_callee.url, "find it", **DISABLED)
            disabled_callee.stop()
        spans = receiver.spans()
        points = receiver.metric_points()

    assert agents.summary(events) == agents.EXPECTED_ENVELOPES
    # Both processes did export (a2a-sdk's own spans), just none of the bridge's.
    assert {span.service_name for span in spans} == {CALLER, CALLEE}
    assert bridge_spans(spans) == []
    assert not [name for name, _, _ in points if name.startswith(("gen_ai.", "a2a.progress."))]
