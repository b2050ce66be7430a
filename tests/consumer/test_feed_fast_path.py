"""``ProgressAssembler.feed`` reads a WORKING update whose lone Part carries a usable envelope
without building its view (``working_progress``); every other event goes through the view.

The shortcut must be the view's rules in every respect: the same updates (calls, their times and
end reasons, late flags, fallbacks), the same outcomes, the same ``last_event``. Checked against
``feed_view(view_event(event))`` (the one way in before the shortcut) on generated mixes of
envelopes of several turns and streams, duplicates, late and stale seqs, wrapped and bare events,
status times, rejected envelopes, Parts without one, messages of several Parts, and turn ends.
The time of a status is read only for the updates whose time something records (a turn's first,
an envelope that may open or end a call): the agent's times on calls and turns tell whether it
was read where it counts.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from a2a.types.a2a_pb2 import Part, StreamResponse, TaskState
from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_progress.consumer import CallRecord, Outcome, ProgressAssembler, ProgressUpdate
from a2a_progress.envelope import Status
from a2a_progress.sdk.adapter import envelope_part, view_event
from support.events import append, call, message, plain, status_event, terminal, think, working

_TASKS = ("t1", "t2")
_KEYS = ("c1", "c2", None)
_ENDED = (Status.DONE, Status.ABORTED)
_ENDS = (
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_INPUT_REQUIRED,
)


@st.composite
def _event(draw: st.DrawFn) -> Any:
    task_id = draw(st.sampled_from(_TASKS))
    seq = draw(st.integers(1, 2000))  # past the default window of 1,024: stale seqs too
    key = draw(st.sampled_from(_KEYS))
    choice = draw(
        st.sampled_from(
            (
                "think",
                "start",
                "done",
                "aborted",
                "append",
                "body ends",
                "plain",
                "rejected",
                "two parts",
                "end",
            )
        )
    )
    if choice == "plain":
        return plain("a hand-written update", task_id=task_id)
    if choice == "end":
        return terminal(draw(st.sampled_from(_ENDS)), "bye", task_id=task_id)
    if choice == "rejected":
        envelope: Any = '{"v": 2, "kind": "text"}'
    elif choice == "think":
        envelope = think(seq, "hm", key)
    elif choice == "append" and key is not None:
        envelope = append(seq, key)
    elif choice == "body ends":  # not a tool call, yet not running: it ends its stream's call
        body = append(seq, key) if key is not None else think(seq, "hm")
        envelope = dataclasses.replace(body, status=draw(st.sampled_from(_ENDED)))
    elif choice in {"done", "aborted"}:
        envelope = call(seq, key, Status.DONE if choice == "done" else Status.ABORTED)
    else:
        envelope = call(seq, key)
    event = working(envelope, draw(st.sampled_from(("", "the fallback"))), task_id=task_id)
    if choice == "two parts":
        event.status_update.status.message.parts.append(Part(text="and more"))
    if draw(st.booleans()):
        event.status_update.status.timestamp.FromSeconds(draw(st.integers(1, 10**9)))
    if draw(st.booleans()):
        return event.status_update  # bare, as a server-side consumer has it
    return event


def _call(record: CallRecord | None) -> object:
    if record is None:
        return None
    return (record.key, record.index, record.tool, record.tool_call_id, record.first_seq,
            record.last_seq, record.status, record.end_reason, record.started_at,
            record.ended_at)  # fmt: skip


def _summary(updates: list[Any]) -> list[object]:
    """Each update with its calls as their fields (two assemblers' calls are not the same
    objects)."""
    out: list[object] = []
    for update in updates:
        if isinstance(update, ProgressUpdate):
            fields = (update.task_id, update.context_id, update.envelope, update.fallback,
                      update.degraded, update.rejected, update.late, update.opened,
                      update.replayed, update.dialect)  # fmt: skip
        else:
            fields = (update.task_id, update.state, update.terminal, update.reply,
                      update.message, update.started_at, update.ended_at, update.error)  # fmt: skip
        out.append((type(update), fields, _call(getattr(update, "call", None)),
                    [_call(c) for c in update.closed]))  # fmt: skip
    return out


def _run(events: list[Any], *, viewed: bool) -> list[object]:
    outcomes: list[Outcome] = []
    assembler = ProgressAssembler(on_outcome=outcomes.append, dialects="none")
    seen: list[object] = []
    for event in events:
        updates = assembler.feed_view(view_event(event)) if viewed else assembler.feed(event)
        seen.append((_summary(updates), assembler.last_outcome, assembler.last_event))
    seen.append((_summary(assembler.close()), outcomes))
    return seen


@settings(max_examples=300, deadline=None)
@given(st.lists(_event(), max_size=40))
def test_feed_is_the_view_s_rules(events: list[Any]) -> None:
    assert _run(events, viewed=False) == _run(events, viewed=True)


def test_the_shortcut_keeps_the_times_and_the_last_event() -> None:
    start = working(call(5, "c1"), "Calling search")
    start.status_update.status.timestamp.FromSeconds(100)
    done = working(call(6, "c1", Status.DONE), "")
    done.status_update.status.timestamp.FromSeconds(103)
    assembler = ProgressAssembler()
    [opened] = assembler.feed(start)
    assert isinstance(opened, ProgressUpdate)
    assert (opened.fallback, opened.opened, opened.late) == ("Calling search", True, False)
    [ended] = assembler.feed(done)
    assert isinstance(ended, ProgressUpdate)
    assert ended.call is opened.call
    assert ended.call is not None
    assert (ended.call.started_at, ended.call.ended_at, ended.call.duration) == (100, 103, 3)
    assert assembler.last_event == view_event(done)
    assert assembler.last_event is assembler.last_event  # viewed once
    assert assembler.feed(done) == []
    assert assembler.last_outcome is Outcome.DUPLICATE
    # An event read through its view next replaces the one read without.
    other = StreamResponse(
        status_update=status_event(
            TaskState.TASK_STATE_WORKING, message([envelope_part("[]", "x"), Part(text="y")])
        )
    )
    assembler.feed(other)
    assert assembler.last_event == view_event(other)
