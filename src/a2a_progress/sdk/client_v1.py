"""The a2a-sdk 1.x client's calls and extension negotiation, beside the `v1` adapter.

What a caller does once per call or per card, never per update: fetch a task
(`get_task`), declare an extension on an agent card (`agent_extension`), read the extensions
a card declares (`card_extension_uris`) and ask for them in a call's context
(`with_extensions`). Imported through `a2a_progress.sdk.adapter` only when 1.x is the installed
line; `client_v03` offers the same names for 0.3.
"""

from __future__ import annotations

from typing import Any

from a2a.client.client import ClientCallContext
from a2a.client.service_parameters import ServiceParametersFactory, with_a2a_extensions
from a2a.types.a2a_pb2 import AgentExtension, GetTaskRequest, Task

__all__ = ["agent_extension", "card_extension_uris", "get_task", "with_extensions"]


async def get_task(client: Any, task_id: str, history_length: int | None = None) -> Task:
    """``client.get_task`` of ``task_id`` (with at most ``history_length`` history messages)."""
    request = GetTaskRequest(id=task_id)
    if history_length is not None:
        request.history_length = history_length
    task: Task = await client.get_task(request)
    return task


# -- extensions -------------------------------------------------------------------------------


def agent_extension(
    uri: str, description: str, required: bool, params: dict[str, str]
) -> AgentExtension:
    """An ``AgentExtension`` for an agent card."""
    extension = AgentExtension(uri=uri, description=description)
    extension.required = required
    extension.params.update(params)
    return extension


def card_extension_uris(card: Any) -> list[str]:
    """The URIs of the extensions an agent card declares."""
    return [extension.uri for extension in card.capabilities.extensions]


def with_extensions(context: ClientCallContext | None, uris: list[str]) -> ClientCallContext:
    """A copy of a client call context (or a new one) that asks for the extensions ``uris``."""
    base = context if context is not None else ClientCallContext()
    parameters = ServiceParametersFactory.create_from(
        base.service_parameters, [with_a2a_extensions(uris)]
    )
    return base.model_copy(update={"service_parameters": parameters})
