"""Telemetry checks shared by the hostile-input, fuzz-regression and fault tests.

In-memory span pipelines that notice a span ending twice or never, and one check of all a hostile
peer must not get into telemetry: strings over 64 KiB or not UTF-8 (OTLP carries only UTF-8),
integers OTLP cannot carry (int64), content over the configured bound, and credentials.
"""

from __future__ import annotations

import contextlib
import gc
import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from a2a_progress.otel import A2AProgressInstrumentor
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.bridge import Bridge
from a2a_progress.otel.config import DEFAULT_CONTENT_MAX_LENGTH, BridgeConfig
from a2a_progress.otel.metrics import BridgeMetrics
from a2a_progress.otel.safe_text import TRUNCATION_MARKER
from support.telemetry import MemoryTelemetry

ATTRIBUTE_LIMIT: Final = 64 * 1024
INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1
MARKER: Final = TRUNCATION_MARKER
# The SDK logs (never raises) when a span is ended twice or changed after its end; the bridge
# logs (never raises) when it swallowed an internal error. Either is a failure here.
_WATCHED_LOGGERS: Final = ("opentelemetry.sdk.trace", "a2a_progress.otel.bridge")


@dataclass(frozen=True)
class Credential:
    """A credential as an agent might print it, and the part that must never reach telemetry."""

    written: str
    secret: str

    def windows(self, width: int = 12) -> list[str]:
        """Every ``width``-character piece of the secret: a partial leak is still a leak."""
        return [self.secret[i : i + width] for i in range(len(self.secret) - width + 1)]


CREDENTIALS: Final = (
    Credential("AKIAZ7QW3ERTY5UIOPLK", "Z7QW3ERTY5UIOPLK"),
    Credential("ghp_Zq8mN2vX7pL4kR9tW1yB6cH3jF5dS0aE2gU7", "Zq8mN2vX7pL4kR9tW1yB6cH3jF5dS0aE2gU7"),
    Credential("Bearer s3cr3tB3ar3rT0k3nVa1ue", "s3cr3tB3ar3rT0k3nVa1ue"),
    Credential(
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n"
        "-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo",
    ),
    Credential("password=Hunter2Correct-Horse", "Hunter2Correct-Horse"),
)
_SECRET_WINDOWS: Final = tuple(window for c in CREDENTIALS for window in c.windows())


class CheckingExporter(SpanExporter):
    """Keeps no span: counts them, and what :func:`telemetry_problems` finds in them."""

    def __init__(self, content_max: int = DEFAULT_CONTENT_MAX_LENGTH) -> None:
        self.content_max = content_max
        self.exported = 0
        self.problems: list[str] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.exported += len(spans)
        if len(self.problems) < 20:
            self.problems += telemetry_problems(spans, self.content_max)
        return SpanExportResult.SUCCESS


class _Complaints(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.name}: {record.getMessage()}")


class Pipeline(MemoryTelemetry):
    """A TracerProvider exporting to memory (or, with ``keep_spans=False``, only checking and
    counting what it exports), a ledger of open spans, and a meter."""

    def __init__(self, keep_spans: bool = True) -> None:
        self.keep_spans = keep_spans
        self.checker = CheckingExporter()
        super().__init__(None if keep_spans else self.checker)

    def bridge(self, **settings: Any) -> Bridge:
        """A bridge on this pipeline, as the instrumentor builds it, with ``settings`` (content
        captured unless they say otherwise: these tests read it)."""
        return Bridge(
            self.tracer_provider.get_tracer("faults"),
            BridgeMetrics(self.meter_provider.get_meter("faults")),
            BridgeConfig.resolve({"capture_content": True, **settings}, environ={}),
        )

    @contextlib.contextmanager
    def instrumented(self) -> Iterator[Pipeline]:
        """This process's a2a-sdk clients and servers instrumented on this pipeline, content
        captured; on exit, every span must have ended exactly once, and nothing complained."""
        instrumentor = A2AProgressInstrumentor()
        instrumentor.instrument(
            tracer_provider=self.tracer_provider,
            meter_provider=self.meter_provider,
            capture_content=True,
        )
        try:
            with no_complaints():
                yield self
            self.assert_each_span_ended_once()
        finally:
            instrumentor.uninstrument()

    def reset(self) -> None:
        self.exporter.clear()
        self.ledger.reset()


@contextlib.contextmanager
def no_complaints() -> Iterator[list[str]]:
    """Fail if the SDK or the bridge logs a warning inside the block (double end, swallowed
    internal error). Each bridge logs a failure once: use a new bridge to see every failure."""
    gc.collect()  # earlier tests' abandoned streams end their spans now, not inside the block
    handler = _Complaints()
    loggers = [logging.getLogger(name) for name in _WATCHED_LOGGERS]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        for logger in loggers:
            logger.removeHandler(handler)
    assert handler.messages == []


def leaks(text: str) -> list[str]:
    """The pieces of test credentials found in ``text``."""
    return [window for window in _SECRET_WINDOWS if window in text]


def _value_problems(where: str, value: Any, content_max: int | None) -> list[str]:
    problems: list[str] = []
    for item in value if isinstance(value, tuple) else (value,):
        if isinstance(item, str):
            try:
                size = len(item.encode("utf-8"))
            except UnicodeEncodeError:
                problems.append(f"{where}: not UTF-8")
                size = len(item.encode("utf-8", "surrogatepass"))
            if size > ATTRIBUTE_LIMIT:
                problems.append(f"{where}: {size} bytes")
            if content_max is not None and size > content_max + len(MARKER.encode()):
                problems.append(f"{where}: content of {size} bytes over {content_max}")
            if leaks(item):
                problems.append(f"{where}: leaks {leaks(item)[0]!r}")
        elif (
            isinstance(item, int)
            and not isinstance(item, bool)
            and not INT64_MIN <= item <= INT64_MAX
        ):
            problems.append(f"{where}: {item} is no int64")
    return problems


def _attribute_problems(
    where: str, attributes: Mapping[str, Any] | None, content_max: int
) -> list[str]:
    problems: list[str] = []
    for key, value in (attributes or {}).items():
        bound = content_max if key in (conv.CONTENT, "exception.message") else None
        problems += _value_problems(f"{where} {key}", value, bound)
    return problems


def telemetry_problems(spans: Iterable[ReadableSpan], content_max: int) -> list[str]:
    """Everything in ``spans`` a hostile peer should not have been able to put there."""
    problems: list[str] = []
    for span in spans:
        where = f"span {span.name[:40]!r}"
        problems += _value_problems(f"{where} name", span.name, None)
        problems += _value_problems(f"{where} status", span.status.description or "", None)
        problems += _attribute_problems(where, span.attributes, content_max)
        for event in span.events:
            problems += _value_problems(f"{where} event name", event.name, None)
            problems += _attribute_problems(f"{where} event", event.attributes, content_max)
    return problems
