"""A tool call's span and its capped span events."""

from __future__ import annotations

import time
from collections import deque
from typing import Any, Final

from opentelemetry.trace import INVALID_SPAN, Span, Status, StatusCode

from a2a_progress.consumer import CallRecord, EndReason
from a2a_progress.envelope import HARD_LIMIT_BYTES
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.content import Collected, tool_call_result

__all__ = [
    "CALLER_END_REASONS",
    "ERROR_END_REASONS",
    "AnnouncedCall",
    "INT64_MAX",
    "INT64_MIN",
    "EventBuffer",
    "ToolSpan",
    "ended_call",
]

ERROR_END_REASONS: Final = frozenset({EndReason.ABORTED, EndReason.TURN_FAILED})
"""End reasons that make a tool call an error (a stream that raised also does: ``failed``). A
canceled turn's tools are not: a cancellation is no error, of the turn or of its tools."""
_STREAM_CLOSED: Final = EndReason.STREAM_CLOSED
CALLER_END_REASONS: Final = frozenset({EndReason.STREAM_CLOSED, EndReason.SHUTDOWN})
"""End reasons the caller alone knows (its stream closed or broke, its process stopped): a call
the callee records that ends so may never have the callee's span (the callee may have died with
it), so the caller writes its own."""
INT64_MIN: Final = -(2**63)
"""The least integer attribute OTLP carries (int64): a JSON seq past it is left out."""
INT64_MAX: Final = 2**63 - 1
"""The greatest integer attribute OTLP carries (int64): exporters would drop a seq past it."""


def ended_call(call: CallRecord, *, failed: bool) -> tuple[str, bool]:
    """How a closed tool call ended, for its span and its duration metric: its end reason (as
    sent), and whether that is an error (``failed``: the turn's stream raised)."""
    end_reason = call.end_reason or _STREAM_CLOSED
    return end_reason._value_, failed or end_reason in ERROR_END_REASONS


class EventBuffer:
    """A span's events, capped: the first half go straight on, the latest half wait for the end.

    The SDK silently drops events past its own limit; this keeps the start and the end of a long
    stream and counts what it dropped. The tail's deque is made only when the head is full: most
    spans (a tool call says a few things) never need it, and making one costs more than a span
    event.
    """

    __slots__ = ("dropped", "head_room", "span", "tail", "tail_room")

    def __init__(self, span: Span, cap: int) -> None:
        self.span = span
        self.head_room = cap - cap // 2
        self.tail_room = cap // 2
        self.tail: deque[tuple[str, dict[str, Any], int]] | None = None
        self.dropped = 0

    def add(self, name: str, attributes: dict[str, Any]) -> None:
        if self.head_room > 0:
            self.head_room -= 1
            self.span.add_event(name, attributes)
            return
        tail = self.tail
        if tail is None:
            tail = self.tail = deque(maxlen=self.tail_room)
        if len(tail) == tail.maxlen:
            self.dropped += 1
        tail.append((name, attributes, time.time_ns()))

    def flush(self) -> None:
        tail, self.tail = self.tail, None
        for name, attributes, timestamp in tail or ():
            self.span.add_event(name, attributes, timestamp=timestamp)
        if self.dropped:
            self.span.set_attribute(conv.EVENTS_DROPPED, self.dropped)


class ToolSpan(EventBuffer):
    """One tool call's ``execute_tool`` span and its events' buffer (one object, not two: a span
    opens and ends for every tool call on each side); ``is_open`` until the bridge ends it.

    ``counted``: this span is the call's execution in GenAI views (``gen_ai.operation.name``,
    the duration metric); False for a caller's mirror of a span the callee announced.
    ``result`` collects up to ``parts`` texts of the tool's stream for
    ``gen_ai.tool.call.result`` (a mirror's ``a2a.progress.tool.call.result``), joined and
    bounded as it ends (opt-in content; None without).
    """

    __slots__ = ("counted", "first_seq", "is_open", "name", "result", "started")

    def __init__(  # noqa: PLR0917 - once per tool call: positional, one call
        self,
        span: Span,
        cap: int,
        name: str,
        counted: bool = True,
        parts: int = 0,
        first_seq: int | None = None,
    ) -> None:
        super().__init__(span, cap)
        self.name = name
        self.started = time.monotonic()
        self.is_open = True
        self.counted = counted
        self.result = Collected(parts, HARD_LIMIT_BYTES) if parts else None
        # The seq.first attribute the span started with (None: none), so that the end sets it
        # again only when a late start has changed it.
        self.first_seq = first_seq

    def end(
        self,
        call: CallRecord,
        reason: str,
        error: bool,
        description: str | None,
        result_limit: int,
    ) -> None:
        """End the span: its held events, then its end attributes in one call (the SDK takes
        the span's lock once), then ERROR with ``description`` when it failed."""
        attributes: dict[str, Any] = {}
        last_seq, first_seq = call.last_seq, call.first_seq
        if INT64_MIN <= last_seq <= INT64_MAX:
            attributes[conv.SEQ_LAST] = last_seq
        # Set at the start; again only if a late start has lowered it since.
        if first_seq != self.first_seq and INT64_MIN <= first_seq <= INT64_MAX:
            attributes[conv.SEQ_FIRST] = first_seq
        attributes[conv.END_REASON] = reason
        if error:
            attributes[conv.ERROR_TYPE] = reason
        if self.result is not None:
            result = tool_call_result(self.result, result_limit)
            if result is not None:
                # A mirror's under its own name: gen_ai.tool.* would make it an execution too.
                key = conv.GEN_AI_TOOL_CALL_RESULT if self.counted else conv.MIRROR_TOOL_CALL_RESULT
                attributes[key] = result
        if self.tail is not None or self.dropped:
            self.flush()
        span = self.span
        span.set_attributes(attributes)
        if error:
            span.set_status(Status(StatusCode.ERROR, description))
        span.end()


class AnnouncedCall(ToolSpan):
    """A caller's tool call whose span the callee announced as sampled: the callee's span is
    its record, events included, and the caller makes none unless the call ends for one of
    `CALLER_END_REASONS` (then a mirror of the span ``announced``, from ``opened_ns``)."""

    __slots__ = ("announced", "opened_ns")

    def __init__(self, name: str, announced: str) -> None:
        super().__init__(INVALID_SPAN, 0, name, False)
        self.announced = announced  # its traceparent, read only if a mirror is written
        self.opened_ns = time.time_ns()

    def add(self, name: str, attributes: dict[str, Any]) -> None:
        """Its events are on the callee's span: none is kept here."""
