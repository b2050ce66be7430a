"""The redactor on public scanners' own true/false-positive examples: a second held-out set.

Run: ``.venv/bin/python bench/public_fixtures.py GITLEAKS_GIT_DIR [DETECT_SECRETS_GIT_DIR]``
with local clones (or bare mirrors) of github.com/gitleaks/gitleaks and
github.com/Yelp/detect-secrets; nothing of them is copied into this repository. It reads, at
each one's HEAD:

- gitleaks ``cmd/generate/config/rules/*.go``: every ``tps``/``fps`` list element that is a
  plain string literal (samples built by code, ``secrets.NewSecret(…)`` or concatenations, are
  left out: they exist only when gitleaks' generator runs);
- detect-secrets ``test_data/each_secret.py`` (one secret per assignment, true positives; its
  ``red_herring`` line is a false positive) and ``test_data/files/file_with_no_secrets.py``
  (every line a false positive).

A true positive counts as masked when the redactor changes it; a false positive as altered when
it does. Rules' examples are often bare values with no context at all, which is harder than an
agent's output (where a value usually sits after its name): read the figure with that in mind.
"""

from __future__ import annotations

import subprocess
import sys

from a2a_progress.redaction import DEFAULT_REDACTOR

RULES_DIR = "cmd/generate/config/rules/"


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, check=True
    ).stdout


def _go_literal(element: str) -> str | None:
    """The value of ``element`` when it is one Go string literal, else None."""
    element = element.strip()
    if len(element) >= 2 and element[0] == element[-1] == "`" and "`" not in element[1:-1]:
        return element[1:-1]
    if len(element) >= 2 and element[0] == element[-1] == '"':
        body = element[1:-1]
        out, i = [], 0
        while i < len(body):
            if body[i] == '"':
                return None  # two literals, or a concatenation
            if body[i] == "\\" and i + 1 < len(body):
                out.append(
                    {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(body[i + 1], body[i + 1])
                )
                i += 2
                continue
            out.append(body[i])
            i += 1
        return "".join(out)
    return None


def _elements(source: str, start: int) -> list[str]:
    """The top-level elements of the ``{…}`` list that opens at ``source[start]``."""
    depth, i, begin, elements = 0, start, start + 1, []
    while i < len(source):
        char = source[i]
        if char in '`"':
            end = source.find(char, i + 1) if char == "`" else i + 1
            if char == '"':
                while end < len(source) and source[end] != '"':
                    end += 2 if source[end] == "\\" else 1
            i = end + 1
            continue
        if source.startswith("//", i):
            newline = source.find("\n", i)
            elements.append(source[begin:i])
            begin = i = newline
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                elements.append(source[begin:i])
                return elements
        elif char == "," and depth == 1:
            elements.append(source[begin:i])
            begin = i + 1
        i += 1
    return elements


def gitleaks_examples(git_dir: str) -> tuple[list[str], list[str]]:
    tps: list[str] = []
    fps: list[str] = []
    files = [
        f
        for f in _git(git_dir, "ls-tree", "-r", "--name-only", "HEAD").split()
        if f.startswith(RULES_DIR) and f.endswith(".go") and not f.endswith("_test.go")
    ]
    for name in files:
        source = _git(git_dir, "show", f"HEAD:{name}")
        for marker, into in (("tps", tps), ("fps", fps)):
            at = 0
            while (at := source.find(marker, at)) != -1:
                line_end = source.find("\n", at)
                brace = source.find("[]string{", at, line_end)
                at = line_end
                if brace == -1:
                    continue
                for element in _elements(source, brace + len("[]string")):
                    value = _go_literal(element.split("//")[0] if "`" not in element else element)
                    if value and value.strip():
                        into.append(value)
    return tps, fps


def detect_secrets_examples(git_dir: str) -> tuple[list[str], list[str]]:
    each = _git(git_dir, "show", "HEAD:test_data/each_secret.py").splitlines()
    clean = _git(git_dir, "show", "HEAD:test_data/files/file_with_no_secrets.py").splitlines()
    tps = [line for line in each if "=" in line and not line.startswith("red_herring")]
    fps = [line for line in each if line.startswith("red_herring")]
    fps += [line for line in clean if line.strip()]
    return tps, fps


def report(name: str, tps: list[str], fps: list[str]) -> None:
    masked = sum(DEFAULT_REDACTOR.redact(text) != text for text in tps)
    altered = sum(DEFAULT_REDACTOR.redact(text) != text for text in fps)
    print(
        f"{name}: true positives masked {masked}/{len(tps)} ({masked / max(1, len(tps)):.0%}),"
        f" false positives altered {altered}/{len(fps)} ({altered / max(1, len(fps)):.0%})"
    )


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit(__doc__)
    report("gitleaks rule examples", *gitleaks_examples(argv[0]))
    if len(argv) > 1:
        report("detect-secrets test data", *detect_secrets_examples(argv[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
