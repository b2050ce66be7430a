"""The v1 envelope's codec: to and from its one JSON string, and the UTF-8 sizes its limits are in.

Decoding never raises: any input gives either an `Envelope` or a `Rejected` that says why, so
a reader can always degrade to the text fallback (spec, "Wire format").
"""

from __future__ import annotations

import codecs
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Final

from a2a_progress.envelope.model import (
    ENVELOPE_VERSION,
    HARD_LIMIT_BYTES,
    PAYLOAD_FIELDS,
    SOFT_LIMIT_BYTES,
    Envelope,
    EnvelopeError,
    Kind,
    Status,
    payload_problem,
)


class RejectReason(StrEnum):
    """Why a string is not a usable v1 envelope.

    Examples:
        >>> decode('{"v": 2, "kind": "text", "seq": 1, "status": "running", "payload": {}}').reason
        <RejectReason.UNKNOWN_VERSION: 'unknown_version'>
    """

    NOT_A_STRING = "not_a_string"
    OVERSIZE = "oversize"
    NOT_JSON = "not_json"
    NOT_AN_OBJECT = "not_an_object"
    BAD_VERSION = "bad_version"
    UNKNOWN_VERSION = "unknown_version"
    BAD_KIND = "bad_kind"
    BAD_STATUS = "bad_status"
    BAD_SEQ = "bad_seq"
    BAD_STREAM_KEY = "bad_stream_key"
    BAD_PAYLOAD = "bad_payload"


class OversizeEnvelopeError(EnvelopeError):
    """The encoded envelope would exceed `HARD_LIMIT_BYTES`.

    Examples:
        >>> encode(Envelope(Kind.TEXT, seq=1, payload={"text": "x" * 70_000}))
        Traceback (most recent call last):
        ...
        a2a_progress.envelope.OversizeEnvelopeError: ...
    """

    __module__ = "a2a_progress.envelope"  # as EnvelopeError's, for the same reason


EnvelopeFields = tuple[Kind, int, Mapping[str, Any], Status, str | None]
"""An envelope's ``(kind, seq, payload, status, stream_key)``, as `decode_fields` gives them."""


class _Unfrozen:
    """`Envelope`'s slots, in its layout, without its frozen ``__setattr__``: `_new_envelope`
    fills one with plain attribute stores, then makes it an `Envelope` by ``__class__``
    assignment (allowed between classes of the same slots and base)."""

    __slots__ = Envelope.__slots__


def _new_envelope(fields: EnvelopeFields) -> Envelope:
    """An `Envelope` of fields the decoder has already checked, without a second validation
    pass. This runs once per envelope received: six stores through the slots' own descriptors
    (what object.__setattr__ ends up doing) cost ~1 k instructions each, as calls of a
    method-wrapper; an unfrozen object's stores are bytecode (~2.8 k saved per envelope). One
    tuple argument: the canonical reading's own (a call with ``*fields`` is a dearer call)."""
    envelope: Any = _Unfrozen()  # a call of the class: cheaper than object.__new__(_Unfrozen)
    envelope.kind, envelope.seq, payload, envelope.status, envelope.stream_key = fields
    envelope.payload = MappingProxyType(payload)
    envelope.v = ENVELOPE_VERSION
    envelope.__class__ = Envelope
    decoded: Envelope = envelope
    return decoded


@dataclass(frozen=True, slots=True)
class Rejected:
    """The outcome of decoding something that is not a usable envelope.

    Examples:
        >>> decode("not json")
        Rejected(reason=<RejectReason.NOT_JSON: 'not_json'>, detail=...)
    """

    reason: RejectReason
    detail: str


def encode(envelope: Envelope) -> str:
    """Encode as one compact JSON string (UTF-8, no ASCII escaping).

    Raises `OversizeEnvelopeError` when the result exceeds `HARD_LIMIT_BYTES`, and
    `EnvelopeError` when an extra payload value has no JSON form (NaN, a set, ...).

    Examples:
        >>> encode(Envelope(Kind.THINKING, seq=1, payload={"text": "Check CI first."}))
        '{"v":1,"kind":"thinking","seq":1,"status":"running","payload":{"text":"Check CI first."}}'
    """
    try:
        text = _ENCODER.encode(envelope.to_wire())
    except (TypeError, ValueError) as exc:
        raise EnvelopeError(f"payload is not JSON-serializable: {exc}") from None
    # A character is at most 4 UTF-8 bytes: shorter text cannot be over, so is not measured
    # (measuring non-ASCII text means encoding it).
    if len(text) * 4 > HARD_LIMIT_BYTES:
        size = utf8_size(text)
        if size > HARD_LIMIT_BYTES:
            raise OversizeEnvelopeError(
                f"encoded envelope is {size} bytes (limit {HARD_LIMIT_BYTES})"
            )
    return text


