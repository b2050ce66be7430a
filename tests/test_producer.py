"""The callee side: ProgressEmitter drives a real a2a TaskUpdater; what reaches the event queue is
decoded back with the carrier and checked against the spec's producer rules."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from a2a.server.events import Event
from a2a.server.tasks import TaskUpdater
from a2a.types.a2a_pb2 import Message, Part, Role, TaskState, TaskStatusUpdateEvent

from a2a_progress.carrier import TFRS_KEY
from a2a_progress.envelope import (
    SOFT_LIMIT_BYTES,
    Envelope,
    Kind,
    Status,
    utf8_size,
)
from a2a_progress.producer import CallState, ProgressEmitter, handed_envelope
from a2a_progress.producer.handoff import offered
from a2a_progress.redaction import MASK, Redactor
from a2a_progress.sdk.adapter import read_envelope
from support.queues import RecordingQueue

SECRET = "abcDEF123ghiJKL456mnoPQR789"
BEARER = f"Bearer {SECRET}"


def make(**options: Any) -> tuple[ProgressEmitter, RecordingQueue]:
    queue = RecordingQueue()
    updater = TaskUpdater(queue, f"task-{uuid.uuid4()}", "ctx-1")
    return ProgressEmitter(updater, **options), queue


async def cancel_once_started(body: Callable[[asyncio.Event], Awaitable[None]]) -> None:
    """Run ``body(started)`` as a task until it sets ``started``, then cancel it: it must end
    cancelled."""
    started = asyncio.Event()
    task = asyncio.create_task(body(started))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def only_part(event: TaskStatusUpdateEvent) -> Part:
    parts = event.status.message.parts
    assert len(parts) == 1
    return parts[0]


# -- the wire form ---------------------------------------------------------------------------------


async def test_each_working_update_is_one_part_with_fallback_and_envelope() -> None:
    progress, queue = make()
    await progress.thinking("let me think")
    await progress.text("step 1")
    await progress.error("disk almost full")
    async with progress.tool_call("search", "call-1"):
        pass
    assert len(queue.working) == 5
    message_ids = set()
    for event in queue.working:
        assert event.task_id == progress.updater.task_id
        assert event.context_id == "ctx-1"
        message = event.status.message
        assert message.role == Role.ROLE_AGENT
        message_ids.add(message.message_id)
        part = only_part(event)
        assert part.HasField("text")
        assert part.text
        assert isinstance(part.metadata[TFRS_KEY], str)
        assert isinstance(read_envelope(part), Envelope)
    assert len(message_ids) == 5
    kinds = [(e.kind, e.status) for e in queue.envelopes]
    assert kinds == [
        (Kind.THINKING, Status.RUNNING),
        (Kind.TEXT, Status.RUNNING),
        (Kind.ERROR, Status.RUNNING),
        (Kind.TOOL_CALL, Status.RUNNING),
        (Kind.TOOL_CALL, Status.DONE),
    ]
    fallbacks = [only_part(e).text for e in queue.working]
    assert fallbacks[:3] == ["let me think", "step 1", "disk almost full"]
    assert "search" in fallbacks[3]
    assert "search" in fallbacks[4]


async def test_each_working_update_is_handed_over_with_its_envelope_and_ids() -> None:
    """Inside the enqueue of each working update, the emitter offers the callee's bridge the
    envelope and fallback it built the update's Part from, and the update's task and context
    ids (a bridge that only counts reads nothing of the event)."""
    offers: list[tuple[object, list[tuple[Envelope, str, str, str]]]] = []

    class Watching(RecordingQueue):
        async def enqueue_event(self, event: Any) -> None:
            held = offered()
            offers.append((event, list(held) if held else []))
            await super().enqueue_event(event)

    queue = Watching()
    progress = ProgressEmitter(TaskUpdater(queue, "task-7", "ctx-7"))
    await progress.thinking("let me think")
    async with progress.tool_call("search", "call-1"):
        pass
    handed = [held for event, held in offers if event in queue.working]
    assert len(handed) == len(queue.working) == 3
    for event, held in zip(queue.working, handed, strict=True):
        [(envelope, fallback, task_id, context_id)] = held
        assert envelope == read_envelope(only_part(event))
        assert fallback == only_part(event).text
        assert (task_id, context_id) == (event.task_id, event.context_id) == ("task-7", "ctx-7")
    assert offered() is None  # withdrawn once enqueued


async def test_payloads_per_kind() -> None:
    progress, queue = make()
    await progress.thinking("t")
    await progress.text("x")
    await progress.error("e")
    call = await progress.tool_call("grep", "c9")
    await call.aborted("timeout")
    payloads = [dict(e.payload) for e in queue.envelopes]
    assert payloads == [
        {"text": "t"},
        {"text": "x"},
        {"message": "e"},
        {"tool": "grep", "tool_call_id": "c9"},
        {"tool": "grep", "tool_call_id": "c9", "reason": "timeout"},
    ]
    assert queue.envelopes[-1].status is Status.ABORTED


@pytest.mark.parametrize("seq_start", [1, 0, -5, 2**53 + 7, -(10**20), 10**30])
async def test_seq_strictly_increases_from_seq_start(seq_start: int) -> None:
    progress, queue = make(seq_start=seq_start)
    assert progress.next_seq == seq_start
    await progress.thinking("a")
    async with progress.tool_call("t", "c"):
        await progress.text("b")
    await progress.error("c")
    assert queue.seqs == list(range(seq_start, seq_start + 5))
    assert progress.next_seq == seq_start + 5
    # The big ints are exact on the wire (a JSON string, not a Struct number).
    raw = json.loads(only_part(queue.working[0]).metadata[TFRS_KEY])
    assert raw["seq"] == seq_start


@pytest.mark.parametrize("seq_start", [1, 2**60])
async def test_seq_strictly_increases_under_concurrent_tool_calls(seq_start: int) -> None:
    progress, queue = make(seq_start=seq_start)

    async def work(i: int) -> None:
        async with progress.tool_call(f"tool{i}", f"id{i}"):
            for _ in range(3):
                await asyncio.sleep(0)
                await progress.thinking(f"{i} thinking")

    await asyncio.gather(*(work(i) for i in range(12)))
    seqs = queue.seqs
    assert seqs == list(range(seq_start, seq_start + 12 * 5))  # in queue order, no gap
    by_key: dict[str | None, list[Envelope]] = {}
    for envelope in queue.envelopes:
        if envelope.kind is Kind.TOOL_CALL:
            by_key.setdefault(envelope.stream_key, []).append(envelope)
    assert len(by_key) == 12
    for key, calls in by_key.items():
        assert [c.status for c in calls] == [Status.RUNNING, Status.DONE], key
        assert calls[0].seq < calls[1].seq
    assert progress.open_calls == []


# -- stream keys ----------------------------------------------------------------------------------


async def test_stream_key_defaults_to_the_tool_call_id() -> None:
    progress, queue = make()
    async with progress.tool_call("t", "call-7"):
        pass
    for envelope in queue.envelopes:
        assert envelope.stream_key == "call-7"
        assert envelope.tool_call_id == "call-7"


async def test_stream_key_is_omitted_without_an_id() -> None:
    progress, queue = make()
    async with progress.tool_call("t"):
        pass
    for event in queue.working:
        raw = json.loads(only_part(event).metadata[TFRS_KEY])
        assert "streamKey" not in raw
        assert raw["payload"] == {"tool": "t"}
    assert [e.stream_id for e in queue.envelopes] == ["", ""]


async def test_explicit_stream_key_wins() -> None:
    progress, queue = make()
    async with progress.tool_call("t", "call-7", stream_key="lane-2"):
        pass
    for envelope in queue.envelopes:
        assert envelope.stream_key == "lane-2"
        assert envelope.tool_call_id == "call-7"


async def test_stream_key_without_an_id() -> None:
    progress, queue = make()
    call = await progress.tool_call("t", stream_key="lane-3")
    assert call.stream_key == "lane-3"
    assert queue.envelopes[0].stream_key == "lane-3"
    assert "tool_call_id" not in queue.envelopes[0].payload


async def test_thinking_and_text_carry_no_stream_key() -> None:
    progress, queue = make()
    await progress.thinking("a")
    await progress.text("b")
    assert [e.stream_key for e in queue.envelopes] == [None, None]


# -- tool call lifecycle --------------------------------------------------------------------------


async def test_tool_call_context_ends_done_on_normal_exit() -> None:
    progress, queue = make()
    async with progress.tool_call("t", "c") as call:
        assert call.is_open
        assert call.state is CallState.RUNNING
        assert progress.open_calls == [call]
    assert call.state is CallState.DONE
    assert not call.is_open
    assert progress.open_calls == []
    assert [e.status for e in queue.envelopes] == [Status.RUNNING, Status.DONE]


async def test_tool_call_context_ends_aborted_on_exception_which_propagates() -> None:
    progress, queue = make()
    with pytest.raises(KeyError, match="missing"):
        async with progress.tool_call("t", "c") as call:
            raise KeyError("missing")
    assert call.state is CallState.ABORTED
    last = queue.envelopes[-1]
    assert last.status is Status.ABORTED
    assert last.payload["reason"] == "KeyError: 'missing'"
    assert "aborted" in only_part(queue.working[-1]).text


async def test_tool_call_context_ends_aborted_on_cancellation() -> None:
    progress, queue = make()

    async def body(started: asyncio.Event) -> None:
        async with progress.tool_call("t", "c"):
            started.set()
            await asyncio.Event().wait()

    await cancel_once_started(body)
    assert [e.status for e in queue.envelopes] == [Status.RUNNING, Status.ABORTED]
    assert queue.envelopes[-1].payload["reason"] == "cancelled"
    assert progress.open_calls == []


async def test_a_call_starts_once_and_ends_once() -> None:
    progress, queue = make()
    call = progress.tool_call("t", "c")
    assert call.state is CallState.PENDING
    await call.done()  # not started: nothing to end
    assert queue.events == []
    assert await call is call
    await call.start()
    await call
    await call.done()
    await call.done()
    await call.aborted("late")
    await call.start()  # ended calls do not restart
    assert [e.status for e in queue.envelopes] == [Status.RUNNING, Status.DONE]


# -- tool output (E3) -----------------------------------------------------------------------------


async def test_output_is_a_no_op_unless_enabled() -> None:
    progress, queue = make()
    async with progress.tool_call("tail", "c") as call:
        await call.output("line 1\nline 2\n")
    assert [e.kind for e in queue.envelopes] == [Kind.TOOL_CALL, Kind.TOOL_CALL]
    assert not progress.output_enabled


async def test_output_when_enabled_splits_by_lines_under_the_soft_limit() -> None:
    progress, queue = make(enable_output=True, seq_start=100)
    lines = [f"{i:05d} " + "x" * 90 + "\n" for i in range(300)]  # 97 bytes a line
    chunk = "".join(lines)
    async with progress.tool_call("tail", "c-1") as call:
        await call.output(chunk)
    envelopes = queue.envelopes
    appends = [e for e in envelopes if e.kind is Kind.TOOL_OUTPUT_APPEND]
    assert len(appends) > 1
    assert "".join(str(e.payload["chunk"]) for e in appends) == chunk
    for envelope in appends:
        piece = str(envelope.payload["chunk"])
        assert utf8_size(piece) <= SOFT_LIMIT_BYTES
        assert piece.endswith("\n")  # cut between lines, not inside one
        assert envelope.stream_key == "c-1"
        assert envelope.tool == "tail"
        assert envelope.tool_call_id == "c-1"
        assert envelope.status is Status.RUNNING
    assert [e.seq for e in envelopes] == list(range(100, 100 + len(envelopes)))
    fallbacks = [only_part(e).text for e in queue.working[1:-1]]
    assert "".join(fallbacks) == chunk


async def test_output_outside_a_running_call_is_dropped() -> None:
    progress, queue = make(enable_output=True)
    call = progress.tool_call("tail", "c")
    await call.output("before start")
    await call.start()
    await call.done()
    await call.output("after done")
    assert [e.kind for e in queue.envelopes] == [Kind.TOOL_CALL, Kind.TOOL_CALL]


# -- size control ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("emit", "field"),
    [
        (ProgressEmitter.thinking, "text"),
        (ProgressEmitter.text, "text"),
        (ProgressEmitter.error, "message"),
    ],
    ids=["thinking", "text", "error"],
)
async def test_long_text_is_split_into_consecutive_envelopes(
    emit: Callable[[ProgressEmitter, str], Awaitable[None]], field: str
) -> None:
    progress, queue = make(seq_start=7)
    text = "".join(f"line {i} " + "é" * 60 + "\n" for i in range(400))  # ~50 KB
    await emit(progress, text)
    envelopes = queue.envelopes
    assert len(envelopes) > 1
    assert "".join(str(e.payload[field]) for e in envelopes) == text
    assert all(utf8_size(str(e.payload[field])) <= SOFT_LIMIT_BYTES for e in envelopes)
    assert [e.seq for e in envelopes] == list(range(7, 7 + len(envelopes)))
    assert [only_part(e).text for e in queue.working] == [e.payload[field] for e in envelopes]


async def test_soft_limit_option_is_honoured() -> None:
    progress, queue = make(soft_limit=64)
    await progress.thinking("word " * 100)
    assert len(queue.envelopes) >= 8
    assert all(utf8_size(e.payload["text"]) <= 64 for e in queue.envelopes)


async def test_a_block_over_the_hard_limit_is_dropped_with_a_small_fallback() -> None:
    progress, queue = make()
    huge_tool = "t" * (70 * 1024)
    call = await progress.tool_call(huge_tool, "c")
    await progress.thinking("still going")
    await call.done()
    first = queue.working[0]
    part = only_part(first)
    assert not part.HasField("metadata") or TFRS_KEY not in part.metadata
    assert read_envelope(first) is None
    assert "dropped" in part.text
    assert utf8_size(part.text) <= SOFT_LIMIT_BYTES + 200
    # The turn goes on: the next envelope is intact and later in seq.
    second = read_envelope(queue.working[1])
    assert isinstance(second, Envelope)
    assert second.content == "still going"
    assert second.seq == 2


async def test_every_emitted_envelope_is_within_the_hard_limit() -> None:
    # Text that JSON-escapes six-fold still fits: pieces are cut by the soft limit.
    progress, queue = make()
    await progress.thinking("\x01" * 30_000)
    for event in queue.working:
        assert utf8_size(only_part(event).metadata[TFRS_KEY]) <= 64 * 1024
    assert "".join(e.payload["text"] for e in queue.envelopes) == "\x01" * 30_000


# -- redaction ------------------------------------------------------------------------------------


async def test_credentials_never_reach_the_queue() -> None:
    progress, queue = make(enable_output=True)
    await progress.thinking(f"calling with Authorization: {BEARER}")
    await progress.text(f"token {BEARER}")
    await progress.error(f"auth failed for {BEARER}")
    async with progress.tool_call(f"fetch password={SECRET}", "c") as call:
        await call.output(f"header: {BEARER}\n")
    failing = await progress.tool_call("other", "d")
    await failing.aborted(f"rejected {BEARER}")
    dump = queue.dump()
    assert SECRET not in dump
    assert MASK in dump
    for event in queue.working:
        assert SECRET not in str(event)


async def test_a_calls_names_are_masked_in_every_block_in_the_wire_order() -> None:
    progress, queue = make(enable_output=True)
    call = await progress.tool_call(f"fetch token={SECRET}", f"id {BEARER}")
    await call.output("line\n")
    await call.aborted(f"rejected {BEARER}")
    keyed = await progress.tool_call("run", "c-1", stream_key=f"key password={SECRET}")
    await keyed.done()
    envelopes = queue.envelopes
    assert [list(e.payload) for e in envelopes] == [
        ["tool", "tool_call_id"],
        ["tool", "tool_call_id", "chunk"],
        ["tool", "reason", "tool_call_id"],
        ["tool", "tool_call_id"],
        ["tool", "tool_call_id"],
    ]
    assert SECRET not in queue.dump()
    start, output, aborted = envelopes[:3]
    assert start.payload["tool"] == output.payload["tool"] == f"fetch token={MASK}"
    assert start.payload["tool_call_id"] == aborted.payload["tool_call_id"] == start.stream_key
    assert aborted.payload["reason"] == f"rejected Bearer {MASK}"
    assert only_part(queue.working[0]).text == f"Calling tool fetch token={MASK}"
    # A key of its own is the stream key; the id still rides, redacted, in the payload.
    assert envelopes[3].stream_key == f"key password={MASK}"
    assert envelopes[3].payload["tool_call_id"] == "c-1"


@pytest.fixture
def scanned(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text a `Redactor` is asked to redact, from here on."""
    texts: list[str] = []
    redact = Redactor.redact

    def counting(self: Redactor, text: str) -> str:
        texts.append(text)
        return redact(self, text)

    monkeypatch.setattr(Redactor, "redact", counting)
    return texts


