"""The OpenTelemetry SDK floor: the same spans, events and metrics, made with no protocol work.

What would an ideal bridge cost? At least what the OpenTelemetry SDK calls cost that write
exactly the telemetry the bridge writes for the in-process workload. This module makes those
calls in place, where the bridge would, with the instrumentor off:

- on the callee, :class:`FloorObserver` is told by the benchmark agent what it is emitting (it
  knows its own script: no envelope is read, nothing is decoded, ordered or redacted) and opens
  the SERVER span in the caller's propagated context, a span event per thinking and text block,
  an ``execute_tool`` span per tool call (current while the tool runs) with the bridge's
  attributes, its end attributes, and the duration histogram;
- on the caller, :func:`floor_turn` sends the trace context, opens the CLIENT span and, knowing
  the script too, maps the n-th working update to the same calls; the content it records is the
  update's text fallback (no JSON decoding), unredacted. Its callee records every tool call
  (the bridge's callee announces each one, sampled), so the caller makes no tool span, as the
  bridge's caller does; nor a thinking or text span event: the bridge's callee announces its
  sampled turn span, which carries them (the caller's content still goes into its
  gen_ai.output.messages).

Envelope counts are added once per turn. The spans are checked like the bridge's
(bench_bridge._check_spans): same names, kinds, parents, attribute keys, event counts.
"""

from __future__ import annotations

import time
from typing import Any

from a2a.client import ClientCallContext
from a2a.server.agent_execution import RequestContext
from a2a.types import TaskState
from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.trace import Span, SpanKind, Tracer

from a2a_progress.otel import conventions as conv
from a2a_progress.otel.config import DEFAULT_CONTENT_MAX_LENGTH, DEFAULT_MAX_EVENTS
from a2a_progress.otel.content import PART_REASONING, PART_TEXT, Collected, output_messages
from a2a_progress.otel.metrics import BridgeMetrics
from a2a_progress.version import __version__
from agent import TOOLS, UPDATES_PER_TOOL, TurnResult, call_id, request

AGENT_NAME = "bench agent"
# What the bridge reads from the agent card onto both turn spans.
AGENT_ATTRIBUTES = {
    conv.GEN_AI_AGENT_NAME: AGENT_NAME,
    conv.GEN_AI_AGENT_DESCRIPTION: "benchmark",
    conv.GEN_AI_AGENT_VERSION: __version__,
}


def _tool_attributes(index: int, seq: int, task_id: str, context_id: str) -> dict[str, Any]:
    """The callee's tool span's start attributes (the execution, counted)."""
    call = call_id(task_id, index)
    return {
        conv.GEN_AI_OPERATION_NAME: conv.OPERATION_EXECUTE_TOOL,
        conv.GEN_AI_TOOL_NAME: TOOLS[index % len(TOOLS)],
        conv.GEN_AI_TOOL_CALL_ID: call,
        conv.OBSERVER: conv.OBSERVER_CALLEE,
        conv.SEQ_FIRST: seq,
        conv.STREAM_KEY: call,
        conv.A2A_TASK_ID: task_id,
        conv.GEN_AI_CONVERSATION_ID: context_id,
    }


