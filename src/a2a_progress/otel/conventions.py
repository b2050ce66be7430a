"""Every span, attribute, event and metric name the bridge emits, in one place.

The README's "Telemetry conventions" table documents exactly these.
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

# Attributes (GenAI semantic conventions where one exists).
A2A_METHOD_NAME: Final = "a2a.method.name"
A2A_TASK_ID: Final = "a2a.task.id"
A2A_TASK_STATE: Final = "a2a.task.state"
GEN_AI_CONVERSATION_ID: Final = "gen_ai.conversation.id"
GEN_AI_AGENT_NAME: Final = "gen_ai.agent.name"
GEN_AI_OPERATION_NAME: Final = "gen_ai.operation.name"
GEN_AI_TOOL_NAME: Final = "gen_ai.tool.name"
GEN_AI_TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
SERVER_ADDRESS: Final = "server.address"
SERVER_PORT: Final = "server.port"
STREAM_KEY: Final = "a2a.progress.stream_key"
OBSERVER: Final = "a2a.progress.observer"
SEQ_FIRST: Final = "a2a.progress.seq.first"
SEQ_LAST: Final = "a2a.progress.seq.last"
END_REASON: Final = "a2a.progress.end_reason"
EVENTS_DROPPED: Final = "a2a.progress.events_dropped"
# The zero-length marker exported under a tool span as it opens (opt-in, see config):
# named "execute_tool {tool} (in progress)", with PENDING = true.
PENDING_SPAN_SUFFIX: Final = " (in progress)"
PENDING: Final = "a2a.progress.pending"

OPERATION_EXECUTE_TOOL: Final = "execute_tool"
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
DEGRADED: Final = "a2a.progress.degraded"
DIALECT: Final = "a2a.progress.dialect"

# Metrics.
METRIC_TOOL_DURATION: Final = "gen_ai.execute_tool.duration"
METRIC_ENVELOPES: Final = "a2a.progress.envelopes"
METRIC_ENVELOPE_KINDS: Final = "a2a.progress.envelope.kinds"
OUTCOME: Final = "a2a.progress.outcome"
KIND: Final = "a2a.progress.kind"
OUTCOME_REDACTED: Final = "redacted"
