"""Hand-built streams that arrive out of order, twice, or not at all: envelopes are best effort
(spec rule 3) and the bridge must still give one span per tool call and one event per envelope,
on both sides."""

from typing import Any

from opentelemetry.trace import StatusCode
from otel_support import Step, Telemetry, attrs, call, complete, env, events, raw, serving, status

from a2a_progress.otel import conventions as conv
from support.spans import tool_call_id

SIDES = (conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE)


def tools(telemetry: Telemetry, observer: str) -> list[tuple[Any, ...]]:
    """Each tool span as (name, first seq, last seq, end reason, status)."""
    return [
        (
            span.name,
            attrs(span)[conv.SEQ_FIRST],
            attrs(span)[conv.SEQ_LAST],
            attrs(span)[conv.END_REASON],
            status(span),
        )
        for span in telemetry.tool_spans(observer)
    ]


def turn_events(telemetry: Telemetry, observer: str) -> list[tuple[Any, ...]]:
    """Each event of the turn span as (seq, stream key, content)."""
    return [
        (event.get(conv.SEQ), event.get(conv.STREAM_KEY), event[conv.CONTENT])
        for event in events(telemetry.turn_span(observer))
    ]


async def run(steps: list[Step], transport: str = "jsonrpc") -> None:
    async with serving([*steps, complete()]) as served:
        await call(served.card_for(transport))  # type: ignore[arg-type]


async def test_done_before_running_gives_one_span(telemetry: Telemetry) -> None:
    await run(
        [
            env("tool_call", 5, "done", stream_key="k", tool="fetch"),
            env("tool_call", 4, stream_key="k", tool="fetch"),  # its start, late
        ]
    )
    for observer in SIDES:
        assert tools(telemetry, observer) == [
            ("execute_tool fetch", 5, 5, "done", StatusCode.UNSET)
        ]


async def test_aborted_before_running_gives_one_error_span(telemetry: Telemetry) -> None:
    await run(
        [
            env("tool_call", 2, "aborted", stream_key="k", tool="fetch", reason="timeout"),
            env("tool_call", 1, stream_key="k", tool="fetch"),
        ],
        "grpc",
    )
    for observer in SIDES:
        assert tools(telemetry, observer) == [
            ("execute_tool fetch", 2, 2, "aborted", StatusCode.ERROR)
        ]
        assert telemetry.tool_span(observer).status.description == "timeout"


async def test_a_duplicate_running_gives_no_second_span(telemetry: Telemetry) -> None:
    start = env("tool_call", 1, stream_key="k", tool="fetch")
    await run([start, start, env("tool_call", 2, "done", stream_key="k", tool="fetch"), start])
    for observer in SIDES:
        assert tools(telemetry, observer) == [
            ("execute_tool fetch", 1, 2, "done", StatusCode.UNSET)
        ]


async def test_a_duplicate_done_changes_nothing(telemetry: Telemetry) -> None:
    end = env("tool_call", 3, "done", stream_key="k", tool="fetch")
    await run([env("tool_call", 1, stream_key="k", tool="fetch"), end, end], "rest")
    for observer in SIDES:
        assert tools(telemetry, observer) == [
            ("execute_tool fetch", 1, 3, "done", StatusCode.UNSET)
        ]


async def test_a_late_start_of_an_open_call_moves_its_first_seq(telemetry: Telemetry) -> None:
    await run(
        [
            env("tool_call", 5, stream_key="k", tool="fetch"),
            env("tool_call", 3, stream_key="k", tool="fetch"),
            env("tool_call", 7, "done", stream_key="k", tool="fetch"),
        ]
    )
    for observer in SIDES:
        assert tools(telemetry, observer) == [
            ("execute_tool fetch", 3, 7, "done", StatusCode.UNSET)
        ]


