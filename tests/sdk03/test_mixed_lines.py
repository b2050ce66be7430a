"""Mixed a2a-sdk lines, one trace: a caller on a2a-sdk 1.x (examples/caller.py, this virtualenv)
asks the README's callee on a2a-sdk 0.3 (examples/sdk03_callee.py in .venv-sdk03, which
make test-sdk03 builds and then runs this file with), each in its own process under
``opentelemetry-instrument``, exporting to one OTLP receiver.

Every tool call is one ``execute_tool`` span, the callee's, in the caller's trace: the callee
announces the spans it records, so the caller writes no mirror of them; the callee's tool spans
sit under its execution span, which the caller's call span parents; the callee's
spans reach the receiver after SIGTERM (the instrumentor's flush). Then the 1.x command line
watches the same 0.3 agent over the wire. And the reverse chain: a caller on 0.3
(tests/sdk03/caller_03.py in .venv-sdk03) asks the README's callee on 1.x (examples/callee.py,
this virtualenv), one trace again."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from a2a_progress.sdk import LINE, SdkLine

ROOT = Path(__file__).resolve().parents[2]
V1_BIN = Path(sys.executable).parent
V03_BIN = ROOT / ".venv-sdk03" / "bin"  # make test-sdk03: the project on a2a-sdk 0.3
OBSERVER = "a2a.progress.observer"

pytestmark = [
    pytest.mark.skipif(LINE is not SdkLine.V1, reason="the caller's side runs on a2a-sdk 1.x"),
    pytest.mark.skipif(not (V03_BIN / "python").exists(), reason="needs .venv-sdk03"),
]


def otel(endpoint: str, service: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    return env | {
        "OTEL_SERVICE_NAME": service,
        "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_INSTRUMENTATION_A2A_SDK_ENABLED": "false",
        "OTEL_METRICS_EXPORTER": "none",
        "OTEL_LOGS_EXPORTER": "none",
        "OTEL_BSP_SCHEDULE_DELAY": "100",
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def callee_03(env: dict[str, str]) -> AbstractContextManager[str]:
    """examples/sdk03_callee.py on a2a-sdk 0.3 under opentelemetry-instrument; its URL."""
    return callee(V03_BIN, "sdk03_callee.py", env)


@contextmanager
def callee(bin_dir: Path, example: str, env: dict[str, str]) -> Iterator[str]:
    """examples/``example`` run by ``bin_dir``'s python under opentelemetry-instrument; its URL.
    Stopped with SIGTERM."""
    port = free_port()
    process = subprocess.Popen(
        [str(bin_dir / "opentelemetry-instrument"), str(bin_dir / "python"),
         str(ROOT / "examples" / example), "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, f"{example} did not start"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def tool_spans(spans: list[Any], service: str) -> list[Any]:
    return sorted(
        (s for s in spans if s.service_name == service and s.name.startswith("execute_tool")),
        key=lambda s: s.name,
    )


def ancestry(spans: list[Any]) -> list[tuple[Any, Any, Any]]:
    """Each callee tool span with its parent and grandparent, for those whose both arrived."""
    by_id = {s.span_id: s for s in spans}
    chains = []
    for tool in (s for s in spans if s.name.startswith("execute_tool")):
        execution = by_id.get(tool.parent_span_id or "")
        call = by_id.get(execution.parent_span_id or "") if execution is not None else None
        if call is not None:
            chains.append((tool, execution, call))
    return chains


# Each direction: (the caller's line, its bin, its script), (the callee's line, bin, example).
CHAINS = {
    "1.x caller, 0.3 callee": (
        ("1.x", V1_BIN, ROOT / "examples" / "caller.py"),
        ("0.3", V03_BIN, "sdk03_callee.py"),
    ),
    "0.3 caller, 1.x callee": (
        ("0.3", V03_BIN, ROOT / "tests" / "sdk03" / "caller_03.py"),
        ("1.x", V1_BIN, "callee.py"),
    ),
}


@pytest.mark.parametrize("chain", list(CHAINS))
def test_a_caller_and_a_callee_on_other_lines_share_one_trace(chain: str) -> None:
    from a2a_progress.otlp import OtlpReceiver  # 1.x only: imported once the skip is decided

    (caller_line, caller_bin, script), (callee_line, callee_bin, example) = CHAINS[chain]
    caller_service, callee_service = f"caller-{caller_line}", f"callee-{callee_line}"
    with OtlpReceiver() as receiver:
        endpoint = receiver.http_endpoint
        with callee(callee_bin, example, otel(endpoint, callee_service)) as url:
            caller = subprocess.run(
                [str(caller_bin / "opentelemetry-instrument"), str(caller_bin / "python"),
                 str(script), url, "Why is the deploy blocked?"],
                env=otel(endpoint, caller_service) | {"PYTHONPATH": str(ROOT / "tests")},
                capture_output=True, text=True, timeout=60, check=False,
            )  # fmt: skip
            assert caller.returncode == 0, caller.stderr
            assert "The deploy is blocked" in caller.stdout
        # The callee was stopped with SIGTERM: its spans came with the flush.
        spans = receiver.wait_for_spans(
            lambda got: len(tool_spans(got, callee_service)) == 2 and len(ancestry(got)) == 2,
            timeout=30,
        )
    callee_tools = tool_spans(spans, callee_service)
    assert [s.name for s in callee_tools] == ["execute_tool ci_status", "execute_tool dashboard"]
    assert tool_spans(spans, caller_service) == []  # counted once, on the side that ran it
    assert [s.status_code for s in callee_tools] == ["UNSET", "ERROR"]  # dashboard was aborted
    # tool -> the callee's execution span -> the caller's call span, all in one trace
    chains = ancestry(spans)
    for tool, execution, call in chains:
        assert tool.service_name == callee_service
        assert execution.service_name == callee_service
        assert execution.kind == "SERVER"
        assert call.service_name == caller_service
    traces = {s.trace_id for chain in chains for s in chain}
    assert len(traces) == 1, [(s.service_name, s.name, s.trace_id[:8]) for s in spans]


def test_the_1x_command_line_watches_a_0_3_agent() -> None:
    with callee_03({k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}) as url:
        watch = subprocess.run(
            [str(V1_BIN / "a2a-progress"), "watch", url, "Why is the deploy blocked?"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    assert watch.returncode == 0, watch.stderr
    assert "tool done: ci_status [call-1]" in watch.stdout
    assert "tool aborted: dashboard [call-2]" in watch.stdout
    assert "The deploy is blocked: CI is red (2 failing tests)." in watch.stdout


def test_the_0_3_callee_on_a_taken_port_says_so_in_one_line() -> None:
    # E.g. a second callee started with the first one's default port.
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [str(V03_BIN / "python"), str(ROOT / "examples" / "sdk03_callee.py"),
             "--port", str(port)],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    assert done.returncode == 1
    [line] = done.stderr.splitlines()  # no traceback
    assert line.startswith(f"cannot listen on 127.0.0.1:{port}: "), line
    assert line.endswith("; choose another with --port (0 picks a free one)"), line
