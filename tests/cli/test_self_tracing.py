"""``watch`` and ``demo`` trace themselves: ``--otlp URL``, or under ``opentelemetry-instrument``.

Real processes: the example callee runs under ``opentelemetry-instrument`` exporting to a real
OTLP receiver; ``a2a-progress watch`` runs as a user runs it. Without tracing the watcher, the
callee's turn is a root of its own; traced, it hangs under the watcher's call in one trace.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Final

from a2a_progress.otlp import OtlpReceiver, ReceivedSpan
from support.examples import TIMEOUT, environment, serving
from support.processes import BIN, refused_port

CLI: Final = str(BIN / "a2a-progress")
CALL: Final = "SendStreamingMessage"
SENT: Final = re.compile(r"^a2a-progress: trace (?P<id>[0-9a-f]{32}) sent to (?P<url>\S+)$", re.M)


def cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, *args],
        env=environment(**env),
        capture_output=True,
        text=True,
        timeout=2 * TIMEOUT,
        check=False,
    )


def server_turn(spans: list[ReceivedSpan], service: str) -> ReceivedSpan | None:
    found = [s for s in spans if s.service_name == service and s.kind == "SERVER"]
    return found[0] if found else None


def ancestors(spans: list[ReceivedSpan], span: ReceivedSpan) -> list[str]:
    by_id = {s.span_id: s for s in spans}
    found: list[str] = []
    parent = span.parent_span_id
    while parent is not None and parent not in found:
        found.append(parent)
        parent = by_id[parent].parent_span_id if parent in by_id else None
    return found


def test_watch_otlp_puts_the_agents_turn_under_the_watchers_call() -> None:
    with (
        OtlpReceiver(grpc_port=None) as receiver,
        serving("callee.py", instrumented_to=receiver.http_endpoint) as url,
    ):
        done = cli("watch", url, "Why is the deploy blocked?", "--otlp", receiver.http_endpoint)
        assert done.returncode == 0, done.stderr
        [sent] = SENT.finditer(done.stderr)
        assert sent["url"] == receiver.http_endpoint
        spans = receiver.wait_for_spans(
            lambda spans: (
                server_turn(spans, "research-agent") is not None
                and any(s.name == "a2a-progress watch" for s in spans)
            )
        )
    [root] = [s for s in spans if s.name == "a2a-progress watch"]
    assert (root.service_name, root.parent_span_id, root.trace_id) == (
        "a2a-progress-watch",
        None,
        sent["id"],
    )
    [call] = [s for s in spans if s.service_name == "a2a-progress-watch" and s.name == CALL]
    assert call.parent_span_id == root.span_id
    turn = server_turn(spans, "research-agent")
    assert turn is not None
    assert (turn.trace_id, turn.parent_span_id) == (root.trace_id, call.span_id)
    tools = {(s.service_name, s.name) for s in spans if s.name.startswith("execute_tool")}
    assert tools == {
        (service, f"execute_tool {tool}")
        for service in ("a2a-progress-watch", "research-agent")
        for tool in ("ci_status", "dashboard")
    }


def test_watch_otlp_where_nothing_listens_says_so_and_watches_untraced() -> None:
    with (
        OtlpReceiver(grpc_port=None) as receiver,
        serving("callee.py", instrumented_to=receiver.http_endpoint) as url,
    ):
        dead = f"http://127.0.0.1:{refused_port()}"
        done = cli("watch", url, "Why?", "--otlp", dead)
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        f"a2a-progress: not tracing: nothing answers at {dead} (start `a2a-progress traces` "
        "or your collector first)\n"
    )
    assert "outcome: completed" in done.stdout


def test_watch_under_opentelemetry_instrument_joins_the_trace_too() -> None:
    with (
        OtlpReceiver(grpc_port=None) as receiver,
        serving("callee.py", instrumented_to=receiver.http_endpoint) as url,
    ):
        done = subprocess.run(
            [str(BIN / "opentelemetry-instrument"), CLI, "watch", url, "Why?"],
            env=environment(
                OTEL_SERVICE_NAME="my-watch",
                OTEL_EXPORTER_OTLP_ENDPOINT=receiver.http_endpoint,
                OTEL_EXPORTER_OTLP_PROTOCOL="http/protobuf",
                OTEL_METRICS_EXPORTER="none",
                OTEL_LOGS_EXPORTER="none",
                OTEL_INSTRUMENTATION_A2A_SDK_ENABLED="false",
            ),
            capture_output=True,
            text=True,
            timeout=2 * TIMEOUT,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        spans = receiver.wait_for_spans(
            lambda spans: (
                server_turn(spans, "research-agent") is not None
                and any(s.service_name == "my-watch" and s.name == CALL for s in spans)
            )
        )
    # (other CLIENT spans are the HTTP requests, where an httpx instrumentation is installed)
    [call] = [s for s in spans if s.service_name == "my-watch" and s.name == CALL]
    turn = server_turn(spans, "research-agent")
    assert turn is not None
    assert turn.trace_id == call.trace_id
    assert call.span_id in ancestors(spans, turn)  # through the HTTP request's span, if traced


def test_demo_otlp_exports_every_agent_there(tmp_path: Path) -> None:
    services = {"demo-caller", "demo-callee", "demo-auditor"}
    with OtlpReceiver(grpc_port=None) as receiver:
        done = cli(
            "demo",
            "--pace",
            "0",
            "--trace-file",
            str(tmp_path / "trace.json"),
            "--otlp",
            receiver.http_endpoint,
        )
        assert done.returncode == 0, done.stderr
        assert f"Also exported to {receiver.http_endpoint}" in done.stdout
        spans = receiver.wait_for_spans(lambda spans: {s.service_name for s in spans} == services)
    assert len({s.trace_id for s in spans}) == 1


OTLP_URL: Final = (
    "--otlp takes an OTLP/HTTP URL (a collector's, or `a2a-progress traces`' http://127.0.0.1:4318)"
)


def test_watch_otlp_at_a_server_that_is_no_otlp_receiver_says_so_and_watches_untraced() -> None:
    # The agent's own URL: it answers HTTP, but no OTLP export (415 at /v1/traces).
    with serving("callee.py") as url:
        done = cli("watch", url, "Why?", "--otlp", url)
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        f"a2a-progress: not tracing: {url} is no OTLP/HTTP receiver: POST {url}/v1/traces "
        f"answered HTTP 415 Unsupported Media Type; {OTLP_URL}\n"
    )  # not the exporter's retries, nor "trace ... sent to" a place that refused it
    assert "outcome: completed" in done.stdout


def test_watch_otlp_at_an_otlp_grpc_port_says_so_and_watches_untraced() -> None:
    # `a2a-progress traces` prints both ports: the gRPC one is the likely slip.
    with OtlpReceiver() as receiver, serving("callee.py") as url:
        grpc = f"http://{receiver.grpc_endpoint}"
        done = cli("watch", url, "Why?", "--otlp", grpc)
        received = receiver.spans()
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        f"a2a-progress: not tracing: {grpc} does not answer HTTP/1.1 (is it an OTLP/gRPC "
        f"port?); {OTLP_URL}\n"
    )
    assert received == []
