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

from a2a_progress.otel.safe_text import bounded
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
    """Texts collected for one span, at most ``max_parts`` of them, in order."""

    __slots__ = ("dropped", "max_parts", "parts")

    def __init__(self, max_parts: int) -> None:
        self.max_parts = max_parts
        self.parts: list[tuple[str, str]] = []
        self.dropped = 0

    def add(self, kind: str, text: str) -> None:
        """Keep ``text`` (already redacted and bounded) as a part of ``kind``."""
        if not text:
            return
        if len(self.parts) >= self.max_parts:
            self.dropped += 1
            return
        self.parts.append((kind, text))


def tool_call_result(collected: Collected, limit: int) -> str | None:
    """``gen_ai.tool.call.result``: the tool stream's texts joined, bounded to ``limit`` bytes."""
    if not collected.parts:
        return None
    return bounded("\n".join(text for _, text in collected.parts), limit)[0]


def output_messages(collected: Collected, reply: str | None, state: int | None) -> str | None:
    """``gen_ai.output.messages``: the turn's reasoning and text, then the reply, as JSON."""
    parts: list[dict[str, Any]] = [
        {"type": kind, "content": text} for kind, text in collected.parts
    ]
    if reply:
        parts.append({"type": PART_TEXT, "content": reply})
    if not parts:
        return None
    message: dict[str, Any] = {"role": _ROLE, "parts": parts}
    message["finish_reason"] = _FINISH_REASONS.get(state or 0, "stop")
    return json.dumps([message], ensure_ascii=False)
