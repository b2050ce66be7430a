"""Where the demo's spans go, and the trace of its agents as it shows it.

The embedded demo starts an `OtlpReceiver`; every agent
exports to it (and to ``OTEL_EXPORTER_OTLP_ENDPOINT`` when something answers there). After the
turn the trace is drawn as a waterfall and written as OTLP JSON.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Final

from rich.console import Console
from rich.rule import Rule

from a2a_progress.cli.telemetry import (
    CONTENT_NOTE,
    ENV_ENDPOINT,
    ENV_TRACES_ENDPOINT,
    Telemetry,
    endpoint_reachable,
    env_endpoint,
    env_protocol,
    jaeger_ui_for,
    otlp_http_problem,
)
from a2a_progress.cli.trace_view import Waterfall
from a2a_progress.otlp import OtlpReceiver, ReceivedSpan

ROOT_SPAN: Final = "a2a-progress demo"
ENDPOINTS: Final = frozenset({ENV_ENDPOINT, ENV_TRACES_ENDPOINT})
_TRACE_TIMEOUT: Final = 10.0


def export_to_environment(console: Console) -> bool:
    """Whether to export to ``OTEL_EXPORTER_OTLP_ENDPOINT`` too: only if it is set and answers
    (over OTLP/HTTP: takes an OTLP/HTTP export)."""
    endpoint = env_endpoint()
    if endpoint is None:
        return True
    problem: str | None = None
    if not endpoint_reachable(endpoint):
        problem = "nothing answers there. Is the docker-compose stack up (`docker compose up -d`)?"
    elif env_protocol() != "grpc":  # e.g. --otlp given the OTLP/gRPC port: retried at length
        problem = otlp_http_problem(endpoint, setting=ENV_ENDPOINT)
    if problem is None:
        return True
    # Retrying a dead or wrong collector would slow the demo and flood stderr; say it once.
    console.print(
        f"Not exporting to {endpoint} (OTEL_EXPORTER_OTLP_ENDPOINT): {problem}",
        style="yellow",
        markup=False,
        highlight=False,
    )
    return False


def show_trace(
    receiver: OtlpReceiver,
    trace_id: str,
    trace_file: str,
    telemetry: Telemetry,
    console: Console,
    *,
    servers: Collection[str],
) -> None:
    """Wait for the trace ``trace_id`` (the root span and a SERVER span of each of ``servers``),
    draw it, write it as OTLP JSON to ``trace_file``, and say where else it went."""

    def complete(spans: list[ReceivedSpan]) -> bool:
        ours = [span for span in spans if span.trace_id == trace_id]
        serving = {span.service_name for span in ours if span.kind == "SERVER"}
        return any(span.name == ROOT_SPAN for span in ours) and serving >= set(servers)

    try:
        spans = receiver.wait_for_spans(complete, _TRACE_TIMEOUT)
    except TimeoutError:
        spans = receiver.spans()
        console.print(
            f"Some spans did not arrive within {_TRACE_TIMEOUT:g}s; the trace is partial.",
            style="yellow",
        )
    trace = [span for span in spans if span.trace_id == trace_id]
    console.print()
    console.print(Rule("trace of every agent, as received over OTLP", style="dim"))
    console.print(Waterfall(trace))
    path = Path(trace_file)
    count = receiver.write_otlp_json(path)
    console.print(
        f"\nWrote {count} spans as OTLP JSON to {path}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    console.print(
        "(an OTLP/JSON export request: Jaeger's JSON upload and a collector's otlpjsonfile "
        "receiver read it)",
        style="dim",
        markup=False,
        highlight=False,
    )
    console.print(CONTENT_NOTE, style="dim", markup=False, highlight=False)
    _where_else(telemetry, trace_id, console)


def _where_else(telemetry: Telemetry, trace_id: str, console: Console) -> None:
    """Say where else the spans went, or how to see them in Jaeger."""
    if not telemetry.exports_to:
        console.print(
            "To see this trace in Jaeger: `docker compose up -d`, then "
            "`OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 make demo`.",
            style="dim",
            markup=False,
            highlight=False,
        )
        return
    for endpoint in telemetry.exports_to:
        jaeger = jaeger_ui_for(endpoint)
        where = f"Also exported to {endpoint}"
        if jaeger is not None:
            where += f"; in Jaeger: {jaeger}/trace/{trace_id}"
        console.print(where, markup=False, highlight=False, soft_wrap=True)


def remote_trace_line(telemetry: Telemetry, trace_id: str) -> str | None:
    """``trace: <Jaeger link or id>`` after a ``--remote`` turn; None when nothing records."""
    if telemetry.provider is None:
        return None
    jaeger = next(filter(None, map(jaeger_ui_for, telemetry.exports_to)), None)
    return f"trace: {jaeger}/trace/{trace_id}" if jaeger else f"trace: {trace_id}"
