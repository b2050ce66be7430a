"""The SDK's real OTLP exporters, and a caller and a callee exporting as two services through them.

The bridge is instrumented with one ``TracerProvider`` per side (``caller_tracer_provider`` /
``callee_tracer_provider``), each with its own ``service.name``, ``BatchSpanProcessor`` and
exporter, so one process shows two services the way two agents in two processes would.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final, Literal

from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import (
    OTLPMetricExporter as GrpcMetricExporter,
)
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
    OTLPSpanExporter as GrpcSpanExporter,
)
from opentelemetry.exporter.otlp.proto.http.metric_exporter import (
    OTLPMetricExporter as HttpMetricExporter,
)
from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
    OTLPSpanExporter as HttpSpanExporter,
)
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import MetricExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter

from a2a_progress.otel import A2AProgressInstrumentor
from a2a_progress.otlp import OtlpReceiver, ReceivedEvent, ReceivedSpan
from support import agents
from support.spans import tool_call_id, tool_name

Protocol = Literal["grpc", "http/protobuf"]
PROTOCOLS: Final[tuple[Protocol, ...]] = ("grpc", "http/protobuf")

CALLER_SERVICE: Final = "caller-agent"
CALLEE_SERVICE: Final = "callee-agent"
BRIDGE_SCOPE: Final = "a2a_progress.otel"
"""The instrumentation scope of every span the bridge makes."""
SDK_SCOPE: Final = "a2a-python-sdk"
"""The scope of the a2a-sdk's own spans."""
BATCH_DELAY_MILLIS: Final = 50


def endpoint(receiver: OtlpReceiver, protocol: Protocol) -> str:
    """Where an exporter of ``protocol`` reaches ``receiver``."""
    if protocol == "grpc":
        assert receiver.grpc_endpoint is not None
        return receiver.grpc_endpoint
    return receiver.http_endpoint


def span_exporter(protocol: Protocol, target: str, *, timeout: float = 10.0) -> SpanExporter:
    """A real OTLP span exporter: ``target`` is ``host:port`` (gRPC) or a base URL (HTTP)."""
    if protocol == "grpc":
        return GrpcSpanExporter(endpoint=target, insecure=True, timeout=timeout)
    return HttpSpanExporter(endpoint=f"{target}/v1/traces", timeout=timeout)


def metric_exporter(protocol: Protocol, target: str) -> MetricExporter:
    """A real OTLP metric exporter (see :func:`span_exporter`)."""
    if protocol == "grpc":
        return GrpcMetricExporter(endpoint=target, insecure=True)
    return HttpMetricExporter(endpoint=f"{target}/v1/metrics")


def tracer_provider(service: str, exporter: SpanExporter) -> TracerProvider:
    """A provider for ``service`` batching into ``exporter`` (no exit hook: tests shut it down)."""
    provider = TracerProvider(
        resource=Resource.create({"service.name": service}), shutdown_on_exit=False
    )
    provider.add_span_processor(
        BatchSpanProcessor(exporter, schedule_delay_millis=BATCH_DELAY_MILLIS)
    )
    return provider


@dataclass(frozen=True)
class TwoServices:
    caller: TracerProvider
    callee: TracerProvider


@contextlib.contextmanager
def instrumented_services(
    caller_exporter: SpanExporter,
    callee_exporter: SpanExporter,
    meter_provider: MeterProvider | None = None,
) -> Iterator[TwoServices]:
    """The bridge instrumented on a caller and a callee provider; uninstrumented and shut down
    (flushing what is batched) on exit."""
    services = TwoServices(
        caller=tracer_provider(CALLER_SERVICE, caller_exporter),
        callee=tracer_provider(CALLEE_SERVICE, callee_exporter),
    )
    instrumentor = A2AProgressInstrumentor()
    instrumentor.instrument(
        caller_tracer_provider=services.caller,
        callee_tracer_provider=services.callee,
        meter_provider=meter_provider,
    )
    try:
        yield services
    finally:
        instrumentor.uninstrument()
        services.caller.shutdown()
        services.callee.shutdown()


def received_span(
    name: str,
    span_id: str,
    parent: str | None,
    *,
    service: str = "svc",
    start_ns: int = 0,
    end_ns: int = 0,
    error: str = "",
    events: int = 0,
    trace_id: str = "ab" * 16,
) -> ReceivedSpan:
    """A span as the receiver would record it, for the waterfall's tests."""
    return ReceivedSpan(
        service_name=service,
        name=name,
        trace_id=trace_id,
        span_id=span_id,
        parent_span_id=parent,
        kind="INTERNAL",
        start_time_unix_nano=start_ns,
        end_time_unix_nano=end_ns,
        status_code="ERROR" if error else "UNSET",
        status_message=error,
        attributes={},
        events=tuple(ReceivedEvent("e", 0, {}) for _ in range(events)),
        scope_name="test",
    )


