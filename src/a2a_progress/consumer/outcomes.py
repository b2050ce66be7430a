"""The consumer's vocabularies: the task states that end a turn, why a tool call ended, and what
became of each update fed (for metrics)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Final

from a2a_progress.envelope import Rejected, RejectReason
from a2a_progress.sdk.views import TaskState

TERMINAL_STATES: Final[frozenset[int]] = frozenset(
    {
        TaskState.COMPLETED,
        TaskState.FAILED,
        TaskState.CANCELED,
        TaskState.REJECTED,
    }
)
"""States that end a task for good; the authority over every envelope."""

INTERRUPTED_STATES: Final[frozenset[int]] = frozenset(
    {TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED}
)
"""States that end the current turn but not the task: the next send starts a new turn."""


def state_label(state: int) -> str:
    """``TASK_STATE_INPUT_REQUIRED`` -> ``input_required``; unknown numbers -> ``unspecified``.

    Examples:
        >>> state_label(TaskState.COMPLETED)
        'completed'
    """
    try:
        return TaskState(state).name.lower()
    except ValueError:
        return "unspecified"


FAILED_STATES: Final[frozenset[int]] = frozenset({TaskState.FAILED, TaskState.REJECTED})
"""Final states whose status message says why the turn did not succeed."""


class EndReason(StrEnum):
    """Why a tool call ended (`CallRecord.end_reason`, and the spans' ``end_reason``).

    Examples:
        >>> EndReason("turn_failed") is EndReason.TURN_FAILED
        True
    """

    DONE = "done"
    ABORTED = "aborted"
    SUPERSEDED = "superseded"
    TURN_COMPLETED = "turn_completed"
    TURN_FAILED = "turn_failed"
    TURN_CANCELED = "turn_canceled"
    STREAM_CLOSED = "stream_closed"
    SHUTDOWN = "shutdown"


TERMINAL_END_REASONS: Final[Mapping[int, EndReason]] = {
    TaskState.COMPLETED: EndReason.TURN_COMPLETED,
    TaskState.FAILED: EndReason.TURN_FAILED,
    TaskState.REJECTED: EndReason.TURN_FAILED,
    TaskState.CANCELED: EndReason.TURN_CANCELED,
}
"""The end reason of the calls still open when a terminal state ends their turn."""


class Outcome(StrEnum):
    """What became of an update fed to the assembler (for metrics).

    Examples:
        >>> from a2a_progress import ProgressAssembler
        >>> assembler = ProgressAssembler()
        >>> assembler.last_outcome  # nothing fed yet
        <Outcome.NONE: 'none'>
    """

    ACCEPTED = "accepted"
    DUPLICATE = "duplicate"
    DEGRADED = "degraded"
    UNKNOWN_VERSION = "unknown_version"
    INVALID = "invalid"
    OVERSIZE = "oversize"
    STALE = "stale"
    AFTER_TERMINAL = "after_terminal"
    NONE = "none"


DISCARDS: Final = frozenset({Outcome.DUPLICATE, Outcome.STALE, Outcome.AFTER_TERMINAL})
"""Outcomes of updates consumed without producing anything."""

REJECTIONS: Final = frozenset({Outcome.UNKNOWN_VERSION, Outcome.INVALID, Outcome.OVERSIZE})
"""Outcomes of updates degraded because their envelope was unusable."""


def outcome_of_rejection(rejected: Rejected) -> Outcome:
    """The metric outcome for an envelope that could not be used."""
    if rejected.reason is RejectReason.UNKNOWN_VERSION:
        return Outcome.UNKNOWN_VERSION
    if rejected.reason is RejectReason.OVERSIZE:
        return Outcome.OVERSIZE
    return Outcome.INVALID


OutcomeHook = Callable[[Outcome], None]
"""Told the `Outcome` of each update consumed."""


def outcome_hook(
    on_outcome: OutcomeHook | None, on_discard: OutcomeHook | None
) -> OutcomeHook | None:
    """One hook that reports to ``on_outcome`` and, for discards only, to ``on_discard``."""
    if on_discard is None:
        return on_outcome

    def report(outcome: Outcome) -> None:
        if on_outcome is not None:
            on_outcome(outcome)
        if outcome in DISCARDS:
            on_discard(outcome)

    return report
