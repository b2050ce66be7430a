"""The caller's "tool call details" view of one turn: the live tree on a terminal, plain lines
anywhere else (CI, a pipe).

Both are `TurnView` sinks over one
`TurnModel`; `LiveView` picks one for a console.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console

from a2a_progress.cli.view.base import DEFAULT_TAIL, TurnView
from a2a_progress.cli.view.plain import PlainLines
from a2a_progress.cli.view.sink import ProgressSink, Update
from a2a_progress.cli.view.tree import LiveTree

__all__ = ["LiveTree", "LiveView", "PlainLines", "ProgressSink", "TurnView", "Update"]


def LiveView(  # noqa: N802 - it was a class and is used like one: `with LiveView(console) as view`
    console: Console,
    *,
    plain: bool | None = None,
    title: str = "",
    tail: int = DEFAULT_TAIL,
    clock: Callable[[], float] = time.monotonic,
    attached: bool = False,
) -> TurnView:
    """The view of one turn on ``console``; use it as a context manager around the updates.

    Args:
        console: where to draw. ``plain=None`` picks the live tree on a terminal and plain lines
            otherwise.
        title: the tree's root label (e.g. the agent's name).
        tail: how many of the latest output lines to keep under a tool call.
        clock: seconds, monotonic; durations are as the caller sees them.
        attached: the turn was running before it was watched (``--subscribe`` / ``--poll``
            TASK_ID): its summary says how long it was watched, not a made-up duration.
    """
    view = PlainLines if (not console.is_terminal if plain is None else plain) else LiveTree
    return view(console, title=title, tail=tail, clock=clock, attached=attached)
