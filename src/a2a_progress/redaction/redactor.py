"""The `Redactor`: every pass of the package, in order, over one text.

The package's docstring (`a2a_progress.redaction`) is the decision procedure; this module runs
it. A literal pre-scan (`prescan.py`) skips the vendor-shape and label patterns for text that
cannot hold any; otherwise each pattern is tried alone, only at the positions where one of its
literals says a match can start (`starts.py`, `anchors.py`), in the order of their alternation,
which finds exactly what the alternation's scan of every position finds. The context pass is
run the same way, and the decoding and randomness passes have cheap gates of their own (an
escape sign, a word of 20 characters or more).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

from a2a_progress.redaction import context, decoding, gitleaks, prescan, unlabelled
from a2a_progress.redaction.anchors import Anchors, first_matches
from a2a_progress.redaction.patterns import (
    BUILTIN_PATTERNS,
    COMMAND_PATTERNS,
    TOKEN_SHAPES,
    TOKEN_START,
)
from a2a_progress.redaction.starts import ORDER, pattern_starts
from a2a_progress.redaction.values import MASK

__all__ = ["DEFAULT_REDACTOR", "Redactor"]

# Passes over a text in which a mask touched a word: each can uncover one more token glued to a
# masked one (see Redactor._masked); bounded so that hostile text stays linear.
_MAX_PASSES: Final = 3
# Patterns whose kept part runs over a command's arguments (up to 24 of them) to the secret's
# flag: a credential among those arguments ("redis-cli --token T -a P", "http --auth U:P URL
# … -a …", another command on the same line) is inside the match, so only the next pass,
# where this one no longer matches, masks it.
_KEEPS_ARGUMENTS: Final = frozenset({"tool_password"})
# A masked value that held one of these (a shell operator, a line break) joins what they parted,
# so the arguments of a command before it may now reach its secret's flag: scan again.
_PARTS_ARGUMENTS: Final = re.compile(r"[<>|;&\r\n]")

# No built-in token shape is shorter (an AWS key id is 20 characters): a kept name shorter than
# this plus its separator cannot hide one.
_SHORTEST_TOKEN: Final = 16
_GLOBAL_FLAGS: Final = re.compile(r"\A\(\?([aiLmsux]+)\)")


def _scoped(pattern: str) -> str:
    """``(?i)x`` as ``(?i:x)``: global flags are only legal at the start of the whole regex."""
    re.compile(pattern)  # a bad pattern fails here, naming itself rather than the alternation
    flags = _GLOBAL_FLAGS.match(pattern)
    if flags is None:
        return pattern
    return f"(?{flags.group(1)}:{pattern[flags.end() :]})"


def _named(patterns: Iterable[tuple[str, str]]) -> str:
    return "|".join(f"(?P<{name}>{pattern})" for name, pattern in patterns)


class Redactor:
    """Masks credentials in text with `MASK`.

    Args:
        extra_patterns: more regular expressions whose whole match is masked.
        enabled: ``False`` makes `redact` return its input unchanged.
        rules: gitleaks rules applied after the built-in passes (see `from_gitleaks`).

    Examples:
        >>> Redactor().redact("curl -H 'Authorization: Bearer abc123def456ghi789'")
        "curl -H 'Authorization: [REDACTED]'"
        >>> Redactor(extra_patterns=["ticket-[0-9]+"]).redact("see ticket-4812")
        'see [REDACTED]'
    """

    __slots__ = (
        "_always_scan", "_common_regex", "_enabled", "_keep_groups", "_regex", "_rules", "_shapes",
        "_singles",
    )  # fmt: skip

    def __init__(
        self,
        extra_patterns: Iterable[str] = (),
        *,
        enabled: bool = True,
        rules: gitleaks.Rules | None = None,
    ) -> None:
        extras = [(f"extra_{i}", _scoped(pattern)) for i, pattern in enumerate(extra_patterns)]
        common = [_named(BUILTIN_PATTERNS), f"{TOKEN_START}(?:{_named(TOKEN_SHAPES)})"]
        if extras:
            common.append(_named(extras))
        # Every pattern, and all but the command patterns (for text without their literals).
        self._regex = re.compile("|".join([*common, _named(COMMAND_PATTERNS)]))
        self._common_regex = re.compile("|".join(common))
        # Each alternative alone, in starts.ORDER: tried only where it can start.
        singles = {name: re.compile(_named([(name, pattern)])) for name, pattern in
                   (*BUILTIN_PATTERNS, *COMMAND_PATTERNS)}  # fmt: skip
        singles["tokens"] = re.compile(f"{TOKEN_START}(?:{_named(TOKEN_SHAPES)})")
        self._singles = tuple(singles[name] for name in ORDER)
        # The patterns that keep nothing: vendor and token shapes, which a kept name can hide.
        self._shapes = re.compile(
            "|".join(
                [
                    _named((name, p) for name, p in BUILTIN_PATTERNS if "_keep>" not in p),
                    singles["tokens"].pattern,
                ]
            )
        )
        self._keep_groups = {
            name: f"{name}_keep"
            for name, pattern in (*BUILTIN_PATTERNS, *COMMAND_PATTERNS, *extras)
            if f"<{name}_keep>" in pattern
        }
        self._enabled = enabled
        # Extra patterns have no known literal: with any, every text is scanned.
        self._always_scan = bool(extras)
        self._rules = rules

    @classmethod
    def from_gitleaks(
        cls, path: str | Path, extra_patterns: Iterable[str] = (), *, enabled: bool = True
    ) -> Redactor:
        """The built-in passes and the rules and allow-lists of the gitleaks TOML file at
        ``path``. Raises `gitleaks.RulesError`, naming the rule, for a rule Python's ``re``
        cannot compile or a file that is not a gitleaks configuration."""
        return cls(extra_patterns, enabled=enabled, rules=gitleaks.Rules.load(path))

    @property
    def enabled(self) -> bool:
        """Whether this redactor masks anything."""
        return self._enabled

    def _replace(self, match: re.Match[str]) -> str:
        name = match.lastgroup or ""
        keep_group = self._keep_groups.get(name)
        return (match.group(keep_group) if keep_group else "") + MASK

    def _scanner(self, text: str) -> re.Pattern[str] | None:
        """The regex that finds every credential ``text`` can hold, or None: it holds none."""
        if not self._enabled:
            return None
        if self._always_scan:
            return self._regex
        possible = prescan.patterns_possible(text, alone=True)
        if possible == prescan.ANY:
            return self._regex
        return self._common_regex if possible == prescan.COMMON else None

    def names_nothing(self, text: str) -> bool:
        """Whether ``text`` holds nothing that could make a text after it a credential: no
        credential word or vendor literal any pass looks for, no rule of yours. A stream's
        piece after such a text is redacted alone (see `stream.StreamRedactor`)."""
        if not self._enabled:
            return True
        if self._always_scan or self._rules is not None:
            return False
        return prescan.patterns_possible(text) == prescan.NONE and not context.possible(
            text.lower()
        )

    def redact(self, text: str) -> str:
        """Return ``text`` with every credential masked."""
        return self._masked(text)[0]

    def redact_counted(self, text: str) -> tuple[str, int]:
        """Like `redact`, and also return how many credentials were masked."""
        return self._masked(text)

    def _masked(self, text: str) -> tuple[str, int]:
        if not self._enabled:
            return text, 0
        masked, count = self._by_patterns(text)
        masked, found = context.mask_in_context(masked)
        count += found
        long_words = unlabelled.has_long_word(text)
        if long_words or "%" in text or "&" in text or "\\" in text:
            masked, found = decoding.mask_encoded(text, masked, self._without_decoding)
            count += found
        if long_words:
            masked, found = unlabelled.mask_random(masked)
            count += found
        if self._rules is not None:
            masked, found = self._rules.mask(masked)
            count += found
        return masked, count

    def _without_decoding(self, text: str) -> tuple[str, int]:
        """Every pass but decoding: what a decoded view of a text is redacted with."""
        masked, count = self._by_patterns(text)
        masked, found = context.mask_in_context(masked)
        count += found
        if unlabelled.has_long_word(masked):
            masked, found = unlabelled.mask_random(masked)
            count += found
        return masked, count

    def _by_patterns(self, text: str) -> tuple[str, int]:
        # A mask can put a word boundary where there was none: a token glued to a masked one
        # ("…-3dapi…") only starts a match once that one is masked; a credential among the
        # arguments a command's match keeps is only found once that match is gone, and a
        # command's flag only once a masked "<", ";" or line break no longer parts it from the
        # command. So when a pass masked something touching a word character, kept a command's
        # arguments or masked such a character, the text is scanned again (a few times at
        # most, to stay linear), counting only what the new pass changes.
        regex = self._scanner(text)
        if regex is None:
            return text, 0
        masked, count, glued = self._pass(regex, text, count_every_match=True)
        for _ in range(_MAX_PASSES - 1):
            if not glued:
                break
            masked, new, glued = self._pass(regex, masked, count_every_match=False)
            count += new
        return masked, count

    def _pass(
        self, regex: re.Pattern[str], text: str, *, count_every_match: bool
    ) -> tuple[str, int, bool]:
        """One scan of ``text``: the result, how many matches it counted, and whether a match
        it changed touched a word character, kept a command's arguments or masked a shell
        operator or a line break (then another pass may find more)."""
        counted = 0
        glued = False
        # Only the command patterns keep arguments or stop at a shell operator.
        commands = regex is not self._common_regex

        def replace(match: re.Match[str]) -> str:
            nonlocal counted, glued
            replacement = self._replace(match)
            changed = replacement != match.group()
            counted += count_every_match or changed
            if changed and not glued:
                # The masked part starts after the kept name and separator, if any.
                start, end = match.start() + len(replacement) - len(MASK), match.end()
                glued = (
                    (start > 0 and _joins(text[start - 1]))
                    # A credential glued inside the name a match keeps ("PASSWORDghp_…: x"):
                    # that match hid it; the next pass, where the pair's value is a mask and
                    # no longer matches, finds it.
                    or self._kept_hides_shape(text, match.start(), start)
                    or (end < len(text) and _joins(text[end]))
                    or (
                        commands
                        and (
                            _unparts(text, start, end)
                            or (
                                match.lastgroup in _KEEPS_ARGUMENTS
                                and _may_hide(regex, text, match.start(), start)
                            )
                        )
                    )
                )
            return replacement

        return self._substituted(regex, replace, text), counted, glued

    def _kept_hides_shape(self, text: str, begin: int, start: int) -> bool:
        """Whether a vendor or token shape starts inside the name a match kept
        (``text[begin:start]``): that match hid it. Only names long enough to hold one."""
        if start - begin < _SHORTEST_TOKEN:
            return False
        if prescan.patterns_possible(text[begin:start], alone=True) == prescan.NONE:
            return False
        return self._shapes.search(text, begin, start) is not None

    def _substituted(
        self, regex: re.Pattern[str], replace: Callable[[re.Match[str]], str], text: str
    ) -> str:
        """``regex.sub(replace, text)``; for the built-in patterns, tried only where one of
        them can start (`starts.pattern_starts`)."""
        if self._always_scan:
            return regex.sub(replace, text)
        anchors = Anchors(text, text.lower())
        if not anchors.exact:
            return regex.sub(replace, text)
        # The common regex leaves out the command patterns.
        starts = pattern_starts(anchors, commands=regex is not self._common_regex)
        pieces: list[str] = []
        last = 0
        for match in first_matches(self._singles, text, starts):
            pieces.append(text[last : match.start()])
            pieces.append(replace(match))
            last = match.end()
        if not pieces:
            return text
        pieces.append(text[last:])
        return "".join(pieces)


def _may_hide(regex: re.Pattern[str], text: str, begin: int, start: int) -> bool:
    """Whether a match starts among the arguments a command's match kept (``text[begin:start]``,
    after the command's name) on their line: without this one, the next pass may mask it."""
    name_end = begin
    while name_end < start and not text[name_end].isspace():
        name_end += 1
    line_end = text.find("\n", start)
    hidden = regex.search(text, name_end, len(text) if line_end == -1 else line_end)
    return hidden is not None and hidden.start() < start


def _unparts(text: str, start: int, end: int) -> bool:
    """Whether masking ``text[start:end]`` removes a shell operator or a line break that may
    have stopped the arguments of a command before it on its line (the pre-scan says whether
    one can be there)."""
    if _PARTS_ARGUMENTS.search(text, start, end) is None:
        return False
    line = text.rfind("\n", 0, start) + 1
    return prescan.patterns_possible(text[line:start]) == prescan.ANY


def _joins(char: str) -> bool:
    """Whether ``char`` beside a match keeps a neighbouring token from starting or ending
    there (the patterns' look-arounds test for these characters)."""
    return char.isalnum() or char in "_-.~+"


DEFAULT_REDACTOR: Final = Redactor()
"""The redactor used when none is given: every built-in pattern, on."""