async def test_a_call_scans_its_names_once_and_a_tools_name_once_per_process(
    scanned: list[str],
) -> None:
    progress, _ = make()
    tool = f"tool-{uuid.uuid4()}"  # seen by no other test
    for index in range(3):
        async with progress.tool_call(tool, f"call-{index}-{tool}"):
            pass
    # Each id once (the stream key it becomes is the payload's id); the tool's name and the two
    # fallbacks made of it once for all three calls.
    assert sorted(text for text in scanned if tool in text) == sorted(
        [f"call-{index}-{tool}" for index in range(3)]
        + [tool, f"Calling tool {tool}", f"Tool {tool} finished"]
    )


async def test_a_tools_name_holding_a_credential_is_not_remembered(scanned: list[str]) -> None:
    progress, queue = make()
    tool = f"fetch-{uuid.uuid4()} token={SECRET}"
    for index in range(2):
        async with progress.tool_call(tool, f"call-{index}"):
            pass
    # Masked each time from the name itself: nothing keeps the credential between calls.
    assert scanned.count(tool) == 2
    assert SECRET not in queue.dump()


async def test_redaction_happens_before_splitting() -> None:
    # A secret straddling a piece boundary would survive if the pieces were redacted one by one.
    progress, queue = make(soft_limit=32)
    await progress.thinking("x" * 20 + " " + BEARER + " " + "y" * 20)
    assert SECRET not in queue.dump()
    assert SECRET[:8] not in queue.dump()


