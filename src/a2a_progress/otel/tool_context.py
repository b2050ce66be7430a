"""Which span is current while a callee's tool runs: the rule, in one place.

The callee's ``execute()`` runs with its SERVER span current. A tool call's ``running`` update,
enqueued from the task that runs the tool, makes that tool's ``execute_tool`` span the current
span *of that task* (and of the tasks it starts from then on, which copy its context), so every
span the tool's code opens is a child of it. Its ``done`` / ``aborted`` update gives the context
back:

- Each task keeps the tools it made current as a stack (an immutable tuple in a
  `ContextVar`: a task started inside a tool inherits a copy, so tools run
  with ``asyncio.gather`` or a ``TaskGroup`` each nest their own work and never see each other's).
- When the innermost open tool closes, the context that was current just before it opened comes
  back (an agent's own span around the tool included) — unless the tool it was opened within has
  closed already (two tools closed out of order); then the innermost tool still open is current,
  else the exact context from before the first tool opened.
- Closing a tool that is not the innermost (out of order) leaves the innermost one current.
- A tool closed from another task (``cancel()``, the emitter aborting open calls at the end of
  the turn) is dropped from this task's stack at its next enqueue: a closed span never stays
  current past the task's next update.

What the agent's code attaches itself between two updates is its own to detach; the stack is
only consulted when an update is enqueued. ``execute()`` resets the stack and detaches its own
context at its end, which restores everything a tool attached in that task.
"""

from __future__ import annotations

import contextvars
from collections.abc import Sequence
from typing import Final

from opentelemetry import context, trace
from opentelemetry.context import Context

from a2a_progress.otel.tool_span import ToolSpan


class _Current:
    """A tool made current by this task: its span's context, and what was current before."""

    __slots__ = ("before", "context", "tool")

    def __init__(self, tool: ToolSpan, before: Context) -> None:
        self.tool = tool
        self.before = before
        self.context = trace.set_span_in_context(tool.span, before)


_Stack = tuple[_Current, ...]

_EMPTY: Final[_Stack] = ()
_stack: contextvars.ContextVar[_Stack] = contextvars.ContextVar(
    "a2a_progress_tool_stack", default=_EMPTY
)
# Whether `after_enqueue` has anything to do for an update that opened nothing: the task's
# stack, falsy when empty. Read in the queue itself, as most updates open no tool.
current_tools: Final = _stack.get


def reset() -> contextvars.Token[_Stack]:
    """Start a turn with no tool current; give the token to `restore` at its end."""
    return _stack.set(_EMPTY)


def restore(token: contextvars.Token[_Stack]) -> None:
    """Undo `reset` (in the task that called it)."""
    _stack.reset(token)


def after_enqueue(opened: Sequence[ToolSpan] | None) -> None:
    """Apply the rule after the current task enqueued an update that ``opened`` tool spans."""
    stack = _stack.get()
    if not stack and not opened:
        return  # the common case: no tool in this task, none opened
    current = None
    # A tool closed below the innermost (out of order) stays on the stack until the innermost
    # closes: then it tells that the context from before the innermost is no longer right.
    if stack and not stack[-1].tool.is_open:
        stack, current = _unwind(stack)
    if opened:
        before = current if current is not None else context.get_current()
        for tool in opened:
            if tool.is_open:
                entry = _Current(tool, before)
                stack = (*stack, entry)
                before = current = entry.context
    if current is None:
        return
    _stack.set(stack)
    context.attach(current)  # no detach: restore() and execute()'s own detach undo it


def _unwind(stack: _Stack) -> tuple[_Stack, Context]:
    """The stack without its closed innermost tools, and the context that is current then."""
    innermost, rest = stack[-1], list(stack[:-1])
    below_open = not rest or rest[-1].tool.is_open
    while rest and not rest[-1].tool.is_open:
        rest.pop()
    if below_open:
        return tuple(rest), innermost.before
    # The tool it was opened within is closed too: the innermost open one, else the start.
    return tuple(rest), rest[-1].context if rest else stack[0].before
