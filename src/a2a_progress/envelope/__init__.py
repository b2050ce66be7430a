"""The v1 progress envelope: its value type, and the codec to and from its one JSON string.

This package knows the wire schema and nothing else: no A2A types, no OpenTelemetry. Its parts:
`model` (`Envelope`, its kinds, statuses and size limits) and `codec` (`encode`,
`decode`, which never raises: any input gives an `Envelope` or a `Rejected` that says why, so
a reader can always degrade to the text fallback; `decode_fields` for a reader that needs only
the fields; and the UTF-8 sizing and splitting of text).
"""

from a2a_progress.envelope.codec import (
    EnvelopeFields,
    OversizeEnvelopeError,
    Rejected,
    RejectReason,
    decode,
    decode_fields,
    encode,
    envelope_fields,
    from_wire,
    split_text,
    truncate_utf8,
    utf8_size,
)
from a2a_progress.envelope.model import (
    ENVELOPE_VERSION,
    HARD_LIMIT_BYTES,
    SOFT_LIMIT_BYTES,
    Envelope,
    EnvelopeError,
    Kind,
    Status,
)

__all__ = [
    "ENVELOPE_VERSION",
    "HARD_LIMIT_BYTES",
    "SOFT_LIMIT_BYTES",
    "Envelope",
    "EnvelopeError",
    "EnvelopeFields",
    "Kind",
    "OversizeEnvelopeError",
    "RejectReason",
    "Rejected",
    "Status",
    "decode",
    "decode_fields",
    "encode",
    "envelope_fields",
    "from_wire",
    "split_text",
    "truncate_utf8",
    "utf8_size",
]
