"""Pushing in-progress marker spans out at once, without the agent waiting for the export.

A marker span (``pending_spans``) ends the moment it starts, but a ``BatchSpanProcessor`` only
exports it with its next batch: ``OTEL_BSP_SCHEDULE_DELAY`` later (5 s by default), or at exit
when that delay is long — too late to show a running tool. After a marker ends, the bridge calls
`PendingExport.nudge`, which asks the tracer provider to ``force_flush`` from a background
thread: the agent's thread only takes a lock and, when no flush is in flight, starts that thread.
Nudges that come while a flush runs are coalesced into one more flush after it, so a burst of
tool calls costs at most two exports, not one each. A flush that fails or hangs is the
exporter's business: it is logged at debug level, never raised, and it blocks only its own
thread.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Final

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Tracer

from a2a_progress.otel import conventions as conv

logger = logging.getLogger(__name__)

FLUSH_TIMEOUT_MILLIS: Final = 10_000
"""How long one flush may take (providers that honour it; the SDK's batch processor exports
everything queued and is bounded by its exporter's own timeout)."""

_THREAD_NAME: Final = "a2a-progress-pending-export"
# What a marker keeps of its tool span's attributes: never gen_ai.* (a marker is no execution:
# a backend counting execute_tool spans must not count it).
_MARKER_KEEPS: Final = (conv.OBSERVER, conv.STREAM_KEY, conv.SEQ_FIRST, conv.A2A_TASK_ID)


def mark_pending(tracer: Tracer, tool: Span, name: str, attributes: Mapping[str, Any]) -> None:
    """End at once a zero-length span under ``tool`` that says it is running.

    A span is exported only when it ends: without this, a tool that runs for minutes is
    invisible in a trace backend until then. The marker is a span of its own, exported once;
    the tool span is never exported early. It is named ``{tool} (in progress)`` and carries no
    ``gen_ai.*`` attribute: GenAI views must not count it as an execution.
    """
    now = time.time_ns()
    kept = {key: attributes[key] for key in _MARKER_KEEPS if key in attributes}
    marker = tracer.start_span(
        f"{name}{conv.PENDING_SPAN_SUFFIX}",
        context=trace.set_span_in_context(tool),
        kind=SpanKind.INTERNAL,
        attributes={**kept, conv.PENDING: True},
        start_time=now,
    )
    marker.end(end_time=now)


class PendingExport:
    """Flushes the tracer provider of a side (``"caller"`` / ``"callee"``) soon after a nudge.

    Args:
        provider_of: the tracer provider whose spans a side's markers are in, asked at flush
            time (the global provider may be set after instrumenting); one without
            ``force_flush`` (the API's no-op or proxy provider) is skipped.
    """

    def __init__(self, provider_of: Callable[[str], object]) -> None:
        self._provider_of = provider_of
        self._lock = threading.Lock()
        self._due: set[str] = set()
        self._running = False

    def nudge(self, side: str) -> None:
        """Have ``side``'s provider export what it holds, from a background thread; never
        blocks on the export and never raises."""
        with self._lock:
            self._due.add(side)
            if self._running:
                return  # the running flush takes it on its next round
            self._running = True
        try:
            threading.Thread(target=self._flush_while_due, name=_THREAD_NAME, daemon=True).start()
        except RuntimeError:  # no new threads (the interpreter is shutting down): the exit
            with self._lock:  # hooks flush everything anyway
                self._running = False
                self._due.clear()

    def _flush_while_due(self) -> None:
        while True:
            with self._lock:
                if not self._due:
                    self._running = False
                    return
                sides, self._due = self._due, set()
            flushes: list[Callable[[int], object]] = []
            for side in sorted(sides):
                flush = self._flush_of(side)
                if flush is not None and flush not in flushes:  # one provider, one flush
                    flushes.append(flush)
            for flush in flushes:
                try:
                    flush(FLUSH_TIMEOUT_MILLIS)
                except Exception:  # telemetry never breaks the agent
                    logger.debug("a2a-progress: flushing in-progress markers failed", exc_info=True)

    def _flush_of(self, side: str) -> Callable[[int], object] | None:
        """The ``force_flush`` of ``side``'s provider, or None when it has none."""
        try:
            flush = getattr(self._provider_of(side), "force_flush", None)
        except Exception:  # telemetry never breaks the agent
            logger.debug("a2a-progress: no tracer provider for %s", side, exc_info=True)
            return None
        return flush if callable(flush) else None
