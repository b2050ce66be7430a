"""What the consumer yields: a `ProgressUpdate` per piece of progress, a
`TurnOutcome` per turn."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from a2a_progress.consumer.outcomes import state_label
from a2a_progress.consumer.tool_calls import CallRecord, elapsed
from a2a_progress.envelope import Envelope, Rejected
from a2a_progress.sdk.views import ArtifactView, MessageView, TaskState, state_name


@dataclass(frozen=True, slots=True)
class ProgressUpdate:
    """One piece of progress to render, in arrival order.

    ``degraded`` marks a working update with no usable envelope: ``envelope`` is then a pseudo
    ``text`` envelope built from the fallback (``seq`` 0), and ``rejected`` says why the real one
    was unusable (None when there was none). ``late`` marks an envelope that arrived after a
    higher ``seq`` of its stream: insert it by ``seq``. ``call`` is the tool call it belongs to;
    ``opened`` says this update started it and ``closed`` lists the calls it ended.
    ``replayed`` marks progress rebuilt after the fact from a Task snapshot's ``history`` (its
    arrival time is not when it happened). ``dialect`` names the dialect it was translated from
    (e.g. ``"adk"``); None for the progress envelope and plain text.

    Examples:
        >>> from a2a_progress import Envelope, Kind
        >>> thought = Envelope(Kind.THINKING, 1, {"text": "Check CI first."})
        >>> update = ProgressUpdate("task-1", "ctx-1", thought, fallback="Check CI first.")
        >>> update.envelope.kind.value, update.late, update.degraded
        ('thinking', False, False)
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
    replayed: bool = False
    dialect: str | None = None


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """How a turn ended, and its reply.

    ``terminal`` is true for COMPLETED / FAILED / CANCELED / REJECTED. A stream that ended
    without one gives ``terminal=False`` with the last state seen (``state`` is
    ``TASK_STATE_UNSPECIFIED`` when none was). ``closed`` lists the calls the end closed.
    ``replayed`` says the turn had already ended when it was first seen (a finished task polled,
    subscribed to or fetched): its progress is a replay of its history. ``started_at`` /
    ``ended_at`` are the times the agent recorded (POSIX seconds) for the turn's first status
    seen live and for the status that ended it; None when unknown (a replayed turn's start is
    only in its history, which keeps no times). ``error`` says why a turn failed, in the agent's
    words (redacted, at most 512 characters, see `error_text`): the text of its FAILED or
    REJECTED status; None for any other turn. An exception that escaped the agent's
    ``execute()`` ends the stream with an error instead of a status (the error propagates from
    `follow`): ``dataclasses.replace(outcome, error=error_text(exc))`` puts it on an outcome,
    as ``a2a-progress watch`` does. ``message`` and ``artifacts`` are the seam's views
    (`a2a_progress.sdk.views`); their ``raw`` is the SDK's own object.

    Examples:
        >>> from a2a_progress import TaskState
        >>> outcome = TurnOutcome(
        ...     "task-1", "ctx-1", TaskState.FAILED, terminal=True, reply="",
        ...     message=None, artifacts=(), started_at=10.0, ended_at=12.5,
        ...     error="payments-db refused the connection")
        >>> outcome.state_label, outcome.succeeded, outcome.duration, outcome.error
        ('failed', False, 2.5, 'payments-db refused the connection')
    """

    task_id: str
    context_id: str
    state: int
    terminal: bool
    reply: str
    message: MessageView | None
    artifacts: tuple[ArtifactView, ...]
    closed: tuple[CallRecord, ...] = ()
    replayed: bool = False
    started_at: float | None = None
    ended_at: float | None = None
    error: str | None = None

    @property
    def state_name(self) -> str:
        """The state's A2A name, e.g. ``TASK_STATE_COMPLETED``."""
        return state_name(self.state)

    @property
    def state_label(self) -> str:
        """The state as people read it, e.g. ``completed``, ``input_required``."""
        return state_label(self.state)

    @property
    def succeeded(self) -> bool:
        """Whether the task completed."""
        return self.state == TaskState.COMPLETED

    @property
    def duration(self) -> float | None:
        """Seconds the turn took as the agent recorded them; None when either end is unknown."""
        return elapsed(self.started_at, self.ended_at)


Update = ProgressUpdate | TurnOutcome
"""What `follow` and ``ProgressAssembler.feed`` yield."""


class _Writable:
    """`ProgressUpdate`'s slots without its frozen ``__setattr__``: an accepted update is built
    as one of these and then becomes a `ProgressUpdate` (``__class__`` assignment, allowed
    between classes of the same slots). The frozen dataclass's ``__init__`` pays an
    ``object.__setattr__`` call per field; a plain slot store is a fraction of that, and the
    assembler builds one update per envelope."""

    __slots__ = ProgressUpdate.__slots__


def accepted_update(  # noqa: PLR0917 - once per envelope: positional is cheaper
    task_id: str,
    context_id: str,
    envelope: Envelope,
    fallback: str,
    late: bool,
    call: CallRecord | None,
    opened: bool,
    closed: tuple[CallRecord, ...],
    replayed: bool,
    dialect: str | None,
) -> ProgressUpdate:
    """``ProgressUpdate(...)`` of an accepted (not degraded) envelope, faster."""
    update: Any = _Writable()  # a call of the class: cheaper than object.__new__(_Writable)
    update.task_id = task_id
    update.context_id = context_id
    update.envelope = envelope
    update.fallback = fallback
    update.degraded = False
    update.rejected = None
    update.late = late
    update.call = call
    update.opened = opened
    update.closed = closed
    update.replayed = replayed
    update.dialect = dialect
    update.__class__ = ProgressUpdate
    built: ProgressUpdate = update
    return built
