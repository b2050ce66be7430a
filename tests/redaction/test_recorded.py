"""The redactor's output on a recorded sample: speed work must not change a byte of it.

``tests/support/redaction_recorded.json`` holds 450 texts and 40 streams of pieces, drawn with
a fixed seed from a larger differential set (the corpora and their pieces, the bench's
progress texts, random mixes and splices of corpus lines, text made of the patterns' pieces,
random characters), each with what the redactor at commit 7f1efd5 returned for it:
``redact_counted`` and ``names_nothing``, and for a stream ``StreamRedactor.redact_counted``
of each piece in turn. Two thirds of the texts hold something masked. Texts whose output then
depended on the process's string hash seed were left out. A deliberate change of what is
masked re-records the file, and says so.
"""

import json
from pathlib import Path

import pytest

from a2a_progress.redaction import DEFAULT_REDACTOR
from a2a_progress.redaction.stream import StreamRedactor

_RECORDED = json.loads(
    (Path(__file__).parent.parent / "support" / "redaction_recorded.json").read_text("utf-8")
)


@pytest.mark.parametrize("index", range(len(_RECORDED["texts"])))
def test_a_recorded_text_is_redacted_as_recorded(index: int) -> None:
    text, masked, count, names_nothing = _RECORDED["texts"][index]
    assert DEFAULT_REDACTOR.redact_counted(text) == (masked, count)
    assert DEFAULT_REDACTOR.names_nothing(text) == names_nothing


def test_recorded_streams_are_redacted_as_recorded() -> None:
    for pieces, outputs in _RECORDED["streams"]:
        stream = StreamRedactor(DEFAULT_REDACTOR)
        assert [list(stream.redact_counted(piece)) for piece in pieces] == outputs, pieces


def test_the_sample_holds_masked_and_clean_texts() -> None:
    masked = sum(1 for text, out, _, _ in _RECORDED["texts"] if out != text)
    assert masked >= 250
    assert len(_RECORDED["texts"]) - masked >= 100
