"""What every output of a turn implements: the plain lines, the live tree, JSON lines."""

from __future__ import annotations

from typing import Protocol

from a2a_progress.consumer import ProgressUpdate, TurnOutcome

Update = ProgressUpdate | TurnOutcome


class ProgressSink(Protocol):
    """Anything that shows a turn's updates: the live view, or JSON lines."""

    def update(self, item: Update) -> None:
        """Show one update (progress, or the turn's outcome)."""
