"""What an agent card says about its agent, as span attributes (both sides read a card)."""

from __future__ import annotations

from typing import Any

from a2a_progress.otel import conventions as conv
from a2a_progress.otel.config import NAME_MAX_LENGTH
from a2a_progress.otel.safe_text import bounded


def card_attributes(card: Any) -> dict[str, Any]:
    """The agent's name, description and version from its card (the draft A2A attributes)."""
    attributes: dict[str, Any] = {}
    if card is None:
        return attributes
    for key, value in (
        (conv.GEN_AI_AGENT_NAME, card.name),
        (conv.GEN_AI_AGENT_DESCRIPTION, card.description),
        (conv.GEN_AI_AGENT_VERSION, card.version),
    ):
        if value:
            attributes[key] = bounded(value, NAME_MAX_LENGTH)[0]
    return attributes
