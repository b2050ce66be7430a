"""The relay's event log: one turn's objects as Server-Sent Events frames, numbered, bounded.

Every object gets the next integer id (1, 2, …). The newest frames stay in a replay buffer bounded
by count and by bytes, so a browser that reconnects with ``Last-Event-ID`` resumes exactly after
the last frame it received. Each connected browser is a `Reader`: a cursor into the log and
a wake-up event, nothing more — a slow browser costs no memory. A reader whose next frame leaves
the buffer before it was sent is dropped (``slow_client``) rather than silently skipped.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from dataclasses import dataclass
from itertools import islice
from typing import Any, Final

FIRST_ID: Final = 1


def sse_frame(event: str, obj: dict[str, Any], event_id: int | None = None) -> bytes:
    """One SSE frame: optional ``id:``, ``event:``, one ``data:`` line of compact JSON."""
    data = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    head = f"id: {event_id}\n" if event_id is not None else ""
    text = f"{head}event: {event}\ndata: {data}\n\n"
    try:
        return text.encode()
    except UnicodeEncodeError:
        # A lone surrogate from a peer cannot be UTF-8: escape it in the JSON instead.
        data = json.dumps(obj, ensure_ascii=True, separators=(",", ":"))
        return f"{head}event: {event}\ndata: {data}\n\n".encode()


@dataclass(frozen=True, slots=True)
class Frame:
    """A numbered frame of the log."""

    id: int
    data: bytes


class Reader:
    """One browser connection's place in the log: the id of the next frame to send it."""

    __slots__ = ("cursor", "dropped", "kicked", "sending", "wake")

    def __init__(self, cursor: int) -> None:
        self.cursor = cursor
        self.wake = asyncio.Event()
        self.kicked = asyncio.Event()
        self.dropped: str | None = None
        self.sending = False

    def drop(self, reason: str) -> None:
        """Disconnect this reader, saying why (the first reason wins)."""
        if self.dropped is None:
            self.dropped = reason
            self.kicked.set()
            self.wake.set()


class EventLog:
    """Numbered frames in a bounded replay buffer, and the readers following them.

    Args:
        max_events: frames kept for replay.
        max_bytes: bytes of frames kept for replay (the newest frame is always kept).
    """

    def __init__(self, *, max_events: int, max_bytes: int) -> None:
        self._frames: deque[Frame] = deque()
        self._bytes = 0
        self._max_events = max(1, max_events)
        self._max_bytes = max(1, max_bytes)
        self._readers: set[Reader] = set()
        self.next_id = FIRST_ID
        self.ended = False
        self.version = 0
        """Bumped when the turn's description changes (readers then resend ``hello``)."""

    @property
    def first_id(self) -> int:
        """The id of the oldest frame still in the buffer (``next_id`` when it is empty)."""
        return self._frames[0].id if self._frames else self.next_id

    @property
    def buffered_bytes(self) -> int:
        """Bytes held by the replay buffer."""
        return self._bytes

    @property
    def readers(self) -> int:
        """How many readers are attached."""
        return len(self._readers)

    def append(self, event: str, obj: dict[str, Any]) -> int:
        """Add a frame; wake the readers; drop those it pushed out of the buffer. Its id."""
        frame = Frame(self.next_id, sse_frame(event, obj, self.next_id))
        self.next_id += 1
        self._frames.append(frame)
        self._bytes += len(frame.data)
        while len(self._frames) > 1 and (
            len(self._frames) > self._max_events or self._bytes > self._max_bytes
        ):
            self._bytes -= len(self._frames.popleft().data)
        first = self.first_id
        for reader in self._readers:
            if reader.cursor < first:
                reader.drop("slow_client")
            else:
                reader.wake.set()
        return frame.id

    def touch(self) -> None:
        """The description changed: wake every reader to resend it."""
        self.version += 1
        for reader in self._readers:
            reader.wake.set()

    def end(self) -> None:
        """No frame follows: readers that have everything finish."""
        self.ended = True
        for reader in self._readers:
            reader.wake.set()

    def attach(self, cursor: int) -> Reader:
        """A new reader whose next frame is ``cursor`` (clamped into the log)."""
        reader = Reader(min(max(cursor, self.first_id), self.next_id))
        self._readers.add(reader)
        return reader

    def detach(self, reader: Reader) -> None:
        """Forget a reader (its connection ended)."""
        self._readers.discard(reader)

    def drop_all(self, reason: str) -> None:
        """Disconnect every reader with ``reason``."""
        for reader in self._readers:
            reader.drop(reason)

    def frames_from(self, cursor: int, max_bytes: int) -> list[Frame]:
        """Buffered frames with id ≥ ``cursor``, as many as fit in ``max_bytes`` (at least one)."""
        frames: list[Frame] = []
        size = 0
        for frame in islice(self._frames, max(0, cursor - self.first_id), None):
            if frames and size + len(frame.data) > max_bytes:
                break
            size += len(frame.data)
            frames.append(frame)
        return frames
