"""What text from a peer may put on a span: redacted, bounded, valid UTF-8.

Every name, id and content value the bridge records passes through here: OTLP carries only
UTF-8 (exporters drop a value that is not), int64 and bounded strings, and a peer's text may
quote a credential.
"""

from __future__ import annotations

from typing import Final

from a2a_progress.envelope import HARD_LIMIT_BYTES, truncate_utf8, utf8_size
from a2a_progress.otel.config import NAME_MAX_LENGTH
from a2a_progress.redaction import Redactor
from a2a_progress.redaction.stream import Redacts

__all__ = ["NAME_WINDOW", "TRUNCATION_MARKER", "bounded", "peer_name", "redacted"]

TRUNCATION_MARKER: Final = "...truncated"
# Bytes dropped before a cut made ahead of redaction (see redacted()).
_CUT_SLACK: Final = 1024
NAME_WINDOW: Final = NAME_MAX_LENGTH + _CUT_SLACK
"""The head of a name `peer_name` redacts (UTF-8 bytes): a longer name is cut first."""


def bounded(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` UTF-8 bytes with a marker; and whether it was cut.

    A lone surrogate (what a JSON ``"\\ud800"`` escape decodes to) comes out as that escape:
    OTLP carries only UTF-8, and its exporters drop a value that is not.
    """
    if text.isascii():
        if len(text) <= limit:
            return text, False
    else:
        try:
            size = len(text.encode("utf-8"))
        except UnicodeEncodeError:
            text = text.encode("utf-8", "backslashreplace").decode("utf-8")
            size = len(text.encode("utf-8"))
        if size <= limit:
            return text, False
    return truncate_utf8(text, limit - len(TRUNCATION_MARKER)) + TRUNCATION_MARKER, True


def redacted(
    text: str, limit: int, redactor: Redacts, window: int = HARD_LIMIT_BYTES
) -> tuple[str, bool, int]:
    """``text`` redacted and bounded; whether it was cut, and how many credentials were masked.

    Text within ``window`` bytes is redacted whole, then cut (after: a mask can add bytes).
    Longer text is cut to ``window`` first to bound the regex work; that cut can split a
    credential so its pattern no longer matches, and masks before it can pull the piece under
    ``limit``: the last ``_CUT_SLACK`` bytes before the cut are dropped.
    """
    text, cut = bounded(text, window)
    text, masked = redactor.redact_counted(text)
    if cut:
        keep = min(limit, utf8_size(text) - _CUT_SLACK) - len(TRUNCATION_MARKER)
        return truncate_utf8(text, max(0, keep)) + TRUNCATION_MARKER, True, masked
    text, cut = bounded(text, limit)
    return text, cut, masked


def peer_name(text: str, redactor: Redactor) -> str:
    """A name or id the peer chose (tool, stream key, task id), for a span: masked, bounded.

    Only a head of a long name is redacted: a 64 KiB stream key would cost a regex pass over it
    for every event of its stream.
    """
    return redacted(text, NAME_MAX_LENGTH, redactor, NAME_WINDOW)[0]
