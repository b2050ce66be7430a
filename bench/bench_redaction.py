"""The redactor's figures beside two public secret scanners, on a corpus none of them was tuned on.

Run: ``.venv/bin/python bench/bench_redaction.py`` (``--quick``: fewer repetitions). Needs the
``bench`` extra (detect-secrets, truffleHog). It prints:

- for ours, detect-secrets 1.5 (its default plugins, line by line) and truffleHog 2.2.1 (its
  regexes and its entropy test, word by word as it scans a diff): credentials masked and
  look-alikes altered on the held-out corpus (``tests/support/redaction_heldout.py``), and µs per
  KB over that corpus. A scanner only *detects*: a case counts as masked when every line holding
  a piece of the secret is flagged, a look-alike as altered when any line is (which flatters the
  scanners: a flagged line is not a masked value);
- ours on the tuning corpus and on the part of it set aside (``CORPUS_HELDOUT``);
- ours in µs per KB (CPU time, median) on clean prose (the fast path), clean technical text
  (code, logs and URLs: every pass runs and finds nothing) and credential-dense text.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from a2a_progress.redaction import DEFAULT_REDACTOR
from support.redaction_corpus import CORPUS_HELDOUT, CORPUS_TUNING, FALSE_POSITIVES, Case
from support.redaction_heldout import HELDOUT, HELDOUT_LOOKALIKES
from support.redaction_score import Score, score, windows

PIECE_BYTES = 1024
PROSE = (
    "The deploy stopped at the canary stage because the readiness probe failed on every pod. "
    "Looking at the logs next, then comparing the configuration with the previous release. "
    "All three smoke tests for the cart passed; the payment path is the one that fails. "
)

Flags = Callable[[str], bool]  # does a scanner flag this line?


def _pieces(texts: Sequence[str], total_bytes: int) -> list[str]:
    """``texts`` joined by newlines and cut into ~1 KB pieces, ``total_bytes`` in all."""
    pieces: list[str] = []
    current: list[str] = []
    size = made = 0
    while made < total_bytes:
        for text in texts:
            current.append(text)
            size += len(text.encode()) + 1
            if size >= PIECE_BYTES:
                pieces.append("\n".join(current))
                made += size
                current, size = [], 0
    return pieces


def _us_per_kb(work: Callable[[str], object], pieces: Sequence[str], reps: int) -> float:
    kilobytes = sum(len(piece.encode()) for piece in pieces) / 1024
    samples = []
    for _ in range(reps):
        start = time.process_time()
        for piece in pieces:
            work(piece)
        samples.append((time.process_time() - start) / kilobytes * 1e6)
    return statistics.median(samples)


def detect_secrets_flags() -> Flags:
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings

    def flags(line: str) -> bool:
        with default_settings():
            return any(True for _ in scan_line(line))

    return flags


def trufflehog_flags() -> Flags:
    from truffleHog import truffleHog
    from truffleHogRegexes.regexChecks import regexes

    def flags(line: str) -> bool:
        if any(regex.search(line) for regex in regexes.values()):
            return True
        for word in line.split():
            for chars, floor in ((truffleHog.BASE64_CHARS, 4.5), (truffleHog.HEX_CHARS, 3.0)):
                for found in truffleHog.get_strings_of_set(word, chars):
                    if truffleHog.shannon_entropy(found, chars) > floor:
                        return True
        return False

    return flags


def scanner_score(flags: Flags, cases: Sequence[Case], lookalikes: Sequence[str]) -> Score:
    """A line scanner's figures: a case is masked when every line with a piece of its secret is
    flagged; a look-alike altered when any of its lines is."""
    leaked = []
    for case in cases:
        pieces = windows(case.secret)
        holding = [line for line in case.text.splitlines() if any(p in line for p in pieces)]
        if not holding or not all(flags(line) for line in holding):
            leaked.append(case.id)
    changed = [text for text in lookalikes if any(flags(line) for line in text.splitlines())]
    return Score(leaked, changed, len(cases), len(lookalikes))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The redactor's figures.")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--verbose", action="store_true", help="list what leaked or changed")
    reps = 3 if parser.parse_args(argv).quick else 9
    verbose = parser.parse_args(argv).verbose
    heldout_texts = [case.text for case in HELDOUT] + HELDOUT_LOOKALIKES
    rows: list[tuple[str, Score, float]] = []
    ours = score(DEFAULT_REDACTOR.redact, HELDOUT, HELDOUT_LOOKALIKES)
    rows.append(
        (
            "a2a-progress DEFAULT_REDACTOR",
            ours,
            _us_per_kb(DEFAULT_REDACTOR.redact, heldout_texts, reps),
        )
    )
    for name, make in (
        ("detect-secrets 1.5 (line scan)", detect_secrets_flags),
        ("truffleHog 2.2.1 (regex + entropy)", trufflehog_flags),
    ):
        try:
            flags = make()
        except ImportError:
            print(f"{name}: not installed (pip install -e '.[bench]')")
            continue

        def scan(text: str, flags: Flags = flags) -> object:
            return [flags(line) for line in text.splitlines()]

        rows.append(
            (
                name,
                scanner_score(flags, HELDOUT, HELDOUT_LOOKALIKES),
                _us_per_kb(scan, heldout_texts, reps),
            )
        )
    print(
        "held-out corpus (never tuned on):",
        len(HELDOUT),
        "credentials,",
        len(HELDOUT_LOOKALIKES),
        "look-alikes",
    )
    print(f"| {'redactor':<36} | credentials masked | look-alikes altered | µs per KB |")
    print(f"|{'-' * 38}|{'-' * 20}|{'-' * 21}|{'-' * 11}|")
    for name, result, cost in rows:
        print(
            f"| {name:<36} | {result.masked}/{result.credentials} ({result.recall:.0%})"
            f" | {len(result.changed)}/{result.lookalikes} ({result.false_positive_rate:.0%})"
            f" | {cost:,.0f} |"
        )
    if verbose:
        print("leaked:", ours.leaked, "\nchanged:", ours.changed)
    plain = [t for i, t in enumerate(FALSE_POSITIVES) if i % 4 != 3]
    set_aside = [t for i, t in enumerate(FALSE_POSITIVES) if i % 4 == 3]
    print("ours, tuning corpus:   ", score(DEFAULT_REDACTOR.redact, CORPUS_TUNING, plain).line())
    print(
        "ours, corpus set aside:", score(DEFAULT_REDACTOR.redact, CORPUS_HELDOUT, set_aside).line()
    )
    total = 64 * 1024
    for name, texts in (
        ("clean prose", [PROSE]),
        ("clean technical", FALSE_POSITIVES),
        ("credential-dense", [case.text for case in HELDOUT]),
    ):
        cost = _us_per_kb(DEFAULT_REDACTOR.redact, _pieces(texts, total), reps)
        print(f"{name:<17} {cost:8.1f} us/KB (CPU, median of {reps})")


if __name__ == "__main__":
    main()
