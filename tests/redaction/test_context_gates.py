"""The context pass's gate: a text it turns away holds no shape the pass could mask.

`context.possible` is a few substring searches; a shape runs only on a text it accepts. So
every literal a shape's matches must hold (its credential words, with what must stand beside
them) has to pass the gate, or a text naming only that word is never scanned: "bearer",
"signature" and glued names ("AccessKey", "primaryKey") were such words once. The literals are
derived from the shapes' own regexes (`support.redaction_literals`), so a shape added later with
a word the gate lacks fails here, not in production.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_progress.redaction import context
from a2a_progress.redaction.values import NAME_WORDS
from support.redaction_corpus import CORPUS, FALSE_POSITIVES
from support.redaction_literals import GAP, skeletons


@pytest.mark.parametrize("name", [name for name, _ in context.SHAPES])
def test_the_gate_accepts_every_literal_a_shape_holds(name: str) -> None:
    found = skeletons(dict(context.SHAPES)[name], context.possible)
    missed = sorted(s.replace(GAP, "…") for s in found if not context.possible(s))
    assert not missed, missed[:20]


def test_the_gate_accepts_every_credential_word() -> None:
    words = skeletons(NAME_WORDS)
    assert {"bearer", "_signature", "accesskey", "primarymasterkey"} <= {
        word.strip(GAP).replace(GAP, "…") for word in words
    }
    assert all(context.possible(word) for word in words)


def test_a_text_naming_only_such_a_word_is_masked() -> None:
    for text, value in (
        ("x_signature  Sg4Lm9Xv2Kr7Tw3Zn8Bj1", "Sg4Lm9Xv2Kr7Tw3Zn8Bj1"),
        ("AccessKey    Hunter2!xyz9", "Hunter2!xyz9"),
        ("X-Bearer | Hunter2!xyz9", "Hunter2!xyz9"),
        ("primaryKey: |\n  Hunter2!xyz9\n", "Hunter2!xyz9"),
        ("tool --adminpass\tHunter2!x9", "Hunter2!x9"),
        ("echo 'Hunter2!x9' | podman login -u bob quay.io", "Hunter2!x9"),
    ):
        masked, count = context.mask_in_context(text)
        assert value not in masked, masked
        assert count == 1


_PIECES = st.sampled_from(
    [
        "password", "Passwd", "passphrase", "pass", "PASS", "pwd", "pw", "secret", "token", "api",
        "key", "KEY", "access", "Primary", "store", "sess", "sessionid", "credential",
        "identified", "securestring", "auth", "bearer", "signature", "name", "value", "echo ",
        "| docker login --password-stdin", "-p", "-P", "--pw ", "/", "@", "(", ")", "=", ":",
        " ", "\t", "\n", '"', "'", ",", "|", "_", "-", ".", "x", "Q7zP2Lk9Xv4Rt8Wm3Nb6",
        "S3cr3t!x", "12345678",
    ]
)  # fmt: skip


def _check(text: str) -> None:
    if not context.possible(text.lower()):
        assert context.mask_in_context(text, scan_all=True) == (text, 0), text


@settings(max_examples=1500, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_a_text_the_gate_turns_away_holds_nothing_to_mask(text: str) -> None:
    _check(text)


def test_a_corpus_text_the_gate_turns_away_holds_nothing_to_mask() -> None:
    for text in [case.text for case in CORPUS] + FALSE_POSITIVES:
        _check(text)
