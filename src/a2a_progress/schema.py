"""The JSON objects of a turn's progress: one schema for ``watch --json`` and the web relay.

Every object has ``"v": 1`` and a ``type``. Fields are never removed or renamed within a
version; new fields may be added.

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
                   stream_key, state: running|done|aborted, end_reason, started_at, ended_at,
                   duration, replayed, dialect}`` — the times are the ones the agent recorded (Unix
                   seconds), ``duration`` their difference; each is null when unknown (a call
                   replayed from the task's history, which keeps no times), never a made-up 0
``closed``         the tool calls this update ended, each like ``call``
``replayed``       true when the update was rebuilt from a task snapshot's history (a finished
                   task subscribed to or polled): it happened earlier than ``time``
``dialect``        the dialect the update was read from (``adk``, ``gemini-cli``: an agent that
                   sends no envelope), or null for a progress envelope; a call's ``dialect`` too
``time``           when the update was received, Unix seconds
=================  ===========================================================================

``{"type": "outcome"}`` — the last object of a turn: ``task_id``, ``context_id``, ``state``
(``completed`` | ``failed`` | ``canceled`` | ``rejected`` | ``input_required`` |
``auth_required``, or the last state seen when the stream ended early), ``terminal``, ``reply``
(the final answer's text), ``closed`` (calls the end closed), ``replayed`` (the task had already
ended when it was first seen: its history was replayed), ``started_at`` / ``ended_at`` /
``duration`` (agent-recorded, null when unknown), ``exit_code``, ``error`` (why a failed or
rejected turn failed, in the agent's words, redacted and at most 512 characters; else null) and
``time``.

``{"type": "error"}`` — the turn could not be followed to an outcome: ``message`` (one line)
and ``exit_code`` (null from a web relay whose event source raised).
"""

from __future__ import annotations

import time
from typing import Any, Final

from a2a_progress.consumer import CallRecord, ProgressUpdate, TurnOutcome
from a2a_progress.consumer.outcomes import state_label
from a2a_progress.sdk.views import TaskState

SCHEMA_VERSION: Final = 1

INCOMPLETE_EXIT_CODE: Final = 6
"""The exit code of a turn whose stream ended in a non-final state."""

_EXIT_CODE_BY_STATE: Final[dict[int, int]] = {
    TaskState.COMPLETED: 0,
    TaskState.FAILED: 1,
    TaskState.CANCELED: 3,
    TaskState.REJECTED: 4,
    TaskState.INPUT_REQUIRED: 5,
    TaskState.AUTH_REQUIRED: 5,
}


def exit_code_for_state(state: int) -> int:
    """The ``exit_code`` of a turn that ended in ``state`` (any other state: 6, incomplete)."""
    return _EXIT_CODE_BY_STATE.get(state, INCOMPLETE_EXIT_CODE)


def call_json(call: CallRecord) -> dict[str, Any]:
    """A tool call as the caller sees it."""
    return {
        "index": call.index,
        "tool": call.tool,
        "tool_call_id": call.tool_call_id,
        "stream_key": call.stream_key,
        "state": call.status.value,
        "end_reason": call.end_reason.value if call.end_reason is not None else None,
        "started_at": call.started_at,
        "ended_at": call.ended_at,
        "duration": _seconds(call.duration),
        "replayed": call.replayed,
        "dialect": call.dialect,
    }


def _seconds(value: float | None) -> float | None:
    # To 0.1 ms, the finest any view prints (``0.2ms``): the web panel formats this value, and
    # at 1 ms a call that took 0.3 ms would show 0.0ms there and 0.3ms in the terminal.
    return round(value, 4) if value is not None else None


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
        "replayed": update.replayed,
        "dialect": update.dialect,
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
        "replayed": outcome.replayed,
        "started_at": outcome.started_at,
        "ended_at": outcome.ended_at,
        "duration": _seconds(outcome.duration),
        "exit_code": exit_code_for_state(outcome.state),
        "error": outcome.error,
        "time": round(time.time(), 3),
    }


def update_json(item: ProgressUpdate | TurnOutcome) -> dict[str, Any]:
    """The object for a consumer item: ``progress`` or ``outcome``."""
    return outcome_json(item) if isinstance(item, TurnOutcome) else progress_json(item)


def error_json(message: str, exit_code: int | None) -> dict[str, Any]:
    """The ``error`` object of a turn that failed before an outcome (``message``: one line;
    ``exit_code``: the ``watch`` exit code, null when a relay's source raised)."""
    return {
        "v": SCHEMA_VERSION,
        "type": "error",
        "message": " ".join(message.split()),
        "exit_code": exit_code,
    }
