"""The caller side: turn a stream of A2A events into ordered, de-duplicated progress.

:class:`ProgressAssembler` applies the spec's consumer rules (rules 3, 4 and 8).
:func:`follow` wraps any event source — a ``send_message`` stream, a ``subscribe`` stream, or
:func:`poll_task`'s ``GetTask`` snapshots — and yields :class:`ProgressUpdate` and
:class:`TurnOutcome` values.

The parts, one job each: :mod:`.assembler` (dispatch, turns, envelopes and degraded updates),
:mod:`.tool_calls` (the tool-call state machine), :mod:`.seq_window` (seqs seen per stream),
:mod:`.reply` (artifacts and the reply), :mod:`.turn` (one turn's state), :mod:`.updates` (what
is yielded), :mod:`.outcomes` (states, end reasons, outcomes), :mod:`.sources` (follow, poll),
:mod:`.errors` (why a turn failed, as a caller may show it).
"""

from a2a_progress.consumer.assembler import ProgressAssembler
from a2a_progress.consumer.errors import error_text
from a2a_progress.consumer.outcomes import (
    INTERRUPTED_STATES,
    TERMINAL_STATES,
    EndReason,
    Outcome,
    outcome_of_rejection,
)
from a2a_progress.consumer.sources import follow, poll_task
from a2a_progress.consumer.tool_calls import CallRecord
from a2a_progress.consumer.updates import ProgressUpdate, TurnOutcome, Update

__all__ = [
    "INTERRUPTED_STATES",
    "TERMINAL_STATES",
    "CallRecord",
    "EndReason",
    "Outcome",
    "ProgressAssembler",
    "ProgressUpdate",
    "TurnOutcome",
    "Update",
    "error_text",
    "follow",
    "outcome_of_rejection",
    "poll_task",
]
