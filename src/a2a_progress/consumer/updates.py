"""What the consumer yields: a `ProgressUpdate` per piece of progress, a
`TurnOutcome` per turn."""

from __future__ import annotations

from dataclasses import dataclass

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
    _set_replayed,
    _set_dialect,
) = (getattr(ProgressUpdate, name).__set__ for name in ProgressUpdate.__slots__)


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
    update = object.__new__(ProgressUpdate)
    _set_task_id(update, task_id)
    _set_context_id(update, context_id)
    _set_envelope(update, envelope)
    _set_fallback(update, fallback)
    _set_degraded(update, False)
    _set_rejected(update, None)
    _set_late(update, late)
    _set_call(update, call)
    _set_opened(update, opened)
    _set_closed(update, closed)
    _set_replayed(update, replayed)
    _set_dialect(update, dialect)
    return update
