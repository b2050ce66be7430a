"""The progress envelope as a declared A2A extension.

A2A agents declare what they add to the protocol in ``AgentCard.capabilities.extensions``; a
caller asks for extensions with the ``A2A-Extensions`` service parameter (an HTTP header, or
gRPC metadata), which a2a-sdk servers hand to the executor as
``RequestContext.requested_extensions``. The extension declares what an agent using
`ProgressEmitter` already sends: the wire format does not change, and the
envelope reaches callers that did not ask for it too (its text fallback keeps them working).

Callee::

    card = AgentCard(..., capabilities=AgentCapabilities(
        streaming=True, extensions=[progress_extension()]))

Caller::

    async for event in client.send_message(request, context=request_progress_extension()):
        ...
    declares_progress_extension(card)   # does the agent say it sends envelopes?
"""

from __future__ import annotations

from typing import Any, Final

from a2a_progress.carrier import TFRS_KEY
from a2a_progress.sdk.adapter import (
    RequestContext,
    agent_extension,
    card_extension_uris,
    with_extensions,
)

# A URI of our own namespace rather than a link into the repository: it names the protocol, so
# it must not move with a branch or a file; a new envelope version gets a new last segment.
PROGRESS_EXTENSION_URI: Final = "https://a2a-progress.dev/extensions/progress-envelope/v1"
"""The extension's URI; its last segment is the envelope version (``v1``)."""

_DESCRIPTION: Final = (
    "Structured progress: every WORKING status update carries one progress envelope v1 "
    f'(thinking, tool calls, output, errors) as JSON in Part.metadata["{TFRS_KEY}"], beside '
    "its plain-text fallback."
)


def progress_extension(*, required: bool = False) -> Any:
    """The ``AgentExtension`` (of the installed a2a-sdk) a callee adds to
    ``AgentCard.capabilities.extensions``.

    ``required`` stays False: callers that do not know the envelope still read the fallback.

    Examples:
        >>> from a2a.types import AgentCapabilities
        >>> capabilities = AgentCapabilities(streaming=True, extensions=[progress_extension()])
        >>> capabilities.extensions[0].uri == PROGRESS_EXTENSION_URI
        True
    """
    # Strings only: a Struct turns numbers into floats.
    params = {"metadataKey": TFRS_KEY, "envelopeVersion": "1"}
    return agent_extension(PROGRESS_EXTENSION_URI, _DESCRIPTION, required, params)


def declares_progress_extension(card: Any) -> bool:
    """Whether the agent's card declares the progress envelope extension (any ``required``).

    Examples:
        >>> from a2a.types import AgentCapabilities, AgentCard
        >>> card = AgentCard(capabilities=AgentCapabilities(extensions=[progress_extension()]))
        >>> declares_progress_extension(card), declares_progress_extension(AgentCard())
        (True, False)
    """
    return PROGRESS_EXTENSION_URI in card_extension_uris(card)


def request_progress_extension(context: Any = None) -> Any:
    """A client call context that asks the agent for the extension (``A2A-Extensions``).

    Pass it as ``context=`` to ``Client.send_message`` / ``subscribe``. What else ``context``
    carries is kept; the given context is not changed.

    Examples:
        >>> context = request_progress_extension()
        >>> PROGRESS_EXTENSION_URI in str(context.service_parameters)
        True

        Then ``client.send_message(request, context=context)``.
    """
    return with_extensions(context, [PROGRESS_EXTENSION_URI])


def progress_extension_requested(context: RequestContext) -> bool:
    """Whether the caller of this execution asked for the extension (callee side)."""
    return PROGRESS_EXTENSION_URI in context.requested_extensions
