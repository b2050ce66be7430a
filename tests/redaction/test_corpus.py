"""Credential corpus: realistic text an agent prints, in every common way a credential is written.

Each case names the part that must never survive redaction (a partial leak is a leak, so no
12-character piece of it may survive either); the exact output is not pinned, so a change of
mask style does not break the corpus. The false-positive set is ordinary prose, code, logs and
URLs that must come through byte for byte. ``bench/bench_redaction.py`` reports the same corpus
as figures (masked/total, false positives, µs per KB).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_progress.redaction import DEFAULT_REDACTOR, MASK, Redactor
from support.redaction_corpus import CORPUS, FALSE_POSITIVES, FALSE_POSITIVES_ADDED, Case


def _windows(secret: str, width: int = 12) -> list[str]:
    return [secret[i : i + width] for i in range(max(1, len(secret) - width + 1))]


def test_the_corpus_is_large_and_covers_every_family() -> None:
    assert len(CORPUS) >= 60
    assert len(FALSE_POSITIVES) >= 40
    families = {case.family for case in CORPUS}
    assert families >= {
        "header", "pair", "json", "yaml", "env", "cli", "connection-string", "url",
        "query", "cookie", "webhook", "aws", "gcp", "azure", "vendor", "jwt", "pem",
    }  # fmt: skip
    assert len({case.text for case in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("case", CORPUS, ids=[case.id for case in CORPUS])
def test_no_part_of_a_secret_survives(case: Case) -> None:
    assert case.secret in case.text  # the table is right about what it hides
    redacted, count = DEFAULT_REDACTOR.redact_counted(case.text)
    for window in _windows(case.secret):
        assert window not in redacted, f"{window!r} survived in {redacted!r}"
    assert MASK in redacted
    assert count >= 1
    # What is left still reads: the name of what was masked is kept where there is one.
    for kept in case.kept:
        assert kept in redacted
    assert DEFAULT_REDACTOR.redact(redacted) == redacted  # masking twice changes nothing


def test_masking_twice_changes_nothing_in_context() -> None:
    # A shell operator or a line after a masked value: the second scan must not find a shorter
    # match that takes the operator too (the callee's bridge relies on a second scan's no-op).
    for case in CORPUS:
        sample = f"see {case.text}; then\n{case.text} && again"
        once = DEFAULT_REDACTOR.redact(sample)
        assert DEFAULT_REDACTOR.redact(once) == once, case.id


@pytest.mark.parametrize("text", FALSE_POSITIVES + FALSE_POSITIVES_ADDED)
def test_ordinary_text_comes_through_unchanged(text: str) -> None:
    assert DEFAULT_REDACTOR.redact_counted(text) == (text, 0)


# -- the pre-scan -------------------------------------------------------------------------------

# An extra pattern that never matches makes a redactor scan every text: what the pre-scan skips
# must be exactly what the full scan would leave unchanged.
ALWAYS_SCANS = Redactor(["(?!)"])
PIECES = [case.text for case in CORPUS] + FALSE_POSITIVES + FALSE_POSITIVES_ADDED


@pytest.mark.parametrize("text", PIECES)
def test_the_pre_scan_skips_nothing_the_scan_would_mask(text: str) -> None:
    # Every cut of the text too: a prefix or suffix may hold a pattern without its usual context.
    for cut in range(0, len(text), 3):
        for piece in (text[:cut], text[cut:]):
            assert DEFAULT_REDACTOR.redact(piece) == ALWAYS_SCANS.redact(piece)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES) | st.text(max_size=12), max_size=4), st.integers(0, 200))
def test_pre_scan_agrees_and_masking_twice_changes_nothing(parts: list[str], cut: int) -> None:
    text = " ".join(parts)
    for piece in (text, text[cut:], text[:cut], text.upper(), text.lower()):
        once = DEFAULT_REDACTOR.redact(piece)
        assert once == ALWAYS_SCANS.redact(piece)
        # Masking twice changes nothing: the callee's bridge relies on it to skip a second scan
        # of what its emitter already masked.
        assert DEFAULT_REDACTOR.redact(once) == once
