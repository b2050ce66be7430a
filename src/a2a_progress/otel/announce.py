"""Counting a tool call once when both sides trace it: the callee says where its span is.

A callee whose tool calls become spans announces each one to the caller in the update that
opens it: one key of that status update event's own metadata (``tfrs.span``), valued the tool
span's W3C ``traceparent``, beside any keys the agent set there. The envelope and its Part are
unchanged, and a reader that does not know the key ignores it. Not in the Part's metadata (where
0.2.x put it): a2a-sdk keeps every status message in the task's history and copies the whole
task about twice per event, so a key in a message is copied again on every later update of the
turn; an event's metadata is merged into one task-level map instead (one key, however long the
turn). The caller then makes no span of that call when the callee's is sampled (with
``mirror_spans``, a mirror that links to it and carries no ``gen_ai.operation.name`` and no
duration metric): GenAI views count the call once, on the side that ran it. Without an
announcement (the callee is not instrumented, or runs something else), the caller's span is
the only record and counts.

A callee whose turn span is sampled announces it the same way, once: in the first status update
event of the turn, under its own key (``tfrs.turn``). That span carries the turn's thinking and
text as span events; a caller in the same trace then writes none of them on its own turn span
(they would be the same events twice in one trace), unless ``mirror_spans`` asks for them.
Without the key (an older or uninstrumented callee, an unsampled callee turn, a caller that
joined the stream midway), the caller writes them as before.
"""

from __future__ import annotations

import re
from typing import Any, Final, TypeGuard

from opentelemetry.trace import Span, SpanContext, TraceFlags

from a2a_progress.otel.conventions import WIRE_TOOL_SPAN, WIRE_TURN_SPAN
from a2a_progress.sdk.adapter import annotate_update, part_string, update_string
from a2a_progress.sdk.views import MessageView

_TRACEPARENT: Final = re.compile(r"00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})")
# The ids an invalid span context has (all zeros); any other the pattern allows is valid.
_ZERO_TRACE: Final = "0" * 32
_ZERO_SPAN: Final = "0" * 16


def traceparent(context: SpanContext) -> str:
    """The W3C ``traceparent`` of ``context``."""
    # %-formatting: ~25% fewer instructions than the f-string's format specs (once per tool).
    ids = (context.trace_id, context.span_id, context.trace_flags)
    return "00-%032x-%016x-%02x" % ids  # noqa: UP031


class Announcer:
    """Announces each tool span a turn's update opens, in that update.

    It remembers the context it announced last and its ``traceparent``: an unsampled turn's tool
    calls share the turn's one context, written out once. One per observed queue, so the memo
    lives and ends with the turn it serves.
    """

    __slots__ = ("_context", "_value")

    def __init__(self) -> None:
        self._context: SpanContext | None = None
        self._value: str | None = None  # None: the context is invalid, nothing to announce

    def announce(self, event: Any, context: SpanContext) -> bool:
        """Put ``context`` in the metadata of the status update ``event`` that opened its span;
        False when the agent put a ``tfrs.span`` there itself: then its value goes on as it is
        (see `AGENTS_OWN_KEPT`)."""
        if context is not self._context:
            self._context = context
            self._value = traceparent(context) if context.is_valid else None
        return (
            self._value is None or annotate_update(event, WIRE_TOOL_SPAN, self._value) is not False
        )


# An agent that sets the key itself may know better where the call runs (e.g. it relays a
# downstream agent's updates, announcement included): ours never overwrites it, and says so.
AGENTS_OWN_KEPT: Final = (
    f"an agent's status update carries its own {WIRE_TOOL_SPAN}: it goes on as the agent set it, "
    "and this side's span of that tool call is not announced"
)
TURN_OWN_KEPT: Final = (
    f"an agent's status update carries its own {WIRE_TURN_SPAN}: it goes on as the agent set it, "
    "and this side's turn span is not announced"
)


def turn_value(span: Span) -> str | None:
    """What a callee announces of its turn's ``span`` (``tfrs.turn``): its ``traceparent`` when
    the span records and is sampled (its events reach the trace); None: nothing to announce."""
    context = span.get_span_context()
    if not (context.is_valid and context.trace_flags.sampled and span.is_recording()):
        return None
    return traceparent(context)


