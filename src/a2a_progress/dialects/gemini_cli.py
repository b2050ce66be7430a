"""Gemini CLI's ``development-tool`` A2A extension (its published RFC, v0).

Every WORKING status update says what it is in its metadata, keyed by the extension's URI:
``{"<uri>": {"kind": "TOOL_CALL_UPDATE" | "TEXT_CONTENT" | "THOUGHT" | "STATE_CHANGE" | ...}}``
(the server implementation keys the same object ``coderAgent`` and spells kinds
``tool-call-update``; both are read). Its message holds DataParts with a whole ``ToolCall``
object, resent on every change — ``tool_call_id``, ``tool_name``, ``status`` (PENDING,
EXECUTING, SUCCEEDED, FAILED, CANCELLED), ``live_content`` (the whole output so far),
``output`` or ``error`` — or an ``AgentThought`` (``subject``, ``description``). Proto3 JSON
may spell fields in camelCase; both spellings are read, and so is the object the Gemini CLI
server actually sends (its scheduler's call: ``request.callId``, ``liveOutput``, ``response``).

A ToolCall opens a call the first time it is seen, its live output becomes
``tool_output_append`` chunks of only what is new, and SUCCEEDED / FAILED / CANCELLED close
it (``done`` / ``aborted`` with the error's message). Resent objects with nothing new give
nothing.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from a2a_progress.dialects.base import (
    MAX_ID_CHARS,
    MAX_PARTS,
    MAX_TEXT_BYTES,
    CallState,
    CallTable,
    JsonObject,
    SeqCounter,
    clip,
    data_fields,
    field,
    object_of,
    output_envelope,
    short_text,
    text_envelope,
    text_of,
    tool_envelope,
)
from a2a_progress.envelope import Envelope, Kind, Status, split_text
from a2a_progress.sdk.views import PartView

NAME: Final = "gemini-cli"

EXTENSION_URI: Final = (
    "https://github.com/google-gemini/gemini-cli/blob/main/docs/a2a/developer-profile/v0/spec.md"
)
"""The extension URI of the RFC's sample agent card (its metadata key)."""

# Other spellings of the metadata key: any version of the RFC's URI, and the server's own.
_KEY_MARKERS: Final = ("/developer-profile/", "/development-tool/")
_IMPLEMENTATION_KEY: Final = "coderAgent"

# Live output chunks one update may add; what is past them is cut (and never re-sent).
_MAX_CHUNKS: Final = 8

_RUNNING: Final = frozenset(
    {"PENDING", "EXECUTING", "SCHEDULED", "VALIDATING", "AWAITING_APPROVAL"}
)
_DONE: Final = frozenset({"SUCCEEDED", "SUCCESS"})
_ABORTED: Final = frozenset({"FAILED", "ERROR", "CANCELLED", "CANCELED"})
# ToolCallStatus numbers, for peers that write the enum as an int.
_BY_NUMBER: Final = {1: "PENDING", 2: "EXECUTING", 3: "SUCCEEDED", 4: "FAILED", 5: "CANCELLED"}


def event_kind(metadata: Sequence[JsonObject]) -> str | None:
    """The extension's event kind (``TOOL_CALL_UPDATE``, ...) if any metadata carries it.

    ``""`` when the extension's object is there without a usable kind; None when it is absent.
    """
    for obj in metadata:
        for key, value in obj.items():
            if key != _IMPLEMENTATION_KEY and not any(m in key for m in _KEY_MARKERS):
                continue
            if not isinstance(value, Mapping):
                return ""
            kind = text_of(value.get("kind"))
            return (kind or "").upper().replace("-", "_")
    return None


