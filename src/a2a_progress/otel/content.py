"""Where GenAI backends read content (opt-in, ``capture_content``): the GenAI attributes.

- ``gen_ai.tool.call.result`` on a tool span: what the tool's stream said (its output chunks and
  text), joined and bounded.
- ``gen_ai.output.messages`` on the turn span: one assistant message whose parts are the
  turn's ``reasoning`` (thinking) and ``text``, then the reply, in the JSON shape of the GenAI
  conventions' output-messages schema.

Every text put here has been redacted and bounded already (the bridge's span event content);
the parts kept are capped too.
"""

from __future__ import annotations

import json
from typing import Any, Final

from a2a_progress.envelope import utf8_size
from a2a_progress.otel.safe_text import TRUNCATION_MARKER, bounded
from a2a_progress.sdk.views import TaskState

PART_REASONING: Final = "reasoning"
PART_TEXT: Final = "text"
_ROLE: Final = "assistant"

# finish_reason by terminal state (the schema's own values where one fits).
_FINISH_REASONS: Final[dict[int, str]] = {
    TaskState.COMPLETED: "stop",
    TaskState.FAILED: "error",
    TaskState.REJECTED: "error",
    TaskState.CANCELED: "cancelled",
    TaskState.INPUT_REQUIRED: "input_required",
    TaskState.AUTH_REQUIRED: "auth_required",
}


class Collected:
    """Texts collected for one span, in order: at most ``max_parts`` of them, and at most
    ``budget`` UTF-8 bytes in all (the span attribute they make is bounded like any content)."""

    __slots__ = ("budget", "dropped", "max_parts", "parts", "size")

    def __init__(self, max_parts: int, budget: int) -> None:
        self.max_parts = max_parts
        self.budget = budget
        self.parts: list[tuple[str, str]] = []
        self.dropped = 0
        self.size = 0

    def add(self, kind: str, text: str) -> None:
        """Keep ``text`` (already redacted and bounded) as a part of ``kind``."""
        if not text:
            return
        room = self.budget - self.size
        if len(self.parts) >= self.max_parts or room <= len(TRUNCATION_MARKER):
            self.dropped += 1
            return
        text, _ = bounded(text, room)
        self.parts.append((kind, text))
        self.size += utf8_size(text)


def tool_call_result(collected: Collected, limit: int) -> str | None:
    """``gen_ai.tool.call.result``: the tool stream's texts joined, bounded to ``limit`` bytes."""
    if not collected.parts:
        return None
    return bounded("\n".join(text for _, text in collected.parts), limit)[0]


def output_messages(
    collected: Collected, reply: str | None, state: int | None, limit: int
) -> str | None:
    """``gen_ai.output.messages``: the turn's reasoning and text, then the reply, as JSON of at
    most ``limit`` UTF-8 bytes (the earliest parts are left out first, the reply last)."""
    parts: list[dict[str, Any]] = [
        {"type": kind, "content": text} for kind, text in collected.parts
    ]
    if reply:
        parts.append({"type": PART_TEXT, "content": bounded(reply, limit // 2)[0]})
    message: dict[str, Any] = {"role": _ROLE, "parts": parts}
    message["finish_reason"] = _FINISH_REASONS.get(state or 0, "stop")
    while parts:
        encoded = json.dumps([message], ensure_ascii=False)
        if utf8_size(encoded) <= limit:
            return encoded
        del parts[0]
    return None
