"""The redactor's output, recorded: making it faster must not change a byte of it.

``support/redaction_recorded_passes.json`` holds a seeded sample (312 texts, 60 streams of 241
pieces) and what the redactor made of each, recorded from main at 7f1efd5, before the passes
were made faster: corpus texts as written and upper- or lower-cased, their lines mixed and
spliced, the redaction tests' literals, the bench's prose, and streams of those cut at random
points. Each entry is ``[text, output or null when unchanged, count]``. A deliberate change of
behaviour re-records it and says why; a speed change never does. (The larger differential
check, ~18,000 texts and ~5,600 streams against the old code run side by side, is not kept:
it needs two checkouts.)

Beside it, what a stream must do whatever its pieces: a secret a piece masks alone is never
shown by the stream, and a corpus text cut at its line ends is masked as the whole text is.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from a2a_progress.redaction import DEFAULT_REDACTOR
from a2a_progress.redaction.stream import StreamRedactor
from support.redaction_corpus import CORPUS_HELDOUT, CORPUS_TUNING
from support.redaction_score import leaks

_RECORDED = json.loads(
    (Path(__file__).parent.parent / "support" / "redaction_recorded_passes.json").read_text("utf-8")
)
_CASES = [
    case
    for case in CORPUS_TUNING + CORPUS_HELDOUT
    if not leaks(DEFAULT_REDACTOR.redact(case.text), case.secret)
]


def _expected(text: str, out: str | None, count: int) -> tuple[str, int]:
    return (text if out is None else out), count


def test_texts_are_redacted_as_recorded() -> None:
    wrong = [
        text
        for text, out, count in _RECORDED["texts"]
        if DEFAULT_REDACTOR.redact_counted(text) != _expected(text, out, count)
    ]
    assert not wrong, wrong[:3]


@pytest.mark.parametrize("index", range(len(_RECORDED["streams"])))
def test_streams_are_redacted_as_recorded(index: int) -> None:
    pieces = _RECORDED["streams"][index]
    stream = StreamRedactor(DEFAULT_REDACTOR)
    got = [stream.redact_counted(text) for text, _, _ in pieces]
    assert got == [_expected(*piece) for piece in pieces]


def test_a_text_cut_at_its_line_ends_is_masked_as_the_whole() -> None:
    for case in _CASES:
        lines = case.text.splitlines(keepends=True)
        stream = StreamRedactor(DEFAULT_REDACTOR)
        out = "".join(stream.redact(line) for line in lines)
        assert not leaks(out, case.secret), case.id


@pytest.mark.parametrize("seed", range(4))
def test_a_stream_never_shows_a_secret_its_piece_masks_alone(seed: int) -> None:
    # Corpus texts one after another, each cut at a random blank outside its secret: where
    # the piece holding the secret masks it alone, the stream masks it too, whatever came
    # before (the join may mask more, never less).
    rng = random.Random(seed)
    cases = rng.sample(_CASES, len(_CASES))
    stream = StreamRedactor(DEFAULT_REDACTOR)
    for case in cases:
        text = case.text + "\n"
        at = text.find(case.secret)
        blanks = [
            i
            for i in range(1, len(text))
            if text[i].isspace() and not at < i < at + len(case.secret)
        ]
        cut = rng.choice(blanks)
        for piece in (text[:cut], text[cut:]):
            out = stream.redact(piece)
            if case.secret in piece and not leaks(DEFAULT_REDACTOR.redact(piece), case.secret):
                assert not leaks(out, case.secret), (case.id, piece)
