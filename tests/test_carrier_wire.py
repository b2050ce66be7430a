"""What a Part carries: the line separators a2a-sdk's SSE client would split an event at never
reach the wire raw, in the text fallback (as newlines) or in the envelope (as JSON escapes)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_progress.carrier import wire_envelope, wire_text
from a2a_progress.envelope import HARD_LIMIT_BYTES, OversizeEnvelopeError

BREAKS = "\x85\u2028\u2029"
# Text of every sort, the separators and their neighbours (U+0084, U+2027, U+202A) common in it.
TEXTS = st.text(
    alphabet=st.one_of(st.characters(), st.sampled_from([*BREAKS, "\x84", "\u2027", "\u202a"]))
)


@settings(max_examples=500, deadline=None)
@given(TEXTS)
def test_the_fallback_carries_each_separator_as_a_newline(text: str) -> None:
    wired = wire_text(text)
    assert wired == "".join("\n" if char in BREAKS else char for char in text)
    assert wired is text or any(char in text for char in BREAKS)  # unchanged text is not copied


@settings(max_examples=500, deadline=None)
@given(TEXTS)
def test_the_envelope_carries_each_separator_as_its_json_escape(text: str) -> None:
    encoded = json.dumps({"text": text}, ensure_ascii=False)
    wired = wire_envelope(encoded)
    assert not any(char in wired for char in BREAKS)
    assert json.loads(wired) == {"text": text}
    escapes = {char: f"\\u{ord(char):04x}" for char in BREAKS}
    assert wired == "".join(escapes.get(char, char) for char in encoded)


def test_escaping_may_take_an_envelope_over_the_hard_limit() -> None:
    encoded = json.dumps({"text": "\u2028" * (HARD_LIMIT_BYTES // 4)}, ensure_ascii=False)
    with pytest.raises(OversizeEnvelopeError):
        wire_envelope(encoded)
