"""Hostile input, generated: whatever a peer puts on the wire, reading it never raises nor changes
the message, the assembler's bookkeeping stays sound, and nothing oversize, unexportable or secret
reaches telemetry.

Three readers get the same input: the codec (``decode``, ``read_envelope``), the
consumer (``ProgressAssembler``), and the OpenTelemetry bridge (``TurnTelemetry`` fed the
protobuf events directly, on an SDK TracerProvider exporting to memory).
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

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
)
from google.protobuf import struct_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.trace import SpanKind

from a2a_progress.carrier import TFRS_KEY
from a2a_progress.consumer import (
    EndReason,
    ProgressAssembler,
    ProgressUpdate,
)
from a2a_progress.envelope import (
    HARD_LIMIT_BYTES,
    Envelope,
    Kind,
    OversizeEnvelopeError,
    Rejected,
    RejectReason,
    Status,
    decode,
    encode,
)
from a2a_progress.otel import conventions as conv
from a2a_progress.otel import turn as turn_module
from a2a_progress.otel.config import NAME_MAX_LENGTH
from a2a_progress.otel.turn import TurnTelemetry
from a2a_progress.sdk.adapter import read_envelope
from faults.assembly import assemble_checked, snapshot
from faults.telemetry import CREDENTIALS, MARKER, Pipeline, leaks, no_complaints, telemetry_problems
from support.events import status_event as status_update

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# -- strategies ---------------------------------------------------------------------------------

WRITTEN = [credential.written for credential in CREDENTIALS]

# Inputs that once cost a regular expression quadratic (or worse) time, or break encoders.
PATHOLOGICAL = [
    "password-" * 7000,
    "a." * 30000,
    "eyJ-" * 15000,
    "token_" * 10000,
    "x://" + "a:" * 30000,
    "\u2028\u2029\x85" * 100,
    "\x00" * 64,
]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)

# Text as a peer's JSON may carry it: any code point, lone surrogates ("\ud800") included, and
# often, since generic text rarely holds them.
any_code_points = st.text(st.characters(exclude_categories=()), max_size=30) | st.lists(
    st.sampled_from(["\ud800", "\udfff", "\u2028", "\x00", "\u00e9", "\U0001d11e", "a", " "]),
    max_size=8,
).map("".join)


def _embed(before: str, credential: str, after: str) -> str:
    return f"{before} {credential} {after}"


def texts(plain: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Short text, credentials, text quoting one, long repetitions and pathological inputs."""
    return st.one_of(
        plain,
        st.sampled_from(WRITTEN),
        st.builds(_embed, plain, st.sampled_from(WRITTEN), plain),
        st.builds(
            lambda piece, times: piece * times,
            st.text(min_size=1, max_size=40) | st.sampled_from([w + " " for w in WRITTEN]),
            st.integers(1, 3000),
        ),
        st.sampled_from(PATHOLOGICAL),
    )


payload_texts = texts(any_code_points)
fallback_texts = texts(st.text(max_size=30))  # a Part's text is a protobuf string: UTF-8 only
names = st.one_of(
    st.text(max_size=12),
    texts(st.text(max_size=12)),
    st.builds(lambda n: "k" * n, st.integers(200, 70000)),
)
# JSON integers have no bound; OTLP's are int64. Generic big ranges rarely draw the edges.
seqs = (
    st.sampled_from([2**63 - 1, 2**63, -(2**63) - 1, 2**70, -(10**30)])
    | st.integers(-(2**70), 2**70)
    | st.integers(-3, 3)
)


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def wire_json(wire: Any, ascii_only: bool) -> str:
    """The envelope as a producer might write it; escaped when it holds lone surrogates."""
    text = json.dumps(wire, ensure_ascii=ascii_only, allow_nan=True)
    return text if _utf8(text) else json.dumps(wire, allow_nan=True)


