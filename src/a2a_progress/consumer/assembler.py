"""The caller side's core: turn a stream of A2A events into ordered, de-duplicated progress.

`ProgressAssembler` applies the protocol's consumer rules: it reads each working update's
envelope (degrading to the text fallback when there is none or it is unusable),
consumes every ``(stream, seq)`` once, flags late arrivals so views can insert them in ``seq``
order, tracks each tool call, and lets the terminal state close the turn. Its memory is bounded
by the number of live streams, never by the number of envelopes. The rules for one working
update's progress are its base class's (`a2a_progress.consumer.rules`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from a2a_progress.consumer.errors import error_text
from a2a_progress.consumer.outcomes import (
    FAILED_STATES,
    INTERRUPTED_STATES,
    REJECTIONS,
    TERMINAL_END_REASONS,
    TERMINAL_STATES,
    EndReason,
    Outcome,
    OutcomeHook,
    outcome_hook,
)
from a2a_progress.consumer.rules import AcceptedHook, ProgressRules
from a2a_progress.consumer.seq_window import RecentKeys
from a2a_progress.consumer.tool_calls import CallRecord, Tracked, records_time
from a2a_progress.consumer.turn import Turn, current_turn_messages
from a2a_progress.consumer.updates import TurnOutcome, Update
from a2a_progress.dialects import (
    resolve_dialects,
)
from a2a_progress.envelope import Envelope, EnvelopeFields
from a2a_progress.sdk.views import (
    EventKind,
    EventView,
    MessageView,
    Role,
    TaskState,
)

# Enum members are looked up by Python code (~0.2 us each on a slow machine): the per-envelope
# path compares with a constant instead.
_WORKING: Final = int(TaskState.WORKING)
_AGENT: Final = int(Role.AGENT)
_STATUS_UPDATE: Final = EventKind.STATUS_UPDATE
_ACCEPTED: Final = Outcome.ACCEPTED
_NONE: Final = Outcome.NONE


def _view_event(event: Any) -> EventView:
    """The seam's ``view_event``, imported on first use: the rules here need no a2a-sdk."""
    global _view_event  # noqa: PLW0603 - replaced by the seam's own function once imported
    from a2a_progress.sdk.adapter import view_event

    _view_event = view_event
    return view_event(event)


def _working_progress(event: Any) -> tuple[str, str, Any, Envelope, str] | None:
    """The seam's ``working_progress``, imported on first use (as `_view_event`)."""
    global _working_progress  # noqa: PLW0603 - replaced by the seam's own function once imported
    from a2a_progress.sdk.adapter import working_progress

    _working_progress = working_progress
    return working_progress(event)


def _status_time(status: Any) -> float | None:
    """The seam's ``status_time``, imported on first use (as `_view_event`)."""
    global _status_time  # noqa: PLW0603 - replaced by the seam's own function once imported
    from a2a_progress.sdk.adapter import status_time

    _status_time = status_time
    return status_time(status)


