"""The updates the assembler builds for accepted envelopes are `ProgressUpdate`s like any other.

The assembler builds them without the frozen dataclass's ``__init__`` (a writable twin of its
slots that then becomes a ProgressUpdate): every field must be set, the type exact, the instance
still frozen, equal to and interchangeable with one built the ordinary way.
"""

from __future__ import annotations

import dataclasses

import pytest
from a2a.types.a2a_pb2 import TaskState

from a2a_progress.consumer import EndReason, ProgressAssembler, ProgressUpdate
from a2a_progress.envelope import Status
from support.events import call, think, working

WORKING = TaskState.TASK_STATE_WORKING


def _updates() -> list[ProgressUpdate]:
    """A call opened, a late envelope, a thought on the call's stream, the call ended."""
    assembler = ProgressAssembler()
    fed = [
        working(call(3, "c1")),
        working(think(5, key="c1")),
        working(think(4, key="c1")),  # late: below the stream's highest seq
        working(call(6, "c1", Status.DONE), "done"),
    ]
    updates = [update for event in fed for update in assembler.feed(event)]
    assert all(type(update) is ProgressUpdate for update in updates)
    return updates  # type: ignore[return-value]


def test_every_field_of_an_accepted_update_is_set_and_equals_the_dataclass_built_one() -> None:
    opened, thought, late, done = _updates()
    # Each built again through the dataclass's own __init__, field by field: a field the fast
    # path forgot would be unset (AttributeError) or differ here.
    for update in (opened, thought, late, done):
        again = ProgressUpdate(
            **{field.name: getattr(update, field.name) for field in dataclasses.fields(update)}
        )
        assert again == update
    assert (opened.opened, opened.late, opened.closed, opened.degraded) == (True, False, (), False)
    assert (late.late, late.opened, late.call) == (True, False, opened.call)
    assert (thought.late, thought.rejected, thought.replayed, thought.dialect) == (
        False,
        None,
        False,
        None,
    )
    assert done.closed == (opened.call,)
    assert done.call is opened.call
    assert opened.call is not None
    assert opened.call.end_reason is EndReason.DONE
    assert (done.fallback, late.envelope.seq, late.task_id) == ("done", 4, "t1")
    assert late.context_id == "ctx"


def test_an_accepted_update_stays_frozen_and_behaves_as_a_dataclass() -> None:
    update = _updates()[1]
    with pytest.raises(dataclasses.FrozenInstanceError):
        update.late = True  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del update.fallback
    moved = dataclasses.replace(update, late=True)
    assert type(moved) is ProgressUpdate
    assert moved.late
    assert moved.envelope is update.envelope
    assert repr(update).startswith("ProgressUpdate(task_id='t1', context_id='ctx', envelope=")


def test_a_calls_last_seq_is_the_highest_seen_whatever_the_arrival_order() -> None:
    assembler = ProgressAssembler()
    fed = [
        working(call(1, "c1")),
        working(think(8, key="c1")),
        working(think(3, key="c1")),  # late body: below 8
        working(call(6, "c1", Status.DONE)),  # the end, also below 8
    ]
    updates = [update for event in fed for update in assembler.feed(event)]
    record = updates[0].call  # type: ignore[union-attr]
    assert record is not None
    assert (record.first_seq, record.last_seq) == (1, 8)
    assert record.end_reason is EndReason.DONE
    assert updates[3].closed == (record,)  # type: ignore[union-attr]
