"""part_view() reads a string envelope from the Struct's map directly: every other value must
still give what the Struct's own accessor gives, and a Value with nothing set is a rejected
envelope (a peer's bytes never raise)."""

from __future__ import annotations

import pytest
from a2a.types.a2a_pb2 import Part
from google.protobuf.struct_pb2 import Value  # type: ignore[import-untyped]

from a2a_progress.carrier import TFRS_KEY
from a2a_progress.envelope import Envelope, Kind, Rejected, decode, encode
from a2a_progress.sdk.adapter import envelope_part, part_view, raw_envelope


def read_part(part: Part) -> object:
    return part_view(part).envelope


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
    ours, theirs = read_part(part), decode(raw_envelope(part))
    # The seam reads a JSON object as a dict, the accessor gives a Struct: same verdict.
    assert getattr(ours, "reason", ours) == getattr(theirs, "reason", theirs)


def test_read_part_of_a_value_with_nothing_set_is_rejected_not_raised() -> None:
    part = _part_with(Value())
    with pytest.raises(ValueError, match="Value not set"):
        raw_envelope(part)
    assert isinstance(read_part(part), Rejected)


def test_read_part_without_an_envelope() -> None:
    assert read_part(Part(text="plain")) is None
    other = Part(text="plain")
    other.metadata["other"] = "x"
    assert read_part(other) is None
    assert TFRS_KEY not in other.metadata  # reading did not insert the key


def test_read_part_of_an_envelope_part() -> None:
    envelope = Envelope(Kind.THINKING, 7, {"text": "thinking"}, stream_key="s")
    assert read_part(envelope_part(encode(envelope), "thinking")) == envelope