def json_spans(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Every span of an OTLP/JSON document (one export request, or a file the CLI wrote), as
    written, plus its ``service``, its scope's name (``scope``) and its attributes flattened to
    plain values (``attrs``)."""
    found = []
    for resource_spans in document["resourceSpans"]:
        resource = {a["key"]: a["value"] for a in resource_spans["resource"]["attributes"]}
        service = resource["service.name"]["stringValue"]
        for scope_spans in resource_spans["scopeSpans"]:
            scope = scope_spans["scope"].get("name", "")
            for span in scope_spans["spans"]:
                attributes = {
                    a["key"]: next(iter(a["value"].values())) for a in span.get("attributes", [])
                }
                found.append({**span, "service": service, "scope": scope, "attrs": attributes})
    return found


def bridge_spans(spans: list[ReceivedSpan]) -> list[ReceivedSpan]:
    """The spans the bridge made (not a2a-sdk's own, nor anyone else's)."""
    return [span for span in spans if span.scope_name == BRIDGE_SCOPE]


def _sides(
    spans: list[ReceivedSpan], caller_service: str, callee_service: str
) -> dict[str, list[ReceivedSpan]]:
    ours = bridge_spans(spans)
    return {
        "caller": [s for s in ours if s.service_name == caller_service],
        "callee": [s for s in ours if s.service_name == callee_service],
    }


def has_turn_trace(
    spans: list[ReceivedSpan],
    caller_service: str = CALLER_SERVICE,
    callee_service: str = CALLEE_SERVICE,
) -> bool:
    """Whether both sides' turn span and the callee's two tool spans of a ToolAgent turn have
    arrived."""
    sides = _sides(spans, caller_service, callee_service)
    return len(sides["caller"]) >= 1 and len(sides["callee"]) >= 3


def assert_turn_trace(
    spans: list[ReceivedSpan],
    caller_service: str = CALLER_SERVICE,
    callee_service: str = CALLEE_SERVICE,
    *,
    content: bool = False,
) -> None:
    """One ToolAgent turn as both observers exported it: one trace from the caller's CLIENT span
    through the callee's SERVER span down to the callee's ``execute_tool`` spans.

    Both sides are instrumented: each tool call is one span, the callee's, one execution by
    ``gen_ai.operation.name``; the caller, told the callee records it, makes none. The turn's
    thinking and text are events of the callee's SERVER span only: the callee announced it,
    sampled, and the caller does not write them again. ``content``: whether capture was on (the
    default is off: the events say what happened and how big it was, never what it said).
    """
    sides = _sides(spans, caller_service, callee_service)
    turns: dict[str, ReceivedSpan] = {}
    for observer, kind in (("caller", "CLIENT"), ("callee", "SERVER")):
        [turn] = [s for s in sides[observer] if s.kind == kind]
        assert turn.name == "SendStreamingMessage"
        assert turn.attributes["a2a.task.state"] == "TASK_STATE_COMPLETED"
        assert turn.status_code == "UNSET"
        # Thinking and text carry no stream key: they are the turn's events, not a tool's; the
        # callee's turn's, which it announced (with content, the caller's output still has them).
        said = [
            ("a2a.progress.thinking", agents.THINKING),
            ("a2a.progress.text", agents.SEARCH_OUTPUT),
        ]
        if observer == "caller":
            said = []
        assert [(e.name, e.attributes["a2a.progress.content.size"]) for e in turn.events] == [
            (name, len(text.encode())) for name, text in said
        ]
        if content:
            assert [(e.name, e.attributes["a2a.progress.content"]) for e in turn.events] == said
            assert "gen_ai.output.messages" in turn.attributes
        else:
            assert not any("a2a.progress.content" in e.attributes for e in turn.events)
            assert not any(
                key in s.attributes
                for s in sides[observer]
                for key in ("gen_ai.output.messages", "gen_ai.tool.call.result")
            )
        turns[observer] = turn
        tools = {
            tool_name(s.attributes): s
            for s in sides[observer]
            if s.name.startswith("execute_tool ")
        }
        if observer == "caller":
            assert tools == {}  # the callee announced both calls, sampled
            continue
        assert sorted(tools) == ["fetch", "search"]
        search, fetch = tools["search"], tools["fetch"]
        for tool in (search, fetch):
            assert tool.name == f"execute_tool {tool_name(tool.attributes)}"
            assert tool.kind == "INTERNAL"
            assert tool.parent_span_id == turn.span_id
            assert tool.attributes["a2a.progress.observer"] == observer
            assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
        assert search.events == fetch.events == ()
        assert tool_call_id(search.attributes) == "call-search"
        assert search.attributes["a2a.progress.end_reason"] == "done"
        assert search.status_code == "UNSET"
        assert tool_call_id(fetch.attributes) == "call-fetch"
        assert fetch.attributes["a2a.progress.end_reason"] == "aborted"
        assert (fetch.status_code, fetch.status_message) == ("ERROR", agents.ABORT_REASON)
        assert fetch.attributes["error.type"] == "aborted"
        assert "error.type" not in search.attributes
        assert fetch.start_time_unix_nano >= search.end_time_unix_nano
    caller, callee = turns["caller"], turns["callee"]
    assert caller.parent_span_id is None
    # Under the call: directly, or through the spans of an instrumented HTTP client (httpx)
    # and of a2a-sdk's own tracing (on unless OTEL_INSTRUMENTATION_A2A_SDK_ENABLED=false).
    by_id = {s.span_id: s for s in spans}
    parent = callee.parent_span_id
    while parent in by_id and parent != caller.span_id:
        parent = by_id[parent].parent_span_id
    assert parent == caller.span_id
    assert {s.trace_id for s in sides["caller"] + sides["callee"]} == {caller.trace_id}
    executions = [
        s.attributes["gen_ai.tool.name"]
        for s in sides["caller"] + sides["callee"]
        if s.attributes.get("gen_ai.operation.name") == "execute_tool"
    ]
    assert sorted(executions) == ["fetch", "search"]  # one execution per tool call