@st.composite
def wire_envelopes(draw: st.DrawFn, key: str | None, seq: int) -> dict[str, Any]:
    """A v1 envelope object, valid except where the draw makes it odd."""
    kind = draw(st.sampled_from(list(Kind)))
    status = draw(st.sampled_from(list(Status))) if kind is Kind.TOOL_CALL else Status.RUNNING
    payload: dict[str, Any] = {}
    if kind in (Kind.TOOL_CALL, Kind.TOOL_OUTPUT_APPEND):
        payload["tool"] = draw(names)
        if draw(st.booleans()):
            payload["tool_call_id"] = draw(names)
    if kind in (Kind.THINKING, Kind.TEXT):
        payload["text"] = draw(payload_texts)
    elif kind is Kind.ERROR:
        payload["message"] = draw(payload_texts)
    elif kind is Kind.TOOL_OUTPUT_APPEND:
        payload["chunk"] = draw(payload_texts)
    if status is Status.ABORTED and draw(st.booleans()):
        payload["reason"] = draw(payload_texts)
    payload.update(draw(st.dictionaries(st.text(max_size=6), json_values, max_size=2)))
    wire: dict[str, Any] = {"v": 1, "kind": kind.value, "seq": seq, "status": status.value}
    if key is not None:
        wire["streamKey"] = key
    wire["payload"] = payload
    return wire


def lenient(data: bytes) -> str:
    return data.decode("utf-8", "replace")


hostile_tfrs = st.one_of(
    st.text(),
    st.binary(max_size=200).map(lenient),
    json_values.map(json.dumps),
    st.builds(
        json.dumps,
        st.fixed_dictionaries(
            {},
            optional={
                "v": json_values | st.sampled_from([0, 1, 2, True, 1.0]),
                "kind": json_values | st.sampled_from([k.value for k in Kind]),
                "seq": json_values | seqs,
                "status": json_values | st.sampled_from([s.value for s in Status]),
                "streamKey": json_values,
                "payload": json_values,
            },
        ),
    ),
    st.sampled_from(['{"v":1e999}', '{"v":NaN}', "[" * 100000, '{"a":' * 50000, "\ud800"]),
)


def _deep(depth: int) -> struct_pb2.Struct:
    root = struct_pb2.Struct()
    node = root
    for _ in range(depth):
        node = node.get_or_create_struct("k")
    return root


@st.composite
def metadata_shapes(draw: st.DrawFn) -> Callable[[Part], None]:
    """Something to do to a Part's metadata: odd ``tfrs`` values, huge or many keys, depth."""
    choice = draw(st.integers(0, 5))
    if choice == 0:  # tfrs is not a string
        value = draw(
            st.none()
            | st.booleans()
            | st.floats()
            | st.integers(-(2**70), 2**70)
            | st.lists(json_values, max_size=4)
            | st.dictionaries(st.text(max_size=5), json_values, max_size=4)
        )
        return lambda part: part.metadata.update({TFRS_KEY: value})
    if choice == 1:
        size = draw(st.integers(1000, 200000))
        return lambda part: part.metadata.update({"k" * size: "v", TFRS_KEY + "x" * size: 1})
    if choice == 2:
        count = draw(st.integers(100, 2000))
        return lambda part: part.metadata.update({f"k{i}": i for i in range(count)})
    if choice == 3:
        depth = draw(st.integers(10, 30))  # a Struct level is two of protobuf's 100
        under_tfrs = draw(st.booleans())

        def nest(part: Part) -> None:
            if under_tfrs:
                part.metadata[TFRS_KEY] = _deep(depth)
            else:
                part.metadata["deep"] = _deep(depth)

        return nest
    extra = draw(st.dictionaries(st.text(max_size=10), json_values, max_size=5))
    return lambda part: part.metadata.update(extra)


# -- events -------------------------------------------------------------------------------------

WORKING = TaskState.TASK_STATE_WORKING
ENDING_STATES = [
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
    TaskState.TASK_STATE_INPUT_REQUIRED,
    TaskState.TASK_STATE_AUTH_REQUIRED,
]
OTHER_STATES = [
    TaskState.TASK_STATE_UNSPECIFIED,
    TaskState.TASK_STATE_SUBMITTED,
    WORKING,
    99,  # proto3 enums are open: a peer can send a state this SDK has no name for
]


def agent_message(parts: Sequence[Part], message_id: str, task_id: str = "") -> Message:
    return Message(role=Role.ROLE_AGENT, message_id=message_id, task_id=task_id, parts=parts)


def status_event(task_id: str, state: int, message: Message | None = None) -> StreamResponse:
    return StreamResponse(status_update=status_update(state, message, task_id=task_id))


