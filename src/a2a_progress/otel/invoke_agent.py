"""The opt-in ``invoke_agent {agent}`` span around an A2A call (``invoke_agent_span``).

The draft A2A semantic conventions show an agent framework's ``invoke_agent`` span as the parent
of the A2A CLIENT span; GenAI backends (Phoenix, Datadog LLM Observability, Langfuse) discover
agents by ``gen_ai.operation.name = invoke_agent``, and without one they show the remote agent's
tools as orphans. The same draft asks A2A instrumentations not to report such higher-level
operations by default, so this one is opt-in: a framework that already makes the span leaves it
off. When on, the call span is its child, it ends with the call (the call's failure is its
failure) and its duration is recorded in ``gen_ai.invoke_agent.duration``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any, Final

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import SpanKind, Tracer

from a2a_progress.otel import conventions as conv
from a2a_progress.otel.errors import fail
from a2a_progress.otel.metrics import BridgeMetrics

# What the invoke_agent span repeats of its call span's attributes (the draft's agent span).
_SHARED: Final = (
    conv.GEN_AI_AGENT_NAME,
    conv.GEN_AI_AGENT_DESCRIPTION,
    conv.GEN_AI_AGENT_VERSION,
    conv.GEN_AI_CONVERSATION_ID,
    conv.SERVER_ADDRESS,
    conv.SERVER_PORT,
)


def input_messages(text: str) -> str:
    """``gen_ai.input.messages`` of a user's message ``text`` (already redacted and bounded)."""
    message = {"role": "user", "parts": [{"type": "text", "content": text}]}
    return json.dumps([message], ensure_ascii=False)


class InvokeAgent:
    """One ``invoke_agent`` span: started before the call span, ended by the call's turn."""

    __slots__ = ("_agent", "_metrics", "_started", "span")

    def __init__(
        self,
        tracer: Tracer,
        metrics: BridgeMetrics,
        call_attributes: Mapping[str, Any],
        user_text: str | None = None,
    ) -> None:
        self._metrics = metrics
        self._agent = call_attributes.get(conv.GEN_AI_AGENT_NAME)
        attributes: dict[str, Any] = {
            conv.GEN_AI_OPERATION_NAME: conv.OPERATION_INVOKE_AGENT,
            conv.GEN_AI_PROVIDER_NAME: conv.PROVIDER_A2A,
        }
        attributes.update((key, call_attributes[key]) for key in _SHARED if key in call_attributes)
        if user_text:
            attributes[conv.GEN_AI_INPUT_MESSAGES] = input_messages(user_text)
        name = conv.INVOKE_AGENT_SPAN_PREFIX
        self.span = tracer.start_span(
            f"{name} {self._agent}" if self._agent else name,
            kind=SpanKind.CLIENT,
            attributes=attributes,
        )
        self._started = time.monotonic()

    def context(self) -> Context:
        """The context the call span starts in: this span current."""
        return trace.set_span_in_context(self.span)

    def end(self, failure: tuple[str, str] | None, output: str | None) -> None:
        """End with the call: its ``failure`` (``error.type``, description), its output."""
        if output is not None:
            self.span.set_attribute(conv.GEN_AI_OUTPUT_MESSAGES, output)
        if failure is not None:
            fail(self.span, *failure)
        self.span.end()
        self._metrics.record_invoke_agent(
            time.monotonic() - self._started,
            agent=self._agent,
            error_type=None if failure is None else failure[0],
        )
