"""How a redactor does on a credential corpus: which secrets survive, which look-alikes change.

A secret survives when any 12-character piece of it is still in the redacted text (a partial
leak is a leak). Shared by the corpus tests and ``bench/bench_redaction.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from support.redaction_corpus import Case

WINDOW = 12


def windows(secret: str, width: int = WINDOW) -> list[str]:
    """Every ``width``-character piece of ``secret`` (the whole of a shorter one)."""
    return [secret[i : i + width] for i in range(max(1, len(secret) - width + 1))]


def leaks(redacted: str, secret: str) -> bool:
    """Whether a piece of ``secret`` is still in ``redacted``."""
    return any(window in redacted for window in windows(secret))


@dataclass(frozen=True)
class Score:
    leaked: list[str]
    changed: list[str]
    credentials: int
    lookalikes: int

    @property
    def masked(self) -> int:
        return self.credentials - len(self.leaked)

    @property
    def recall(self) -> float:
        return self.masked / self.credentials if self.credentials else 1.0

    @property
    def false_positive_rate(self) -> float:
        return len(self.changed) / self.lookalikes if self.lookalikes else 0.0

    def line(self) -> str:
        return (
            f"{self.masked}/{self.credentials} masked ({self.recall:.0%}), "
            f"{len(self.changed)}/{self.lookalikes} look-alikes altered "
            f"({self.false_positive_rate:.0%})"
        )


def score(redact: Callable[[str], str], cases: Sequence[Case], lookalikes: Iterable[str]) -> Score:
    """``redact`` over ``cases`` and ``lookalikes``."""
    plain = list(lookalikes)
    leaked = [case.id for case in cases if leaks(redact(case.text), case.secret)]
    changed = [text for text in plain if redact(text) != text]
    return Score(leaked, changed, len(cases), len(plain))
