"""Tracing for the demo's agents and ``watch --otlp``: a tracer provider of their own, or the one
already installed.

Under ``opentelemetry-instrument`` the distro has already installed an SDK tracer provider with
exporters from ``OTEL_*`` variables, and loaded the a2a-progress instrumentor through its entry
point: nothing is installed then (spans for the demo's own receiver are added to that provider).
Otherwise the demo gets a provider of its own, exporting over OTLP to its receiver and, when
``OTEL_EXPORTER_OTLP_ENDPOINT`` is set, there too; it is not made the global provider (a2a-sdk's
own spans use the global one and are noise here), it is handed to the instrumentor instead.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Final, TextIO
from urllib.parse import urlsplit

import httpx
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
    OTLPSpanExporter as HttpSpanExporter,
)
from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.trace import NoOpTracerProvider, Tracer

from a2a_progress.cli.reach import http_status, network_error
from a2a_progress.otel import A2AProgressInstrumentor
from a2a_progress.version import __version__

ENV_ENDPOINT: Final = "OTEL_EXPORTER_OTLP_ENDPOINT"
ENV_TRACES_ENDPOINT: Final = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
ENV_PROTOCOL: Final = "OTEL_EXPORTER_OTLP_PROTOCOL"
ENV_TRACES_PROTOCOL: Final = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
JAEGER_UI: Final = "http://localhost:16686"
# Hosts and ports of the docker-compose stack's collector, seen from the host or from inside.
_COMPOSE_HOSTS: Final = frozenset({"localhost", "127.0.0.1", "::1", "otel-collector"})
_COMPOSE_PORTS: Final = frozenset({4317, 4318})
CONTENT_NOTE: Final = (
    "The demo captures span content (thinking, text, tool output, replies) on purpose; "
    "a2a-progress captures none unless told: "
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true "
    "or OTEL_INSTRUMENTATION_A2A_PROGRESS_CAPTURE_CONTENT=true."
)
# Spans reach the receiver soon after they end, so the demo's trace is complete quickly.
_SCHEDULE_DELAY_MS: Final = 200


def env_endpoint(environ: Mapping[str, str] = os.environ) -> str | None:
    """The OTLP traces endpoint the environment asks for, if any."""
    return environ.get(ENV_TRACES_ENDPOINT) or environ.get(ENV_ENDPOINT) or None


def env_protocol(environ: Mapping[str, str] = os.environ) -> str:
    """The OTLP protocol the environment asks for (the SDK's default: ``http/protobuf``)."""
    return environ.get(ENV_TRACES_PROTOCOL) or environ.get(ENV_PROTOCOL) or "http/protobuf"


def jaeger_ui_for(endpoint: str | None) -> str | None:
    """The Jaeger UI of the docker-compose stack when ``endpoint`` looks like its collector."""
    if not endpoint:
        return None
    parts = urlsplit(endpoint if "://" in endpoint else f"//{endpoint}")
    try:
        port = parts.port
    except ValueError:
        return None
    return JAEGER_UI if parts.hostname in _COMPOSE_HOSTS and port in _COMPOSE_PORTS else None


def endpoint_reachable(endpoint: str, timeout_seconds: float = 0.5) -> bool:
    """Whether something accepts TCP connections at ``endpoint`` (an OTLP URL or host:port)."""
    parts = urlsplit(endpoint if "://" in endpoint else f"//{endpoint}")
    try:
        port = parts.port or (4317 if env_protocol() == "grpc" else 4318)
    except ValueError:
        return False
    try:
        with socket.create_connection((parts.hostname or "localhost", port), timeout_seconds):
            return True
    except OSError:
        return False


# What a server answers to an OTLP export when it is no OTLP/HTTP receiver at all: it has no
# such path, or takes no POST, or no protobuf there (an A2A agent: 415). Any other status, 401
# or 403 among them (the exporter sends OTEL_EXPORTER_OTLP_HEADERS, the probe does not), is
# left to the exporter.
_NOT_OTLP: Final = frozenset({404, 405, 415})
_TO_DO: Final = (
    "takes an OTLP/HTTP URL (a collector's, or `a2a-progress traces`' http://127.0.0.1:4318)"
)


def otlp_http_problem(
    endpoint: str, timeout_seconds: float = 2.0, *, setting: str = "--otlp"
) -> str | None:
    """Why ``endpoint`` cannot take OTLP/HTTP traces, or None when it may.

    An empty export request (no spans) is posted to its traces URL: an OTLP/HTTP receiver
    accepts it; nothing listening, a server that does not answer HTTP/1.1 (an OTLP/gRPC port)
    or one without that route (an agent's URL) is said at once, rather than by the exporter's
    retries and raw errors when the command ends. ``setting`` is where the user gave it.
    """
    to_do = f"{setting} {_TO_DO}"
    if not endpoint_reachable(endpoint):
        return (
            f"nothing answers at {endpoint} (start `a2a-progress traces` or your collector first)"
        )
    url = otlp_traces_url(endpoint)
    try:
        response = httpx.post(
            url,
            content=b"",
            headers={"Content-Type": "application/x-protobuf"},
            timeout=timeout_seconds,
        )
    except (httpx.RemoteProtocolError, httpx.ReadError):
        return f"{endpoint} does not answer HTTP/1.1 (is it an OTLP/gRPC port?); {to_do}"
    except httpx.TimeoutException:
        return f"{endpoint} did not answer an OTLP/HTTP request within {timeout_seconds:g}s"
    except httpx.RequestError as error:  # TLS to a plain-HTTP port, an untrusted certificate...
        return network_error(endpoint, error, timeout=timeout_seconds).message
    if response.status_code in _NOT_OTLP:
        status = http_status(response.status_code)
        return f"{endpoint} is no OTLP/HTTP receiver: POST {url} answered HTTP {status}; {to_do}"
    return None


def _env_exporter() -> SpanExporter:
    if env_protocol() == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
            OTLPSpanExporter as GrpcSpanExporter,
        )

        return GrpcSpanExporter()
    return HttpSpanExporter()


