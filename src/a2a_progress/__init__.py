"""a2a-progress: structured progress envelopes for A2A agents, and an OpenTelemetry bridge.

Callee side: `ProgressEmitter` puts one v1 envelope in each WORKING status update.
Caller side: `follow` (or `ProgressAssembler`) turns any A2A event stream into
ordered, de-duplicated `ProgressUpdate` values and a final `TurnOutcome`.
Telemetry: `a2a_progress.otel.A2AProgressInstrumentor` (imported on demand).
"""

from a2a_progress.carrier import TFRS_KEY, envelope_part, message_text, read_envelope
from a2a_progress.consumer import (
    CallRecord,
    EndReason,
    Outcome,
    ProgressAssembler,
    ProgressUpdate,
    TurnOutcome,
    error_text,
    follow,
    poll_task,
)
from a2a_progress.envelope import (
    HARD_LIMIT_BYTES,
    SOFT_LIMIT_BYTES,
    Envelope,
    EnvelopeError,
    Kind,
    OversizeEnvelopeError,
    Rejected,
    RejectReason,
    Status,
    decode,
    encode,
    split_text,
)
from a2a_progress.extension import (
    PROGRESS_EXTENSION_URI,
    declares_progress_extension,
    progress_extension,
    request_progress_extension,
)
from a2a_progress.producer import ProgressEmitter, ToolCall, open_task
from a2a_progress.redaction import DEFAULT_REDACTOR, Redactor
from a2a_progress.trajectory import TrajectoryAdapter
from a2a_progress.version import __version__

__all__ = [
    "DEFAULT_REDACTOR",
    "HARD_LIMIT_BYTES",
    "PROGRESS_EXTENSION_URI",
    "SOFT_LIMIT_BYTES",
    "TFRS_KEY",
    "CallRecord",
    "EndReason",
    "Envelope",
    "EnvelopeError",
    "Kind",
    "Outcome",
    "OversizeEnvelopeError",
    "ProgressAssembler",
    "ProgressEmitter",
    "ProgressUpdate",
    "Redactor",
    "RejectReason",
    "Rejected",
    "Status",
    "ToolCall",
    "TrajectoryAdapter",
    "TurnOutcome",
    "__version__",
    "declares_progress_extension",
    "decode",
    "encode",
    "envelope_part",
    "error_text",
    "follow",
    "message_text",
    "open_task",
    "poll_task",
    "progress_extension",
    "read_envelope",
    "request_progress_extension",
    "split_text",
]
