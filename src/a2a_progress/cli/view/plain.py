"""The turn as plain lines, one per change: for CI logs, pipes and ``grep`` (no ANSI codes)."""

from __future__ import annotations

from typing import ClassVar

from a2a_progress.cli.durations import duration
from a2a_progress.cli.view.base import TurnView
from a2a_progress.cli.view.model import (
    CallEnded,
    CallStarted,
    Change,
    NoteAdded,
    OutputLine,
    TaskSeen,
    TurnEnded,
    dialect_tag,
    first_line,
    more_lines,
)
from a2a_progress.cli.view.sink import Update
from a2a_progress.envelope import Status

_NOTE_LABELS = {"text": "progress", "error": "error", "status": "status"}


class PlainLines(TurnView):
    """Prints each change of the turn as one line (never wrapped: each stays greppable)."""

    plain: ClassVar[bool] = True

    def update(self, item: Update) -> None:
        """Apply one update and print its lines."""
        for change in self.model.apply(item):
            for line in self.lines(change):
                self.console.print(line, markup=False, highlight=False, soft_wrap=True)

    @staticmethod
    def lines(change: Change) -> list[str]:
        """The lines that show ``change``."""
        match change:
            case TaskSeen(task_id):
                return [f"task: {task_id}"]
            case CallStarted(node):
                return [f"tool started: {node.name}{dialect_tag(node.record.dialect)}"]
            case OutputLine(node, line):
                return [f"output {node.tool}: {line}"]
            case CallEnded(node):
                name = node.name + dialect_tag(node.record.dialect)
                took = duration(node.duration)
                if node.record.status is Status.DONE:
                    return [f"tool done: {name} {took}"]
                return [f"tool aborted: {name} {took}: {node.why}"]
            case NoteAdded(node) if node.kind == "thinking":
                line, more = first_line(node.text)
                return [f"thinking{dialect_tag(node.dialect)}: {line}{more_lines(more)}"]
            case NoteAdded(node):
                label = _NOTE_LABELS[node.kind] + dialect_tag(node.dialect)
                return [f"{label}: {line}" for line in node.text.splitlines() or [""]]
            case TurnEnded(_, summary, _, error) if error:
                return [f"outcome: {summary}", f"error: {error}"]
            case TurnEnded(_, summary, reply):
                answer = ["answer:", *(f"  {line}" for line in reply.splitlines())]
                return [f"outcome: {summary}", *(answer if reply else [])]
