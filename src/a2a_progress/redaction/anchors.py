"""Where a pattern can start: found with substring searches, so its regex runs only there.

Python's regex engine tries an alternation at every position of a text; a pattern that starts
with a look-behind and a run of name characters costs that try at every word. Most positions
cannot start a match: a credential's name must hold a credential word, a command its name.
`Anchors` finds every occurrence of a few literals in the text (lowered once, ``str.find`` in
C), from which a caller works out the few positions where each of its patterns could start;
`first_matches` then tries each pattern alone, only at its own positions, in order, which
finds exactly the matches ``finditer`` of their alternation would, provided the positions
include every start of a match (each module that uses this says why its positions do).

Case: the patterns fold case as Python's ``re`` does, which is ``str.lower`` except for two
letters (the dotless i, U+0131, and the long s, U+017F, which ``re`` folds to i and s) and
for characters whose lower case is longer; a text holding any of those is scanned whole
(`Anchors.exact` is False).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

# Read reversed: the run of characters just before a position.
_NAME_RUN: Final = re.compile(r"[\w.-]*")


class Anchors:
    """A text, lowered once, and the positions found in it."""

    __slots__ = ("_last_run", "_lowered_reversed", "_reversed", "exact", "lowered", "text")

    def __init__(self, text: str, lowered: str) -> None:
        self.text = text
        self.lowered = lowered
        self.exact = len(lowered) == len(text) and (
            text.isascii() or ("\u0131" not in text and "\u017f" not in text)
        )
        self._last_run: dict[re.Pattern[str], tuple[int, int]] = {}
        self._reversed = ""
        self._lowered_reversed = ""

    @property
    def lowered_reversed(self) -> str:
        """The lowered text, reversed (made once): to search from a literal back."""
        if not self._lowered_reversed:
            self._lowered_reversed = self.lowered[::-1]
        return self._lowered_reversed

    def hits(self, word: str) -> list[int]:
        """Every position of ``word`` (lower case) in the lowered text."""
        find = self.lowered.find
        at = find(word)
        found: list[int] = []
        while at != -1:
            found.append(at)
            at = find(word, at + 1)
        return found

    def run_start(self, at: int, limit: int, run: re.Pattern[str] = _NAME_RUN) -> int:
        """The first position of the run of ``run``'s characters (a class, starred) that ends
        at ``at``, at most ``limit`` characters back (``at - limit`` when the run is longer)."""
        # One match over the text reversed (made once): the cost is the run's length.
        size = len(self.text)
        if not self._reversed and size:
            self._reversed = self.text[::-1]
        found = run.match(self._reversed, size - at, size - max(0, at - limit))
        return at if found is None else size - found.end()

    def whole_run_start(self, at: int, run: re.Pattern[str]) -> int:
        """`run_start` without a limit. Linear over increasing ``at`` (the hits of one word):
        a run already walked is not walked again."""
        last = self._last_run.get(run)
        if last is not None and last[0] <= at and run.fullmatch(self.text, last[0], at):
            start = last[1]
        else:
            start = self.run_start(at, at, run)
        self._last_run[run] = (at, start)
        return start

    def line_start(self, at: int) -> int:
        return self.text.rfind("\n", 0, at) + 1


def first_matches(
    patterns: tuple[re.Pattern[str], ...], text: str, starts: set[tuple[int, int]]
) -> Iterator[re.Match[str]]:
    """The matches of the alternation of ``patterns`` (in that order), trying each only at
    its own ``(position, index)`` pairs in ``starts`` (which must hold every match's)."""
    pos = 0
    for start, index in sorted(starts):
        if start < pos:
            continue
        found = patterns[index].match(text, start)
        if found is not None:
            yield found
            pos = max(found.end(), start + 1)
