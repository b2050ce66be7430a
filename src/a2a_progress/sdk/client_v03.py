"""The a2a-sdk 0.3.x client's calls and extension negotiation: the same names as `client_v1`.

What a caller does once per call or per card, never per update: fetch a task
(`get_task`), declare an extension on an agent card (`agent_extension`), read the extensions
a card declares (`card_extension_uris`) and ask for them in a call's context
(`with_extensions`, through `with_http_headers`: 0.3's HTTP calls take headers from the call
context). Imported through `a2a_progress.sdk.adapter` only when 0.3 is the installed line.
"""

from __future__ import annotations

from typing import Any, Final

from a2a.client.middleware import ClientCallContext
from a2a.types import AgentExtension, Task, TaskQueryParams

__all__ = [
    "agent_extension",
    "card_extension_uris",
    "get_task",
    "with_extensions",
    "with_http_headers",
]

_EXTENSIONS_HEADER: Final = "X-A2A-Extensions"


async def get_task(client: Any, task_id: str, history_length: int | None = None) -> Task:
    """``client.get_task`` of ``task_id`` (with at most ``history_length`` history messages)."""
    task: Task = await client.get_task(TaskQueryParams(id=task_id, history_length=history_length))
    return task


# -- extensions -------------------------------------------------------------------------------


def agent_extension(uri: str, description: str, required: bool, params: dict[str, str]) -> Any:
    """An ``AgentExtension`` for an agent card."""
    return AgentExtension(uri=uri, description=description, required=required, params=params)


def card_extension_uris(card: Any) -> list[str]:
    """The URIs of the extensions an agent card declares."""
    return [extension.uri for extension in card.capabilities.extensions or ()]


def with_extensions(context: ClientCallContext | None, uris: list[str]) -> ClientCallContext:
    """A copy of a client call context (or a new one) that asks for the extensions ``uris``
    (the ``X-A2A-Extensions`` HTTP header; 0.3's gRPC client sends only its own list)."""
    return with_http_headers(context, {_EXTENSIONS_HEADER: ",".join(uris)})


def with_http_headers(
    context: ClientCallContext | None, headers: dict[str, str]
) -> ClientCallContext:
    """A copy of a client call context (or a new one) whose HTTP calls also send ``headers``;
    the context's own headers win."""
    state = dict(context.state) if context is not None else {}
    http_kwargs = dict(state.get("http_kwargs") or {})
    http_kwargs["headers"] = {**headers, **(http_kwargs.get("headers") or {})}
    state["http_kwargs"] = http_kwargs
    return ClientCallContext(state=state)