def announce_turn(event: object, value: str) -> bool | None:
    """Put a turn's ``value`` (see `turn_value`) in the metadata of the status update ``event``:
    True when set; False when the agent put a ``tfrs.turn`` there itself (it goes on as the
    agent set it); None when ``event`` is no status update (the next one carries it)."""
    return annotate_update(event, WIRE_TURN_SPAN, value)


def records_turn(event: object, trace_id: int) -> bool:
    """Whether the status update ``event`` announces its callee's turn span (``tfrs.turn``),
    sampled and in the trace ``trace_id`` (the caller's): that span carries the turn's thinking
    and text. Never read from a Task (see `raw_announcement`)."""
    match = _sampled_span(update_string(event, WIRE_TURN_SPAN))
    return match is not None and int(match[1], 16) == trace_id


class Announcements:
    """Whether the updates that open a turn's tool calls announce a valid span, for a turn
    nobody records (it needs only to know whether the callee counts the call; no span context
    is made). It remembers the last value and its answer: an unsampled callee announces every
    call of its turn with the turn's one span context, so a turn reads one value again and
    again (checking it costs more than comparing it)."""

    __slots__ = ("_valid", "_value")

    def __init__(self) -> None:
        self._value: str | None = None
        self._valid = False

    def announces(
        self, event: object, part: Any = None, message: MessageView | None = None
    ) -> bool:
        """Whether ``event`` announces a valid span: `announced_value` of its
        `raw_announcement` (same arguments) is not None."""
        value = raw_announcement(event, part, message)
        if value is None:
            return False
        if type(value) is not str:
            return _names_span(value) is not None  # no string: never valid, never remembered
        if value != self._value:
            self._value = value
            self._valid = _names_span(value) is not None
        return self._valid


def recorded(value: object) -> TypeGuard[str]:
    """Whether an announcement's ``value`` (see `raw_announcement`) names a valid span that the
    callee's sampler kept (the callee records the call): `announced_value`'s check without
    making the span context, which a caller that makes no span of the call rarely needs."""
    return _sampled_span(value) is not None


def raw_announcement(event: object, part: Any = None, message: MessageView | None = None) -> object:
    """The value the status update ``event`` (the one being read) announces, unchecked; None
    without one. ``part`` (its envelope Part, read without a view) or else ``message`` (its
    view) is where a 0.2.x callee announced it. A Task is never read (see `update_string`):
    a2a-sdk merges each update's metadata into the task's, so a resubscription's first event
    would announce the last call of any before it."""
    value: object = update_string(event, WIRE_TOOL_SPAN)
    if value is None:
        # a2a-progress 0.2.x callees wrote it beside the envelope, in the Part's metadata: read
        # there too, so a new caller still counts their calls once. It can go when 0.2.x
        # callees are no longer supported (the first release that drops 0.2.x wire compat).
        if part is not None:
            value = part_string(part, WIRE_TOOL_SPAN)
        elif message is not None:
            value = _beside_envelope(message)
    return value


def _beside_envelope(message: MessageView) -> object:
    for part in message.parts:  # the first Part carrying an envelope
        if part.envelope is not None:
            return None if part.metadata is None else part.metadata.get(WIRE_TOOL_SPAN)
    return None


def _valid_form(value: object) -> re.Match[str] | None:
    """An announcement's value read as a ``traceparent``: its trace id, span id and flags."""
    return _TRACEPARENT.fullmatch(value) if isinstance(value, str) else None


def _names_span(value: object) -> re.Match[str] | None:
    """`_valid_form` of ``value`` when its ids are not the invalid (all-zero) ones."""
    match = _valid_form(value)
    if match is None or match[1] == _ZERO_TRACE or match[2] == _ZERO_SPAN:
        return None
    return match


def _sampled_span(value: object) -> re.Match[str] | None:
    """`_names_span` of ``value`` when its flags say sampled (the span records)."""
    match = _names_span(value)
    return match if match is not None and int(match[3], 16) & 1 == 1 else None


def announced_value(value: object) -> SpanContext | None:
    """The span context of an announcement's value (a ``tfrs.span``), if valid."""
    match = _valid_form(value)
    if match is None:
        return None
    context = SpanContext(
        int(match[1], 16),
        int(match[2], 16),
        is_remote=True,
        trace_flags=TraceFlags(int(match[3], 16)),
    )
    return context if context.is_valid else None
