"""One observed turn's A2A events become spans, span events and metrics.

A `TurnTelemetry` is given the span of the call (caller) or of the execution (callee), is
fed every A2A event of that turn, and runs them through the protocol's own consumer
(`ProgressAssembler`), so ordering, duplicates and degradation are
exactly the spec's. Each tool call becomes an ``execute_tool`` span under the turn span (see
`ToolCalls`); thinking, text, errors and output become span events. It knows nothing of HTTP,
gRPC or how it is hooked in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from opentelemetry.trace import Span, SpanContext

from a2a_progress.consumer import (
    CallRecord,
    EndReason,
    Outcome,
    ProgressAssembler,
    TurnOutcome,
    Update,
    error_text,
)
from a2a_progress.consumer.outcomes import DISCARDS
from a2a_progress.envelope import Envelope, Kind, envelope_fields, utf8_size
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.announce import raw_announcement, records_turn
from a2a_progress.otel.content import PART_REASONING, PART_TEXT
from a2a_progress.otel.errors import (
    error_type,
    fail,
    is_cancellation,
    record_exception,
)
from a2a_progress.otel.invoke_agent import InvokeAgent
from a2a_progress.otel.metrics import TurnCounts
from a2a_progress.otel.tool_calls import ToolCalls
from a2a_progress.otel.tool_span import INT64_MAX, INT64_MIN, AnnouncedCall, EventBuffer, ToolSpan
from a2a_progress.otel.turn_content import Stream, TurnContent
from a2a_progress.producer.handoff import offered
from a2a_progress.redaction import DEFAULT_REDACTOR
from a2a_progress.sdk.adapter import (
    A2AEvent,
    view_event,
    working_envelope,
)
from a2a_progress.sdk.views import EventKind, EventView, TaskState, state_name

if TYPE_CHECKING:
    from a2a_progress.otel.bridge import Bridge

_EVENT_NAMES: Final = {
    Kind.THINKING: conv.EVENT_THINKING,
    Kind.TEXT: conv.EVENT_TEXT,
    Kind.ERROR: conv.EVENT_ERROR,
    Kind.TOOL_OUTPUT_APPEND: conv.EVENT_OUTPUT,
}

# What a turn's text becomes in gen_ai.output.messages (opt-in content).
_OUTPUT_PARTS: Final = {Kind.THINKING: PART_REASONING, Kind.TEXT: PART_TEXT}

_FAILED_STATES: Final = frozenset({TaskState.FAILED, TaskState.REJECTED})

_DUPLICATE: Final = Outcome.DUPLICATE.value
_WORKING: Final = int(TaskState.WORKING)
_TOOL_CALL: Final = Kind.TOOL_CALL
_TEXT: Final = Kind.TEXT
_THINKING: Final = Kind.THINKING
_OUTPUT_APPEND: Final = Kind.TOOL_OUTPUT_APPEND
_SEQ: Final = conv.SEQ
_STREAM_KEY: Final = conv.STREAM_KEY
_CONTENT_SIZE: Final = conv.CONTENT_SIZE
# Distinct peer names kept per turn (a turn has a few dozen; the cap bounds a hostile peer).
_NAME_CACHE_SIZE: Final = 1024


class TurnTelemetry:
    """Spans for one observed turn (one A2A call on the caller, one ``execute()`` on the callee).

    Args:
        bridge: tracer, metrics and settings.
        observer: ``"caller"`` or ``"callee"``.
        span: the call or execution span; the turn owns it and ends it in `end`.
        attributes: the span's start attributes; the ids and agent name among them label the
            turn's tool spans and metrics from the start.
    """

    def __init__(
        self,
        bridge: Bridge,
        observer: str,
        span: Span,
        attributes: dict[str, Any] | None = None,
    ) -> None:
        known = attributes or {}
        self._bridge = bridge
        self._config = bridge.config
        self._observer = observer
        self._counts = TurnCounts(bridge.metrics, observer)
        self._span = span
        # A turn the sampler dropped (span not recording) makes no span events, content or tool
        # spans (see ToolCalls); its metrics are still counted.
        self._recording = span.is_recording()
        self._span_events = EventBuffer(span, self._config.max_events_per_span)
        # Dialects are read on the caller only: on the callee, the agent's framework (ADK) traces
        # its own tools, and spans read back from its updates would double each of them. The
        # assembler hands over each accepted envelope's effects (on_accepted) without making a
        # ProgressUpdate of it: what feed() returns is degraded updates and turn outcomes.
        self._assembler = ProgressAssembler(
            on_outcome=self._count_outcome,
            dialects=None if observer == conv.OBSERVER_CALLER else "none",
            on_accepted=self._accepted,
        )
        # Bound once: once per update.
        self._feed_working = self._assembler.feed_working
        self._count_working = self._assembler.count_working
        # The event being fed (caller): a status update may announce the callee's span (a 0.2.x
        # callee's: in its view's message, or, read without a view, its envelope Part).
        self._fed: object = None
        self._view: EventView | None = None
        self._part: Any = None
        self._opened: list[ToolSpan] | None = None
        # The callee's tool span just opened, for the caller (see announce.py); the callee's
        # queue takes it (and sets None) as it passes the update on.
        self.announcement: SpanContext | None = None
        # The opt-in invoke_agent span around a caller's turn: it ends with the turn.
        self.invoke_agent: InvokeAgent | None = None
        # Ids known up front (the callee's request context) label tool spans from the start.
        self._task_id: str | None = known.get(conv.A2A_TASK_ID)
        self._context_id: str | None = known.get(conv.GEN_AI_CONVERSATION_ID)
        self._state: int | None = None
        self._failure: str | None = None  # why a FAILED / REJECTED status said it failed
        self._ended = False
        # The callee's texts may come from this process's own emitter (see TurnContent.put).
        self._callee = observer == conv.OBSERVER_CALLEE
        self._capture_content = self._config.capture_content
        self._own_texts = self._callee and self._config.redactor is DEFAULT_REDACTOR
        # A caller reads in the first status update it sees whether the callee announces its
        # turn span, recorded in this trace (see announce.py): that span carries the turn's
        # thinking and text, which this one then leaves out (mirror_spans keeps them).
        self._read_turn = not self._callee and self._recording and not self._config.mirror_spans
        self._turn_elsewhere = False
        # Redaction of the turn's texts, and its opt-in content for GenAI backends.
        self._text = TurnContent(self._config, self._counts, own_texts=self._own_texts)
        # Peer names (stream keys, tools, ids) sanitized once per turn, not once per event;
        # those found clean once per bridge (see PeerNames).
        self._names: dict[str, str] = {}
        self._calls = calls = ToolCalls(
            bridge,
            observer,
            bridge.tracer_for(observer),
            span,
            self._names,
            self._name,
            known.get(conv.GEN_AI_AGENT_NAME),
        )
        calls.task_id, calls.context_id = self._task_id, self._context_id
        # Its spans by call, read here too: an event goes on its tool's span.
        self._tools = calls.spans
        bridge.track(self)

    @property
    def span(self) -> Span:
        """The call or execution span."""
        return self._span

    @property
    def state(self) -> int | None:
        """The last task state seen, if any."""
        return self._state

    def feed(self, event: A2AEvent) -> list[ToolSpan] | None:
        """Observe one event of the turn; the tool spans it opened, if any. Never raises."""
        if self._ended:
            return None
        self._opened = None
        self._fed = event
        try:
            # The callee's own emitter hands over the envelope of the update it is enqueuing.
            # handed_envelope(), inlined: once per update the agent enqueues.
            offer = offered() if self._callee else None
            status_update: Any = None
            if offer:
                # Its WORKING update, with the envelope and the ids the emitter built it from
                # (what counting.py trusts too): nothing of the event needs reading.
                envelope, fallback, task_id, context_id = offer.pop()
            else:
                # Most events: a WORKING update whose one Part carries an envelope. The rules
                # need no more of it; its Part is read again only if it opens a tool call, its
                # context id only if the turn lacks it or the norm's shortcut declines.
                read = working_envelope(event)
                if read is None:
                    self._view_fed(event)
                    return self._opened
                task_id, status_update, envelope, self._part = read
                fallback = context_id = ""
                if self._read_turn:
                    self._read_turn = False
                    self._turn_elsewhere = records_turn(event, self._trace_id())
            if self._task_id is None or self._context_id is None:
                if status_update is not None:
                    context_id = status_update.context_id
                self._note_ids(task_id, context_id)
            self._state = _WORKING
            # The norm (a live turn's new envelope) is consumed with the rules' shortcut, and
            # its effects handed here as on_accepted would: one call, no list of updates.
            # Its fields, as count_working takes them (a counted caller turn makes no Envelope).
            tracked = self._count_working(task_id, envelope_fields(envelope))
            if tracked is not None:
                call, opened, closed = tracked  # unpacked: a call with *args costs a tuple
                self._accepted(envelope, call, opened, closed)
                return self._opened
            if status_update is not None:
                context_id = status_update.context_id
            # No time: tool calls are timed on the bridge's clock; no agent time kept is read.
            self._updates(self._feed_working(task_id, context_id, None, envelope, fallback))
        except Exception:  # noqa: BLE001 - the bridge must never break the agent
            self._bridge.warn_once("feed")
        return self._opened

    def _view_fed(self, event: A2AEvent) -> None:
        """`feed` of an event other than a WORKING update of one envelope Part: read whole."""
        self._part = None
        view = self._view = view_event(event)
        if self._read_turn and view.kind is EventKind.STATUS_UPDATE:
            self._read_turn = False
            self._turn_elsewhere = records_turn(event, self._trace_id())
        # Before feeding: the tool spans it opens are labelled with the ids.
        if self._task_id is None or self._context_id is None:
            self._note_ids(view.task_id, view.context_id)
        self._updates(self._assembler.feed_view(view))
        if view.state:
            self._state = view.state

    def _updates(self, updates: list[Update]) -> None:
        """What the assembler gave back: turn outcomes, degraded updates (accepted envelopes
        went to `_accepted`)."""
        for update in updates:
            if isinstance(update, TurnOutcome):
                self._outcome(update)
            elif self._recording:  # a degraded update
                self._event(conv.EVENT_TEXT, {conv.DEGRADED: True}, update.fallback)

    def end(
        self,
        *,
        error: BaseException | None = None,
        reason: EndReason = EndReason.STREAM_CLOSED,
    ) -> None:
        """End the turn: close open tool spans, then the turn span. Runs once; never raises.

        Args:
            error: the exception that ended the call or execution; it makes the turn span and
                the tool spans it closes ERROR.
            reason: the end reason of tool calls still open (``turn_failed`` and
                ``turn_canceled`` are errors by themselves).
        """
        if self._ended:
            return
        self._ended = True
        self._bridge.untrack(self)
        if is_cancellation(error):
            error = None  # the caller stopped, or the task was canceled: no failure
        failure: tuple[str, str] | None = None  # error.type, status description
        messages: str | None = None
        try:
            for outcome in self._assembler.close(reason):
                self._outcome(outcome, failed=error is not None)
            self._span_events.flush()
            self._counts.flush()
            if self._state is not None:
                self._span.set_attribute(conv.A2A_TASK_STATE, state_name(self._state))
            if self._capture_content and self._recording:
                messages = self._text.messages(self._state)
                if messages is not None:
                    self._span.set_attribute(conv.GEN_AI_OUTPUT_MESSAGES, messages)
            if error is not None and not self._described():
                failure = (error_type(error), "")  # only the invoke_agent metric reads it
            elif error is not None:
                message = self._text.safe_text(str(error))[0]
                record_exception(self._span, error, message)
                why = error_text(error, self._config.redactor)  # what the agent said, if a2a's
                failure = (error_type(error), f"{type(error).__name__}: {why}")
            elif self._state in _FAILED_STATES:
                state = state_name(self._state or 0)
                failure = (state, self._failure or state)
            if failure is not None:
                fail(self._span, *failure)
        except Exception:  # noqa: BLE001
            self._bridge.warn_once("end")
        finally:
            # Tool spans still open (none, unless closing them failed above) end before the turn.
            self._calls.end_open()
            self._span.end()
            if self.invoke_agent is not None:
                try:
                    self.invoke_agent.end(failure, messages)
                except Exception:  # noqa: BLE001
                    self._bridge.warn_once("invoke_agent end")

    def _outcome(self, outcome: TurnOutcome, *, failed: bool = False) -> None:
        """The turn ended (or its stream did): close its calls, keep its reply's text."""
        self._calls.close(outcome.closed, failed=failed)
        if outcome.error is not None and self._described():  # the FAILED status's words
            self._failure = error_text(outcome.reply, self._config.redactor)
        if self._capture_content and self._recording and outcome.reply:
            self._text.reply = self._text.safe_text(outcome.reply)[0]

    def _trace_id(self) -> int:
        return self._span.get_span_context().trace_id

    def _described(self) -> bool:
        """Whether a span records why the turn failed (its own, or an invoke_agent one kept)."""
        invoke = self.invoke_agent
        return self._recording or (invoke is not None and invoke.span.is_recording())

    # -- turn-level bookkeeping ----------------------------------------------------------------

    def _name(self, text: str) -> str:
        """`peer_name` of ``text``, once per turn: a stream's key comes with every event."""
        name = self._names.get(text)
        if name is None:
            if len(self._names) >= _NAME_CACHE_SIZE:
                self._names.clear()
            name = self._names[text] = self._bridge.names.name(text, own=self._own_texts)
        return name

    def _note_ids(self, task_id: str, context_id: str) -> None:
        """Label the turn with the ids of the event just fed, the first time it has them."""
        ids: dict[str, Any] = {}
        calls = self._calls
        if task_id and self._task_id is None:
            self._task_id = calls.task_id = ids[conv.A2A_TASK_ID] = self._name(task_id)
        if context_id and self._context_id is None:
            name = self._name(context_id)
            self._context_id = calls.context_id = ids[conv.GEN_AI_CONVERSATION_ID] = name
        if ids:
            self._span.set_attributes(ids)  # one call, one lock, for both

    def _count_outcome(self, outcome: Outcome) -> None:
        # Never ACCEPTED: an accepted envelope goes to _accepted() alone (on_accepted), which
        # counts it with its kind. Stale and after-terminal envelopes are repeats too, as far
        # as an operator can tell.
        self._counts.outcome(_DUPLICATE if outcome in DISCARDS else outcome._value_)

    # -- progress ------------------------------------------------------------------------------

    def _accepted(
        self,
        envelope: Envelope,
        call: CallRecord | None,
        opened: bool,
        closed: tuple[CallRecord, ...],
    ) -> None:
        """An accepted envelope and what it did to the turn's calls (on_accepted)."""
        kind = envelope.kind
        # Counted in place, as TurnCounts says (and _value_, not the enum's .value property).
        counts = self._counts
        counts.kinds[kind._value_] += 1
        counts.pending += 1
        if counts.pending >= counts.flush_every:
            counts.flush()
        # Calls closed by this envelope other than its own (rare: most close only their own,
        # after its event below), without a comprehension's frame for the common case.
        if closed and (len(closed) > 1 or closed[0] is not call):
            self._calls.close([other for other in closed if other is not call])
        if opened and call is not None:
            self._open_tool(call)
        if kind is not _TOOL_CALL and self._recording:
            tool = self._tools.get(id(call)) if call is not None else None
            # An event, unless it is one of a call the callee records (its span has it), or a
            # thinking or text event of the turn's span that the callee's turn span (announced)
            # carries; with content, _event() leaves that out but keeps its text for
            # gen_ai.output.messages.
            if (
                type(tool) is not AnnouncedCall
                if tool is not None
                else (
                    not self._turn_elsewhere
                    or (kind is not _THINKING and kind is not _TEXT)
                    or self._capture_content
                )
            ):
                attributes: dict[str, Any] = {}
                seq = envelope.seq
                if INT64_MIN <= seq <= INT64_MAX:  # an OTLP integer is int64: exporters drop more
                    attributes[_SEQ] = seq
                stream_key = envelope.stream_key
                if stream_key is not None:
                    # _name(), its hit inlined: every event of a stream has its key.
                    attributes[_STREAM_KEY] = self._names.get(stream_key) or self._name(stream_key)
                text = envelope.content or ""
                if self._capture_content:
                    stream = (kind, stream_key)
                    self._event(_EVENT_NAMES[kind], attributes, text, stream, kind, call)
                else:
                    # _event() without content, inlined (and EventBuffer.add's room for it):
                    # once per recorded update.
                    attributes[_CONTENT_SIZE] = len(text) if text.isascii() else utf8_size(text)
                    events = self._span_events if tool is None else tool
                    if events.head_room > 0:
                        events.head_room -= 1
                        events.span.add_event(_EVENT_NAMES[kind], attributes)
                    else:
                        events.add(_EVENT_NAMES[kind], attributes)
        if call is not None and call in closed:
            reason_text = envelope.payload.get("reason")
            detail = reason_text if isinstance(reason_text, str) else None
            self._calls.close((call,), detail=detail)

    def _event(  # noqa: PLR0917 - once per recorded update: positional is cheaper
        self,
        name: str,
        attributes: dict[str, Any],
        text: str,
        stream: Stream | None = None,
        kind: Kind = _TEXT,
        call: CallRecord | None = None,
    ) -> None:
        """A span event ``name`` of ``text`` (an envelope's content of ``kind`` on ``stream``,
        of ``call``; or a degraded update's fallback), on its tool's span or the turn's."""
        tool = self._tools.get(id(call)) if call is not None else None
        if type(tool) is AnnouncedCall:
            return  # on the callee's span of the call (content off never calls this)
        attributes[conv.CONTENT_SIZE] = utf8_size(text)
        if self._capture_content:
            content = self._text.put(attributes, text, stream)
            if tool is not None:
                if tool.result is not None and (kind is _TEXT or kind is _OUTPUT_APPEND):
                    tool.result.add(PART_TEXT, content)
            elif kind in _OUTPUT_PARTS:
                self._text.output.add(_OUTPUT_PARTS[kind], content)
                if stream is not None and self._turn_elsewhere:
                    return  # a thinking or text event of the callee's turn span (announced)
        (tool if tool is not None else self._span_events).add(name, attributes)

    # -- tool calls ----------------------------------------------------------------------------

    def _open_tool(self, call: CallRecord) -> None:
        """``call`` opened: its span (see `ToolCalls`); the callee announces where it is."""
        # What the event being fed announces of the call (a 0.2.x callee's: in its view's
        # message, or, read without a view, its envelope Part). The callee's own span is the
        # execution: it mirrors nothing.
        if self._callee:
            announced = None
        elif self._part is not None:
            announced = raw_announcement(self._fed, self._part)
        elif self._view is not None:
            announced = raw_announcement(self._fed, message=self._view.message)
        else:
            announced = None
        tool = self._calls.open(call, announced)
        if tool is None:
            return
        if self._callee:
            # For the caller (see announce.py); the callee's queue takes it as it passes the
            # update on. Unsampled: the turn's own context, which its calls share.
            self.announcement = tool.span.get_span_context()
        if self._recording:  # opened here: the callee makes it current while the tool runs
            if self._opened is None:
                self._opened = [tool]
            else:
                self._opened.append(tool)
