"""The event queue a test hands an executor or a ``TaskUpdater``: it keeps every event, in order.

Used by the scripted agent (around the server's real queue) and by the producer's tests (as the
updater's only sink), with the views their assertions read.
"""

from __future__ import annotations

from a2a.server.events import Event, EventQueue
from a2a.types import TaskState, TaskStatusUpdateEvent

from a2a_progress.carrier import TFRS_KEY
from a2a_progress.envelope import Envelope
from a2a_progress.sdk.adapter import read_envelope


class RecordingQueue(EventQueue):
    """Records every event enqueued (in :attr:`events`), then passes it to ``inner``, if any.

    ``events`` may be a list shared with another recorder of the same task (e.g. the one its
    ``cancel()`` enqueues through), so one log holds the whole task.
    """

    def __init__(self, inner: EventQueue | None = None, events: list[Event] | None = None) -> None:
        # EventQueue's own state is not used: every event goes to ``inner`` (or nowhere).
        self._inner = inner
        self.events: list[Event] = [] if events is None else events

    async def enqueue_event(self, event: Event) -> None:
        self.events.append(event)
        if self._inner is not None:
            await self._inner.enqueue_event(event)

    @property
    def updates(self) -> list[TaskStatusUpdateEvent]:
        """The status updates, in order."""
        return [e for e in self.events if isinstance(e, TaskStatusUpdateEvent)]

    @property
    def working(self) -> list[TaskStatusUpdateEvent]:
        """The WORKING status updates, in order."""
        return [e for e in self.updates if e.status.state == TaskState.TASK_STATE_WORKING]

    @property
    def envelopes(self) -> list[Envelope]:
        """The envelope of every WORKING update (each must carry a valid one)."""
        found = [read_envelope(event) for event in self.working]
        assert all(isinstance(e, Envelope) for e in found), found
        return found  # type: ignore[return-value]

    @property
    def seqs(self) -> list[int]:
        return [e.seq for e in self.envelopes]

    def states(self) -> list[int]:
        """The state of every status update, in order."""
        return [e.status.state for e in self.updates]

    def dump(self) -> str:
        """Every text and envelope string enqueued, as one text (to look for secrets in)."""
        parts = []
        for event in self.updates:
            for part in event.status.message.parts:
                parts.append(part.text)
                if part.HasField("metadata") and TFRS_KEY in part.metadata:
                    parts.append(part.metadata[TFRS_KEY])
        return "\n".join(parts)
