"""The caller's "tool call details" view of one turn, fed :mod:`a2a_progress.consumer` updates.

In a terminal it is a live rich tree: each tool call with a spinner while it runs, then its
duration and ✓ or ✗; thinking collapsed to its first line; the tail of streamed output under its
call; progress text and errors in arrival order (late envelopes inserted by ``seq``). Anywhere
else (CI, a pipe) it prints one plain line per update, with no ANSI codes.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Final, Protocol

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.panel import Panel
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from a2a_progress.cli.errors import state_label
from a2a_progress.consumer import CallRecord, ProgressUpdate, TurnOutcome
from a2a_progress.envelope import Kind, Status

Update = ProgressUpdate | TurnOutcome

_DEFAULT_TAIL: Final = 4
_REFRESH_PER_SECOND: Final = 12
_TERMINAL_STYLES: Final = {
    "completed": ("✓", "green"),
    "failed": ("✗", "red"),
    "rejected": ("✗", "red"),
    "canceled": ("✗", "yellow"),
    "input_required": ("?", "yellow"),
    "auth_required": ("?", "yellow"),
}


class ProgressSink(Protocol):
    """Anything that shows a turn's updates: the live view, or JSON lines."""

    def update(self, item: Update) -> None:
        """Show one update (progress, or the turn's outcome)."""


@dataclass
class _Call:
    record: CallRecord
    seq: int
    started: float
    tail: deque[str]
    ended: float | None = None
    reason: str | None = None
    partial: str = ""
    lines: int = 0

    def add_output(self, chunk: str) -> list[str]:
        """Append a chunk of output; return the lines it completed."""
        pieces = (self.partial + chunk).split("\n")
        self.partial = pieces.pop()
        self.tail.extend(pieces)
        self.lines += len(pieces)
        return pieces


@dataclass
class _Note:
    kind: str  # "thinking", "text", "error" or "status" (a plain-text working update)
    text: str
    seq: int


@dataclass
class _State:
    nodes: list[_Call | _Note] = field(default_factory=list)
    calls: dict[int, _Call] = field(default_factory=dict)
    task_id: str = ""
    outcome: TurnOutcome | None = None
    ended: float | None = None


