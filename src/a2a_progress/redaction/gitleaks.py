"""Rules a security team already has: a gitleaks configuration file as extra redaction rules.

`Redactor.from_gitleaks <a2a_progress.redaction.Redactor.from_gitleaks>` reads a gitleaks
TOML file (Python's ``tomllib``) and masks, after the built-in passes, what its rules find:

- ``[[rules]]``: ``id``, ``regex``, ``secretGroup`` (the group that is the secret; 0 or absent:
  the first group that matched something, else the whole match), ``entropy`` (a secret at or
  below it in Shannon bits per character is left alone), ``keywords`` (the rule runs only on a
  text holding one of them, case-insensitively);
- allow-lists, global (``[allowlist]``, ``[[allowlists]]``) and per rule (``[rules.allowlist]``,
  ``[[rules.allowlists]]``): ``regexes`` (tested against the secret, or the match or the line
  with ``regexTarget``) and ``stopwords`` (a secret holding one, case-insensitively, is left
  alone).

Gitleaks' regexes are Go RE2; Python's ``re`` reads nearly all of them (``\\z`` is translated).
A rule that it cannot compile, or a file that is not a gitleaks configuration, raises
`RulesError` naming the file and the rule, when the redactor is made (at startup), never
while it redacts. Paths, ``[extend]`` and per-commit options have no meaning here and are ignored.
Every rule is the team's own: its cost on hostile text is that of its regex.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a2a_progress.redaction.values import MASK


class RulesError(ValueError):
    """A gitleaks rules file that cannot be used: the message names the file and the rule."""


def _entropy(text: str) -> float:
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in Counter(text).values()) if size else 0.0


@dataclass(frozen=True)
class Allowlist:
    """What a gitleaks allow-list lets through."""

    regexes: tuple[re.Pattern[str], ...] = ()
    stopwords: tuple[str, ...] = ()
    target: str = "secret"

    def allows(self, secret: str, match: str, line: str) -> bool:
        """Whether this allow-list lets ``secret`` (found as ``match`` on ``line``) through."""
        subject = {"match": match, "line": line}.get(self.target, secret)
        if any(regex.search(subject) for regex in self.regexes):
            return True
        lowered = secret.lower()
        return any(word in lowered for word in self.stopwords)


@dataclass(frozen=True)
class Rule:
    """One gitleaks rule."""

    id: str
    regex: re.Pattern[str]
    secret_group: int = 0
    entropy: float = 0.0
    keywords: tuple[str, ...] = ()
    allowlists: tuple[Allowlist, ...] = ()

    def secret_span(self, match: re.Match[str]) -> tuple[int, int]:
        """Where the secret is in ``match``: its secret group, else the first group that
        matched something, else the whole match."""
        if self.secret_group and self.secret_group <= (self.regex.groups or 0):
            start, end = match.span(self.secret_group)
            if start != -1:
                return start, end
        if not self.secret_group:
            for group in range(1, (self.regex.groups or 0) + 1):
                start, end = match.span(group)
                if end > start >= 0:
                    return start, end
        return match.span()


@dataclass(frozen=True)
class Rules:
    """The rules and global allow-lists of one gitleaks file."""

    rules: tuple[Rule, ...]
    allowlists: tuple[Allowlist, ...] = ()

    @classmethod
    def load(cls, path: str | Path) -> Rules:
        """The rules of the gitleaks TOML file at ``path``; `RulesError` if unusable."""
        try:
            with Path(path).open("rb") as file:
                data = tomllib.load(file)
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise RulesError(f"gitleaks rules {path}: cannot read it: {exc}") from exc
        rules = data.get("rules", [])
        if not isinstance(rules, list):
            raise RulesError(f"gitleaks rules {path}: [[rules]] is not a list of tables")
        return cls(
            tuple(_rule(path, index, entry) for index, entry in enumerate(rules)),
            _allowlists(path, "the global allowlist", data, "allowlist", "allowlists"),
        )

    def mask(self, text: str) -> tuple[str, int]:
        """``text`` with what the rules find masked (allow-lists respected), and how many."""
        if not self.rules:
            return text, 0
        lowered = text.lower()
        count = 0
        for rule in self.rules:
            if rule.keywords and not any(word in lowered for word in rule.keywords):
                continue
            spans = [
                span for match in rule.regex.finditer(text) if (span := self._hit(rule, match))
            ]
            if spans:
                pieces, last = [], 0
                for start, end in spans:
                    pieces += [text[last:start], MASK]
                    last = end
                text = "".join([*pieces, text[last:]])
                lowered = text.lower()
                count += len(spans)
        return text, count

    def _hit(self, rule: Rule, match: re.Match[str]) -> tuple[int, int] | None:
        start, end = rule.secret_span(match)
        secret = match.string[start:end]
        if not secret or MASK in secret:
            return None
        if rule.entropy and _entropy(secret) <= rule.entropy:
            return None
        text = match.string
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end)
        line = text[line_start : len(text) if line_end == -1 else line_end]
        for allowlist in (*self.allowlists, *rule.allowlists):
            if allowlist.allows(secret, match.group(), line):
                return None
        return start, end


def _compile(path: str | Path, where: str, pattern: Any) -> re.Pattern[str]:
    if not isinstance(pattern, str):
        raise RulesError(f"gitleaks rules {path}: {where}: a regex must be a string")
    try:
        return re.compile(pattern.replace(r"\z", r"\Z"))
    except re.error as exc:
        raise RulesError(
            f"gitleaks rules {path}: {where}: Python's re cannot compile {pattern!r}: {exc}"
        ) from exc


def _strings(path: str | Path, where: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise RulesError(f"gitleaks rules {path}: {where}: expected a list of strings")
    return tuple(value)


def _allowlist(path: str | Path, where: str, entry: Any) -> Allowlist:
    if not isinstance(entry, Mapping):
        raise RulesError(f"gitleaks rules {path}: {where}: an allowlist must be a table")
    regexes = _strings(path, where, entry.get("regexes", []))
    return Allowlist(
        tuple(_compile(path, f"{where}, regex {i}", r) for i, r in enumerate(regexes)),
        tuple(word.lower() for word in _strings(path, where, entry.get("stopwords", []))),
        str(entry.get("regexTarget", "secret")),
    )


def _allowlists(
    path: str | Path, where: str, table: Mapping[str, Any], one: str, many: str
) -> tuple[Allowlist, ...]:
    found: list[Any] = []
    if one in table:
        found.append(table[one])
    more = table.get(many, [])
    found.extend(more if isinstance(more, Sequence) and not isinstance(more, str) else [more])
    return tuple(_allowlist(path, where, entry) for entry in found)


def _rule(path: str | Path, index: int, entry: Any) -> Rule:
    if not isinstance(entry, Mapping):
        raise RulesError(f"gitleaks rules {path}: rule {index}: not a table")
    rule_id = str(entry.get("id", f"#{index}"))
    where = f"rule {rule_id!r}"
    if "regex" not in entry:
        raise RulesError(
            f"gitleaks rules {path}: {where}: no regex (path-only rules mean nothing here)"
        )
    try:
        secret_group = int(entry.get("secretGroup", 0))
        entropy = float(entry.get("entropy", 0.0))
    except (TypeError, ValueError) as exc:
        raise RulesError(f"gitleaks rules {path}: {where}: {exc}") from exc
    return Rule(
        rule_id,
        _compile(path, where, entry["regex"]),
        secret_group,
        entropy,
        tuple(word.lower() for word in _strings(path, where, entry.get("keywords", []))),
        _allowlists(path, f"{where}'s allowlist", entry, "allowlist", "allowlists"),
    )
