"""``ProgressAssembler.count_working``: the norm of a consumer that only counts.

Whatever it consumes must be exactly what `feed_working` consumes, with the same effect on the
turn's tool calls (handed back instead of told to ``on_accepted``), and whatever it declines
(None) it must leave untouched, so that `feed_working` of the same update gives what it would
have alone. Checked on generated mixes of envelopes over two tasks: duplicates, late and
out-of-order seqs, stale ones (a small reorder window), streams forgotten past a small
``max_streams`` (their open call ends ``stream_closed``), aborted and superseded calls,
hand-written updates, turns that end and envelopes after their verdict. A deliberately broken
counting path (one that skips the seq window) must make the comparison fail.
"""

from __future__ import annotations

from typing import Any

import pytest
from a2a.types.a2a_pb2 import TaskState
from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_progress.consumer import CallRecord, Outcome, ProgressAssembler, Tracked, TurnOutcome
from a2a_progress.envelope import Envelope, Kind, Rejected, Status, encode
from a2a_progress.envelope.codec import EnvelopeFields, decode_fields
from support.broken import count_without_window
from support.events import append, call, plain, terminal, think

_KEYS = ("c1", "c2", "c3", None)
_TASKS = ("t1", "t2")
_ENDS = (TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, None)

Step = tuple[str, str, Any]


@st.composite
def _steps(draw: st.DrawFn) -> list[Step]:
    steps: list[Step] = []
    for _ in range(draw(st.integers(0, 40))):
        task = draw(st.sampled_from(_TASKS))
        seq = draw(st.integers(1, 14))
        key = draw(st.sampled_from(_KEYS))
        choice = draw(
            st.sampled_from(("think", "start", "done", "aborted", "append", "plain", "repeat"))
        )
        if choice == "think":
            steps.append(("envelope", task, think(seq, "hm", key)))
        elif choice == "start":
            steps.append(("envelope", task, call(seq, key)))
        elif choice in {"done", "aborted"}:
            status = Status.DONE if choice == "done" else Status.ABORTED
            steps.append(("envelope", task, call(seq, key, status)))
        elif choice == "append" and key is not None:
            steps.append(("envelope", task, append(seq, key)))
        elif choice == "repeat" and steps:
            steps.append(draw(st.sampled_from(steps)))
        elif choice == "plain":
            steps.append(("plain", task, "a hand-written update"))
        if draw(st.integers(0, 15)) == 0:  # now and then a turn ends mid-stream
            steps.append(("end", task, draw(st.sampled_from(_ENDS))))
    return steps


def _fields(envelope: Envelope) -> EnvelopeFields:
    """What a counting reader hands count_working: the envelope's fields read off its wire
    form, as the bridge reads a received envelope (`decode_fields`)."""
    fields = decode_fields(encode(envelope))
    assert not isinstance(fields, Rejected)
    return fields


def _call(record: CallRecord | None) -> object:
    if record is None:
        return None
    return (record.index, record.key, record.tool, record.first_seq, record.last_seq,
            record.end_reason)  # fmt: skip


def _effect(envelope: Envelope, record: CallRecord | None, opened: bool, closed: Any) -> object:
    return ("accepted", envelope, _call(record), opened, [_call(c) for c in closed])


def _run(
    steps: list[Step], *, counting: bool, window: int, streams: int
) -> tuple[list[object], list[Outcome]]:
    """What ``steps`` do to an assembler: every accepted envelope's effect, every other
    outcome, each ended turn's closed calls and the ``last_outcome`` after each step.
    ``counting``: envelopes go through count_working first, feed_working when it declines."""
    seen: list[object] = []
    outcomes: list[Outcome] = []

    def accepted(envelope: Envelope, record: CallRecord | None, opened: bool, closed: Any) -> None:
        seen.append(_effect(envelope, record, opened, closed))

    assembler = ProgressAssembler(
        reorder_window=window,
        max_streams=streams,
        on_outcome=outcomes.append,
        dialects="none",
        on_accepted=accepted,
    )

    def ended(updates: list[Any]) -> None:
        for update in updates:
            if isinstance(update, TurnOutcome):
                seen.append(("turn", update.task_id, [_call(c) for c in update.closed]))

    for what, task, value in steps:
        if what == "envelope":
            tracked: Tracked | None = None
            if counting:
                tracked = assembler.count_working(task, _fields(value))
            if tracked is None:
                ended(assembler.feed_working(task, "ctx", None, value, "the fallback"))
            else:
                seen.append(_effect(value, *tracked))
        elif what == "plain":
            ended(assembler.feed(plain(value, task_id=task)))
        elif value is None:
            ended(assembler.close(task_ids=[task]))
        else:
            ended(assembler.feed(terminal(value, "bye", task_id=task)))
        seen.append(assembler.last_outcome)
    ended(assembler.close())
    return seen, outcomes


