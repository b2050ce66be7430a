"""Coverage-guided fuzzing of the envelope reader and the consumer, with atheris (libFuzzer).

    python fuzz/fuzz_decode.py -max_total_time=60 fuzz/corpus

Each input is read three ways, and any broken invariant raises (libFuzzer then saves the input
as ``crash-<sha1>``):

* the whole input as the ``tfrs`` string (decoded leniently, and with lone surrogates): ``decode``
  never raises, and what it accepts encodes back to an envelope that decodes equal;
* that string in a Part, a status update and a ``StreamResponse``: ``read_envelope`` gives what
  ``decode`` gives, and changes none of them;
* the input's lines as one turn's events (see :func:`events_of`) through ``ProgressAssembler``,
  with small and default memory bounds: the invariants of ``tests/faults/assembly.py``.

An empty corpus directory given on the command line is first filled from ``fuzz/seeds``, and
``fuzz/envelope.dict`` (the envelope's JSON tokens) is the dictionary unless ``-dict=`` is given.
:func:`check` needs no atheris: ``tests/test_fuzz_regressions.py`` replays crashes through it.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SEEDS = HERE / "seeds"
DICTIONARY = HERE / "envelope.dict"
# The consumer invariants live with the hostile-input tests, which check them too.
sys.path.insert(0, str(HERE.parent / "tests"))

instrumented: Any = contextlib.nullcontext()
if __name__ == "__main__":
    import atheris  # only the fuzzer needs it: check() runs anywhere

    # Coverage feedback from this project's code only: instrumenting every loaded module
    # (atheris.instrument_all) takes minutes and mostly measures a2a-sdk and protobuf.
    instrumented = atheris.instrument_imports(include=["a2a_progress"])

with instrumented:
    from a2a.types.a2a_pb2 import (
        Message,
        Part,
        Role,
        StreamResponse,
        Task,
        TaskState,
        TaskStatus,
        TaskStatusUpdateEvent,
    )

    from a2a_progress.carrier import TFRS_KEY
    from a2a_progress.envelope import Envelope, OversizeEnvelopeError, Rejected, decode, encode
    from a2a_progress.sdk.adapter import read_envelope
    from faults.assembly import assemble_checked, snapshot

MAX_EVENTS = 64
SMALL_BOUNDS = {"reorder_window": 4, "max_streams": 2, "max_turns": 2, "finished_memory": 2}
# A line's first byte picks the event: its low 3 bits the kind, the next 2 the task id, the
# top 3 the message id (a state change takes the top 4 as its state).
TASK_IDS = ("t0", "t1", "t2", "")
MESSAGE_IDS = ("m0", "m1", "m2", "", "m3", "m4", "m5", "m6")


def check_decode(text: str) -> Envelope | Rejected:
    """``decode`` never raises; an accepted envelope round-trips."""
    found = decode(text)
    assert isinstance(found, Envelope | Rejected)
    if isinstance(found, Envelope):
        try:
            again = decode(encode(found))
        except OversizeEnvelopeError:  # compact re-encoding of a near-limit float can grow
            return found
        assert isinstance(again, Envelope), again
        assert again.to_wire() == found.to_wire()
    return found


def working(task_id: str, message_id: str, parts: list[Part]) -> StreamResponse:
    message = Message(role=Role.ROLE_AGENT, message_id=message_id, parts=parts)
    status = TaskStatus(state=TaskState.TASK_STATE_WORKING, message=message)
    update = TaskStatusUpdateEvent(task_id=task_id, context_id="ctx", status=status)
    return StreamResponse(status_update=update)


def check_carrier(text: str) -> None:
    """``read_envelope`` on every shape that holds the Part agrees with ``decode``, read-only."""
    part = Part(text="fallback", metadata={TFRS_KEY: text})
    event = working("t", "m", [part])
    shapes = (part, event.status_update.status.message, event.status_update, event)
    before = [snapshot(shape) for shape in shapes]
    expected = decode(text)
    for shape in shapes:
        assert read_envelope(shape) == expected
    assert [snapshot(shape) for shape in shapes] == before


def events_of(data: bytes) -> Iterator[StreamResponse]:
    """One turn's events, one per input line: its first byte says what, the rest is the text."""
    for line in data.split(b"\n")[:MAX_EVENTS]:
        if not line:
            continue
        control, text = line[0], line[1:].decode("utf-8", "replace")
        kind, task_id = control & 0b111, TASK_IDS[(control >> 3) & 0b11]
        message_id = MESSAGE_IDS[control >> 5]
        if kind <= 3:  # the common case: a working update carrying the text as its envelope
            yield working(task_id, message_id, [Part(text=text, metadata={TFRS_KEY: text})])
        elif kind == 4:  # a plain-text working update
            yield working(task_id, message_id, [Part(text=text)])
        elif kind == 5:  # any state, known or not
            state = TaskStatus(state=control >> 4)  # 9 to 15 have no name
            yield StreamResponse(status_update=TaskStatusUpdateEvent(task_id=task_id, status=state))
        elif kind == 6:  # a snapshot whose history holds the envelope
            part = Part(text=text, metadata={TFRS_KEY: text})
            history = [Message(role=Role.ROLE_AGENT, message_id=message_id, parts=[part])]
            status = TaskStatus(state=TaskState.TASK_STATE_WORKING)
            yield StreamResponse(task=Task(id=task_id, status=status, history=history))
        else:  # the turn's end
            reply = Message(role=Role.ROLE_AGENT, message_id="end", parts=[Part(text=text)])
            status = TaskStatus(state=TaskState.TASK_STATE_COMPLETED, message=reply)
            update = TaskStatusUpdateEvent(task_id=task_id, status=status)
            yield StreamResponse(status_update=update)


def check(data: bytes) -> None:
    """Every invariant on one input; raises AssertionError (or any bug's exception) if broken."""
    text = data.decode("utf-8", "replace")
    check_decode(text)
    check_decode(data.decode("utf-8", "surrogateescape"))  # lone surrogates, as JSON can hold
    check_carrier(text)
    events = list(events_of(data))
    assemble_checked(events, **SMALL_BOUNDS)
    assemble_checked(events)


def seed_corpus(argv: list[str]) -> None:
    """Fill each corpus directory named on the command line from ``fuzz/seeds`` if it is empty."""
    for arg in argv[1:]:
        if arg.startswith("-"):
            continue
        corpus = Path(arg)
        if corpus.is_file() or (corpus.is_dir() and any(corpus.iterdir())):
            continue  # an input to run, or a corpus already grown
        corpus.mkdir(parents=True, exist_ok=True)
        for seed in SEEDS.iterdir():
            shutil.copy(seed, corpus / seed.name)


def main() -> None:
    argv = list(sys.argv)
    seed_corpus(argv)
    if not any(arg.startswith("-dict=") for arg in argv):
        argv.append(f"-dict={DICTIONARY}")
    atheris.Setup(argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