def utf8_size(text: str) -> int:
    """UTF-8 byte length of ``text``, without encoding when the answer is plain."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


# Lookups by wire string; from_wire() checks for str first (a list or object is unhashable).
_KINDS: Final[Mapping[str, Kind]] = {kind.value: kind for kind in Kind}
# The kinds whose payload is one string "text" and nothing else required or optional: decode()
# checks those inline (thinking and text are most envelopes that are not tool calls).
_TEXT_ONLY: Final = frozenset(
    kind for kind, fields in PAYLOAD_FIELDS.items() if fields == (("text",), ())
)
_STATUSES: Final[Mapping[str, Status]] = {status.value: status for status in Status}
_TOOL_CALL: Final = Kind.TOOL_CALL
# A string of at most this many characters cannot exceed HARD_LIMIT_BYTES in UTF-8.
_SURELY_UNDER: Final = HARD_LIMIT_BYTES // 4


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(literal: str) -> float:
    # 1e999 is valid JSON grammar but parses to inf, which encode() can never write back.
    value = float(literal)
    if not math.isfinite(value):
        raise ValueError(f"{literal} is out of the float range")
    return value


# Built once: json.dumps / json.loads given options build a new encoder or decoder per call,
# which costs about as much as coding a small envelope.
_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_DECODER: Final = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)
# The decoder's own scanner, which its decode() runs (the C one; it honours parse_constant and
# parse_float). typeshed does not declare the attribute.
_SCAN: Final[Callable[[str, int], tuple[Any, int]]] = _DECODER.scan_once  # type: ignore[attr-defined]
# The scanner's own string reader (the C one, as the scanner's: same escapes, strictness,
# errors); typeshed does not declare it either.
_SCAN_STRING: Final[Callable[[str, int], tuple[str, int]]] = json.decoder.scanstring  # type: ignore[attr-defined]


# The form encode() writes, up to the payload's first string value, for the kinds v1 sends
# (tool_output_append is reserved): fixed keys in encode()'s order, no whitespace, v 1, a
# streamKey without escapes, a seq of at most 18 digits, and the payload's first field. Every
# text it matches is a prefix of valid JSON whose fields decode() would accept as they stand; the
# payload's strings are read by the JSON scanner's own string reader (escapes, strictness and
# errors exactly as the scanner's), and what follows must be exactly as encode() writes it.
# Anything else goes the general way. Matching this is ~2 k instructions cheaper than the
# scanner's building and the checks of each field (one received envelope of two is a tool call).
_CANONICAL_HEAD: Final = re.compile(
    r'\{"v":1,"kind":"(thinking|text|tool_call|error)",(?:"streamKey":"([^"\\\x00-\x1f]*)",)?'
    r'"seq":(-?(?:0|[1-9][0-9]{0,17})),"status":"(running|done|aborted)",'
    r'"payload":\{"(text|message|tool)":"'
)
# Which payload field each kind's canonical form starts with (the only one, or "tool").
_FIRST_FIELD: Final = {"thinking": "text", "text": "text", "error": "message", "tool_call": "tool"}
_CALL_ID: Final = ',"tool_call_id":"'
_CALL_ID_LENGTH: Final = len(_CALL_ID)
_CLOSE: Final = "}}"


def _canonical(data: str) -> EnvelopeFields | None:
    """The fields of ``data`` in the form encode() writes it (see _CANONICAL_HEAD), else None
    (then it is read the general way, for the same answer)."""
    head = _CANONICAL_HEAD.match(data)
    if head is None:
        return None
    kind, stream_key, seq, status, field = head.groups()
    if _FIRST_FIELD[kind] != field:
        return None
    try:
        value, end = _SCAN_STRING(data, head.end())
        if data[end:] == _CLOSE:
            payload = {field: value}
        elif field == "tool" and data.startswith(_CALL_ID, end):
            call_id, end = _SCAN_STRING(data, end + _CALL_ID_LENGTH)
            if data[end:] != _CLOSE:
                return None
            payload = {field: value, "tool_call_id": call_id}
        else:
            return None
    except ValueError:  # a string the scanner rejects: the general way says why
        return None
    return _KINDS[kind], int(seq), payload, _STATUSES[status], stream_key


def decode(data: object) -> Envelope | Rejected:
    """Decode the value of ``metadata["tfrs"]``. Never raises.

    Returns the `Envelope`, or `Rejected` with the reason it is not one.

    Examples:
        >>> decode('{"v":1,"kind":"text","seq":4,"status":"running","payload":{"text":"red"}}')
        Envelope(kind=<Kind.TEXT: 'text'>, seq=4, payload=mappingproxy({'text': 'red'}), ...)
        >>> decode(42).reason
        <RejectReason.NOT_A_STRING: 'not_a_string'>
    """
    # The common case first, in as few Python steps as it takes (this runs for every envelope
    # a caller receives): a str short enough that it cannot be oversize (every character is at
    # most 4 UTF-8 bytes), one JSON object from its first character to its last, and every field
    # as v1 writes it. Anything else, whatever went wrong, is decoded again by _decode() for its
    # exact answer and reason.
    if type(data) is not str or len(data) > _SURELY_UNDER:
        return _decode(data)
    fields = _canonical(data)
    if fields is not None:
        return _new_envelope(fields)
    return _scanned(data)


def decode_fields(data: object) -> EnvelopeFields | Rejected:
    """`decode`, for a reader that needs only the envelope's fields (a turn nobody records only
    counts it): the same verdict, and for an envelope its ``(kind, seq, payload, status,
    stream_key)`` without the `Envelope` (making one is ~1/6 of decoding the common form).
    ``payload`` is not to be changed.

    Examples:
        >>> decode_fields('{"v":1,"kind":"text","seq":4,"status":"done","payload":{"text":"red"}}')
        (<Kind.TEXT: 'text'>, 4, {'text': 'red'}, <Status.DONE: 'done'>, None)
    """
    if type(data) is str and len(data) <= _SURELY_UNDER:
        fields = _canonical(data)
        if fields is not None:
            return fields
        envelope = _scanned(data)
    else:
        envelope = _decode(data)
    if isinstance(envelope, Rejected):
        return envelope
    return envelope_fields(envelope)


def envelope_fields(envelope: Envelope) -> EnvelopeFields:
    """``envelope``'s ``(kind, seq, payload, status, stream_key)``: what `decode_fields` gives
    for it, for a reader that has the `Envelope` already (e.g. the producer's own)."""
    return envelope.kind, envelope.seq, envelope.payload, envelope.status, envelope.stream_key


def _scanned(data: str) -> Envelope | Rejected:
    """`decode` of a str not in the canonical form (nor too long to be under the size limit):
    the JSON scanner's reading, checked field by field."""
    try:
        obj, end = _SCAN(data, 0)
        if end != len(data) or type(obj) is not dict:
            return _decode(data)
        # The decoder makes only exact JSON types (dict, list, str, int, float, bool, None), so
        # `type(x) is int` is _from_wire()'s "an int, not a bool" and a str is hashable.
        version, seq, payload = obj["v"], obj["seq"], obj["payload"]
        kind, status = _KINDS[obj["kind"]], _STATUSES[obj["status"]]
    except (StopIteration, ValueError, RecursionError, KeyError, TypeError):
        return _decode(data)
    stream_key = obj.get("streamKey")
    if (
        version == ENVELOPE_VERSION
        and type(version) is int
        and type(seq) is int
        and (stream_key is None or type(stream_key) is str)
        and type(payload) is dict
        and (
            type(payload.get("text")) is str
            if kind in _TEXT_ONLY
            else (  # payload_problem() of a tool call, inlined: half of all envelopes
                type(payload.get("tool")) is str
                and ((call_id := payload.get("tool_call_id")) is None or type(call_id) is str)
            )
            if kind is _TOOL_CALL
            else payload_problem(kind, payload) is None
        )
    ):
        # The payload dict is the decoder's own, referenced nowhere else: no copy needed.
        return _new_envelope((kind, seq, payload, status, stream_key))
    return _from_wire(obj, copy_payload=False)


def _decode(data: object) -> Envelope | Rejected:
    """`decode` of any value: the checks in the order that gives each its reason."""
    if not isinstance(data, str):
        return Rejected(RejectReason.NOT_A_STRING, f"envelope is a {type(data).__name__}")
    # Every character is at least one UTF-8 byte, so a long string is oversize without encoding.
    if len(data) > HARD_LIMIT_BYTES or (
        len(data) > _SURELY_UNDER and utf8_size(data) > HARD_LIMIT_BYTES
    ):
        return Rejected(RejectReason.OVERSIZE, f"envelope over {HARD_LIMIT_BYTES} bytes")
    try:
        obj = _DECODER.decode(data)
    except StopIteration:
        # The scanner's "no JSON value here" (at any depth), which raw_decode() raises as this.
        return Rejected(RejectReason.NOT_JSON, json.JSONDecodeError.__name__)
    except (ValueError, RecursionError) as exc:
        return Rejected(RejectReason.NOT_JSON, type(exc).__name__)
    if not isinstance(obj, dict):
        return Rejected(RejectReason.NOT_AN_OBJECT, f"envelope is a JSON {type(obj).__name__}")
    return _from_wire(obj, copy_payload=False)


def from_wire(obj: Mapping[str, Any]) -> Envelope | Rejected:
    """Validate a decoded wire object. Never raises."""
    return _from_wire(obj, copy_payload=True)


def _from_wire(obj: Mapping[str, Any], *, copy_payload: bool) -> Envelope | Rejected:
    version = obj.get("v")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        return Rejected(RejectReason.BAD_VERSION, "v must be a positive int")
    if version > ENVELOPE_VERSION:
        return Rejected(RejectReason.UNKNOWN_VERSION, f"v={version} is newer than v1")
    raw_kind, raw_status = obj.get("kind"), obj.get("status")
    kind = _KINDS.get(raw_kind) if isinstance(raw_kind, str) else None
    if kind is None:
        return Rejected(RejectReason.BAD_KIND, "unknown kind")
    status = _STATUSES.get(raw_status) if isinstance(raw_status, str) else None
    if status is None:
        return Rejected(RejectReason.BAD_STATUS, "unknown status")
    seq = obj.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool):
        return Rejected(RejectReason.BAD_SEQ, "seq must be an int")
    stream_key = obj.get("streamKey")
    if stream_key is not None and not isinstance(stream_key, str):
        return Rejected(RejectReason.BAD_STREAM_KEY, "streamKey must be a string")
    payload = obj.get("payload")
    if not isinstance(payload, dict):
        return Rejected(RejectReason.BAD_PAYLOAD, "payload must be an object")
    problem = payload_problem(kind, payload)
    if problem:
        return Rejected(RejectReason.BAD_PAYLOAD, problem)
    # A caller's own object is copied so no one else holds a mutable reference to the payload.
    return _new_envelope(
        (kind, seq, dict(payload) if copy_payload else payload, status, stream_key)
    )


