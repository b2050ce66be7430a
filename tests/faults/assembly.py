"""The consumer's invariants under any event stream, shared by the hostile-input tests and the
fuzz target (``fuzz/fuzz_decode.py``).

:func:`assemble_checked` feeds events to a real :class:`ProgressAssembler` and fails on the first
broken promise: an event changed by being read, memory past the configured bounds, a
``(stream, seq)`` consumed twice in one turn, or a tool call that never ends or is reported closed
more than once.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from a2a.types.a2a_pb2 import StreamResponse
from google.protobuf.message import Message

from a2a_progress.consumer import CallRecord, ProgressAssembler, ProgressUpdate, TurnOutcome
from support.internals import turn_states


def snapshot(message: Message) -> bytes:
    """A protobuf message's bytes, to tell whether reading it changed it."""
    return message.SerializeToString(deterministic=True)


@dataclass
class Ledger:
    """Every call the assembler reported and how often each was reported closed; how often each
    (turn, stream, seq) was accepted, and which streams each turn had."""

    calls: dict[int, CallRecord] = field(default_factory=dict)
    closed: Counter[int] = field(default_factory=Counter)
    accepted: Counter[tuple[int, str, str, int]] = field(default_factory=Counter)
    streams: defaultdict[tuple[int, str], set[str]] = field(
        default_factory=lambda: defaultdict(set)
    )
    turns_ended: Counter[str] = field(default_factory=Counter)

    def record(self, update: ProgressUpdate | TurnOutcome) -> None:
        for call in update.closed:
            self.calls[id(call)] = call
            self.closed[id(call)] += 1
        if isinstance(update, TurnOutcome):
            # The next event of this task starts a new turn: a new seq domain (rule 4).
            self.turns_ended[update.task_id] += 1
            return
        if update.call is not None:
            self.calls[id(update.call)] = update.call
        if not update.degraded:
            turn = (self.turns_ended[update.task_id], update.task_id)
            envelope = update.envelope
            self.streams[turn].add(envelope.stream_id)
            self.accepted[*turn, envelope.stream_id, envelope.seq] += 1

    def accepted_twice(self, max_streams: int) -> list[tuple[int, str, str, int]]:
        """(turn, stream, seq) accepted more than once, in turns that kept all their streams
        (a stream pushed out by ``max_streams`` is forgotten, its seqs with it)."""
        return [
            key
            for key, count in self.accepted.items()
            if count > 1 and len(self.streams[key[0], key[1]]) <= max_streams
        ]

    def misclosed(self) -> list[CallRecord]:
        """Calls still open, or not reported closed exactly once."""
        return [call for key, call in self.calls.items() if call.is_open or self.closed[key] != 1]


def assemble_checked(
    events: Iterable[StreamResponse],
    *,
    reorder_window: int = 1024,
    max_streams: int = 16384,
    max_turns: int = 10000,
    finished_memory: int = 4096,
) -> Ledger:
    """Feed ``events`` to an assembler with these bounds, then close it; assert every invariant."""
    assembler = ProgressAssembler(
        reorder_window=reorder_window,
        max_streams=max_streams,
        max_turns=max_turns,
        finished_memory=finished_memory,
    )
    ledger = Ledger()
    for event in events:
        before = snapshot(event)
        for update in assembler.feed(event):
            ledger.record(update)
        assert snapshot(event) == before, "reading an event changed it"
        assert assembler.live_turns <= max_turns
        for turn in turn_states(assembler):
            assert len(turn.streams) <= max_streams
            assert len(turn.calls) <= max_streams
    for outcome in assembler.close():
        ledger.record(outcome)
    assert assembler.live_turns == 0
    # Rule 3: each (stream, seq) is consumed once per turn, however often it arrives.
    assert ledger.accepted_twice(max_streams) == []
    # Every call that was reported ends, and is reported closed exactly once.
    assert ledger.misclosed() == []
    return ledger
