"""``a2a-progress traces`` at work: OTLP in, a waterfall per complete trace out.

For the agents a developer runs on this machine, without Docker: point them at it with
``OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318`` (or ``OTEL_EXPORTER_OTLP_PROTOCOL=grpc``
and port 4317) and each trace is drawn once it is complete (see
`TraceCollector`), and optionally written as OTLP/JSON. Ctrl-C
or SIGTERM draws what is still open and stops, exit code 0.
"""

from __future__ import annotations

import contextlib
import errno
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from rich.console import Console
from rich.text import Text

from a2a_progress.cli.errors import CliError, ExitCode
from a2a_progress.cli.trace_view import Waterfall
from a2a_progress.inert import inert
from a2a_progress.otlp import (
    GRPC_ON_HTTP_PORT,
    CompletedTrace,
    ExportRequest,
    Limits,
    OtlpGrpcServer,
    OtlpHttpServer,
    OtlpJsonFile,
    ReceivedSpan,
    TraceCollector,
    spans_of,
    to_otlp_json,
)

SDK_SCOPE: Final = "a2a-python-sdk"
"""The instrumentation scope of a2a-sdk's own tracing: a span per SDK method, many per turn."""
# How often finished traces are looked for; a trace shows at most this long after its quiet period.
_TICK: Final = 0.2
# Trace ids remembered as not drawn yet (all their spans a2a-sdk's), for the summary.
_UNDRAWN_KEPT: Final = 1000


@dataclass(frozen=True)
class TracesOptions:
    """What ``a2a-progress traces`` was asked to do."""

    host: str
    http_port: int
    grpc_port: int | None
    """None: no OTLP/gRPC."""
    quiet_period: float
    json_file: str | None
    otlp_json_dir: str | None
    max_traces: int
    sdk_spans: bool
    """Draw a2a-sdk's own spans of its methods too (they are always written to the files)."""
    max_request_bytes: int
    """The largest OTLP request accepted, on both protocols, as sent and decompressed."""


def run_traces(options: TracesOptions, console: Console) -> int:
    """Receive and print traces until Ctrl-C or SIGTERM; return the exit code (0)."""
    collector = TraceCollector(options.quiet_period, max_traces=options.max_traces)
    warnings = _Warnings()
    with _outputs(options.json_file, options.otlp_json_dir, options.sdk_spans, warnings) as output:
        with _servers(options, collector, warnings) as (http, grpc):
            _banner(console, http, grpc, options.quiet_period)
            stopped = threading.Event()
            with _stop_on_sigterm(stopped):
                try:
                    while not stopped.wait(_TICK):
                        for trace in collector.completed():
                            output.show(console, trace)
                except KeyboardInterrupt:
                    pass
        # The servers are down: nothing arrives after this flush.
        for trace in collector.flush():
            output.show(console, trace)
    console.print(output.summary(), highlight=False)
    return int(ExitCode.COMPLETED)


@contextlib.contextmanager
def _servers(
    options: TracesOptions, collector: TraceCollector, warnings: _Warnings
) -> Iterator[tuple[str, str | None]]:
    """Serve OTLP/HTTP (and gRPC) into ``collector``; yields both endpoints (gRPC's or None)."""

    def on_export(request: ExportRequest) -> None:
        if isinstance(request, ExportTraceServiceRequest):
            collector.add(request)
        # Metrics and logs are accepted (so exporters do not retry or log errors) and dropped.

    host = options.host
    limits = Limits(request_bytes=options.max_request_bytes)
    http = OtlpHttpServer(host, options.http_port, on_export, warnings.refused, limits=limits)
    grpc = None
    if options.grpc_port is not None:
        grpc = OtlpGrpcServer(host, options.grpc_port, on_export, limits=limits)
    try:
        _start(http, "OTLP/HTTP", host, options.http_port, "--http-port")
        if grpc is not None and options.grpc_port is not None:
            _start(grpc, "OTLP/gRPC", host, options.grpc_port, "--grpc-port")
        warnings.http = http.endpoint
        warnings.grpc = None if grpc is None else grpc.endpoint
        yield warnings.http, warnings.grpc
    finally:
        if grpc is not None:
            grpc.stop()
        http.stop()


