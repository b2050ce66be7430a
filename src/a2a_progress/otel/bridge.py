"""The live instrumentation: the tracer, metrics and settings every observed turn shares.

`Bridge` starts each observed turn (`TurnTelemetry`, in `otel/turn.py`; a `CountingTurn`, in
`otel/counting.py`, for one nobody records), keeps the turns still open so shutdown can end
them, and can be switched off at runtime. It knows nothing of HTTP, gRPC or how it is hooked in.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from opentelemetry.context import Context
from opentelemetry.instrumentation.utils import is_instrumentation_enabled
from opentelemetry.trace import SpanKind, Tracer, get_current_span

from a2a_progress.consumer import EndReason
from a2a_progress.otel.config import BridgeConfig
from a2a_progress.otel.counting import CountingTurn
from a2a_progress.otel.metrics import BridgeMetrics
from a2a_progress.otel.peer_names import PeerNames
from a2a_progress.otel.pending import PendingExport
from a2a_progress.otel.turn import TurnTelemetry

logger = logging.getLogger(__name__)

__all__ = ["Bridge", "ObservedTurn"]

ObservedTurn = TurnTelemetry | CountingTurn
"""One observed turn: recorded (`TurnTelemetry`), or counted only (`CountingTurn`)."""


class Bridge:
    """The live instrumentation: tracer, metrics and settings, switchable off at runtime."""

    def __init__(
        self,
        tracer: Tracer,
        metrics: BridgeMetrics,
        config: BridgeConfig,
        side_tracers: Mapping[str, Tracer] | None = None,
        pending_export: PendingExport | None = None,
    ) -> None:
        self.tracer = tracer
        # Pushes in-progress markers out at once (pending_spans); None: they go with the batch.
        self.pending_export = pending_export
        # A side's own tracer (two services in one process, e.g. a demo); else ``tracer``.
        self.side_tracers = dict(side_tracers or {})
        self.metrics = metrics
        self.config = config
        self.active = True
        self._warned: set[str] = set()
        # Callee turns by task id, so cancel()'s events (CANCELED) reach the turn execute() opened.
        self.turns_by_task: dict[str, ObservedTurn] = {}
        # Every turn still open, so process shutdown can end their spans before the exporter
        # stops (weak: a turn nobody holds any more has ended, or never will be read).
        self._live: weakref.WeakSet[ObservedTurn] = weakref.WeakSet()
        self._live_lock = threading.Lock()
        # Peer names sanitized under config.redactor, clean ones remembered across turns.
        self.names = PeerNames(config.redactor)
        # Called once, as the first turn starts (the instrumentor's check of its providers).
        self.on_first_turn: Callable[[], None] | None = None

    def warn_once(self, where: str, what: str | None = None) -> None:
        """Log an internal bridge failure (or ``what`` an agent did that the bridge works
        around) once per place: telemetry must never break the agent, nor flood its log."""
        if where not in self._warned:
            self._warned.add(where)
            if what is not None:
                logger.warning("a2a-progress: %s (logged once)", what)
                return
            logger.warning("a2a-progress telemetry error in %s (logged once)", where, exc_info=True)

    @property
    def live_turns(self) -> list[ObservedTurn]:
        """The turns started and not yet ended."""
        with self._live_lock:
            return list(self._live)

    def end_live_turns(self) -> None:
        """End every open turn and tool span with reason ``shutdown``."""
        for turn in self.live_turns:
            turn.end(reason=EndReason.SHUTDOWN)

    def tracer_for(self, side: str) -> Tracer:
        """The tracer of ``side`` (``"caller"`` / ``"callee"``)."""
        return self.side_tracers.get(side, self.tracer)

    def observes(self, side: str) -> bool:
        """Whether spans are made for ``side`` (``"caller"`` / ``"callee"``) right now."""
        return self.active and side in self.config.sides and is_instrumentation_enabled()

    def start_turn(
        self,
        name: str,
        *,
        kind: SpanKind,
        observer: str,
        parent: Context | None,
        attributes: dict[str, Any],
    ) -> ObservedTurn:
        """Start the call or execution span and the turn that owns it: a `CountingTurn` when
        neither that span nor the span it starts under (the caller's opt-in invoke_agent span)
        records anything."""
        if self.on_first_turn is not None:
            first, self.on_first_turn = self.on_first_turn, None
            first()
        span = self.tracer_for(observer).start_span(
            name, context=parent, kind=kind, attributes=attributes
        )
        if span.is_recording() or (parent is not None and get_current_span(parent).is_recording()):
            return TurnTelemetry(self, observer, span, attributes)
        return CountingTurn(self, observer, span, attributes)

    def track(self, turn: ObservedTurn) -> None:
        """Count ``turn`` among the live turns (until `untrack`)."""
        with self._live_lock:
            self._live.add(turn)

    def untrack(self, turn: ObservedTurn) -> None:
        """``turn`` has ended: shutdown has nothing more to end for it."""
        with self._live_lock:
            self._live.discard(turn)
