"""A turn nobody records: only its metrics, counted exactly as a recorded turn counts them.

When the sampler drops a turn (its span is not recording, nor is the span it starts under),
`Bridge.start_turn` gives a `CountingTurn` instead of a `TurnTelemetry`. It runs the same
consumer rules (`ProgressAssembler`, so ordering, duplicates and degradation are exactly the
spec's) for what metrics need: envelope counts by outcome and kind, and each tool call's
duration on the side that counts it. It makes no tool span, span event, content, redaction of
texts or text fallback. The callee still announces where its tool calls run (the turn's own,
unsampled, span context), so that the caller does not count a call a second time: a caller that
only counts records no duration of an announced call, and one that records its turn makes its
span of that unsampled call a mirror, which has no duration metric (docs/reference/conventions.md,
"Mirrors").
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Final

from opentelemetry.trace import Span, SpanContext

from a2a_progress.consumer import (
    CallRecord,
    EndReason,
    Outcome,
    ProgressAssembler,
    TurnOutcome,
    Update,
)
from a2a_progress.consumer.outcomes import DISCARDS
from a2a_progress.envelope import Envelope, decode_fields, envelope_fields
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.announce import Announcements
from a2a_progress.otel.errors import error_type, is_cancellation
from a2a_progress.otel.metrics import TurnCounts
from a2a_progress.otel.tool_span import ended_call
from a2a_progress.producer.handoff import offered
from a2a_progress.redaction import DEFAULT_REDACTOR
from a2a_progress.sdk.adapter import (
    A2AEvent,
    view_event,
    working_envelope,
)
from a2a_progress.sdk.views import EventView, TaskState, state_name

if TYPE_CHECKING:
    from a2a_progress.otel.bridge import Bridge
    from a2a_progress.otel.invoke_agent import InvokeAgent

__all__ = ["CountingTurn"]

_DUPLICATE: Final = Outcome.DUPLICATE.value
_WORKING: Final = int(TaskState.WORKING)
_FAILED_STATES: Final = frozenset({TaskState.FAILED, TaskState.REJECTED})


class CountingTurn:
    """The metrics of one turn the sampler dropped (see the module); `TurnTelemetry`'s
    interface: ``feed`` each event, ``end`` once.

    Args:
        bridge: metrics and settings.
        observer: ``"caller"`` or ``"callee"``.
        span: the call or execution span, not recording; ended in `end`.
        attributes: the span's start attributes (the agent's name labels the tool durations).
    """

    __slots__ = (
        "__weakref__",
        "_announced",
        "_assembler",
        "_bridge",
        "_callee",
        "_context",
        "_counts",
        "_ended",
        "_fed",
        "_metrics",
        "_observer",
        "_own_texts",
        "_part",
        "_state",
        "_timed",
        "_view",
        "agent_name",
        "announcement",
        "invoke_agent",
        "span",
    )

    def __init__(
        self,
        bridge: Bridge,
        observer: str,
        span: Span,
        attributes: dict[str, Any] | None = None,
    ) -> None:
        self._bridge = bridge
        self._metrics = bridge.metrics
        self._observer = observer
        self._callee = callee = observer == conv.OBSERVER_CALLEE
        self._counts = TurnCounts(bridge.metrics, observer)
        self.span = span
        # What the callee announces for each tool call: the turn's own (unsampled) context.
        self._context = span.get_span_context()
        # Dialects are read on the caller only (see TurnTelemetry); accepted envelopes are
        # handed over as their effects (on_accepted), never made ProgressUpdates.
        self._assembler = ProgressAssembler(
            on_outcome=self._count_outcome,
            dialects="none" if callee else None,
            on_accepted=self._accepted,
        )
        # The event being fed (caller): where the callee announced the tool call it opens.
        self._fed: object = None
        self._announced = Announcements()
        self._part: Any = None
        self._view: EventView | None = None
        # The calls whose duration this side records, by id: (tool name, start).
        self._timed: dict[int, tuple[str, float]] = {}
        self._state: int | None = None
        self._ended = False
        self._own_texts = callee and bridge.config.redactor is DEFAULT_REDACTOR
        self.announcement: SpanContext | None = None
        self.invoke_agent: InvokeAgent | None = None
        self.agent_name: str | None = (attributes or {}).get(conv.GEN_AI_AGENT_NAME)
        bridge.track(self)

    @property
    def state(self) -> int | None:
        """The last task state seen, if any."""
        return self._state

    def feed(self, event: A2AEvent) -> None:
        """Observe one event of the turn. Never raises."""
        if self._ended:
            return
        try:
            # The caller's update, whose context id is read only if the rules need it (a turn's
            # first update); the callee's emitter hands the id over.
            update: Any = None
            if self._callee:
                # The callee's own emitter hands over the envelope of the WORKING update it
                # enqueues, and its ids (handed_envelope(), inlined: once per update the agent
                # enqueues): nothing of the event needs reading.
                offer = offered()
                if not offer:
                    self._ends(self._read(event, None))
                    return
                envelope, _, task_id, context_id = offer.pop()
                fields = envelope_fields(envelope)
            else:
                # The envelope's fields alone: no Envelope is made for an update counted here.
                read = working_envelope(event, decode_fields)
                if read is None:
                    self._fed = event
                    self._ends(self._read(event, None))
                    return
                task_id, update, fields, self._part = read
                self._fed = update  # the bare update: where the callee announces the call
                context_id = ""
            self._state = _WORKING
            # Most updates: counted here, without the general path's hooks (on_accepted).
            tracked = self._assembler.count_working(task_id, fields)
            if tracked is None:
                if update is not None:  # the caller's, read as fields (a turn's first, repeats)
                    context_id = update.context_id
                    envelope = Envelope(*fields)  # valid: decoded
                self._ends(self._assembler.feed_working(task_id, context_id, None, envelope, ""))
                return
            call, opened, closed = tracked
            # _accepted(), inlined: once per update.
            counts = self._counts
            counts.kinds[fields[0]._value_] += 1
            counts.pending += 1
            if counts.pending >= counts.flush_every:
                counts.flush()
            if opened and call is not None:
                self._open(call)
            if closed and self._timed:
                self._close(closed, failed=False)
        except Exception:  # noqa: BLE001 - the bridge must never break the agent
            self._bridge.warn_once("feed")

    def _ends(self, updates: list[Update]) -> None:
        """Record the durations of the calls that ``updates``' turn outcomes closed."""
        for update in updates:
            if type(update) is TurnOutcome:
                self._close(update.closed, failed=False)

    def _read(self, event: A2AEvent, envelope: Envelope | None) -> list[Update]:
        """Any other event, read into a view."""
        self._part = None
        view = self._view = view_event(event)
        updates = self._assembler.feed_view(view, envelope)
        if view.state:
            self._state = view.state
        return updates

    def end(
        self,
        *,
        error: BaseException | None = None,
        reason: EndReason = EndReason.STREAM_CLOSED,
    ) -> None:
        """End the turn: the durations of calls still open, the counts. Runs once; never
        raises. ``error`` and ``reason`` as `TurnTelemetry.end`'s."""
        if self._ended:
            return
        self._ended = True
        self._bridge.untrack(self)
        if is_cancellation(error):
            error = None
        failure: tuple[str, str] | None = None
        try:
            for outcome in self._assembler.close(reason):
                self._close(outcome.closed, failed=error is not None)
            self._counts.flush()
            # Nothing records why it failed: only the invoke_agent metric reads its kind.
            if error is not None:
                failure = (error_type(error), "")
            elif self._state in _FAILED_STATES:
                state = state_name(self._state or 0)
                failure = (state, state)
        except Exception:  # noqa: BLE001
            self._bridge.warn_once("end")
        finally:
            self.span.end()
            if self.invoke_agent is not None:
                try:
                    self.invoke_agent.end(failure, None)
                except Exception:  # noqa: BLE001
                    self._bridge.warn_once("invoke_agent end")

    def _count_outcome(self, outcome: Outcome) -> None:
        # As TurnTelemetry counts them: stale and after-terminal envelopes are repeats too.
        self._counts.outcome(_DUPLICATE if outcome in DISCARDS else outcome._value_)

    def _accepted(
        self,
        envelope: Envelope,
        call: CallRecord | None,
        opened: bool,
        closed: tuple[CallRecord, ...],
    ) -> None:
        """An accepted envelope and what it did to the turn's calls (on_accepted; `feed`
        inlines it for the updates it counts itself)."""
        counts = self._counts  # counted in place, as TurnCounts says
        counts.kinds[envelope.kind._value_] += 1
        counts.pending += 1
        if counts.pending >= counts.flush_every:
            counts.flush()
        if opened and call is not None:
            self._open(call)
        if closed and self._timed:  # most calls are the callee's to time (announced)
            self._close(closed, failed=False)

    def _open(self, call: CallRecord) -> None:
        """A tool call opened: timed, unless the callee announced it (its side counts it)."""
        if self._callee:
            self.announcement = self._context
        elif self._part is not None:  # the event being fed, read without a view
            if self._announced.announces(self._fed, self._part):
                return
        elif self._view is not None and self._announced.announces(
            self._fed, message=self._view.message
        ):
            return
        tool = self._bridge.names.name(call.tool, own=self._own_texts) if call.tool else "unknown"
        self._timed[id(call)] = (tool, time.monotonic())

    def _close(self, calls: tuple[CallRecord, ...], *, failed: bool) -> None:
        """The durations of the timed calls among ``calls``, which the assembler has closed."""
        for call in calls:
            timed = self._timed.pop(id(call), None)
            if timed is None:
                continue
            reason, error = ended_call(call, failed=failed)
            self._metrics.record_duration(
                time.monotonic() - timed[1],
                tool=timed[0],
                observer=self._observer,
                end_reason=reason,
                error_type=reason if error else None,
                agent=self.agent_name,
            )
