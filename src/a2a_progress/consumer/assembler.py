"""The caller side: turn a stream of A2A events into ordered, de-duplicated progress.

:class:`ProgressAssembler` applies the spec's consumer rules (rules 3, 4 and 8): it reads each
working update's envelope (degrading to the text fallback when there is none or it is unusable),
consumes every ``(stream, seq)`` once, flags late arrivals so views can insert them in ``seq``
order, tracks each tool call, and lets the terminal state close the turn. Its memory is bounded
by the number of live streams, never by the number of envelopes.

:func:`follow` wraps any event source — a ``send_message`` stream, a ``subscribe`` stream, or
:func:`poll_task`'s ``GetTask`` snapshots — and yields :class:`ProgressUpdate` and
:class:`TurnOutcome` values.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterable, Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from a2a.client import Client
from a2a.types.a2a_pb2 import (
    Artifact,
    GetTaskRequest,
    Message,
    Role,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatusUpdateEvent,
)

from a2a_progress.carrier import message_text, read_envelope, read_message
from a2a_progress.envelope import Envelope, Kind, Rejected, RejectReason, Status

TERMINAL_STATES: Final = frozenset(
    {
        TaskState.TASK_STATE_COMPLETED,
        TaskState.TASK_STATE_FAILED,
        TaskState.TASK_STATE_CANCELED,
        TaskState.TASK_STATE_REJECTED,
    }
)
"""States that end a task for good; the authority over every envelope (spec rule 8)."""

INTERRUPTED_STATES: Final = frozenset(
    {TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED}
)
"""States that end the current turn but not the task: the next send starts a new turn."""

# Protobuf enum attributes are looked up by Python code (~1 us each on a slow machine): the
# per-envelope path compares with a constant instead.
_WORKING: Final = TaskState.TASK_STATE_WORKING


class EndReason(StrEnum):
    """Why a tool call ended."""

    DONE = "done"
    ABORTED = "aborted"
    SUPERSEDED = "superseded"
    TURN_COMPLETED = "turn_completed"
    TURN_FAILED = "turn_failed"
    TURN_CANCELED = "turn_canceled"
    STREAM_CLOSED = "stream_closed"
    SHUTDOWN = "shutdown"


_TERMINAL_END_REASON: Final[dict[int, EndReason]] = {
    TaskState.TASK_STATE_COMPLETED: EndReason.TURN_COMPLETED,
    TaskState.TASK_STATE_FAILED: EndReason.TURN_FAILED,
    TaskState.TASK_STATE_REJECTED: EndReason.TURN_FAILED,
    TaskState.TASK_STATE_CANCELED: EndReason.TURN_CANCELED,
}


class Outcome(StrEnum):
    """What the assembler did with the last event it was fed (for metrics)."""

    ACCEPTED = "accepted"
    DUPLICATE = "duplicate"
    DEGRADED = "degraded"
    UNKNOWN_VERSION = "unknown_version"
    INVALID = "invalid"
    OVERSIZE = "oversize"
    STALE = "stale"
    AFTER_TERMINAL = "after_terminal"
    NONE = "none"


def outcome_of_rejection(rejected: Rejected) -> Outcome:
    """The metric outcome for an envelope that could not be used."""
    if rejected.reason is RejectReason.UNKNOWN_VERSION:
        return Outcome.UNKNOWN_VERSION
    if rejected.reason is RejectReason.OVERSIZE:
        return Outcome.OVERSIZE
    return Outcome.INVALID


class CallRecord:
    """One tool call as the caller sees it. Owned and updated by the assembler; read-only to you.

    ``key`` is the stream it runs on (``streamKey``, else ``tool_call_id``, else ``""``);
    ``index`` numbers the turn's calls from 0 in the order they were first seen.
    """

    __slots__ = (
        "end_reason",
        "first_seq",
        "index",
        "key",
        "last_seq",
        "status",
        "stream_key",
        "tool",
        "tool_call_id",
    )

    def __init__(self, envelope: Envelope, index: int) -> None:
        self.key = envelope.stream_id
        self.index = index
        self.tool = envelope.tool or ""
        self.tool_call_id = envelope.tool_call_id
        self.stream_key = envelope.stream_key
        self.status = Status.RUNNING
        self.first_seq = envelope.seq
        self.last_seq = envelope.seq
        self.end_reason: EndReason | None = None

    @property
    def is_open(self) -> bool:
        """Whether the call is still running."""
        return self.end_reason is None

    def _end(self, reason: EndReason) -> None:
        self.end_reason = reason
        done = reason is EndReason.DONE or reason is EndReason.TURN_COMPLETED
        self.status = Status.DONE if done else Status.ABORTED

    def __repr__(self) -> str:
        return (
            f"CallRecord(tool={self.tool!r}, key={self.key!r}, status={self.status.value}, "
            f"seq={self.first_seq}..{self.last_seq}, end_reason={self.end_reason})"
        )


@dataclass(frozen=True, slots=True)
class ProgressUpdate:
    """One piece of progress to render, in arrival order.

    ``degraded`` marks a working update with no usable envelope: ``envelope`` is then a pseudo
    ``text`` envelope built from the fallback (``seq`` 0), and ``rejected`` says why the real one
    was unusable (None when there was none). ``late`` marks an envelope that arrived after a
    higher ``seq`` of its stream: insert it by ``seq``. ``call`` is the tool call it belongs to;
    ``opened`` says this update started it and ``closed`` lists the calls it ended.
    """

    task_id: str
    context_id: str
    envelope: Envelope
    fallback: str
    degraded: bool = False
    rejected: Rejected | None = None
    late: bool = False
    call: CallRecord | None = None
    opened: bool = False
    closed: tuple[CallRecord, ...] = ()


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """How a turn ended, and its reply.

    ``terminal`` is true for COMPLETED / FAILED / CANCELED / REJECTED. A stream that ended
    without one gives ``terminal=False`` with the last state seen (``state`` is
    ``TASK_STATE_UNSPECIFIED`` when none was). ``closed`` lists the calls the end closed.
    """

    task_id: str
    context_id: str
    state: int
    terminal: bool
    reply: str
    message: Message | None
    artifacts: tuple[Artifact, ...]
    closed: tuple[CallRecord, ...] = ()

    @property
    def state_name(self) -> str:
        """The state's protobuf name, e.g. ``TASK_STATE_COMPLETED``."""
        return str(TaskState.Name(self.state))

    @property
    def succeeded(self) -> bool:
        """Whether the task completed."""
        return self.state == TaskState.TASK_STATE_COMPLETED


