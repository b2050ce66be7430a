"""The seam's view_event: the one place the A2A event union is read, once, for every member."""

from __future__ import annotations

import dataclasses

import pytest
from a2a.types.a2a_pb2 import (
    Artifact,
    Message,
    Part,
    Role,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

from a2a_progress.consumer import ProgressAssembler
from a2a_progress.sdk.adapter import status_message, view_event
from a2a_progress.sdk.views import EventKind, EventView

WORKING = TaskState.TASK_STATE_WORKING
COMPLETED = TaskState.TASK_STATE_COMPLETED


def msg(text: str = "hi", task_id: str = "t1") -> Message:
    return Message(
        message_id="m1", task_id=task_id, context_id="c1", role=Role.ROLE_AGENT,
        parts=[Part(text=text)],
    )  # fmt: skip


def status_update(message: Message | None = None) -> TaskStatusUpdateEvent:
    status = TaskStatus(state=WORKING)
    if message is not None:
        status.message.CopyFrom(message)
    status.timestamp.FromSeconds(1_700_000_000)
    return TaskStatusUpdateEvent(task_id="t1", context_id="c1", status=status)


def task(current: Message | None = None) -> Task:
    status = TaskStatus(state=COMPLETED)
    if current is not None:
        status.message.CopyFrom(current)
    return Task(id="t1", context_id="c1", status=status, history=[msg("earlier")])


def artifact_update() -> TaskArtifactUpdateEvent:
    return TaskArtifactUpdateEvent(
        task_id="t1", context_id="c1", append=True,
        artifact=Artifact(artifact_id="a1", parts=[Part(text="chunk")]),
    )  # fmt: skip


def both_forms(event: TaskStatusUpdateEvent | Task | Message | TaskArtifactUpdateEvent) -> list:
    field = {
        TaskStatusUpdateEvent: "status_update",
        Task: "task",
        Message: "message",
        TaskArtifactUpdateEvent: "artifact_update",
    }[type(event)]
    wrapped = StreamResponse()
    getattr(wrapped, field).CopyFrom(event)
    return [event, wrapped]


@pytest.mark.parametrize("wrapped", [False, True], ids=["bare", "StreamResponse"])
def test_a_status_update(wrapped: bool) -> None:
    event = both_forms(status_update(msg("working on it")))[wrapped]
    view = view_event(event)
    assert view.kind is EventKind.STATUS_UPDATE
    assert (view.task_id, view.context_id, view.state) == ("t1", "c1", WORKING)
    assert view.message is not None
    assert view.message.parts[0].text == "working on it"
    assert view.time == 1_700_000_000
    assert (view.history, view.artifact, view.append) == ((), None, False)
    assert isinstance(view.event, TaskStatusUpdateEvent)


def test_a_status_update_without_message_has_none() -> None:
    view = view_event(status_update())
    assert view.message is None
    assert view.state == WORKING


@pytest.mark.parametrize("wrapped", [False, True], ids=["bare", "StreamResponse"])
def test_a_task_snapshot(wrapped: bool) -> None:
    event = both_forms(task(current=msg("the reply")))[wrapped]
    view = view_event(event)
    assert view.kind is EventKind.TASK
    assert (view.task_id, view.context_id, view.state) == ("t1", "c1", COMPLETED)
    assert view.history[0].parts[0].text == "earlier"
    assert view.message is not None
    assert view.message.parts[0].text == "the reply"
    assert view.time is None  # this status carries no timestamp


@pytest.mark.parametrize("wrapped", [False, True], ids=["bare", "StreamResponse"])
def test_a_message(wrapped: bool) -> None:
    view = view_event(both_forms(msg("answer"))[wrapped])
    assert view.kind is EventKind.MESSAGE
    assert (view.task_id, view.context_id, view.state, view.time) == ("t1", "c1", None, None)
    assert view.message is not None
    assert view.message.parts[0].text == "answer"


@pytest.mark.parametrize("wrapped", [False, True], ids=["bare", "StreamResponse"])
def test_an_artifact_update(wrapped: bool) -> None:
    view = view_event(both_forms(artifact_update())[wrapped])
    assert view.kind is EventKind.ARTIFACT_UPDATE
    assert (view.task_id, view.context_id, view.state, view.message) == ("t1", "c1", None, None)
    assert view.artifact is not None
    assert view.artifact.artifact_id == "a1"
    assert view.append


def test_an_empty_stream_response() -> None:
    view = view_event(StreamResponse())
    assert view == EventView(EventKind.EMPTY, "", "")
    assert view.event is None


def test_a_stream_response_with_an_unknown_payload_is_empty() -> None:
    # Field 99 (varint 1): a member a newer peer might send; this SDK keeps it as unknown.
    event = StreamResponse.FromString(b"\x98\x06\x01")
    assert event.WhichOneof("payload") is None
    assert view_event(event).kind is EventKind.EMPTY
    assert ProgressAssembler().feed(event) == []


def test_the_view_is_immutable_and_leaves_the_event_alone() -> None:
    event = both_forms(status_update(msg()))[1]
    before = event.SerializeToString(deterministic=True)
    view = view_event(event)
    with pytest.raises(AttributeError):
        view.task_id = "other"  # type: ignore[misc]
    assert not dataclasses.is_dataclass(view)
    assert event.SerializeToString(deterministic=True) == before


def test_status_message_reads_through_the_view() -> None:
    assert status_message(both_forms(status_update(msg("x")))[1]) is not None
    assert status_message(StreamResponse(artifact_update=artifact_update())) is None
    assert status_message(msg("m")) is not None


def test_the_assembler_exposes_the_last_event_it_was_fed() -> None:
    assembler = ProgressAssembler()
    assert assembler.last_event is None
    assembler.feed(StreamResponse(status_update=status_update(msg("x"))))
    assert assembler.last_event is not None
    assert (assembler.last_event.task_id, assembler.last_event.state) == ("t1", WORKING)
    assembler.feed(artifact_update())
    assert assembler.last_event.kind is EventKind.ARTIFACT_UPDATE
    assert assembler.last_event.state is None