async def test_a_start_after_progress_of_its_stream(telemetry: Telemetry) -> None:
    await run(
        [
            env("thinking", 2, stream_key="k", text="early"),
            env("tool_call", 1, stream_key="k", tool="fetch"),
            env("thinking", 3, stream_key="k", text="inside"),
            env("tool_call", 4, "done", stream_key="k", tool="fetch"),
        ]
    )
    for observer in SIDES:
        assert tools(telemetry, observer) == [
            ("execute_tool fetch", 1, 4, "done", StatusCode.UNSET)
        ]
        # Progress that came before its tool existed stays on the turn.
        assert turn_events(telemetry, observer) == [(2, "k", "early")]
        assert [e[conv.CONTENT] for e in events(telemetry.tool_span(observer))] == ["inside"]


async def test_a_new_start_on_an_open_stream_supersedes_it(telemetry: Telemetry) -> None:
    await run(
        [
            env("tool_call", 1, tool="first"),  # the default stream: no key, no call id
            env("tool_call", 3, tool="second"),
            env("tool_call", 4, "done", tool="second"),
        ]
    )
    for observer in SIDES:
        assert tools(telemetry, observer) == [
            ("execute_tool first", 1, 1, "superseded", StatusCode.UNSET),
            ("execute_tool second", 3, 4, "done", StatusCode.UNSET),
        ]


async def test_the_call_id_is_the_key_when_there_is_no_stream_key(telemetry: Telemetry) -> None:
    await run(
        [
            env("tool_call", 1, tool="a", tool_call_id="id-a"),
            env("tool_call", 2, tool="b", tool_call_id="id-b"),
            env("tool_call", 3, "done", tool="a", tool_call_id="id-a"),
            env("tool_call", 4, "done", tool="b", tool_call_id="id-b"),
        ]
    )
    for observer in SIDES:
        assert tools(telemetry, observer) == [
            ("execute_tool a", 1, 3, "done", StatusCode.UNSET),
            ("execute_tool b", 2, 4, "done", StatusCode.UNSET),
        ]
        assert [tool_call_id(attrs(span)) for span in telemetry.tool_spans(observer)] == [
            "id-a",
            "id-b",
        ]
        assert all(conv.STREAM_KEY not in attrs(span) for span in telemetry.tool_spans(observer))


async def test_reordered_and_duplicated_progress_is_recorded_once(telemetry: Telemetry) -> None:
    await run(
        [
            env("thinking", 3, text="three"),
            env("thinking", 1, text="one"),
            env("thinking", 3, text="three"),
            env("thinking", 2, text="two"),
            env("thinking", 1, text="one"),
            env("text", 1, stream_key="other", text="same seq, other stream"),
        ],
        "grpc",
    )
    for observer in SIDES:
        # Arrival order: a span event is stamped when it arrives; seq says where it belongs.
        assert turn_events(telemetry, observer) == [
            (3, None, "three"),
            (1, None, "one"),
            (2, None, "two"),
            (1, "other", "same seq, other stream"),
        ]


async def test_a_repeated_plain_update_is_recorded_once(telemetry: Telemetry) -> None:
    await run(
        [
            raw(None, "plain", message_id="m-1"),
            raw(None, "plain", message_id="m-1"),
            raw(None, "plain again", message_id="m-2"),
        ]
    )
    for observer in SIDES:
        assert turn_events(telemetry, observer) == [
            (None, None, "plain"),
            (None, None, "plain again"),
        ]


async def test_progress_far_behind_its_stream_is_dropped(telemetry: Telemetry) -> None:
    await run([env("thinking", 5000, text="new"), env("thinking", 1, text="too old")])
    for observer in SIDES:
        assert turn_events(telemetry, observer) == [(5000, None, "new")]


async def test_a_done_on_a_stream_without_a_tool_is_only_an_event(telemetry: Telemetry) -> None:
    await run([env("thinking", 1, "done", stream_key="k", text="finished thinking")])
    for observer in SIDES:
        assert telemetry.tool_spans(observer) == []
        assert turn_events(telemetry, observer) == [(1, "k", "finished thinking")]
