"""A trace as a waterfall: the received spans of every agent, as one tree with duration bars.

One row per span: the span name indented under its parent, the service that emitted it, a bar
placed on the trace's timeline, its duration, its status and how many events it carries. Spans
whose parent was not received are shown as roots, so a partial trace still renders. Any process
can export to the receiver: span names, service names and status messages are shown
`inert`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

from a2a_progress.cli.durations import duration
from a2a_progress.inert import inert

_SERVICE_STYLES: Final = ("cyan", "magenta", "green", "yellow", "blue")
_MIN_BAR: Final = 10
_MIN_NAME: Final = 24
_NAME_SHARE: Final = 0.45
# Levels of nesting drawn as indentation; deeper rows show their depth instead, so a chain of
# thousands of spans costs as many rows, not a square of their depth in characters.
_MAX_INDENT: Final = 24
_MAX_TEXT: Final = 500


class SpanLike(Protocol):
    """What the waterfall reads of a received span."""

    @property
    def service_name(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def trace_id(self) -> str: ...
    @property
    def span_id(self) -> str: ...
    @property
    def parent_span_id(self) -> str | None: ...
    @property
    def start_time_unix_nano(self) -> int: ...
    @property
    def end_time_unix_nano(self) -> int: ...
    @property
    def status_code(self) -> str: ...
    @property
    def status_message(self) -> str: ...
    @property
    def events(self) -> Sequence[object]: ...


@dataclass(frozen=True)
class _Row:
    span: SpanLike
    prefix: str


def _rows(spans: Sequence[SpanLike]) -> Iterator[_Row]:
    """Depth first, children by start time; spans with an unknown parent are roots.

    Spans no root leads to (parent links that form a cycle, which only a broken or hostile
    exporter sends) are drawn as roots too, each once. The walk keeps its own stack: a trace
    may nest as deep as its exporter likes.
    """
    ids = {span.span_id for span in spans}
    children: dict[str | None, list[SpanLike]] = defaultdict(list)
    for span in spans:
        parent = span.parent_span_id if span.parent_span_id in ids else None
        children[parent].append(span)
    for siblings in children.values():
        siblings.sort(key=lambda span: (span.start_time_unix_nano, span.name))
    drawn: set[int] = set()
    # Each entry: the siblings still to draw (reversed, next last), their lead and depth.
    stack: list[tuple[list[SpanLike], str, int]] = []

    def push(kids: Sequence[SpanLike], lead: str, depth: int) -> None:
        kids = [span for span in kids if id(span) not in drawn]
        drawn.update(id(span) for span in kids)
        if kids:
            stack.append((kids[::-1], lead, depth))

    def walk() -> Iterator[_Row]:
        while stack:
            pending, lead, depth = stack[-1]
            span = pending.pop()
            if not pending:
                stack.pop()
            last = not pending
            branch = "" if depth == 0 else ("└─ " if last else "├─ ")
            if depth > _MAX_INDENT:  # past it the lead stops growing and says the depth
                branch = f"{branch}[{depth}] "
            yield _Row(span, lead + branch)
            deeper = lead
            if 0 < depth <= _MAX_INDENT:
                deeper += "   " if last else "│  "
            push(children.get(span.span_id, []), deeper, depth + 1)

    push(children.get(None, []), "", 0)
    yield from walk()
    for span in spans:
        if id(span) not in drawn:
            push([span], "", 0)
            yield from walk()


def _shown(text: str) -> str:
    """Peer text as one inert line of at most `_MAX_TEXT` characters (a name may be megabytes)."""
    if len(text) > _MAX_TEXT:
        text = text[:_MAX_TEXT] + "…"
    return inert(text, one_line=True)


def _duration(nanos: int) -> str:
    return duration(nanos / 1e9)


def _bar(start: int, end: int, origin: int, total: int, width: int) -> str:
    left = round((start - origin) / total * width)
    length = max(1, round((end - start) / total * width))
    left = min(left, width - 1)
    length = min(length, width - left)
    return " " * left + "█" * length + " " * (width - left - length)


class Waterfall:
    """The renderable waterfall of the spans of one trace."""

    def __init__(self, spans: Iterable[SpanLike]) -> None:
        self.spans = list(spans)

    def services(self) -> list[str]:
        """Service names in the order their first span started."""
        ordered = sorted(self.spans, key=lambda span: span.start_time_unix_nano)
        return list(dict.fromkeys(span.service_name for span in ordered))

    def title(self) -> Text:
        """``trace <id> · N spans · services ... · total``."""
        if not self.spans:
            return Text("no spans received", style="yellow")
        origin = min(span.start_time_unix_nano for span in self.spans)
        total = max(span.end_time_unix_nano for span in self.spans) - origin
        trace_ids = sorted({span.trace_id for span in self.spans})
        count = f"{len(self.spans)} span{'' if len(self.spans) == 1 else 's'}"
        return Text.assemble(
            ("trace ", "bold"),
            (", ".join(trace_ids), "bold"),
            f"  ·  {count}  ·  {_shown(', '.join(self.services()))}  ·  ",
            _duration(total),
        )

    def one_line(self) -> Text:
        """The title and, for a trace of one span, that span: its name and status.

        For the many one-span traces a process makes outside any request (a client's
        ``close``, a health check), where a table would be noise.
        """
        line = self.title()
        if len(self.spans) == 1:
            [span] = self.spans
            line.append(f"  ·  {_shown(span.name)}  ")
            line.append_text(_status(span))
        return line

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.title()
        if not self.spans:
            return
        styles = {
            service: _SERVICE_STYLES[index % len(_SERVICE_STYLES)]
            for index, service in enumerate(self.services())
        }
        rows = list(_rows(self.spans))
        origin = min(span.start_time_unix_nano for span in self.spans)
        total = max(1, max(span.end_time_unix_nano for span in self.spans) - origin)
        cells = [
            (
                Text.assemble((row.prefix, "dim"), _shown(row.span.name)),
                Text(
                    _shown(row.span.service_name),
                    style=styles[row.span.service_name],
                ),
                _duration(row.span.end_time_unix_nano - row.span.start_time_unix_nano),
                _status(row.span),
                str(len(row.span.events)) if row.span.events else "",
            )
            for row in rows
        ]
        # Every column but the timeline is as wide as its content, the span names at most
        # `_NAME_SHARE` of the width (cut with an ellipsis); the bar takes the rest (each
        # column is padded by one on both sides, minus the table's outer edges).
        widths = [
            max(len(header), *(len(cell[column]) for cell in cells))
            for column, header in enumerate(("span", "service", "duration", "status", "events"))
        ]
        widths[0] = min(widths[0], max(_MIN_NAME, int(options.max_width * _NAME_SHARE)))
        width = max(_MIN_BAR, options.max_width - sum(widths) - 2 * 6 + 2)
        table = Table(box=None, header_style="bold", pad_edge=False, padding=(0, 1))
        table.add_column("span", no_wrap=True, max_width=widths[0], overflow="ellipsis")
        table.add_column("service", no_wrap=True)
        table.add_column("timeline", no_wrap=True, width=width)
        table.add_column("duration", justify="right", no_wrap=True)
        table.add_column("status", no_wrap=True)
        table.add_column("events", justify="right", no_wrap=True)
        for row, (name, service, took, status, events) in zip(rows, cells, strict=True):
            span = row.span
            bar = _bar(span.start_time_unix_nano, span.end_time_unix_nano, origin, total, width)
            table.add_row(name, service, Text(bar, style=service.style), took, status, events)
        yield table
        for row in rows:
            span = row.span
            if span.status_code == "ERROR" and span.status_message:
                yield Text.assemble(
                    ("✗ ", "bold red"),
                    (f"{_shown(span.name)} ({_shown(span.service_name)}): ", "red"),
                    _shown(span.status_message),
                )


def _status(span: SpanLike) -> Text:
    if span.status_code == "ERROR":
        return Text("ERROR", style="bold red")
    return Text("ok", style="green")