@st.composite
def working_parts(draw: st.DrawFn, key: str | None, seq: int) -> list[Part]:
    """The Parts of one working update: an envelope, a hostile one, or text only."""
    fallback = draw(fallback_texts)
    choice = draw(st.integers(0, 9))
    part = Part(text=fallback)
    if choice <= 5:
        part.metadata[TFRS_KEY] = wire_json(draw(wire_envelopes(key, seq)), draw(st.booleans()))
    elif choice <= 7:
        value = draw(hostile_tfrs)
        part.metadata[TFRS_KEY] = value if _utf8(value) else json.dumps(value)
    elif choice == 8:
        draw(metadata_shapes())(part)
    parts = [part]
    if draw(st.integers(0, 9)) == 0:  # a second envelope-bearing Part (rule 1: ignored)
        parts.append(
            Part(text="extra", metadata={TFRS_KEY: wire_json(draw(wire_envelopes(key, seq)), True)})
        )
    return parts


@st.composite
def turns(draw: st.DrawFn) -> list[StreamResponse]:
    """One turn's events as a hostile or broken transport delivers them: envelopes of a few
    streams with seqs from any start, hostile updates between them, then drops, duplicates and
    reordering, maybe a second task id, and maybe an end with more events after it."""
    task_ids = draw(st.lists(names, min_size=1, max_size=2, unique=True))
    keys = draw(st.lists(st.none() | names, min_size=1, max_size=4))
    seq = draw(seqs)
    events: list[StreamResponse] = []
    message_ids = st.sampled_from(["m1", "m2", ""]) | st.uuids().map(str)
    for _ in range(draw(st.integers(0, 20))):
        task_id = draw(st.sampled_from(task_ids))
        choice = draw(st.integers(0, 19))
        if choice <= 14:
            parts = draw(working_parts(draw(st.sampled_from(keys)), seq))
            events.append(status_event(task_id, WORKING, agent_message(parts, draw(message_ids))))
        elif choice == 15:
            events.append(status_event(task_id, draw(st.sampled_from(OTHER_STATES))))
        elif choice == 16:
            history = [
                agent_message(draw(working_parts(key, seq + i)), draw(message_ids))
                for i, key in enumerate(draw(st.lists(st.sampled_from(keys), max_size=3)))
            ]
            status = TaskStatus(state=draw(st.sampled_from(OTHER_STATES + ENDING_STATES)))  # type: ignore[arg-type]
            events.append(
                StreamResponse(
                    task=Task(id=task_id, context_id="ctx", status=status, history=history)
                )
            )
        elif choice == 17:
            artifact = Artifact(artifact_id=draw(names), parts=[Part(text=draw(fallback_texts))])
            update = TaskArtifactUpdateEvent(
                task_id=task_id, artifact=artifact, append=draw(st.booleans())
            )
            events.append(StreamResponse(artifact_update=update))
        elif choice == 18:
            events.append(StreamResponse())  # no payload at all
        else:
            text = Part(text=draw(fallback_texts))
            message = agent_message(
                [text], draw(message_ids), task_id=draw(st.sampled_from([*task_ids, ""]))
            )
            events.append(StreamResponse(message=message))
        seq += draw(st.integers(1, 3))
    kept = [event for event in events if draw(st.integers(0, 5)) != 0]  # drops
    for _ in range(draw(st.integers(0, 4))):  # duplicates
        if kept:
            kept.insert(draw(st.integers(0, len(kept))), draw(st.sampled_from(kept)))
    kept = draw(st.permutations(kept)) if draw(st.booleans()) else kept
    ending = draw(st.none() | st.sampled_from([*ENDING_STATES, 99]))
    if ending is not None:
        kept.append(status_event(task_ids[0], ending, agent_message([Part(text="bye")], "end")))
        kept += draw(st.lists(st.sampled_from(events), max_size=3)) if events else []
    return kept


# -- (a) the codec ------------------------------------------------------------------------------


def assert_round_trips(found: Envelope | Rejected) -> None:
    """A decoded envelope encodes back to one that decodes equal."""
    if isinstance(found, Rejected):
        assert isinstance(found.reason, RejectReason)
        return
    try:
        again = decode(encode(found))
    except OversizeEnvelopeError:  # compact re-encoding of a near-limit float can grow
        return
    assert isinstance(again, Envelope)
    assert again.to_wire() == found.to_wire()


