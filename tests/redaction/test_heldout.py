"""The held-out corpus (``support/redaction_heldout.py``), written before the redactor was tuned
and never tuned against: floors on what it masks and alters, per family and overall, and masking
twice changes nothing on every text of it. A floor that fails is a class of miss to understand,
not a case to add a pattern for."""

from __future__ import annotations

from collections import defaultdict

import pytest

from a2a_progress.redaction import DEFAULT_REDACTOR
from support.redaction_corpus import CORPUS_HELDOUT, FALSE_POSITIVES
from support.redaction_heldout import HELDOUT, HELDOUT_LOOKALIKES
from support.redaction_score import leaks, score


def test_the_held_out_corpus_is_large_and_new() -> None:
    assert len(HELDOUT) >= 140
    assert len(HELDOUT_LOOKALIKES) >= 100
    assert len({case.id for case in HELDOUT}) == len(HELDOUT)
    for case in HELDOUT:
        assert case.secret in case.text, case.id
        for kept in case.kept:
            assert kept in case.text, case.id


def test_most_held_out_credentials_are_masked_and_few_look_alikes_altered() -> None:
    result = score(DEFAULT_REDACTOR.redact, HELDOUT, HELDOUT_LOOKALIKES)
    assert result.recall >= 0.93, result.leaked
    assert result.false_positive_rate <= 0.10, result.changed


def test_every_family_is_mostly_masked() -> None:
    by_family: dict[str, list[bool]] = defaultdict(list)
    for case in HELDOUT:
        by_family[case.family].append(not leaks(DEFAULT_REDACTOR.redact(case.text), case.secret))
    for family, masked in by_family.items():
        assert sum(masked) / len(masked) >= 0.6, family


def test_the_corpus_set_aside_is_masked_whole() -> None:
    result = score(DEFAULT_REDACTOR.redact, CORPUS_HELDOUT, FALSE_POSITIVES[3::4])
    assert (result.leaked, result.changed) == ([], [])


@pytest.mark.parametrize("text", [case.text for case in HELDOUT] + HELDOUT_LOOKALIKES)
def test_masking_twice_changes_nothing(text: str) -> None:
    once = DEFAULT_REDACTOR.redact(text)
    assert DEFAULT_REDACTOR.redact(once) == once
