"""In-flight tool spans (opt-in): as a tool span opens, a zero-length marker span under it is
exported at once, so a trace backend shows what runs now; the tool span itself is exported once,
when it ends, and no span id is ever exported twice. Off by default."""

import asyncio
import threading

import pytest
from a2a.types import StreamResponse
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from otel_support import (
    Telemetry,
    attrs,
    complete,
    done,
    parent_id,
    serving,
    span_id,
    start,
    user_message,
    wait,
)

from a2a_progress.otel import A2AProgressInstrumentor
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.config import ENV_PENDING_SPANS, BridgeConfig
from a2a_progress.otel.pending import PendingExport
from a2a_progress.otlp import OtlpReceiver, ReceivedSpan
from a2a_progress.serving import create_client

MARKER = f"search{conv.PENDING_SPAN_SUFFIX}"


def markers(telemetry: Telemetry) -> list[ReadableSpan]:
    return [span for span in telemetry.spans() if attrs(span).get(conv.PENDING) is True]


def tools(telemetry: Telemetry) -> dict[str, ReadableSpan]:
    """The real tool spans, by observer."""
    return {attrs(span)[conv.OBSERVER]: span for span in telemetry.tool_spans()}


async def test_a_running_tool_is_visible_before_it_ends(telemetry: Telemetry) -> None:
    telemetry.instrument(pending_spans=True)
    gate = asyncio.Event()
    steps = [start("search", "c1"), wait(gate), done("c1"), complete()]
    async with serving(steps) as served, create_client(served.card_for("jsonrpc")) as client:
        stream = aiter(client.send_message(user_message()))
        while not is_tool_start(await anext(stream)):
            pass
        # The tool runs (both sides saw it start): a marker per side is exported, no tool span.
        assert len(markers(telemetry)) == 2
        assert tools(telemetry) == {}
        gate.set()
        async for _ in stream:
            pass
    found = {attrs(span)[conv.OBSERVER]: span for span in markers(telemetry)}
    assert sorted(found) == [conv.OBSERVER_CALLEE, conv.OBSERVER_CALLER]
    ended = tools(telemetry)
    for observer, marker in found.items():
        tool = ended[observer]
        assert marker.name == MARKER
        assert parent_id(marker) == span_id(tool) != span_id(marker)
        assert marker.start_time == marker.end_time
        # A marker is no execution: no execute_tool name, no gen_ai.* attribute to count it by.
        assert not marker.name.startswith(conv.TOOL_SPAN_PREFIX)
        assert not any(key.startswith("gen_ai.") for key in attrs(marker))
        assert attrs(marker)[conv.STREAM_KEY] == "c1"
        assert attrs(tool)[conv.END_REASON] == "done"
    # The fixture checks that every span id was exported once.


def is_tool_start(event: StreamResponse) -> bool:
    parts = event.status_update.status.message.parts
    return bool(parts) and parts[0].text == "Calling tool search"


async def test_no_marker_by_default(telemetry: Telemetry) -> None:
    async with (
        serving([start("search", "c1"), done("c1"), complete()]) as served,
        create_client(served.card_for("grpc")) as client,
    ):
        async for _ in client.send_message(user_message()):
            pass
    assert len(tools(telemetry)) == 2
    assert markers(telemetry) == []


@pytest.mark.parametrize(
    ("argument", "environment", "expected"),
    [
        (None, None, False),
        (None, "true", True),
        (None, "on", True),
        (None, "sometimes", False),  # unparseable: the default
        (False, "true", False),  # the argument wins
        (True, "false", True),
    ],
)
def test_the_setting_comes_from_the_argument_then_the_environment(
    argument: bool | None, environment: str | None, expected: bool
) -> None:
    environ = {} if environment is None else {ENV_PENDING_SPANS: environment}
    config = BridgeConfig.resolve({"pending_spans": argument}, environ)
    assert config.pending_spans is expected
    assert ENV_PENDING_SPANS == "OTEL_INSTRUMENTATION_A2A_PROGRESS_PENDING_SPANS"


async def test_a_marker_is_exported_at_once_through_a_batch_processor_with_a_long_delay(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A batch every ten minutes: without a flush, nothing would arrive before the process ends.
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "600000")
    gate = asyncio.Event()
    steps = [start("search", "c1"), wait(gate), done("c1"), complete()]
    instrumentor = A2AProgressInstrumentor()
    with OtlpReceiver(grpc_port=None) as receiver:
        provider = TracerProvider()
        exporter = OTLPSpanExporter(endpoint=f"{receiver.http_endpoint}/v1/traces")
        provider.add_span_processor(BatchSpanProcessor(exporter))
        instrumentor.instrument(tracer_provider=provider, pending_spans=True)
        try:
            async with (
                serving(steps) as served,
                create_client(served.card_for("jsonrpc")) as client,
            ):
                stream = aiter(client.send_message(user_message()))
                while not is_tool_start(await anext(stream)):
                    pass
                # The tool is held at the gate: the callee's marker arrives while it runs (the
                # caller makes no span, nor marker, of a call its callee records).
                arrived = await asyncio.to_thread(
                    receiver.wait_for_spans,
                    lambda spans: len(received_markers(spans)) == 1,
                    30.0,
                )
                assert not [
                    span for span in arrived if span.name == f"{conv.TOOL_SPAN_PREFIX} search"
                ]
                gate.set()
                async for _ in stream:
                    pass
        finally:
            instrumentor.uninstrument()
            provider.shutdown()
    observers = sorted(span.attributes[conv.OBSERVER] for span in received_markers(arrived))
    assert observers == [conv.OBSERVER_CALLEE]


def received_markers(spans: list[ReceivedSpan]) -> list[ReceivedSpan]:
    return [span for span in spans if span.attributes.get(conv.PENDING) is True]


class _Provider:
    """A tracer provider reduced to its ``force_flush``: one that blocks until released, or
    fails (faults a real exporter causes only by chance)."""

    def __init__(self, *, fail: bool = False) -> None:
        self.fail = fail
        self.release = threading.Event()
        self.flushing = threading.Event()
        self.threads: list[threading.Thread] = []

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        self.threads.append(threading.current_thread())
        self.flushing.set()
        if self.fail:
            raise RuntimeError("exporter is down")
        return self.release.wait(30)


def test_a_nudge_never_flushes_on_the_callers_thread_and_coalesces() -> None:
    provider = _Provider()
    pending = PendingExport(lambda side: provider)
    pending.nudge("callee")  # returns while the flush is blocked in its own thread
    assert provider.flushing.wait(30)
    for _ in range(100):
        pending.nudge("callee")
        pending.nudge("caller")  # the same provider: flushed once per round
    provider.release.set()
    for thread in list(provider.threads):
        thread.join(30)
    # The first flush, then one more for every nudge that came while it ran.
    assert len(provider.threads) == 2
    assert threading.current_thread() not in provider.threads
    assert all(thread.name == "a2a-progress-pending-export" for thread in provider.threads)


def test_a_failing_flush_is_swallowed_and_the_next_nudge_flushes_again() -> None:
    provider = _Provider(fail=True)
    pending = PendingExport(lambda side: provider)
    pending.nudge("caller")
    assert provider.flushing.wait(30)
    provider.threads[0].join(30)
    provider.flushing.clear()
    pending.nudge("caller")
    assert provider.flushing.wait(30)
    provider.threads[-1].join(30)
    assert len(provider.threads) == 2
    # A provider without force_flush (the API's proxy) and one that cannot be looked up: nothing.
    PendingExport(lambda side: object()).nudge("caller")
    PendingExport(lambda side: 1 / 0).nudge("caller")
