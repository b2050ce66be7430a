"""`OtlpJsonFile`: a valid OTLP/JSON request after every append, that a receiver accepts."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from a2a_progress.otlp import OtlpJsonFile, OtlpReceiver


def spans_named(*names: str) -> object:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "svc"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    for name in names:
        with provider.get_tracer("test").start_as_current_span(name):
            pass
    return encode_spans(exporter.get_finished_spans())


def names_in(path: Path) -> list[str]:
    [line] = path.read_text().splitlines()
    document = json.loads(line)
    return [
        span["name"]
        for resource_spans in document["resourceSpans"]
        for scope_spans in resource_spans["scopeSpans"]
        for span in scope_spans["spans"]
    ]


def test_each_append_leaves_one_valid_request_that_a_receiver_accepts(tmp_path: Path) -> None:
    path = tmp_path / "traces.json"
    path.write_text("old content\n")
    with OtlpJsonFile(path) as written:
        assert names_in(path) == []  # replaced, and valid while empty
        written.append(spans_named("first"))
        assert names_in(path) == ["first"]
        written.append(spans_named("second", "third"))
        assert names_in(path) == ["first", "second", "third"]
    with OtlpReceiver(grpc_port=None) as receiver:
        request = urllib.request.Request(
            f"{receiver.http_endpoint}/v1/traces",
            data=path.read_bytes(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
        assert [span.name for span in receiver.spans()] == ["first", "second", "third"]
        assert {span.service_name for span in receiver.spans()} == {"svc"}
