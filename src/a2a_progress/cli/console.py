"""The console every command prints to."""

from __future__ import annotations

import os
import sys
from typing import Final

from rich.console import Console

PLAIN_WIDTH: Final = 120


def output_console() -> Console:
    """The console for stdout.

    Off a terminal (CI, a pipe) rich would assume 80 columns, which cuts the trace waterfall's
    service names to "demo-cal…": use ``COLUMNS``, else 120. Plain lines never wrap anyway.
    """
    if sys.stdout.isatty():
        return Console()
    return Console(width=int(os.environ.get("COLUMNS", "") or PLAIN_WIDTH))
