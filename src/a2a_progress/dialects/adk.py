"""Google ADK's A2A dialect (``to_a2a()`` / ``A2aAgentExecutor``, a2a-sdk 1.x).

ADK converts each event of its agent into a WORKING status update whose message holds the
model's parts: thoughts are text parts with metadata ``adk_thought: true``; a tool call is a
DataPart ``{"id", "name", "args"}`` with metadata ``adk_type: "function_call"`` (older ADK:
``type``), flagged ``adk_is_long_running`` for long-running tools; its result is a DataPart
``{"id", "name", "response"}`` with ``adk_type: "function_response"``. ADK itself treats a
response dict with a truthy ``error`` key as a failed tool (``FunctionTool``'s error hook), and
its documented tool convention is ``{"status": "error", "error_message": ...}``: both close the
call ``aborted``. Newer ADK can send the same parts in artifact updates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from a2a_progress.dialects.base import (
    MAX_ID_CHARS,
    MAX_PARTS,
    CallTable,
    JsonObject,
    SeqCounter,
    data_fields,
    field,
    has_prefixed_key,
    metadata_value,
    object_of,
    short_text,
    text_envelope,
    text_of,
    tool_envelope,
    truthy,
)
from a2a_progress.envelope import Envelope, Kind, Status
from a2a_progress.sdk.views import PartView

NAME: Final = "adk"

_PREFIX: Final = "adk_"
_TYPE_KEYS: Final = ("adk_type", "type")
_LONG_RUNNING_KEYS: Final = ("adk_is_long_running", "is_long_running")
_FUNCTION_CALL: Final = "function_call"
_FUNCTION_RESPONSE: Final = "function_response"
# What a long-running tool's first answer says while the work goes on (ADK's own examples).
_PENDING: Final = frozenset({"pending", "running", "in_progress", "started", "submitted"})


def _part_type(meta: JsonObject) -> str | None:
    value = metadata_value([meta], _TYPE_KEYS[0])
    if value is None:
        value = metadata_value([meta], _TYPE_KEYS[1])
    return value if isinstance(value, str) else None


def _flag(meta: JsonObject, keys: Sequence[str]) -> bool:
    return any(metadata_value([meta], key) is True for key in keys)


def is_thought(part: PartView) -> bool:
    """Whether ``part`` is a model thought ADK sent (progress, never part of the reply)."""
    return (
        part.text is not None
        and part.metadata is not None
        and _flag(part.metadata, ("adk_thought",))
    )


class AdkReader:
    """Reads one turn of an ADK agent: pairs calls and responses by id, each once."""

    name: Final = NAME

    def __init__(self) -> None:
        self._calls = CallTable()

    def read(
        self,
        parts: Sequence[PartView],
        metadata: Sequence[JsonObject],
        counter: SeqCounter,
        *,
        artifact: bool,
    ) -> list[Envelope] | None:
        """Synthetic envelopes for an ADK update; None when nothing in it is ADK's."""
        parts = parts[:MAX_PARTS]
        metas = [part.metadata for part in parts if part.metadata is not None]
        if not self._recognises(metas, metadata):
            return None
        envelopes: list[Envelope] = []
        for part in parts:
            meta = part.metadata if part.metadata is not None else {}
            if part.text is not None:
                if not part.text.strip():
                    continue
                if _flag(meta, ("adk_thought",)):
                    envelopes.append(text_envelope(counter, Kind.THINKING, part.text))
                elif not artifact:  # an artifact's text is the reply, not progress
                    envelopes.append(text_envelope(counter, Kind.TEXT, part.text))
                continue
            data = data_fields(part)
            if data is None:
                continue
            kind = _part_type(meta)
            if kind == _FUNCTION_CALL:
                self._call(data, _flag(meta, _LONG_RUNNING_KEYS), counter, envelopes)
            elif kind == _FUNCTION_RESPONSE:
                self._response(data, counter, envelopes)
        return envelopes

    @staticmethod
    def _recognises(metas: Sequence[JsonObject], metadata: Sequence[JsonObject]) -> bool:
        """ADK's ``adk_`` metadata keys anywhere, or an older ADK's typed DataPart."""
        if has_prefixed_key(metas, _PREFIX) or has_prefixed_key(metadata, _PREFIX):
            return True
        return any(_part_type(meta) in (_FUNCTION_CALL, _FUNCTION_RESPONSE) for meta in metas)

    def _ids(self, data: JsonObject) -> tuple[str, str] | None:
        call_id = text_of(data.get("id"))
        if not call_id:
            return None  # nothing to pair it by: ADK always sets one
        name = text_of(data.get("name")) or "tool"
        return call_id[:MAX_ID_CHARS], name[:MAX_ID_CHARS]

    def _call(
        self, data: JsonObject, long_running: bool, counter: SeqCounter, out: list[Envelope]
    ) -> None:
        ids = self._ids(data)
        if ids is None or self._calls.get(ids[0]) is not None:
            return  # junk, or a call already seen (a resubscribe replays history)
        call = self._calls.add(*ids)
        if call is None:
            return
        call.running = True
        call.long_running = long_running
        out.append(tool_envelope(counter, call, Status.RUNNING, long_running=long_running))

    def _response(self, data: JsonObject, counter: SeqCounter, out: list[Envelope]) -> None:
        ids = self._ids(data)
        if ids is None:
            return
        call = self._calls.get(ids[0])
        if call is None:
            # The answer to a call this turn never showed (joined late): still one call.
            call = self._calls.add(*ids)
            if call is None:
                return
        if call.ended:
            return
        body = object_of(data.get("response"))
        status = text_of(field(body, "status")) if body is not None else None
        if call.long_running and status is not None and status.lower() in _PENDING:
            return  # a long-running tool's interim answer: it goes on
        call.ended = True
        error = field(body, "error") if body is not None else None
        if truthy(error):
            out.append(tool_envelope(counter, call, Status.ABORTED, reason=short_text(error)))
        elif body is not None and status is not None and status.lower() == "error":
            reason = short_text(field(body, "error_message", "errorMessage", "message"))
            out.append(tool_envelope(counter, call, Status.ABORTED, reason=reason or "error"))
        else:
            out.append(tool_envelope(counter, call, Status.DONE))