@SETTINGS
@given(value=json_values)
def test_decode_takes_any_json_value(value: Any) -> None:
    assert_round_trips(decode(json.dumps(value)))


@SETTINGS
@given(tfrs=hostile_tfrs)
def test_decode_takes_hostile_envelope_strings(tfrs: str) -> None:
    assert_round_trips(decode(tfrs))


@SETTINGS
@given(data=st.binary(max_size=2000))
def test_decode_takes_any_bytes_decoded_leniently(data: bytes) -> None:
    for text in (lenient(data), data.decode("utf-8", "surrogateescape"), data.decode("latin-1")):
        assert_round_trips(decode(text))
    assert decode(data) == Rejected(RejectReason.NOT_A_STRING, "envelope is a bytes")


@SETTINGS
@given(
    wire=wire_envelopes(key=None, seq=1) | wire_envelopes(key="k", seq=2**70),
    ascii_only=st.booleans(),
)
def test_decode_reads_what_a_producer_writes(wire: dict[str, Any], ascii_only: bool) -> None:
    text = wire_json(wire, ascii_only)
    found = decode(text)
    if len(text.encode("utf-8", "surrogatepass")) > HARD_LIMIT_BYTES:
        assert found == Rejected(RejectReason.OVERSIZE, f"envelope over {HARD_LIMIT_BYTES} bytes")
        return
    assert isinstance(found, Envelope)
    assert found.to_wire() == json.loads(text)
    assert_round_trips(found)


@SETTINGS
@given(shape=metadata_shapes(), fallback=fallback_texts)
def test_read_envelope_takes_any_metadata_shape(
    shape: Callable[[Part], None], fallback: str
) -> None:
    part = Part(text=fallback)
    shape(part)
    message = agent_message([part], "m")
    event = status_event("t", WORKING, message)
    sources = [
        part,
        message,
        event.status_update,
        event,
        Task(id="t", status=event.status_update.status),
    ]
    before = [snapshot(source) for source in (part, message, event)]
    results = [read_envelope(source) for source in sources]
    assert [snapshot(source) for source in (part, message, event)] == before
    assert all(result == results[0] for result in results)
    if TFRS_KEY not in part.metadata:
        assert results[0] is None
        return
    # Whatever the value (a string, a number, a Struct, a JSON null), it is the envelope.
    assert results[0] == decode(part.metadata[TFRS_KEY])


# -- (b) the assembler ----------------------------------------------------------------------------


def feed_all(events: Sequence[StreamResponse], feed: Callable[[StreamResponse], object]) -> None:
    """Feed every event; none may be changed by being read."""
    for event in events:
        before = snapshot(event)
        feed(event)
        assert snapshot(event) == before


@SETTINGS
@given(
    events=turns(),
    window=st.sampled_from([1, 4, 1024]),
    max_streams=st.sampled_from([1, 2, 16384]),
    max_turns=st.sampled_from([1, 2, 10000]),
)
def test_assembler_stays_sound_under_hostile_streams(
    events: list[StreamResponse], window: int, max_streams: int, max_turns: int
) -> None:
    assemble_checked(
        events,
        reorder_window=window,
        max_streams=max_streams,
        max_turns=max_turns,
        finished_memory=4,
    )


# -- (c) the OpenTelemetry bridge -----------------------------------------------------------------


PIPELINE = Pipeline()
# The assembler's own bounds take thousands of events to reach; these reach them in a few.
SMALL_BOUNDS = {"reorder_window": 4, "max_streams": 2, "max_turns": 2}


@contextlib.contextmanager
def assembler_bounds(**bounds: int) -> Iterator[None]:
    """Give the assemblers the bridge creates these bounds (the real class, configured)."""
    original = turn_module.ProgressAssembler
    turn_module.ProgressAssembler = functools.partial(original, **bounds)  # type: ignore[misc]
    try:
        yield
    finally:
        turn_module.ProgressAssembler = original  # type: ignore[misc]


def opened_calls(events: Sequence[StreamResponse], bounds: dict[str, int]) -> int:
    """How many tool calls the protocol's consumer sees start in ``events``."""
    assembler = ProgressAssembler(**bounds)
    opened = 0
    for event in events:
        opened += sum(
            1
            for update in assembler.feed(event)
            if isinstance(update, ProgressUpdate) and update.opened
        )
    return opened


