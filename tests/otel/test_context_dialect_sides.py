"""Dialects are read by the caller only. The callee's own framework (ADK traces its tools with
OpenTelemetry itself) already makes a span per tool there; a second ``execute_tool`` span read
back from its A2A updates would double every tool in that agent's trace. The caller, which
sees nothing but the updates, makes one span per dialect tool call."""

from otel_support import Telemetry, attrs, call

from a2a_progress.otel import conventions as conv
from a2a_progress.serving import serve_agent
from support.dialect_agents import AdkPartsAgent, EnvelopeAgent


async def test_dialect_tool_calls_become_spans_on_the_caller_only(telemetry: Telemetry) -> None:
    async with serve_agent(AdkPartsAgent()) as served:
        await call(served.card_for("jsonrpc"))
    assert telemetry.tool_spans(conv.OBSERVER_CALLEE) == []
    caller = telemetry.tool_spans(conv.OBSERVER_CALLER)
    assert [(span.name, attrs(span)[conv.DIALECT]) for span in caller] == [
        ("execute_tool ci_status", "adk"),
        ("execute_tool deploy_log", "adk"),
    ]
    # Both turns are still observed: the callee's SERVER span is there, under the caller's.
    assert len(telemetry.turn_spans(conv.OBSERVER_CALLEE)) == 1


async def test_envelopes_still_make_spans_on_both_sides(telemetry: Telemetry) -> None:
    async with serve_agent(EnvelopeAgent()) as served:
        await call(served.card_for("jsonrpc"))
    assert len(telemetry.tool_spans(conv.OBSERVER_CALLEE)) == 1
    assert len(telemetry.tool_spans(conv.OBSERVER_CALLER)) == 1
