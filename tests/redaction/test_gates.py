"""The pre-scan's gates: a text they rule out holds no match of the patterns they stand for.

`a2a_progress.redaction.prescan` skips the redactor's patterns for a text that holds none of
their literals, and skips whole groups of literals for a text that lacks what every member of
the group holds (a character, a long run). Nothing else would notice a member that does not
hold its group's gate, or a pattern that can match without what its gate asks for: the
credential would simply go through. So each gate is checked here, against the patterns
themselves, not against another copy of the tables.
"""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_progress.redaction import Redactor, prescan, unlabelled
from a2a_progress.redaction.patterns import (
    BUILTIN_PATTERNS,
    COMMAND_PATTERNS,
    TOKEN_SHAPES,
    TOKEN_START,
)
from support.redaction_corpus import CORPUS, FALSE_POSITIVES
from support.redaction_heldout import HELDOUT, HELDOUT_LOOKALIKES

_COMMON = [re.compile(pattern) for _, pattern in BUILTIN_PATTERNS] + [
    re.compile(f"{TOKEN_START}(?:{pattern})") for _, pattern in TOKEN_SHAPES
]
_COMMANDS = [re.compile(pattern) for _, pattern in COMMAND_PATTERNS]
ALWAYS_SCANS = Redactor(["(?!)"])


# Members whose match holds the gate though the literal does not: Slack's "xoxb-…", Square's
# "sq0atp-…", Shopify's "shpat_…", a JWT's "eyJ….eyJ…", Teams' "…/webhookb2/…" (checked on
# generated text below, as are the command groups' gates: a flag, a separator).
_GATED_BY_THEIR_SHAPE = {
    ("-", "xox"), ("-", "sq0"), ("_", "shp"), (".", "eyj"), ("/", "webhookb2"),
}  # fmt: skip


def test_every_member_of_a_literal_group_holds_its_gate() -> None:
    for gate, members in (*prescan.TOKEN_TRIGGERS, *prescan.TRIGGERS, *prescan.PAIR_WORDS):
        for member in members:
            assert gate in member or (gate, member) in _GATED_BY_THEIR_SHAPE, (gate, member)
    for gates, members in prescan.COMMAND_TRIGGERS:
        # A gate its members do not hold is a character or a flag every match of their
        # pattern holds: checked on generated text below.
        assert all(len(gate) <= 2 for gate in gates if any(gate not in m for m in members))


def _literals() -> list[str]:
    words = {word for _, group in prescan.TOKEN_TRIGGERS + prescan.TRIGGERS for word in group}
    words |= {word for _, group in prescan.PAIR_WORDS + prescan.COMMAND_TRIGGERS for word in group}
    words |= {word for word, *_ in prescan.HEADERS}
    return sorted(words)


_WORDS = _literals()
# Each literal as the text writes it (lower, upper, title case), the characters the gates ask
# for, the flags the command patterns end with, and runs long enough for a vendor token.
_PIECES = st.sampled_from(
    [
        *_WORDS, *(word.upper() for word in _WORDS), *(word.title() for word in _WORDS),
        " ", "  ", "\t", "\n", "=", ":", "-", "--", "<", ">", "/", "\\\\", "\\", "_", ".", "~",
        ";", "%", "*", "@", "?", "&", "#", '"', "'", "$", "-a ", "-p", "-P ", "-w ", "-b ", "-N ",
        "-U ", "-u ", "--body ", "/user:", "login ", "password ", "Path=/", "; Secure", "5432",
        "AA", "Q~", "1Q~", "AKIA", "AC", "SK", "0123456789abcdef0123456789abcdef",
        "q7Zp2Lk9Xv4Rt8Wm3Nb6Yc1Q7zP2Lk9Xv4Rt8Wm3Nb6Yc1Ab", "YWxpY2U6czNjcjN0", "xyz", "Hunter2!",
        "12345678", "é", "\u0131", "\u017f", "\u212a", "用户",
    ]
)  # fmt: skip


def _holds_no_match(patterns: list[re.Pattern[str]], text: str) -> bool:
    return all(pattern.search(text) is None for pattern in patterns)


def _rules_out_what_it_should(text: str) -> None:
    for alone in (False, True):
        possible = prescan.patterns_possible(text, alone=alone)
        if possible != prescan.ANY:
            assert _holds_no_match(_COMMANDS, text), (text, alone)
        if possible == prescan.NONE:
            assert _holds_no_match(_COMMON, text), (text, alone)


@settings(max_examples=3000, deadline=None)
@given(st.lists(_PIECES, max_size=24).map("".join))
def test_what_the_gates_rule_out_holds_no_match_in_generated_text(text: str) -> None:
    _rules_out_what_it_should(text)


def test_what_the_gates_rule_out_holds_no_match_in_the_corpora() -> None:
    texts = [case.text for case in CORPUS + HELDOUT] + FALSE_POSITIVES + HELDOUT_LOOKALIKES
    for text in texts:
        for cut in range(0, len(text), 7):
            for piece in (text[:cut], text[cut:]):
                _rules_out_what_it_should(piece)
                _rules_out_what_it_should(piece.upper())


@settings(max_examples=2000, deadline=None)
@given(
    st.text(
        st.sampled_from(" \t\n\x0b\x0c\r\x1c\x1f\x85\xa0\u2000\u3000ab0-=é用\ud800"), max_size=60
    ),
    st.integers(1, 24),
)
def test_the_long_word_test_agrees_with_the_words(text: str, length: int) -> None:
    expected = max(map(len, text.split()), default=0) >= length
    assert unlabelled.has_long_word(text, length) == expected


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=24).map("".join))
def test_a_text_the_pre_scan_rules_out_is_masked_as_by_a_full_scan(text: str) -> None:
    assert Redactor().redact_counted(text) == ALWAYS_SCANS.redact_counted(text)
