"""The request a caller sends to start (or continue) a turn: a user's text message."""

from __future__ import annotations

from a2a.helpers import new_text_message
from a2a.types import Role, SendMessageConfiguration, SendMessageRequest

__all__ = ["user_message"]


def user_message(
    text: str,
    *,
    context_id: str | None = None,
    task_id: str | None = None,
    return_immediately: bool = False,
) -> SendMessageRequest:
    """A ``SendMessageRequest`` carrying ``text`` as a new user message (fresh message id).

    ``context_id`` / ``task_id`` continue a conversation or a task (e.g. one that asked for
    input); ``return_immediately`` asks a non-streaming ``SendMessage`` to answer with the task
    at once instead of waiting for its end.
    """
    request = SendMessageRequest(
        message=new_text_message(text, context_id=context_id, task_id=task_id, role=Role.ROLE_USER)
    )
    if return_immediately:
        request.configuration.CopyFrom(SendMessageConfiguration(return_immediately=True))
    return request
