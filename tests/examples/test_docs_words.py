"""What a user reads says what it means: no Sphinx roles left literal in the API reference
(mkdocs renders ``:class:`X``` as it is written), no internal labels of the design notes, and
every environment variable the code reads on the environment variables page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from support.examples import ROOT

ROLE: Final = re.compile(r":(?:class|func|meth|attr|mod|data|exc|obj):`")
LABEL: Final = re.compile(r"\b(?:spec|decision|rules?) [ER]?[0-9]\b|\bR1.R8\b|\bissue #[0-9]+")


def read_by_users() -> list[Path]:
    """The README, the documentation pages and every module (its docstrings are the API pages)."""
    return [
        ROOT / "README.md",
        *sorted((ROOT / "docs").rglob("*.md")),
        *sorted((ROOT / "src").rglob("*.py")),
    ]


def test_no_literal_roles_and_no_internal_labels() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in read_by_users()
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if ROLE.search(line) or LABEL.search(line)
    ]
    assert found == []


def test_every_environment_variable_the_code_reads_is_documented() -> None:
    read = {
        name
        for path in (ROOT / "src").rglob("*.py")
        for name in re.findall(r'"((?:OTEL|A2A_PROGRESS)_[A-Z0-9_]+)"', path.read_text())
    }
    page = (ROOT / "docs" / "reference" / "environment.md").read_text()
    documented = set(re.findall(r"^\| `([A-Z0-9_]+)`", page, re.M))
    documented |= set(re.findall(r"`((?:OTEL|A2A_PROGRESS)_[A-Z0-9_]+)`", page))
    assert read - documented == set()


def test_the_readmes_links_lead_somewhere() -> None:
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(((?!https?://|#)[^)\s]+)\)", readme)
    assert targets
    assert [target for target in targets if not (ROOT / target.split("#")[0]).exists()] == []