def truncate_utf8(text: str, limit: int) -> str:
    """The longest prefix of ``text`` within ``limit`` UTF-8 bytes, never cutting a character."""
    data = text.encode("utf-8", "surrogatepass")[:limit]
    # Not decode(errors="ignore"): that also drops lone surrogates (text decoded with
    # "surrogateescape"), so the result would not be a prefix, or be empty for ever.
    # An incremental decoder holds back only a character cut at the end.
    return codecs.getincrementaldecoder("utf-8")("surrogatepass").decode(data, final=False)


def split_text(text: str, limit: int = SOFT_LIMIT_BYTES) -> list[str]:
    """Split ``text`` into pieces of at most ``limit`` UTF-8 bytes, by lines first.

    Whole lines are packed together while they fit; a single line longer than ``limit`` is cut at
    character boundaries. Joining the pieces gives back ``text`` exactly. Empty text is one piece.

    Examples:
        >>> split_text("first line\\nsecond line\\n", limit=12)
        ['first line\\n', 'second line\\n']
    """
    if limit < 4:
        raise ValueError("limit must leave room for one UTF-8 character (4 bytes)")
    if utf8_size(text) <= limit:
        return [text]
    pieces: list[str] = []
    current: list[str] = []
    current_size = 0
    for whole_line in text.splitlines(keepends=True):
        line = whole_line
        size = utf8_size(line)
        if current and current_size + size > limit:
            pieces.append("".join(current))
            current, current_size = [], 0
        while size > limit:
            head = truncate_utf8(line, limit)
            pieces.append(head)
            line = line[len(head) :]
            size = utf8_size(line)
        if line:
            current.append(line)
            current_size += size
    if current:
        pieces.append("".join(current))
    return pieces
