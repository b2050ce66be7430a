"""In-flight tool spans (opt-in): as a tool span opens, a zero-length marker span under it is
exported at once, so a trace backend shows what runs now; the tool span itself is exported once,
when it ends, and no span id is ever exported twice. Off by default."""

import asyncio

import pytest
from a2a.types import StreamResponse
from opentelemetry.sdk.trace import ReadableSpan
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

from a2a_progress.otel import conventions as conv
from a2a_progress.otel.config import ENV_PENDING_SPANS, BridgeConfig
from a2a_progress.serve import create_client

MARKER = f"{conv.TOOL_SPAN_PREFIX} search{conv.PENDING_SPAN_SUFFIX}"


def markers(telemetry: Telemetry) -> list[ReadableSpan]:
    return [span for span in telemetry.spans() if attrs(span).get(conv.PENDING) is True]


def tools(telemetry: Telemetry) -> dict[str, ReadableSpan]:
    """The real tool spans (not markers), by observer."""
    return {
        attrs(span)[conv.OBSERVER]: span
        for span in telemetry.tool_spans()
        if conv.PENDING not in attrs(span)
    }


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
        assert attrs(marker)[conv.GEN_AI_TOOL_NAME] == "search"
        assert attrs(marker)[conv.GEN_AI_TOOL_CALL_ID] == "c1"
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
