"""The console every command prints to."""

from __future__ import annotations

import os
import sys
from typing import Final

from rich.console import Console

PLAIN_WIDTH: Final = 120


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """Let a closed stdout (``| head``) reach the command's own handler: exit 141.

        rich 14 and later call this, where its default exits with status 1, which ``watch``
        documents as "the task failed"; rich 13.7 raises the error itself.
        """
        raise BrokenPipeError


def output_console() -> Console:
    """The console for stdout.

    Off a terminal (CI, a pipe) rich would assume 80 columns, which cuts the trace waterfall's
    service names to "demo-cal…": use ``COLUMNS``, else 120. Plain lines never wrap anyway.
    """
    if sys.stdout.isatty():
        return _Console()
    return _Console(width=int(os.environ.get("COLUMNS", "") or PLAIN_WIDTH))
