"""Why a turn failed, as a caller may show it: the agent's error message, redacted and bounded.

An exception that escapes an agent's ``execute()`` never becomes a FAILED status with a message:
a2a-sdk ends the call's stream with an error instead, carrying the exception's message as it is
(a JSON-RPC ``{"code": -32603, "message": ...}``, gRPC status details, a REST error body). That
message may quote anything the agent held, credentials included, so `error_text` passes it
through a `Redactor` before anyone shows it, then bounds it.
"""

from __future__ import annotations

import json
import re
from typing import Final

from a2a_progress.redaction import DEFAULT_REDACTOR, Redactor

ERROR_MAX_CHARS: Final = 512
"""The longest error text shown (then ``…``): enough to say what went wrong, never a dump."""

# a2a-sdk's gRPC client wraps the server's status: "gRPC Error UNKNOWN: Unexpected <class
# 'RuntimeError'>: the message" (the server's own wrapping of an unexpected exception).
_GRPC_WRAPPING: Final = re.compile(r"^gRPC Error \w+: (?:Unexpected <class '[\w.]+'>: )?")


def error_text(error: BaseException | str, redactor: Redactor = DEFAULT_REDACTOR) -> str:
    """The message of ``error`` on one line, redacted by ``redactor``, at most 512 characters.

    For a2a-sdk's errors it is the message the agent sent (what the transport wrapped around it
    is left out); for any other exception its ``str()``. Redacted before it is cut: a cut could
    shorten a credential below the length its pattern needs.

    Examples:
        >>> from a2a.utils.errors import InternalError
        >>> error_text(InternalError("db refused: password=hunter2"))
        'db refused: password=[REDACTED]'
    """
    if isinstance(error, str):
        text = error
    elif isinstance(message := getattr(error, "message", None), str):  # a2a-sdk's errors
        text = _unwrapped(message)
    else:
        try:
            text = str(error) or type(error).__name__
        except Exception:  # noqa: BLE001 - a broken __str__ must not hide the failure
            text = type(error).__name__
    text = " ".join(redactor.redact(text).split())
    return text if len(text) <= ERROR_MAX_CHARS else text[:ERROR_MAX_CHARS] + "…"


def _unwrapped(message: str) -> str:
    """The agent's words inside a transport's error text."""
    message = _GRPC_WRAPPING.sub("", message)
    if message.startswith("{"):  # a REST error body: {"error": {"message": ...}}
        try:
            body = json.loads(message)
        except ValueError:
            return message
        inner = body.get("error") if isinstance(body, dict) else None
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return message