async def test_redactor_none_disables_masking() -> None:
    progress, queue = make(redactor=None)
    await progress.thinking(f"with {BEARER}")
    assert SECRET in queue.envelopes[0].payload["text"]
    assert SECRET in only_part(queue.working[0]).text


async def test_custom_redactor_is_used() -> None:
    progress, queue = make(redactor=Redactor([r"ACME-\d{4}"]))
    await progress.thinking("ticket ACME-1234")
    assert queue.envelopes[0].payload["text"] == f"ticket {MASK}"


# -- terminal discipline --------------------------------------------------------------------------

FINISHERS = [
    ("complete", TaskState.TASK_STATE_COMPLETED, "turn completed"),
    ("failed", TaskState.TASK_STATE_FAILED, "turn failed"),
    ("cancel", TaskState.TASK_STATE_CANCELED, "turn canceled"),
    ("reject", TaskState.TASK_STATE_REJECTED, "turn rejected"),
]


@pytest.mark.parametrize(("method", "state", "reason"), FINISHERS, ids=[f[0] for f in FINISHERS])
async def test_finishing_aborts_open_calls_before_the_terminal_event(
    method: str, state: int, reason: str
) -> None:
    progress, queue = make()
    first = await progress.tool_call("a", "c1")
    second = await progress.tool_call("b", "c2")
    closed = await progress.tool_call("c", "c3")
    await closed.done()
    await getattr(progress, method)("the reply")
    assert queue.states()[-1] == state
    assert queue.states().count(state) == 1
    terminal = queue.updates[-1]
    assert only_part(terminal).text == "the reply"
    assert terminal.status.message.role == Role.ROLE_AGENT
    aborted = [e for e in queue.envelopes if e.status is Status.ABORTED]
    assert [e.stream_key for e in aborted] == ["c1", "c2"]
    assert all(e.payload["reason"] == reason for e in aborted)
    # Every aborted update precedes the terminal one, which is the last event.
    assert queue.states() == [TaskState.TASK_STATE_WORKING] * 6 + [state]
    assert first.state is CallState.ABORTED
    assert second.state is CallState.ABORTED
    assert closed.state is CallState.DONE
    assert progress.open_calls == []


