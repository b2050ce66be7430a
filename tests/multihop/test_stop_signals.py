"""Nothing lost on SIGTERM or SIGINT: a plain ``uvicorn.Server(config).run()`` agent under
``opentelemetry-instrument``, with a batch span processor that is never due on its own (so what
reaches the receiver was flushed at the stop), runs a turn to its end and leaves another in
flight, then is stopped with a signal. Every span of the finished turn is exported; the turn in
flight ends (reason ``shutdown``) and is exported too; the exit status is the one the same agent
has without the instrumentor; an application's own SIGTERM handler is the one that runs."""

import asyncio
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from a2a_progress.otel import conventions as conv
from a2a_progress.otlp import OtlpReceiver, ReceivedSpan
from support.chain import BRIDGE_SCOPE, Agent, agent, request, send, start_and_leave
from support.processes import agent_process, instrumented, otel_environment

NEVER_DUE: Final = {"OTEL_BSP_SCHEDULE_DELAY": "600000"}
DISABLED: Final = {"OTEL_PYTHON_DISABLED_INSTRUMENTATIONS": "a2a_progress"}


@pytest.fixture(scope="module")
def receiver() -> Iterator[OtlpReceiver]:
    with OtlpReceiver(grpc_port=None) as running:
        yield running


def one_finished_one_in_flight(running: Agent, name: str) -> None:
    events = asyncio.run(send(running.url, request([])))
    assert events[-1].status_update.status.message.parts[0].text == f"{name} done"
    asyncio.run(start_and_leave(running.url, f"tool_{name}"))


def stopped(receiver: OtlpReceiver, log: Path, name: str, signum: int, *options: str) -> int:
    """Run agent ``name`` through one finished and one held turn, stop it with ``signum``."""
    with agent(receiver, name, log, *options, **NEVER_DUE) as running:
        one_finished_one_in_flight(running, name)
        return running.stop(signum)


def baseline(receiver: OtlpReceiver, log: Path, name: str, signum: int, *options: str) -> int:
    """The exit status of the same agent, instrumentor off, stopped the same way."""
    with agent(receiver, name, log, *options, **NEVER_DUE, **DISABLED) as running:
        one_finished_one_in_flight(running, name)
        return running.stop(signum)


def turns_of(receiver: OtlpReceiver, service: str) -> tuple[list[ReceivedSpan], list[ReceivedSpan]]:
    """(SERVER spans, callee tool spans) of ``service``, once both turns' have arrived."""

    def of(spans: list[ReceivedSpan]) -> tuple[list[ReceivedSpan], list[ReceivedSpan]]:
        mine = [s for s in spans if s.service_name == service and s.scope_name == BRIDGE_SCOPE]
        servers = [s for s in mine if s.kind == "SERVER"]
        tools = [s for s in mine if s.name.startswith("execute_tool ")]
        return sorted(servers, key=start), sorted(tools, key=start)

    spans = receiver.wait_for_spans(lambda spans: [len(x) for x in of(spans)] == [2, 2])
    return of(spans)


def start(span: ReceivedSpan) -> int:
    return span.start_time_unix_nano


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stopped_agent_exports_every_span(
    receiver: OtlpReceiver, tmp_path: Path, signum: int
) -> None:
    name = f"stop{signum}"
    status = stopped(receiver, tmp_path / "agent.log", name, signum)
    assert status == baseline(receiver, tmp_path / "baseline.log", f"base{signum}", signum)
    if signum == signal.SIGTERM:
        assert status == -signal.SIGTERM  # killed by the signal, as without the instrumentor
    (finished, in_flight), (done, held) = turns_of(receiver, f"chain-{name}")
    assert finished.attributes["a2a.task.state"] == "TASK_STATE_COMPLETED"
    assert done.attributes["a2a.progress.end_reason"] == "done"
    assert done.parent_span_id == finished.span_id
    own = [s.parent_span_id or "" for s in receiver.spans() if s.name == f"{name} own work"]
    assert sorted(own) == sorted([done.span_id, held.span_id])
    # The turn in flight was ended by the stop and exported with it.
    assert held.parent_span_id == in_flight.span_id
    assert held.attributes["a2a.progress.end_reason"] in in_flight_reasons(signum)