Update = ProgressUpdate | TurnOutcome

# The slot writers of ProgressUpdate, in field order (unpacking fails at import if a field is
# added). The frozen dataclass __init__ pays an object.__setattr__ per field, over half the cost
# of building an update; the assembler builds one per envelope, so it writes them directly.
(
    _set_task_id,
    _set_context_id,
    _set_envelope,
    _set_fallback,
    _set_degraded,
    _set_rejected,
    _set_late,
    _set_call,
    _set_opened,
    _set_closed,
) = (getattr(ProgressUpdate, name).__set__ for name in ProgressUpdate.__slots__)


def _accepted(
    turn: _Turn,
    envelope: Envelope,
    fallback: str,
    *,
    late: bool,
    call: CallRecord | None,
    opened: bool,
    closed: tuple[CallRecord, ...],
) -> ProgressUpdate:
    """``ProgressUpdate(task_id, context_id, envelope, fallback, late=..., ...)``, faster."""
    update = object.__new__(ProgressUpdate)
    _set_task_id(update, turn.task_id)
    _set_context_id(update, turn.context_id)
    _set_envelope(update, envelope)
    _set_fallback(update, fallback)
    _set_degraded(update, False)
    _set_rejected(update, None)
    _set_late(update, late)
    _set_call(update, call)
    _set_opened(update, opened)
    _set_closed(update, closed)
    return update


class _SeqWindow:
    """The seqs of one stream seen so far, as a bitmap below the highest: O(1) memory."""

    __slots__ = ("bits", "top")

    def __init__(self, seq: int) -> None:
        self.top = seq
        self.bits = 1

    def add(self, seq: int, width: int, mask: int) -> Outcome | None:
        """Record ``seq``; None if new and in order, ACCEPTED if new but late, else why not.

        ``mask`` is ``(1 << width) - 1``, computed once by the caller (a ``width``-bit int).
        """
        top = self.top
        if seq > top:
            shift = seq - top
            self.bits = 1 if shift >= width else ((self.bits << shift) | 1) & mask
            self.top = seq
            return None
        distance = top - seq
        if distance >= width:
            return Outcome.STALE
        bit = 1 << distance
        if self.bits & bit:
            return Outcome.DUPLICATE
        self.bits |= bit
        return Outcome.ACCEPTED


