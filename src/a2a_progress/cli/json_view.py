"""``watch --json``: one JSON object per line for scripts and front ends.

The schema (``progress``, ``outcome`` and ``error`` objects, ``"v": 1``) is defined once in
`a2a_progress.schema`, which the web relay streams too; its names are re-exported here.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from a2a_progress import ProgressUpdate, TurnOutcome
from a2a_progress.cli.errors import CliError
from a2a_progress.schema import SCHEMA_VERSION, call_json, outcome_json, progress_json, update_json
from a2a_progress.schema import error_json as _error_object

__all__ = [
    "SCHEMA_VERSION",
    "JsonLines",
    "call_json",
    "error_json",
    "outcome_json",
    "progress_json",
]


def error_json(error: CliError) -> dict[str, Any]:
    """The ``error`` object of a command that failed before an outcome."""
    return _error_object(error.message, int(error.code))


class JsonLines:
    """A progress sink that writes each update as one JSON line (flushed at once)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.progress_extension: bool | None = None
        """Whether the agent's card declares the progress extension (None: card not read);
        the ``outcome`` object carries it as ``progress_extension``."""

    def update(self, item: ProgressUpdate | TurnOutcome) -> None:
        """Write the object for ``item``."""
        obj = update_json(item)
        if isinstance(item, TurnOutcome):
            obj["progress_extension"] = self.progress_extension
        self.write(obj)

    def write(self, obj: dict[str, Any]) -> None:
        """Write one object as a line."""
        self._stream.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self._stream.flush()
