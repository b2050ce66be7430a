"""What a view knows of one turn, and the changes each update makes to it.

`TurnModel` applies consumer updates — tool calls with their start and end times, notes
(thinking, progress text, errors, plain-text status), the tail of streamed output, the outcome —
and returns the changes in the order they happened. The plain sink prints one line per change;
the live tree draws the whole model on every refresh. Neither decides what happened: only here.

Agent text enters the views here and only here, so here it is made
`inert`: a view shows what the agent sent, and the terminal obeys
none of its escape sequences.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from a2a_progress.cli.durations import duration
from a2a_progress.cli.errors import state_label
from a2a_progress.consumer import CallRecord, ProgressUpdate, TurnOutcome
from a2a_progress.envelope import Kind, Status
from a2a_progress.inert import inert

# Style of each terminal state in the live tree: its symbol and colour.
TERMINAL_STYLES: Final = {
    "completed": ("✓", "green"),
    "failed": ("✗", "red"),
    "rejected": ("✗", "red"),
    "canceled": ("✗", "yellow"),
    "input_required": ("?", "yellow"),
    "auth_required": ("?", "yellow"),
}


@dataclass
class CallNode:
    """One tool call in the view: when it started and ended (view clock), its output tail."""

    record: CallRecord
    seq: int
    started: float
    tail: deque[str]
    ended: float | None = None
    reason: str | None = None
    partial: str = ""
    lines: int = 0
    replayed: bool = False  # opened or ended by an update rebuilt from the task's history

    def add_output(self, chunk: str) -> list[str]:
        """Append a chunk of output (already inert); return the lines it completed."""
        pieces = (self.partial + chunk).split("\n")
        self.partial = pieces.pop()
        self.tail.extend(pieces)
        self.lines += len(pieces)
        return pieces

    @property
    def duration(self) -> float | None:
        """How long the call ran: the agent's recorded times, else the view's clock; None when
        unknown (replayed from the task's history, which keeps no times) or still running."""
        if self.record.duration is not None:
            return self.record.duration
        if self.replayed or self.ended is None:
            return None
        return self.ended - self.started

    @property
    def tool(self) -> str:
        """The tool's name, inert and on one line."""
        return inert(self.record.tool, one_line=True)

    @property
    def ident(self) -> str:
        """The callee's id for the call, inert and on one line; empty when it gave none."""
        return inert(self.record.tool_call_id or "", one_line=True)

    @property
    def name(self) -> str:
        """``tool [call-id]``, or the tool alone when the call has no id."""
        return f"{self.tool} [{self.ident}]" if self.ident else self.tool

    @property
    def why(self) -> str:
        """Why an aborted call ended: the callee's reason, else the consumer's end reason in
        words (``turn failed``, ``stream closed``: as the producer itself words them)."""
        record = self.record
        if self.reason:
            return self.reason
        return record.end_reason.value.replace("_", " ") if record.end_reason else "aborted"


@dataclass
class NoteNode:
    """A line of the turn that is not a tool call (``text``: inert)."""

    kind: str  # "thinking", "text", "error" or "status" (a plain-text working update)
    text: str
    seq: int
    dialect: str | None = None  # read from another agent dialect (e.g. "adk"), not an envelope


# -- changes, in the order they happened -------------------------------------------------------


@dataclass(frozen=True)
class TaskSeen:
    """The turn's task id became known."""

    task_id: str


@dataclass(frozen=True)
class CallStarted:
    """A tool call started."""

    node: CallNode


@dataclass(frozen=True)
class CallEnded:
    """A tool call ended (done or aborted); ``node.ended`` is set."""

    node: CallNode


@dataclass(frozen=True)
class NoteAdded:
    """Thinking, progress text, an error or a plain-text status arrived."""

    node: NoteNode


@dataclass(frozen=True)
class OutputLine:
    """A tool call's streamed output completed a line."""

    node: CallNode
    line: str


@dataclass(frozen=True)
class TurnEnded:
    """The turn ended; ``summary`` is its one-line description, ``reply`` the answer (inert).

    ``error`` (inert) says why a failed turn failed; the reply is then not shown, being that
    same message unredacted or nothing.
    """

    outcome: TurnOutcome
    summary: str
    reply: str
    error: str = ""


Change = TaskSeen | CallStarted | CallEnded | NoteAdded | OutputLine | TurnEnded


def first_line(text: str) -> tuple[str, int]:
    """The first non-blank line of ``text``, and how many more non-blank lines follow it."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return (lines[0], len(lines) - 1) if lines else ("", 0)


def more_lines(lines: int) -> str:
    """`` (+2 more lines)`` for collapsed text; empty when nothing is hidden."""
    return f" (+{lines} more line{'' if lines == 1 else 's'})" if lines else ""


def dialect_tag(dialect: str | None) -> str:
    """`` [adk]`` after what an agent dialect reported (not an envelope); empty otherwise."""
    return f" [{dialect}]" if dialect else ""


@dataclass
class TurnModel:
    """The state of one turn as a view shows it.

    Args:
        tail: how many of the latest output lines to keep under a tool call.
        clock: seconds, monotonic; durations are as the caller sees them.
        attached: the turn was running before it was watched (``--subscribe`` / ``--poll``
            TASK_ID): its duration is unknown, only how long it was watched.
    """

    tail: int
    clock: Callable[[], float]
    attached: bool = False
    nodes: list[CallNode | NoteNode] = field(default_factory=list)
    calls: dict[int, CallNode] = field(default_factory=dict)
    task_id: str = ""  # inert, like every agent text here
    reply: str = ""
    error: str = ""
    outcome: TurnOutcome | None = None
    ended: float | None = None
    started: float = 0.0

    def __post_init__(self) -> None:
        self.started = self.clock()

    def apply(self, item: ProgressUpdate | TurnOutcome) -> list[Change]:
        """Apply one update; return what it changed, in order."""
        changes: list[Change] = []
        if isinstance(item, TurnOutcome):
            self._finish(item, changes)
        else:
            self._progress(item, changes)
        return changes

    def _progress(self, update: ProgressUpdate, changes: list[Change]) -> None:
        if not self.task_id and update.task_id:
            self.task_id = inert(update.task_id, one_line=True)
            changes.append(TaskSeen(self.task_id))
        now = self.clock()
        for record in update.closed:
            if record is not update.call:
                self._end_call(record, now, None, changes, update.replayed)
        envelope = update.envelope
        call = update.call
        if update.opened and call is not None:
            node = CallNode(
                call, envelope.seq, now, deque(maxlen=self.tail), replayed=update.replayed
            )
            self.calls[id(call)] = node
            self._insert(node, update.late)
            changes.append(CallStarted(node))
        if update.degraded:
            self._note(NoteNode("status", inert(update.fallback), 0), False, changes)
        elif envelope.kind is Kind.TOOL_OUTPUT_APPEND:
            self._output(update, call, changes)
        elif envelope.kind is not Kind.TOOL_CALL:
            text = inert(envelope.content or "")
            note = NoteNode(envelope.kind.value, text, envelope.seq, update.dialect)
            self._note(note, update.late, changes)
        if call is not None and call in update.closed:
            reason = envelope.payload.get("reason")
            why = inert(reason, one_line=True) if isinstance(reason, str) else None
            self._end_call(call, now, why, changes, update.replayed)

    def _output(
        self, update: ProgressUpdate, call: CallRecord | None, changes: list[Change]
    ) -> None:
        node = self.calls.get(id(call)) if call is not None else None
        chunk = inert(update.envelope.content or "")
        if node is None:
            # Output of a call this view never saw start: show it as text.
            self._note(
                NoteNode("text", chunk, update.envelope.seq, update.dialect), update.late, changes
            )
            return
        changes.extend(OutputLine(node, line) for line in node.add_output(chunk))

    def _note(self, node: NoteNode, late: bool, changes: list[Change]) -> None:
        self._insert(node, late)
        changes.append(NoteAdded(node))

    def _insert(self, node: CallNode | NoteNode, late: bool) -> None:
        if late:
            for index, other in enumerate(self.nodes):
                if other.seq > node.seq:
                    self.nodes.insert(index, node)
                    return
        self.nodes.append(node)

    def _end_call(
        self,
        record: CallRecord,
        now: float,
        reason: str | None,
        changes: list[Change],
        replayed: bool,
    ) -> None:
        node = self.calls.get(id(record))
        if node is None or node.ended is not None:
            return
        node.ended = now
        node.reason = reason
        node.replayed = node.replayed or replayed
        if node.partial:
            node.add_output("\n")
        changes.append(CallEnded(node))

    def _finish(self, outcome: TurnOutcome, changes: list[Change]) -> None:
        now = self.clock()
        for record in outcome.closed:
            self._end_call(record, now, None, changes, outcome.replayed)
        self.outcome = outcome
        self.reply = inert(outcome.reply)
        self.error = inert(outcome.error or "")
        self.ended = now
        summary = self.summary(outcome, now)[0]
        changes.append(TurnEnded(outcome, summary, self.reply, self.error))

    def running(self) -> int:
        """How many tool calls are still running."""
        return sum(1 for node in self.calls.values() if node.ended is None)

    def summary(self, outcome: TurnOutcome, now: float) -> tuple[str, str]:
        """The outcome in one line, and its style: e.g. ``completed in 6.93s · 5 tool calls``."""
        label = state_label(outcome.state)
        took = duration(now - self.started)
        if not outcome.terminal and label not in TERMINAL_STYLES:
            return f"stream ended before the task did (last state: {label}) after {took}", "yellow"
        if self.attached and not outcome.replayed:
            # Its first status seen is not its start: a duration from it would be made up.
            when = f"(attached: watched for {took})"
        elif outcome.duration is not None:
            when = f"in {duration(outcome.duration)}"
        elif outcome.replayed:
            when = "(replayed from its history; duration unknown)"
        else:
            when = f"in {took}"
        calls = self.calls.values()
        aborted = sum(1 for node in calls if node.record.status is Status.ABORTED)
        summary = f"{label} {when}  ·  {len(calls)} tool call{'' if len(calls) == 1 else 's'}"
        if aborted:
            summary += f", {aborted} aborted"
        return summary, TERMINAL_STYLES[label][1]
