"""read_part() reads a string envelope from the Struct's map directly: every other value (and a
Value with nothing set) must still give what the Struct's own accessor gives."""

from __future__ import annotations

import pytest
from a2a.types.a2a_pb2 import Part
from google.protobuf.struct_pb2 import Value  # type: ignore[import-untyped]

from a2a_progress.carrier import TFRS_KEY, envelope_part, raw_envelope, read_part
from a2a_progress.envelope import Envelope, Kind, decode, encode


def _part_with(value: Value) -> Part:
    part = Part(text="fallback")
    part.metadata.fields[TFRS_KEY].CopyFrom(value)
    return part


VALUES = {
    "string": Value(string_value=encode(Envelope(Kind.TEXT, 1, {"text": "hi"}))),
    "bad-string": Value(string_value="{not json"),
    "null": Value(null_value=0),
    "number": Value(number_value=1.5),
    "bool": Value(bool_value=True),
    "struct": Value(struct_value={"v": 1}),
    "list": Value(list_value={"values": [Value(number_value=1)]}),
}


@pytest.mark.parametrize("value", list(VALUES.values()), ids=list(VALUES))
def test_read_part_gives_what_the_struct_accessor_gives(value: Value) -> None:
    part = _part_with(value)
    assert read_part(part) == decode(raw_envelope(part))


def test_read_part_of_a_value_with_nothing_set_fails_like_the_accessor() -> None:
    part = _part_with(Value())
    with pytest.raises(ValueError, match="Value not set"):
        raw_envelope(part)
    with pytest.raises(ValueError, match="Value not set"):
        read_part(part)


def test_read_part_without_an_envelope() -> None:
    assert read_part(Part(text="plain")) is None
    other = Part(text="plain")
    other.metadata["other"] = "x"
    assert read_part(other) is None
    assert TFRS_KEY not in other.metadata  # reading did not insert the key


def test_read_part_of_an_envelope_part() -> None:
    envelope = Envelope(Kind.THINKING, 7, {"text": "thinking"}, stream_key="s")
    assert read_part(envelope_part(encode(envelope), "thinking")) == envelope
