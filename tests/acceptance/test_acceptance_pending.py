"""Issue 13 §3 from the outside: with pending spans on, a running tool shows in the trace backend
while it runs, though the agent's batch processor would hold spans for a minute; no span id is
exported twice."""

from __future__ import annotations

import collections
import os
import subprocess
import sys
import time
from pathlib import Path

from user_processes import A2A_PROGRESS, INSTRUMENT, started, terminate

from a2a_progress.otlp import OtlpReceiver
from support.processes import free_port

AGENT = str(Path(__file__).parent / "readme_agent.py")
SLOW = ["--name", "slow", "--tool-seconds", "60"]
MARKER = "tool_slow (in progress)"  # no execute_tool name: a marker is no execution


def test_a_running_tool_is_announced_at_once_and_no_span_is_sent_twice(tmp_path: Path) -> None:
    port = free_port()
    with OtlpReceiver() as receiver:
        env = {
            **os.environ,
            "OTEL_SERVICE_NAME": "slow",
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.http_endpoint,
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
            "OTEL_METRICS_EXPORTER": "none",
            "OTEL_LOGS_EXPORTER": "none",
            "OTEL_INSTRUMENTATION_A2A_SDK_ENABLED": "false",
            "OTEL_BSP_SCHEDULE_DELAY": "60000",
            "OTEL_INSTRUMENTATION_A2A_PROGRESS_PENDING_SPANS": "true",
        }
        command = [INSTRUMENT, sys.executable, AGENT, *SLOW, "--port", str(port)]
        command += ["--grpc-port", str(free_port())]
        with started(command, tmp_path / "agent.log", port, env) as agent:
            url = f"http://127.0.0.1:{port}"
            watch = subprocess.Popen(
                [A2A_PROGRESS, "watch", url, "go", "--json"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            markers = receiver.wait_for_spans(
                lambda spans: any(span.name == MARKER for span in spans), timeout=30
            )
            assert not any(span.name == "execute_tool tool_slow" for span in markers)
            task_id = next(s for s in markers if s.name == MARKER).attributes["a2a.task.id"]
            cancel = subprocess.run(
                [A2A_PROGRESS, "cancel", url, str(task_id)],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert cancel.returncode == 0, cancel.stderr
            watch.communicate(timeout=60)
            assert watch.returncode == 3  # canceled
            assert terminate(agent) == 0
        time.sleep(0.5)
        spans = receiver.spans()
    counts = collections.Counter(span.span_id for span in spans)
    assert [span_id for span_id, count in counts.items() if count > 1] == []
    tool = next(span for span in spans if span.name == "execute_tool tool_slow")
    marker = next(span for span in spans if span.name == MARKER)
    assert marker.parent_span_id == tool.span_id
    assert marker.start_time_unix_nano == marker.end_time_unix_nano
    assert marker.attributes["a2a.progress.pending"] is True