async def test_finishing_with_a_message_or_nothing() -> None:
    progress, queue = make()
    reply = Message(role=Role.ROLE_AGENT, message_id="m-1", parts=[Part(text="done!")])
    await progress.complete(reply)
    assert queue.updates[-1].status.message.message_id == "m-1"
    other, other_queue = make()
    await other.failed()
    assert not other_queue.updates[-1].status.HasField("message")
    assert other_queue.states() == [TaskState.TASK_STATE_FAILED]


async def test_emitter_context_aborts_open_calls_when_the_body_raises() -> None:
    progress, queue = make()

    async def execute() -> None:
        async with progress:
            await progress.tool_call("t", "c")
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        await execute()
    assert [e.status for e in queue.envelopes] == [Status.RUNNING, Status.ABORTED]
    assert queue.envelopes[-1].payload["reason"] == "turn failed: RuntimeError"
    assert progress.open_calls == []


async def test_emitter_context_aborts_open_calls_when_cancelled() -> None:
    progress, queue = make()

    async def execute(started: asyncio.Event) -> None:
        async with progress:
            await progress.tool_call("t", "c")
            started.set()
            await asyncio.Event().wait()

    await cancel_once_started(execute)
    assert [e.status for e in queue.envelopes] == [Status.RUNNING, Status.ABORTED]
    assert queue.envelopes[-1].payload["reason"] == "turn canceled"


