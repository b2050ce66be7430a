"""Realistic progress traffic: an envelope mix, and event streams with duplicates and reordering.

Sizes follow what an LLM agent's callee emits: short tool-call start/done blocks, thinking
segments of a few hundred to ~1,500 characters, progress text of one or two sentences, rare
errors, and some streamed tool output (reserved in v1, decision E3, but consumers must take it).
About one text in eight is Chinese (the design's home language), so the UTF-8 paths are used.
Everything is seeded: every run sees the same traffic.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass

from a2a.types.a2a_pb2 import (
    Message,
    Part,
    Role,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

from a2a_progress.carrier import TFRS_KEY
from a2a_progress.envelope import Envelope, Kind, Status, encode

_WORDS = [
    "the",
    "build",
    "step",
    "checks",
    "repository",
    "config",
    "deploy",
    "status",
    "pipeline",
    "cache",
    "tests",
    "failed",
    "passed",
    "reading",
    "file",
    "module",
    "function",
    "returns",
    "value",
    "because",
    "user",
    "wants",
    "latest",
    "report",
    "summary",
    "compare",
    "previous",
    "results",
    "query",
    "database",
    "rows",
    "index",
    "schema",
    "migration",
    "version",
    "service",
    "latency",
    "error",
    "retry",
    "timeout",
    "request",
    "response",
    "token",
    "budget",
    "plan",
    "next",
    "verify",
    "output",
]
_CJK = "用户想要查看部署状态先检查持续集成结果然后汇总报告并给出下一步建议文件已读取测试通过"
_TOOLS = ("search_code", "read_file", "run_tests", "ci_status", "query_db", "ask_colleague")

# Per body envelope of a tool-call stream (between its start and its done): kind and weight.
_BODY_KINDS = ((Kind.THINKING, 30), (Kind.TEXT, 45), (Kind.TOOL_OUTPUT_APPEND, 20), (Kind.ERROR, 5))


def prose(rng: random.Random, low: int, high: int) -> str:
    """Text of ``low``..``high`` characters: English words, or Chinese one time in eight."""
    size = rng.randint(low, high)
    if rng.random() < 0.125:
        return "".join(rng.choice(_CJK) for _ in range(max(1, size // 3)))
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(_WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[:size]


def output_chunk(rng: random.Random) -> str:
    """Some lines of tool output, 200..4,000 characters."""
    lines = [f"{i:04d} {prose(rng, 30, 110)}" for i in range(rng.randint(3, 35))]
    return "\n".join(lines) + "\n"


def call_id(rng: random.Random) -> str:
    return "call_" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(24))


def body_payload(rng: random.Random, kind: Kind, tool: str, tool_call_id: str) -> dict[str, str]:
    """A payload of a realistic size for ``kind``."""
    if kind is Kind.THINKING:
        return {"text": prose(rng, 150, 1500)}
    if kind is Kind.TEXT:
        return {"text": prose(rng, 30, 300)}
    if kind is Kind.ERROR:
        return {"message": prose(rng, 40, 200)}
    if kind is Kind.TOOL_OUTPUT_APPEND:
        return {"tool": tool, "chunk": output_chunk(rng), "tool_call_id": tool_call_id}
    return {"tool": tool, "tool_call_id": tool_call_id}


def _body_kind(rng: random.Random) -> Kind:
    kinds, weights = zip(*_BODY_KINDS, strict=True)
    return rng.choices(kinds, weights)[0]


def envelope_mix(count: int, seed: int = 7) -> list[Envelope]:
    """``count`` envelopes as a callee emits them: ~40% tool-call start/done, the rest bodies."""
    rng = random.Random(seed)
    envelopes: list[Envelope] = []
    seq = rng.randint(1, 1000)
    while len(envelopes) < count:
        tool, ident = rng.choice(_TOOLS), call_id(rng)
        start = {"tool": tool, "tool_call_id": ident}
        envelopes.append(Envelope(Kind.TOOL_CALL, seq, start, Status.RUNNING, ident))
        for _ in range(rng.choice((1, 2, 2, 3, 4))):
            seq += 1
            kind = _body_kind(rng)
            key = ident if kind is Kind.TOOL_OUTPUT_APPEND else None
            envelopes.append(
                Envelope(kind, seq, body_payload(rng, kind, tool, ident), stream_key=key)
            )
        seq += 1
        envelopes.append(Envelope(Kind.TOOL_CALL, seq, start, Status.DONE, ident))
        seq += 1
    return envelopes[:count]


# -- consumer traffic -------------------------------------------------------------------------


@dataclass
class _Stream:
    """One tool-call stream (one ``streamKey``) of a turn, and what it has left to send."""

    task_id: str
    turn: int
    key_json: str
    tool: str
    start: tuple[str, str]  # (envelope JSON before the seq, after it) of the tool_call start
    done: tuple[str, str]
    remaining: int
    sent: int = 0


class _EventFactory:
    """Builds working-update events fast: a copied template with four fields set.

    Each Part carries the envelope and, as its text fallback, the block's content (or "Calling
    tool X" / "Tool X finished"), as :class:`ProgressEmitter` writes them.

    Envelope strings are formatted from pre-encoded pieces; :func:`self_check` proves they are
    byte-identical to :func:`encode`.
    """

    def __init__(self, rng: random.Random, pool_size: int = 256) -> None:
        self._rng = rng
        self._template = TaskStatusUpdateEvent(
            context_id="ctx-bench",
            status=TaskStatus(
                state=TaskState.TASK_STATE_WORKING,
                message=Message(
                    role=Role.ROLE_AGENT, parts=[Part(text="", metadata={TFRS_KEY: ""})]
                ),
            ),
        )
        # Body envelopes: (JSON up to the streamKey value, between it and seq, after seq, text).
        self._bodies: list[tuple[str, str, str]] = []
        for _ in range(pool_size):
            kind = _body_kind(rng)
            payload = body_payload(rng, kind, rng.choice(_TOOLS), "")
            payload.pop("tool_call_id", None)
            body = _compact(payload)
            if kind is Kind.TOOL_OUTPUT_APPEND:  # the call's id goes last, filled per stream
                body = body[:-1] + ',"tool_call_id":' + "{key}}"
            # The text fallback is the block's whole content, as ProgressEmitter sends it.
            text = (
                payload["chunk"]
                if kind is Kind.TOOL_OUTPUT_APPEND
                else next(iter(payload.values()))
            )
            self._bodies.append(
                (
                    f'{{"v":1,"kind":"{kind.value}","streamKey":',
                    ',"seq":',
                    f',"status":"running","payload":{body}}}',
                    text,
                )
            )
        self.next_message = 0

    def stream(self, turn: int, key: str, tool: str, count: int) -> _Stream:
        key_json = json.dumps(key)
        payload = _compact({"tool": tool, "tool_call_id": key})
        head = f'{{"v":1,"kind":"tool_call","streamKey":{key_json},"seq":'
        return _Stream(
            task_id=f"task-{turn}",
            turn=turn,
            key_json=key_json,
            tool=tool,
            start=(head, f',"status":"running","payload":{payload}}}'),
            done=(head, f',"status":"done","payload":{payload}}}'),
            remaining=count,
        )

    def _event(self, task_id: str, text: str, envelope_json: str) -> TaskStatusUpdateEvent:
        event = TaskStatusUpdateEvent()
        event.CopyFrom(self._template)
        event.task_id = task_id
        message = event.status.message
        self.next_message += 1
        message.message_id = f"msg-{self.next_message}"
        part = message.parts[0]
        part.text = text
        part.metadata.fields[TFRS_KEY].string_value = envelope_json
        return event

    def envelope_event(self, stream: _Stream, seq: int) -> TaskStatusUpdateEvent:
        if stream.sent == 0 or stream.remaining == 1:
            if stream.sent == 0:
                (head, tail), text = stream.start, f"Calling tool {stream.tool}"
            else:
                (head, tail), text = stream.done, f"Tool {stream.tool} finished"
            return self._event(stream.task_id, text, f"{head}{seq}{tail}")
        head, middle, tail, text = self._rng.choice(self._bodies)
        tail = tail.replace("{key}", stream.key_json)
        return self._event(stream.task_id, text, f"{head}{stream.key_json}{middle}{seq}{tail}")

    def terminal_event(self, turn: int) -> TaskStatusUpdateEvent:
        return TaskStatusUpdateEvent(
            task_id=f"task-{turn}",
            context_id="ctx-bench",
            status=TaskStatus(state=TaskState.TASK_STATE_COMPLETED),
        )


def _compact(payload: dict[str, str]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def consumer_events(
    envelopes: int,
    streams: int,
    *,
    streams_per_turn: int = 10,
    duplicate_rate: float = 0.05,
    reorder_rate: float = 0.05,
    seed: int = 11,
) -> Iterator[TaskStatusUpdateEvent]:
    """``envelopes`` working updates over ``streams`` tool-call streams, then every turn's end.

    A stream is one tool call's ``streamKey``: its ``tool_call`` start, body envelopes (thinking,
    text, output, errors) on the same key, then its ``done``. Streams are grouped
    ``streams_per_turn`` to a turn (task), every turn is live at once, and the streams are
    interleaved at random; ``seq`` counts per turn. Of the events, ``duplicate_rate`` repeat a
    recent one and ``reorder_rate`` are held back 1-8 events (arrive late). After the last
    envelope every turn gets COMPLETED, so every stream and turn ends closed. Memory is
    O(streams), whatever the envelope count.
    """
    rng = random.Random(seed)
    factory = _EventFactory(rng)
    distinct = round(envelopes * (1 - duplicate_rate))
    per_stream, extra = divmod(distinct, streams)
    if per_stream < 2:
        raise ValueError("each stream needs at least its start and its done")
    live = [
        factory.stream(
            i // streams_per_turn, call_id(rng), rng.choice(_TOOLS), per_stream + (i < extra)
        )
        for i in range(streams)
    ]
    turns = (streams + streams_per_turn - 1) // streams_per_turn
    seqs = [rng.randint(1, 1000) for _ in range(turns)]
    recent: list[TaskStatusUpdateEvent] = []
    held: list[tuple[int, TaskStatusUpdateEvent]] = []
    fresh, repeats = distinct, envelopes - distinct
    emitted = 0
    while fresh or repeats or held:
        if held and (held[0][0] <= emitted or not (fresh or repeats)):
            yield held.pop(0)[1]
            emitted += 1
            continue
        # Exactly `repeats` duplicates, spread evenly at random among the fresh envelopes.
        if repeats and recent and rng.random() * (fresh + repeats) < repeats:
            repeats -= 1
            yield rng.choice(recent)
            emitted += 1
            continue
        fresh -= 1
        index = rng.randrange(len(live))
        stream = live[index]
        seqs[stream.turn] += 1
        event = factory.envelope_event(stream, seqs[stream.turn])
        stream.sent += 1
        stream.remaining -= 1
        if stream.remaining == 0:
            live[index] = live[-1]
            live.pop()
        recent.append(event)
        if len(recent) > 64:
            recent.pop(0)
        if rng.random() < reorder_rate:
            held.append((emitted + rng.randint(1, 8), event))
            held.sort(key=lambda item: item[0])
            continue
        yield event
        emitted += 1
    for turn in range(turns):
        yield factory.terminal_event(turn)


def self_check() -> None:
    """The formatted envelope strings are exactly what :func:`encode` writes."""
    from a2a_progress.sdk.adapter import read_envelope

    for event in consumer_events(2000, 20, seed=3):
        found = read_envelope(event)
        if found is None:
            continue
        if not isinstance(found, Envelope):
            raise AssertionError(f"bench traffic has a rejected envelope: {found}")
        raw = event.status.message.parts[0].metadata[TFRS_KEY]
        if encode(found) != raw:
            raise AssertionError(f"bench envelope differs from encode():\n{raw}\n{encode(found)}")
