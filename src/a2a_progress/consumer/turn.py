"""One live turn of a task: its ids, state, seq windows, tool calls, reply, timing, dialects."""

from __future__ import annotations

from collections.abc import Sequence

from a2a_progress.consumer.reply import ReplyAssembly
from a2a_progress.consumer.seq_window import RecentKeys, SeqWindow
from a2a_progress.consumer.tool_calls import CallRecord, ToolCalls
from a2a_progress.dialects import TurnDialects
from a2a_progress.sdk.views import MessageView, Role, TaskState

MESSAGE_IDS_KEPT = 1024
"""Message ids of plain updates remembered per turn, to consume each once."""


class Turn:
    """What the assembler knows of one turn (a task between a user message and its end).

    ``started_at`` is the first status time the agent recorded that was seen live; it stays None
    when the turn was first seen part way (a snapshot with history, a turn already ended), since
    its start then lies in history, which keeps no times.
    """

    __slots__ = (
        "awaiting_start",
        "calls",
        "context_id",
        "dialects",
        "message_ids",
        "replayed",
        "reply",
        "started_at",
        "state",
        "streams",
        "task_id",
    )

    def __init__(self, task_id: str, context_id: str) -> None:
        self.task_id = task_id
        self.context_id = context_id
        self.state: int = TaskState.UNSPECIFIED
        self.streams: dict[WindowKey, SeqWindow] = {}
        self.calls = ToolCalls()
        self.message_ids = RecentKeys(MESSAGE_IDS_KEPT)
        self.reply = ReplyAssembly()
        self.replayed = False
        self.awaiting_start = True
        self.started_at: float | None = None
        self.dialects: TurnDialects | None = None  # created when a dialect is first needed

    def seen_part_way(self, *, ended: bool) -> None:
        """The turn was first seen after its start (``ended``: after its end): a replay."""
        self.awaiting_start = False
        self.replayed = ended

    def note_time(self, at: float | None, *, last_chance: bool) -> None:
        """Take the turn's start time from a live status (recorded ``at``) while
        ``awaiting_start``.

        ``last_chance``: the first WORKING status decides. An agent that stamps statuses (as
        a2a-sdk's ``TaskUpdater`` does) stamps that one; one that does not is not asked again
        for every update of the turn.
        """
        if at is not None:
            self.started_at = at
            self.awaiting_start = False
        elif last_chance:
            self.awaiting_start = False

    def open_stream(self, key: WindowKey, seq: int, max_streams: int) -> tuple[CallRecord, ...]:
        """Start the seq window of a stream first seen at ``seq``; past ``max_streams`` streams
        the oldest is forgotten (`forget_oldest_stream`): its call, if this ended it."""
        self.streams[key] = SeqWindow(seq)
        if len(self.streams) > max_streams:
            return self.forget_oldest_stream()
        return ()

    def forget_oldest_stream(self) -> tuple[CallRecord, ...]:
        """Forget the oldest stream; return its call if this ended it."""
        key = next(iter(self.streams))
        del self.streams[key]
        return self.calls.forget(call_key(key))


# A stream's seq window: the stream key for envelopes, (dialect, stream key) for a dialect's
# (the assembler builds it inline). A dialect numbers its seqs itself; they must not be taken
# for repeats of the envelopes the same turn may also carry (a turn can hold both, e.g. through
# a proxy agent). A tuple cannot collide with any stream key a peer sends.
WindowKey = str | tuple[str, str]


def call_key(window: WindowKey) -> str:
    """The stream key of a seq window (see `WindowKey`)."""
    return window if isinstance(window, str) else window[1]


def current_turn_messages(history: Sequence[MessageView]) -> Sequence[MessageView]:
    """The messages of the task's current turn: those after its latest user message.

    What comes before it is an earlier turn (one that ended INPUT_REQUIRED), whose seqs the
    current turn starts over: replayed, they would pass for this turn's and hide its own.
    """
    for index in range(len(history) - 1, -1, -1):
        if history[index].role == Role.USER:
            return history[index + 1 :]
    return history
