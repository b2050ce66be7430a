"""decode() runs the JSON scanner itself for text starting with ``{``: it must give exactly what
going through ``JSONDecoder.decode`` gave (same envelope, same rejection reason and detail)."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from a2a_progress.envelope import (
    HARD_LIMIT_BYTES,
    Envelope,
    Rejected,
    RejectReason,
    decode,
    from_wire,
    utf8_size,
)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise ValueError(f"{literal} is out of range")
    return value


def _reference_decode(data: str) -> Envelope | Rejected:
    """decode() as it was: JSONDecoder.decode (same hooks), then the wire object's checks."""
    if utf8_size(data) > HARD_LIMIT_BYTES:
        return Rejected(RejectReason.OVERSIZE, "")
    try:
        obj = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite).decode(data)
    except (ValueError, RecursionError) as exc:
        return Rejected(RejectReason.NOT_JSON, type(exc).__name__)
    if not isinstance(obj, dict):
        return Rejected(RejectReason.NOT_AN_OBJECT, "")
    return from_wire(obj)


def _same(data: str) -> None:
    got, want = decode(data), _reference_decode(data)
    assert type(got) is type(want)
    if isinstance(want, Rejected):
        assert isinstance(got, Rejected)
        assert got.reason is want.reason
        if want.reason is RejectReason.NOT_JSON:
            assert got.detail == want.detail
    else:
        assert got == want


_ENVELOPE = (
    '{"v":1,"kind":"text","streamKey":"s","seq":3,"status":"running","payload":{"text":"hi"}}'
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=json_values,
    head=st.sampled_from(["", " ", "\n", "\t "]),
    tail=st.sampled_from(["", " ", "\n", "x", "}", "{}", " 1", "]"]),
    cut=st.integers(min_value=0, max_value=40),
)
@example(value={"v": 1}, head="", tail="", cut=0)
def test_decode_matches_the_decoder_on_any_json_text(
    value: Any, head: str, tail: str, cut: int
) -> None:
    text = json.dumps(value)
    _same(head + text + tail)
    _same(text[: len(text) - cut])


@settings(max_examples=200, deadline=None)
@given(
    cut=st.integers(min_value=0, max_value=len(_ENVELOPE)),
    insert=st.sampled_from(["", " ", ",", ":", "NaN", "Infinity", "1e999", "[", "]", '"', "x"]),
)
def test_decode_matches_the_decoder_on_broken_envelopes(cut: int, insert: str) -> None:
    _same(_ENVELOPE[:cut] + insert + _ENVELOPE[cut:])
    _same(_ENVELOPE[:cut] + insert)


def test_decode_matches_the_decoder_on_edge_cases() -> None:
    for text in [
        _ENVELOPE,
        _ENVELOPE + " ",
        _ENVELOPE + "\n\n",
        _ENVELOPE + "x",
        _ENVELOPE + _ENVELOPE,
        " " + _ENVELOPE,
        "{",
        "{}",
        "{ }",
        '{"a": }',
        '{"a": [1, }',
        '{"a": NaN}',
        '{"a": 1e999}',
        '{"a":' * 20_000 + "1" + "}" * 20_000,
        "{" + '"a":1,' * 10 + "}",
        "{" + "9" * 5000 + "}",
        '{"seq":' + "9" * 5000 + "}",
    ]:
        _same(text)


# Per wire field: values that are right, then wrong ones (wrong type, look-alikes such as 1.0 and
# true, absent: ...). An example breaks at most two fields, so most are (nearly) envelopes.
_GOOD: dict[str, list[Any]] = {
    "v": [1],
    "kind": ["text", "thinking", "tool_call", "tool_output_append", "error"],
    "status": ["running", "done", "aborted"],
    "seq": [0, 7, -3, 2**70],
    "streamKey": ["k", "", None, ...],
}
_BAD: dict[str, list[Any]] = {
    "v": [1.0, True, 0, 2, "1", None, ...],
    "kind": ["TEXT", "chunk", 1, None, ["text"], ...],
    "status": ["finished", 0, None, ["done"], ...],
    "seq": [1.0, True, False, "7", None, ...],
    "streamKey": [1, ["k"], {"k": 1}, True],
}
_PAYLOADS: list[Any] = [
    {"text": "x"},
    {"tool": "t"},
    {"tool": "t", "tool_call_id": "c"},
    {"tool": "t", "chunk": "out"},
    {"tool": "t", "chunk": "out", "tool_call_id": None},
    {"message": "m", "extra": [1]},
    {"text": 1},
    {"tool": "t", "tool_call_id": 3},
    {"chunk": "out"},
    {},
    None,
    [],
    "payload",
]


def test_decode_matches_the_wire_checks_on_near_envelopes() -> None:
    # Every kind with every payload, each with all fields right or exactly one of them wrong in
    # each way; also every right value of each field.
    variants: list[dict[str, Any]] = [{}]
    variants += [{name: value} for name, values in _BAD.items() for value in values]
    variants += [{name: value} for name, values in _GOOD.items() for value in values]
    for kind in _GOOD["kind"]:
        for payload in _PAYLOADS:
            for variant in variants:
                fields = {"v": 1, "kind": kind, "status": "done", "seq": 3, "streamKey": "k"}
                fields |= variant
                wire = {name: value for name, value in fields.items() if value is not ...}
                wire["payload"] = payload
                _same(json.dumps(wire))


