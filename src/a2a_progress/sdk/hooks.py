"""The installed line's hook points and trace-context carriers (see `.hooks_v1`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a_progress.sdk import LINE, SdkLine, require_any

require_any("the a2a-progress instrumentor")

if TYPE_CHECKING or LINE is SdkLine.V1:
    from a2a_progress.sdk.hooks_v1 import (
        AGENT_CARD_CLASS,
        CLIENT_CLASS,
        CLIENT_STREAM_CALLS,
        CLIENT_TASK_CALLS,
        HANDLER_CARD_INDEX,
        HANDLER_CLASSES,
        HANDLER_METHODS,
        TRANSPORT_ENTRY_POINTS,
        card_interfaces,
        instrument_transports,
        sent_message,
        uninstrument_transports,
        with_headers,
    )
else:
    from a2a_progress.sdk.hooks_v03 import (
        AGENT_CARD_CLASS,
        CLIENT_CLASS,
        CLIENT_STREAM_CALLS,
        CLIENT_TASK_CALLS,
        HANDLER_CARD_INDEX,
        HANDLER_CLASSES,
        HANDLER_METHODS,
        TRANSPORT_ENTRY_POINTS,
        card_interfaces,
        instrument_transports,
        sent_message,
        uninstrument_transports,
        with_headers,
    )

__all__ = [
    "AGENT_CARD_CLASS",
    "CLIENT_CLASS",
    "CLIENT_STREAM_CALLS",
    "CLIENT_TASK_CALLS",
    "HANDLER_CARD_INDEX",
    "HANDLER_CLASSES",
    "HANDLER_METHODS",
    "TRANSPORT_ENTRY_POINTS",
    "card_interfaces",
    "instrument_transports",
    "sent_message",
    "uninstrument_transports",
    "with_headers",
]