def _status(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _BY_NUMBER.get(int(value)) if math.isfinite(value) else None
    text = text_of(value)
    return text.upper() if text else None


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class GeminiCliReader:
    """Reads one turn of a Gemini CLI agent: each ToolCall state and output once."""

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
        """Synthetic envelopes for an update of the extension; None when it is not one."""
        kind = event_kind(metadata)
        if kind is None:
            return None
        envelopes: list[Envelope] = []
        for part in parts[:MAX_PARTS]:
            if part.text is not None:
                if part.text.strip() and not artifact:
                    text_kind = Kind.THINKING if kind == "THOUGHT" else Kind.TEXT
                    envelopes.append(text_envelope(counter, text_kind, part.text))
                continue
            data = data_fields(part)
            if data is None:
                continue
            call = _ToolCallView.of(data)
            if call is not None:
                self._tool_call(call, counter, envelopes)
            elif field(data, "subject", "description") is not None:
                thought = _thought(data)
                if thought:
                    envelopes.append(text_envelope(counter, Kind.THINKING, thought))
        return envelopes

    def _tool_call(self, view: _ToolCallView, counter: SeqCounter, out: list[Envelope]) -> None:
        call_id = view.call_id()
        status = _status(field(view.data, "status"))
        if not call_id or status is None:
            return
        call_id = call_id[:MAX_ID_CHARS]
        call = self._calls.get(call_id)
        if call is None:
            call = self._calls.add(call_id, (view.tool() or "tool")[:MAX_ID_CHARS])
            if call is None:
                return
        if call.ended:
            return  # resent after it ended: nothing new
        if status not in _RUNNING and status not in _DONE and status not in _ABORTED:
            return
        if not call.running:
            call.running = True
            out.append(tool_envelope(counter, call, Status.RUNNING))
        live = view.live()
        if live is not None:
            self._output(call, live, counter, out)
        if status in _DONE:
            if call.output_length == 0:
                result = view.result()
                if result:
                    self._output(call, result, counter, out)
            call.ended = True
            out.append(tool_envelope(counter, call, Status.DONE))
        elif status in _ABORTED:
            call.ended = True
            reason = short_text(view.error()) or status.lower()
            out.append(tool_envelope(counter, call, Status.ABORTED, reason=reason))

    def _output(self, call: CallState, live: str, counter: SeqCounter, out: list[Envelope]) -> None:
        """Emit what ``live`` (the whole output so far) adds to what was already emitted."""
        seen = call.output_length
        if len(live) >= seen and seen and _digest(live[:seen]) == call.output_digest:
            new = live[seen:]
        else:
            new = live  # the first output, or the output was replaced: show it whole
        if not new:
            return
        call.output_length = len(live)
        call.output_digest = _digest(live)
        for chunk in split_text(new, MAX_TEXT_BYTES)[:_MAX_CHUNKS]:
            out.append(output_envelope(counter, call, chunk))


def _thought(data: JsonObject) -> str:
    subject = text_of(field(data, "subject")) or ""
    description = text_of(field(data, "description")) or ""
    return clip("\n".join(text for text in (subject, description) if text), MAX_TEXT_BYTES)


class _ToolCallView:
    """One tool call object, in the RFC's ``ToolCall`` schema or the server's own.

    The RFC: ``tool_call_id``, ``tool_name``, ``live_content``, ``output.text``, ``error``.
    The Gemini CLI server sends its scheduler's call instead: ``request.callId``,
    ``request.name`` (or ``tool.name``), ``liveOutput``, ``response.resultDisplay`` and
    ``response.error``, with lower-case statuses (``executing``, ``success``, ``error``).
    """

    __slots__ = ("data", "request", "response")

    def __init__(self, data: JsonObject, request: JsonObject | None) -> None:
        self.data = data
        self.request = request
        self.response = object_of(field(data, "response"))

    @classmethod
    def of(cls, data: JsonObject) -> _ToolCallView | None:
        """The view of ``data`` if it is a tool call object in either schema, else None."""
        if field(data, "tool_call_id", "toolCallId") is not None:
            return cls(data, None)
        request = object_of(field(data, "request"))
        if request is not None and field(request, "callId", "call_id") is not None:
            return cls(data, request)
        return None

    def call_id(self) -> str | None:
        if self.request is not None:
            return text_of(field(self.request, "callId", "call_id"))
        return text_of(field(self.data, "tool_call_id", "toolCallId"))

    def tool(self) -> str | None:
        name = text_of(field(self.data, "tool_name", "toolName"))
        if name is None and self.request is not None:
            name = text_of(field(self.request, "name"))
        tool = object_of(field(self.data, "tool"))
        if name is None and tool is not None:
            name = text_of(field(tool, "name"))
        return name

    def live(self) -> str | None:
        return text_of(field(self.data, "live_content", "liveContent", "liveOutput"))

    def result(self) -> str:
        """The text of a successful call's result (RFC ``output.text``), else ``""``."""
        output = object_of(field(self.data, "output"))
        if output is not None:
            return text_of(field(output, "text")) or ""
        if self.response is not None:
            return text_of(field(self.response, "resultDisplay")) or ""
        return ""

    def error(self) -> Any:
        error = field(self.data, "error")
        if error is None and self.response is not None:
            error = field(self.response, "error")
        return error
