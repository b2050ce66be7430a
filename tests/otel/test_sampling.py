"""A turn the sampler drops costs next to nothing, and only its spans go missing.

With ``ParentBased(ALWAYS_OFF)`` the caller's call span is dropped at the root and the callee
follows the unsampled parent it is sent. Such a turn makes no span, no span event and no content
(the redactor never sees a text), yet the trace context still travels (sampled flag off, the
caller's trace id down to the tool's code) and the metrics count what a sampled turn's do (but
``redacted``, which counts content masked for a span event: there is none).
"""

import contextlib
from collections.abc import Callable, Iterator

import pytest
from a2a.utils.errors import InternalError
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ParentBased
from opentelemetry.trace import SpanContext
from otel_support import (
    AgentTurn,
    ScriptedAgent,
    Step,
    Telemetry,
    abort,
    call,
    cancel,
    complete,
    done,
    env,
    events,
    fail,
    pipelines,
    raise_,
    raw,
    serving,
    start,
    text,
    thinking,
)

from a2a_progress.otel import conventions as conv
from a2a_progress.redaction import DEFAULT_REDACTOR, MASK, Redactor
from support.redaction_corpus import CORPUS

SIDES = (conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE)


class CountingRedactor(Redactor):
    """The default patterns, remembering every text it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def redact_counted(self, text: str) -> tuple[str, int]:
        self.seen.append(text)
        return super().redact_counted(text)


def _unsampled(telemetry: Telemetry) -> None:
    provider = TracerProvider(sampler=ParentBased(ALWAYS_OFF))
    provider.add_span_processor(telemetry.ledger)
    provider.add_span_processor(SimpleSpanProcessor(telemetry.exporter))
    telemetry.tracer_provider.shutdown()
    telemetry.tracer_provider = provider


@pytest.fixture
def dropped() -> Iterator[Telemetry]:
    """The bridge on a tracer provider whose sampler drops every root span."""
    with pipelines() as result:
        _unsampled(result)
        try:
            yield result
        finally:
            result.uninstrument()


def observe_current(seen: list[SpanContext]) -> Step:
    async def step(turn: AgentTurn) -> None:
        seen.append(trace.get_current_span().get_span_context())

    return step


def script(seen: list[SpanContext]) -> list[Step]:
    return [
        thinking("planning the deploy with password=hunter2hunter2"),
        start("deploy", "d1"),
        observe_current(seen),  # the tool's own code runs here
        text("rolling out"),
        done("d1"),
        start("fetch", "f1"),
        abort("f1", "gone"),
        env("thinking", 1, text="a duplicate of the producer's first seq"),
        raw(None, "a plain update"),
        complete(),
    ]


def _metrics(telemetry: Telemetry) -> dict[str, object]:
    return {
        observer: (
            telemetry.counts(conv.METRIC_ENVELOPES, conv.OUTCOME, observer),
            telemetry.counts(conv.METRIC_ENVELOPE_KINDS, conv.KIND, observer),
            sorted(
                (a[conv.GEN_AI_TOOL_NAME], a[conv.END_REASON], point.count)
                for a, point in telemetry.points(conv.METRIC_TOOL_DURATION)
                if a[conv.OBSERVER] == observer
            ),
        )
        for observer in SIDES
    }


async def _metrics_sampled_and_not(
    steps: Callable[[], list[Step]], transport: str, *, agent_may_raise: bool = False
) -> tuple[dict[str, object], dict[str, object]]:
    """The same turn run sampled, then unsampled (``steps()`` each time): both runs' metrics."""
    counted = []
    for sampled in (True, False):
        with pipelines() as telemetry:
            if not sampled:
                _unsampled(telemetry)
            telemetry.instrument()
            try:
                async with serving(steps()) as served:
                    # An agent that raised: the client gets the error; the turn was observed.
                    with contextlib.suppress(*((InternalError,) if agent_may_raise else ())):
                        await call(served.card_for(transport))
                assert bool(telemetry.spans()) is sampled
                counted.append(_metrics(telemetry))
            finally:
                telemetry.uninstrument()
    sampled_metrics, unsampled_metrics = counted
    return sampled_metrics, unsampled_metrics


async def test_an_unsampled_turn_makes_no_span_and_redacts_no_content(dropped: Telemetry) -> None:
    redactor = CountingRedactor()
    dropped.instrument(redactor=redactor)
    seen: list[SpanContext] = []
    agent = ScriptedAgent(script(seen))
    async with serving(agent) as served:
        await call(served.card_for("jsonrpc"))
    assert dropped.spans() == []
    assert dropped.ledger.started_count == 0
    # Only names (ids, tools, stream keys) were masked; never a text of the turn.
    assert not [text for text in redactor.seen if "hunter2" in text or "rolling" in text]
    # The trace context still went out, unsampled, and reached the tool's code.
    traceparent = agent.headers[0]["traceparent"]
    _, trace_hex, _, flags = traceparent.split("-")
    assert int(flags, 16) & 1 == 0  # not sampled
    [inside_tool] = seen
    assert inside_tool.is_valid
    assert not inside_tool.trace_flags.sampled
    assert inside_tool.trace_id == int(trace_hex, 16)


