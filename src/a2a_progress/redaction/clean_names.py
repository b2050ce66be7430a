"""Names a redactor left as they are, remembered so that the next sighting costs a dict lookup.

A tool's name comes back with every call of that tool in every turn, a call's key with each of
its updates: the emitter and the OpenTelemetry bridge each keep a `CleanNames` of those.

The rule, the same for both:

- only a name the redactor returned unchanged is kept: a name holding a credential is masked
  from the name itself every time, and no credential outlives the call that sent it in process
  memory;
- only for a `Redactor` itself, whose answer is a function of the text alone (its patterns are
  fixed when it is built). A subclass may mask by state of its own (a secret it learns later):
  it is asked every time, and nothing it answers is kept.
"""

from __future__ import annotations

from a2a_progress.redaction.redactor import Redactor


class CleanNames:
    """The names ``redactor`` left unchanged, at most ``size`` of them (cleared when full).

    A dict cleared when full: safe to share between threads and turns without a lock.
    """

    __slots__ = ("_kept", "_remembers", "_size")

    def __init__(self, redactor: Redactor | None, size: int) -> None:
        self._kept: dict[str, None] = {}
        self._size = size
        self._remembers = type(redactor) is Redactor

    def __contains__(self, name: str) -> bool:
        """Whether ``name`` is known to come out of the redactor unchanged."""
        return name in self._kept

    def note(self, name: str, redacted: str) -> str:
        """``redacted``, what the redactor made of ``name``; ``name`` is kept when it came out
        unchanged (and the redactor's answers may be kept)."""
        if redacted == name and self._remembers:
            kept = self._kept
            if len(kept) >= self._size:
                kept.clear()
            kept[name] = None
        return redacted