async def test_emitter_context_aborts_calls_left_open_on_normal_exit() -> None:
    progress, queue = make()
    async with progress:
        await progress.tool_call("t", "c")
    assert queue.envelopes[-1].status is Status.ABORTED
    assert queue.envelopes[-1].payload["reason"] == "turn ended"


async def test_emitter_context_emits_nothing_when_everything_closed() -> None:
    progress, queue = make()
    async with progress:
        async with progress.tool_call("t", "c"):
            pass
        await progress.complete("ok")
    assert queue.states() == [
        TaskState.TASK_STATE_WORKING,
        TaskState.TASK_STATE_WORKING,
        TaskState.TASK_STATE_COMPLETED,
    ]


# -- after the terminal state ---------------------------------------------------------------------


async def test_abort_after_the_terminal_state_does_not_raise() -> None:
    progress, queue = make()
    await progress.tool_call("a", "c1")
    await progress.tool_call("b", "c2")
    await progress.updater.complete()  # someone else ended the task
    await progress.abort_open_calls("late")
    assert progress.open_calls == []
    assert queue.states()[-1] == TaskState.TASK_STATE_COMPLETED
    assert len(queue.working) == 2  # nothing was enqueued after the terminal state


async def test_emitter_context_exit_after_the_terminal_state_does_not_raise() -> None:
    progress, queue = make()
    async with progress:
        await progress.tool_call("a", "c1")
        await progress.updater.cancel()
    assert queue.states()[-1] == TaskState.TASK_STATE_CANCELED