def _processor(exporter: SpanExporter) -> BatchSpanProcessor:
    return BatchSpanProcessor(exporter, schedule_delay_millis=_SCHEDULE_DELAY_MS)


@dataclass
class Telemetry:
    """Where this process's spans go.

    ``provider`` is None when nothing records spans. ``owned`` says the provider is this
    process's own (it was handed to the instrumentor, and `close` shuts both down).
    ``exports_to`` names the destinations besides the demo's receiver.
    """

    provider: TracerProvider | None
    owned: bool
    exports_to: list[str] = field(default_factory=list)

    def tracer(self, name: str) -> Tracer:
        """A tracer of this process's provider (a no-op one when nothing records spans)."""
        provider = self.provider or NoOpTracerProvider()
        return provider.get_tracer(name, __version__)

    def flush(self, timeout_millis: int = 5000) -> None:
        """Export every span ended so far."""
        if self.provider is not None:
            self.provider.force_flush(timeout_millis)

    def close(self) -> None:
        """Flush; if the provider is this process's own, uninstrument and shut it down."""
        self.flush()
        if self.owned and self.provider is not None:
            A2AProgressInstrumentor().uninstrument()
            self.provider.shutdown()


def installed_sdk_provider() -> TracerProvider | None:
    """The global tracer provider when it is an SDK one (``opentelemetry-instrument`` ran)."""
    provider = trace.get_tracer_provider()
    return provider if isinstance(provider, TracerProvider) else None


def start_telemetry(
    service_name: str, receiver_url: str | None = None, *, use_env_endpoint: bool = True
) -> Telemetry:
    """Trace this process's A2A calls and executions.

    Args:
        service_name: ``service.name`` of a provider created here.
        receiver_url: an OTLP/HTTP traces URL (``.../v1/traces``) that gets every span too.
        use_env_endpoint: also export to ``OTEL_EXPORTER_OTLP_ENDPOINT`` when it is set.
    """
    installed = installed_sdk_provider()
    if installed is not None:
        if receiver_url is not None:
            installed.add_span_processor(_processor(HttpSpanExporter(endpoint=receiver_url)))
        # The distro exports to the environment's endpoint whatever this process prefers.
        exports_to = [endpoint] if (endpoint := env_endpoint()) else []
        return Telemetry(installed, owned=False, exports_to=exports_to)
    endpoint = env_endpoint() if use_env_endpoint else None
    exporters: list[SpanExporter] = []
    if receiver_url is not None:
        exporters.append(HttpSpanExporter(endpoint=receiver_url))
    if endpoint is not None:
        exporters.append(_env_exporter())
    if not exporters:
        return Telemetry(None, owned=False)
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: service_name}))
    for exporter in exporters:
        provider.add_span_processor(_processor(exporter))
    # Spans only: the demo exports no metrics (a no-op meter provider, chosen, not forgotten).
    # Content capture is on: the demo's agents say nothing private, and its trace is there to be
    # read (a library install captures none unless told; see CONTENT_NOTE). So are the caller's
    # mirrors of the calls its agents record: the waterfall shows both sides' view of each call.
    # `watch --otlp` traces the same way (docs/reference/cli.md says so): a turn asked to be seen.
    A2AProgressInstrumentor().instrument(
        tracer_provider=provider,
        meter_provider=NoOpMeterProvider(),
        capture_content=True,
        mirror_spans=True,
    )
    return Telemetry(provider, owned=True, exports_to=[endpoint] if endpoint else [])


def otlp_traces_url(endpoint: str) -> str:
    """The OTLP/HTTP traces URL of ``endpoint``: ``/v1/traces`` added when it has no path."""
    endpoint = endpoint if "://" in endpoint else f"http://{endpoint}"
    return endpoint if urlsplit(endpoint).path.strip("/") else endpoint.rstrip("/") + "/v1/traces"


@contextlib.contextmanager
def traced_command(command: str, otlp: str | None, report: TextIO) -> Iterator[None]:
    """Run a command's body inside a root span ``a2a-progress COMMAND`` exported to ``otlp``.

    Its A2A calls become that span's children (the instrumentor's call and tool spans), and the
    agent's spans, which continue the call's trace context, land in the same trace. Nothing is
    traced without ``otlp``. When ``otlp`` cannot take OTLP/HTTP (`otlp_http_problem`) that is
    said once on ``report`` and the command runs untraced, rather than retried at exit. At the end,
    ``report`` gets the trace id and where it went.
    """
    if otlp is None:
        yield
        return
    problem = otlp_http_problem(otlp)
    if problem is not None:
        print(f"a2a-progress: not tracing: {problem}", file=report)
        yield
        return
    service = os.environ.get("OTEL_SERVICE_NAME") or f"a2a-progress-{command}"
    telemetry = start_telemetry(service, otlp_traces_url(otlp), use_env_endpoint=False)
    tracer = telemetry.tracer("a2a_progress.cli")
    trace_id = ""
    try:
        with tracer.start_as_current_span(
            f"a2a-progress {command}", record_exception=False
        ) as span:
            trace_id = format(span.get_span_context().trace_id, "032x")
            yield
    finally:
        telemetry.close()  # the span has ended: this exports it
        if trace_id:
            print(f"a2a-progress: trace {trace_id} sent to {otlp}", file=report)
