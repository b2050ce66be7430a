"""Limits and settings: content capture and its bound (marker and flag), the 64 KiB ceiling on
anything that reaches telemetry, the per-span event cap, and the sides switch, each by
instrumentor argument and by environment variable."""

from typing import Any

import pytest
from a2a.utils.errors import A2AError
from otel_support import (
    Telemetry,
    all_telemetry_text,
    attrs,
    call,
    complete,
    done,
    env,
    events,
    output,
    parent_id,
    raise_,
    raw,
    serving,
    start,
    thinking,
)

from a2a_progress.envelope import HARD_LIMIT_BYTES
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.config import (
    ENV_CAPTURE_CONTENT,
    ENV_CONTENT_MAX_LENGTH,
    ENV_MAX_EVENTS,
    ENV_SIDES,
    NAME_MAX_LENGTH,
)
from support.spans import tool_call_id, tool_name

MARKER = "...truncated"
SIDES = (conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE)


def size(text: str) -> int:
    return len(text.encode("utf-8"))


async def thinking_events(telemetry: Telemetry, *texts: str) -> dict[str, list[dict[str, Any]]]:
    """Send one thinking envelope per text; the turn spans' events, by side."""
    async with serving([*(thinking(t) for t in texts), complete()]) as served:
        await call(served.card_for("jsonrpc"))
    return {observer: events(telemetry.turn_span(observer)) for observer in SIDES}


async def test_content_is_bounded_to_4_kib_with_a_marker_and_a_flag(telemetry: Telemetry) -> None:
    long = "".join(f"{i:05d}" for i in range(1200))  # 6000 bytes, one envelope
    by_side = await thinking_events(telemetry, "short", long)
    for observer in SIDES:
        short_event, long_event = by_side[observer]
        assert short_event == {
            "a2a.progress.seq": 1,
            "a2a.progress.content.size": 5,
            "a2a.progress.content": "short",
        }
        content = long_event[conv.CONTENT]
        assert size(content) == 4096
        assert content == long[: 4096 - len(MARKER)] + MARKER
        assert long_event[conv.CONTENT_TRUNCATED] is True


async def test_the_bound_never_splits_a_character(telemetry: Telemetry) -> None:
    accents = "é" * 2100 + "🙂" * 600  # 4200 + 2400 bytes
    by_side = await thinking_events(telemetry, accents)
    for observer in SIDES:
        content = by_side[observer][0][conv.CONTENT]
        assert size(content) <= 4096
        assert content.endswith(MARKER)
        assert accents.startswith(content.removesuffix(MARKER))


async def test_content_max_length_argument(telemetry: Telemetry) -> None:
    telemetry.instrument(content_max_length=100)
    by_side = await thinking_events(telemetry, "a" * 99 + "bc")
    for observer in SIDES:
        assert by_side[observer][0][conv.CONTENT] == "a" * (100 - len(MARKER)) + MARKER


async def test_content_max_length_environment_variable(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_CONTENT_MAX_LENGTH, "64")
    telemetry.instrument()
    by_side = await thinking_events(telemetry, "z" * 100)
    for observer in SIDES:
        assert by_side[observer][0][conv.CONTENT] == "z" * (64 - len(MARKER)) + MARKER


async def test_the_argument_beats_the_environment_and_garbage_is_ignored(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_CONTENT_MAX_LENGTH, "64")
    monkeypatch.setenv(ENV_MAX_EVENTS, "lots")
    telemetry.instrument(content_max_length=200)
    by_side = await thinking_events(telemetry, *(["y" * 300] * 1 + [str(i) for i in range(130)]))
    for observer in SIDES:
        first, *rest = by_side[observer]
        assert size(first[conv.CONTENT]) == 200
        # An unparseable MAX_EVENTS keeps the default cap of 128 events.
        assert len(rest) + 1 == 128
        assert attrs(telemetry.turn_span(observer))[conv.EVENTS_DROPPED] == 3


