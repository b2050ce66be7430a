"""The tool-call state machine of one turn: which envelope opens, continues or ends which call.

Each call is keyed by its stream (``streamKey``, else ``tool_call_id``, else ``""``). A ``running``
``tool_call`` opens one; ``done`` / ``aborted`` end it; a new ``running`` on a key whose call is
still open supersedes it. Envelopes can arrive late or out of order, so an end before its start
still gives exactly one call, and a late start changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from a2a_progress.consumer.outcomes import EndReason
from a2a_progress.envelope import Envelope, Kind, Status

# Enum members read as module constants: on Python 3.11 ``Kind.TOOL_CALL`` costs ~0.2 us (the
# enum metaclass's lookup), and track() reads several for every envelope.
_RUNNING: Final = Status.RUNNING
_STATUS_DONE: Final = Status.DONE
_STATUS_ABORTED: Final = Status.ABORTED
_TOOL_CALL: Final = Kind.TOOL_CALL
_TOOL_OUTPUT_APPEND: Final = Kind.TOOL_OUTPUT_APPEND
_DONE: Final = EndReason.DONE
_TURN_COMPLETED: Final = EndReason.TURN_COMPLETED
_ABORTED: Final = EndReason.ABORTED
_SUPERSEDED: Final = EndReason.SUPERSEDED

Tracked = tuple["CallRecord | None", bool, tuple["CallRecord", ...]]
"""What one envelope did to its turn's tool calls, ``(call, opened, closed)``: the
`CallRecord` it opened, continued or ended (None when it touched no call), whether it opened
that call, and the calls it ended (its own, one it superseded, ones forgotten to make room).
`ProgressAssembler.count_working` returns it; the same three are a `ProgressUpdate`'s
``call``, ``opened`` and ``closed``."""


def elapsed(started_at: float | None, ended_at: float | None) -> float | None:
    """``ended_at - started_at``; None when either is unknown or the end is before the start
    (an agent clock that went back says nothing true about how long it took)."""
    if started_at is None or ended_at is None or ended_at < started_at:
        return None
    return ended_at - started_at


def records_time(envelope: Envelope) -> bool:
    """Whether `ToolCalls.track` records when ``envelope`` was sent: it may open or end a call
    (a ``tool_call``, or a status other than ``running``); other envelopes continue one."""
    return envelope.status is not _RUNNING or envelope.kind is _TOOL_CALL


class CallRecord:
    """One tool call as the caller sees it. Owned and updated by the assembler; read-only to you.

    ``key`` is the stream it runs on (``streamKey``, else ``tool_call_id``, else ``""``);
    ``index`` numbers the turn's calls from 0 in the order they were first seen.
    ``started_at`` / ``ended_at`` are the times the agent recorded (``TaskStatus.timestamp``,
    POSIX seconds) for the updates that opened and ended the call, None when unknown: a call
    replayed from ``Task.history`` has no start time (a2a-sdk keeps none for history messages).
    ``replayed`` says the call was opened by such a replayed update; ``dialect`` names the
    dialect that reported it (None for the progress envelope).

    Examples:
        Read from `ProgressUpdate.call` and ``closed``, and `TurnOutcome.closed`:

        >>> from a2a_progress import Envelope, Kind
        >>> running = Envelope(Kind.TOOL_CALL, 7, {"tool": "search"}, stream_key="call-1")
        >>> call = CallRecord(running, 0, started_at=100.0)
        >>> call.tool, call.key, call.is_open, call.duration
        ('search', 'call-1', True, None)
    """

    __slots__ = (
        "dialect",
        "end_reason",
        "ended_at",
        "first_seq",
        "index",
        "key",
        "last_seq",
        "replayed",
        "started_at",
        "status",
        "stream_key",
        "tool",
        "tool_call_id",
    )

    key: str
    index: int
    tool: str
    tool_call_id: str | None
    stream_key: str | None
    status: Status
    first_seq: int
    last_seq: int
    end_reason: EndReason | None
    started_at: float | None
    ended_at: float | None
    replayed: bool
    dialect: str | None

    def __init__(
        self,
        envelope: Envelope,
        index: int,
        started_at: float | None = None,
        replayed: bool = False,
        dialect: str | None = None,
    ) -> None:
        _start(
            self,
            envelope.stream_key,
            envelope.seq,
            envelope.payload,
            index,
            started_at,
            replayed,
            dialect,
        )

    @property
    def is_open(self) -> bool:
        """Whether the call is still running."""
        return self.end_reason is None

    @property
    def duration(self) -> float | None:
        """Seconds from start to end as the agent recorded them; None when either is unknown."""
        return elapsed(self.started_at, self.ended_at)

    def _end(self, reason: EndReason, at: float | None) -> None:
        self.end_reason = reason
        self.ended_at = at
        done = reason is _DONE or reason is _TURN_COMPLETED
        self.status = _STATUS_DONE if done else _STATUS_ABORTED

    def __repr__(self) -> str:
        return (
            f"CallRecord(tool={self.tool!r}, key={self.key!r}, status={self.status.value}, "
            f"seq={self.first_seq}..{self.last_seq}, end_reason={self.end_reason})"
        )


def _start(  # noqa: PLR0917 - once per call opened: positional is cheaper
    call: CallRecord,
    stream_key: str | None,
    seq: int,
    payload: Mapping[str, Any],
    index: int,
    started_at: float | None,
    replayed: bool,
    dialect: str | None,
) -> None:
    """Fill a new ``call`` from the fields of the envelope that opened it."""
    # envelope.tool_call_id, .stream_id and .tool, inlined (a property call each).
    tool_call_id = payload.get("tool_call_id")
    if not tool_call_id or not isinstance(tool_call_id, str):
        tool_call_id = None
    call.key = stream_key or tool_call_id or ""
    call.index = index
    tool = payload.get("tool")
    call.tool = tool if tool and isinstance(tool, str) else ""
    call.tool_call_id = tool_call_id
    call.stream_key = stream_key
    call.status = _RUNNING
    call.first_seq = seq
    call.last_seq = seq
    call.end_reason = None
    call.started_at = started_at
    call.ended_at = None
    call.replayed = replayed
    call.dialect = dialect


class ToolCalls:
    """The calls of one turn, by stream key, and the rules that open and end them."""

    __slots__ = ("_by_key", "_count")

    def __init__(self) -> None:
        self._by_key: dict[str, CallRecord] = {}
        self._count = 0

    def __len__(self) -> int:
        """How many calls are remembered (open or ended, at most one per live stream)."""
        return len(self._by_key)

    def open_calls(self) -> list[CallRecord]:
        """The calls still running, in the order they were first seen."""
        return [call for call in self._by_key.values() if call.is_open]

    def end_open(self, reason: EndReason, at: float | None = None) -> tuple[CallRecord, ...]:
        """End every call still running with ``reason`` (the turn or stream ended at ``at``)."""
        closed = tuple(self.open_calls())
        for call in closed:
            call._end(reason, at)
        return closed

    def forget(self, key: str) -> tuple[CallRecord, ...]:
        """Forget the call of stream ``key``; return it if this ended it (``stream_closed``)."""
        call = self._by_key.pop(key, None)
        if call is not None and call.is_open:
            call._end(EndReason.STREAM_CLOSED, None)
            return (call,)
        return ()

    def track(  # noqa: PLR0917 - once per envelope: positional is cheaper
        self,
        kind: Kind,
        seq: int,
        status: Status,
        stream_key: str | None,
        payload: Mapping[str, Any],
        key: str,
        at: float | None,
        replayed: bool,
        dialect: str | None,
    ) -> Tracked:
        """Apply an accepted envelope (its fields: a reader that only counts makes no
        `Envelope`) of stream ``key``, its status recorded ``at`` (POSIX seconds; None: unknown,
        or replayed). ``at`` is recorded only for the envelopes `records_time` names: the
        assembler reads the time of no other."""
        # Runs once per envelope: end_reason is tested directly (what is_open does).
        call = self._by_key.get(key)
        if status is not _RUNNING:
            # A ``done`` / ``aborted`` envelope: it ends the open call of its stream; arriving
            # before that call's start, it still makes exactly one call, opened and ended at once.
            reason = _DONE if status is _STATUS_DONE else _ABORTED
            if call is not None and call.end_reason is None and seq >= call.first_seq:
                if seq > call.last_seq:  # noqa: PLR1730 - max() parses its arguments per call
                    call.last_seq = seq
                call._end(reason, at)
                return call, False, (call,)
            if call is not None and seq <= call.last_seq:
                return call, False, ()
            if kind is not _TOOL_CALL and kind is not _TOOL_OUTPUT_APPEND:
                return None, False, ()
            # When a call whose end came first started is unknown.
            call = self._new(stream_key, seq, payload, None, replayed, dialect)
            call._end(reason, at)
            return call, True, (call,)
        # A ``running`` envelope (most of them): a tool_call opens a call (superseding an open
        # one); any other kind continues the open call of its stream, if there is one.
        if kind is not _TOOL_CALL:
            if call is not None and call.end_reason is None:
                if seq > call.last_seq:  # noqa: PLR1730 - as above: once per envelope
                    call.last_seq = seq
                return call, False, ()
            return None, False, ()
        if call is not None and call.end_reason is None:
            if seq <= call.first_seq:
                # The start of the open call arriving late (or a stale restart): no new call.
                call.first_seq = seq
                return call, False, ()
            call._end(_SUPERSEDED, at)
            return self._new(stream_key, seq, payload, at, replayed, dialect), True, (call,)
        if call is not None and seq <= call.last_seq:
            return call, False, ()  # the late start of a call that already ended
        return self._new(stream_key, seq, payload, at, replayed, dialect), True, ()

    def _new(  # noqa: PLR0917 - positional, as track's
        self,
        stream_key: str | None,
        seq: int,
        payload: Mapping[str, Any],
        at: float | None,
        replayed: bool,
        dialect: str | None,
    ) -> CallRecord:
        call = CallRecord.__new__(CallRecord)
        _start(call, stream_key, seq, payload, self._count, at, replayed, dialect)
        self._count += 1
        self._by_key[call.key] = call
        return call
