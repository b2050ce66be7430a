"""Running the files of ``examples/`` as a user would: a shell's environment, a callee on a free
port found by the line it logs. Shared by ``tests/examples``."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Final

import pytest

from support.processes import free_port, without_otel

ROOT: Final = Path(__file__).resolve().parents[2]
EXAMPLES: Final = ROOT / "examples"
BIN: Final = Path(sys.executable).parent
TIMEOUT: Final = 60
SERVING: Final = re.compile(r"agent card (http://\S+)/\.well-known/agent-card\.json")


def environment(**extra: str) -> dict[str, str]:
    """A user's shell: the virtualenv first on PATH (unless ``extra`` sets PATH), no
    OpenTelemetry settings of this run."""
    return without_otel(**{"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", **extra})


def run_example(example: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``python examples/<example> ARGS`` to its end, from a user's shell with ``env`` set."""
    return subprocess.run(
        [sys.executable, str(EXAMPLES / example), *args],
        env=environment(**env),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def run_script(script: str, question: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``sh examples/<script> QUESTION`` to its end (two agents: twice the time), as from a
    user's shell with ``env`` set, each agent exporting every 100 ms; its serving port is free."""
    done = subprocess.run(
        ["sh", str(EXAMPLES / script), question],
        env=environment(OTEL_BSP_SCHEDULE_DELAY="100", PORT=str(free_port()), **env),
        capture_output=True,
        text=True,
        timeout=2 * TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done


def exporting_to(endpoint: str, service: str) -> dict[str, str]:
    """Traces over OTLP/HTTP to ``endpoint``, as in the tutorial's step 4 (whose test reads the
    page's own settings), exported every 100 ms, metrics and logs not exported."""
    return {
        "OTEL_SERVICE_NAME": service,
        "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_INSTRUMENTATION_A2A_SDK_ENABLED": "false",
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true",  # as the tutorial says
        "OTEL_METRICS_EXPORTER": "none",
        "OTEL_LOGS_EXPORTER": "none",
        "OTEL_BSP_SCHEDULE_DELAY": "100",
    }


@contextlib.contextmanager
def serving(
    example: str,
    *,
    exit_codes: tuple[int, ...] = (0,),
    instrumented_to: str | None = None,
    otel: Mapping[str, str] | None = None,
) -> Iterator[str]:
    """Run ``examples/<example>`` on a free port; its base URL, from the line it logs.

    SIGTERM stops it; it must exit with one of ``exit_codes`` (uvicorn run on its own, without
    ``serve_forever``, ends by the signal it caught: ``-SIGTERM``). ``instrumented_to``: run it
    under ``opentelemetry-instrument`` as service ``research-agent``, exporting traces there
    (with ``otel``, these ``OTEL_*`` settings instead of `exporting_to`'s)."""
    command = [sys.executable, str(EXAMPLES / example), "--port", "0"]
    settings: Mapping[str, str] = {}
    if instrumented_to is not None:
        command = [str(BIN / "opentelemetry-instrument"), *command]
        settings = otel if otel is not None else exporting_to(instrumented_to, "research-agent")
    process = subprocess.Popen(
        command,
        env=environment(**settings),
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stderr is not None
        seen = []
        for line in process.stderr:
            seen.append(line)
            found = SERVING.search(line)
            if found:
                yield found.group(1)
                break
        else:
            pytest.fail(f"{example} did not start:\n{''.join(seen)}")
    finally:
        process.send_signal(signal.SIGTERM)  # serve_forever stops on it and returns
        try:
            assert process.wait(TIMEOUT) in exit_codes
        finally:
            process.kill()
