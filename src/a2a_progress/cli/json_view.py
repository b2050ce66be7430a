"""``watch --json``: one JSON object per line for scripts and front ends.

The schema is stable: every object has ``"v": 1`` and a ``type``. Fields are never removed or
renamed within a version; new fields may be added.

``{"type": "progress"}`` — one consumer update, in arrival order:

=================  ===========================================================================
``task_id``        the A2A task; ``context_id`` its context
``kind``           ``thinking`` | ``tool_call`` | ``tool_output_append`` | ``text`` | ``error``
                   (``text`` for a degraded update)
``seq``            the envelope's ``seq`` (0 for a degraded update)
``stream_key``     the envelope's ``streamKey``, or null
``status``         ``running`` | ``done`` | ``aborted``
``content``        thinking / progress text, error message or output chunk; null for tool_call
``tool``           tool name (tool_call, tool_output_append), else null; ``tool_call_id`` too
``reason``         why a tool call was aborted, when the callee said so, else null
``text``           the human-readable fallback text of the update
``degraded``       true when the update carried no usable envelope; ``rejected`` then says why
                   the envelope was unusable (``not_json``, ``unknown_version``, ...) or is null
                   when there was none
``late``           true when it arrived after a higher ``seq`` of its stream (insert by seq)
``opened``         true when this update started the tool call in ``call``
``call``           the tool call it belongs to, or null: ``{index, tool, tool_call_id,
                   stream_key, state: running|done|aborted, end_reason}``
``closed``         the tool calls this update ended, each like ``call``
``time``           when the update was received, Unix seconds
=================  ===========================================================================

``{"type": "outcome"}`` — the last object of a turn: ``task_id``, ``context_id``, ``state``
(``completed`` | ``failed`` | ``canceled`` | ``rejected`` | ``input_required`` |
``auth_required``, or the last state seen when the stream ended early), ``terminal``, ``reply``
(the final answer's text), ``closed`` (calls the end closed), ``exit_code`` and ``time``.

``{"type": "error"}`` — the command failed before an outcome: ``message`` (one line) and
``exit_code``.
"""

from __future__ import annotations

import json
import time
from typing import Any, Final, TextIO

from a2a_progress.cli.errors import CliError, exit_code_for_state, state_label
from a2a_progress.consumer import CallRecord, ProgressUpdate, TurnOutcome

SCHEMA_VERSION: Final = 1


def call_json(call: CallRecord) -> dict[str, Any]:
    """A tool call as the caller sees it."""
    return {
        "index": call.index,
        "tool": call.tool,
        "tool_call_id": call.tool_call_id,
        "stream_key": call.stream_key,
        "state": call.status.value,
        "end_reason": call.end_reason.value if call.end_reason is not None else None,
    }


def progress_json(update: ProgressUpdate) -> dict[str, Any]:
    """One ``progress`` object."""
    envelope = update.envelope
    reason = envelope.payload.get("reason")
    return {
        "v": SCHEMA_VERSION,
        "type": "progress",
        "task_id": update.task_id,
        "context_id": update.context_id,
        "kind": envelope.kind.value,
        "seq": envelope.seq,
        "stream_key": envelope.stream_key,
        "status": envelope.status.value,
        "content": envelope.content,
        "tool": envelope.tool,
        "tool_call_id": envelope.tool_call_id,
        "reason": reason if isinstance(reason, str) else None,
        "text": update.fallback,
        "degraded": update.degraded,
        "rejected": update.rejected.reason.value if update.rejected is not None else None,
        "late": update.late,
        "opened": update.opened,
        "call": call_json(update.call) if update.call is not None else None,
        "closed": [call_json(call) for call in update.closed],
        "time": round(time.time(), 3),
    }


def outcome_json(outcome: TurnOutcome) -> dict[str, Any]:
    """The ``outcome`` object that ends a turn."""
    return {
        "v": SCHEMA_VERSION,
        "type": "outcome",
        "task_id": outcome.task_id,
        "context_id": outcome.context_id,
        "state": state_label(outcome.state),
        "terminal": outcome.terminal,
        "reply": outcome.reply,
        "closed": [call_json(call) for call in outcome.closed],
        "exit_code": int(exit_code_for_state(outcome.state)),
        "time": round(time.time(), 3),
    }


def error_json(error: CliError) -> dict[str, Any]:
    """The ``error`` object of a command that failed before an outcome."""
    return {
        "v": SCHEMA_VERSION,
        "type": "error",
        "message": error.message,
        "exit_code": int(error.code),
    }


class JsonLines:
    """A progress sink that writes each update as one JSON line (flushed at once)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def update(self, item: ProgressUpdate | TurnOutcome) -> None:
        """Write the object for ``item``."""
        obj = outcome_json(item) if isinstance(item, TurnOutcome) else progress_json(item)
        self.write(obj)

    def write(self, obj: dict[str, Any]) -> None:
        """Write one object as a line."""
        self._stream.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self._stream.flush()