@SETTINGS
@given(
    events=turns(),
    content_max=st.sampled_from([16, 100, 4096, 65536]),
    max_events=st.sampled_from([2, 5, 128]),
    ending=st.sampled_from(["end", "error", "shutdown"]),
    error_text=fallback_texts,
    observer=st.sampled_from([conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE]),
    bounds=st.sampled_from([{}, SMALL_BOUNDS]),
)
def test_bridge_keeps_telemetry_bounded_and_clean(
    *,
    events: list[StreamResponse],
    content_max: int,
    max_events: int,
    ending: str,
    error_text: str,
    observer: str,
    bounds: dict[str, int],
) -> None:
    PIPELINE.reset()
    bridge = PIPELINE.bridge(content_max_length=content_max, max_events_per_span=max_events)
    with no_complaints(), assembler_bounds(**bounds):
        turn = bridge.start_turn(
            conv.METHOD_SEND_STREAMING,
            kind=SpanKind.CLIENT if observer == conv.OBSERVER_CALLER else SpanKind.SERVER,
            observer=observer,
            parent=None,
            attributes={},
        )
        try:
            feed_all(events, turn.feed)
            if ending == "end":
                turn.end()
            elif ending == "error":
                turn.end(error=RuntimeError(error_text), reason=EndReason.TURN_FAILED)
            else:  # what end_live_turns() does to each turn at exit, to this one alone
                turn.end(reason=EndReason.SHUTDOWN)
            turn.feed(events[0] if events else StreamResponse())  # a late event changes nothing
        finally:
            turn.end()  # nor does a second end; and a failed example leaves no live turn
    PIPELINE.assert_each_span_ended_once()
    spans = PIPELINE.spans()
    assert telemetry_problems(spans, content_max) == []
    tools = [span for span in spans if span.name.startswith(conv.TOOL_SPAN_PREFIX)]
    assert len(tools) == opened_calls(events, bounds)
    # Every tool span was closed by the assembler's verdict, which it records.
    assert all(conv.END_REASON in (span.attributes or {}) for span in tools)


def test_credentials_are_detected_by_the_checker() -> None:
    """The leak check itself: it finds each test credential, whole or cut."""
    for credential in CREDENTIALS:
        assert leaks(f"x {credential.written} y")
        assert leaks(credential.secret[:12])


# -- pinned: what the generated tests found -----------------------------------------------------


def envelope_update(task_id: str, wire: dict[str, Any], **ids: str) -> StreamResponse:
    """A working update carrying ``wire`` as its envelope; ``ids`` may set ``context_id``."""
    part = Part(text="fallback", metadata={TFRS_KEY: json.dumps(wire)})
    event = status_event(task_id, WORKING, agent_message([part], ""))
    event.status_update.context_id = ids.get("context_id", "ctx")
    return event


def tool_call(seq: int, key: str, status: str = "running", **payload: str) -> dict[str, Any]:
    return {
        "v": 1,
        "kind": "tool_call",
        "seq": seq,
        "streamKey": key,
        "status": status,
        "payload": {"tool": "search", **payload},
    }


def start_caller_turn() -> TurnTelemetry:
    return PIPELINE.bridge().start_turn(
        conv.METHOD_SEND_STREAMING,
        kind=SpanKind.CLIENT,
        observer=conv.OBSERVER_CALLER,
        parent=None,
        attributes={},
    )


def run_turn(events: Sequence[StreamResponse]) -> list[Any]:
    """Feed ``events`` to a fresh caller turn, end it, and return every span it made."""
    PIPELINE.reset()
    with no_complaints():
        turn = start_caller_turn()
        feed_all(events, turn.feed)
        turn.end()
    PIPELINE.assert_each_span_ended_once()
    return PIPELINE.spans()


def test_ids_a_peer_chooses_are_masked() -> None:
    aws, github, bearer, _, password = (credential.written for credential in CREDENTIALS)
    start = tool_call(1, github, tool_call_id=bearer)
    abort = tool_call(2, github, "aborted", reason=password)
    spans = run_turn(
        [envelope_update(aws, start, context_id=password), envelope_update(aws, abort)]
    )
    assert len(spans) == 2
    assert telemetry_problems(spans, 4096) == []


