"""OTLP request bodies: protobuf or OTLP/JSON in, OTLP/JSON out, and each request's response."""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Callable
from typing import Any, Final

from google.protobuf import json_format  # type: ignore[import-untyped]
from google.protobuf.message import DecodeError, Message  # type: ignore[import-untyped]
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

__all__ = [
    "BAD_BODY",
    "ENCODINGS",
    "BodyTooLargeError",
    "ExportRequest",
    "decompress",
    "parse_request",
    "response_for",
    "to_otlp_dict",
    "to_otlp_json",
]

ExportRequest = ExportTraceServiceRequest | ExportMetricsServiceRequest | ExportLogsServiceRequest
"""An OTLP export request of any signal."""

_WBITS: Final[dict[str, int]] = {"gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}
ENCODINGS: Final = frozenset({"", "identity", *_WBITS})
"""The ``Content-Encoding`` values an OTLP/HTTP exporter may send."""


class BodyTooLargeError(ValueError):
    """A body over the receiver's limit once decompressed."""


def decompress(body: bytes, encoding: str, limit: int) -> bytes:
    """``body`` without its ``Content-Encoding`` (one of `ENCODINGS`).

    Raises:
        BodyTooLargeError: it inflates past ``limit`` bytes (a compression bomb).
        zlib.error: it is not valid gzip / deflate data.
    """
    wbits = _WBITS.get(encoding)
    if wbits is None:
        return body
    inflater = zlib.decompressobj(wbits)
    plain = inflater.decompress(body, limit)
    if inflater.unconsumed_tail:
        raise BodyTooLargeError(f"over {limit} bytes once decompressed")
    if not inflater.eof:
        raise zlib.error("truncated compressed body")
    return plain


BAD_BODY: Final = (
    DecodeError,
    json_format.ParseError,
    ValueError,
    OSError,
    EOFError,
    zlib.error,
    RecursionError,
)
"""What a malformed, truncated, mis-encoded or over-deep body raises while it is decompressed
and parsed (an id of the wrong length is a `ValueError` too)."""

_RESPONSES: Final[dict[type[Message], type[Message]]] = {
    ExportTraceServiceRequest: ExportTraceServiceResponse,
    ExportMetricsServiceRequest: ExportMetricsServiceResponse,
    ExportLogsServiceRequest: ExportLogsServiceResponse,
}
_JSON_KINDS: Final[dict[type, str]] = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true or false",
    type(None): "null",
}
# OTLP/JSON writes these ids as hex, where protobuf's JSON mapping of bytes is base64.
_ID_FIELDS: Final = frozenset({"traceId", "spanId", "parentSpanId"})


def parse_request(request_type: type[ExportRequest], body: bytes, is_json: bool) -> ExportRequest:
    """Parse a decompressed body as ``request_type``, from protobuf or OTLP/JSON.

    Raises:
        Exception: one of `BAD_BODY` when the body is not such a request.
    """
    request = request_type()
    if not is_json:
        request.ParseFromString(body)
        return request
    try:
        document = json.loads(body)
    except RecursionError:
        raise ValueError("the JSON body nests too deeply") from None
    if not isinstance(document, dict):
        raise ValueError(f"the JSON body is {_JSON_KINDS.get(type(document))}, not an object")
    _convert_ids(document, _hex_to_base64)
    # OTLP/JSON receivers must ignore fields they do not know.
    json_format.ParseDict(document, request, ignore_unknown_fields=True)
    return request


def response_for(request: ExportRequest, rejected: int = 0, message: str = "") -> Message:
    """The response to an export request: all accepted, or ``rejected`` items (spans, points or
    log records) dropped and ``message`` saying why, as the OTLP ``partial_success``."""
    response = _RESPONSES[type(request)]()
    if rejected or message:
        partial = response.partial_success
        partial.error_message = message
        for field in partial.DESCRIPTOR.fields:
            if field.name.startswith("rejected_"):
                setattr(partial, field.name, rejected)
    return response


def to_otlp_dict(request: ExportTraceServiceRequest) -> dict[str, Any]:
    """``request`` as an OTLP/JSON document (see `to_otlp_json`)."""
    document: dict[str, Any] = json_format.MessageToDict(request, use_integers_for_enums=True)
    _convert_ids(document, _base64_to_hex)
    return document


def to_otlp_json(request: ExportTraceServiceRequest) -> str:
    """``request`` in the OTLP/JSON encoding, on one line.

    camelCase field names, enums as integers, trace and span ids as lowercase hex: as the
    collector's ``otlpjsonfile`` receiver reads it.
    """
    return json.dumps(to_otlp_dict(request), separators=(",", ":"))


def _convert_ids(document: Any, convert: Callable[[str], str]) -> None:
    """Rewrite every trace / span id string in a JSON document in place (its own stack: a
    document may nest as deep as its sender likes)."""
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in _ID_FIELDS and isinstance(value, str):
                    node[key] = convert(value)
                elif isinstance(value, dict | list):
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(item for item in node if isinstance(item, dict | list))


def _hex_to_base64(value: str) -> str:
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise ValueError(f"an id is not hex: {value[:40]!r}") from None
    return base64.b64encode(raw).decode("ascii")


def _base64_to_hex(value: str) -> str:
    return base64.b64decode(value).hex()