@pytest.mark.parametrize("how", ["argument", "environment"])
async def test_content_capture_off(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    if how == "argument":
        telemetry.instrument(capture_content=False)
    else:
        monkeypatch.setenv(ENV_CAPTURE_CONTENT, "false")
        telemetry.instrument(capture_content=None)
    steps = [thinking("secret plan"), raw(None, "plain words"), complete()]
    async with serving(steps) as served:
        await call(served.card_for("grpc"))
    for observer in SIDES:
        # What happened, and how big it was: never what it said.
        assert events(telemetry.turn_span(observer)) == [
            {"a2a.progress.seq": 1, "a2a.progress.content.size": 11},
            {"a2a.progress.degraded": True, "a2a.progress.content.size": 11},
        ]
    assert not any("secret plan" in t or "plain words" in t for t in all_telemetry_text(telemetry))


async def test_nothing_over_64_kib_reaches_telemetry(telemetry: Telemetry) -> None:
    telemetry.instrument(content_max_length=10**7)  # asks for more than the ceiling
    tool, key = "n" * 60_000, "k" * 2000  # each envelope stays under the 64 KiB limit
    steps = [
        raw(None, "p" * 200_000),  # a plain update: no envelope bounds its size
        env("tool_call", 1, stream_key=key, tool=tool, tool_call_id="i" * 1000),
        env("tool_call", 2, "aborted", stream_key=key, tool=tool, reason="r" * 1000),
        raise_(RuntimeError("e" * 200_000)),
    ]
    async with serving(steps) as served:
        with pytest.raises(A2AError):
            await call(served.card_for("jsonrpc"))

    for observer in SIDES:
        [degraded] = events(telemetry.turn_span(observer))
        assert size(degraded[conv.CONTENT]) <= HARD_LIMIT_BYTES
        assert degraded[conv.CONTENT].startswith("p" * 60_000)
        assert degraded[conv.CONTENT].endswith(MARKER)
        assert degraded[conv.CONTENT_TRUNCATED] is True
        tool = telemetry.tool_span(observer)
        assert size(tool.name) <= len("execute_tool ") + NAME_MAX_LENGTH
        for value in (
            tool_name(attrs(tool)),
            attrs(tool)[conv.STREAM_KEY],
            tool_call_id(attrs(tool)),
        ):
            assert size(value) <= NAME_MAX_LENGTH
        assert size(tool.status.description or "") <= NAME_MAX_LENGTH
    texts = all_telemetry_text(telemetry)
    assert any(t.startswith("eee") for t in texts)  # the exception messages are there, cut
    assert max(size(t) for t in texts) <= HARD_LIMIT_BYTES


@pytest.mark.parametrize(("cap", "kept"), [(4, [1, 2, 9, 10]), (5, [1, 2, 3, 9, 10])])
async def test_the_event_cap_keeps_the_first_and_the_latest(
    telemetry: Telemetry, cap: int, kept: list[int]
) -> None:
    telemetry.instrument(max_events_per_span=cap)
    by_side = await thinking_events(telemetry, *(f"thought {i}" for i in range(1, 11)))
    for observer in SIDES:
        assert [event[conv.SEQ] for event in by_side[observer]] == kept
        assert [event[conv.CONTENT] for event in by_side[observer]] == [
            f"thought {i}" for i in kept
        ]
        assert attrs(telemetry.turn_span(observer))[conv.EVENTS_DROPPED] == 10 - len(kept)


async def test_the_event_cap_of_a_tool_span_from_the_environment(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_MAX_EVENTS, "6")
    telemetry.instrument()
    steps = [start("tail", "t"), *(output("t", f"line {i}\n") for i in range(10)), done("t")]
    async with serving([*steps, complete()], enable_output=True) as served:
        await call(served.card_for("rest"))
    for observer in SIDES:
        tool = telemetry.tool_span(observer)
        assert [event[conv.CONTENT] for event in events(tool)] == [
            f"line {i}\n" for i in (0, 1, 2, 7, 8, 9)
        ]
        assert attrs(tool)[conv.EVENTS_DROPPED] == 4
        assert conv.EVENTS_DROPPED not in attrs(telemetry.turn_span(observer))


async def test_no_drop_count_under_the_cap(telemetry: Telemetry) -> None:
    await thinking_events(telemetry, "one", "two")
    for observer in SIDES:
        assert conv.EVENTS_DROPPED not in attrs(telemetry.turn_span(observer))


@pytest.mark.parametrize(
    ("setting", "observed"),
    [
        ({"env": "caller"}, {"caller"}),
        ({"env": "callee"}, {"callee"}),
        ({"env": "none"}, set()),
        ({"env": "both"}, {"caller", "callee"}),
        ({"env": "nonsense"}, {"caller", "callee"}),
        ({"arg": {"callee"}}, {"callee"}),
        ({"arg": {"caller"}, "env": "callee"}, {"caller"}),
    ],
    ids=["env-caller", "env-callee", "env-none", "env-both", "env-nonsense", "arg", "arg-wins"],
)
async def test_sides(
    telemetry: Telemetry,
    monkeypatch: pytest.MonkeyPatch,
    setting: dict[str, Any],
    observed: set[str],
) -> None:
    if "env" in setting:
        monkeypatch.setenv(ENV_SIDES, setting["env"])
    telemetry.instrument(sides=setting.get("arg"))
    async with serving([start("search", "s"), done("s"), complete()]) as served:
        await call(served.card_for("jsonrpc"))
    assert {attrs(span)[conv.OBSERVER] for span in telemetry.tool_spans()} == observed
    assert len(telemetry.turn_spans(conv.OBSERVER_CALLER)) == ("caller" in observed)
    assert len(telemetry.turn_spans(conv.OBSERVER_CALLEE)) == ("callee" in observed)
    if observed == {"callee"}:
        # No caller span, so no trace context to continue: the execution is a root.
        assert parent_id(telemetry.turn_span(conv.OBSERVER_CALLEE)) is None
