"""Trying each pattern only where it can start finds what trying it everywhere finds.

The redactor runs its patterns only at the positions `a2a_progress.redaction.starts` and the
context pass work out from the literals of a text; a position missing there would let a
credential through, so the result is checked against a scan of every position: on every
corpus text, and on text generated from the pieces the patterns are made of.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_progress.redaction import DEFAULT_REDACTOR, Redactor, context
from support.redaction_corpus import CORPUS, FALSE_POSITIVES
from support.redaction_heldout import HELDOUT, HELDOUT_LOOKALIKES

# An extra pattern (one that never matches) makes the redactor scan every position.
EVERYWHERE = Redactor(extra_patterns=["(?!x)x"])

_PIECES = st.sampled_from(
    [
        "password", "pwd", "secret", "token", "api_key", "auth", "sessionid", "bearer ", "Bearer ",
        "login ", "-u ", "-p", "-P ", "--token ", "--pass=", "x-api-key", "api key", "key=",
        "name: ", "value: ", '"Name"', '"Value": ', "<name>", "<value>", "<password>", "</",
        "echo ", "| docker login --password-stdin", "mysql -uroot -p", "redis-cli -a ",
        "/usr/bin/", "Authorization: ", "Cookie: ", "sid=", "; Path=/", "://", "@", "/", ":5432:",
        "ghp_", "AKIA", "sk-", "eyJ", "-----BEGIN PRIVATE KEY-----", ":AA", "1Q~", "=", ":", " ",
        "\t", "\n", '"', "'", "(", ")", ",", ";", "|", ".", "_", "x", "Q7zP2Lk9Xv4Rt8Wm3Nb6",
        "12345678", "é", "\u0131", "\u0130", "\u212a", "\u017f",
    ]
)  # fmt: skip
_TEXTS = [case.text for case in CORPUS + HELDOUT] + FALSE_POSITIVES + HELDOUT_LOOKALIKES


def _agrees(text: str) -> None:
    assert DEFAULT_REDACTOR.redact_counted(text) == EVERYWHERE.redact_counted(text)
    assert context.mask_in_context(text) == context.mask_in_context(text, scan_all=True)


def test_every_corpus_text_is_masked_as_by_a_scan_of_every_position() -> None:
    for text in _TEXTS:
        _agrees(text)


@settings(max_examples=1500, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_generated_text_is_masked_as_by_a_scan_of_every_position(text: str) -> None:
    _agrees(text)


def test_text_that_lowers_apart_is_masked_as_by_a_scan_of_every_position() -> None:
    # Found by the generated test: "\u0130" lowers to "i" and a combining dot, which no
    # pattern's name admits, so the pre-scan of the lowered text ruled the pair out.
    for text in (
        "passwordİ=pwd",
        "pa\u017f\u017fword=hunter2x",
        "p\u0131d: \u017fecret",
        "Tokenİ: Q7zP2Lk9Xv4Rt8Wm3Nb6",
    ):
        _agrees(text)
    assert DEFAULT_REDACTOR.redact_counted("passwordİ=pwd") == ("passwordİ=[REDACTED]", 1)
