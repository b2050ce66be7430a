"""docs/reference/conventions.md names every span, attribute, event and metric the bridge
emits (every name in ``otel/conventions.py``), and the README links to it."""

from pathlib import Path
from typing import Final

from a2a_progress.otel import conventions as conv

ROOT: Final = Path(__file__).resolve().parents[2]
DOC: Final = (ROOT / "docs" / "reference" / "conventions.md").read_text()
# Constants that are values, parts of names or wire keys rather than names of their own.
_NOT_NAMES: Final = {
    "SCHEMA_URL",
    "PENDING_SPAN_SUFFIX",
    "OBSERVER_CALLER",
    "OBSERVER_CALLEE",
    "OUTCOME_REDACTED",
    "METHOD_SEND",
    "METHOD_SUBSCRIBE",
    "PROVIDER_A2A",
}


def test_every_name_is_documented() -> None:
    names = {
        key: value
        for key, value in vars(conv).items()
        if key.isupper() and isinstance(value, str) and key not in _NOT_NAMES
    }
    assert len(names) > 40
    missing = sorted(f"{key}={value}" for key, value in names.items() if f"`{value}" not in DOC)
    assert missing == []


def test_the_readme_links_to_it() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "](docs/reference/conventions.md)" in readme
