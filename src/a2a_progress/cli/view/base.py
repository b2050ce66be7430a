"""What the plain lines and the live tree share: a console, a title and the turn's model."""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from types import TracebackType
from typing import ClassVar, Final, Self

from rich.console import Console

from a2a_progress.cli.view.model import TurnModel
from a2a_progress.cli.view.sink import Update
from a2a_progress.inert import inert

DEFAULT_TAIL: Final = 4


class TurnView(ABC):
    """Shows one turn on ``console``; use it as a context manager around the updates.

    Args:
        console: where to draw.
        title: the turn's heading (e.g. the agent's name; shown inert).
        tail: how many of the latest output lines to keep under a tool call.
        clock: seconds, monotonic; durations are as the caller sees them.
        attached: the turn was already running when it was attached to (``--subscribe``,
            ``--poll TASK_ID``): the outcome says how long it was watched, not a duration.
    """

    plain: ClassVar[bool]
    """True for the plain-line view, False for the live tree."""

    def __init__(
        self,
        console: Console,
        *,
        title: str = "",
        tail: int = DEFAULT_TAIL,
        clock: Callable[[], float] = time.monotonic,
        attached: bool = False,
    ) -> None:
        self.console = console
        self.title = inert(title, one_line=True)
        self.model = TurnModel(max(1, tail), clock, attached=attached)
        # A live view's refresh thread renders while the event loop feeds updates.
        self._lock = threading.Lock()

    @abstractmethod
    def update(self, item: Update) -> None:
        """Apply one update and show it."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        return None