class _BoundedSet:
    """The most recent ``size`` keys (message ids of degraded updates)."""

    __slots__ = ("_keys", "_size")

    def __init__(self, size: int) -> None:
        self._keys: dict[str, None] = {}
        self._size = size

    def add(self, key: str) -> bool:
        """Add ``key``; False when it was already there."""
        if key in self._keys:
            return False
        self._keys[key] = None
        if len(self._keys) > self._size:
            del self._keys[next(iter(self._keys))]
        return True


class _Turn:
    __slots__ = (
        "artifacts",
        "calls",
        "context_id",
        "message_ids",
        "n_calls",
        "state",
        "streams",
        "task_id",
    )

    def __init__(self, task_id: str, context_id: str) -> None:
        self.task_id = task_id
        self.context_id = context_id
        self.state: int = TaskState.TASK_STATE_UNSPECIFIED
        self.streams: dict[str, _SeqWindow] = {}
        self.calls: dict[str, CallRecord] = {}
        self.message_ids = _BoundedSet(1024)
        self.artifacts: dict[str, Artifact] = {}
        self.n_calls = 0

    def open_calls(self) -> list[CallRecord]:
        return [call for call in self.calls.values() if call.is_open]

    def end_open_calls(self, reason: EndReason) -> tuple[CallRecord, ...]:
        closed = tuple(self.open_calls())
        for call in closed:
            call._end(reason)
        return closed


def _current_turn(history: Sequence[Message]) -> Sequence[Message]:
    """The messages of the task's current turn: those after its latest user message.

    What comes before it is an earlier turn (one that ended INPUT_REQUIRED), whose seqs the
    current turn starts over: replayed, they would pass for this turn's and hide its own.
    """
    for index in range(len(history) - 1, -1, -1):
        if history[index].role == Role.ROLE_USER:
            return history[index + 1 :]
    return history


