"""The opt-in ``invoke_agent {agent}`` span around an A2A call, as the draft A2A conventions'
example shows, with ``gen_ai.invoke_agent.duration``; and the draft's A2A attributes."""

import json

import pytest
from a2a.types import TaskState
from opentelemetry.trace import SpanKind, StatusCode
from otel_support import (
    Telemetry,
    attrs,
    call,
    complete,
    done,
    parent_id,
    serving,
    span_id,
    start,
    status,
    thinking,
    user_message,
)

from a2a_progress.otel import conventions as conv
from a2a_progress.otel.config import ENV_INVOKE_AGENT_SPAN
from a2a_progress.serving import card_with_interfaces, create_client
from support.scripted import status as scripted_status

STEPS = [thinking("on it"), start("search", "s1"), done("s1"), complete("found")]


def invoke_spans(telemetry: Telemetry) -> list:  # type: ignore[type-arg]
    return [
        span
        for span in telemetry.spans()
        if attrs(span).get(conv.GEN_AI_OPERATION_NAME) == conv.OPERATION_INVOKE_AGENT
    ]


async def test_off_by_default(telemetry: Telemetry) -> None:
    async with serving(STEPS) as served:
        await call(served.card_for("jsonrpc"))
    assert invoke_spans(telemetry) == []
    assert telemetry.points(conv.METRIC_INVOKE_AGENT_DURATION) == []


@pytest.mark.parametrize("how", ["argument", "environment"])
async def test_the_call_runs_inside_an_invoke_agent_span(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    if how == "argument":
        telemetry.instrument(invoke_agent_span=True)
    else:
        monkeypatch.setenv(ENV_INVOKE_AGENT_SPAN, "true")
        telemetry.instrument()
    async with serving(STEPS) as served:
        await call(served.card_for("grpc"))
    [invoke] = invoke_spans(telemetry)
    name = served.card.name
    assert (invoke.name, invoke.kind) == (f"invoke_agent {name}", SpanKind.CLIENT)
    assert attrs(invoke)[conv.GEN_AI_PROVIDER_NAME] == "a2a"
    assert attrs(invoke)[conv.GEN_AI_AGENT_NAME] == name
    assert attrs(invoke)[conv.GEN_AI_AGENT_DESCRIPTION] == served.card.description
    caller = telemetry.turn_span(conv.OBSERVER_CALLER)
    assert parent_id(caller) == span_id(invoke)
    assert parent_id(telemetry.turn_span(conv.OBSERVER_CALLEE)) == span_id(caller)
    assert status(invoke) is StatusCode.UNSET
    # Content is on in these tests: what was asked, and what the agent said.
    assert json.loads(attrs(invoke)[conv.GEN_AI_INPUT_MESSAGES]) == [
        {"role": "user", "parts": [{"type": "text", "content": "hello"}]}
    ]
    output = json.loads(attrs(invoke)[conv.GEN_AI_OUTPUT_MESSAGES])
    assert output[0]["parts"][-1] == {"type": "text", "content": "found"}
    [(attributes, point)] = telemetry.points(conv.METRIC_INVOKE_AGENT_DURATION)
    assert attributes == {conv.GEN_AI_AGENT_NAME: name}
    assert point.count == 1
    assert tuple(point.explicit_bounds) == conv.INVOKE_AGENT_DURATION_BUCKETS


async def test_a_failed_call_fails_its_invoke_agent_span(telemetry: Telemetry) -> None:
    telemetry.instrument(invoke_agent_span=True, capture_content=False)
    steps = [scripted_status(TaskState.TASK_STATE_FAILED, "no route to the deploy api")]
    async with serving(steps) as served:
        await call(served.card_for("rest"))
    [invoke] = invoke_spans(telemetry)
    assert status(invoke) is StatusCode.ERROR
    assert attrs(invoke)[conv.ERROR_TYPE] == "TASK_STATE_FAILED"
    assert invoke.status.description == "no route to the deploy api"
    assert conv.GEN_AI_INPUT_MESSAGES not in attrs(invoke)  # content off
    [(attributes, _)] = telemetry.points(conv.METRIC_INVOKE_AGENT_DURATION)
    assert attributes[conv.ERROR_TYPE] == "TASK_STATE_FAILED"


async def test_server_port_defaults_to_the_schemes(telemetry: Telemetry) -> None:
    async with serving(STEPS) as served:
        card = card_with_interfaces(served.card, "jsonrpc")
        card.supported_interfaces[0].url = "http://127.0.0.1/"  # no port: 80 (refused here)
        async with create_client(card) as client:
            with pytest.raises(Exception):  # noqa: B017, PT011 - the transport's own error
                async for _ in client.send_message(user_message()):
                    pass
    caller = telemetry.turn_span(conv.OBSERVER_CALLER)
    assert attrs(caller)[conv.SERVER_ADDRESS] == "127.0.0.1"
    assert attrs(caller)[conv.SERVER_PORT] == 80
    assert status(caller) is StatusCode.ERROR
    assert "." in attrs(caller)[conv.ERROR_TYPE]  # the client exception, fully qualified