async def test_an_unsampled_turn_counts_the_same_metrics_as_a_sampled_one() -> None:
    sampled_metrics, unsampled_metrics = await _metrics_sampled_and_not(lambda: script([]), "rest")
    # "redacted" counts content masked on its way to a span event: an unsampled turn captures
    # no content (as with capture_content=False), so masks none. Every other count is the same.
    for observer in SIDES:
        sampled_metrics[observer][0].pop(conv.OUTCOME_REDACTED, None)  # type: ignore[index]
        assert conv.OUTCOME_REDACTED not in unsampled_metrics[observer][0]  # type: ignore[index]
    assert unsampled_metrics == sampled_metrics
    caller_outcomes = sampled_metrics[conv.OBSERVER_CALLER][0]  # type: ignore[index]
    assert caller_outcomes["duplicate"] == 1
    assert caller_outcomes["degraded"] == 1


# -- the callee's own texts ------------------------------------------------------------------------


def test_the_default_redactor_masks_nothing_more_the_second_time() -> None:
    """What lets the callee's bridge skip texts its own emitter masked with the same patterns."""
    for case in CORPUS:
        for sample in (case.text, f"see {case.text}; then\n{case.text} again"):
            once = DEFAULT_REDACTOR.redact(sample)
            assert DEFAULT_REDACTOR.redact(once) == once, case.id


async def test_the_callee_does_not_scan_again_what_its_emitter_masked(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch
) -> None:
    scanned: list[str] = []
    redact_counted = Redactor.redact_counted

    def counting(self: Redactor, text: str) -> tuple[str, int]:
        scanned.append(text)
        return redact_counted(self, text)

    monkeypatch.setattr(Redactor, "redact_counted", counting)
    steps = [thinking("deploy with password=hunter2hunter2"), text("rolling out"), complete()]
    async with serving(steps) as served:
        await call(served.card_for("jsonrpc"))
    # The emitter scanned both texts (each as a piece of its stream) and so did the caller (a
    # peer's). The callee scanned only the one its emitter masked something in (to count it as
    # the caller does), not the one it found clean.
    assert sum("rolling out" in scan for scan in scanned) == 2
    assert sum("password=" in scan for scan in scanned) == 3
    caller, callee = (
        telemetry.counts(conv.METRIC_ENVELOPES, conv.OUTCOME, observer) for observer in SIDES
    )
    assert caller == callee
    for observer in SIDES:
        contents = [e[conv.CONTENT] for e in events(telemetry.turn_span(observer))]
        assert contents == [f"deploy with password={MASK}", "rolling out"]


def mixed_script(ending: Step) -> list[Step]:
    """The emitter's updates mixed with hand-written ones on the same streams, then ``ending``."""
    return [
        thinking("planning"),
        start("deploy", "d1"),
        # Hand-written on the emitter's stream: a continuation, then a repeat of its start's seq.
        env("tool_output_append", 3, stream_key="d1", tool="deploy", chunk="x", tool_call_id="d1"),
        env("tool_call", 2, stream_key="d1", tool="deploy", tool_call_id="d1"),
        start("fetch", "f1"),
        abort("f1", "gone"),
        # A hand-written end before any start, on a stream of its own: one call, opened and ended.
        env("tool_call", 1, "done", stream_key="h1", tool="probe", tool_call_id="h1"),
        raw(None, "a plain update"),
        start("build", "b1"),  # still open when the turn ends
        ending,
    ]


@pytest.mark.parametrize(
    "ending",
    [complete(), fail(), cancel(), raise_(RuntimeError("boom"))],
    ids=["completed", "failed", "canceled", "raised"],
)
async def test_unsampled_metrics_match_with_hand_written_updates_and_every_ending(
    ending: Step,
) -> None:
    sampled_metrics, unsampled_metrics = await _metrics_sampled_and_not(
        lambda: mixed_script(ending), "jsonrpc", agent_may_raise=True
    )
    for observer in SIDES:
        sampled_metrics[observer][0].pop(conv.OUTCOME_REDACTED, None)  # type: ignore[index]
    assert unsampled_metrics == sampled_metrics
    # The callee saw the repeat of the emitter's start as one, and every call ended once.
    callee_outcomes, _, callee_durations = sampled_metrics[conv.OBSERVER_CALLEE]  # type: ignore[misc]
    assert callee_outcomes["duplicate"] == 1
    assert sorted(tool for tool, _, _ in callee_durations) == ["build", "deploy", "fetch", "probe"]