class ProgressAssembler(ProgressRules):
    """Per-turn progress state for any number of concurrent turns, keyed by task id.

    Args:
        reorder_window: how many seqs below a stream's highest can still arrive late; older
            ones are dropped as stale (their slot can no longer be told from a duplicate).
        max_streams: streams kept per turn; past it the oldest stream is forgotten (its open
            call ends ``stream_closed``, in the ``closed`` of the update that pushed it out).
        max_turns: live turns kept; past it the oldest is closed ``stream_closed`` (its
            `TurnOutcome` comes first in what the `feed` that pushed it out
            returns).
        finished_memory: how many ended task ids are remembered so that late envelopes for them
            change nothing.
        on_outcome: called once with the `Outcome` of every update consumed — accepted,
            degraded (``unknown_version`` / ``invalid`` / ``oversize`` when an envelope was
            there but unusable), or discarded (duplicate, stale, after_terminal) — e.g. for
            metrics. The one place outcomes are reported.
        on_discard: the same reports, discards only.
        dialects: which dialects to read working updates that carry no envelope in (e.g.
            ``"adk,gemini-cli"``, ``"none"``; see `a2a_progress.dialects`); default: the
            ``A2A_PROGRESS_DIALECTS`` environment variable, else all. An update that carries an
            envelope is never read as a dialect.
        on_accepted: for a consumer that only counts (the OpenTelemetry bridge, for a turn
            nobody records): each accepted envelope is handed to it as ``(envelope, call,
            opened, closed)``, the fields its `ProgressUpdate` would have, instead of
            becoming one in what `feed` returns; neither that update nor its text
            fallback is made, and ``on_outcome`` is not called for it (``last_outcome`` still
            reads ``accepted``). Everything else (other outcomes, degraded updates, turn
            outcomes) is unchanged.

    ``last_outcome`` is the latest outcome reported in the latest `feed` (any degraded
    update reads ``degraded``); ``last_event`` the `a2a_progress.sdk.views.EventView` of
    the latest event fed: its task id, context id and state, read from the wire once.

    Examples:
        Feed it every event of a call as it arrives (`follow` does that for a client call),
        or a task snapshot: a finished task's history is replayed.

        >>> from a2a.types import Message, Role, Task, TaskState, TaskStatus
        >>> from a2a_progress import Envelope, Kind, encode, envelope_part
        >>> def said(seq, text):  # a working update's message: the envelope beside its fallback
        ...     part = envelope_part(encode(Envelope(Kind.TEXT, seq, {"text": text})), text)
        ...     return Message(message_id=f"m{seq}", role=Role.ROLE_AGENT, parts=[part])
        >>> history = [said(1, "Checking CI"), said(2, "CI is red")]
        >>> done = TaskStatus(state=TaskState.TASK_STATE_COMPLETED)
        >>> task = Task(id="task-1", context_id="ctx-1", history=history, status=done)
        >>> *progress, outcome = ProgressAssembler().feed(task)
        >>> [update.envelope.payload["text"] for update in progress]
        ['Checking CI', 'CI is red']
        >>> outcome.state_label, outcome.replayed
        ('completed', True)
    """

    def __init__(
        self,
        *,
        reorder_window: int = 1024,
        max_streams: int = 16384,
        max_turns: int = 10000,
        finished_memory: int = 4096,
        on_outcome: OutcomeHook | None = None,
        on_discard: OutcomeHook | None = None,
        dialects: str | Iterable[str] | None = None,
        on_accepted: AcceptedHook | None = None,
    ) -> None:
        super().__init__(
            reorder_window=reorder_window,
            max_streams=max_streams,
            on_outcome=outcome_hook(on_outcome, on_discard),
            dialects=resolve_dialects(dialects),
            on_accepted=on_accepted,
        )
        self._max_turns = max_turns
        self._turns: dict[str, Turn] = {}
        self._finished = RecentKeys(finished_memory)
        self._evicted: list[TurnOutcome] = []

    @property
    def last_outcome(self) -> Outcome:
        """What the latest `feed` did (accepted, duplicate, degraded, ..., or none)."""
        return Outcome.DEGRADED if self._last in REJECTIONS else self._last

    @property
    def last_event(self) -> EventView | None:
        """The view of the latest event fed (its task id, context id, state), None before any."""
        event = self._last_event
        if event is None or type(event) is EventView:
            return event
        view: EventView = _view_event(event)
        self._last_event = view
        return view

    @property
    def dialects(self) -> frozenset[str]:
        """The dialects this assembler reads."""
        return self._dialects

    @property
    def live_turns(self) -> int:
        """How many turns are open."""
        return len(self._turns)

    def open_calls(self, task_id: str) -> list[CallRecord]:
        """The tool calls of ``task_id`` that are still running."""
        turn = self._turns.get(task_id)
        return [] if turn is None else turn.calls.open_calls()

    def feed(self, event: Any, *, envelope: Envelope | None = None) -> list[Update]:
        """Apply one event of the installed a2a-sdk; return the updates it produces (often one,
        possibly none).

        ``event`` is any member of the A2A event union, wrapped in a stream response or bare.
        ``envelope``: the envelope the lone Part of a status update's message carries, already
        read (the callee's bridge gets it from the emitter that built the event). It wins over
        the one read from the event for that Part; ignored for other events and for messages
        of several Parts.
        """
        if envelope is None and (read := _working_progress(event)) is not None:
            # Most events of a stream: a WORKING update whose lone Part carries a usable
            # envelope, read without its view (built only if `last_event` is asked for).
            self._last_event = event
            self._last = _NONE
            task_id, context_id, status, found, text = read
            turn = self._turns.get(task_id)
            if turn is not None and not turn.awaiting_start:
                # The norm, _working() inlined: a live turn past its first update (no turn is
                # made, none evicted). The agent's time is read only when the tool calls may
                # record it: most envelopes continue a call.
                turn.state = _WORKING
                at = _status_time(status) if records_time(found) else None
                update = self._envelope(turn, found, text, at, False, None)
                return [] if update is None else [update]
            turn = turn or self._turn(task_id, context_id)
            return self._working(turn, None if turn is None else _status_time(status), found, text)
        return self.feed_view(_view_event(event), envelope)  # positional: a faster call

    def feed_view(self, view: EventView, envelope: Envelope | None = None) -> list[Update]:
        """`feed` of an event already read by the seam (``a2a_progress.sdk``)."""
        self._last_event = view
        self._last = _NONE
        if view[0] is _STATUS_UPDATE:  # view.kind; almost every event of a stream
            updates = self._status(view, envelope)
        elif view.kind is EventKind.TASK:
            updates = self._snapshot(view)
        elif view.kind is EventKind.ARTIFACT_UPDATE:
            updates = self._artifact(view)
        elif view.message is not None:
            updates = self._direct_message(view)
        else:
            updates = []
        if self._evicted:
            updates[:0] = self._evicted
            self._evicted = []
        return updates

    def feed_working(
        self,
        task_id: str,
        context_id: str,
        at: float | None,
        envelope: Envelope,
        fallback: str,
    ) -> list[Update]:
        """`feed` of a WORKING status update whose message is one Part carrying
        ``envelope`` beside the text ``fallback``, without reading them from the event again.

        For whoever built that event a moment earlier (the callee's OpenTelemetry bridge gets
        the envelope and fallback from the emitter that enqueued it): same rules, outcomes and
        updates as `feed`; `last_event` becomes None (there is no view).
        """
        self._last_event = None
        self._last = _NONE
        turn = self._turns.get(task_id) or self._turn(task_id, context_id)
        return self._working(turn, at, envelope, fallback)

    def count_working(self, task_id: str, fields: EnvelopeFields) -> Tracked | None:
        """`feed_working` of the norm, for a consumer that only counts: what the accepted
        envelope of these ``fields`` (`decode_fields`' reading; no `Envelope` is needed) did
        to its turn's tool calls, ``(call, opened, closed)`` (a `Tracked`), else None.

        The norm is an envelope of a live turn past its first update that is new or late on
        its stream (not a repeat): it is consumed here, and neither ``on_outcome`` nor
        ``on_accepted`` is told of it (``last_outcome`` reads ``accepted``). None means
        nothing was consumed or changed (a turn's first update, a repeat, a turn that has
        ended): `feed_working` applies the rules to it with the same result as if it had been
        fed there alone.
        """
        turn = self._turns.get(task_id)
        if turn is None or turn.awaiting_start:
            return None
        # _envelope() without the update: the same window, then the same tracking (no time
        # read: counting times calls with its own clock).
        kind, seq, payload, status, key = fields
        stream_key = key
        if not key:  # envelope.stream_id, inlined: half of all envelopes carry no streamKey
            key = payload.get("tool_call_id")
            if not key or not isinstance(key, str):
                key = ""
        window = turn.streams.get(key)
        forgotten: tuple[CallRecord, ...] = ()
        if window is None:
            forgotten = turn.open_stream(key, seq, self._max_streams)
        else:  # the norm: a stream seen before
            top = window.top
            if seq > top:  # window.add()'s norm, inlined (a call per envelope): its next seq
                shift = seq - top
                width = self._window
                bits = 1 if shift >= width else ((window.bits << shift) | 1) & self._window_mask
                window.bits = bits
                window.top = seq
            elif window.add(seq, self._window, self._window_mask) is not _ACCEPTED:
                return None  # a repeat: changed nothing
        turn.state = _WORKING
        self._last_event = None
        self._last = _ACCEPTED
        tracked = turn.calls.track(kind, seq, status, stream_key, payload, key, None, False, None)
        if forgotten:
            return tracked[0], tracked[1], forgotten + tracked[2]
        return tracked

    def close(
        self, reason: EndReason = EndReason.STREAM_CLOSED, *, task_ids: Iterable[str] | None = None
    ) -> list[TurnOutcome]:
        """End the live turns (the stream ended, or shutdown): open calls end with ``reason``.

        ``task_ids`` limits it to those turns (a source's own, when the assembler is shared);
        oldest first.
        """
        if task_ids is None:
            turns = list(self._turns.values())
        else:
            wanted = set(task_ids)
            turns = [turn for task_id, turn in self._turns.items() if task_id in wanted]
        return [self._end_turn(turn, reason, None, terminal=False) for turn in turns]

    def _working(
        self, turn: Turn | None, at: float | None, envelope: Envelope, fallback: str
    ) -> list[Update]:
        """A WORKING update of ``turn`` (None: it has ended) of one Part carrying ``envelope``:
        the rules of `_status` for it."""
        updates: list[Update] = []
        if turn is not None:
            turn.state = _WORKING
            if turn.awaiting_start:
                turn.note_time(at, last_chance=True)
            update = self._envelope(turn, envelope, fallback, at, False, None)
            if update is not None:
                updates.append(update)
        if self._evicted:
            updates[:0] = self._evicted
            self._evicted = []
        return updates

    # -- outcomes and turns ------------------------------------------------------------------

    def _turn(self, task_id: str, context_id: str) -> Turn | None:
        turn = self._turns.get(task_id)
        if turn is not None:
            return turn
        if task_id in self._finished:
            self._report(Outcome.AFTER_TERMINAL)
            return None
        turn = self._turns[task_id] = Turn(task_id, context_id)
        if len(self._turns) > self._max_turns:
            oldest = next(iter(self._turns.values()))
            self._evicted.append(
                self._end_turn(oldest, EndReason.STREAM_CLOSED, None, terminal=False)
            )
        return turn

    def _end_turn(
        self,
        turn: Turn,
        reason: EndReason,
        message: MessageView | None,
        *,
        terminal: bool,
        state: int | None = None,
        at: float | None = None,
    ) -> TurnOutcome:
        del self._turns[turn.task_id]
        if terminal:
            self._finished.add(turn.task_id)
        state = turn.state if state is None else state
        reply = turn.reply.reply(message, progress=self._progress_part)
        return TurnOutcome(
            task_id=turn.task_id,
            context_id=turn.context_id,
            state=state,
            terminal=terminal,
            reply=reply,
            message=message,
            artifacts=turn.reply.artifacts,
            closed=turn.calls.end_open(reason, at),
            replayed=turn.replayed,
            started_at=turn.started_at,
            ended_at=at,
            error=error_text(reply) if reply and state in FAILED_STATES else None,
        )

    # -- event kinds -------------------------------------------------------------------------

    def _status(self, view: EventView, handed: Envelope | None = None) -> list[Update]:
        # task_id, context_id, state, message, time: one slice instead of five attribute reads
        # (this runs for almost every event). The slice is an exact tuple, whose unpacking is
        # specialised; the view's own (a NamedTuple) would go through a generic iterator.
        task_id, context_id, state, message, at = view[1:6]
        turn = self._turns.get(task_id) or self._turn(task_id, context_id)
        if turn is None or state is None:  # a status view always has a state
            return []
        turn.state = state
        if state == _WORKING:  # almost every event; WORKING is neither terminal nor interrupted
            if turn.awaiting_start:
                turn.note_time(at, last_chance=True)
            if message is None:
                return []
            parts = message.parts
            if handed is None and len(parts) == 1 and type(found := parts[0].envelope) is Envelope:
                # The norm, _progress() inlined: one Part, its envelope usable (and its text the
                # fallback, which only the update made without on_accepted carries).
                text = "" if self._on_accepted is not None else parts[0].text or ""
                update = self._envelope(turn, found, text, at, False, None)
                return [] if update is None else [update]
            return self._progress(turn, message, at, False, handed)
        if state in TERMINAL_STATES or state in INTERRUPTED_STATES:
            reason = TERMINAL_END_REASONS.get(state, EndReason.STREAM_CLOSED)
            return [
                self._end_turn(
                    turn,
                    reason,
                    message,
                    terminal=state in TERMINAL_STATES,
                    at=at,
                )
            ]
        if turn.awaiting_start:
            turn.note_time(at, last_chance=False)
        return []

    def _snapshot(self, view: EventView) -> list[Update]:
        new = view.task_id not in self._turns
        turn = self._turn(view.task_id, view.context_id)
        if turn is None:
            return []
        current_id = view.message.message_id if view.message is not None else None
        replay = [
            message
            for message in current_turn_messages(view.history)
            if message.role == _AGENT and message.message_id != current_id
        ]
        if new:
            ended = view.state in TERMINAL_STATES or view.state in INTERRUPTED_STATES
            if ended or replay:
                # First seen after its start: that start lies in history, which has no times.
                turn.seen_part_way(ended=ended)
        updates: list[Update] = []
        for message in replay:
            updates += self._progress(turn, message, None, True)
        for artifact in view.artifacts:
            turn.reply.put(artifact)
            # An artifact already seen as an update is not read as a dialect a second time.
            if self._dialects and turn.message_ids.add(f"artifact:{artifact.artifact_id}"):
                updates += self._artifact_dialect(turn, artifact, (), replayed=True)
        updates += self._status(view)
        return updates

    def _artifact(self, view: EventView) -> list[Update]:
        turn = self._turn(view.task_id, view.context_id)
        artifact = view.artifact
        if turn is None or artifact is None:
            return []
        turn.reply.add(artifact, append=view.append)
        if not self._dialects:
            return []
        turn.message_ids.add(f"artifact:{artifact.artifact_id}")
        metadata = () if view.metadata is None else (view.metadata,)
        return self._artifact_dialect(turn, artifact, metadata, replayed=False)

    def _direct_message(self, view: EventView) -> list[Update]:
        # A Message answer (no task) is the whole reply: the turn completed with it.
        message = view.message
        assert message is not None  # a MESSAGE view always carries it
        task_id = view.task_id or f"message:{message.message_id}"
        turn = self._turn(task_id, view.context_id)
        if turn is None:
            return []
        outcome = self._end_turn(
            turn,
            EndReason.TURN_COMPLETED,
            message,
            terminal=True,
            state=TaskState.COMPLETED,
        )
        return [outcome]
