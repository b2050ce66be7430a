"""The trace waterfall: one tree of both agents' spans, bars on the trace's timeline."""

import io

import pytest
from cli_support import ANSI
from rich.console import Console

from a2a_progress.cli.trace_view import Waterfall
from a2a_progress.otlp import ReceivedSpan
from support.otlp import received_span

MS = 1_000_000


def span(
    service: str,
    name: str,
    span_id: str,
    parent: str | None,
    times_ms: tuple[int, int],
    *,
    error: str = "",
    events: int = 0,
) -> ReceivedSpan:
    """A received span of ``service``, ``times_ms`` into a trace that began 1 s after the epoch."""
    start_ms, end_ms = times_ms
    return received_span(
        name,
        span_id,
        parent,
        service=service,
        start_ns=(1_000 + start_ms) * MS,
        end_ns=(1_000 + end_ms) * MS,
        error=error,
        events=events,
    )


SPANS = [
    # Arrival order is not tree order: children before parents, callee before caller.
    span("callee", "execute_tool fetch", "c2", "c1", (2_000, 3_000), error="timed out"),
    span("callee", "SendStreamingMessage", "c1", "a2", (100, 3_900), events=2),
    span("caller", "execute_tool search", "a3", "a2", (1_000, 1_500), events=1),
    span("caller", "SendStreamingMessage", "a2", "a1", (50, 3_950)),
    span("caller", "demo", "a1", None, (0, 4_000)),
    span("callee", "orphan", "x1", "missing", (3_000, 4_000)),
]


def render() -> list[str]:
    console = Console(file=io.StringIO(), width=100)
    console.print(Waterfall(SPANS))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert not ANSI.search(text)
    return text.splitlines()


def column(lines: list[str], name: str, next_name: str | None) -> list[str]:
    """The cells of the column ``name`` (by the header's positions), rows only."""
    header = lines[1]
    start = header.index(name)
    end = header.index(next_name) if next_name else None
    return [line[start:end] for line in lines[2:8]]


def test_rows_form_one_tree_in_start_order() -> None:
    lines = render()
    assert lines[0] == f"trace {'ab' * 16}  ·  6 spans  ·  caller, callee  ·  4.00s"
    assert [cell.rstrip() for cell in column(lines, "span", "service")] == [
        "demo",
        "└─ SendStreamingMessage",
        "   ├─ SendStreamingMessage",
        "   │  └─ execute_tool fetch",
        "   └─ execute_tool search",
        "orphan",
    ]
    assert [cell.strip() for cell in column(lines, "service", "timeline")] == [
        "caller",
        "caller",
        "callee",
        "callee",
        "caller",
        "callee",
    ]


def test_each_row_has_a_bar_duration_status_and_events() -> None:
    lines = render()
    assert [cell.strip() for cell in column(lines, "duration", "status")] == [
        "4.00s",
        "3.90s",
        "3.80s",
        "1.00s",
        "500ms",
        "1.00s",
    ]
    assert [cell.strip() for cell in column(lines, "status", "events")] == [
        "ok",
        "ok",
        "ok",
        "ERROR",
        "ok",
        "ok",
    ]
    assert [cell.strip() for cell in column(lines, "events", None)] == ["", "", "2", "", "1", ""]
    bars = column(lines, "timeline", "duration")
    width = len(bars[0].rstrip())  # the root span fills the whole timeline
    # execute_tool fetch runs from 2.0 s to 3.0 s of a 4 s trace: the timeline's third quarter.
    filled = [index for index, char in enumerate(bars[3]) if char == "█"]
    assert filled[0] / width == pytest.approx(0.5, abs=0.05)
    assert len(filled) / width == pytest.approx(0.25, abs=0.05)
    assert filled == list(range(filled[0], filled[-1] + 1))
    assert lines[8] == "✗ execute_tool fetch (callee): timed out"


def test_span_text_from_an_exporter_is_inert_on_the_terminal() -> None:
    # Any process can export spans to `traces`: names, services and messages are untrusted.
    evil = "a\x1b[2J\x1b]0;PWNED\x07b\u202ec\x9b31m\nd"
    shown = "a␛[2J␛]0;PWNED␇b\\u202ec\\x9b31m␊d"
    spans = [
        received_span(f"root {evil}", "r1", None, service=f"svc {evil}", end_ns=2 * MS),
        received_span(f"child {evil}", "c1", "r1", service="svc", end_ns=MS, error=f"boom {evil}"),
    ]
    console = Console(file=io.StringIO(), width=200, force_terminal=True)
    console.print(Waterfall(spans))
    console.print(Waterfall(spans[:1]).one_line())
    text = console.file.getvalue()  # type: ignore[attr-defined]
    for attack in ("\x1b[2J", "\x1b]0;", "\x07", "\u202e", "\x9b"):
        assert attack not in text
    for fragment in (f"root {shown}", f"child {shown}", f"svc {shown}", f"boom {shown}"):
        assert fragment in text, fragment
