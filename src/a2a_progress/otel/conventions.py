"""Every span, attribute, event and metric name the bridge emits, in one place.

docs/reference/conventions.md documents exactly these: which draft of the GenAI semantic
conventions each name follows, and what changes when one of them moves.
"""

from typing import Final

from opentelemetry.semconv.schemas import Schemas

SCHEMA_URL: Final = Schemas.V1_37_0.value

# Span names. The call / execution span is named after the A2A method.
TOOL_SPAN_PREFIX: Final = "execute_tool"
METHOD_SEND_STREAMING: Final = "SendStreamingMessage"
METHOD_SEND: Final = "SendMessage"
METHOD_SUBSCRIBE: Final = "SubscribeToTask"
EXECUTE_SPAN_FALLBACK: Final = "AgentExecutor.execute"

# The opt-in span around an A2A call, as the draft A2A conventions' example shows:
# "invoke_agent {gen_ai.agent.name}" (CLIENT), the call span under it.
INVOKE_AGENT_SPAN_PREFIX: Final = "invoke_agent"

# Attributes (GenAI semantic conventions where one exists).
A2A_METHOD_NAME: Final = "a2a.method.name"
A2A_MESSAGE_ID: Final = "a2a.message.id"
A2A_PROTOCOL_VERSION: Final = "a2a.protocol.version"
A2A_TASK_ID: Final = "a2a.task.id"
A2A_TASK_STATE: Final = "a2a.task.state"
GEN_AI_CONVERSATION_ID: Final = "gen_ai.conversation.id"
GEN_AI_AGENT_NAME: Final = "gen_ai.agent.name"
GEN_AI_AGENT_DESCRIPTION: Final = "gen_ai.agent.description"
GEN_AI_AGENT_VERSION: Final = "gen_ai.agent.version"
GEN_AI_PROVIDER_NAME: Final = "gen_ai.provider.name"
GEN_AI_OPERATION_NAME: Final = "gen_ai.operation.name"
GEN_AI_TOOL_NAME: Final = "gen_ai.tool.name"
GEN_AI_TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
# Opt-in content (capture_content): the tool's output, and the turn's reasoning and text.
GEN_AI_TOOL_CALL_RESULT: Final = "gen_ai.tool.call.result"
GEN_AI_OUTPUT_MESSAGES: Final = "gen_ai.output.messages"
GEN_AI_INPUT_MESSAGES: Final = "gen_ai.input.messages"
ERROR_TYPE: Final = "error.type"
EXCEPTION_TYPE: Final = "exception.type"
EXCEPTION_MESSAGE: Final = "exception.message"
EXCEPTION_EVENT: Final = "exception"
SERVER_ADDRESS: Final = "server.address"
SERVER_PORT: Final = "server.port"
STREAM_KEY: Final = "a2a.progress.stream_key"
OBSERVER: Final = "a2a.progress.observer"
SEQ_FIRST: Final = "a2a.progress.seq.first"
SEQ_LAST: Final = "a2a.progress.seq.last"
END_REASON: Final = "a2a.progress.end_reason"
EVENTS_DROPPED: Final = "a2a.progress.events_dropped"
# The zero-length marker exported under a tool span as it opens (opt-in, see config): named
# "{tool} (in progress)", with PENDING = true and no gen_ai.* attribute (it is no execution).
PENDING_SPAN_SUFFIX: Final = " (in progress)"
PENDING: Final = "a2a.progress.pending"
# The caller's mirror of a tool call the callee traces itself: no gen_ai.operation.name, a link
# to the callee's span, and MIRROR = true (see docs/reference/conventions.md, "counted once").
MIRROR: Final = "a2a.progress.mirror"
# A mirror carries no gen_ai.operation.name and no gen_ai.tool.* (backends such as Phoenix count
# any span with gen_ai.tool.name as a tool execution, and the GenAI conventions define
# gen_ai.tool.* for the execute_tool span): its tool, call id and, with content, the call's
# result under these instead.
MIRROR_TOOL_NAME: Final = "a2a.progress.tool.name"
MIRROR_TOOL_CALL_ID: Final = "a2a.progress.tool.call.id"
MIRROR_TOOL_CALL_RESULT: Final = "a2a.progress.tool.call.result"
# Where a callee announces a tool span's context to the caller: a key of the opening status
# update event's own metadata (0.2.x: of its Part's, beside "tfrs"), valued a W3C traceparent.
WIRE_TOOL_SPAN: Final = "tfrs.span"
# Where a callee announces its turn's (execution) span, when that span is sampled: a key of the
# turn's first status update event's own metadata, valued a W3C traceparent. A caller in the same
# trace then writes none of the turn's thinking and text span events, which that span carries.
WIRE_TURN_SPAN: Final = "tfrs.turn"

OPERATION_EXECUTE_TOOL: Final = "execute_tool"
OPERATION_INVOKE_AGENT: Final = "invoke_agent"
# gen_ai.provider.name of the invoke_agent span: the agent is reached over A2A.
PROVIDER_A2A: Final = "a2a"
OBSERVER_CALLER: Final = "caller"
OBSERVER_CALLEE: Final = "callee"

# Span events, by envelope kind, and their attributes.
EVENT_THINKING: Final = "a2a.progress.thinking"
EVENT_TEXT: Final = "a2a.progress.text"
EVENT_ERROR: Final = "a2a.progress.error"
EVENT_OUTPUT: Final = "a2a.progress.output"
SEQ: Final = "a2a.progress.seq"
CONTENT: Final = "a2a.progress.content"
CONTENT_TRUNCATED: Final = "a2a.progress.content_truncated"
# The content's size in UTF-8 bytes: always set, with capture_content off too.
CONTENT_SIZE: Final = "a2a.progress.content.size"
DEGRADED: Final = "a2a.progress.degraded"
DIALECT: Final = "a2a.progress.dialect"

# Metrics.
METRIC_TOOL_DURATION: Final = "gen_ai.execute_tool.duration"
METRIC_INVOKE_AGENT_DURATION: Final = "gen_ai.invoke_agent.duration"
# The conventions' explicit bucket boundaries (seconds) for each histogram.
TOOL_DURATION_BUCKETS: Final = (
    0.01,
    0.02,
    0.04,
    0.08,
    0.16,
    0.32,
    0.64,
    1.28,
    2.56,
    5.12,
    10.24,
    20.48,
    40.96,
    81.92,
)
INVOKE_AGENT_DURATION_BUCKETS: Final = (
    0.1,
    0.2,
    0.4,
    0.8,
    1.6,
    3.2,
    6.4,
    12.8,
    25.6,
    51.2,
    102.4,
    204.8,
    409.6,
)
METRIC_ENVELOPES: Final = "a2a.progress.envelopes"
METRIC_ENVELOPE_KINDS: Final = "a2a.progress.envelope.kinds"
OUTCOME: Final = "a2a.progress.outcome"
KIND: Final = "a2a.progress.kind"
OUTCOME_REDACTED: Final = "redacted"