# decode() reads what encode() writes by a faster way of its own (the fixed key order, no
# whitespace; the payload's strings by the scanner's string reader): near-canonical texts, each
# piece right or subtly wrong, must give exactly what the general decoder gives.
# Pieces of a string's body on the wire: plain, escaped, broken escapes, raw controls and quotes.
_STRING_BODIES = st.lists(
    st.sampled_from(
        [
            "a",
            "Z",
            " ",
            "中",
            "\U0001f600",
            "\ud800",
            "\x7f",
            "\x00",
            "\x1f",
            "\n",
            '"',
            "\\",
            "\\n",
            "\\u0041",
            "\\ud800",
            "\\u12",
            "\\x",
            "\\/",
            "}",
            ",",
            ":",
        ]
    ),
    max_size=8,
).map("".join)
_WIRE_STRINGS = st.one_of(
    st.builds(lambda body: f'"{body}"', _STRING_BODIES),
    st.text(max_size=6).map(lambda text: json.dumps(text, ensure_ascii=False)),
    st.sampled_from(["null", "1", "true", '"', "", '"a" ', '"a"x']),
)
_SEQS = st.one_of(
    st.integers(min_value=-(10**20), max_value=10**20).map(str),
    st.sampled_from(
        ["0", "-0", "00", "01", "1.0", "1e3", "-", "+1", "9" * 18, "9" * 19, "9" * 5000, "\u0661"]
    ),
)


_PIECES = ("v", "kind", "streamKey", "seq", "status", "payload", "tail")
_SAFE_BODIES = st.text(
    alphabet=st.characters(blacklist_characters='"\\', min_codepoint=0x20), max_size=8
)


@st.composite
def _near_canonical(draw: st.DrawFn) -> str:
    """What encode() writes for a kind v1 sends, with up to two of its pieces subtly wrong."""
    bad = draw(st.sets(st.sampled_from(_PIECES), max_size=2))

    def piece(name: str, good: st.SearchStrategy[str], wrong: st.SearchStrategy[str]) -> str:
        return draw(wrong if name in bad else good)

    kind = piece(
        "kind",
        st.sampled_from(["thinking", "text", "tool_call", "error"]),
        st.sampled_from(["tool_output_append", "Text", "tool_call ", "texts"]),
    )
    version = piece("v", st.just("1"), st.sampled_from(["2", "1.0", "true", "01", " 1", "-1"]))
    status = piece(
        "status",
        st.sampled_from(["running", "done", "aborted"]),
        st.sampled_from(["RUNNING", "ok", "done "]),
    )
    good_string = st.one_of(
        _SAFE_BODIES.map(lambda body: f'"{body}"'),
        st.text(max_size=6).map(lambda text: json.dumps(text, ensure_ascii=False)),
    )
    text = f'{{"v":{version},"kind":"{kind}",'
    if draw(st.booleans()) or "streamKey" in bad:
        text += f'"streamKey":{piece("streamKey", good_string, _WIRE_STRINGS)},'
    seq = piece("seq", st.integers(min_value=-(10**18), max_value=10**18).map(str), _SEQS)
    text += f'"seq":{seq},"status":"{status}","payload":{{'
    if "payload" in bad:
        fields = draw(
            st.lists(
                st.sampled_from(["text", "message", "tool", "tool_call_id", "chunk", "reason"]),
                max_size=3,
            )
        )
        text += ",".join(f'"{field}":{draw(_WIRE_STRINGS)}' for field in fields)
    else:
        names = {"thinking": ["text"], "text": ["text"], "error": ["message"]}.get(kind)
        if names is None:
            names = draw(st.sampled_from([["tool"], ["tool", "tool_call_id"], ["text"]]))
        text += ",".join(f'"{name}":{draw(good_string)}' for name in names)
    tail = st.sampled_from(["} }", "}}\n", "}}}", "}", "},}", "}}x", ',"x":1}}'])
    return text + piece("tail", st.just("}}"), tail)


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_near_canonical())
@example(text='{"v":1,"kind":"text","seq":1,"status":"running","payload":{"text":"a\\"b"}}')
@example(text='{"v":1,"kind":"error","seq":1,"status":"running","payload":{"text":"x"}}')
@example(
    text='{"v":1,"kind":"tool_call","seq":1,"status":"done","payload":{"tool":"t","tool_call_id":null}}'
)
@example(
    text='{"v":1,"kind":"tool_call","seq":1,"status":"done","payload":{"tool":"t","tool":"u"}}'
)
@example(
    text='{"v":1,"kind":"text","seq":999999999999999999,"status":"running","payload":{"text":""}}'
)
@example(
    text='{"v":1,"kind":"text","streamKey":"\ud800","seq":-0,"status":"running","payload":{"text":"\\ud83d\\ude00"}}'
)
@example(
    text='{"v":1,"kind":"text","seq":' + "9" * 5000 + ',"status":"running","payload":{"text":""}}'
)
# Escapes the one match validates and the scanner's string reader decodes, and ones it rejects.
@example(
    text='{"v":1,"kind":"tool_call","streamKey":"k","seq":2,"status":"running",'
    '"payload":{"tool":"a\\/b\\n","tool_call_id":"\\u00E9\\t\\\\"}}'
)
@example(text='{"v":1,"kind":"text","seq":1,"status":"running","payload":{"text":"a\\xb"}}')
@example(text='{"v":1,"kind":"text","seq":1,"status":"running","payload":{"text":"a\\u12"}}')
@example(text='{"v":1,"kind":"text","seq":1,"status":"running","payload":{"text":"a\tb"}}')
@example(text='{"v":1,"kind":"text","seq":1,"status":"running","payload":{"text":"a\\"}}')
def test_decode_matches_the_decoder_on_near_canonical_envelopes(text: str) -> None:
    _same(text)


@settings(max_examples=500, deadline=None)
@given(cut=st.integers(min_value=0, max_value=200), data=st.data())
def test_decode_matches_the_decoder_on_cut_canonical_envelopes(
    cut: int, data: st.DataObject
) -> None:
    text = data.draw(_near_canonical())
    _same(text[:cut])
    _same(text[:cut] + text[cut + 1 :])