async def test_emitter_context_keeps_the_body_exception_after_the_terminal_state() -> None:
    progress, _queue = make()

    async def execute() -> None:
        async with progress:
            await progress.tool_call("a", "c1")
            await progress.updater.failed()
            raise ValueError("body")

    with pytest.raises(ValueError, match="body"):
        await execute()


async def test_tool_call_context_keeps_the_body_exception_after_the_terminal_state() -> None:
    progress, queue = make()

    async def execute() -> None:
        async with progress.tool_call("a", "c1"):
            await progress.updater.failed()
            raise ValueError("tool broke")

    with pytest.raises(ValueError, match="tool broke"):
        await execute()
    assert queue.states()[-1] == TaskState.TASK_STATE_FAILED
    assert progress.open_calls == []


async def test_tool_call_context_cancelled_after_the_terminal_state_stays_cancelled() -> None:
    progress, queue = make()

    async def body(started: asyncio.Event) -> None:
        async with progress.tool_call("a", "c1"):
            await progress.updater.cancel()
            started.set()
            await asyncio.Event().wait()

    await cancel_once_started(body)
    assert queue.states()[-1] == TaskState.TASK_STATE_CANCELED


# -- for_task -------------------------------------------------------------------------------------


async def test_for_task_returns_the_live_emitter() -> None:
    progress, _queue = make()
    task_id = progress.updater.task_id
    other_queue = RecordingQueue()
    found = ProgressEmitter.for_task(other_queue, task_id, "ctx-1")  # type: ignore[arg-type]
    assert found is progress


