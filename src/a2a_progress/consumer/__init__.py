"""The caller side: turn a stream of A2A events into ordered, de-duplicated progress.

`ProgressAssembler` applies the protocol's consumer rules: each (stream key, seq) once, late
envelopes placed by seq, and the terminal state as the only verdict.
`follow` wraps any event source — a ``send_message`` stream, a ``subscribe`` stream, or
`poll_task`'s ``GetTask`` snapshots — and yields `ProgressUpdate` and
`TurnOutcome` values.

The parts, one job each: `assembler` (dispatch of each event to its turn, turns' ends),
`rules` (a working update's progress: envelopes, dialects, degraded updates),
`tool_calls` (the tool-call state machine), `seq_window` (seqs seen per stream),
`reply` (artifacts and the reply), `turn` (one turn's state), `updates` (what
is yielded), `outcomes` (states, end reasons, outcomes), `sources` (follow, poll),
`errors` (why a turn failed, as a caller may show it).
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
from a2a_progress.consumer.tool_calls import CallRecord, Tracked
from a2a_progress.consumer.updates import ProgressUpdate, TurnOutcome, Update

__all__ = [
    "INTERRUPTED_STATES",
    "TERMINAL_STATES",
    "CallRecord",
    "EndReason",
    "Outcome",
    "ProgressAssembler",
    "ProgressUpdate",
    "Tracked",
    "TurnOutcome",
    "Update",
    "error_text",
    "follow",
    "outcome_of_rejection",
    "poll_task",
]
