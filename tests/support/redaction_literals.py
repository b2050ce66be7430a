"""What every match of a regular expression must hold: its literal skeletons.

A redaction pass skips a text when a cheap gate (a few substring searches) says none of its
patterns can match. The gate is right only if every match holds what it looks for, and a
pattern added later with a word the gate lacks is never run on a text that names only that
word. `skeletons` reads a pattern's parse tree (``re._parser``, the standard library's own)
and returns strings that stand for its matches: each is the literals a match must hold, in
order, lowered, with `GAP` wherever a match may hold anything (a class, a run, a repeated
part). A gate that accepts every skeleton accepts every match, provided that it accepts a text
whenever it accepts a piece of it between gaps (each gate here only looks for substrings).

Look-behinds are text before what follows them; look-aheads are text too, but overlap what
follows, so they stand apart between gaps. What may be absent (a negative look-around) adds
nothing; an optional part is either absent (what stands around it joins) or there.
"""

from __future__ import annotations

import re._constants as sre
import re._parser as sre_parse
from collections.abc import Callable
from typing import Any

GAP = "\x00"
_CAP = 400_000  # skeletons per node: a node with more stands as a gap (less is then known)
_SMALL_CLASS = 12  # a class of up to this many characters is expanded, a larger one is a gap

Accepts = Callable[[str], bool]


def skeletons(pattern: str, accepts: Accepts | None = None) -> set[str]:
    """The skeletons of ``pattern``'s matches (lowered, `GAP` for unknown parts).

    With ``accepts`` (the gate, which must accept a text holding a piece it accepts), a part
    whose every skeleton the gate accepts stands as one of them: whatever surrounds it, the
    gate accepts the whole, so its other choices need not be multiplied out."""
    return _Reader(accepts).sequence(sre_parse.parse(pattern))


class _Reader:
    def __init__(self, accepts: Accepts | None) -> None:
        self._accepts = accepts

    def _collapsed(self, found: set[str]) -> set[str]:
        if self._accepts is not None and len(found) > 1 and all(map(self._accepts, found)):
            return {min(found)}
        return found

    def _product(self, left: set[str], right: set[str]) -> set[str]:
        left, right = self._collapsed(left), self._collapsed(right)
        if len(left) * len(right) > _CAP:
            return {GAP}
        return {a + b for a in left for b in right}

    def sequence(self, items: Any) -> set[str]:
        out = {""}
        for op, arg in items:
            out = self._product(out, self._item(op, arg))
        return self._collapsed({_squeezed(s) for s in out})

    def _item(self, op: Any, arg: Any) -> set[str]:
        if op is sre.LITERAL:
            return {chr(arg).lower()}
        if op is sre.IN:
            return _class(arg)
        if op is sre.SUBPATTERN:
            return self.sequence(arg[-1])
        if op is sre.ATOMIC_GROUP:
            return self.sequence(arg)
        if op is sre.BRANCH:
            return set().union(*(self.sequence(branch) for branch in arg[1]))
        if op is sre.GROUPREF_EXISTS:
            _, yes, no = arg
            return self.sequence(yes) | (self.sequence(no) if no is not None else {""})
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, body = arg
            if low == 0:
                return {""} | self.sequence(body) if high == 1 else {GAP}
            once = self.sequence(body)
            return once if low == high == 1 else {s + GAP for s in once}
        if op is sre.ASSERT:
            direction, body = arg
            inside = self.sequence(body)
            # Behind: the text just before what follows (it may overlap what precedes); ahead:
            # it overlaps what follows.
            return {GAP + s for s in inside} if direction < 0 else {GAP + s + GAP for s in inside}
        if op in (sre.ASSERT_NOT, sre.AT):
            return {""}
        return {GAP}  # any character, a category, a negated literal, a back-reference


def _squeezed(text: str) -> str:
    while GAP + GAP in text:
        text = text.replace(GAP + GAP, GAP)
    return text


def _class(arg: Any) -> set[str]:
    chars: set[str] = set()
    for op, value in arg:
        if op is sre.LITERAL:
            chars.add(chr(value).lower())
        elif op is sre.RANGE and value[1] - value[0] < _SMALL_CLASS:
            chars.update(chr(c).lower() for c in range(value[0], value[1] + 1))
        else:
            return {GAP}
    return chars if len(chars) <= _SMALL_CLASS else {GAP}
