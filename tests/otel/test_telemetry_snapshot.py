"""What a backend receives, byte for byte, against a committed record: spans, events, metrics.

Performance work on the bridge must not change its output. These turns (tool calls opened,
streamed into, ended, aborted with a reason, started again late and left open; thinking, text
and errors on the turn; a credential in a text; a degraded and an unusable update; a repeated
envelope) run through both sides over a real JSON-RPC server, sampled with content, sampled
without, and unsampled; every span (name, kind, parent, attributes, status, events with their
attributes, links) and every metric point (name, attributes, count or value) is compared with
``snapshots/telemetry.json``. Only what differs from run to run is left out: ids, times,
durations, the server's port.

A change meant to alter the telemetry regenerates the record::

    A2A_PROGRESS_UPDATE_SNAPSHOT=1 .venv/bin/pytest tests/otel/test_telemetry_snapshot.py

and the diff of ``telemetry.json`` shows the change for review.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Final

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ParentBased
from otel_support import (
    Telemetry,
    abort,
    call,
    complete,
    done,
    env,
    error,
    output,
    raw,
    serving,
    start,
    text,
    thinking,
    wire,
)

from a2a_progress.otel import conventions as conv

RECORD: Final = Path(__file__).parent / "snapshots" / "telemetry.json"
UPDATE: Final = os.environ.get("A2A_PROGRESS_UPDATE_SNAPSHOT") == "1"

# Values that differ from run to run (ids the SDK or a2a-sdk draws, the port).
_VARYING: Final = frozenset(
    {
        conv.A2A_TASK_ID,
        conv.A2A_MESSAGE_ID,
        conv.GEN_AI_CONVERSATION_ID,
        conv.GEN_AI_AGENT_VERSION,  # the package's version, on the served card
        conv.SERVER_PORT,
        "tfrs.span",
    }
)

STEPS: Final = [
    thinking("Let me look at the deploy first."),
    start("ci_status", "call-1"),
    output("call-1", "job 1: passed\n"),
    text("CI is red; token=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB was in the log"),
    done("call-1"),
    start("deploy", "call-2"),
    error("quota low"),
    abort("call-2", "the rollout failed"),
    raw(None, "a plain-text update"),
    raw("{not json", "an unusable envelope"),
    raw(wire("thinking", 40, text="sent twice")),
    raw(wire("thinking", 40, text="sent twice")),
    env("tool_call", 44, stream_key="k8", tool="fetch"),
    env("tool_call", 43, stream_key="k8", tool="fetch"),  # its start again, late: seq.first 43
    env("tool_call", 45, "done", stream_key="k8", tool="fetch"),
    env("tool_call", 41, stream_key="k9", tool="browse"),
    complete("The deploy is blocked by CI."),
]


def _value(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _attributes(attributes: Any) -> dict[str, Any]:
    return {
        key: _value(value)
        for key, value in sorted((attributes or {}).items())
        if key not in _VARYING
    }


def _spans(telemetry: Telemetry) -> list[dict[str, Any]]:
    spans = sorted(telemetry.spans(), key=lambda span: span.start_time or 0)
    names = {span.context.span_id: span.name for span in spans if span.context is not None}

    def record(span: ReadableSpan) -> dict[str, Any]:
        parent = span.parent.span_id if span.parent is not None else None
        return {
            "name": span.name,
            "kind": span.kind.name,
            "parent": names.get(parent) if parent is not None else None,
            "attributes": _attributes(span.attributes),
            "status": [span.status.status_code.name, span.status.description],
            "events": [[event.name, _attributes(event.attributes)] for event in span.events],
            "links": [_attributes(link.attributes) for link in span.links],
        }

    # Each side's spans in start order; the sides interleave differently from run to run.
    return sorted(
        (record(span) for span in spans),
        key=lambda found: str(found["attributes"].get(conv.OBSERVER, found["kind"])),
    )


def _metrics(telemetry: Telemetry) -> list[list[Any]]:
    data = telemetry.reader.get_metrics_data()
    points = []
    for resource in data.resource_metrics if data is not None else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                for point in metric.data.data_points:
                    # A histogram's count and buckets' total, not its durations.
                    value = getattr(point, "count", None)
                    points.append(
                        [
                            metric.name,
                            _attributes(point.attributes),
                            point.value if value is None else value,
                        ]
                    )
    return sorted(points, key=json.dumps)


async def _run(telemetry: Telemetry, **options: Any) -> dict[str, Any]:
    telemetry.instrument(mirror_spans=None, **options)  # the default: what a deployment gets
    async with serving(STEPS, enable_output=True) as served:
        await call(served.card_for("jsonrpc"))
    telemetry.assert_each_span_ended_once()
    return {"spans": _spans(telemetry), "metrics": _metrics(telemetry)}


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("content", {"capture_content": True}),
        ("no_content", {"capture_content": False}),
        ("unsampled", {"sampler": ParentBased(ALWAYS_OFF)}),
    ],
)
async def test_the_telemetry_is_what_was_recorded(name: str, options: dict[str, Any]) -> None:
    telemetry = Telemetry()
    sampler = options.pop("sampler", None)
    if sampler is not None:  # spans dropped at the root: none reaches the exporter
        telemetry.tracer_provider = TracerProvider(sampler=sampler)
    try:
        found = await _run(telemetry, **options)
    finally:
        telemetry.uninstrument()
    recorded = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    if UPDATE:
        recorded[name] = found
        RECORD.parent.mkdir(exist_ok=True)
        RECORD.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
    assert found == recorded.get(name), (
        f"the telemetry of '{name}' changed; if that is meant, regenerate {RECORD.name} "
        "(see this module's docstring) and review its diff"
    )