def test_seqs_beyond_int64_are_left_out_of_telemetry() -> None:
    thinking = {"v": 1, "kind": "thinking", "status": "running", "payload": {"text": "hm"}}
    spans = run_turn(
        [
            envelope_update("t", {**thinking, "seq": 2**63}),
            envelope_update("t", {**thinking, "seq": 2**64}),  # a later seq: accepted
            envelope_update("t", tool_call(2**70, "k")),
            envelope_update("t", tool_call(2**70 + 1, "k", "done")),
        ]
    )
    assert telemetry_problems(spans, 4096) == []
    [tool] = [span for span in spans if span.name.startswith(conv.TOOL_SPAN_PREFIX)]
    assert conv.SEQ_FIRST not in tool.attributes
    assert conv.SEQ_LAST not in tool.attributes
    [turn] = [span for span in spans if span.kind is SpanKind.CLIENT]
    assert [conv.SEQ in event.attributes for event in turn.events] == [False, False]


def test_lone_surrogates_reach_telemetry_escaped() -> None:
    text = {"v": 1, "kind": "text", "seq": 1, "status": "running", "payload": {"text": "a\ud800b"}}
    spans = run_turn([envelope_update("t", text)])
    assert telemetry_problems(spans, 4096) == []
    [event] = spans[0].events
    assert event.attributes[conv.CONTENT] == "a\\ud800b"


def test_a_task_state_the_sdk_cannot_name_still_ends_the_turn_cleanly() -> None:
    spans = run_turn([status_event("t", 99)])
    assert spans[0].attributes[conv.A2A_TASK_STATE] == "99"


def test_streams_past_the_assemblers_bound_end_their_spans_when_forgotten() -> None:
    bound = SMALL_BOUNDS["max_streams"]
    events = [envelope_update("t", tool_call(seq, f"stream-{seq}")) for seq in range(bound + 1)]
    PIPELINE.reset()
    with no_complaints(), assembler_bounds(**SMALL_BOUNDS):
        turn = start_caller_turn()
        feed_all(events, turn.feed)
        # The first stream was pushed out: its span ended then, not with the turn.
        [forgotten] = PIPELINE.spans()
        assert forgotten.attributes[conv.STREAM_KEY] == "stream-0"
        assert forgotten.attributes[conv.END_REASON] == EndReason.STREAM_CLOSED.value
        turn.end()
    PIPELINE.assert_each_span_ended_once()
    assert len(PIPELINE.spans()) == bound + 2


def test_turns_past_the_assemblers_bound_end_their_spans_when_pushed_out() -> None:
    bound = SMALL_BOUNDS["max_turns"]
    events = [envelope_update(f"task-{n}", tool_call(1, "k")) for n in range(bound + 1)]
    PIPELINE.reset()
    with no_complaints(), assembler_bounds(**SMALL_BOUNDS):
        turn = start_caller_turn()
        feed_all(events, turn.feed)
        [pushed_out] = PIPELINE.spans()
        assert pushed_out.attributes[conv.END_REASON] == EndReason.STREAM_CLOSED.value
        turn.end()
    PIPELINE.assert_each_span_ended_once()
    assert len(PIPELINE.spans()) == bound + 2


def test_long_names_are_masked_and_bounded() -> None:
    aws, github, _, pem, _ = (credential.written for credential in CREDENTIALS)
    # Only a head of a long name is redacted, and an AWS key lies across its end. The masks
    # before it shrink the head, which would pull the cut key under the bound, were the bytes
    # before the cut kept.
    head = " ".join([github, *[pem] * 12]) + " "
    window = NAME_MAX_LENGTH + 1024 - len(MARKER)
    key = head.ljust(window - len(aws) + 3) + aws + " " + "k" * 60000  # 13 of 16 secret chars
    spans = run_turn(
        [envelope_update("t", tool_call(1, key)), envelope_update("t", tool_call(2, key, "done"))]
    )
    assert telemetry_problems(spans, 4096) == []
    [tool] = [span for span in spans if span.name.startswith(conv.TOOL_SPAN_PREFIX)]
    assert len(tool.attributes[conv.STREAM_KEY].encode()) <= NAME_MAX_LENGTH
