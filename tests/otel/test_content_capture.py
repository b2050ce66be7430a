"""Content capture is off by default, as the GenAI conventions ask; operators turn it on (or
keep it off) for every GenAI instrumentation at once with contrib's variable, and ours wins
when both are set. With it off, span events still say what happened and how big it was."""

import json

import pytest
from otel_support import (
    Telemetry,
    all_telemetry_text,
    attrs,
    call,
    complete,
    done,
    events,
    output,
    serving,
    start,
    text,
    thinking,
)

from a2a_progress.otel import conventions as conv
from a2a_progress.otel.config import (
    ENV_CAPTURE_CONTENT,
    ENV_GENAI_CAPTURE_CONTENT,
    BridgeConfig,
)
from support.spans import tool_call_result

SIDES = (conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE)
STEPS = [
    thinking("weighing the options"),
    start("search", "s1"),
    output("s1", "3 results"),
    done("s1"),
    text("found them"),
    complete("the answer is 42"),
]
SAID = ("weighing the options", "3 results", "found them", "the answer is 42")


@pytest.mark.parametrize(
    ("ours", "genai", "expected"),
    [
        (None, None, False),  # the default: off
        (None, "true", True),
        (None, "TRUE", True),
        (None, "false", False),
        (None, "SPAN_ONLY", True),
        (None, "event_only", True),
        (None, "SPAN_AND_EVENT", True),
        (None, "NO_CONTENT", False),
        (None, "something else", False),
        ("false", "SPAN_AND_EVENT", False),  # ours wins
        ("true", "NO_CONTENT", True),  # ours wins
        ("not a bool", "true", True),  # ours unparseable: as if unset
    ],
)
def test_capture_content_from_the_environment(
    ours: str | None, genai: str | None, expected: bool
) -> None:
    environ = {
        name: value
        for name, value in ((ENV_CAPTURE_CONTENT, ours), (ENV_GENAI_CAPTURE_CONTENT, genai))
        if value is not None
    }
    assert BridgeConfig.resolve({}, environ).capture_content is expected
    # The argument wins over both.
    assert BridgeConfig.resolve({"capture_content": not expected}, environ).capture_content is (
        not expected
    )


async def test_no_content_by_default_only_what_happened(telemetry: Telemetry) -> None:
    telemetry.instrument(capture_content=None)  # the environment's, else the default
    async with serving(STEPS, enable_output=True) as served:
        await call(served.card_for("jsonrpc"))
    texts = all_telemetry_text(telemetry)
    assert not any(said in text for said in SAID for text in texts)
    for observer in SIDES:
        turn = telemetry.turn_span(observer)
        assert events(turn) == [
            {conv.SEQ: 1, conv.CONTENT_SIZE: len("weighing the options")},
            {conv.SEQ: 5, conv.CONTENT_SIZE: len("found them")},
        ]
        assert conv.GEN_AI_OUTPUT_MESSAGES not in attrs(turn)
        tool = telemetry.tool_span(observer)
        assert events(tool) == [
            {conv.SEQ: 3, conv.STREAM_KEY: "s1", conv.CONTENT_SIZE: len("3 results")}
        ]
        assert tool_call_result(attrs(tool)) is None


async def test_contribs_variable_turns_it_on(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_GENAI_CAPTURE_CONTENT, "SPAN_AND_EVENT")
    telemetry.instrument(capture_content=None)
    async with serving(STEPS, enable_output=True) as served:
        await call(served.card_for("grpc"))
    for observer in SIDES:
        turn = telemetry.turn_span(observer)
        assert [event[conv.CONTENT] for event in events(turn)] == [
            "weighing the options",
            "found them",
        ]
        # Where GenAI backends read: the turn's reasoning and text, then its reply.
        assert json.loads(attrs(turn)[conv.GEN_AI_OUTPUT_MESSAGES]) == [
            {
                "role": "assistant",
                "parts": [
                    {"type": "reasoning", "content": "weighing the options"},
                    {"type": "text", "content": "found them"},
                    {"type": "text", "content": "the answer is 42"},
                ],
                "finish_reason": "stop",
            }
        ]
        # The tool's output, as its result (the caller's mirror's under its own name).
        assert tool_call_result(attrs(telemetry.tool_span(observer))) == "3 results"


async def test_ours_wins_over_contribs(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_GENAI_CAPTURE_CONTENT, "true")
    monkeypatch.setenv(ENV_CAPTURE_CONTENT, "false")
    telemetry.instrument(capture_content=None)
    async with serving(STEPS, enable_output=True) as served:
        await call(served.card_for("rest"))
    texts = all_telemetry_text(telemetry)
    assert not any(said in text for said in SAID for text in texts)


async def test_captured_content_is_redacted_and_bounded(telemetry: Telemetry) -> None:
    telemetry.instrument(capture_content=True, content_max_length=160)
    secret = "password=hunter2hunter2"
    steps = [
        start("shell", "x1"),
        output("x1", f"login {secret} " + "y" * 200),
        done("x1"),
        complete(f"done, {secret}"),
    ]
    async with serving(steps, enable_output=True) as served:
        await call(served.card_for("jsonrpc"))
    for observer in SIDES:
        result = tool_call_result(attrs(telemetry.tool_span(observer)))
        assert "hunter2" not in result
        assert len(result.encode()) <= 160
        # The whole JSON value is bounded too, and still JSON.
        messages = attrs(telemetry.turn_span(observer))[conv.GEN_AI_OUTPUT_MESSAGES]
        assert "hunter2" not in messages
        assert len(messages.encode()) <= 160
        assert json.loads(messages)[0]["role"] == "assistant"
