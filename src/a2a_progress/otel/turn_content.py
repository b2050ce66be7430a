"""A turn's texts as telemetry may carry them: redacted, bounded, and kept for its reply.

With content capture on (``capture_content``), each recorded envelope's text goes on its span
event redacted with the stream it belongs to in mind (kind, stream key: a secret split across
updates is still found) and bounded to ``content_max_length``; the turn's reasoning and text are
kept for its ``gen_ai.output.messages``. Any turn's error message goes through `safe_text`.
"""

from __future__ import annotations

from typing import Any

from a2a_progress.envelope import Kind
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.config import BridgeConfig
from a2a_progress.otel.content import Collected, output_messages
from a2a_progress.otel.metrics import TurnCounts
from a2a_progress.otel.safe_text import bounded, redacted
from a2a_progress.producer.handoff import redacted_by
from a2a_progress.redaction import DEFAULT_REDACTOR, MASK
from a2a_progress.redaction.stream import Redacts, StreamRedactor

__all__ = ["Stream", "TurnContent"]

Stream = tuple[Kind, str | None]
"""A stream of content: the kind and stream key of its envelopes."""


class TurnContent:
    """One turn's redaction state and collected output.

    Args:
        config: the bridge's settings (redactor, content_max_length, max_events_per_span).
        counts: the turn's envelope counts (a masked text counts as ``redacted``).
        own_texts: the texts may come from this process's own emitter (see `put`).
    """

    __slots__ = ("_config", "_counts", "_own_texts", "_streams", "output", "reply")

    def __init__(self, config: BridgeConfig, counts: TurnCounts, *, own_texts: bool) -> None:
        self._config = config
        self._counts = counts
        self._own_texts = own_texts
        # Content redacted per stream (kind, stream key): a secret split across updates.
        self._streams: dict[Stream, StreamRedactor] = {}
        # The turn's reasoning and text, and its reply, for gen_ai.output.messages.
        self.output = Collected(config.max_events_per_span, config.content_max_length)
        self.reply: str | None = None

    def safe_text(self, text: str, stream: Stream | None = None) -> tuple[str, bool, bool]:
        """``text`` redacted and bounded; and whether it was cut, and whether anything was masked.

        Text that fits in an envelope is redacted whole (see `redacted`); a piece of a
        stream (kind, stream key) with the stream's pieces before it in mind.
        """
        redactor: Redacts = self._config.redactor if stream is None else self._stream(stream)
        text, cut, masked = redacted(text, self._config.content_max_length, redactor)
        return text, cut, masked > 0

    def _stream(self, stream: Stream) -> StreamRedactor:
        found = self._streams.get(stream)
        if found is None:
            found = self._streams[stream] = StreamRedactor(self._config.redactor)
        return found

    def put(self, attributes: dict[str, Any], text: str, stream: Stream | None = None) -> str:
        """Set ``text`` (safe) as the content in ``attributes``; return what was set."""
        if self._own_texts and MASK not in text and redacted_by(text) is DEFAULT_REDACTOR:
            # Our own emitter put this very text through the built-in patterns a moment ago and
            # masked nothing in it. Masking is idempotent (tests/otel/test_sampling.py checks it
            # on the credential corpus), so a second scan would find nothing either.
            text, cut = bounded(text, self._config.content_max_length)
            if stream is not None:
                self._stream(stream).passed(text)
        else:
            text, cut, masked = self.safe_text(text, stream)
            if masked:
                self._counts.outcome(conv.OUTCOME_REDACTED)
        attributes[conv.CONTENT] = text
        if cut:
            attributes[conv.CONTENT_TRUNCATED] = True
        return text

    def messages(self, state: int | None) -> str | None:
        """The turn's ``gen_ai.output.messages`` (None: nothing to say)."""
        return output_messages(self.output, self.reply, state, self._config.content_max_length)
