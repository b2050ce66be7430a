"""The assembler reads dialects (a2a_progress.dialects) where no envelope is: wiring and rules.

The readers themselves are tested in tests/dialects; here: an update carrying our envelope is
never also read as a dialect, each update is named by its dialect, dialects switch off by
argument and by A2A_PROGRESS_DIALECTS, duplicates are consumed once, junk stays bounded, and the
bridge labels a dialect's tool spans.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

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
from google.protobuf.struct_pb2 import Struct
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from a2a_progress.consumer import EndReason, Outcome, ProgressAssembler, ProgressUpdate, follow
from a2a_progress.dialects import DIALECTS_ENV
from a2a_progress.envelope import Envelope, Kind, Status, encode
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.bridge import Bridge
from a2a_progress.otel.config import BridgeConfig
from a2a_progress.otel.metrics import BridgeMetrics
from a2a_progress.sdk.adapter import envelope_part
from dialects.fixtures import (
    ADK_EVENT_METADATA,
    adk_call,
    adk_response,
    adk_thought,
    data_part,
    gemini_metadata,
    gemini_tool_call,
)

WORKING = TaskState.TASK_STATE_WORKING
_ids = itertools.count()


def working(
    parts: Sequence[Part], *, metadata: Struct | None = None, mid: str | None = None
) -> StreamResponse:
    message = Message(
        message_id=mid or f"m{next(_ids)}", role=Role.ROLE_AGENT, task_id="t1",
        context_id="c1", parts=parts,
    )  # fmt: skip
    event = TaskStatusUpdateEvent(
        task_id="t1", context_id="c1", status=TaskStatus(state=WORKING, message=message)
    )
    if metadata is not None:
        event.metadata.CopyFrom(metadata)
    return StreamResponse(status_update=event)


def adk_turn() -> list[StreamResponse]:
    return [
        working([adk_thought("Check the deploy first.")], metadata=ADK_EVENT_METADATA),
        working([adk_call("adk-1", "get_status", {"id": 7})], metadata=ADK_EVENT_METADATA),
        working([adk_response("adk-1", "get_status", {"status": "ok"})],
                metadata=ADK_EVENT_METADATA),
    ]  # fmt: skip


def progress(assembler: ProgressAssembler, events: Sequence[object]) -> list[ProgressUpdate]:
    return [u for e in events for u in assembler.feed(e) if isinstance(u, ProgressUpdate)]  # type: ignore[arg-type]


def test_an_adk_turn_becomes_progress_named_by_its_dialect() -> None:
    updates = progress(ProgressAssembler(dialects="adk"), adk_turn())
    assert [(u.envelope.kind, u.envelope.status, u.dialect) for u in updates] == [
        (Kind.THINKING, Status.RUNNING, "adk"),
        (Kind.TOOL_CALL, Status.RUNNING, "adk"),
        (Kind.TOOL_CALL, Status.DONE, "adk"),
    ]
    assert not any(u.degraded for u in updates)
    assert updates[0].envelope.content == "Check the deploy first."
    opened, closed = updates[1], updates[2]
    assert opened.opened
    assert opened.call is not None
    assert (opened.call.tool, opened.call.tool_call_id, opened.call.dialect) == (
        "get_status", "adk-1", "adk",
    )  # fmt: skip
    assert closed.closed == (opened.call,)
    assert opened.call.end_reason is EndReason.DONE


def test_our_envelope_wins_over_a_dialect_in_the_same_update() -> None:
    envelope = Envelope(Kind.TEXT, 1, {"text": "from the envelope"})
    both = working(
        [envelope_part(encode(envelope), "fallback"), adk_call("adk-9", "search")],
        metadata=ADK_EVENT_METADATA,
    )
    [update] = progress(ProgressAssembler(dialects="all"), [both])
    assert update.dialect is None
    assert update.envelope == envelope
    # An unusable envelope still claims the update: it degrades, it is not read as ADK.
    bad = Part(text="fallback", metadata={"tfrs": "not json"})
    [degraded] = progress(ProgressAssembler(), [working([bad, adk_call("adk-9", "search")])])
    assert degraded.degraded
    assert degraded.dialect is None
    assert degraded.call is None


def test_a_dialect_and_our_envelopes_in_one_turn_do_not_shadow_each_other() -> None:
    # Both number from small seqs on the default stream: neither may be taken for a repeat.
    ours = [
        working([envelope_part(encode(Envelope(Kind.TEXT, seq, {"text": f"ours {seq}"})), "")])
        for seq in (1, 2)
    ]
    updates = progress(ProgressAssembler(dialects="adk"), [*ours, *adk_turn()])
    assert [(u.envelope.kind, u.dialect) for u in updates] == [
        (Kind.TEXT, None),
        (Kind.TEXT, None),
        (Kind.THINKING, "adk"),
        (Kind.TOOL_CALL, "adk"),
        (Kind.TOOL_CALL, "adk"),
    ]
    assert updates[2].envelope.content == "Check the deploy first."


@pytest.mark.parametrize("peer_key", ["\x00", "\x00adk\x00adk-0", "adk-0"])
def test_a_peers_stream_key_never_shares_a_dialects_seq_window(peer_key: str) -> None:
    # Whatever stream key a peer picks, it cannot name (or break) a dialect's window.
    ours = Envelope(Kind.THINKING, 1, {"text": "ours"}, stream_key=peer_key)
    assembler = ProgressAssembler(dialects="adk", max_streams=2)
    events = [
        working([envelope_part(encode(ours), "")]),
        working([adk_call("adk-0", "search")], metadata=ADK_EVENT_METADATA),
        working([adk_call("adk-1", "search")], metadata=ADK_EVENT_METADATA),
    ]
    updates = progress(assembler, events)
    assert [(u.envelope.stream_key, u.dialect) for u in updates] == [
        (peer_key, None),
        ("adk-0", "adk"),
        ("adk-1", "adk"),
    ]


def test_a_dialect_call_whose_stream_is_forgotten_is_closed() -> None:
    assembler = ProgressAssembler(dialects="adk", max_streams=2)
    events = [
        working([adk_call(f"adk-{n}", "search")], metadata=ADK_EVENT_METADATA) for n in range(3)
    ]
    updates = progress(assembler, events)
    first = updates[0].call
    assert first is not None
    # The third stream pushes the first out: its call ends then, like an envelope's would.
    assert updates[2].closed == (first,)
    assert first.end_reason is not None


@pytest.mark.parametrize("off", ["none", "off", ["none"]])
def test_switched_off_by_argument_the_update_degrades_to_its_text(off: str | list[str]) -> None:
    assembler = ProgressAssembler(dialects=off)
    assert assembler.dialects == frozenset()
    updates = progress(assembler, adk_turn())
    assert [(u.degraded, u.dialect, u.envelope.content) for u in updates] == [
        (True, None, "Check the deploy first.")
    ]


async def test_follow_takes_the_switch_too() -> None:
    async def source():  # type: ignore[no-untyped-def]
        for event in adk_turn():
            yield event

    updates = [u async for u in follow(source(), dialects="none")]
    assert not any(isinstance(u, ProgressUpdate) and u.dialect for u in updates)
    with pytest.raises(ValueError, match="assembler"):
        [u async for u in follow(source(), assembler=ProgressAssembler(), dialects="adk")]


def test_switched_off_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DIALECTS_ENV, "none")
    assert all(u.degraded for u in progress(ProgressAssembler(), adk_turn()))
    monkeypatch.setenv(DIALECTS_ENV, "gemini-cli")
    assert ProgressAssembler().dialects == frozenset({"gemini-cli"})
    assert all(u.dialect is None for u in progress(ProgressAssembler(), adk_turn()))
    # The argument wins over the environment.
    assert {u.dialect for u in progress(ProgressAssembler(dialects="adk"), adk_turn())} == {"adk"}


def test_duplicates_are_consumed_once() -> None:
    reported: list[Outcome] = []
    assembler = ProgressAssembler(dialects="all", on_outcome=reported.append)
    events = adk_turn()
    assert len(progress(assembler, events)) == 3
    # The same messages again (a resubscribe), then a snapshot repeating them as history.
    assert progress(assembler, events) == []
    history = [e.status_update.status.message for e in events]
    snapshot = Task(id="t1", context_id="c1", status=TaskStatus(state=WORKING), history=history)
    assert progress(assembler, [snapshot]) == []
    # Gemini CLI resends the whole ToolCall on every change: one call, consumed once.
    uri_meta = gemini_metadata("tool-call-update")
    resent = [
        working([gemini_tool_call("g-1", "EXECUTING")], metadata=uri_meta),
        working([gemini_tool_call("g-1", "EXECUTING")], metadata=uri_meta),
        working([gemini_tool_call("g-1", "SUCCEEDED", output="ok")], metadata=uri_meta),
        working([gemini_tool_call("g-1", "SUCCEEDED", output="ok")], metadata=uri_meta),
    ]
    gemini = progress(assembler, resent)
    assert [u.dialect for u in gemini] == ["gemini-cli"] * len(gemini)
    assert sum(u.opened for u in gemini) == 1
    assert sum(len(u.closed) for u in gemini) == 1
    assert Outcome.DUPLICATE in reported


def test_adk_parts_in_artifact_updates_are_read_once() -> None:
    assembler = ProgressAssembler(dialects="adk")
    artifact = Artifact(
        artifact_id="a1", parts=[adk_call("adk-2", "search"), Part(text="the reply")]
    )
    event = TaskArtifactUpdateEvent(task_id="t1", context_id="c1", artifact=artifact)
    event.metadata.CopyFrom(ADK_EVENT_METADATA)
    [update] = progress(assembler, [event])
    assert (update.dialect, update.opened, update.envelope.kind) == ("adk", True, Kind.TOOL_CALL)
    # The task snapshot that repeats the artifact brings nothing new.
    snapshot = Task(
        id="t1", context_id="c1", status=TaskStatus(state=WORKING), artifacts=[artifact]
    )
    assert progress(assembler, [snapshot]) == []


@pytest.mark.parametrize(("dialects", "reply"), [("adk", "The answer."), ("none", None)])
def test_adk_thoughts_sent_as_artifacts_are_thinking_not_the_reply(
    dialects: str, reply: str | None
) -> None:
    # Newer ADK streams thoughts in artifact updates too; the answer follows in the same way.
    assembler = ProgressAssembler(dialects=dialects)
    thought = TaskArtifactUpdateEvent(
        task_id="t1",
        context_id="c1",
        artifact=Artifact(artifact_id="a-thought", parts=[adk_thought("Look it up first.")]),
    )
    answer = TaskArtifactUpdateEvent(
        task_id="t1",
        context_id="c1",
        artifact=Artifact(artifact_id="a-answer", parts=[Part(text="The answer.")]),
    )
    done = TaskStatusUpdateEvent(
        task_id="t1", context_id="c1", status=TaskStatus(state=TaskState.TASK_STATE_COMPLETED)
    )
    updates = [u for e in (thought, answer, done) for u in assembler.feed(e)]
    [outcome] = [u for u in updates if not isinstance(u, ProgressUpdate)]
    thinking = [
        u for u in updates if isinstance(u, ProgressUpdate) and u.envelope.kind is Kind.THINKING
    ]
    if reply is None:  # dialects off: the thought is just artifact text, as before
        assert not thinking
        assert outcome.reply == "Look it up first.\nThe answer."
    else:
        assert [u.envelope.content for u in thinking] == ["Look it up first."]
        assert outcome.reply == reply


def test_junk_in_a_dialect_stays_bounded() -> None:
    assembler = ProgressAssembler(dialects="all")
    junk = [data_part({"no": "id"}, {"adk_type": "function_call"}) for _ in range(50)]
    for _ in range(200):
        assert progress(assembler, [working(junk, metadata=ADK_EVENT_METADATA)]) == []
    # A flood of distinct calls: the calls remembered per turn stay capped.
    flood = [working([adk_call(f"id-{i}", "t")]) for i in range(5000)]
    opened = sum(u.opened for u in progress(assembler, flood))
    assert 0 < opened < 5000
    assert len(assembler.open_calls("t1")) <= opened


def test_the_bridge_labels_a_dialects_tool_span(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DIALECTS_ENV, raising=False)
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    meters = MeterProvider()
    bridge = Bridge(
        provider.get_tracer("test"),
        BridgeMetrics(meters.get_meter("test")),
        BridgeConfig.resolve({}),
    )
    turn = bridge.start_turn(
        "SendStreamingMessage", kind=SpanKind.CLIENT, observer="caller", parent=None, attributes={}
    )
    for event in adk_turn():
        turn.feed(event)
    turn.end()
    [tool] = [s for s in exporter.get_finished_spans() if s.name.startswith("execute_tool")]
    attributes = dict(tool.attributes or {})
    assert attributes[conv.DIALECT] == "adk"
    assert attributes[conv.GEN_AI_TOOL_CALL_ID] == "adk-1"
    assert attributes[conv.END_REASON] == "done"
    provider.shutdown()
    meters.shutdown()
