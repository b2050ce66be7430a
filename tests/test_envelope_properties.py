"""Property-based proof of the codec: decode never raises, encode/decode round-trips, and
``split_text`` keeps every byte and every character while bounding each piece."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from a2a_progress.envelope import (
    HARD_LIMIT_BYTES,
    SOFT_LIMIT_BYTES,
    Envelope,
    Kind,
    OversizeEnvelopeError,
    Rejected,
    Status,
    decode,
    encode,
    split_text,
    utf8_size,
)

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- strategies ----------------------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
# Anything json.dumps can write, including the NaN / Infinity it writes by default.
any_json = st.recursive(
    json_scalars | st.floats(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)

WIRE_KEYS = ["v", "kind", "streamKey", "seq", "status", "payload"]
PAYLOAD_KEYS = ["text", "tool", "tool_call_id", "chunk", "message", "reason"]

seqs = (
    st.integers()
    | st.integers(min_value=2**53 - 2, max_value=2**70)
    | st.integers(min_value=-(2**70), max_value=-1)
)
extra_payload = st.dictionaries(
    st.text(max_size=10).filter(lambda k: k not in PAYLOAD_KEYS), json_values, max_size=3
)


@st.composite
def envelopes(draw: st.DrawFn) -> Envelope:
    kind = draw(st.sampled_from(list(Kind)))
    payload: dict[str, Any] = dict(draw(extra_payload))
    if kind in (Kind.THINKING, Kind.TEXT):
        payload["text"] = draw(st.text())
    elif kind is Kind.ERROR:
        payload["message"] = draw(st.text())
    else:
        payload["tool"] = draw(st.text())
        if kind is Kind.TOOL_OUTPUT_APPEND:
            payload["chunk"] = draw(st.text())
        tool_call_id = draw(st.sampled_from(["absent", "none", "text"]))
        if tool_call_id == "none":
            payload["tool_call_id"] = None
        elif tool_call_id == "text":
            payload["tool_call_id"] = draw(st.text())
    return Envelope(
        kind=kind,
        seq=draw(seqs),
        payload=payload,
        status=draw(st.sampled_from(list(Status))),
        stream_key=draw(st.none() | st.text()),
    )


@st.composite
def wire_like(draw: st.DrawFn) -> dict[str, Any]:
    """A valid envelope's wire object, with up to three fields removed or replaced by any JSON."""
    obj = draw(envelopes()).to_wire()
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        action = draw(st.sampled_from(["delete", "replace", "payload-delete", "payload-replace"]))
        if action.startswith("payload") and isinstance(obj.get("payload"), dict):
            name = draw(st.sampled_from(PAYLOAD_KEYS))
            if action == "payload-delete":
                obj["payload"].pop(name, None)
            else:
                obj["payload"][name] = draw(json_values)
            continue
        key = draw(st.sampled_from(WIRE_KEYS))
        if action == "delete":
            obj.pop(key, None)
        else:
            obj[key] = draw(
                st.sampled_from([0, 1, 2, -1, True, False, 1.0, "1", None, "text", "done"])
                | json_values
            )
    return obj


# Text with lone surrogates, as bytes decoded with "surrogateescape" give (e.g. tool output).
surrogate_text = st.binary().map(lambda b: b.decode("utf-8", "surrogateescape"))
lines = st.lists(
    st.text(max_size=40) | st.text(st.sampled_from("aé€🚀 \t"), max_size=90),
    max_size=12,
)
line_text = st.builds(
    lambda parts, ends: "".join(p + e for p, e in zip(parts, ends, strict=False)),
    lines,
    st.lists(st.sampled_from(["\n", "\r\n", "\r", "\u2028", "\x0b", ""]), min_size=12),
)
split_inputs = st.text() | line_text | surrogate_text | st.text(st.sampled_from("x🚀\n"))


def _check(result: object) -> None:
    assert isinstance(result, Envelope | Rejected)


# -- decode never raises ---------------------------------------------------------------------------


@SETTINGS
@given(st.text())
@example("")
@example("[" * 50_000)
@example('{"v":1,"kind":"text","seq":1,"status":"running","payload":{"text":"\\ud800"}}')
def test_decode_of_any_text_never_raises(text: str) -> None:
    _check(decode(text))


@SETTINGS
@given(st.binary(), st.sampled_from(["latin-1", "replace", "ignore", "surrogateescape"]))
def test_decode_of_any_bytes_as_text_never_raises(data: bytes, how: str) -> None:
    text = data.decode("latin-1") if how == "latin-1" else data.decode("utf-8", how)
    _check(decode(text))


@SETTINGS
@given(any_json, st.booleans())
def test_decode_of_any_json_value_never_raises(value: Any, ascii_only: bool) -> None:
    _check(decode(json.dumps(value, ensure_ascii=ascii_only)))


@SETTINGS
@given(st.one_of(st.none(), st.integers(), st.floats(), st.binary(), json_values))
def test_decode_of_any_python_value_never_raises(value: Any) -> None:
    result = decode(value)
    _check(result)
    if not isinstance(value, str):
        assert isinstance(result, Rejected)


