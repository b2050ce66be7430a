"""The v1 envelope codec: the exact wire format, every rejection reason, and the value type."""

from __future__ import annotations

import dataclasses
import json
import math
from types import MappingProxyType
from typing import Any

import pytest
from a2a.types.a2a_pb2 import Part
from google.protobuf.struct_pb2 import ListValue, Struct

from a2a_progress.envelope import (
    ENVELOPE_VERSION,
    HARD_LIMIT_BYTES,
    SOFT_LIMIT_BYTES,
    Envelope,
    EnvelopeError,
    Kind,
    OversizeEnvelopeError,
    Rejected,
    RejectReason,
    Status,
    decode,
    encode,
    from_wire,
    utf8_size,
)
from a2a_progress.sdk.adapter import envelope_part, raw_envelope, read_envelope

VALID_PAYLOADS: dict[Kind, dict[str, Any]] = {
    Kind.THINKING: {"text": "pondering"},
    Kind.TEXT: {"text": "step 2 of 3"},
    Kind.TOOL_CALL: {"tool": "search", "tool_call_id": "call-1"},
    Kind.TOOL_OUTPUT_APPEND: {"tool": "tail", "chunk": "line 1\n", "tool_call_id": "call-2"},
    Kind.ERROR: {"message": "disk full"},
}


def wire(**fields: Any) -> dict[str, Any]:
    """A valid wire object (a text envelope), with ``fields`` replaced; ``...`` removes one."""
    obj: dict[str, Any] = {
        "v": 1,
        "kind": "text",
        "streamKey": "s",
        "seq": 7,
        "status": "running",
        "payload": {"text": "hello"},
    }
    obj.update(fields)
    return {name: value for name, value in obj.items() if value is not ...}


