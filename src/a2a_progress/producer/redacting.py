"""What an emitter sends, redacted: every text field and fallback, each stream of pieces as a
stream, abort reasons from exceptions bounded after masking."""

from __future__ import annotations

import logging
import re
from typing import Final

from a2a_progress.envelope import Kind
from a2a_progress.redaction import Redactor
from a2a_progress.redaction.clean_names import CleanNames
from a2a_progress.redaction.stream import StreamRedactor

logger = logging.getLogger(__name__)

_LONE_SURROGATES: Final = re.compile("[\ud800-\udfff]")

# Names a redactor left as they are (see CleanNames), per redactor, for every emitter of the
# process: a tool's name and the fallbacks made of it come back with every call of that tool,
# in every turn. A handful of redactors at most; cleared when more come.
_NAMES_KEPT: Final = 1024
_REDACTORS_KEPT: Final = 8
_clean_names: dict[Redactor, CleanNames] = {}

# An exception message in an abort reason: enough to say what went wrong (a span status shows
# 256 bytes of it), not a dump of whatever the exception carried.
_REASON_MAX_CHARS: Final = 512


def sendable(text: str) -> str:
    """``text`` with lone surrogates (from "surrogateescape" decoding) as U+FFFD.

    Protobuf refuses them: one in an update would fail the agent's ``enqueue_event``.
    """
    return text if text.isascii() else _LONE_SURROGATES.sub("\ufffd", text)


def _clean_names_of(redactor: Redactor) -> CleanNames:
    names = _clean_names.get(redactor)
    if names is None:
        if len(_clean_names) >= _REDACTORS_KEPT:
            _clean_names.clear()
        names = _clean_names[redactor] = CleanNames(redactor, _NAMES_KEPT)
    return names


class TurnRedaction:
    """One turn's redaction with ``redactor`` (None: texts are only made sendable)."""

    __slots__ = ("_names", "_streams", "redactor")

    def __init__(self, redactor: Redactor | None) -> None:
        self.redactor = redactor
        self._names = None if redactor is None else _clean_names_of(redactor)
        # Each stream of text (kind, stream key) is redacted with the pieces before it in mind.
        self._streams: dict[tuple[Kind, str | None], StreamRedactor] = {}

    def text(self, text: str) -> str:
        """``text`` redacted alone."""
        text = sendable(text)
        return text if self.redactor is None else self.redactor.redact(text)

    def name(self, text: str) -> str:
        """`text` of a name (or a fixed phrase around one); a clean one is remembered."""
        names = self._names
        if names is None:
            return sendable(text)
        return text if text in names else names.note(text, self.text(text))

    def piece(self, kind: Kind, stream_key: str | None, text: str) -> str:
        """``text`` redacted as the next piece of its stream: a secret split across pieces
        (a label, then its value; a private key line by line) is masked in each."""
        if self.redactor is None or kind is Kind.ERROR:
            return self.text(text)
        stream = self._streams.get((kind, stream_key))
        if stream is None:
            stream = self._streams[kind, stream_key] = StreamRedactor(self.redactor)
        return stream.redact(sendable(text))

    def exception_reason(self, exc: BaseException) -> str:
        """``Type: message`` for an abort reason: the message redacted, then bounded.

        Redacted before the cut: a cut could shorten a token below the length its pattern
        needs, and the rest of it would go out unmasked.
        """
        try:
            message = self.text(str(exc)).strip()
        except Exception:  # a broken __str__ must not replace the body's exception
            logger.debug("could not read the message of %r", type(exc), exc_info=True)
            message = ""
        if len(message) > _REASON_MAX_CHARS:
            message = message[:_REASON_MAX_CHARS] + "…"
        name = type(exc).__name__
        return f"{name}: {message}" if message else name
