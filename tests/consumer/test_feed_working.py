"""``ProgressAssembler.feed_working``: the callee bridge's way in for its own emitter's updates.

It must be :meth:`feed` of the same WORKING update in every respect (outcomes, updates, calls
and their end reasons, the turn's end), only without reading the event again: checked on
generated mixes of envelopes, duplicates, late and out-of-order seqs, aborted and superseded
calls, hand-written updates without an envelope, and every way a turn ends.
"""

from __future__ import annotations

from typing import Any

from a2a.types.a2a_pb2 import TaskState
from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_progress.consumer import (
    CallRecord,
    Outcome,
    ProgressAssembler,
    ProgressUpdate,
    TurnOutcome,
)
from a2a_progress.envelope import Envelope, Status
from support.events import append, call, plain, terminal, think, working

_KEYS = ("c1", "c2", None)


@st.composite
def _steps(draw: st.DrawFn) -> list[tuple[str, Any]]:
    steps: list[tuple[str, Any]] = []
    for _ in range(draw(st.integers(0, 30))):
        seq = draw(st.integers(1, 12))
        key = draw(st.sampled_from(_KEYS))
        choice = draw(st.sampled_from(("think", "start", "done", "aborted", "append", "plain")))
        if choice == "think":
            steps.append(("envelope", think(seq, "hm", key)))
        elif choice == "start":
            steps.append(("envelope", call(seq, key)))
        elif choice in {"done", "aborted"}:
            status = Status.DONE if choice == "done" else Status.ABORTED
            steps.append(("envelope", call(seq, key, status)))
        elif choice == "append" and key is not None:
            steps.append(("envelope", append(seq, key)))
        else:
            steps.append(("plain", "a hand-written update"))
    end = draw(
        st.sampled_from(
            (
                TaskState.TASK_STATE_COMPLETED,
                TaskState.TASK_STATE_FAILED,
                TaskState.TASK_STATE_CANCELED,
                None,  # the stream ends without a verdict: close()
            )
        )
    )
    steps.append(("end", end))
    return steps


def _call(call_record: CallRecord | None) -> object:
    if call_record is None:
        return None
    return (call_record.key, call_record.tool, call_record.first_seq, call_record.last_seq,
            call_record.end_reason)  # fmt: skip


def _summary(updates: list[Any]) -> list[object]:
    out: list[object] = []
    for update in updates:
        if isinstance(update, TurnOutcome):
            out.append(("turn", update.state, update.terminal, [_call(c) for c in update.closed]))
        else:
            assert isinstance(update, ProgressUpdate)
            out.append(
                (update.envelope, update.fallback, update.degraded, update.late,
                 _call(update.call), update.opened, [_call(c) for c in update.closed])
            )  # fmt: skip
    return out


def _run(steps: list[tuple[str, Any]], *, handed: bool) -> tuple[list[object], list[Outcome]]:
    outcomes: list[Outcome] = []
    assembler = ProgressAssembler(on_outcome=outcomes.append, dialects="none")
    seen: list[object] = []
    for what, value in steps:
        if what == "envelope":
            envelope: Envelope = value
            event = working(envelope, "the fallback")
            if handed:
                update = event.status_update
                seen += _summary(
                    assembler.feed_working(
                        update.task_id, update.context_id, update.status, envelope, "the fallback"
                    )
                )
            else:
                seen += _summary(assembler.feed(event))
        elif what == "plain":
            seen += _summary(assembler.feed(plain(value)))
        elif value is None:
            seen += _summary(assembler.close())
        else:
            seen += _summary(assembler.feed(terminal(value, "bye")))
            # After the verdict, a late envelope is counted after_terminal either way.
            late = working(think(99), "late")
            if handed:
                update = late.status_update
                seen += _summary(
                    assembler.feed_working("t1", "ctx", update.status, think(99), "late")
                )
            else:
                seen += _summary(assembler.feed(late))
    return seen, outcomes


@settings(max_examples=300, deadline=None)
@given(_steps())
def test_feed_working_is_feed_of_the_same_update(steps: list[tuple[str, Any]]) -> None:
    assert _run(steps, handed=True) == _run(steps, handed=False)


def test_a_duplicate_and_a_superseded_call_through_feed_working() -> None:
    steps: list[tuple[str, Any]] = [
        ("envelope", call(1, "c1")),
        ("envelope", call(1, "c1")),  # the same (stream, seq) again
        ("envelope", call(2, "c1")),  # a new start on an open stream supersedes it
        ("end", TaskState.TASK_STATE_CANCELED),
    ]
    seen, outcomes = _run(steps, handed=True)
    assert outcomes.count(Outcome.DUPLICATE) == 1
    assert outcomes.count(Outcome.AFTER_TERMINAL) == 1
    assert (seen, outcomes) == _run(steps, handed=False)
    turn = seen[-1]
    assert isinstance(turn, tuple)
    assert turn[0] == "turn"
    assert [c[-1].value for c in turn[3]] == ["turn_canceled"]  # type: ignore[index]
