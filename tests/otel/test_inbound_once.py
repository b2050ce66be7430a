"""The caller's trace context is extracted once per inbound request and reused by every hook
that needs it (dispatcher, handler, stream, executor), over every transport and protocol line;
an oversized ``baggage`` header costs at most one log line, never the header itself, and the
trace still joins; what a propagator logs of a header it cannot parse is inert."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from opentelemetry import propagate
from opentelemetry.propagators.textmap import TextMapPropagator
from otel_support import (
    COMBINATION_IDS,
    COMBINATIONS,
    ScriptedAgent,
    Telemetry,
    complete,
    drain,
    serving,
    span_id,
    trace_id,
)

from a2a_progress.otel import conventions as conv
from a2a_progress.serving import Transport, create_client

REQUESTS = 3


class CountingPropagator(TextMapPropagator):
    """The configured propagator, counting the carriers it extracts from."""

    def __init__(self, inner: TextMapPropagator) -> None:
        self.inner = inner
        self.extracted: list[dict[str, str]] = []

    def extract(self, carrier: Any, context: Any = None, getter: Any = None) -> Any:
        self.extracted.append(dict(carrier))
        if getter is None:
            return self.inner.extract(carrier, context)
        return self.inner.extract(carrier, context, getter)

    def inject(self, carrier: Any, context: Any = None, setter: Any = None) -> None:
        if setter is None:
            self.inner.inject(carrier, context)
        else:
            self.inner.inject(carrier, context, setter)

    @property
    def fields(self) -> set[str]:
        return self.inner.fields


@pytest.fixture
def counting() -> Iterator[CountingPropagator]:
    previous = propagate.get_global_textmap()
    counter = CountingPropagator(previous)
    propagate.set_global_textmap(counter)
    try:
        yield counter
    finally:
        propagate.set_global_textmap(previous)


def inbound(counter: CountingPropagator) -> list[dict[str, str]]:
    """The carriers extracted on the callee side (those holding the caller's traceparent)."""
    return [carrier for carrier in counter.extracted if "traceparent" in carrier]


@pytest.mark.parametrize("streaming", [True, False], ids=["stream", "send"])
@pytest.mark.parametrize(("transport", "v0_3"), COMBINATIONS, ids=COMBINATION_IDS)
async def test_one_extraction_per_request(
    telemetry: Telemetry,
    counting: CountingPropagator,
    transport: Transport,
    v0_3: bool,
    streaming: bool,
) -> None:
    async with (
        serving(ScriptedAgent([complete()])) as served,
        create_client(served.card_for(transport, v0_3=v0_3), streaming=streaming) as client,
    ):
        for _ in range(REQUESTS):
            await drain(client)
    assert len(inbound(counting)) == REQUESTS
    assert_joined(telemetry)


def assert_joined(telemetry: Telemetry) -> None:
    """Each callee turn is a child of a caller turn."""
    callers = {span_id(span): span for span in telemetry.turn_spans(conv.OBSERVER_CALLER)}
    callees = telemetry.turn_spans(conv.OBSERVER_CALLEE)
    assert len(callees) == len(callers) == REQUESTS
    for callee in callees:
        assert callee.parent is not None
        assert trace_id(callers[callee.parent.span_id]) == trace_id(callee)


@pytest.mark.parametrize("transport", ["jsonrpc", "rest"])
async def test_an_oversized_baggage_header_is_one_short_line_and_the_trace_joins(
    telemetry: Telemetry,
    counting: CountingPropagator,
    caplog: pytest.LogCaptureFixture,
    transport: Transport,
) -> None:
    oversized = ",".join(f"k{index}=" + "v" * 50 for index in range(1200))  # 60 KB
    # INFO and up: a2a-sdk's own DEBUG lines print each request's whole call context.
    caplog.set_level(logging.INFO)
    async with serving(ScriptedAgent([complete()])) as served:
        card = served.card_for(transport)
        async with create_client(card, headers={"baggage": oversized}) as client:
            for _ in range(REQUESTS):
                await drain(client)
    about_baggage = [r for r in caplog.records if "aggage" in r.getMessage()]
    assert len(about_baggage) <= REQUESTS
    assert all(len(record.getMessage()) < 500 for record in caplog.records)
    assert all("baggage" not in carrier for carrier in inbound(counting))
    assert_joined(telemetry)


async def test_what_a_propagator_logs_of_a_bad_header_is_inert(
    telemetry: Telemetry, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    # C1 CSI and OSC as Latin-1 bytes, which HTTP/1.1 lets through (ESC it does not).
    hostile = b"k=v\x9b31m,\x9d0;title\x9c"
    send = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}},
    }
    headers = {
        "content-type": "application/json",
        "a2a-version": "1.0",
        "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        "baggage": hostile,
    }
    async with serving(ScriptedAgent([complete()])) as served, httpx.AsyncClient() as http:
        answer = await http.post(served.http_url + "/", json=send, headers=headers, timeout=30)
    assert answer.status_code == 200
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "\\x9b31m" in logged  # the propagator said what it refused, inert
    for control in ("\x9b", "\x9d", "\x9c"):
        assert control not in logged
    callee = telemetry.turn_span(conv.OBSERVER_CALLEE)
    assert trace_id(callee) == 0x0AF7651916CD43DD8448EB211C80319C