def in_flight_reasons(signum: int) -> set[str]:
    """How the tool in flight ends. SIGTERM: the instrumentor's handler ends it (``shutdown``)
    before the process dies of the signal. Otherwise (SIGINT, or an application handler that
    calls ``sys.exit``) ``asyncio.run`` cancels the execution on its way out, and the agent's own
    ``async with progress.tool_call(...)`` reports the tool ``aborted`` (with the queue already
    closed, the turn's cancellation ends it: ``turn_canceled``)."""
    return {"shutdown"} if signum == signal.SIGTERM else {"aborted", "turn_canceled"}


def test_an_applications_own_sigterm_handler_is_left_alone(
    receiver: OtlpReceiver, tmp_path: Path
) -> None:
    with agent(receiver, "own", tmp_path / "agent.log", "--handler", **NEVER_DUE) as running:
        one_finished_one_in_flight(running, "own")
        status = running.stop(signal.SIGTERM)
        output = running.output()
    assert (status, output) == (0, "HANDLER\n")  # its handler ran, and chose the exit status
    # It exited through sys.exit(): the exit hooks ended and flushed everything.
    (finished, in_flight), (done, held) = turns_of(receiver, "chain-own")
    assert done.parent_span_id == finished.span_id
    assert held.parent_span_id == in_flight.span_id
    assert held.attributes["a2a.progress.end_reason"] in in_flight_reasons(signal.SIGINT)


def test_sigterm_flushes_the_metrics_too(tmp_path: Path) -> None:
    # Metrics exported every ten minutes: only the SIGTERM flush can have sent these.
    log = tmp_path / "agent.log"
    metrics = {"OTEL_METRICS_EXPORTER": "otlp", "OTEL_METRIC_EXPORT_INTERVAL": "600000"}
    with OtlpReceiver(grpc_port=None) as own:
        with agent(own, "metered", log, **NEVER_DUE, **metrics) as running:
            one_finished_one_in_flight(running, "metered")
            status = running.stop(signal.SIGTERM)
        names = {name for name, _, _ in own.metric_points()}
    assert status == -signal.SIGTERM
    assert {conv.METRIC_ENVELOPES, conv.METRIC_TOOL_DURATION} <= names
    assert "Traceback" not in log.read_text()


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs util-linux unshare")
def test_as_pid_1_sigterm_still_ends_the_process_after_the_flush(
    receiver: OtlpReceiver, tmp_path: Path
) -> None:
    # PID 1 of a new PID namespace, as in a container started without an init: the kernel
    # ignores a signal whose action is the default, so re-raising SIGTERM would do nothing.
    command = ["unshare", "--pid", "--fork", *instrumented("support.chain_agent", "pid1")]
    env = otel_environment("chain-pid1", receiver.http_endpoint, "http/protobuf", **NEVER_DUE)
    try:
        with agent_process(command, env, tmp_path / "agent.log") as running:
            one_finished_one_in_flight(Agent(running.url, running.process, "chain-pid1"), "pid1")
            [pid_1] = (
                Path(f"/proc/{running.process.pid}/task/{running.process.pid}/children")
                .read_text()
                .split()
            )
            os.kill(int(pid_1), signal.SIGTERM)
            status = running.process.wait(30)
    except PermissionError:
        pytest.skip("no new PID namespace here")
    assert status == 128 + signal.SIGTERM  # it ended, as a shell reports a SIGTERM death
    (_, in_flight), (_, held) = turns_of(receiver, "chain-pid1")
    assert held.parent_span_id == in_flight.span_id
    assert held.attributes["a2a.progress.end_reason"] == "shutdown"
