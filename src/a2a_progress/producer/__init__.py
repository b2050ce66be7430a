"""The callee side: emit progress envelopes as WORKING status updates of one task.

A `ProgressEmitter` owns the turn's ``seq`` counter, redacts and size-controls every block,
and puts each one on the wire as one Part carrying the text fallback and the envelope (spec
"Producer side"). Tool calls it opened and that are still running when the turn ends are closed
``aborted`` before the terminal state, while the queue still accepts events.

The parts, one job each: `emitter` (`ProgressEmitter` and its `ToolCall` handles),
`redacting` (what a turn sends, redacted: fields, fallbacks, streams of pieces), `tasks`
(`open_task`, the emitter of each running turn), `handoff` (what the emitter hands the
callee's OpenTelemetry bridge in the same process).

`handed_envelope` is deprecated (it warns; removed in 0.4): read an update's envelope from
the event with `a2a_progress.read_envelope`.
"""

from a2a_progress.producer.emitter import CallState, ProgressEmitter, ToolCall
from a2a_progress.producer.handoff import handed_envelope, redacted_by
from a2a_progress.producer.tasks import open_task

__all__ = [
    "CallState",
    "ProgressEmitter",
    "ToolCall",
    "handed_envelope",
    "open_task",
    "redacted_by",
]