@SETTINGS
@given(wire_like(), st.booleans())
def test_decode_of_envelope_like_objects_never_raises_and_accepts_only_what_reencodes(
    obj: dict[str, Any], ascii_only: bool
) -> None:
    result = decode(json.dumps(obj, ensure_ascii=ascii_only))
    _check(result)
    if isinstance(result, Envelope):
        # Whatever decode accepts, encode can write back, and it reads back the same.
        assert result.v == 1
        assert decode(encode(result)) == result
        assert result.payload == obj["payload"]


@SETTINGS
@given(json_values, st.text(max_size=3))
def test_decode_of_a_valid_envelope_with_any_extra_payload_value_round_trips(
    value: Any, name: str
) -> None:
    text = json.dumps(
        {
            "v": 1,
            "kind": "error",
            "seq": 1,
            "status": "aborted",
            "payload": {"message": "m", "x" + name: value},
        }
    )
    result = decode(text)
    assert isinstance(result, Envelope)
    assert result.payload["x" + name] == value
    assert decode(encode(result)) == result


# -- round trip ------------------------------------------------------------------------------------


@SETTINGS
@given(envelopes())
def test_encode_then_decode_gives_the_same_envelope(envelope: Envelope) -> None:
    try:
        text = encode(envelope)
    except OversizeEnvelopeError:
        assume(False)
        raise
    assert utf8_size(text) <= HARD_LIMIT_BYTES
    assert decode(text) == envelope
    # The wire object has exactly the schema's fields, streamKey only when set.
    wire = json.loads(text)
    expected = ["v", "kind", "seq", "status", "payload"]
    if envelope.stream_key is not None:
        expected.insert(2, "streamKey")
    assert list(wire) == expected


@SETTINGS
@given(envelopes())
def test_reencoding_a_decoded_envelope_is_stable(envelope: Envelope) -> None:
    text = encode(envelope)
    decoded = decode(text)
    assert isinstance(decoded, Envelope)
    assert encode(decoded) == text


# -- split_text ------------------------------------------------------------------------------------


def _line_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for line in text.splitlines(keepends=True):
        spans.append((start, start + len(line)))
        start += len(line)
    return spans


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


@settings(max_examples=300, deadline=None)
@given(split_inputs, st.integers(min_value=4, max_value=64))
@example("\udc80" * 20, 8)
@example("ab\udc80cd" * 4, 8)
@example("🚀" * 5, 5)
@example("a\n" * 10 + "b" * 30, 8)
def test_split_text_bounds_keeps_and_respects_lines(text: str, limit: int) -> None:
    pieces = split_text(text, limit)
    assert "".join(pieces) == text
    if _size(text) <= limit:
        assert pieces == [text]
        return
    boundaries, offset = set(), 0
    for piece in pieces:
        assert piece, "no empty piece"
        assert _size(piece) <= limit
        # Never inside a character: every piece is whole UTF-8 and survives an envelope.
        raw = piece.encode("utf-8", "surrogatepass")
        assert raw.decode("utf-8", "surrogatepass") == piece
        decoded = decode(encode(Envelope(Kind.TEXT, 1, {"text": piece})))
        assert isinstance(decoded, Envelope)
        assert decoded.content == piece
        offset += len(piece)
        boundaries.add(offset)
    boundaries.discard(len(text))
    for start, end in _line_spans(text):
        if _size(text[start:end]) <= limit:
            # A line that fits is never cut.
            assert not any(start < b < end for b in boundaries), (start, end)


@settings(max_examples=200, deadline=None)
@given(split_inputs, st.integers(min_value=4, max_value=64))
def test_split_text_packs_whole_lines_greedily(text: str, limit: int) -> None:
    pieces = split_text(text, limit)
    line_at = {start: text[start:end] for start, end in _line_spans(text)}
    offset = 0
    for piece in pieces[:-1]:
        offset += len(piece)
        following = line_at.get(offset)
        if following is not None and _size(following) <= limit:
            # The piece was closed only because the whole next line would not fit in it.
            assert _size(piece) + _size(following) > limit


@pytest.mark.parametrize("limit", [-1, 0, 1, 3])
def test_split_text_rejects_a_limit_below_one_character(limit: int) -> None:
    with pytest.raises(ValueError, match="limit"):
        split_text("abcdef", limit)


@pytest.mark.parametrize("limit", [4, 8192])
def test_split_text_of_empty_text_is_one_empty_piece(limit: int) -> None:
    assert split_text("", limit) == [""]


def test_split_text_default_limit_is_the_soft_limit() -> None:
    text = ("x" * 100 + "\n") * 200  # 20,200 bytes
    pieces = split_text(text)
    assert len(pieces) == 3
    assert all(_size(piece) <= SOFT_LIMIT_BYTES for piece in pieces)
    assert all(piece.endswith("\n") for piece in pieces)
