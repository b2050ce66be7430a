"""The redactor's figures: how much of the credential corpus it masks, what it changes that it
should not, and what it costs per KB of text.

Run: ``.venv/bin/python bench/bench_redaction.py`` (``--quick`` for fewer repetitions). It prints
one line per figure. The corpus is the test suite's (``tests/support/redaction_corpus.py``):

- masked/total: cases of which no 12-character piece of the secret survives;
- false positives: ordinary texts (prose, code, logs, URLs, ids) that come out changed;
- µs per KB, CPU time, median over repetitions, for text cut in ~1 KB pieces as an agent sends
  it: *clean prose* (no pre-scan literal: the fast path), *clean technical* text (code, logs and
  URLs that wake the pre-scan and hold no credential), and *secret-dense* text (the corpus).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from a2a_progress.redaction import DEFAULT_REDACTOR
from support.redaction_corpus import CORPUS, FALSE_POSITIVES

PIECE_BYTES = 1024
PROSE = (
    "The deploy stopped at the canary stage because the readiness probe failed on every pod. "
    "Looking at the logs next, then comparing the configuration with the previous release. "
    "All three smoke tests for the cart passed; the payment path is the one that fails. "
)


def _pieces(texts: Sequence[str], total_bytes: int) -> list[str]:
    """``texts`` joined by newlines and cut into ~1 KB pieces, ``total_bytes`` in all."""
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    made = 0
    while made < total_bytes:
        for text in texts:
            current.append(text)
            size += len(text.encode()) + 1
            if size >= PIECE_BYTES:
                pieces.append("\n".join(current))
                made += size
                current, size = [], 0
    return pieces


def _us_per_kb(pieces: Sequence[str], reps: int) -> float:
    kilobytes = sum(len(piece.encode()) for piece in pieces) / 1024
    samples = []
    for _ in range(reps):
        start = time.process_time()
        for piece in pieces:
            DEFAULT_REDACTOR.redact(piece)
        samples.append((time.process_time() - start) / kilobytes * 1e6)
    return statistics.median(samples)


def _leaks(text: str, secret: str, width: int = 12) -> bool:
    redacted = DEFAULT_REDACTOR.redact(text)
    return any(secret[i : i + width] in redacted for i in range(max(1, len(secret) - width + 1)))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The redactor's figures.")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    reps = 5 if parser.parse_args(argv).quick else 15
    leaked = [case.id for case in CORPUS if _leaks(case.text, case.secret)]
    changed = [text for text in FALSE_POSITIVES if DEFAULT_REDACTOR.redact(text) != text]
    total_bytes = 64 * 1024
    figures = {
        "clean prose": _us_per_kb(_pieces([PROSE], total_bytes), reps),
        "clean technical": _us_per_kb(_pieces(FALSE_POSITIVES, total_bytes), reps),
        "secret-dense": _us_per_kb(_pieces([case.text for case in CORPUS], total_bytes), reps),
    }
    print(f"masked/total      {len(CORPUS) - len(leaked)}/{len(CORPUS)}  leaked: {leaked or '-'}")
    print(f"false positives   {len(changed)}/{len(FALSE_POSITIVES)}  changed: {changed or '-'}")
    for name, value in figures.items():
        print(f"{name:<17} {value:8.1f} us/KB (CPU, median of {reps})")


if __name__ == "__main__":
    main()
