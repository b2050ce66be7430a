"""Moved to `a2a_progress.serving`; this module keeps the old imports working."""

from a2a_progress.serving import (
    REST_PATH,
    TRANSPORTS,
    ServedAgent,
    Transport,
    build_agent_card,
    create_client,
    serve_agent,
    serve_forever,
)

__all__ = [
    "REST_PATH",
    "TRANSPORTS",
    "ServedAgent",
    "Transport",
    "build_agent_card",
    "create_client",
    "serve_agent",
    "serve_forever",
]