def first_line(text: str) -> tuple[str, int]:
    """The first non-blank line of ``text``, and how many more non-blank lines follow it."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return (lines[0], len(lines) - 1) if lines else ("", 0)


def _more(lines: int) -> str:
    """`` (+2 more lines)`` for collapsed text; empty when nothing is hidden."""
    return f" (+{lines} more line{'' if lines == 1 else 's'})" if lines else ""


def _duration(seconds: float) -> str:
    return f"{seconds:.2f}s" if seconds < 10 else f"{seconds:.1f}s"


class _OneLine:
    """``text`` cut with an ellipsis so that it and ``suffix`` fit on one line."""

    def __init__(self, text: Text, suffix: Text) -> None:
        self.text = text
        self.suffix = suffix

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        line = self.text.copy()
        line.truncate(max(1, options.max_width - self.suffix.cell_len), overflow="ellipsis")
        line.append_text(self.suffix)
        line.no_wrap = True
        yield line


class LiveView:
    """Shows one turn on ``console``; use it as a context manager around the updates.

    Args:
        console: where to draw. ``plain=None`` picks the live tree on a terminal and plain lines
            otherwise.
        title: the tree's root label (e.g. the agent's name).
        tail: how many of the latest output lines to keep under a tool call.
        clock: seconds, monotonic; durations are as the caller sees them.
    """

    def __init__(
        self,
        console: Console,
        *,
        plain: bool | None = None,
        title: str = "",
        tail: int = _DEFAULT_TAIL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self.plain = (not console.is_terminal) if plain is None else plain
        self._title = title
        self._tail = max(1, tail)
        self._clock = clock
        self._started = clock()
        self._state = _State()
        # rich's refresh thread renders while the event loop feeds updates.
        self._lock = threading.Lock()
        self._live: Live | None = None

    # -- feeding -------------------------------------------------------------------------------

    def update(self, item: Update) -> None:
        """Apply one update and show it."""
        with self._lock:
            if isinstance(item, TurnOutcome):
                self._finish(item)
            else:
                self._progress(item)
        if self._live is not None:
            self._live.refresh()

    def _progress(self, update: ProgressUpdate) -> None:
        state = self._state
        if not state.task_id and update.task_id:
            state.task_id = update.task_id
            self._say(f"task: {update.task_id}")
        now = self._clock()
        for record in update.closed:
            if record is not update.call:
                self._end_call(record, now, None)
        envelope = update.envelope
        call = update.call
        if update.opened and call is not None:
            node = _Call(call, envelope.seq, now, deque(maxlen=self._tail))
            state.calls[id(call)] = node
            self._insert(node, update.late)
            self._say(f"tool started: {self._call_name(call)}")
        if update.degraded:
            self._note("status", update.fallback, 0, late=False)
        elif envelope.kind is Kind.TOOL_OUTPUT_APPEND:
            self._output(update, call)
        elif envelope.kind is not Kind.TOOL_CALL:
            self._note(envelope.kind.value, envelope.content or "", envelope.seq, update.late)
        if call is not None and call in update.closed:
            reason = envelope.payload.get("reason")
            self._end_call(call, now, reason if isinstance(reason, str) else None)

    def _output(self, update: ProgressUpdate, call: CallRecord | None) -> None:
        node = self._state.calls.get(id(call)) if call is not None else None
        chunk = update.envelope.content or ""
        if node is None:
            # Output of a call this view never saw start: show it as text.
            self._note("text", chunk, update.envelope.seq, update.late)
            return
        for line in node.add_output(chunk):
            self._say(f"output {node.record.tool}: {line}")

    def _note(self, kind: str, text: str, seq: int, late: bool) -> None:
        self._insert(_Note(kind, text, seq), late)
        if kind == "thinking":
            line, more = first_line(text)
            self._say(f"thinking: {line}{_more(more)}")
            return
        label = {"text": "progress", "error": "error", "status": "status"}[kind]
        for line in text.splitlines() or [""]:
            self._say(f"{label}: {line}")

    def _insert(self, node: _Call | _Note, late: bool) -> None:
        nodes = self._state.nodes
        if late:
            for index, other in enumerate(nodes):
                if other.seq > node.seq:
                    nodes.insert(index, node)
                    return
        nodes.append(node)

    def _end_call(self, record: CallRecord, now: float, reason: str | None) -> None:
        node = self._state.calls.get(id(record))
        if node is None or node.ended is not None:
            return
        node.ended = now
        node.reason = reason
        if node.partial:
            node.add_output("\n")
        took = _duration(now - node.started)
        if record.status is Status.DONE:
            self._say(f"tool done: {self._call_name(record)} {took}")
            return
        why = reason or (record.end_reason.value if record.end_reason else "aborted")
        self._say(f"tool aborted: {self._call_name(record)} {took}: {why}")

    def _finish(self, outcome: TurnOutcome) -> None:
        state = self._state
        now = self._clock()
        for record in outcome.closed:
            self._end_call(record, now, None)
        state.outcome = outcome
        state.ended = now
        if not self.plain:
            return
        self._say(f"outcome: {self._summary(outcome, now)[0]}")
        if outcome.reply:
            self._say("answer:")
            for line in outcome.reply.splitlines():
                self._say(f"  {line}")

    def _summary(self, outcome: TurnOutcome, now: float) -> tuple[str, str]:
        """The outcome in one line, and its style: e.g. ``completed in 6.93s · 5 tool calls``."""
        label = state_label(outcome.state)
        took = _duration(now - self._started)
        if not outcome.terminal and label not in _TERMINAL_STYLES:
            return f"stream ended before the task did (last state: {label}) after {took}", "yellow"
        calls = self._state.calls.values()
        aborted = sum(1 for node in calls if node.record.status is Status.ABORTED)
        summary = f"{label} in {took}  ·  {len(calls)} tool call{'' if len(calls) == 1 else 's'}"
        if aborted:
            summary += f", {aborted} aborted"
        return summary, _TERMINAL_STYLES[label][1]

    def _say(self, line: str) -> None:
        if self.plain:
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)

    @staticmethod
    def _call_name(record: CallRecord) -> str:
        return f"{record.tool} [{record.tool_call_id}]" if record.tool_call_id else record.tool

    # -- rich rendering ------------------------------------------------------------------------

    def __enter__(self) -> LiveView:
        if not self.plain:
            self._live = Live(
                self,
                console=self.console,
                refresh_per_second=_REFRESH_PER_SECOND,
                vertical_overflow="visible",
            )
            self._live.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        live, self._live = self._live, None
        if live is None:
            return
        live.stop()
        outcome = self._state.outcome
        if outcome is not None and outcome.reply:
            symbol_style = _TERMINAL_STYLES.get(state_label(outcome.state), ("", "yellow"))
            self.console.print(
                Panel(Text(outcome.reply), title="answer", border_style=symbol_style[1])
            )

    def __rich__(self) -> RenderableType:
        with self._lock:
            return self.renderable()

    def renderable(self) -> RenderableType:
        """The current frame: the tree of the turn, and its status line."""
        state = self._state
        now = self._clock()
        title = Text(self._title or "agent", style="bold")
        if state.task_id:
            title.append(f"  task {state.task_id}", style="dim")
        tree = Tree(title, guide_style="dim")
        for node in state.nodes:
            if isinstance(node, _Call):
                self._render_call(tree, node, now)
            else:
                tree.add(self._render_note(node))
        return Group(tree, self._status_line(now))

    def _render_call(self, tree: Tree, node: _Call, now: float) -> None:
        record = node.record
        ident = Text(f"  {record.tool_call_id}", style="dim") if record.tool_call_id else Text()
        if node.ended is None:
            label = Table.grid(padding=(0, 1))
            label.add_row(
                Spinner("dots", style="cyan"),
                Text.assemble(
                    (record.tool, "bold"), ident, (f"  {_duration(now - node.started)}", "cyan")
                ),
            )
            branch = tree.add(label)
        else:
            took = _duration(node.ended - node.started)
            if record.status is Status.DONE:
                text = Text.assemble(("✓ ", "green"), (record.tool, "bold"), ident)
                text.append(f"  {took}", style="green")
            else:
                why = node.reason or (record.end_reason.value if record.end_reason else "aborted")
                text = Text.assemble(("✗ ", "bold red"), (record.tool, "bold"), ident)
                text.append(f"  {took}", style="red")
                text.append(f"  {why}", style="red")
            branch = tree.add(text)
        lines = list(node.tail) + ([node.partial] if node.partial else [])
        if lines:
            shown = lines[-self._tail :]
            earlier = node.lines + (1 if node.partial else 0) - len(shown)
            output = Text(style="dim")
            if earlier > 0:
                output.append(f"… {earlier} earlier lines\n", style="dim italic")
            output.append("\n".join(shown))
            branch.add(output)

    @staticmethod
    def _render_note(node: _Note) -> RenderableType:
        if node.kind == "thinking":
            line, more = first_line(node.text)
            return _OneLine(
                Text.assemble(("thinking ", "magenta italic"), (line, "italic")),
                Text(_more(more), style="dim"),
            )
        if node.kind == "error":
            return Text.assemble(("! ", "bold red"), (node.text, "red"))
        style = "dim" if node.kind == "status" else ""
        return Text.assemble(("▸ ", "cyan"), (node.text, style))

    def _status_line(self, now: float) -> RenderableType:
        state = self._state
        running = sum(1 for node in state.calls.values() if node.ended is None)
        if state.outcome is None:
            line = Table.grid(padding=(0, 1))
            detail = f"working  {_duration(now - self._started)}"
            if running:
                detail += f"  ·  {running} tool call{'s' if running > 1 else ''} running"
            line.add_row(Spinner("dots", style="cyan"), Text(detail, style="cyan"))
            return line
        summary, style = self._summary(state.outcome, state.ended or now)
        symbol = _TERMINAL_STYLES.get(state_label(state.outcome.state), ("…", ""))[0]
        return Text(f"{symbol} {summary}", style=f"bold {style}")