class ProgressAssembler:
    """Per-turn progress state for any number of concurrent turns, keyed by task id.

    Args:
        reorder_window: how many seqs below a stream's highest can still arrive late; older
            ones are dropped as stale (their slot can no longer be told from a duplicate).
        max_streams: streams kept per turn; past it the oldest stream is forgotten (its open
            call ends ``stream_closed``, in the ``closed`` of the update that pushed it out).
        max_turns: live turns kept; past it the oldest is closed ``stream_closed`` (its
            :class:`TurnOutcome` comes first in what the :meth:`feed` that pushed it out
            returns).
        finished_memory: how many ended task ids are remembered so that late envelopes for them
            change nothing.

        on_discard: called with the reason (duplicate, stale, after_terminal) each time an
            envelope or plain update is consumed without producing an update, e.g. for metrics.

    ``last_outcome`` tells what the latest :meth:`feed` did (accepted, duplicate, degraded, ...).
    """

    def __init__(
        self,
        *,
        reorder_window: int = 1024,
        max_streams: int = 16384,
        max_turns: int = 10000,
        finished_memory: int = 4096,
        on_discard: Callable[[Outcome], None] | None = None,
    ) -> None:
        self._on_discard = on_discard
        self._window = reorder_window
        self._window_mask = (1 << reorder_window) - 1
        self._max_streams = max_streams
        self._max_turns = max_turns
        self._turns: dict[str, _Turn] = {}
        self._finished = _BoundedSet(finished_memory)
        self._evicted: list[TurnOutcome] = []
        self.last_outcome = Outcome.NONE

    @property
    def live_turns(self) -> int:
        """How many turns are open."""
        return len(self._turns)

    def open_calls(self, task_id: str) -> list[CallRecord]:
        """The tool calls of ``task_id`` that are still running."""
        turn = self._turns.get(task_id)
        return [] if turn is None else turn.open_calls()

    def feed(
        self,
        event: StreamResponse | TaskStatusUpdateEvent | Task | Message | TaskArtifactUpdateEvent,
    ) -> list[Update]:
        """Apply one event; return the updates it produces (often one, possibly none)."""
        updates = self._apply(event)
        if self._evicted:
            updates[:0] = self._evicted
            self._evicted = []
        return updates

    def _apply(
        self,
        event: StreamResponse | TaskStatusUpdateEvent | Task | Message | TaskArtifactUpdateEvent,
    ) -> list[Update]:
        self.last_outcome = Outcome.NONE
        # Status updates first: they are almost every event of a stream.
        if isinstance(event, TaskStatusUpdateEvent):
            status = event.status
            return self._status(
                event.task_id,
                event.context_id,
                status.state,
                status.message if status.HasField("message") else None,
            )
        if isinstance(event, StreamResponse):
            which = event.WhichOneof("payload")
            if which is None:
                return []
            inner: TaskStatusUpdateEvent | Task | Message | TaskArtifactUpdateEvent
            inner = getattr(event, which)
            return self._apply(inner)
        if isinstance(event, Task):
            return self._snapshot(event)
        if isinstance(event, TaskArtifactUpdateEvent):
            self._artifact(event)
            return []
        return self._direct_message(event)

    def close(self, reason: EndReason = EndReason.STREAM_CLOSED) -> list[TurnOutcome]:
        """End every live turn (the stream ended, or shutdown): open calls end with ``reason``."""
        return self._close_turns(self._turns.keys(), reason)

    def _close_turns(self, task_ids: Iterable[str], reason: EndReason) -> list[TurnOutcome]:
        """End the live turns among ``task_ids``, oldest first."""
        wanted = set(task_ids)
        return [
            self._end_turn(turn, reason, None, terminal=False)
            for task_id, turn in list(self._turns.items())
            if task_id in wanted
        ]

    # -- event kinds -------------------------------------------------------------------------

    def _discard(self, outcome: Outcome) -> None:
        self.last_outcome = outcome
        if self._on_discard is not None:
            self._on_discard(outcome)

    def _turn(self, task_id: str, context_id: str) -> _Turn | None:
        turn = self._turns.get(task_id)
        if turn is not None:
            return turn
        if task_id in self._finished._keys:
            self._discard(Outcome.AFTER_TERMINAL)
            return None
        turn = self._turns[task_id] = _Turn(task_id, context_id)
        if len(self._turns) > self._max_turns:
            oldest = next(iter(self._turns.values()))
            outcome = self._end_turn(oldest, EndReason.STREAM_CLOSED, None, terminal=False)
            self._evicted.append(outcome)
        return turn

    def _status(
        self, task_id: str, context_id: str, state: int, message: Message | None
    ) -> list[Update]:
        turn = self._turns.get(task_id) or self._turn(task_id, context_id)
        if turn is None:
            return []
        turn.state = state
        if state == _WORKING:  # almost every event; WORKING is neither terminal nor interrupted
            update = None if message is None else self._progress(turn, message)
            return [] if update is None else [update]
        if state in TERMINAL_STATES or state in INTERRUPTED_STATES:
            reason = _TERMINAL_END_REASON.get(state, EndReason.STREAM_CLOSED)
            return [self._end_turn(turn, reason, message, terminal=state in TERMINAL_STATES)]
        return []

    def _snapshot(self, task: Task) -> list[Update]:
        turn = self._turn(task.id, task.context_id)
        if turn is None:
            return []
        current = task.status.message if task.status.HasField("message") else None
        current_id = current.message_id if current is not None else None
        updates: list[Update] = []
        for message in _current_turn(task.history):
            if message.role == Role.ROLE_AGENT and message.message_id != current_id:
                update = self._progress(turn, message)
                if update is not None:
                    updates.append(update)
        for artifact in task.artifacts:
            # A copy, as for artifact events: appends extend it, never the caller's Task.
            copy = Artifact()
            copy.CopyFrom(artifact)
            turn.artifacts[artifact.artifact_id] = copy
        updates += self._status(task.id, task.context_id, task.status.state, current)
        return updates

    def _artifact(self, event: TaskArtifactUpdateEvent) -> None:
        turn = self._turn(event.task_id, event.context_id)
        if turn is None:
            return
        known = turn.artifacts.get(event.artifact.artifact_id)
        if event.append and known is not None:
            parts = list(event.artifact.parts)
            # A streamed chunk continues the text before it ("Hel" + "lo"), it is no new line.
            if (
                parts
                and known.parts
                and parts[0].HasField("text")
                and known.parts[-1].HasField("text")
            ):
                known.parts[-1].text += parts.pop(0).text
            known.parts.extend(parts)
        else:
            copy = Artifact()
            copy.CopyFrom(event.artifact)
            turn.artifacts[event.artifact.artifact_id] = copy

    def _direct_message(self, message: Message) -> list[Update]:
        # A Message answer (no task) is the whole reply: the turn completed with it.
        task_id = message.task_id or f"message:{message.message_id}"
        turn = self._turn(task_id, message.context_id)
        if turn is None:
            return []
        return [
            self._end_turn(
                turn,
                EndReason.TURN_COMPLETED,
                message,
                terminal=True,
                state=TaskState.TASK_STATE_COMPLETED,
            )
        ]

    def _end_turn(
        self,
        turn: _Turn,
        reason: EndReason,
        message: Message | None,
        *,
        terminal: bool,
        state: int | None = None,
    ) -> TurnOutcome:
        del self._turns[turn.task_id]
        if terminal:
            self._finished.add(turn.task_id)
        artifacts = tuple(turn.artifacts.values())
        reply = message_text(message) if message is not None else ""
        if not reply:
            reply = "\n".join(
                part.text
                for artifact in artifacts
                for part in artifact.parts
                if part.HasField("text")
            )
        return TurnOutcome(
            task_id=turn.task_id,
            context_id=turn.context_id,
            state=turn.state if state is None else state,
            terminal=terminal,
            reply=reply,
            message=message,
            artifacts=artifacts,
            closed=turn.end_open_calls(reason),
        )

    # -- progress ----------------------------------------------------------------------------

    def _progress(self, turn: _Turn, message: Message) -> ProgressUpdate | None:
        parts = message.parts
        if len(parts) == 1:
            # The norm (spec rule 2): one Part, the fallback beside the envelope. Read both from
            # it at once: each pass over the parts builds protobuf wrappers again.
            part = parts[0]
            found = read_envelope(part)
            text = part.text if part.HasField("text") else ""
        else:
            found, text = read_message(message), message_text(message)
        if isinstance(found, Envelope):
            return self._envelope(turn, found, text)
        if message.message_id and not turn.message_ids.add(message.message_id):
            self._discard(Outcome.DUPLICATE)
            return None
        if found is None and not text:
            return None
        self.last_outcome = Outcome.DEGRADED
        pseudo = Envelope._validated(Kind.TEXT, 0, {"text": text}, Status.RUNNING, None)
        return ProgressUpdate(
            turn.task_id, turn.context_id, pseudo, text, degraded=True, rejected=found
        )

    def _envelope(self, turn: _Turn, envelope: Envelope, fallback: str) -> ProgressUpdate | None:
        key = envelope.stream_id
        window = turn.streams.get(key)
        late = False
        forgotten: tuple[CallRecord, ...] = ()
        if window is None:
            turn.streams[key] = _SeqWindow(envelope.seq)
            if len(turn.streams) > self._max_streams:
                forgotten = self._forget_oldest_stream(turn)
        else:
            verdict = window.add(envelope.seq, self._window, self._window_mask)
            if verdict is Outcome.DUPLICATE or verdict is Outcome.STALE:
                self._discard(verdict)
                return None
            late = verdict is Outcome.ACCEPTED
        self.last_outcome = Outcome.ACCEPTED
        call, opened, closed = self._track_call(turn, envelope, key)
        if forgotten:
            closed = forgotten + closed
        return _accepted(
            turn, envelope, fallback, late=late, call=call, opened=opened, closed=closed
        )

    def _track_call(
        self, turn: _Turn, envelope: Envelope, key: str
    ) -> tuple[CallRecord | None, bool, tuple[CallRecord, ...]]:
        call = turn.calls.get(key)
        seq, kind, status = envelope.seq, envelope.kind, envelope.status
        # Runs once per envelope: end_reason is tested directly (what is_open does).
        if status is Status.RUNNING:
            if kind is not Kind.TOOL_CALL:
                if call is not None and call.end_reason is None:
                    call.last_seq = max(call.last_seq, seq)
                    return call, False, ()
                return None, False, ()
            if call is not None and call.end_reason is None:
                if seq <= call.first_seq:
                    # The start of the open call arriving late (or a stale restart): no new call.
                    call.first_seq = seq
                    return call, False, ()
                call._end(EndReason.SUPERSEDED)
                return self._new_call(turn, envelope), True, (call,)
            if call is not None and seq <= call.last_seq:
                return call, False, ()  # the late start of a call that already ended
            return self._new_call(turn, envelope), True, ()
        reason = EndReason.DONE if status is Status.DONE else EndReason.ABORTED
        if call is not None and call.end_reason is None and seq >= call.first_seq:
            call.last_seq = max(call.last_seq, seq)
            call._end(reason)
            return call, False, (call,)
        if call is not None and seq <= call.last_seq:
            return call, False, ()
        if kind is not Kind.TOOL_CALL and kind is not Kind.TOOL_OUTPUT_APPEND:
            return None, False, ()
        # The end arrived before its start: still exactly one call, opened and ended at once.
        call = self._new_call(turn, envelope)
        call._end(reason)
        return call, True, (call,)

    def _new_call(self, turn: _Turn, envelope: Envelope) -> CallRecord:
        call = CallRecord(envelope, turn.n_calls)
        turn.n_calls += 1
        turn.calls[call.key] = call
        return call

    def _forget_oldest_stream(self, turn: _Turn) -> tuple[CallRecord, ...]:
        """Forget the oldest stream; return its call if this ended it."""
        key = next(iter(turn.streams))
        del turn.streams[key]
        call = turn.calls.pop(key, None)
        if call is not None and call.is_open:
            call._end(EndReason.STREAM_CLOSED)
            return (call,)
        return ()


