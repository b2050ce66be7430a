"""Deliberately broken stand-ins, for the tests that check their comparison can fail."""

from __future__ import annotations

from a2a_progress.consumer import ProgressAssembler, Tracked
from a2a_progress.envelope import Envelope
from support.internals import turn_state


def count_without_window(
    self: ProgressAssembler, task_id: str, envelope: Envelope
) -> Tracked | None:
    """`ProgressAssembler.count_working` broken: any envelope of a live stream is taken,
    repeats included (the seq window is skipped)."""
    turn = turn_state(self, task_id)
    if turn is None or turn.awaiting_start:
        return None
    key = envelope.stream_key or envelope.tool_call_id or ""
    if key not in turn.streams:
        return None
    return turn.calls.track(envelope, key, None, False, None)
