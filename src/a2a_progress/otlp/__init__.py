"""A small OTLP receiver on loopback: what real exporters send, for tests, the demo and ``traces``.

It accepts OTLP traces, metrics and logs over OTLP/HTTP (``POST /v1/traces``, ``/v1/metrics``,
``/v1/logs``; protobuf or JSON bodies, optionally gzip- or deflate-compressed) and over OTLP/gRPC
(``TraceService``, ``MetricsService`` and ``LogsService`` ``Export``). Both servers run in
background threads, so it serves synchronous tests and asyncio code alike without touching an
event loop.

Usage::

    with OtlpReceiver() as receiver:
        exporter = OTLPSpanExporter(endpoint=f"{receiver.http_endpoint}/v1/traces")
        ...
        spans = receiver.wait_for_spans(lambda spans: any(s.kind == "SERVER" for s in spans))
        receiver.write_otlp_json("trace.json")  # every span, as one OTLP/JSON request

Modules: `receiver` (`OtlpReceiver`, which keeps everything in memory), `http_server` and
`grpc_server` (the two protocols, each calling back with every parsed request), `codec` (bodies
in, OTLP/JSON out), `json_file` (an OTLP/JSON file that grows), `records` (requests as flat
`ReceivedSpan` / `MetricPoint` records), `traces` (spans grouped into traces that are reported
once complete), `limits` (what one request may hold: body size, spans, attributes; ids checked).
"""

import a2a_progress.cli_extra  # noqa: F401 - without the [cli] extra: one clear line
from a2a_progress.otlp.codec import ExportRequest, to_otlp_json
from a2a_progress.otlp.grpc_server import OtlpGrpcServer
from a2a_progress.otlp.http_server import GRPC_ON_HTTP_PORT, OtlpHttpServer
from a2a_progress.otlp.json_file import OtlpJsonFile
from a2a_progress.otlp.limits import DEFAULT_MAX_REQUEST_BYTES, Limits
from a2a_progress.otlp.receiver import OtlpReceiver
from a2a_progress.otlp.records import MetricPoint, ReceivedEvent, ReceivedSpan, spans_of
from a2a_progress.otlp.traces import CompletedTrace, TraceCollector

__all__ = [
    "DEFAULT_MAX_REQUEST_BYTES",
    "GRPC_ON_HTTP_PORT",
    "CompletedTrace",
    "ExportRequest",
    "Limits",
    "MetricPoint",
    "OtlpGrpcServer",
    "OtlpHttpServer",
    "OtlpJsonFile",
    "OtlpReceiver",
    "ReceivedEvent",
    "ReceivedSpan",
    "TraceCollector",
    "spans_of",
    "to_otlp_json",
]