def dumps(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def key_order(text: str) -> list[str]:
    pairs: list[list[str]] = []
    json.loads(text, object_pairs_hook=lambda items: pairs.append([k for k, _ in items]) or {})
    return pairs[-1]  # the outermost object is built last


# -- encode ------------------------------------------------------------------------------------


def test_encode_is_compact_json_with_wire_field_names_in_order() -> None:
    envelope = Envelope(
        kind=Kind.TOOL_CALL,
        seq=42,
        payload={"tool": "ask_colleague", "tool_call_id": "c-1"},
        status=Status.RUNNING,
        stream_key="c-1",
    )
    assert encode(envelope) == (
        '{"v":1,"kind":"tool_call","streamKey":"c-1","seq":42,"status":"running",'
        '"payload":{"tool":"ask_colleague","tool_call_id":"c-1"}}'
    )


def test_encode_omits_stream_key_when_none() -> None:
    text = encode(Envelope(Kind.THINKING, 1, {"text": "hm"}))
    assert "streamKey" not in text
    assert key_order(text) == ["v", "kind", "seq", "status", "payload"]


def test_encode_keeps_an_empty_stream_key() -> None:
    text = encode(Envelope(Kind.THINKING, 1, {"text": "hm"}, stream_key=""))
    assert key_order(text) == ["v", "kind", "streamKey", "seq", "status", "payload"]
    assert json.loads(text)["streamKey"] == ""


@pytest.mark.parametrize("text", ["思考中……", "naïve café", "emoji 🚀🧪", "Ελληνικά\u2028"])
def test_encode_writes_utf8_without_ascii_escapes(text: str) -> None:
    encoded = encode(Envelope(Kind.TEXT, 3, {"text": text}))
    assert text in encoded
    assert "\\u" not in encoded
    assert json.loads(encoded)["payload"]["text"] == text


@pytest.mark.parametrize("text", ["plain", 'quote " and \\ slash', "tab\tnewline\n", "a, b: c"])
def test_encode_is_compact(text: str) -> None:
    encoded = encode(Envelope(Kind.TEXT, 3, {"text": text}, stream_key="k"))
    assert json.loads(encoded)["payload"]["text"] == text
    assert encoded == json.dumps(json.loads(encoded), ensure_ascii=False, separators=(",", ":"))
    assert ", " not in encoded.replace(text, "")
    assert '": ' not in encoded


@pytest.mark.parametrize("seq", [0, -5, 2**53 + 1, 10**30, -(10**30)])
def test_encode_writes_big_and_negative_seqs_exactly(seq: int) -> None:
    encoded = encode(Envelope(Kind.TEXT, seq, {"text": "x"}))
    assert f'"seq":{seq},' in encoded
    assert decode(encoded) == Envelope(Kind.TEXT, seq, {"text": "x"})


def test_encode_raises_oversize_over_the_hard_limit() -> None:
    with pytest.raises(OversizeEnvelopeError):
        encode(Envelope(Kind.TEXT, 1, {"text": "x" * HARD_LIMIT_BYTES}))


def test_encode_counts_bytes_not_characters_for_the_hard_limit() -> None:
    # 22,000 three-byte characters: far under 64 Ki characters, over 64 KiB of UTF-8.
    envelope = Envelope(Kind.TEXT, 1, {"text": "€" * 22_000})
    with pytest.raises(OversizeEnvelopeError):
        encode(envelope)


def test_oversize_error_is_an_envelope_error() -> None:
    assert issubclass(OversizeEnvelopeError, EnvelopeError)
    assert issubclass(EnvelopeError, ValueError)


@pytest.mark.parametrize(
    "extra",
    [{"x": math.nan}, {"x": math.inf}, {"x": -math.inf}, {"x": {1, 2}}, {"x": object()}],
    ids=["nan", "inf", "-inf", "set", "object"],
)
def test_encode_raises_envelope_error_for_payload_values_json_cannot_hold(
    extra: dict[str, Any],
) -> None:
    envelope = Envelope(Kind.TEXT, 1, {"text": "a", **extra})
    with pytest.raises(EnvelopeError):
        encode(envelope)


# -- decode: every reject reason ---------------------------------------------------------------


def _struct(value: dict[str, Any]) -> Struct:
    struct = Struct()
    struct.update(value)
    return struct


def _list_value(values: list[Any]) -> ListValue:
    lv = ListValue()
    lv.extend(values)
    return lv


NOT_A_STRING = [
    None,
    1.0,
    42,
    True,
    b'{"v":1}',
    {"v": 1},
    ["v"],
    _struct(wire()),
    _list_value([1, 2]),
]


@pytest.mark.parametrize("value", NOT_A_STRING, ids=lambda v: type(v).__name__)
def test_decode_rejects_non_strings(value: object) -> None:
    result = decode(value)
    assert isinstance(result, Rejected)
    assert result.reason is RejectReason.NOT_A_STRING


@pytest.mark.parametrize(
    "metadata_value",
    [3.5, 7, True, {"v": 1, "kind": "text"}, [1, "x"]],
    ids=["float", "int-as-float", "bool", "struct", "list"],
)
def test_decode_rejects_the_non_string_values_metadata_can_hold(metadata_value: Any) -> None:
    part = Part(text="fallback", metadata={"tfrs": metadata_value})
    value = raw_envelope(part)
    assert not isinstance(value, str)
    result = decode(value)
    assert isinstance(result, Rejected)
    assert result.reason is RejectReason.NOT_A_STRING


def test_a_null_metadata_envelope_is_rejected_not_absent() -> None:
    part = Part(text="fallback", metadata={"tfrs": None})
    result = read_envelope(part)
    assert isinstance(result, Rejected)
    assert result.reason is RejectReason.NOT_A_STRING
    assert read_envelope(Part(text="fallback")) is None


def _padded_envelope(total_bytes: int, filler: str) -> str:
    """A valid text envelope whose encoding is exactly ``total_bytes`` UTF-8 bytes."""
    empty = dumps(wire(payload={"text": ""}))
    room = total_bytes - utf8_size(empty)
    unit = utf8_size(filler)
    text = filler * (room // unit) + "a" * (room % unit)
    result = dumps(wire(payload={"text": text}))
    assert utf8_size(result) == total_bytes
    return result


@pytest.mark.parametrize("filler", ["a", "é", "€", "🚀"])
def test_decode_accepts_exactly_the_hard_limit(filler: str) -> None:
    result = decode(_padded_envelope(HARD_LIMIT_BYTES, filler))
    assert isinstance(result, Envelope)


@pytest.mark.parametrize("filler", ["a", "é", "€", "🚀"])
def test_decode_rejects_one_byte_over_the_hard_limit(filler: str) -> None:
    result = decode(_padded_envelope(HARD_LIMIT_BYTES + 1, filler))
    assert isinstance(result, Rejected)
    assert result.reason is RejectReason.OVERSIZE


def test_decode_counts_multibyte_characters_as_bytes() -> None:
    text = _padded_envelope(HARD_LIMIT_BYTES + 3, "🚀")
    assert len(text) < HARD_LIMIT_BYTES // 2  # few characters, many bytes
    result = decode(text)
    assert isinstance(result, Rejected)
    assert result.reason is RejectReason.OVERSIZE


def test_decode_rejects_oversize_before_parsing() -> None:
    # Not even JSON, but too big: the size check comes first.
    result = decode("x" * (HARD_LIMIT_BYTES + 1))
    assert isinstance(result, Rejected)
    assert result.reason is RejectReason.OVERSIZE


DEEP = 30_000  # within the size limit, far beyond any recursion limit

NOT_JSON = {
    "empty": "",
    "prose": "Calling tool search",
    "truncated": '{"v":1,"kind":"text"',
    "single-quotes": "{'v': 1}",
    "trailing-garbage": dumps(wire()) + "x",
    "two-objects": dumps(wire()) + dumps(wire()),
    "bare-nan": "NaN",
    "nan-in-payload": dumps(wire())[:-2] + ',"x":NaN}}',
    "infinity-in-payload": dumps(wire())[:-2] + ',"x":Infinity}}',
    "minus-infinity-in-payload": dumps(wire())[:-2] + ',"x":-Infinity}}',
    "nan-seq": dumps(wire(seq=0)).replace('"seq":0', '"seq":NaN'),
    "overflowing-float": dumps(wire())[:-2] + ',"x":1e999}}',
    "overflowing-negative-float": dumps(wire())[:-2] + ',"x":-1e999}}',
    "deep-array": "[" * DEEP + "]" * DEEP,
    "deep-object": '{"a":' * (DEEP // 3) + "1" + "}" * (DEEP // 3),
    "deep-in-payload": dumps(wire())[:-2] + ',"x":' + "[" * DEEP + "]" * DEEP + "}}",
    "huge-int-literal": '{"v":1,"kind":"text","seq":' + "9" * 5000 + ',"status":"running"}',
}


@pytest.mark.parametrize("text", list(NOT_JSON.values()), ids=list(NOT_JSON))
def test_decode_rejects_what_is_not_json_without_raising(text: str) -> None:
    result = decode(text)
    assert isinstance(result, Rejected)
    assert result.reason is RejectReason.NOT_JSON


@pytest.mark.parametrize("text", ["[]", "[1]", '"a string"', "1", "1.5", "true", "null"])
def test_decode_rejects_json_that_is_not_an_object(text: str) -> None:
    result = decode(text)
    assert isinstance(result, Rejected)
    assert result.reason is RejectReason.NOT_AN_OBJECT


REJECTIONS: dict[str, tuple[dict[str, Any], RejectReason]] = {
    "v-missing": (wire(v=...), RejectReason.BAD_VERSION),
    "v-null": (wire(v=None), RejectReason.BAD_VERSION),
    "v-string": (wire(v="1"), RejectReason.BAD_VERSION),
    "v-float": (wire(v=1.0), RejectReason.BAD_VERSION),
    "v-true": (wire(v=True), RejectReason.BAD_VERSION),
    "v-false": (wire(v=False), RejectReason.BAD_VERSION),
    "v-zero": (wire(v=0), RejectReason.BAD_VERSION),
    "v-negative": (wire(v=-1), RejectReason.BAD_VERSION),
    "v-2": (wire(v=2), RejectReason.UNKNOWN_VERSION),
    "v-huge": (wire(v=10**20), RejectReason.UNKNOWN_VERSION),
    "kind-missing": (wire(kind=...), RejectReason.BAD_KIND),
    "kind-unknown": (wire(kind="chunk"), RejectReason.BAD_KIND),
    "kind-wrong-case": (wire(kind="TEXT"), RejectReason.BAD_KIND),
    "kind-null": (wire(kind=None), RejectReason.BAD_KIND),
    "kind-list": (wire(kind=["text"]), RejectReason.BAD_KIND),
    "kind-object": (wire(kind={"text": 1}), RejectReason.BAD_KIND),
    "status-missing": (wire(status=...), RejectReason.BAD_STATUS),
    "status-unknown": (wire(status="finished"), RejectReason.BAD_STATUS),
    "status-number": (wire(status=1), RejectReason.BAD_STATUS),
    "status-list": (wire(status=["done"]), RejectReason.BAD_STATUS),
    "seq-missing": (wire(seq=...), RejectReason.BAD_SEQ),
    "seq-null": (wire(seq=None), RejectReason.BAD_SEQ),
    "seq-float": (wire(seq=1.0), RejectReason.BAD_SEQ),
    "seq-fraction": (wire(seq=1.5), RejectReason.BAD_SEQ),
    "seq-true": (wire(seq=True), RejectReason.BAD_SEQ),
    "seq-false": (wire(seq=False), RejectReason.BAD_SEQ),
    "seq-string": (wire(seq="7"), RejectReason.BAD_SEQ),
    "streamKey-number": (wire(streamKey=5), RejectReason.BAD_STREAM_KEY),
    "streamKey-bool": (wire(streamKey=True), RejectReason.BAD_STREAM_KEY),
    "streamKey-list": (wire(streamKey=["a"]), RejectReason.BAD_STREAM_KEY),
    "streamKey-object": (wire(streamKey={"a": 1}), RejectReason.BAD_STREAM_KEY),
    "payload-missing": (wire(payload=...), RejectReason.BAD_PAYLOAD),
    "payload-null": (wire(payload=None), RejectReason.BAD_PAYLOAD),
    "payload-string": (wire(payload="hello"), RejectReason.BAD_PAYLOAD),
    "payload-list": (wire(payload=[{"text": "a"}]), RejectReason.BAD_PAYLOAD),
    "text-missing": (wire(payload={}), RejectReason.BAD_PAYLOAD),
    "text-number": (wire(payload={"text": 5}), RejectReason.BAD_PAYLOAD),
    "text-null": (wire(payload={"text": None}), RejectReason.BAD_PAYLOAD),
    "thinking-no-text": (wire(kind="thinking", payload={"message": "x"}), RejectReason.BAD_PAYLOAD),
    "thinking-text-list": (
        wire(kind="thinking", payload={"text": ["a"]}),
        RejectReason.BAD_PAYLOAD,
    ),
    "tool_call-no-tool": (
        wire(kind="tool_call", payload={"tool_call_id": "c"}),
        RejectReason.BAD_PAYLOAD,
    ),
    "tool_call-tool-number": (
        wire(kind="tool_call", payload={"tool": 1}),
        RejectReason.BAD_PAYLOAD,
    ),
    "tool_call-id-number": (
        wire(kind="tool_call", payload={"tool": "t", "tool_call_id": 12}),
        RejectReason.BAD_PAYLOAD,
    ),
    "tool_call-id-object": (
        wire(kind="tool_call", payload={"tool": "t", "tool_call_id": {"id": "c"}}),
        RejectReason.BAD_PAYLOAD,
    ),
    "tool_call-id-bool": (
        wire(kind="tool_call", payload={"tool": "t", "tool_call_id": False}),
        RejectReason.BAD_PAYLOAD,
    ),
    "append-no-chunk": (
        wire(kind="tool_output_append", payload={"tool": "t"}),
        RejectReason.BAD_PAYLOAD,
    ),
    "append-no-tool": (
        wire(kind="tool_output_append", payload={"chunk": "c"}),
        RejectReason.BAD_PAYLOAD,
    ),
    "append-chunk-bytes-like": (
        wire(kind="tool_output_append", payload={"tool": "t", "chunk": [104, 105]}),
        RejectReason.BAD_PAYLOAD,
    ),
    "append-id-number": (
        wire(kind="tool_output_append", payload={"tool": "t", "chunk": "c", "tool_call_id": 3}),
        RejectReason.BAD_PAYLOAD,
    ),
    "error-no-message": (wire(kind="error", payload={"text": "x"}), RejectReason.BAD_PAYLOAD),
    "error-message-number": (
        wire(kind="error", payload={"message": 500}),
        RejectReason.BAD_PAYLOAD,
    ),
}


@pytest.mark.parametrize(("obj", "reason"), list(REJECTIONS.values()), ids=list(REJECTIONS))
def test_decode_rejects_each_bad_field_with_its_reason(
    obj: dict[str, Any], reason: RejectReason
) -> None:
    result = decode(dumps(obj))
    assert isinstance(result, Rejected)
    assert result.reason is reason
    assert result.detail
    # from_wire agrees on the already-parsed object.
    again = from_wire(obj)
    assert isinstance(again, Rejected)
    assert again.reason is reason


def test_every_reject_reason_is_covered() -> None:
    covered = {reason for _, reason in REJECTIONS.values()} | {
        RejectReason.NOT_A_STRING,
        RejectReason.OVERSIZE,
        RejectReason.NOT_JSON,
        RejectReason.NOT_AN_OBJECT,
    }
    assert covered == set(RejectReason)


def test_version_is_checked_before_the_rest() -> None:
    # A newer version may change everything else: only v decides.
    result = decode(dumps({"v": 2, "kind": "holo", "payload": 3}))
    assert isinstance(result, Rejected)
    assert result.reason is RejectReason.UNKNOWN_VERSION


# -- decode: what is accepted ------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(Kind))
@pytest.mark.parametrize("status", list(Status))
def test_decode_accepts_every_kind_and_status(kind: Kind, status: Status) -> None:
    obj = wire(kind=kind.value, status=status.value, payload=VALID_PAYLOADS[kind])
    result = decode(dumps(obj))
    assert isinstance(result, Envelope)
    assert result.kind is kind
    assert result.status is status
    assert result.seq == 7
    assert result.stream_key == "s"
    assert dict(result.payload) == VALID_PAYLOADS[kind]


@pytest.mark.parametrize("stream_key", [..., None])
def test_decode_treats_missing_and_null_stream_key_as_none(stream_key: Any) -> None:
    result = decode(dumps(wire(streamKey=stream_key)))
    assert isinstance(result, Envelope)
    assert result.stream_key is None


def test_decode_accepts_a_null_optional_tool_call_id() -> None:
    result = decode(dumps(wire(kind="tool_call", payload={"tool": "t", "tool_call_id": None})))
    assert isinstance(result, Envelope)
    assert result.tool_call_id is None


def test_decode_keeps_unknown_payload_and_top_level_extras() -> None:
    payload = {"text": "hi", "lang": "zh", "nested": {"a": [1, 2.5, None, True]}, "n": 2**70}
    result = decode(dumps({**wire(payload=payload), "future": {"x": 1}}))
    assert isinstance(result, Envelope)
    assert dict(result.payload) == payload
    # Re-encoding carries the unknown payload keys on.
    assert json.loads(encode(result))["payload"] == payload


def test_decode_keeps_big_ints_exact() -> None:
    result = decode(dumps(wire(seq=2**64 + 1)))
    assert isinstance(result, Envelope)
    assert result.seq == 2**64 + 1


def test_decoded_payload_is_not_the_parsers_dict() -> None:
    obj = wire(payload={"text": "a"})
    result = from_wire(obj)
    assert isinstance(result, Envelope)
    obj["payload"]["text"] = "changed"
    assert result.payload["text"] == "a"


def test_round_trip_through_the_carrier_part() -> None:
    envelope = Envelope(Kind.TOOL_CALL, 9, {"tool": "t", "tool_call_id": "c"}, Status.DONE, "c")
    part = envelope_part(encode(envelope), "Tool t finished")
    assert part.text == "Tool t finished"
    assert read_envelope(part) == envelope


# -- the value type ----------------------------------------------------------------------------


def test_envelope_payload_is_read_only() -> None:
    envelope = Envelope(Kind.TEXT, 1, {"text": "a"})
    with pytest.raises(TypeError):
        envelope.payload["text"] = "b"  # type: ignore[index]
    with pytest.raises(TypeError):
        del envelope.payload["text"]  # type: ignore[attr-defined]
    assert envelope.payload["text"] == "a"


def test_envelope_copies_the_callers_payload() -> None:
    payload = {"text": "a"}
    envelope = Envelope(Kind.TEXT, 1, payload)
    payload["text"] = "b"
    payload["extra"] = "c"
    assert dict(envelope.payload) == {"text": "a"}


def test_decoded_envelope_payload_is_read_only() -> None:
    result = decode(dumps(wire()))
    assert isinstance(result, Envelope)
    with pytest.raises(TypeError):
        result.payload["text"] = "b"  # type: ignore[index]


@pytest.mark.parametrize("field", ["kind", "seq", "payload", "status", "stream_key", "v"])
def test_envelope_fields_are_frozen(field: str) -> None:
    envelope = Envelope(Kind.TEXT, 1, {"text": "a"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(envelope, field, None)


def test_envelope_has_no_instance_dict() -> None:
    envelope = Envelope(Kind.TEXT, 1, {"text": "a"})
    with pytest.raises((AttributeError, TypeError)):
        envelope.extra = 1  # type: ignore[attr-defined]


def test_envelope_equality_is_by_value() -> None:
    a = Envelope(Kind.TEXT, 1, {"text": "a"}, stream_key="k")
    assert a == Envelope(Kind.TEXT, 1, {"text": "a"}, stream_key="k")
    assert a != Envelope(Kind.TEXT, 2, {"text": "a"}, stream_key="k")
    assert a != Envelope(Kind.TEXT, 1, {"text": "b"}, stream_key="k")
    assert a != Envelope(Kind.TEXT, 1, {"text": "a"})


def test_envelope_accepts_wire_strings_for_kind_and_status() -> None:
    envelope = Envelope("thinking", 1, {"text": "a"}, "done")  # type: ignore[arg-type]
    assert envelope.kind is Kind.THINKING
    assert envelope.status is Status.DONE
    assert envelope.v == ENVELOPE_VERSION


def test_envelope_takes_a_member_beside_a_wire_string_and_any_mapping_as_payload() -> None:
    payload = {"tool": "t"}
    envelope = Envelope(Kind.TOOL_CALL, 1, MappingProxyType(payload), "aborted")  # type: ignore[arg-type]
    assert (envelope.kind, envelope.status) == (Kind.TOOL_CALL, Status.ABORTED)
    payload["tool"] = "changed"  # the envelope holds a copy
    assert dict(envelope.payload) == {"tool": "t"}
    assert Envelope("tool_call", 2, {"tool": "t"}, Status.DONE).status is Status.DONE  # type: ignore[arg-type]


BAD_CONSTRUCTION: dict[str, dict[str, Any]] = {
    "seq-float": {"kind": Kind.TEXT, "seq": 1.0, "payload": {"text": "a"}},
    "seq-bool": {"kind": Kind.TEXT, "seq": True, "payload": {"text": "a"}},
    "seq-string": {"kind": Kind.TEXT, "seq": "1", "payload": {"text": "a"}},
    "stream-key-int": {"kind": Kind.TEXT, "seq": 1, "payload": {"text": "a"}, "stream_key": 3},
    "kind-unknown": {"kind": "chunk", "seq": 1, "payload": {"text": "a"}},
    "status-unknown": {"kind": Kind.TEXT, "seq": 1, "payload": {"text": "a"}, "status": "ok"},
    "payload-list": {"kind": Kind.TEXT, "seq": 1, "payload": ["text"]},
    "payload-none": {"kind": Kind.TEXT, "seq": 1, "payload": None},
    "text-missing": {"kind": Kind.TEXT, "seq": 1, "payload": {}},
    "tool-missing": {"kind": Kind.TOOL_CALL, "seq": 1, "payload": {"tool_call_id": "c"}},
    "tool-call-id-int": {"kind": Kind.TOOL_CALL, "seq": 1,
                         "payload": {"tool": "t", "tool_call_id": 1}},
    "chunk-missing": {"kind": Kind.TOOL_OUTPUT_APPEND, "seq": 1, "payload": {"tool": "t"}},
    "message-bytes": {"kind": Kind.ERROR, "seq": 1, "payload": {"message": b"x"}},
    "version-2": {"kind": Kind.TEXT, "seq": 1, "payload": {"text": "a"}, "v": 2},
    "version-0": {"kind": Kind.TEXT, "seq": 1, "payload": {"text": "a"}, "v": 0},
    "version-true": {"kind": Kind.TEXT, "seq": 1, "payload": {"text": "a"}, "v": True},
}  # fmt: skip


@pytest.mark.parametrize("fields", list(BAD_CONSTRUCTION.values()), ids=list(BAD_CONSTRUCTION))
def test_construction_validates_with_envelope_error(fields: dict[str, Any]) -> None:
    with pytest.raises(EnvelopeError):
        Envelope(**fields)


def test_construction_keeps_extra_payload_keys() -> None:
    envelope = Envelope(Kind.ERROR, 1, {"message": "m", "code": 7})
    assert dict(envelope.payload) == {"message": "m", "code": 7}


# -- properties --------------------------------------------------------------------------------

PROPERTY_CASES: list[tuple[Envelope, str | None, str | None, str | None, str]] = [
    # envelope, tool, tool_call_id, content, stream_id
    (Envelope(Kind.THINKING, 1, {"text": "hm"}), None, None, "hm", ""),
    (Envelope(Kind.TEXT, 1, {"text": "step"}, stream_key="k"), None, None, "step", "k"),
    (Envelope(Kind.ERROR, 1, {"message": "boom"}), None, None, "boom", ""),
    (Envelope(Kind.TOOL_CALL, 1, {"tool": "t"}), "t", None, None, ""),
    (Envelope(Kind.TOOL_CALL, 1, {"tool": "t", "tool_call_id": "c"}), "t", "c", None, "c"),
    (
        Envelope(Kind.TOOL_CALL, 1, {"tool": "t", "tool_call_id": "c"}, stream_key="k"),
        "t",
        "c",
        None,
        "k",
    ),
    (Envelope(Kind.TOOL_CALL, 1, {"tool": "t", "tool_call_id": ""}), "t", None, None, ""),
    (Envelope(Kind.TOOL_CALL, 1, {"tool": "t", "tool_call_id": None}), "t", None, None, ""),
    (
        Envelope(Kind.TOOL_OUTPUT_APPEND, 1, {"tool": "tail", "chunk": "l\n", "tool_call_id": "c"}),
        "tail",
        "c",
        "l\n",
        "c",
    ),
    # A text envelope carrying a "tool" extra key is still no tool envelope's content.
    (Envelope(Kind.TEXT, 1, {"text": "x", "tool": "t"}), "t", None, "x", ""),
]


@pytest.mark.parametrize(
    ("envelope", "tool", "tool_call_id", "content", "stream_id"),
    PROPERTY_CASES,
    ids=[f"{case[0].kind.value}-{i}" for i, case in enumerate(PROPERTY_CASES)],
)
def test_envelope_properties(
    envelope: Envelope,
    tool: str | None,
    tool_call_id: str | None,
    content: str | None,
    stream_id: str,
) -> None:
    assert envelope.tool == tool
    assert envelope.tool_call_id == tool_call_id
    assert envelope.content == content
    assert envelope.stream_id == stream_id


def test_to_wire_is_a_fresh_dict() -> None:
    envelope = Envelope(Kind.TEXT, 1, {"text": "a"}, stream_key="k")
    obj = envelope.to_wire()
    obj["payload"]["text"] = "b"
    assert envelope.payload["text"] == "a"
    assert list(obj) == ["v", "kind", "streamKey", "seq", "status", "payload"]


def test_limits() -> None:
    assert HARD_LIMIT_BYTES == 64 * 1024
    assert SOFT_LIMIT_BYTES == 8 * 1024
    assert ENVELOPE_VERSION == 1
    assert utf8_size("aé€🚀") == 1 + 2 + 3 + 4


def test_envelopes_are_hashable_consistently_with_equality() -> None:
    a = Envelope(Kind.TEXT, 1, {"text": "a", "extra": [1, {"x": 2}]}, stream_key="k")
    b = decode(encode(a))
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b, Envelope(Kind.TEXT, 2, {"text": "a"}, stream_key="k")}) == 2
    assert {a: "seen"}[b] == "seen"
