"""The one table of A2A transports a2a-progress speaks, and the card filter built on it.

The short names (``jsonrpc``, ``rest``, ``grpc``) are what users type and what the code passes
around; the SDK's protocol bindings (``JSONRPC``, ``HTTP+JSON``, ``GRPC``) are what agent cards
carry. Both directions of that mapping live here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

from a2a.types import AgentCard, AgentInterface
from a2a.utils.constants import TransportProtocol

__all__ = [
    "BINDINGS",
    "TRANSPORTS",
    "Transport",
    "card_with_interfaces",
    "transport_of",
]

Transport = Literal["jsonrpc", "rest", "grpc"]
"""A transport by its short name."""

TRANSPORTS: Final[tuple[Transport, ...]] = ("jsonrpc", "rest", "grpc")
"""Every transport a2a-progress serves and calls, in the order cards list them."""

BINDINGS: Final[Mapping[Transport, str]] = {
    "jsonrpc": TransportProtocol.JSONRPC.value,
    "rest": TransportProtocol.HTTP_JSON.value,
    "grpc": TransportProtocol.GRPC.value,
}
"""The agent-card ``protocol_binding`` of each transport."""

_NAMES: Final[Mapping[str, Transport]] = {binding: name for name, binding in BINDINGS.items()}


def transport_of(interface: AgentInterface) -> Transport | None:
    """The transport of a card interface; None for a binding a2a-progress does not speak."""
    return _NAMES.get(interface.protocol_binding)


def card_with_interfaces(
    card: AgentCard, transport: Transport, version: str | None = None
) -> AgentCard:
    """A copy of ``card`` offering only its ``transport`` interfaces (of ``version``, if given).

    A client created from the copy can speak nothing else. The copy may list no interface at
    all; callers say what that means for them.
    """
    binding = BINDINGS[transport]
    chosen = [
        interface
        for interface in card.supported_interfaces
        if interface.protocol_binding == binding
        and (version is None or interface.protocol_version == version)
    ]
    copy = AgentCard()
    copy.CopyFrom(card)
    del copy.supported_interfaces[:]
    copy.supported_interfaces.extend(chosen)
    return copy
