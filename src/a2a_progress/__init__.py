"""a2a-progress: structured progress envelopes for A2A agents, and an OpenTelemetry bridge.

Callee side: `ProgressEmitter` puts one v1 envelope in each WORKING status update.
Caller side: `follow` (or `ProgressAssembler`) turns any A2A event stream into
ordered, de-duplicated `ProgressUpdate` values and a final `TurnOutcome`.
Telemetry: `a2a_progress.otel.A2AProgressInstrumentor` (imported on demand).

Works with a2a-sdk 1.x and 0.3.x (`a2a_progress.sdk` adapts the installed line). The names
are imported when first used, so the protocol core (``a2a_progress.envelope``,
``a2a_progress.redaction``) imports with no a2a-sdk installed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from a2a_progress.version import __version__

if TYPE_CHECKING:
    from a2a_progress.carrier import TFRS_KEY
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
    from a2a_progress.sdk.adapter import envelope_part, message_text, read_envelope
    from a2a_progress.sdk.views import TaskState
    from a2a_progress.trajectory import TrajectoryAdapter

# Where each public name lives: imported on first use (PEP 562).
_HOMES = {
    "a2a_progress.carrier": ("TFRS_KEY",),
    "a2a_progress.consumer": (
        "CallRecord",
        "EndReason",
        "Outcome",
        "ProgressAssembler",
        "ProgressUpdate",
        "TurnOutcome",
        "error_text",
        "follow",
        "poll_task",
    ),
    "a2a_progress.envelope": (
        "HARD_LIMIT_BYTES",
        "SOFT_LIMIT_BYTES",
        "Envelope",
        "EnvelopeError",
        "Kind",
        "OversizeEnvelopeError",
        "Rejected",
        "RejectReason",
        "Status",
        "decode",
        "encode",
        "split_text",
    ),
    "a2a_progress.extension": (
        "PROGRESS_EXTENSION_URI",
        "declares_progress_extension",
        "progress_extension",
        "request_progress_extension",
    ),
    "a2a_progress.producer": ("ProgressEmitter", "ToolCall", "open_task"),
    "a2a_progress.redaction": ("DEFAULT_REDACTOR", "Redactor"),
    "a2a_progress.sdk.adapter": ("envelope_part", "message_text", "read_envelope"),
    "a2a_progress.sdk.views": ("TaskState",),
    "a2a_progress.trajectory": ("TrajectoryAdapter",),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'a2a_progress' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOME_OF])


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
    "TaskState",
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
