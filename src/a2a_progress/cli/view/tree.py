"""The turn as a live rich tree, for terminals.

Each tool call with a spinner while it runs, then its duration and ✓ or ✗; thinking collapsed to
its first line; the tail of streamed output under its call; progress text and errors in arrival
order (late envelopes inserted by ``seq``); a status line; the answer in a panel at the end.
"""

from __future__ import annotations

from types import TracebackType
from typing import ClassVar, Final, Self

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.panel import Panel
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from a2a_progress.cli.durations import duration
from a2a_progress.cli.errors import state_label
from a2a_progress.cli.view.base import TurnView
from a2a_progress.cli.view.model import (
    TERMINAL_STYLES,
    CallNode,
    NoteNode,
    dialect_tag,
    first_line,
    more_lines,
)
from a2a_progress.cli.view.sink import Update
from a2a_progress.envelope import Status

_REFRESH_PER_SECOND: Final = 12


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


class LiveTree(TurnView):
    """Redraws the turn's tree as updates arrive (rich ``Live``, while inside ``with``)."""

    plain: ClassVar[bool] = False

    _live: Live | None = None

    def update(self, item: Update) -> None:
        """Apply one update and redraw."""
        with self._lock:
            self.model.apply(item)
        if self._live is not None:
            self._live.refresh()

    def __enter__(self) -> Self:
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
        outcome = self.model.outcome
        if outcome is not None and self.model.error:
            self.console.print(Panel(Text(self.model.error), title="error", border_style="red"))
        elif outcome is not None and outcome.reply:
            style = TERMINAL_STYLES.get(state_label(outcome.state), ("", "yellow"))[1]
            reply = Text(self.model.reply)
            self.console.print(Panel(reply, title="answer", border_style=style))

    def __rich__(self) -> RenderableType:
        with self._lock:
            return self.renderable()

    def renderable(self) -> RenderableType:
        """The current frame: the tree of the turn, and its status line."""
        model = self.model
        now = model.clock()
        title = Text(self.title or "agent", style="bold")
        if model.task_id:
            title.append(f"  task {model.task_id}", style="dim")
        tree = Tree(title, guide_style="dim")
        for node in model.nodes:
            if isinstance(node, CallNode):
                self._render_call(tree, node, now)
            else:
                tree.add(_render_note(node))
        return Group(tree, self._status_line(now))

    def _render_call(self, tree: Tree, node: CallNode, now: float) -> None:
        record = node.record
        ident = Text(f"  {node.ident}", style="dim") if node.ident else Text()
        ident.append(dialect_tag(record.dialect), style="dim")
        if node.ended is None:
            label = Table.grid(padding=(0, 1))
            label.add_row(
                Spinner("dots", style="cyan"),
                Text.assemble(
                    (node.tool, "bold"), ident, (f"  {duration(now - node.started)}", "cyan")
                ),
            )
            branch = tree.add(label)
        else:
            took = duration(node.duration)
            if record.status is Status.DONE:
                text = Text.assemble(("✓ ", "green"), (node.tool, "bold"), ident)
                text.append(f"  {took}", style="green")
            else:
                text = Text.assemble(("✗ ", "bold red"), (node.tool, "bold"), ident)
                text.append(f"  {took}", style="red")
                text.append(f"  {node.why}", style="red")
            branch = tree.add(text)
        lines = list(node.tail) + ([node.partial] if node.partial else [])
        if lines:
            shown = lines[-self.model.tail :]
            earlier = node.lines + (1 if node.partial else 0) - len(shown)
            output = Text(style="dim")
            if earlier > 0:
                output.append(f"… {earlier} earlier lines\n", style="dim italic")
            output.append("\n".join(shown))
            branch.add(output)

    def _status_line(self, now: float) -> RenderableType:
        model = self.model
        if model.outcome is None:
            running = model.running()
            line = Table.grid(padding=(0, 1))
            detail = f"working  {duration(now - model.started)}"
            if running:
                detail += f"  ·  {running} tool call{'s' if running > 1 else ''} running"
            line.add_row(Spinner("dots", style="cyan"), Text(detail, style="cyan"))
            return line
        summary, style = model.summary(model.outcome, model.ended or now)
        symbol = TERMINAL_STYLES.get(state_label(model.outcome.state), ("…", ""))[0]
        return Text(f"{symbol} {summary}", style=f"bold {style}")


def _render_note(node: NoteNode) -> RenderableType:
    if node.kind == "thinking":
        line, more = first_line(node.text)
        return _OneLine(
            Text.assemble(("thinking ", "magenta italic"), (line, "italic")),
            Text(more_lines(more) + dialect_tag(node.dialect), style="dim"),
        )
    tag = (dialect_tag(node.dialect), "dim")
    if node.kind == "error":
        return Text.assemble(("! ", "bold red"), (node.text, "red"), tag)
    style = "dim" if node.kind == "status" else ""
    return Text.assemble(("▸ ", "cyan"), (node.text, style), tag)
