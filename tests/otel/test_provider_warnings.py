"""Nothing silent: an instrumentor whose spans or metrics would go nowhere says so, once.

Real processes, as a user runs them: an application that instruments but never sets a provider,
one that sets its providers after ``instrument()`` (no warning: they are there by the first turn),
and ``opentelemetry-instrument`` with and without the distro's configurator (which is what
installs the SDK providers; ``OTEL_PYTHON_CONFIGURATOR`` naming no installed configurator is
how a process without ``opentelemetry-distro`` starts, with the distro still on disk here).
"""

from __future__ import annotations

import subprocess
import sys
from typing import Final

from support.processes import BIN, finished, python_path, without_otel

WARNING: Final = "a2a-progress: no tracer provider and no meter provider are set"


def run(command: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return finished(command, without_otel(PYTHONPATH=python_path(), **env))


def test_instrument_with_no_provider_warns_once_naming_the_fix() -> None:
    done = run([sys.executable, "-m", "support.provider_check_turns", "unset"])
    assert done.stdout == "done\n"
    warnings = [line for line in done.stderr.splitlines() if line.startswith("a2a-progress:")]
    assert len(warnings) == 1, done.stderr  # two turns, one warning
    [warning] = warnings
    assert warning.startswith(WARNING)
    assert "trace.set_tracer_provider(TracerProvider())" in warning
    assert "instrument(meter_provider=...)" in warning


def test_providers_set_after_instrument_but_before_the_first_turn_are_fine() -> None:
    done = run([sys.executable, "-m", "support.provider_check_turns", "late"])
    assert done.stdout == "done\n"
    assert "a2a-progress:" not in done.stderr


def test_opentelemetry_instrument_without_the_distro_says_to_install_it() -> None:
    # Said when the instrumentor loads, before the program runs: nothing will set them later.
    command = [str(BIN / "opentelemetry-instrument"), sys.executable, "-c", "print('ran')"]
    done = run(command, OTEL_PYTHON_CONFIGURATOR="none-installed", OTEL_TRACES_EXPORTER="otlp")
    assert done.stdout == "ran\n"
    [warning] = [line for line in done.stderr.splitlines() if line.startswith("a2a-progress:")]
    assert warning.startswith(WARNING)
    assert "pip install opentelemetry-distro opentelemetry-exporter-otlp" in warning


def test_opentelemetry_instrument_with_the_distro_is_quiet() -> None:
    command = [str(BIN / "opentelemetry-instrument"), sys.executable, "-c", "print('ran')"]
    done = run(
        command,
        OTEL_TRACES_EXPORTER="console",
        OTEL_METRICS_EXPORTER="console",
        OTEL_LOGS_EXPORTER="none",
    )
    assert done.stdout.startswith("ran\n")
    assert "a2a-progress:" not in done.stderr
