"""The installed a2a-sdk line's adapter: what the layers above the seam import.

Picks `.v1` (protobuf types) or `.v03` (pydantic types) once, by
`a2a_progress.sdk.LINE`, with that line's client calls (`.client_v1` or `.client_v03`);
both lines offer the same names. Importing it with no supported a2a-sdk installed raises
`a2a_progress.sdk.UnsupportedSdkError` (one line).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a_progress.sdk import LINE, SdkLine, require_any

require_any("a2a-progress's A2A adapter")

if TYPE_CHECKING or LINE is SdkLine.V1:
    from a2a_progress.sdk.client_v1 import (
        agent_extension,
        card_extension_uris,
        get_task,
        with_extensions,
    )
    from a2a_progress.sdk.v1 import (
        A2AEvent,
        AgentExecutor,
        EventQueue,
        Message,
        Part,
        RequestContext,
        TaskUpdater,
        agent_message,
        annotate_update,
        envelope_part,
        message_text,
        new_task,
        part_string,
        part_view,
        raw_envelope,
        read_envelope,
        status_message,
        status_time,
        text_part,
        update_status,
        update_string,
        view_event,
        working_envelope,
        working_progress,
        working_update,
    )
else:
    from a2a_progress.sdk.client_v03 import (
        agent_extension,
        card_extension_uris,
        get_task,
        with_extensions,
    )
    from a2a_progress.sdk.v03 import (
        A2AEvent,
        AgentExecutor,
        EventQueue,
        Message,
        Part,
        RequestContext,
        TaskUpdater,
        agent_message,
        annotate_update,
        envelope_part,
        message_text,
        new_task,
        part_string,
        part_view,
        raw_envelope,
        read_envelope,
        status_message,
        status_time,
        text_part,
        update_status,
        update_string,
        view_event,
        working_envelope,
        working_progress,
        working_update,
    )

__all__ = [
    "A2AEvent",
    "AgentExecutor",
    "EventQueue",
    "Message",
    "Part",
    "RequestContext",
    "TaskUpdater",
    "agent_message",
    "annotate_update",
    "card_extension_uris",
    "agent_extension",
    "envelope_part",
    "get_task",
    "message_text",
    "new_task",
    "part_string",
    "part_view",
    "raw_envelope",
    "read_envelope",
    "status_message",
    "text_part",
    "update_status",
    "update_string",
    "view_event",
    "with_extensions",
    "status_time",
    "working_envelope",
    "working_progress",
    "working_update",
]