async def follow(
    events: AsyncIterable[StreamResponse | Task],
    *,
    assembler: ProgressAssembler | None = None,
) -> AsyncGenerator[Update, None]:
    """Yield progress and the outcome of a client call, for any event source.

    ``events`` is ``client.send_message(...)``, ``client.subscribe(...)`` or
    :func:`poll_task`. If the source ends with no terminal state, a final
    :class:`TurnOutcome` with ``terminal=False`` closes the open calls ``stream_closed``.
    Errors from the source propagate.
    """
    assembler = assembler or ProgressAssembler()
    # Only the turns of this source are closed at its end: a shared assembler may be following
    # other sources' turns, which go on.
    task_ids: set[str] = set()
    stream = _as_generator(events)
    async with contextlib.aclosing(stream):
        async for event in stream:
            task_ids.add(_task_id(event))
            for update in assembler.feed(event):
                yield update
    for outcome in assembler._close_turns(task_ids, EndReason.STREAM_CLOSED):
        yield outcome


def _task_id(
    event: StreamResponse | TaskStatusUpdateEvent | Task | Message | TaskArtifactUpdateEvent,
) -> str:
    if isinstance(event, StreamResponse):
        which = event.WhichOneof("payload")
        if which is None:
            return ""
        event = getattr(event, which)
    return event.id if isinstance(event, Task) else event.task_id


async def _as_generator(
    events: AsyncIterable[StreamResponse | Task],
) -> AsyncGenerator[StreamResponse | Task, None]:
    iterator = aiter(events)
    try:
        async for event in iterator:
            yield event
    finally:
        close = getattr(iterator, "aclose", None)
        if close is not None:
            await close()


async def poll_task(
    client: Client,
    task_id: str,
    *,
    interval: float = 1.0,
    history_length: int | None = None,
) -> AsyncGenerator[Task, None]:
    """Yield ``GetTask`` snapshots every ``interval`` seconds until the turn ends.

    The coarse replay channel of spec E6: progress comes from ``Task.history``, truncated by
    ``history_length``. Feed it to :func:`follow`.
    """
    request = GetTaskRequest(id=task_id)
    if history_length is not None:
        request.history_length = history_length
    while True:
        task = await client.get_task(request)
        yield task
        if task.status.state in TERMINAL_STATES or task.status.state in INTERRUPTED_STATES:
            return
        await asyncio.sleep(interval)
