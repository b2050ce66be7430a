"""Operator metrics: tool call durations and envelope counts by outcome and kind."""

from __future__ import annotations

from collections import defaultdict
from typing import Final

from opentelemetry.metrics import Meter

from a2a_progress.consumer import Outcome
from a2a_progress.otel import conventions as conv

_ACCEPTED: Final = Outcome.ACCEPTED.value


class BridgeMetrics:
    """The bridge's instruments, created once per instrumentation."""

    __slots__ = ("_duration", "_envelopes", "_invoke_agent", "_kinds")

    def __init__(self, meter: Meter) -> None:
        # Bucket advice as the conventions give it (the SDK's default boundaries would put every
        # call under 5 s in one bucket); a view configured by the application still wins.
        self._duration = meter.create_histogram(
            conv.METRIC_TOOL_DURATION,
            unit="s",
            description="Duration of tool calls observed through progress envelopes.",
            explicit_bucket_boundaries_advisory=conv.TOOL_DURATION_BUCKETS,
        )
        self._invoke_agent = meter.create_histogram(
            conv.METRIC_INVOKE_AGENT_DURATION,
            unit="s",
            description="Duration of remote agent invocations over A2A (invoke_agent spans).",
            explicit_bucket_boundaries_advisory=conv.INVOKE_AGENT_DURATION_BUCKETS,
        )
        self._envelopes = meter.create_counter(
            conv.METRIC_ENVELOPES,
            unit="{envelope}",
            description="Progress updates observed, by outcome.",
        )
        self._kinds = meter.create_counter(
            conv.METRIC_ENVELOPE_KINDS,
            unit="{envelope}",
            description="Accepted progress envelopes, by kind.",
        )

    def record_duration(
        self,
        seconds: float,
        *,
        tool: str,
        observer: str,
        end_reason: str,
        error_type: str | None = None,
        agent: str | None = None,
    ) -> None:
        """One tool call ended after ``seconds`` (``error_type`` when it failed; ``agent``: the
        name of the agent that ran it, when known)."""
        attributes = {
            conv.GEN_AI_TOOL_NAME: tool,
            conv.OBSERVER: observer,
            conv.END_REASON: end_reason,
        }
        if error_type is not None:
            attributes[conv.ERROR_TYPE] = error_type
        if agent is not None:
            attributes[conv.GEN_AI_AGENT_NAME] = agent
        self._duration.record(seconds, attributes)

    def record_invoke_agent(
        self, seconds: float, *, agent: str | None, error_type: str | None
    ) -> None:
        """One remote agent invocation (an ``invoke_agent`` span) ended after ``seconds``."""
        attributes: dict[str, str] = {}
        if agent is not None:
            attributes[conv.GEN_AI_AGENT_NAME] = agent
        if error_type is not None:
            attributes[conv.ERROR_TYPE] = error_type
        self._invoke_agent.record(seconds, attributes)

    def count_envelopes(self, outcome: str, observer: str, count: int = 1) -> None:
        """``count`` working updates had this ``outcome`` (accepted, duplicate, degraded, ...)."""
        self._envelopes.add(count, {conv.OUTCOME: outcome, conv.OBSERVER: observer})

    def count_kinds(self, kind: str, observer: str, count: int = 1) -> None:
        """``count`` accepted envelopes of this ``kind``."""
        self._kinds.add(count, {conv.KIND: kind, conv.OBSERVER: observer})


class TurnCounts:
    """One turn's envelope counts, added to the counters in batches.

    An SDK ``Counter.add`` costs about as much as decoding an envelope; per turn, counts are
    summed locally and added every ``flush_every`` envelopes and when the turn ends. A turn
    counts an accepted envelope in place (almost every update; a method call costs more than
    the count): ``kinds[kind] += 1``, ``pending += 1``, and `flush` when ``pending`` reaches
    ``flush_every``.
    """

    __slots__ = ("_metrics", "_observer", "_outcomes", "flush_every", "kinds", "pending")

    def __init__(self, metrics: BridgeMetrics, observer: str, flush_every: int = 256) -> None:
        self._metrics = metrics
        self._observer = observer
        self.flush_every = flush_every
        self._outcomes: dict[str, int] = {}
        # By kind; their sum is the outcome ``accepted`` (a defaultdict: ``+= 1`` needs no
        # method call, and this runs for almost every update). Public, with ``pending`` (counted
        # since the last flush): a turn counts most updates in place (see the class).
        self.kinds: defaultdict[str, int] = defaultdict(int)
        self.pending = 0

    def outcome(self, outcome: str) -> None:
        """Count one update with this outcome."""
        self._outcomes[outcome] = self._outcomes.get(outcome, 0) + 1
        self._tick()

    def _tick(self) -> None:
        self.pending += 1
        if self.pending >= self.flush_every:
            self.flush()

    def flush(self) -> None:
        """Add what was counted since the last flush to the counters."""
        outcomes, kinds = self._outcomes, self.kinds
        self._outcomes, self.kinds, self.pending = {}, defaultdict(int), 0
        accepted = sum(kinds.values())
        if accepted:
            self._metrics.count_envelopes(_ACCEPTED, self._observer, accepted)
        for outcome, count in outcomes.items():
            self._metrics.count_envelopes(outcome, self._observer, count)
        for kind, count in kinds.items():
            self._metrics.count_kinds(kind, self._observer, count)
