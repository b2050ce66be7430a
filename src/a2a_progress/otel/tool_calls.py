"""A recorded turn's tool calls become ``execute_tool`` spans under the turn's span.

`ToolCalls` opens a span for each call the turn's assembler opens, ends it when the assembler
closes the call, and records the call's duration on the side that counts it. A call the callee
announced as recorded gets no span here unless it is cut off on this side (see announce.py); a
turn its sampler dropped (its span is not recording, the span it started under is) shares one
non-recording span among its calls. `TurnTelemetry` owns one per turn and feeds it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from opentelemetry import trace
from opentelemetry.trace import Link, NonRecordingSpan, Span, SpanContext, SpanKind, Tracer

from a2a_progress.consumer import CallRecord, EndReason
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.announce import announced_value, recorded
from a2a_progress.otel.pending import mark_pending
from a2a_progress.otel.safe_text import peer_name
from a2a_progress.otel.tool_span import (
    CALLER_END_REASONS,
    ERROR_END_REASONS,
    INT64_MAX,
    INT64_MIN,
    AnnouncedCall,
    ToolSpan,
)

if TYPE_CHECKING:
    from opentelemetry.context import Context

    from a2a_progress.otel.bridge import Bridge

__all__ = ["ToolCalls"]


class ToolCalls:
    """The tool spans of one recorded turn, by the id of their `CallRecord` (``spans``).

    Args:
        bridge: tracer settings, metrics and the pending-span exporter.
        observer: ``"caller"`` or ``"callee"``.
        tracer: the observer's tracer.
        span: the turn's span; a recording one is the tool spans' parent.
        names: the turn's cache of sanitized peer names (read here, filled by ``name``).
        name: the turn's sanitizer of a peer name (fills ``names``).
        agent_name: the agent's name, a label of the duration metric.
    """

    __slots__ = (
        "_bridge",
        "_callee",
        "_config",
        "_context",
        "_metrics",
        "_name",
        "_names",
        "_no_mirrors",
        "_observer",
        "_recording",
        "_tracer",
        "_unsampled_span",
        "agent_name",
        "context_id",
        "spans",
        "task_id",
    )

    def __init__(  # noqa: PLR0917 - once per turn: the turn's own parts, handed over
        self,
        bridge: Bridge,
        observer: str,
        tracer: Tracer,
        span: Span,
        names: dict[str, str],
        name: Callable[[str], str],
        agent_name: str | None,
    ) -> None:
        self._bridge = bridge
        self._config = bridge.config
        self._metrics = bridge.metrics
        self._observer = observer
        self._callee = observer == conv.OBSERVER_CALLEE
        self._tracer = tracer
        self._recording = recording = span.is_recording()
        # Unsampled, the calls share one non-recording span carrying the turn's context.
        self._unsampled_span = None if recording else NonRecordingSpan(span.get_span_context())
        self._context: Context | None = trace.set_span_in_context(span) if recording else None
        self._no_mirrors = not self._config.mirror_spans
        self._names = names
        self._name = name
        self.agent_name = agent_name
        self.spans: dict[int, ToolSpan] = {}
        # The turn's ids, labels of its tool spans once known (the turn sets them).
        self.task_id: str | None = None
        self.context_id: str | None = None

    def open(self, call: CallRecord, announced: object) -> ToolSpan | None:
        """Start ``call``'s span; its `ToolSpan` (unsampled: on the turn's non-recording span),
        or None when none is kept (the callee records the call; unsampled, this side does not
        count it). ``announced``: what the update that opened it announces, unchecked
        (`announce.raw_announcement`; None: nothing)."""
        # The callee announced its own span of this call: this one mirrors it (see announce.py),
        # or, that span sampled, is made only if the call is cut off on this side.
        tool = (self._names.get(call.tool) or self._name(call.tool)) if call.tool else "unknown"
        if (
            announced is not None
            and self._no_mirrors
            and self._unsampled_span is None
            and recorded(announced)
        ):
            # The callee records this call: its span is the trace's one record of it, events
            # included. A mirror of it cost the deployed caller more than all its protocol work.
            self.spans[id(call)] = AnnouncedCall(tool, announced)
            return None
        callee_span = None if announced is None else announced_value(announced)
        if self._unsampled_span is not None:
            # Only the duration metric needs the call, and only on the side that counts it (a
            # caller's mirror of an announced call is not counted: it keeps nothing). Nothing is
            # made current: the turn's span, current already, carries the same unsampled context.
            if callee_span is not None:
                return None
            unsampled = self.spans[id(call)] = ToolSpan(self._unsampled_span, 0, tool)
            return unsampled
        opened = self.spans[id(call)] = self._start(call, tool, callee_span)
        return opened

    def _start(
        self,
        call: CallRecord,
        tool: str,
        callee_span: SpanContext | None,
        start_time: int | None = None,
    ) -> ToolSpan:
        """Start ``call``'s span (a mirror of ``callee_span``, if given), now or, for a call
        written only as it ends, at ``start_time``."""
        counted = callee_span is None
        names = self._names
        attributes: dict[str, Any] = (
            {conv.GEN_AI_OPERATION_NAME: conv.OPERATION_EXECUTE_TOOL, conv.GEN_AI_TOOL_NAME: tool}
            if counted
            else {conv.MIRROR: True, conv.MIRROR_TOOL_NAME: tool}
        )
        attributes[conv.OBSERVER] = self._observer
        first_seq = call.first_seq
        if INT64_MIN <= first_seq <= INT64_MAX:  # an OTLP integer is int64: exporters drop more
            attributes[conv.SEQ_FIRST] = first_seq
        if call.tool_call_id:
            call_id = names.get(call.tool_call_id) or self._name(call.tool_call_id)
            attributes[conv.GEN_AI_TOOL_CALL_ID if counted else conv.MIRROR_TOOL_CALL_ID] = call_id
        if call.stream_key is not None:
            attributes[conv.STREAM_KEY] = names.get(call.stream_key) or self._name(call.stream_key)
        if call.dialect is not None:
            attributes[conv.DIALECT] = call.dialect
        if self.task_id is not None:
            attributes[conv.A2A_TASK_ID] = self.task_id
        if self.context_id is not None:
            attributes[conv.GEN_AI_CONVERSATION_ID] = self.context_id
        span = self._tracer.start_span(
            f"{conv.TOOL_SPAN_PREFIX} {tool}",
            context=self._context,
            kind=SpanKind.INTERNAL,
            attributes=attributes,
            links=None if callee_span is None else [Link(callee_span)],
            start_time=start_time,
        )
        if self._config.pending_spans and start_time is None:
            mark_pending(self._tracer, span, tool, attributes)
            if self._bridge.pending_export is not None:
                self._bridge.pending_export.nudge(self._observer)
        cap = self._config.max_events_per_span
        parts = cap if self._config.capture_content else 0
        return ToolSpan(span, cap, tool, counted, parts, call.first_seq)

    def close(
        self, calls: Iterable[CallRecord], *, failed: bool = False, detail: str | None = None
    ) -> None:
        """End the spans of calls the assembler has closed (each carries its end reason)."""
        for call in calls:
            tool = self.spans.pop(id(call), None)
            if tool is None:
                continue
            # ended_call(), inlined: once per recorded tool call, on each side.
            end_reason = call.end_reason or EndReason.STREAM_CLOSED
            if type(tool) is AnnouncedCall:
                if not failed and end_reason not in CALLER_END_REASONS:
                    continue  # the callee's span says how it ended
                callee_span = announced_value(tool.announced)
                tool = self._start(call, tool.name, callee_span, tool.opened_ns)
            tool.is_open = False
            reason = end_reason._value_
            error = failed or end_reason in ERROR_END_REASONS
            if self._recording:
                description = None
                if error:  # the abort reason (redacted), else the end reason
                    description = peer_name(detail, self._config.redactor) if detail else reason
                tool.end(call, reason, error, description, self._config.content_max_length)
            if tool.counted:
                self._metrics.record_duration(
                    time.monotonic() - tool.started,
                    tool=tool.name,
                    observer=self._observer,
                    end_reason=reason,
                    error_type=reason if error else None,
                    agent=self.agent_name,
                )

    def end_open(self) -> None:
        """End the spans still open (the turn ends; closing them failed): before the turn's."""
        for tool in self.spans.values():
            tool.is_open = False
            tool.span.end()
        self.spans.clear()