class _Warnings:
    """Says on stderr, once per reason, why exports were refused (a misconfigured exporter) or
    a trace could not be drawn or written; at most `_MOST` different reasons in a session.

    A reason quotes what a client sent (a path, a content type, an error about its body): it
    is made inert first, so no escape sequence of a client's reaches the terminal.
    """

    _MOST: Final = 10

    def __init__(self) -> None:
        self.http = ""
        self.grpc: str | None = None
        """Where the servers listen, set once they do."""
        self._said: set[str] = set()
        self._lock = threading.Lock()

    def refused(self, reason: str) -> None:
        if reason == GRPC_ON_HTTP_PORT:
            where = f"send OTLP/gRPC to http://{self.grpc}" if self.grpc else "drop --no-grpc"
            reason = (
                f"an OTLP/gRPC exporter is sending to the OTLP/HTTP endpoint {self.http}: "
                f"{where}, or set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"
            )
        else:
            reason = f"refused an export: {reason}"
        self.say(reason)

    def say(self, reason: str) -> None:
        """Print ``reason`` (inert, on one line) unless it was said already."""
        reason = inert(reason, one_line=True)
        with self._lock:
            if reason in self._said or len(self._said) >= self._MOST:
                return
            self._said.add(reason)
        print(f"a2a-progress traces: {reason}", file=sys.stderr, flush=True)


def _start(
    server: OtlpHttpServer | OtlpGrpcServer, what: str, host: str, port: int, flag: str
) -> None:
    try:
        server.start()
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise CliError(
                f"cannot listen for {what} on {host}:{port}: the port is taken (another "
                f"collector, or a second `a2a-progress traces`?); choose another with {flag}",
                ExitCode.PORT_IN_USE,
            ) from error
        raise CliError(
            f"cannot listen for {what} on {host}:{port}: {error.strerror or error}",
            ExitCode.PORT_IN_USE,
        ) from error


def _banner(console: Console, http: str, grpc: str | None, quiet: float) -> None:
    lines = ["a2a-progress traces: receiving OTLP on", f"  OTLP/HTTP  {http}"]
    if grpc is not None:
        lines.append(f"  OTLP/gRPC  {grpc}")
    lines.append(f"Point your agents at it: OTEL_EXPORTER_OTLP_ENDPOINT={_local(http)}")
    if grpc is not None:
        lines.append(
            f"  (or over gRPC: OTEL_EXPORTER_OTLP_PROTOCOL=grpc OTEL_EXPORTER_OTLP_ENDPOINT="
            f"{_local(f'http://{grpc}')})"
        )
    # An SDK exports every 5 s by default: spans after the quiet period print the trace again.
    lines.append(
        f"Each trace is printed once its root span arrived and {quiet:g}s passed without a "
        "new span; later spans print it again (OTEL_BSP_SCHEDULE_DELAY=500 in each agent's "
        "environment sends them in time). Ctrl-C to stop."
    )
    for line in lines:
        console.print(Text(line), highlight=False, soft_wrap=True)


def _local(endpoint: str) -> str:
    """``endpoint`` with a wildcard host (``--host 0.0.0.0``) replaced by loopback."""
    for wildcard, loopback in (("//0.0.0.0:", "//127.0.0.1:"), ("//[::]:", "//[::1]:")):
        endpoint = endpoint.replace(wildcard, loopback)
    return endpoint


