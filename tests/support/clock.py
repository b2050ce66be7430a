"""A monotonic clock a test moves by hand, for code that takes ``clock=`` (no sleeping)."""

from __future__ import annotations


class FakeClock:
    """Call it for the time; set or add to :attr:`now` to move it."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
