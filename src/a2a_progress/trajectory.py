"""Adapter from agent-kernel trajectory events to progress blocks (spec, "Producer side").

Accepted DTO (camelCase, every field optional; anything unexpected degrades to text)::

    {
      "eventScene": "tool" | "thinking" | "reasoning" | <any other scene>,
      "status": "running" | "done" | "completed" | "success" | "failed" | "error" | "aborted"
                | "cancelled" | "canceled" | ...,
      "content": <str> | {
          "toolCall": {"toolId": str, "toolName" | "name": str},   # or
          "toolId": str, "toolName" | "name": str,                   # or
          "functionCall": {"id": str, "name": str},
          "text" | "message": str                                    # for other scenes
      }
    }

A ``tool`` scene whose content names a tool (``toolCall.toolId`` / ``toolId`` / ``functionCall``)
starts a tool call (``tool_call``), or ends it when its status is terminal; a ``thinking`` /
``reasoning`` scene becomes ``thinking``; every other scene becomes ``text``.
``tool_output_append`` is never produced here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from a2a_progress.producer import ProgressEmitter, ToolCall

_THINKING_SCENES: Final = frozenset({"thinking", "reasoning", "thought"})
_DONE_STATUSES: Final = frozenset({"done", "completed", "complete", "success", "succeeded", "ok"})
_ABORTED_STATUSES: Final = frozenset(
    {"failed", "failure", "error", "aborted", "cancelled", "canceled", "timeout"}
)


def _tool_identity(content: Mapping[str, Any]) -> tuple[str, str | None] | None:
    """``(tool name, tool call id)`` when the content is a tool event, else None."""
    for key in ("toolCall", "functionCall"):
        nested = content.get(key)
        if isinstance(nested, Mapping):
            call_id = nested.get("toolId") or nested.get("id")
            name = nested.get("toolName") or nested.get("name") or call_id
            if name:
                return str(name), str(call_id) if call_id else None
    if content.get("toolId"):
        call_id = str(content["toolId"])
        return str(content.get("toolName") or content.get("name") or call_id), call_id
    return None


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        for key in ("text", "message", "content"):
            if isinstance(content.get(key), str):
                return str(content[key])
    try:
        return json.dumps(content, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(content)


class TrajectoryAdapter:
    """Turns a stream of trajectory DTOs into blocks on a `ProgressEmitter`.

    It remembers the tool calls it started, so a later DTO with the same tool id and a terminal
    status ends that call ``done`` or ``aborted``.

    Examples:
        Inside ``async with ProgressEmitter(updater) as progress:`` of an agent whose framework
        yields trajectory events:

        >>> async def relay(progress, trajectory_events):
        ...     adapter = TrajectoryAdapter(progress)
        ...     async for event in trajectory_events:  # e.g. {"eventScene": "tool", ...}
        ...         await adapter.emit(event)
    """

    def __init__(self, emitter: ProgressEmitter) -> None:
        self._emitter = emitter
        self._calls: dict[str, ToolCall] = {}

    async def emit(self, event: Mapping[str, Any]) -> None:
        """Emit the block(s) one trajectory event maps to. Malformed events become text."""
        scene = str(event.get("eventScene") or "").lower()
        status = str(event.get("status") or "").lower()
        content = event.get("content")
        identity = _tool_identity(content) if isinstance(content, Mapping) else None
        if scene == "tool" and identity is not None:
            await self._tool_event(identity, status)
        elif scene in _THINKING_SCENES:
            await self._emitter.thinking(_text_of(content))
        elif content is not None:
            await self._emitter.text(_text_of(content))

    async def _tool_event(self, identity: tuple[str, str | None], status: str) -> None:
        tool, call_id = identity
        key = call_id or tool
        call = self._calls.get(key)
        if call is None:
            call = self._calls[key] = await self._emitter.tool_call(tool, call_id)
        if status in _DONE_STATUSES:
            await call.done()
        elif status in _ABORTED_STATUSES:
            await call.aborted(status)
        if not call.is_open:
            del self._calls[key]