@contextlib.contextmanager
def _stop_on_sigterm(stopped: threading.Event) -> Iterator[None]:
    try:
        previous = signal.signal(signal.SIGTERM, lambda signum, frame: stopped.set())
    except ValueError:  # not the main thread: Ctrl-C only
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Output:
    """Draws each trace and writes it to the files asked for; counts what it saw.

    A trace that cannot be written or drawn is said once (per reason) and the session goes on.
    """

    def __init__(
        self,
        json_file: OtlpJsonFile | None,
        directory: Path | None,
        sdk_spans: bool,
        warnings: _Warnings,
    ) -> None:
        self._json_file = json_file
        self._directory = directory
        self._sdk_spans = sdk_spans
        self._warnings = warnings
        # Counted as drawn: what the user saw. Hidden (a2a-sdk's own spans, unless --sdk-spans):
        # said once, at the end, with how to see them.
        self.traces = 0
        self.spans = 0
        self.sdk_hidden = 0
        # Traces whose every span so far was hidden, oldest first (bounded): a late span of ours
        # draws such a trace for the first time.
        self._undrawn: dict[str, None] = {}

    def show(self, console: Console, trace: CompletedTrace) -> None:
        self._write(trace)
        try:
            self._draw(console, trace)
        except Exception as error:  # noqa: BLE001 - one trace must not end the session
            self._warnings.say(f"cannot draw trace {trace.trace_id}: {error!r}")

    def _draw(self, console: Console, trace: CompletedTrace) -> None:
        new = list(spans_of(trace.new_spans))
        hidden = 0 if self._sdk_spans else sum(span.scope_name == SDK_SCOPE for span in new)
        self.sdk_hidden += hidden
        shown = len(new) - hidden
        if not shown:  # nothing to draw, or nothing new to draw
            if not trace.late:
                self._undrawn[trace.trace_id] = None
                if len(self._undrawn) > _UNDRAWN_KEPT:
                    del self._undrawn[next(iter(self._undrawn))]
            return
        first = not trace.late or trace.trace_id in self._undrawn
        self._undrawn.pop(trace.trace_id, None)
        self.traces += first
        self.spans += shown
        drawn = trace.spans if self._sdk_spans else _without_sdk_spans(trace.spans)
        if not first:
            again = f"{shown} late span{'' if shown == 1 else 's'} for trace {trace.trace_id}"
            console.print(Text(f"{again}; the trace again:", style="yellow"), highlight=False)
        waterfall = Waterfall(drawn)
        if len(drawn) == 1:
            console.print(waterfall.one_line(), highlight=False, soft_wrap=True)
            return
        console.print(waterfall)
        if not trace.has_root:
            console.print(
                Text(
                    "no root span received (the trace began in a process that does not "
                    "export here)",
                    style="dim",
                ),
                highlight=False,
            )
        console.print()

    def summary(self) -> Text:
        """What was drawn, and once, what was not (a2a-sdk's own spans) and how to see it."""
        line = f"stopped: {_count(self.traces, 'trace')} drawn, {_count(self.spans, 'span')}"
        if self.sdk_hidden:
            line += f"; not drawn: {_count(self.sdk_hidden, 'a2a-sdk span')}"
            if self._undrawn:
                line += f" (the only spans of {_count(len(self._undrawn), 'more trace')})"
            line += ", --sdk-spans draws them"
        return Text(line, style="dim")

    def _write(self, trace: CompletedTrace) -> None:
        try:
            if self._json_file is not None:
                self._json_file.append(trace.new_spans)
            if self._directory is not None:
                path = self._directory / f"{trace.trace_id}.json"
                path.write_text(to_otlp_json(trace.all_spans) + "\n", "utf-8")
        except (OSError, ValueError) as error:
            what = error.strerror if isinstance(error, OSError) and error.strerror else error
            self._warnings.say(f"cannot write trace {trace.trace_id}: {what}")


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _without_sdk_spans(spans: Sequence[ReceivedSpan]) -> list[ReceivedSpan]:
    """``spans`` without a2a-sdk's own, each kept span under its nearest kept ancestor."""
    parents = {span.span_id: span.parent_span_id for span in spans}
    hidden = {span.span_id for span in spans if span.scope_name == SDK_SCOPE}

    def kept_parent(parent: str | None) -> str | None:
        seen: set[str] = set()
        while parent in hidden and parent not in seen:  # `seen`: a cycle from a bad peer
            seen.add(parent)
            parent = parents[parent]
        return parent

    return [
        replace(span, parent_span_id=kept_parent(span.parent_span_id))
        for span in spans
        if span.span_id not in hidden
    ]


@contextlib.contextmanager
def _outputs(
    json_path: str | None, directory: str | None, sdk_spans: bool, warnings: _Warnings
) -> Iterator[_Output]:
    """Open the output files first, so a bad path fails before anything listens."""
    folder = None
    if directory is not None:
        folder = Path(directory)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise CliError(
                f"cannot write traces to {directory}: {error.strerror}", ExitCode.USAGE
            ) from error
    if json_path is None:
        yield _Output(None, folder, sdk_spans, warnings)
        return
    try:
        json_file = OtlpJsonFile(json_path)
    except OSError as error:
        raise CliError(f"cannot write {json_path}: {error.strerror}", ExitCode.USAGE) from error
    with json_file:
        yield _Output(json_file, folder, sdk_spans, warnings)
