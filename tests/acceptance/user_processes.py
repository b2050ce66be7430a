"""Real processes for the acceptance tests: the `a2a-progress` command and agents under
``opentelemetry-instrument``, exporting OTLP/HTTP into ``a2a-progress traces --otlp-json``."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.processes import free_port

BIN = Path(sys.executable).parent
A2A_PROGRESS = str(BIN / "a2a-progress")
INSTRUMENT = str(BIN / "opentelemetry-instrument")
START_TIMEOUT = 30.0


def wait_for_port(port: int, process: subprocess.Popen[Any], log: Path) -> None:
    """Return once ``port`` accepts connections; fail with the process log if it exits first."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"exited with {process.returncode}:\n{log.read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"port {port} never opened:\n{log.read_text()}")


@contextmanager
def started(
    command: list[str], log: Path, port: int, env: Mapping[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """Start ``command`` (output to ``log``) and wait for ``port``; kill it if the test fails."""
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        wait_for_port(port, process, log)
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def terminate(process: subprocess.Popen[Any], sig: int = signal.SIGTERM) -> int:
    """Send ``sig`` as Docker or Kubernetes would and return the exit status."""
    process.send_signal(sig)
    return process.wait(timeout=30)


@dataclass
class Span:
    """One span of an OTLP/JSON file, with its service and scope."""

    service: str
    scope: str
    raw: dict[str, Any]
    attributes: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.raw["name"])

    @property
    def span_id(self) -> str:
        return str(self.raw["spanId"])

    @property
    def parent_id(self) -> str:
        return str(self.raw.get("parentSpanId") or "")

    @property
    def trace_id(self) -> str:
        return str(self.raw["traceId"])

    @property
    def kind(self) -> int:
        kind = self.raw.get("kind", 0)
        names = {"SPAN_KIND_INTERNAL": 1, "SPAN_KIND_SERVER": 2, "SPAN_KIND_CLIENT": 3}
        return names.get(kind, 0) if isinstance(kind, str) else int(kind)

    def __repr__(self) -> str:
        return f"{self.name}[{self.service}]"


def read_otlp_json(directory: Path) -> list[Span]:
    """Every span of every OTLP/JSON file ``traces --otlp-json`` wrote into ``directory``."""
    spans = []
    for path in sorted(directory.glob("*.json")):
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            for resource in json.loads(line).get("resourceSpans", []):
                service = next(
                    (
                        a["value"].get("stringValue", "")
                        for a in resource.get("resource", {}).get("attributes", [])
                        if a["key"] == "service.name"
                    ),
                    "",
                )
                for scope in resource.get("scopeSpans", []):
                    for raw in scope.get("spans", []):
                        attributes = {
                            a["key"]: next(iter(a["value"].values()), None)
                            for a in raw.get("attributes", [])
                        }
                        spans.append(
                            Span(service, scope.get("scope", {}).get("name", ""), raw, attributes)
                        )
    return spans


class TracesCommand:
    """``a2a-progress traces --otlp-json DIR`` on a free port, for agents to export into."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.directory = workdir / "otlp"
        self.directory.mkdir()
        self.log = workdir / "traces.log"
        self.endpoint = f"http://127.0.0.1:{self.port}"

    @contextmanager
    def running(self) -> Iterator[TracesCommand]:
        command = [A2A_PROGRESS, "traces", "--http-port", str(self.port), "--no-grpc"]
        command += ["--quiet-period", "0.5", "--otlp-json", str(self.directory)]
        with started(command, self.log, self.port) as process:
            yield self
            assert terminate(process) == 0, self.log.read_text()

    def environment(self, service: str, **extra: str) -> dict[str, str]:
        """What a user exports in an agent's shell to send its telemetry here."""
        env = dict(os.environ)
        env.update(
            OTEL_SERVICE_NAME=service,
            OTEL_EXPORTER_OTLP_ENDPOINT=self.endpoint,
            OTEL_EXPORTER_OTLP_PROTOCOL="http/protobuf",
            OTEL_TRACES_EXPORTER="otlp",
            OTEL_METRICS_EXPORTER="none",
            OTEL_LOGS_EXPORTER="none",
            OTEL_INSTRUMENTATION_A2A_SDK_ENABLED="false",
        )
        env.update(extra)
        return env


# A background job (CI, `cmd &`) inherits an ignored SIGINT; a user's terminal delivers it.
# Prefix a command with this to get Ctrl-C as a user does.
WITH_CTRL_C = [
    sys.executable,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])",
]
