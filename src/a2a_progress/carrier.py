"""Where an envelope lives on the A2A wire: ``Part(text=fallback, metadata={"tfrs": ...})``.

The wire rules every SDK line shares, with no a2a-sdk import: the metadata key, and the
characters a Part must not carry raw. The installed line's adapter
(`a2a_progress.sdk.adapter`) builds the Part with them and reads it back
(`a2a_progress.sdk.adapter.envelope_part`, `a2a_progress.sdk.adapter.view_event`).
"""

from __future__ import annotations

from typing import Final

from a2a_progress.envelope import HARD_LIMIT_BYTES, OversizeEnvelopeError, utf8_size

TFRS_KEY: Final = "tfrs"
"""The fixed metadata key that carries the envelope."""

# a2a-sdk 1.3's SSE client splits lines like str.splitlines(), so also at U+0085, U+2028 and
# U+2029, which JSON leaves unescaped: one of them anywhere in a Part cuts the event in two and
# kills the whole JSON-RPC or REST stream. Envelopes carry them as JSON escapes (the same string
# once decoded); plain text gets a newline, which is what they mean.
_LINE_BREAKS: Final = ("\x85", "\u2028", "\u2029")
_JSON_ESCAPES: Final = str.maketrans({char: f"\\u{ord(char):04x}" for char in _LINE_BREAKS})
_NEWLINES: Final = str.maketrans(dict.fromkeys(_LINE_BREAKS, "\n"))


def _has_line_break(text: str) -> bool:
    # None of them is ASCII; three substring searches in C, where translate() looks every
    # character up in its table (~17 k instructions for 260 ASCII characters, ~300 k for 470
    # Chinese ones, against ~1.4 k and ~4.6 k).
    return not text.isascii() and ("\x85" in text or "\u2028" in text or "\u2029" in text)


def wire_text(text: str) -> str:
    """``text`` as a Part carries it: every transport delivers it intact (see `_LINE_BREAKS`)."""
    return text.translate(_NEWLINES) if _has_line_break(text) else text


def wire_envelope(envelope_json: str) -> str:
    """An encoded envelope as ``metadata["tfrs"]`` carries it (line separators escaped).

    Raises `OversizeEnvelopeError` when escaping took the envelope over
    `HARD_LIMIT_BYTES`.
    """
    if not _has_line_break(envelope_json):
        return envelope_json
    escaped = envelope_json.translate(_JSON_ESCAPES)
    if utf8_size(escaped) > HARD_LIMIT_BYTES:
        raise OversizeEnvelopeError(f"escaped envelope is over {HARD_LIMIT_BYTES} bytes")
    return escaped


__all__ = ["TFRS_KEY", "wire_envelope", "wire_text"]
