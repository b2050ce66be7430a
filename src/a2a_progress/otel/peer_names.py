"""Peer names (tools, stream keys, call ids) for spans, without redacting the same name twice.

`peer_name` runs the redactor over every new name (~5 us,
whatever its length). Most names come back: tool names every turn, a call's key with each of
its updates, and, with both sides in one process, on the other side too.
"""

from __future__ import annotations

import re
from typing import Final

from a2a_progress.otel.config import NAME_MAX_LENGTH
from a2a_progress.otel.safe_text import NAME_WINDOW, bounded, peer_name
from a2a_progress.producer.handoff import redacted_by
from a2a_progress.redaction import DEFAULT_REDACTOR, MASK, Redactor
from a2a_progress.redaction.clean_names import CleanNames

# Names found clean kept (tool names repeat across turns; a call's key on the other side when
# both sides share a process): see CleanNames.
_CLEAN_NAMES_SIZE: Final = 4096
# A UUID as Python writes it (a2a-sdk's task, context and message ids): hex, which the built-in
# redactor never masks (tests/otel/test_peer_names.py checks it). Unique, so never remembered.
_UUID: Final = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class PeerNames:
    """`peer_name` under one redactor, remembering the names it leaves unchanged (by the rule
    of `CleanNames`: none for a redactor of a subclass of your own)."""

    __slots__ = ("_clean", "_redactor")

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._clean = CleanNames(redactor, _CLEAN_NAMES_SIZE)

    def __contains__(self, text: str) -> bool:
        """Whether ``text`` is known to be a name the redactor leaves unchanged."""
        return text in self._clean

    def name(self, text: str, *, own: bool = False) -> str:
        """``peer_name(text, redactor)``.

        ``own``: ``text`` may come from this process's emitter (the callee's side): one it has
        just put through the same redactor is not scanned again (see `own_name`).
        """
        if text in self._clean:
            return text
        if self._redactor is DEFAULT_REDACTOR and _UUID.fullmatch(text) is not None:
            return text
        known = own_name(text) if own and self._redactor is DEFAULT_REDACTOR else None
        return self._clean.note(text, peer_name(text, self._redactor) if known is None else known)


def own_name(text: str) -> str | None:
    """``peer_name(text, DEFAULT_REDACTOR)`` without a scan, for a text an emitter of this
    process has just put through that redactor and found clean; else None.

    Masking is idempotent (tests/otel/test_sampling.py checks it on the credential corpus): the
    redactor leaves its own output as it is. peer_name() scans the name whole when it fits its
    window and is valid UTF-8 (else a cut or escaped copy, not known to be left as it is), then
    bounds it.
    """
    if MASK in text or redacted_by(text) is not DEFAULT_REDACTOR:
        return None
    window, cut = bounded(text, NAME_WINDOW)
    if cut or window != text:
        return None
    return bounded(text, NAME_MAX_LENGTH)[0]
