"""StreamRedactor: a secret split across the pieces of a stream is masked in every piece, each
piece comes out as the piece (nothing held back), and the state it keeps is bounded."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_progress.redaction import DEFAULT_REDACTOR, MASK
from a2a_progress.redaction.stream import CARRY_CHARS, StreamRedactor
from support.redaction_corpus import FALSE_POSITIVES
from support.redaction_score import leaks
from support.redaction_streams import SPLIT_SECRETS


@pytest.mark.parametrize("name", list(SPLIT_SECRETS))
def test_a_split_secret_is_masked_in_every_piece(name: str) -> None:
    pieces, secrets, kept = SPLIT_SECRETS[name]
    stream = StreamRedactor(DEFAULT_REDACTOR)
    out = [stream.redact(piece) for piece in pieces]
    assert len(out) == len(pieces)
    for piece in out:
        for secret in secrets:
            assert not leaks(piece, secret), (piece, secret)
    assert MASK in "".join(out)
    for text in kept:
        assert text in "".join(out)


@pytest.mark.parametrize("name", ["label-then-value", "yaml-block-scalar"])
def test_alone_a_piece_would_leak(name: str) -> None:
    # What the stream is for: a piece whose secret nothing in the piece itself points at.
    pieces, secrets, _ = SPLIT_SECRETS[name]
    assert any(leaks(DEFAULT_REDACTOR.redact(p), s) for p in pieces for s in secrets)


def test_the_pieces_of_a_clean_stream_come_through_unchanged() -> None:
    stream = StreamRedactor(DEFAULT_REDACTOR)
    pieces = [text + "\n" for text in FALSE_POSITIVES]
    assert [stream.redact(piece) for piece in pieces] == pieces


def test_streams_do_not_share_state() -> None:
    first, second = StreamRedactor(DEFAULT_REDACTOR), StreamRedactor(DEFAULT_REDACTOR)
    assert first.redact("the db password:") == "the db password:"
    # The other stream's next piece is not the value of this label.
    assert second.redact(" Hunter2!Spring-77") == " Hunter2!Spring-77"
    assert first.redact(" Hunter2!Spring-77") == f" {MASK}"


def test_an_open_private_key_masks_every_piece_until_its_end() -> None:
    stream = StreamRedactor(DEFAULT_REDACTOR)
    stream.redact("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    body = ["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"] * 50
    assert {stream.redact(line) for line in body} == {MASK}
    assert stream.redact("-----END OPENSSH PRIVATE KEY-----\nok\n") == f"{MASK}\nok\n"
    assert stream.redact("next line\n") == "next line\n"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=300), max_size=30))
def test_the_carry_is_bounded(pieces: list[str]) -> None:
    stream = StreamRedactor(DEFAULT_REDACTOR)
    for piece in pieces:
        stream.redact(piece)
        assert stream.held <= CARRY_CHARS
