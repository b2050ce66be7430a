"""The waterfall with what `traces` meets from other people's exporters: broken parent links,
long span names, one-span traces."""

from __future__ import annotations

import io

from rich.console import Console

from a2a_progress.cli.trace_view import Waterfall
from a2a_progress.otlp import ReceivedSpan
from support.otlp import received_span

MS = 1_000_000


def span(name: str, span_id: str, parent: str | None) -> ReceivedSpan:
    start = int(span_id, 16) * MS
    return received_span(
        name, span_id, parent, start_ns=start, end_ns=start + 5 * MS, trace_id="cd" * 16
    )


def render(waterfall: Waterfall | object, width: int = 100) -> list[str]:
    console = Console(file=io.StringIO(), width=width)
    console.print(waterfall)
    return console.file.getvalue().splitlines()  # type: ignore[attr-defined]


def names(lines: list[str]) -> list[str]:
    return [line.split("  ")[0].strip("└├│─ ") for line in lines[2:]]


def test_spans_in_a_parent_cycle_are_drawn_once_each() -> None:
    spans = [
        span("root", "01", None),
        span("child", "02", "01"),
        span("loop a", "03", "04"),  # a and b name each other as parent
        span("loop b", "04", "03"),
        span("self", "05", "05"),
    ]
    lines = render(Waterfall(spans))
    assert sorted(names(lines)) == ["child", "loop a", "loop b", "root", "self"]
    assert "5 spans" in lines[0]


def test_a_long_span_name_is_cut_and_the_other_columns_stay() -> None:
    long = "a2a.server.request_handlers.default_request_handler.DefaultRequestHandler.x" * 2
    lines = render(Waterfall([span("root", "01", None), span(long, "02", "01")]), width=100)
    header, *rows = lines[1:]
    assert header.split() == ["span", "service", "timeline", "duration", "status", "events"]
    assert all(len(line) <= 100 for line in lines)
    assert "…" in rows[1]
    assert rows[1].split()[-2:] == ["5.0ms", "ok"]


def test_one_line_names_the_span_of_a_one_span_trace() -> None:
    [line] = render(Waterfall([span("health check", "01", None)]).one_line(), width=200)
    assert line.startswith("trace " + "cd" * 16 + "  ·  1 span  ·  svc  ·  5.0ms")
    assert line.endswith("health check  ok")


def test_a_megabyte_name_is_cut_on_one_line() -> None:
    huge = span("n" * 1_000_000, "01", None)
    [line] = render(Waterfall([huge]).one_line(), width=10_000)
    assert len(line) < 1_000
    assert "n" * 500 + "…" in line