_WINDOWS = st.sampled_from((3, 1024))
_STREAMS = st.sampled_from((2, 16384))


@settings(max_examples=300, deadline=None)
@given(_steps(), _WINDOWS, _STREAMS)
def test_count_working_consumes_what_feed_working_does(
    steps: list[Step], window: int, streams: int
) -> None:
    assert _run(steps, counting=True, window=window, streams=streams) == _run(
        steps, counting=False, window=window, streams=streams
    )


_CHECKED: list[Step] = [
    ("envelope", "t1", think(1)),  # the turn's first update: declined, fed the general way
    ("envelope", "t1", call(3, "c1")),  # a new stream
    ("envelope", "t1", call(2, "c1")),  # late: the start of the open call, no new call
    ("envelope", "t1", call(3, "c1")),  # a duplicate: declined, counted a duplicate
    ("envelope", "t1", think(9, "far ahead", "c2")),
    ("envelope", "t1", think(4, "stale", "c2")),  # stale in a window of 3
    ("envelope", "t1", call(5, "c3")),  # a third stream: c1's open call is forgotten
    ("envelope", "t1", call(6, "c3", Status.DONE)),
    ("end", "t1", TaskState.TASK_STATE_COMPLETED),
    ("envelope", "t1", think(10)),  # after the verdict
]


def test_the_checked_stream_reaches_every_branch() -> None:
    """The example above is counted as the comments say, both ways."""
    seen, outcomes = _run(_CHECKED, counting=True, window=3, streams=2)
    assert outcomes == [Outcome.DUPLICATE, Outcome.STALE, Outcome.AFTER_TERMINAL]
    forgotten = [effect for effect in seen if isinstance(effect, tuple) and effect[0] == "accepted"]
    assert [c[-1] for c in forgotten[4][4]] == ["stream_closed"]  # type: ignore[index]
    assert (seen, outcomes) == _run(_CHECKED, counting=False, window=3, streams=2)


def test_the_comparison_catches_a_counting_path_that_skips_the_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ProgressAssembler, "count_working", count_without_window)
    assert _run(_CHECKED, counting=True, window=3, streams=2) != _run(
        _CHECKED, counting=False, window=3, streams=2
    )


# Payload values an envelope's tool_call_id and tool may hold: what Envelope's properties read
# as absent ("", not a string) and what they keep (a str subclass included).
class _Name(str):
    pass


_IDS = st.one_of(st.none(), st.sampled_from(["", "c1", "c2", _Name("c1")]), st.integers(0, 2))


@settings(max_examples=150, deadline=None)
@given(
    first=_IDS,
    second=_IDS,
    key=st.sampled_from([None, "", "c1"]),
    tool=st.sampled_from(["search", _Name("grep"), ""]),
)
def test_stream_and_call_read_as_the_envelope_properties_say(
    first: Any, second: Any, key: str | None, tool: str
) -> None:
    """The assembler and `CallRecord` read an envelope's stream, tool and tool call id from
    its payload in place (hot paths): exactly what `Envelope.stream_id`, ``.tool`` and
    ``.tool_call_id`` say, for odd values too (an empty or non-string id on a text envelope,
    a str subclass, an empty tool name)."""
    start = Envelope(
        Kind.TOOL_CALL, 1, {"tool": tool, "tool_call_id": _str_or_none(first)}, Status.RUNNING, key
    )
    record = CallRecord(start, 0)
    assert (record.key, record.tool, record.tool_call_id) == (
        start.stream_id,
        start.tool or "",
        start.tool_call_id,
    )
    # Two thinking envelopes of the same seq repeat each other exactly when their streams (the
    # seq windows') are the same: through feed_working (the rules) and count_working.
    texts = [
        Envelope(Kind.THINKING, 2, {"text": "hm", "tool_call_id": value}, stream_key=key)
        for value in (first, second)
    ]
    for counting in (False, True):
        assembler = ProgressAssembler()
        assembler.feed_working("t1", "ctx", None, think(1, "first"), "")
        outcomes = []
        for envelope in texts:
            if not counting or assembler.count_working("t1", _fields(envelope)) is None:
                assembler.feed_working("t1", "ctx", None, envelope, "")
            outcomes.append(assembler.last_outcome)
        same = texts[0].stream_id == texts[1].stream_id
        assert outcomes == [Outcome.ACCEPTED, Outcome.DUPLICATE if same else Outcome.ACCEPTED]


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