async def test_for_task_lets_cancel_abort_the_open_calls_of_execute() -> None:
    progress, queue = make()
    task_id = progress.updater.task_id
    started = asyncio.Event()

    async def execute() -> None:
        async with progress, progress.tool_call("slow", "c1"):
            started.set()
            await asyncio.Event().wait()

    task = asyncio.create_task(execute())
    await started.wait()
    # AgentExecutor.cancel(): reach the live emitter, abort its calls, then CANCELED.
    cancel_queue = RecordingQueue()
    canceller = ProgressEmitter.for_task(cancel_queue, task_id, "ctx-1")  # type: ignore[arg-type]
    await canceller.cancel("stopped")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [e.status for e in queue.envelopes] == [Status.RUNNING, Status.ABORTED]
    assert queue.envelopes[-1].payload["reason"] == "turn canceled"
    assert queue.states()[-1] == TaskState.TASK_STATE_CANCELED
    assert queue.states().count(TaskState.TASK_STATE_CANCELED) == 1
    assert cancel_queue.events == []


async def test_for_task_gives_a_fresh_emitter_once_the_turn_finished() -> None:
    progress, _queue = make()
    task_id = progress.updater.task_id
    await progress.complete("ok")
    fresh_queue = RecordingQueue()
    fresh = ProgressEmitter.for_task(fresh_queue, task_id, "ctx-1", seq_start=50)  # type: ignore[arg-type]
    assert fresh is not progress
    assert fresh.updater.task_id == task_id
    assert fresh.next_seq == 50
    await fresh.thinking("again")
    assert [e.seq for e in fresh_queue.envelopes] == [50]


async def test_for_task_gives_a_fresh_emitter_after_the_context_exits() -> None:
    progress, _queue = make()
    task_id = progress.updater.task_id
    async with progress:
        await progress.thinking("x")
    fresh = ProgressEmitter.for_task(RecordingQueue(), task_id, "ctx-1")  # type: ignore[arg-type]
    assert fresh is not progress


async def test_for_task_without_a_live_emitter_creates_one() -> None:
    queue = RecordingQueue()
    task_id = f"task-{uuid.uuid4()}"
    created = ProgressEmitter.for_task(queue, task_id, "ctx-9", enable_output=True)  # type: ignore[arg-type]
    assert created.output_enabled
    assert ProgressEmitter.for_task(RecordingQueue(), task_id, "ctx-9") is created  # type: ignore[arg-type]
    await created.cancel()
    assert queue.states() == [TaskState.TASK_STATE_CANCELED]
    assert queue.updates[0].context_id == "ctx-9"


# -- handed_envelope (deprecated) ------------------------------------------------------------------


class TakingQueue(RecordingQueue):
    """A queue whose ``enqueue_event`` takes what the emitter hands over, twice, as a user's
    own queue could: the one place `handed_envelope` ever answered."""

    def __init__(self) -> None:
        super().__init__()
        self.taken: list[tuple[Event, Any, Any]] = []

    async def enqueue_event(self, event: Event) -> None:
        with pytest.warns(DeprecationWarning, match=r"a2a_progress\.read_envelope\(event\)"):
            first, again = handed_envelope(), handed_envelope()
        self.taken.append((event, first, again))
        await super().enqueue_event(event)


async def test_handed_envelope_warns_and_still_hands_the_enqueued_envelope_once() -> None:
    queue = TakingQueue()
    progress = ProgressEmitter(TaskUpdater(queue, f"task-{uuid.uuid4()}", "ctx-1"))
    await progress.thinking("let me think")
    await progress.complete("done")
    [update] = queue.working
    [(event, first, again), *after] = queue.taken
    assert event is update
    assert again is None  # handed once
    envelope, fallback = first
    assert envelope == read_envelope(update)  # the replacement reads the same envelope
    assert fallback == only_part(update).text == "let me think"
    assert after  # the turn's end was enqueued too, and nothing was handed with it
    assert [handed for _, handed, _ in after] == [None] * len(after)
    with pytest.warns(DeprecationWarning, match="handed_envelope is deprecated"):
        assert handed_envelope() is None  # outside an enqueue call: nothing
