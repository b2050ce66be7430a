"""The caller side: ProgressAssembler and follow() fed real a2a protobuf events, built with the
producer's own carrier, against the spec's consumer rules (3, 4 and 8)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any

import pytest
from a2a.types.a2a_pb2 import (
    Artifact,
    GetTaskRequest,
    Message,
    Part,
    Role,
    StreamResponse,
    Task,
    TaskState,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_progress.consumer import (
    EndReason,
    Outcome,
    ProgressAssembler,
    ProgressUpdate,
    TurnOutcome,
    Update,
    follow,
    outcome_of_rejection,
    poll_task,
)
from a2a_progress.envelope import (
    HARD_LIMIT_BYTES,
    Envelope,
    Kind,
    Rejected,
    RejectReason,
    Status,
    encode,
)
from a2a_progress.sdk.adapter import envelope_part
from support.events import (
    append,
    artifact_event,
    call,
    envelope_message,
    message,
    plain,
    snapshot,
    status_event,
    terminal,
    think,
    working,
)
from support.internals import finished_remembered, turn_state

WORKING = TaskState.TASK_STATE_WORKING
COMPLETED = TaskState.TASK_STATE_COMPLETED
FAILED = TaskState.TASK_STATE_FAILED
CANCELED = TaskState.TASK_STATE_CANCELED
REJECTED = TaskState.TASK_STATE_REJECTED
INPUT_REQUIRED = TaskState.TASK_STATE_INPUT_REQUIRED
AUTH_REQUIRED = TaskState.TASK_STATE_AUTH_REQUIRED


def feed_all(assembler: ProgressAssembler, events: Iterable[Any]) -> list[Update]:
    updates: list[Update] = []
    for event in events:
        updates.extend(assembler.feed(event))
    return updates


def progress_of(updates: Iterable[Update]) -> list[ProgressUpdate]:
    return [u for u in updates if isinstance(u, ProgressUpdate)]


def outcomes_of(updates: Iterable[Update]) -> list[TurnOutcome]:
    return [u for u in updates if isinstance(u, TurnOutcome)]


# -- the ordinary stream --------------------------------------------------------------------------


@pytest.mark.parametrize("wrapped", [True, False], ids=["StreamResponse", "bare-events"])
def test_in_order_stream(wrapped: bool) -> None:
    envelopes = [think(1), call(2), append(3), call(4, status=Status.DONE), think(5, "after")]
    events: list[Any] = [working(e) for e in envelopes] + [terminal(COMPLETED, "the answer")]
    if not wrapped:
        events = [e.status_update for e in events]
    assembler = ProgressAssembler()
    updates: list[Update] = []
    outcomes_seen = []
    for event in events:
        updates += assembler.feed(event)
        outcomes_seen.append(assembler.last_outcome)
    assert outcomes_seen == [Outcome.ACCEPTED] * 5 + [Outcome.NONE]
    progress = progress_of(updates)
    assert [u.envelope for u in progress] == envelopes
    assert all(not u.late and not u.degraded and u.rejected is None for u in progress)
    assert all((u.task_id, u.context_id) == ("t1", "ctx") for u in progress)
    assert [u.fallback for u in progress] == ["hm", "fallback", "out\n", "fallback", "after"]
    started, output, ended = progress[1], progress[2], progress[3]
    record = started.call
    assert record is not None
    assert started.opened
    assert started.closed == ()
    assert output.call is record
    assert not output.opened
    assert ended.call is record
    assert ended.closed == (record,)
    assert record.end_reason is EndReason.DONE
    assert record.status is Status.DONE
    assert (record.tool, record.tool_call_id, record.key, record.index) == ("search", "c1", "c1", 0)
    assert (record.first_seq, record.last_seq) == (2, 4)
    assert progress[0].call is None
    assert progress[4].call is None
    [outcome] = outcomes_of(updates)
    assert outcome == updates[-1]
    assert outcome.terminal
    assert outcome.succeeded
    assert outcome.state == COMPLETED
    assert outcome.state_name == "TASK_STATE_COMPLETED"
    assert outcome.reply == "the answer"
    assert outcome.message is not None
    assert outcome.message.parts[0].text == "the answer"
    assert outcome.closed == ()
    assert assembler.live_turns == 0


def test_feeding_does_not_change_the_events() -> None:
    events = [working(think(1)), working(call(2)), artifact_event("a", "x"), terminal(COMPLETED)]
    before = [e.SerializeToString(deterministic=True) for e in events]
    feed_all(ProgressAssembler(), events)
    assert [e.SerializeToString(deterministic=True) for e in events] == before


def test_empty_stream_response_and_status_without_message_yield_nothing() -> None:
    assembler = ProgressAssembler()
    assert assembler.feed(StreamResponse()) == []
    assert assembler.feed(terminal(WORKING)) == []
    assert assembler.feed(terminal(TaskState.TASK_STATE_SUBMITTED, "queued")) == []
    assert assembler.live_turns == 1


# -- duplicates, late arrival, the reorder window -------------------------------------------------


def test_same_stream_and_seq_is_consumed_once() -> None:
    assembler = ProgressAssembler()
    first = working(think(1, "a"))
    assert len(assembler.feed(first)) == 1
    assert assembler.feed(first) == []
    assert assembler.last_outcome is Outcome.DUPLICATE
    # Same (stream, seq) in another message with other content: still the same envelope slot.
    assert assembler.feed(working(think(1, "other text"))) == []
    assert assembler.last_outcome is Outcome.DUPLICATE
    # The same seq on another stream is another envelope.
    assert len(assembler.feed(working(think(1, "k", key="other")))) == 1


def test_late_arrival_is_flagged() -> None:
    assembler = ProgressAssembler()
    updates = feed_all(assembler, [working(think(1)), working(think(5)), working(think(3))])
    assert [u.late for u in progress_of(updates)] == [False, False, True]
    assert assembler.last_outcome is Outcome.ACCEPTED
    # A late seq already seen is a duplicate, not a second late arrival.
    assert assembler.feed(working(think(3))) == []
    # Lateness is per stream: a low seq on a fresh stream is not late.
    [fresh] = assembler.feed(working(think(2, key="s2")))
    assert isinstance(fresh, ProgressUpdate)
    assert not fresh.late


def test_beyond_the_reorder_window_is_dropped_as_stale() -> None:
    assembler = ProgressAssembler(reorder_window=4)
    feed_all(assembler, [working(think(10))])
    assert assembler.feed(working(think(6))) == []
    assert assembler.last_outcome is Outcome.STALE
    [inside] = assembler.feed(working(think(7)))
    assert isinstance(inside, ProgressUpdate)
    assert inside.late
    # A big jump forward resets the window; the old top is now stale.
    feed_all(assembler, [working(think(1000))])
    assert assembler.feed(working(think(11))) == []
    assert assembler.last_outcome is Outcome.STALE


@pytest.mark.parametrize("start", [0, -(10**12), 2**53 + 1, 10**30])
def test_any_seq_start_works(start: int) -> None:
    assembler = ProgressAssembler()
    seqs = [start, start + 2, start + 1, start + 2]
    updates = feed_all(assembler, [working(think(s)) for s in seqs])
    assert [u.envelope.seq for u in progress_of(updates)] == [start, start + 2, start + 1]
    assert [u.late for u in progress_of(updates)] == [False, False, True]


# -- degraded updates -----------------------------------------------------------------------------


def test_plain_text_working_update_degrades_to_a_text_pseudo_envelope() -> None:
    assembler = ProgressAssembler()
    [update] = assembler.feed(plain("Calling tool search"))
    assert isinstance(update, ProgressUpdate)
    assert update.degraded
    assert update.rejected is None
    assert update.envelope.kind is Kind.TEXT
    assert update.envelope.content == "Calling tool search"
    assert update.fallback == "Calling tool search"
    assert update.call is None
    assert assembler.last_outcome is Outcome.DEGRADED


def test_working_update_with_nothing_to_show_yields_nothing() -> None:
    assembler = ProgressAssembler()
    empty = message([], task_id="t1")
    assert assembler.feed(status_event(WORKING, empty)) == []


def _metadata_part(value: Any) -> Part:
    return Part(text="fallback text", metadata={"tfrs": value})


BAD_ENVELOPES: dict[str, tuple[Any, RejectReason]] = {
    "not-json": ("Calling tool", RejectReason.NOT_JSON),
    "nan": ('{"v":1,"kind":"text","seq":NaN,"status":"running","payload":{"text":"a"}}',
            RejectReason.NOT_JSON),
    "array": ("[1,2]", RejectReason.NOT_AN_OBJECT),
    "no-version": ('{"kind":"text","seq":1,"status":"running","payload":{"text":"a"}}',
                   RejectReason.BAD_VERSION),
    "v2": ('{"v":2,"kind":"text","seq":1,"status":"running","payload":{"text":"a"}}',
           RejectReason.UNKNOWN_VERSION),
    "kind": ('{"v":1,"kind":"blob","seq":1,"status":"running","payload":{}}',
             RejectReason.BAD_KIND),
    "status": ('{"v":1,"kind":"text","seq":1,"status":"paused","payload":{"text":"a"}}',
               RejectReason.BAD_STATUS),
    "seq": ('{"v":1,"kind":"text","seq":"1","status":"running","payload":{"text":"a"}}',
            RejectReason.BAD_SEQ),
    "stream-key": ('{"v":1,"kind":"text","streamKey":7,"seq":1,"status":"running",'
                   '"payload":{"text":"a"}}', RejectReason.BAD_STREAM_KEY),
    "payload": ('{"v":1,"kind":"tool_call","seq":1,"status":"running","payload":{"tool":1}}',
                RejectReason.BAD_PAYLOAD),
    "oversize": ("x" * (HARD_LIMIT_BYTES + 1), RejectReason.OVERSIZE),
    "number": (42, RejectReason.NOT_A_STRING),
    "struct": ({"v": 1, "kind": "text"}, RejectReason.NOT_A_STRING),
    "list": ([1, "a"], RejectReason.NOT_A_STRING),
    "null": (None, RejectReason.NOT_A_STRING),
}  # fmt: skip


@pytest.mark.parametrize(("value", "reason"), BAD_ENVELOPES.values(), ids=list(BAD_ENVELOPES))
def test_every_bad_envelope_degrades_and_says_why(value: Any, reason: RejectReason) -> None:
    assembler = ProgressAssembler()
    msg = message([_metadata_part(value)], mid="bad-1")
    event = StreamResponse(status_update=status_event(WORKING, msg))
    [update] = assembler.feed(event)
    assert isinstance(update, ProgressUpdate)
    assert update.degraded
    assert isinstance(update.rejected, Rejected)
    assert update.rejected.reason is reason
    assert update.envelope.content == "fallback text"
    assert update.fallback == "fallback text"
    assert update.call is None
    assert assembler.last_outcome is Outcome.DEGRADED
    # The same message again (same message id) is consumed once.
    assert assembler.feed(event) == []
    assert assembler.last_outcome is Outcome.DUPLICATE


@pytest.mark.parametrize(
    ("reason", "outcome"),
    [
        (RejectReason.UNKNOWN_VERSION, Outcome.UNKNOWN_VERSION),
        (RejectReason.OVERSIZE, Outcome.OVERSIZE),
        *[
            (r, Outcome.INVALID)
            for r in RejectReason
            if r not in (RejectReason.UNKNOWN_VERSION, RejectReason.OVERSIZE)
        ],
    ],
)
def test_outcome_of_rejection(reason: RejectReason, outcome: Outcome) -> None:
    assert outcome_of_rejection(Rejected(reason, "x")) is outcome


def test_degraded_updates_are_deduplicated_by_message_id_only() -> None:
    assembler = ProgressAssembler()
    assert len(assembler.feed(plain("same", mid="a"))) == 1
    assert assembler.feed(plain("same", mid="a")) == []
    assert len(assembler.feed(plain("same", mid="b"))) == 1  # same text, another message


def test_only_the_first_envelope_of_a_message_counts() -> None:
    assembler = ProgressAssembler()
    parts = [
        Part(text="intro"),
        envelope_part(encode(think(1, "first")), "first"),
        envelope_part(encode(think(2, "second")), "second"),
    ]
    [update] = assembler.feed(StreamResponse(status_update=status_event(WORKING, message(parts))))
    assert isinstance(update, ProgressUpdate)
    assert update.envelope.content == "first"
    assert update.fallback == "intro\nfirst\nsecond"


# -- tool calls -----------------------------------------------------------------------------------


def test_done_before_running_gives_exactly_one_call() -> None:
    assembler = ProgressAssembler()
    updates = feed_all(
        assembler,
        [working(call(5, status=Status.DONE)), working(append(3)), working(call(2))],
    )
    done, output, start = progress_of(updates)
    record = done.call
    assert record is not None
    assert done.opened
    assert done.closed == (record,)
    assert record.end_reason is EndReason.DONE
    assert output.call is None or output.call is record
    assert start.call is record
    assert not start.opened
    assert start.closed == ()
    assert start.late
    assert sum(u.opened for u in progress_of(updates)) == 1
    [outcome] = assembler.feed(terminal(COMPLETED))
    assert isinstance(outcome, TurnOutcome)
    assert outcome.closed == ()


@pytest.mark.parametrize("end", [Status.DONE, Status.ABORTED])
def test_end_before_running_keeps_the_end_reason(end: Status) -> None:
    assembler = ProgressAssembler()
    [first] = assembler.feed(working(call(9, status=end)))
    assert isinstance(first, ProgressUpdate)
    assert first.call is not None
    expected = EndReason.DONE if end is Status.DONE else EndReason.ABORTED
    assert first.call.end_reason is expected
    assert first.call.status is end


def test_duplicate_running_gives_no_second_call() -> None:
    assembler = ProgressAssembler()
    event = working(call(2))
    [first] = assembler.feed(event)
    assert assembler.feed(event) == []
    assert isinstance(first, ProgressUpdate)
    assert first.call is not None
    assert assembler.open_calls("t1") == [first.call]


def test_late_start_of_an_open_call_opens_nothing_new() -> None:
    assembler = ProgressAssembler()
    updates = feed_all(assembler, [working(call(4)), working(call(2))])
    first, late = progress_of(updates)
    assert late.call is first.call
    assert not late.opened
    assert late.closed == ()
    assert first.call is not None
    assert first.call.first_seq == 2


def test_a_new_running_on_an_open_key_supersedes() -> None:
    assembler = ProgressAssembler()
    updates = feed_all(assembler, [working(call(2, tool="a")), working(call(5, tool="b"))])
    first, second = progress_of(updates)
    old, new = first.call, second.call
    assert old is not None
    assert new is not None
    assert old is not new
    assert second.opened
    assert second.closed == (old,)
    assert old.end_reason is EndReason.SUPERSEDED
    assert old.status is Status.ABORTED
    assert new.is_open
    assert (new.tool, new.index) == ("b", 1)
    assert assembler.open_calls("t1") == [new]


def test_sequential_calls_on_the_aggregated_stream() -> None:
    assembler = ProgressAssembler()
    events = [
        working(call(1, key=None, tool="a")),
        working(call(2, key=None, tool="a", status=Status.DONE)),
        working(call(3, key=None, tool="b")),
        working(call(4, key=None, tool="b", status=Status.ABORTED)),
    ]
    updates = progress_of(feed_all(assembler, events))
    records = [u.call for u in updates]
    assert records[0] is records[1]
    assert records[2] is records[3]
    assert records[0] is not records[2]
    assert all(r is not None and r.key == "" for r in records)
    assert records[0] is not None
    assert records[0].end_reason is EndReason.DONE
    assert records[2] is not None
    assert records[2].end_reason is EndReason.ABORTED


def test_progress_on_a_call_stream_is_attached_to_the_call() -> None:
    assembler = ProgressAssembler()
    updates = progress_of(feed_all(assembler, [working(call(1)), working(think(2, key="c1"))]))
    assert updates[1].call is updates[0].call
    assert updates[1].call is not None
    assert updates[1].call.last_seq == 2


TERMINALS = [
    (COMPLETED, EndReason.TURN_COMPLETED, Status.DONE),
    (FAILED, EndReason.TURN_FAILED, Status.ABORTED),
    (CANCELED, EndReason.TURN_CANCELED, Status.ABORTED),
    (REJECTED, EndReason.TURN_FAILED, Status.ABORTED),
]


@pytest.mark.parametrize(("state", "reason", "call_status"), TERMINALS)
def test_terminal_state_closes_open_calls(
    state: int, reason: EndReason, call_status: Status
) -> None:
    assembler = ProgressAssembler()
    updates = feed_all(
        assembler,
        [
            working(call(1, "a")),
            working(call(2, "b")),
            working(call(3, "b", Status.DONE)),
            working(call(4, "c")),
            # An envelope may say "error" or "done": the terminal state still decides.
            working(Envelope(Kind.ERROR, 5, {"message": "oops"})),
        ],
    )
    a, b, c = (u.call for u in progress_of(updates)[:4:] if u.opened)
    [outcome] = assembler.feed(terminal(state, "final words"))
    assert isinstance(outcome, TurnOutcome)
    assert outcome.terminal
    assert outcome.state == state
    assert outcome.succeeded is (state == COMPLETED)
    assert outcome.reply == "final words"
    assert outcome.closed == (a, c)
    assert a is not None
    assert c is not None
    assert b is not None
    assert a.end_reason is reason
    assert c.end_reason is reason
    assert a.status is call_status
    assert b.end_reason is EndReason.DONE
    assert assembler.open_calls("t1") == []
    assert assembler.live_turns == 0


def test_reply_comes_from_the_artifacts_when_the_status_has_no_text() -> None:
    assembler = ProgressAssembler()
    updates = feed_all(
        assembler,
        [
            working(think(1)),
            artifact_event("answer", "Hel"),
            artifact_event("answer", "lo, ", append=True),
            artifact_event("notes", "a note"),
            artifact_event("answer", "world", append=True),
            terminal(COMPLETED),
        ],
    )
    [outcome] = outcomes_of(updates)
    # Appended chunks continue the text they follow; separate artifacts are separate lines.
    assert outcome.reply.split("\n") == ["Hello, world", "a note"]
    assert [a.artifact_id for a in outcome.artifacts] == ["answer", "notes"]
    assert [p.text for p in outcome.artifacts[0].parts] == ["Hello, world"]


def test_a_non_append_artifact_replaces_the_earlier_one() -> None:
    assembler = ProgressAssembler()
    events = [artifact_event("a", "old"), artifact_event("a", "new"), terminal(COMPLETED)]
    [outcome] = outcomes_of(feed_all(assembler, events))
    assert outcome.reply == "new"


def test_an_append_to_an_unknown_artifact_starts_it() -> None:
    assembler = ProgressAssembler()
    events = [artifact_event("a", "tail", append=True), terminal(FAILED)]
    [outcome] = outcomes_of(feed_all(assembler, events))
    assert outcome.reply == "tail"
    assert not outcome.succeeded


def test_the_status_message_wins_over_artifacts() -> None:
    assembler = ProgressAssembler()
    events = [artifact_event("a", "artifact text"), terminal(COMPLETED, "status text")]
    [outcome] = outcomes_of(feed_all(assembler, events))
    assert outcome.reply == "status text"
    assert len(outcome.artifacts) == 1


def test_appending_artifacts_does_not_touch_the_callers_objects() -> None:
    assembler = ProgressAssembler()
    first = artifact_event("a", "one")
    task = snapshot(WORKING, [], artifacts=[Artifact(artifact_id="b", parts=[Part(text="b1")])])
    before = [first.SerializeToString(), task.SerializeToString()]
    feed_all(
        assembler,
        [
            first,
            task,
            artifact_event("a", "two", append=True),
            artifact_event("b", "b2", append=True),
        ],
    )
    assert [first.SerializeToString(), task.SerializeToString()] == before
    [outcome] = outcomes_of(assembler.feed(terminal(COMPLETED)))
    assert outcome.reply.split("\n") == ["onetwo", "b1b2"]


@pytest.mark.parametrize("state", [COMPLETED, FAILED, CANCELED, REJECTED])
def test_nothing_changes_after_the_terminal_state(state: int) -> None:
    assembler = ProgressAssembler()
    feed_all(assembler, [working(call(1)), terminal(state, "bye")])
    late_events = [
        working(call(2, status=Status.DONE)),
        working(think(3)),
        plain("late plain text"),
        terminal(COMPLETED, "second verdict"),
        artifact_event("a", "late artifact"),
        snapshot(WORKING, [envelope_message(think(9))]),
    ]
    for event in late_events:
        assert assembler.feed(event) == []
        assert assembler.last_outcome is Outcome.AFTER_TERMINAL
    assert assembler.live_turns == 0


# -- snapshots (subscribe, GetTask polling) -------------------------------------------------------


def test_a_snapshot_repeating_seen_envelopes_yields_nothing_new() -> None:
    assembler = ProgressAssembler()
    user = message([Part(text="please")], role=Role.ROLE_USER)
    sent = [envelope_message(think(1)), envelope_message(call(2)), envelope_message(think(3))]
    plain_msg = message([Part(text="plain progress")])
    for msg in [*sent, plain_msg]:
        assembler.feed(status_event(WORKING, msg))
    # The Task a later subscribe / GetTask returns: all of it seen already.
    again = snapshot(WORKING, [user, *sent], current=plain_msg)
    assert assembler.feed(again) == []
    assert assembler.feed(StreamResponse(task=again)) == []
    # One more envelope appears: only it comes out.
    newer = envelope_message(call(4, status=Status.DONE))
    updates = assembler.feed(snapshot(WORKING, [user, *sent, plain_msg], current=newer))
    [update] = updates
    assert isinstance(update, ProgressUpdate)
    assert update.envelope.seq == 4
    assert update.closed
    assert update.closed[0].end_reason is EndReason.DONE


def test_on_discard_reports_each_repeat_even_beside_new_progress() -> None:
    discarded: list[Outcome] = []
    assembler = ProgressAssembler(on_discard=discarded.append)
    user = message([Part(text="please")], role=Role.ROLE_USER)
    sent = [envelope_message(think(1)), envelope_message(think(2))]
    plain_msg = message([Part(text="plain progress")])
    for msg in [*sent, plain_msg]:
        assembler.feed(status_event(WORKING, msg))
    assert discarded == []
    # A snapshot repeating three updates and bringing one new one: three discards, one update.
    newer = envelope_message(think(3))
    updates = assembler.feed(snapshot(WORKING, [user, *sent, plain_msg], current=newer))
    assert [u.envelope.seq for u in updates if isinstance(u, ProgressUpdate)] == [3]
    assert discarded == [Outcome.DUPLICATE] * 3
    assembler.feed(status_event(COMPLETED, message([Part(text="bye")])))
    assembler.feed(status_event(WORKING, envelope_message(think(4))))
    assert discarded[-1] is Outcome.AFTER_TERMINAL


def test_a_first_snapshot_replays_its_history_in_order_then_ends() -> None:
    assembler = ProgressAssembler()
    user = message([Part(text="please")], role=Role.ROLE_USER)
    history = [user, envelope_message(think(1)), envelope_message(call(2))]
    reply = message([Part(text="done it")])
    updates = assembler.feed(snapshot(COMPLETED, history, current=reply))
    progress, outcomes = progress_of(updates), outcomes_of(updates)
    assert [u.envelope.seq for u in progress] == [1, 2]
    [outcome] = outcomes
    assert outcome is updates[-1]
    assert outcome.reply == "done it"
    assert outcome.closed == (progress[1].call,)


def test_a_snapshot_with_a_working_current_message_yields_it() -> None:
    assembler = ProgressAssembler()
    current = envelope_message(think(7, "now"))
    [update] = assembler.feed(snapshot(WORKING, [], current=current))
    assert isinstance(update, ProgressUpdate)
    assert update.envelope.content == "now"


# -- ending turns ---------------------------------------------------------------------------------


def test_close_ends_open_calls_stream_closed() -> None:
    assembler = ProgressAssembler()
    feed_all(assembler, [working(call(1, "a")), working(call(2, "b")), working(think(3))])
    feed_all(assembler, [working(call(1, "x"), task_id="t2")])
    outcomes = assembler.close()
    assert {o.task_id for o in outcomes} == {"t1", "t2"}
    for outcome in outcomes:
        assert not outcome.terminal
        assert outcome.state == WORKING
        assert outcome.closed
        assert all(c.end_reason is EndReason.STREAM_CLOSED for c in outcome.closed)
    assert assembler.live_turns == 0
    assert assembler.close() == []
    # Not terminal: the task may go on (e.g. a resubscribe), it is not "after terminal".
    assert len(assembler.feed(working(think(10)))) == 1


def test_close_with_a_reason() -> None:
    assembler = ProgressAssembler()
    feed_all(assembler, [working(call(1))])
    [outcome] = assembler.close(EndReason.SHUTDOWN)
    assert outcome.closed[0].end_reason is EndReason.SHUTDOWN


def test_a_turn_without_any_state_closes_as_unspecified() -> None:
    assembler = ProgressAssembler()
    assembler.feed(artifact_event("a", "x"))
    [outcome] = assembler.close()
    assert outcome.state == TaskState.TASK_STATE_UNSPECIFIED
    assert outcome.reply == "x"


@pytest.mark.parametrize("wrapped", [True, False])
def test_a_direct_message_reply_completes_the_turn(wrapped: bool) -> None:
    assembler = ProgressAssembler()
    reply = Message(
        message_id="r1", context_id="ctx", role=Role.ROLE_AGENT, parts=[Part(text="hi")]
    )
    [outcome] = assembler.feed(StreamResponse(message=reply) if wrapped else reply)
    assert isinstance(outcome, TurnOutcome)
    assert outcome.terminal
    assert outcome.succeeded
    assert outcome.reply == "hi"
    assert outcome.message is not None
    assert outcome.message.raw == reply
    assert assembler.live_turns == 0
    assert assembler.feed(reply) == []  # the same message again: that turn is over


def test_a_direct_message_on_a_live_task_closes_its_calls() -> None:
    assembler = ProgressAssembler()
    feed_all(assembler, [working(call(1))])
    [outcome] = assembler.feed(message([Part(text="answer")], task_id="t1"))
    assert isinstance(outcome, TurnOutcome)
    assert outcome.reply == "answer"
    assert [c.end_reason for c in outcome.closed] == [EndReason.TURN_COMPLETED]


@pytest.mark.parametrize("state", [INPUT_REQUIRED, AUTH_REQUIRED])
def test_input_required_ends_the_turn_and_a_follow_up_starts_fresh(state: int) -> None:
    assembler = ProgressAssembler()
    first = progress_of(feed_all(assembler, [working(think(1)), working(call(2))]))
    [pause] = assembler.feed(terminal(state, "which file?"))
    assert isinstance(pause, TurnOutcome)
    assert not pause.terminal
    assert pause.state == state
    assert pause.reply == "which file?"
    assert [c.end_reason for c in pause.closed] == [EndReason.STREAM_CLOSED]
    assert assembler.live_turns == 0
    # The follow-up turn on the same task restarts its seqs: nothing is a duplicate.
    second = progress_of(feed_all(assembler, [working(think(1)), working(call(2))]))
    assert [u.envelope.seq for u in second] == [1, 2]
    assert not any(u.late for u in second)
    assert second[1].opened
    assert second[1].call is not first[1].call
    assert second[1].call is not None
    assert second[1].call.index == 0
    [done] = assembler.feed(terminal(COMPLETED, "ok"))
    assert isinstance(done, TurnOutcome)
    assert done.terminal


def test_a_follow_up_turn_snapshot_does_not_replay_the_earlier_turn() -> None:
    assembler = ProgressAssembler()
    ask = message([Part(text="do it")], role=Role.ROLE_USER)
    turn1 = [envelope_message(think(1, "turn 1")), envelope_message(call(2, "old"))]
    pause = message([Part(text="which file?")])
    for msg in turn1:
        assembler.feed(status_event(WORKING, msg))
    assembler.feed(status_event(INPUT_REQUIRED, pause))
    # Turn 2 is followed through a subscribe: its first snapshot holds the whole task history.
    answer = message([Part(text="this one")], role=Role.ROLE_USER)
    turn2 = [envelope_message(think(1, "turn 2")), envelope_message(call(2, "new"))]
    task = snapshot(WORKING, [ask, *turn1, pause, answer, turn2[0]], current=turn2[1])
    updates = progress_of(assembler.feed(task))
    assert [u.envelope.content or u.envelope.tool for u in updates] == ["turn 2", "search"]
    assert [u.envelope.stream_key for u in updates] == [None, "new"]


def test_many_concurrent_task_ids_are_kept_apart() -> None:
    assembler = ProgressAssembler()
    tasks = [f"task-{i}" for i in range(40)]
    events = []
    for seq in (1, 2, 3):
        for task_id in tasks:
            envelope = {1: call(1, "c"), 2: think(2, task_id), 3: call(3, "c", Status.DONE)}[seq]
            events.append(working(envelope, task_id=task_id))
    updates = progress_of(feed_all(assembler, events))
    assert len(updates) == 3 * len(tasks)
    assert all(not u.late for u in updates)
    records = {u.task_id: u.call for u in updates if u.opened}
    assert len({id(r) for r in records.values()}) == len(tasks)
    assert all(r is not None and r.end_reason is EndReason.DONE for r in records.values())
    # The thinking of each task carried its own text.
    for u in updates:
        if u.envelope.kind is Kind.THINKING:
            assert u.envelope.content == u.task_id
    assembler.feed(working(call(4, "d"), task_id="task-0"))
    [outcome] = assembler.feed(terminal(FAILED, task_id="task-1"))
    assert isinstance(outcome, TurnOutcome)
    assert outcome.closed == ()
    assert len(assembler.open_calls("task-0")) == 1
    assert assembler.live_turns == len(tasks) - 1


# -- bounds ---------------------------------------------------------------------------------------


def test_max_streams_bounds_a_turn_and_reports_what_it_closes() -> None:
    assembler = ProgressAssembler(max_streams=3)
    updates = feed_all(assembler, [working(call(i, f"k{i}")) for i in range(10)])
    turn = turn_state(assembler, "t1")
    assert len(turn.streams) <= 3
    assert len(turn.calls) <= 3
    opened = [u.call for u in progress_of(updates) if u.opened]
    assert len(opened) == 10
    closed = Counter(id(c) for u in progress_of(updates) for c in u.closed)
    [outcome] = assembler.feed(terminal(COMPLETED))
    assert isinstance(outcome, TurnOutcome)
    closed.update(id(c) for c in outcome.closed)
    # Every call the assembler opened is reported closed exactly once, evicted ones included.
    assert all(closed[id(c)] == 1 for c in opened)
    evicted = [c for c in opened if c is not None and c.end_reason is EndReason.STREAM_CLOSED]
    assert len(evicted) == 7


def test_max_turns_bounds_live_turns_and_reports_the_evicted_ones() -> None:
    assembler = ProgressAssembler(max_turns=5)
    updates: list[Update] = []
    for i in range(20):
        updates += assembler.feed(working(call(1, "c"), task_id=f"t{i}"))
        assert assembler.live_turns <= 5
    evicted = outcomes_of(updates)
    assert [o.task_id for o in evicted] == [f"t{i}" for i in range(15)]
    assert all(not o.terminal for o in evicted)
    assert all([c.end_reason for c in o.closed] == [EndReason.STREAM_CLOSED] for o in evicted)
    # An evicted turn is not "finished": its task may come back.
    assert len(assembler.feed(working(think(5), task_id="t0"))) >= 1


def test_finished_memory_is_bounded() -> None:
    assembler = ProgressAssembler(finished_memory=3)
    for i in range(10):
        feed_all(
            assembler, [working(think(1), task_id=f"t{i}"), terminal(COMPLETED, task_id=f"t{i}")]
        )
    assert finished_remembered(assembler) <= 3
    assert assembler.live_turns == 0
    assert assembler.feed(working(think(2), task_id="t9")) == []  # remembered
    assert len(assembler.feed(working(think(2), task_id="t0"))) == 1  # forgotten: a new turn


def test_degraded_message_ids_are_bounded() -> None:
    assembler = ProgressAssembler()
    feed_all(assembler, [plain(f"p{i}", mid=f"m{i}") for i in range(3000)])
    assert len(turn_state(assembler, "t1").message_ids) <= 1024


def test_memory_does_not_grow_with_the_number_of_envelopes() -> None:
    assembler = ProgressAssembler(reorder_window=64)
    for seq in range(5000):
        assembler.feed(working(think(seq, key=f"s{seq % 4}")))
    turn = turn_state(assembler, "t1")
    assert len(turn.streams) == 4
    assert all(w.bits < (1 << 64) for w in turn.streams.values())


# -- follow() -------------------------------------------------------------------------------------


class Source:
    """An async generator of events that records whether it was closed."""

    def __init__(self, events: Sequence[Any], *, hang: bool = False) -> None:
        self.events = list(events)
        self.hang = hang
        self.closed = False
        self.sent = 0

    async def __call__(self) -> AsyncIterator[Any]:
        try:
            for event in self.events:
                self.sent += 1
                yield event
                await asyncio.sleep(0)
            if self.hang:
                await asyncio.Event().wait()
        finally:
            self.closed = True


async def test_follow_yields_updates_then_the_outcome() -> None:
    source = Source([working(think(1)), working(call(2)), terminal(COMPLETED, "answer")])
    updates = [u async for u in follow(source())]
    assert [type(u) for u in updates] == [ProgressUpdate, ProgressUpdate, TurnOutcome]
    outcome = updates[-1]
    assert isinstance(outcome, TurnOutcome)
    assert outcome.terminal
    assert outcome.reply == "answer"
    assert [c.end_reason for c in outcome.closed] == [EndReason.TURN_COMPLETED]
    assert source.closed


async def test_follow_closes_open_calls_when_the_source_ends_early() -> None:
    source = Source([working(think(1)), working(call(2)), working(call(3, "c2"))])
    updates = [u async for u in follow(source())]
    outcome = updates[-1]
    assert isinstance(outcome, TurnOutcome)
    assert not outcome.terminal
    assert outcome.state == WORKING
    assert [c.end_reason for c in outcome.closed] == [EndReason.STREAM_CLOSED] * 2
    assert len(outcomes_of(updates)) == 1


async def test_follow_closes_the_source_when_the_consumer_stops_early() -> None:
    source = Source([working(think(i)) for i in range(1, 50)], hang=True)
    stream = follow(source())
    seen = []
    async for update in stream:
        seen.append(update)
        if len(seen) == 2:
            break
    await stream.aclose()
    assert source.closed
    assert source.sent < 50


async def test_follow_accepts_any_async_iterable_and_closes_it() -> None:
    closed = []

    class Events:
        def __init__(self) -> None:
            self.events = iter([working(think(1)), terminal(COMPLETED)])

        def __aiter__(self) -> Events:
            return self

        async def __anext__(self) -> Any:
            try:
                return next(self.events)
            except StopIteration:
                raise StopAsyncIteration from None

        async def aclose(self) -> None:
            closed.append(True)

    updates = [u async for u in follow(Events())]
    assert len(updates) == 2
    assert closed


async def test_follow_propagates_source_errors() -> None:
    async def broken() -> AsyncIterator[Any]:
        yield working(think(1))
        raise ConnectionError("lost")

    with pytest.raises(ConnectionError):
        async for _ in follow(broken()):
            pass


async def test_concurrent_follows_sharing_an_assembler_keep_their_turns() -> None:
    assembler = ProgressAssembler()
    started = asyncio.Event()
    release = asyncio.Event()

    async def long_source() -> AsyncIterator[Any]:
        yield working(call(1, "long"), task_id="long")
        started.set()
        await release.wait()
        yield working(call(2, "long", Status.DONE), task_id="long")
        yield terminal(COMPLETED, "long done", task_id="long")

    async def short_source() -> AsyncIterator[Any]:
        await started.wait()
        yield working(think(1), task_id="short")  # then the stream breaks off

    async def collect(source: AsyncIterator[Any]) -> list[Update]:
        return [u async for u in follow(source, assembler=assembler)]

    long_task = asyncio.create_task(collect(long_source()))
    short_updates = await collect(short_source())
    release.set()
    long_updates = await long_task
    assert [o.task_id for o in outcomes_of(short_updates)] == ["short"]
    long_progress = progress_of(long_updates)
    assert len(long_progress) == 2
    assert long_progress[1].closed
    assert long_progress[1].closed[0].end_reason is EndReason.DONE
    [long_outcome] = outcomes_of(long_updates)
    assert long_outcome.terminal
    assert long_outcome.reply == "long done"


async def test_poll_task_polls_until_the_turn_ends() -> None:
    history = [message([Part(text="go")], role=Role.ROLE_USER)]
    tasks = []
    for step, state in enumerate([WORKING, WORKING, COMPLETED, WORKING]):
        history = [*history, envelope_message(think(step + 1))]
        current = message([Part(text="ok")]) if state == COMPLETED else None
        tasks.append(snapshot(state, history, current=current))

    class Client:
        def __init__(self) -> None:
            self.requests: list[GetTaskRequest] = []

        async def get_task(self, request: GetTaskRequest) -> Task:
            self.requests.append(request)
            return tasks[len(self.requests) - 1]

    client = Client()
    polled = poll_task(client, "t1", interval=0, history_length=5)  # type: ignore[arg-type]
    updates = [u async for u in follow(polled)]
    assert len(client.requests) == 3
    assert client.requests[0].id == "t1"
    assert client.requests[0].history_length == 5
    assert [u.envelope.seq for u in progress_of(updates)] == [1, 2, 3]
    [outcome] = outcomes_of(updates)
    assert outcome.terminal
    assert outcome.reply == "ok"


# -- property: drops, duplicates and reordering ---------------------------------------------------


@st.composite
def turn_streams(draw: st.DrawFn) -> tuple[list[Envelope], int]:
    """A valid turn: tool calls (running, output..., done/aborted) interleaved with thinking."""
    n_calls = draw(st.integers(min_value=1, max_value=5))
    per_call: list[list[tuple[str, Status]]] = []
    for _ in range(n_calls):
        steps = [("start", Status.RUNNING)]
        steps += [("append", Status.RUNNING)] * draw(st.integers(min_value=0, max_value=2))
        steps.append(("end", draw(st.sampled_from([Status.DONE, Status.ABORTED]))))
        per_call.append(steps)
    thoughts = draw(st.integers(min_value=0, max_value=4))
    slots = [i for i, steps in enumerate(per_call) for _ in steps] + [-1] * thoughts
    order = draw(st.permutations(slots))
    seq = draw(st.sampled_from([1, 0, -1000, 2**53 + 5]))
    cursor = [0] * n_calls
    envelopes = []
    for slot in order:
        if slot == -1:
            envelopes.append(think(seq))
        else:
            kind, status = per_call[slot][cursor[slot]]
            cursor[slot] += 1
            key = f"call-{slot}"
            if kind == "append":
                envelopes.append(append(seq, key))
            else:
                envelopes.append(call(seq, key, status, tool=f"tool{slot}"))
        seq += draw(st.sampled_from([1, 1, 1, 2, 7]))  # gaps are allowed
    return envelopes, n_calls


@settings(max_examples=150, deadline=None)
@given(
    turn_streams(),
    st.data(),
    st.sampled_from([COMPLETED, FAILED, CANCELED, REJECTED]),
)
def test_assembler_survives_drops_duplicates_and_reordering(
    turn: tuple[list[Envelope], int], data: st.DataObject, final: int
) -> None:
    envelopes, n_calls = turn
    keep = data.draw(st.lists(st.booleans(), min_size=len(envelopes), max_size=len(envelopes)))
    delivered = [e for e, k in zip(envelopes, keep, strict=True) if k]
    repeats = data.draw(st.lists(st.sampled_from(delivered), max_size=6)) if delivered else []
    arrival = data.draw(st.permutations(delivered + repeats))
    after_terminal = data.draw(st.lists(st.sampled_from(envelopes), max_size=3))
    dropped = not all(keep)

    assembler = ProgressAssembler()
    updates: list[Update] = []
    for envelope in arrival:
        updates += assembler.feed(working(envelope))
    updates += assembler.feed(terminal(final, "the end"))
    for envelope in after_terminal:
        assert assembler.feed(working(envelope)) == []

    progress = progress_of(updates)
    assert not any(u.degraded for u in progress)
    slots = Counter((u.envelope.stream_id, u.envelope.seq) for u in progress)
    assert all(n == 1 for n in slots.values())
    assert len(progress) == len({(e.stream_id, e.seq) for e in delivered})

    opened = {id(u.call): u.call for u in progress if u.opened and u.call is not None}
    assert len(opened) <= n_calls
    if not dropped:
        assert len(opened) == n_calls
    seen_calls = {id(u.call): u.call for u in progress if u.call is not None}
    assert seen_calls.keys() <= opened.keys()

    [outcome] = outcomes_of(updates)
    assert outcome is updates[-1]
    assert outcome.terminal
    assert outcome.state == final
    closed = Counter(id(c) for u in updates for c in u.closed)
    for key, record in opened.items():
        assert record is not None
        assert closed[key] == 1, record
        assert not record.is_open
    assert closed.keys() <= opened.keys()
    assert assembler.live_turns == 0


# -- the outcome of each update, reported once -----------------------------------------------------


def test_on_outcome_reports_each_update_once_and_the_other_views_derive_from_it() -> None:
    reported: list[Outcome] = []
    discarded: list[Outcome] = []
    assembler = ProgressAssembler(
        reorder_window=4, on_outcome=reported.append, on_discard=discarded.append
    )
    bad = StreamResponse(
        status_update=status_event(WORKING, message([_metadata_part("[1]")], mid="bad"))
    )
    events: list[Any] = [
        working(think(10)),  # accepted
        working(think(10)),  # duplicate
        working(think(5)),  # stale
        plain("plain text", mid="p1"),  # degraded (no envelope)
        bad,  # invalid (an envelope, unusable): degraded
        terminal(COMPLETED),
        working(think(11)),  # after the terminal state
    ]
    coarse = []
    for event in events:
        assembler.feed(event)
        coarse.append(assembler.last_outcome)
    assert reported == [
        Outcome.ACCEPTED,
        Outcome.DUPLICATE,
        Outcome.STALE,
        Outcome.DEGRADED,
        Outcome.INVALID,
        Outcome.AFTER_TERMINAL,
    ]
    assert discarded == [Outcome.DUPLICATE, Outcome.STALE, Outcome.AFTER_TERMINAL]
    assert coarse == [
        Outcome.ACCEPTED,
        Outcome.DUPLICATE,
        Outcome.STALE,
        Outcome.DEGRADED,
        Outcome.DEGRADED,
        Outcome.NONE,
        Outcome.AFTER_TERMINAL,
    ]


def test_close_can_end_only_some_turns() -> None:
    assembler = ProgressAssembler()
    for task_id in ("t1", "t2", "t3"):
        assembler.feed(working(call(1), task_id=task_id))
    closed = assembler.close(task_ids=["t3", "t1", "unknown"])
    assert [o.task_id for o in closed] == ["t1", "t3"]  # oldest first
    assert [o.task_id for o in assembler.close()] == ["t2"]


def test_a_handed_envelope_is_used_instead_of_decoding_the_lone_part_again() -> None:
    sent = think(1, "from the emitter")
    handed = Envelope(Kind.THINKING, 1, {"text": "from the emitter"})
    [update] = ProgressAssembler().feed(working(sent), envelope=handed)
    assert isinstance(update, ProgressUpdate)
    assert update.envelope is handed
    # Only a status update's own message takes it: a snapshot's history is read from the wire.
    history = [envelope_message(think(1, "h1")), envelope_message(think(2, "h2"))]
    updates = ProgressAssembler().feed(snapshot(WORKING, history), envelope=handed)
    assert [u.envelope.content for u in progress_of(updates)] == ["h1", "h2"]


# -- times: the agent's, or unknown ---------------------------------------------------------------


def stamped(event: StreamResponse, seconds: float) -> StreamResponse:
    event.status_update.status.timestamp.FromNanoseconds(int(seconds * 1e9))
    return event


def test_times_come_from_the_statuses_and_a_clock_going_back_is_unknown() -> None:
    assembler = ProgressAssembler()
    updates = feed_all(
        assembler,
        [
            stamped(working(think(1)), 100.0),
            stamped(working(call(2, "a")), 100.5),
            stamped(working(call(3, "a", Status.DONE)), 101.25),
            stamped(working(call(4, "b")), 102.0),
            stamped(working(call(5, "b", Status.DONE)), 101.0),  # before its start
            stamped(working(call(6, "c")), 103.0),  # still open at the end
            stamped(terminal(COMPLETED, "ok"), 104.0),
        ],
    )
    calls = {u.call.key: u.call for u in progress_of(updates) if u.opened and u.call}
    assert (calls["a"].started_at, calls["a"].ended_at, calls["a"].duration) == (
        100.5, 101.25, 0.75,
    )  # fmt: skip
    assert calls["b"].duration is None  # the agent's clock went back: unknown, not 0
    assert (calls["c"].end_reason, calls["c"].ended_at, calls["c"].duration) == (
        EndReason.TURN_COMPLETED, 104.0, 1.0,
    )  # fmt: skip
    [outcome] = outcomes_of(updates)
    assert (outcome.started_at, outcome.ended_at, outcome.duration) == (100.0, 104.0, 4.0)
    assert not outcome.replayed


def test_a_turn_first_seen_at_its_end_has_no_start() -> None:
    [outcome] = ProgressAssembler().feed(stamped(terminal(COMPLETED, "ok"), 50.0))
    assert isinstance(outcome, TurnOutcome)
    assert (outcome.started_at, outcome.ended_at, outcome.duration) == (None, 50.0, None)
