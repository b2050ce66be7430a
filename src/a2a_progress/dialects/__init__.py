"""Consumer-side dialects: the progress of agents that do not send the envelope.

Many A2A agents already say what they do in their own way. A dialect reader turns one such
update into synthetic v1 envelopes, so `a2a_progress.follow`, ``a2a-progress watch``
and the instrumentor show their tool calls and thoughts with no change to the agent:

- ``adk``: Google ADK (``to_a2a()``): thoughts, ``function_call`` / ``function_response``
  DataParts paired by id (a response with an ``error`` closes the call ``aborted``).
- ``gemini-cli``: Gemini CLI's ``development-tool`` extension: ``ToolCall`` objects resent
  whole (consumed once), their live output as chunks, ``AgentThought`` as thinking.

An update that carries an envelope is never read as a dialect. Which dialects are on:
the ``dialects`` argument of `ProgressAssembler` / `follow`, else
the ``A2A_PROGRESS_DIALECTS`` environment variable (``none``, ``all``, or names separated by
commas), else all of them.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from a2a_progress.dialects.adk import NAME as NAME_ADK
from a2a_progress.dialects.adk import AdkReader, is_thought
from a2a_progress.dialects.base import DialectReader, SeqCounter, fallback_text
from a2a_progress.dialects.gemini_cli import GeminiCliReader
from a2a_progress.envelope import Envelope
from a2a_progress.sdk.views import PartView

DIALECTS_ENV: Final = "A2A_PROGRESS_DIALECTS"
"""Environment variable that picks the dialects when no argument does."""

_READERS: Final[dict[str, Callable[[], DialectReader]]] = {
    AdkReader.name: AdkReader,
    GeminiCliReader.name: GeminiCliReader,
}

DIALECT_NAMES: Final = tuple(_READERS)
"""Every known dialect, in the order an update is offered to them."""

_NONE: Final = frozenset({"none", "off", "false", "0"})


def is_progress_part(part: PartView, dialects: frozenset[str]) -> bool:
    """Whether an enabled dialect reads ``part`` as progress only (e.g. an ADK thought).

    Newer ADK sends thoughts in artifact updates too: read as ``thinking``, they are not also
    the reply.
    """
    return NAME_ADK in dialects and is_thought(part)


def resolve_dialects(dialects: str | Iterable[str] | None = None) -> frozenset[str]:
    """The dialects to read: ``dialects`` if given, else `DIALECTS_ENV`, else all.

    A string holds names separated by commas or spaces; ``none`` (or ``off``) means no
    dialect, ``all`` every one. Unknown names are ignored. Never raises.
    """
    if dialects is None:
        dialects = os.environ.get(DIALECTS_ENV, "all")
    if isinstance(dialects, str):
        return _dialects_named(dialects)  # every assembler asks: a string is read once
    return _dialects_of(list(dialects))


@functools.lru_cache(maxsize=64)
def _dialects_named(names: str) -> frozenset[str]:
    return _dialects_of(names.replace(",", " ").split())


def _dialects_of(names: list[Any]) -> frozenset[str]:
    wanted = {str(name).strip().lower() for name in names}
    if not wanted or "all" in wanted:
        return frozenset() if wanted & _NONE else frozenset(DIALECT_NAMES)
    return frozenset(name for name in DIALECT_NAMES if name in wanted)


@dataclass(frozen=True, slots=True)
class DialectReading:
    """What a dialect made of one update: its name and the new envelopes (maybe none)."""

    dialect: str
    envelopes: tuple[Envelope, ...]


class TurnDialects:
    """The dialect readers of one turn, created when first needed; never raises.

    One ``seq`` counter serves all of them, so their envelopes never collide on a stream.
    """

    __slots__ = ("_counter", "_enabled", "_readers")

    def __init__(self, enabled: frozenset[str]) -> None:
        self._enabled = [name for name in DIALECT_NAMES if name in enabled]
        self._readers: dict[str, DialectReader] = {}
        self._counter = SeqCounter()

    def read(
        self,
        parts: Sequence[PartView],
        *,
        metadata: Sequence[Mapping[str, Any]] = (),
        artifact: bool = False,
    ) -> DialectReading | None:
        """Offer one update to each enabled dialect; the first that knows it wins.

        ``metadata``: every metadata object of the update (the event's, the message's or
        the artifact's). None when no dialect recognises the update.
        """
        for name in self._enabled:
            reader = self._readers.get(name)
            if reader is None:
                reader = self._readers[name] = _READERS[name]()
            try:
                envelopes = reader.read(parts, metadata, self._counter, artifact=artifact)
            except Exception:  # noqa: BLE001 - a peer's bytes must never break the caller
                envelopes = None
            if envelopes is not None:
                return DialectReading(name, tuple(envelopes))
        return None


__all__ = [
    "DIALECTS_ENV",
    "DIALECT_NAMES",
    "DialectReader",
    "DialectReading",
    "TurnDialects",
    "fallback_text",
    "is_progress_part",
    "resolve_dialects",
]
