"""An OTLP/JSON file that grows: one ``ExportTraceServiceRequest`` on one line, spans appended.

The file is a valid document after every append, so it can be read while a session goes on
(``json.load``, ``jq``, the collector's ``otlpjsonfile`` receiver), and nothing already written
is kept in memory: each append rewrites only the closing brackets.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import TracebackType
from typing import Final

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from a2a_progress.otlp.codec import to_otlp_dict

__all__ = ["OtlpJsonFile"]

_EMPTY: Final = b'{"resourceSpans":[]}\n'
_TAIL: Final = b"]}\n"


class OtlpJsonFile:
    """Open ``path`` (replacing it) as an empty OTLP/JSON trace request; close it when done.

    Raises:
        OSError: the file cannot be written.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._file = Path(path).open("wb")  # noqa: SIM115 - closed by close()
        self._file.write(_EMPTY)
        self._file.flush()
        self._empty = True

    def append(self, request: ExportTraceServiceRequest) -> None:
        """Add the resource spans of ``request`` to the document."""
        if not request.resource_spans:
            return
        spans = to_otlp_dict(request)["resourceSpans"]
        items = json.dumps(spans, separators=(",", ":"))[1:-1]
        self._file.seek(-len(_TAIL), os.SEEK_END)
        self._file.write((items if self._empty else "," + items).encode() + _TAIL)
        self._file.truncate()
        self._file.flush()
        self._empty = False

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> OtlpJsonFile:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
