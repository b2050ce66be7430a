"""How an ending is classified for error panels: ``error.type`` and ``exception.type``.

The GenAI and draft A2A conventions ask for ``error.type`` on every operation that failed: the
protocol's error code when one is returned, else the exception's fully qualified name. A user's
cancellation is not a failure, on either side.
"""

from __future__ import annotations

import asyncio
from typing import Final

from opentelemetry.trace import Span, Status, StatusCode

from a2a_progress.otel import conventions as conv

_BUILTINS: Final = "builtins"


def qualified_name(kind: type[BaseException]) -> str:
    """``module.QualName`` of an exception class (just the name for a built-in one)."""
    module = getattr(kind, "__module__", None)
    name = getattr(kind, "__qualname__", None) or kind.__name__
    return name if not module or module == _BUILTINS else f"{module}.{name}"


def error_type(error: BaseException) -> str:
    """``error.type`` of an exception: the status code it carries (an HTTP status of a2a-sdk's
    client errors), else its fully qualified name."""
    code = getattr(error, "status_code", None)
    if isinstance(code, int) and not isinstance(code, bool):
        return str(code)
    return qualified_name(type(error))


def is_cancellation(error: BaseException | None) -> bool:
    """Whether ``error`` is a cancellation (the caller stopped, the task was canceled)."""
    return isinstance(error, asyncio.CancelledError)


def record_exception(span: Span, error: BaseException, message: str) -> None:
    """The ``exception`` event of ``error`` with its ``message`` (redacted and bounded).

    Not span.record_exception(): an agent's exception message may quote a credential, and a
    stack trace is unbounded.
    """
    span.add_event(
        conv.EXCEPTION_EVENT,
        {conv.EXCEPTION_TYPE: qualified_name(type(error)), conv.EXCEPTION_MESSAGE: message},
    )


def fail(span: Span, kind: str, description: str) -> None:
    """Mark ``span`` failed: ``error.type`` = ``kind``, status ERROR with ``description``."""
    span.set_attribute(conv.ERROR_TYPE, kind)
    span.set_status(Status(StatusCode.ERROR, description))
