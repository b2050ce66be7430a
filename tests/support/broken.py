"""Deliberately broken stand-ins, for the tests that check their comparison can fail."""

from __future__ import annotations

from a2a_progress.consumer import ProgressAssembler, Tracked
from a2a_progress.envelope.codec import EnvelopeFields
from support.internals import turn_state


def count_without_window(
    self: ProgressAssembler, task_id: str, fields: EnvelopeFields
) -> Tracked | None:
    """`ProgressAssembler.count_working` broken: any envelope of a live stream is taken,
    repeats included (the seq window is skipped)."""
    turn = turn_state(self, task_id)
    if turn is None or turn.awaiting_start:
        return None
    kind, seq, payload, status, stream_key = fields
    call_id = payload.get("tool_call_id")
    key = stream_key or (call_id if isinstance(call_id, str) else None) or ""
    if key not in turn.streams:
        return None
    return turn.calls.track(kind, seq, status, stream_key, payload, key, None, False, None)