class _Side:
    """One side's telemetry for one turn: the turn span and the tool call in progress.

    On the callee the tool's span is current while the tool runs, as the bridge makes it.
    """

    def __init__(
        self,
        tracer: Tracer,
        metrics: BridgeMetrics,
        observer: str,
        turn: Span,
        *,
        current: bool,
        content: bool,
    ) -> None:
        self.tracer, self.metrics, self.observer, self.turn = tracer, metrics, observer, turn
        self.content = content
        self.turn_context = trace.set_span_in_context(turn)
        self.current = current
        # Unsampled: no span event, no tool span (its context would be the turn's), only the
        # duration metric: what the bridge does for a turn the sampler dropped.
        self.recording = turn.is_recording()
        # The turn's reasoning and text, for gen_ai.output.messages (content on, as here).
        self.output = Collected(DEFAULT_MAX_EVENTS, DEFAULT_CONTENT_MAX_LENGTH)
        self.tool: Span | None = None
        self.tool_token: object | None = None
        self.started = 0.0
        self.updates = 0
        self.task_id = self.context_id = ""

    def update(self, content: str) -> None:
        """The turn's next working update (its seq is its 1-based number)."""
        number, self.updates = self.updates, self.updates + 1
        seq, step, index = number + 1, number % UPDATES_PER_TOOL, number // UPDATES_PER_TOOL
        if step == 1:
            self.started = time.monotonic()
        elif step == 3 and self.observer == conv.OBSERVER_CALLEE:  # counted once, by the callee
            self.metrics.record_duration(
                time.monotonic() - self.started,
                tool=TOOLS[index % len(TOOLS)],
                observer=self.observer,
                end_reason="done",
                agent=AGENT_NAME,
            )
        if not self.recording:
            return
        if step == 0:
            self._event(conv.EVENT_THINKING, PART_REASONING, seq, content)
        elif step == 1 and self.observer == conv.OBSERVER_CALLEE:
            attributes = _tool_attributes(index, seq, self.task_id, self.context_id)
            self.tool = self.tracer.start_span(
                f"{conv.TOOL_SPAN_PREFIX} {TOOLS[index % len(TOOLS)]}",
                context=self.turn_context,
                kind=SpanKind.INTERNAL,
                attributes=attributes,
            )
            if self.current:
                self.tool_token = otel_context.attach(
                    trace.set_span_in_context(self.tool, self.turn_context)
                )
        elif step == 2:
            # The agent's text inside a call carries no stream key: on the turn span, as the
            # bridge puts it (on both sides).
            self._event(conv.EVENT_TEXT, PART_TEXT, seq, content)
        elif step == 3 and self.tool is not None:
            # seq.first was set at the start and has not changed: the bridge does not set it
            # again either.
            self.tool.set_attributes({conv.SEQ_LAST: seq, conv.END_REASON: "done"})
            self.tool.end()
            if self.tool_token is not None:
                otel_context.detach(self.tool_token)  # type: ignore[arg-type]
                self.tool_token = None
            self.tool = None

    def _event(self, name: str, part: str, seq: int, content: str) -> None:
        """A thinking or text event on the turn span (the callee's: the caller's is on that
        one); its content, when captured, is kept for the turn's gen_ai.output.messages too."""
        if self.content:
            self.output.add(part, content)
        if self.observer == conv.OBSERVER_CALLER:
            return
        attributes: dict[str, Any] = {conv.SEQ: seq, conv.CONTENT_SIZE: len(content)}
        if self.content:
            attributes[conv.CONTENT] = content
        self.turn.add_event(name, attributes)

    def end(self) -> None:
        """Count the turn's envelopes (once, as the bridge batches them) and end its span."""
        updates = self.updates
        if self.recording and self.content:
            reply = f"ran {updates // UPDATES_PER_TOOL} tools"  # what the agent completes with
            messages = output_messages(
                self.output, reply, TaskState.TASK_STATE_COMPLETED, DEFAULT_CONTENT_MAX_LENGTH
            )
            self.turn.set_attribute(conv.GEN_AI_OUTPUT_MESSAGES, messages or "")
        self.metrics.count_envelopes("accepted", self.observer, updates)
        kinds = (("thinking", updates // 4), ("tool_call", updates // 2), ("text", updates // 4))
        for kind, count in kinds:
            self.metrics.count_kinds(kind, self.observer, count)
        self.turn.set_attribute(conv.A2A_TASK_STATE, "TASK_STATE_COMPLETED")
        self.turn.end()


class FloorObserver:
    """The callee's floor, driven by the benchmark agent (ScriptedAgent's ``observer``);
    ``content``: whether it records content, as the bridge's capture_content."""

    def __init__(self, tracer: Tracer, metrics: BridgeMetrics, *, content: bool = True) -> None:
        self._tracer, self._metrics, self._content = tracer, metrics, content

    def turn(self, context: RequestContext) -> CalleeTurn:
        """Open the SERVER span in the caller's propagated context and make it current."""
        call = context.call_context
        parent = propagate.extract(call.state.get("headers", {}) if call is not None else {})
        task_id, context_id = context.task_id or "", context.context_id or ""
        span = self._tracer.start_span(
            conv.METHOD_SEND_STREAMING,
            context=parent,
            kind=SpanKind.SERVER,
            attributes={
                conv.A2A_METHOD_NAME: conv.METHOD_SEND_STREAMING,
                conv.A2A_TASK_ID: task_id,
                conv.GEN_AI_CONVERSATION_ID: context_id,
                conv.A2A_MESSAGE_ID: context.message.message_id if context.message else "",
                **AGENT_ATTRIBUTES,
            },
        )
        side = _Side(
            self._tracer,
            self._metrics,
            conv.OBSERVER_CALLEE,
            span,
            current=True,
            content=self._content,
        )
        side.task_id, side.context_id = task_id, context_id
        return CalleeTurn(side, otel_context.attach(side.turn_context))


class CalleeTurn:
    """The agent calls it after each working update it enqueued, and ``end()`` at the end."""

    def __init__(self, side: _Side, token: object) -> None:
        self._side, self._token = side, token

    def __call__(self, content: str) -> None:
        self._side.update(content)

    def end(self) -> None:
        otel_context.detach(self._token)  # type: ignore[arg-type]
        self._side.end()


async def floor_turn(
    client: Any, tools: int, tracer: Tracer, metrics: BridgeMetrics, *, content: bool = True
) -> TurnResult:
    """:func:`agent.run_turn` with the caller's floor telemetry (``content``: as
    :class:`FloorObserver`)."""
    message = request(tools)
    span = tracer.start_span(
        conv.METHOD_SEND_STREAMING,
        kind=SpanKind.CLIENT,
        attributes={
            conv.A2A_METHOD_NAME: conv.METHOD_SEND_STREAMING,
            **AGENT_ATTRIBUTES,
            conv.A2A_PROTOCOL_VERSION: "1.0",
            conv.SERVER_ADDRESS: "in-process",
            conv.SERVER_PORT: 80,
            conv.A2A_MESSAGE_ID: message.message.message_id,
        },
    )
    side = _Side(tracer, metrics, conv.OBSERVER_CALLER, span, current=False, content=content)
    token = otel_context.attach(side.turn_context)
    headers: dict[str, str] = {}
    propagate.inject(headers)
    result = TurnResult()
    try:
        stream = client.send_message(message, context=ClientCallContext(service_parameters=headers))
        async for event in stream:
            result.events += 1
            if not event.HasField("status_update"):
                continue
            update = event.status_update
            if not side.task_id:
                side.task_id, side.context_id = update.task_id, update.context_id
                span.set_attributes(
                    {conv.A2A_TASK_ID: side.task_id, conv.GEN_AI_CONVERSATION_ID: side.context_id}
                )
            result.states.append(update.status.state)
            if update.status.state == TaskState.TASK_STATE_WORKING:
                parts = update.status.message.parts
                side.update(parts[0].text if parts else "")
    finally:
        otel_context.detach(token)
        side.end()
    return result
