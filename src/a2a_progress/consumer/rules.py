"""The rules one working update goes through: its progress read, each (stream, seq) once.

`ProgressRules` is the part of `ProgressAssembler` that takes a turn's working message: its
envelope (or, with none, a dialect's reading of it, or its text as a degraded update), each
``(stream, seq)`` consumed once with late arrivals flagged, and each tool call tracked. The
assembler (`a2a_progress.consumer.assembler`) routes events to turns and ends them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from a2a_progress.consumer.outcomes import Outcome, OutcomeHook, outcome_of_rejection
from a2a_progress.consumer.tool_calls import CallRecord
from a2a_progress.consumer.turn import Turn
from a2a_progress.consumer.updates import ProgressUpdate, Update, accepted_update
from a2a_progress.dialects import DialectReading, TurnDialects, fallback_text, is_progress_part
from a2a_progress.envelope import Envelope, Kind
from a2a_progress.sdk.views import (
    ArtifactView,
    EventView,
    MessageView,
    PartView,
    carries_envelope,
    message_envelope,
    message_text,
)

_ACCEPTED: Final = Outcome.ACCEPTED

AcceptedHook = Callable[[Envelope, CallRecord | None, bool, tuple[CallRecord, ...]], None]
"""``on_accepted(envelope, call, opened, closed)``: what an accepted envelope did (see
`ProgressAssembler`)."""


class ProgressRules:
    """A working update's progress, through the consumer rules (see `ProgressAssembler`, whose
    arguments these are)."""

    def __init__(
        self,
        *,
        reorder_window: int,
        max_streams: int,
        on_outcome: OutcomeHook | None,
        dialects: frozenset[str],
        on_accepted: AcceptedHook | None,
    ) -> None:
        self._on_outcome = on_outcome
        self._on_accepted = on_accepted
        self._dialects = dialects
        self._window = reorder_window
        self._window_mask = (1 << reorder_window) - 1
        self._max_streams = max_streams
        self._last = Outcome.NONE
        # The latest event's view, or the event itself when it was read without one (see
        # ProgressAssembler.last_event).
        self._last_event: EventView | Any = None

    def _report(self, outcome: Outcome) -> None:
        self._last = outcome
        if self._on_outcome is not None:
            self._on_outcome(outcome)

    # -- progress ----------------------------------------------------------------------------

    def _progress(
        self,
        turn: Turn,
        message: MessageView,
        at: float | None,
        replayed: bool,
        handed: Envelope | None = None,
    ) -> list[Update]:
        """The progress in one working message, recorded ``at`` (None: unknown or replayed).

        ``handed``: its lone Part's envelope, already read by whoever built it.
        """
        parts = message.parts
        if len(parts) == 1:
            # The norm: one Part, the fallback beside the envelope.
            part = parts[0]
            found = part.envelope if handed is None else handed
            # An envelope's fallback goes only into its update, which is not made for
            # on_accepted.
            skip = self._on_accepted is not None and isinstance(found, Envelope)
            text = "" if skip else part.text or ""
        else:
            found, text = message_envelope(message), message_text(message)
        if isinstance(found, Envelope):
            update = self._envelope(turn, found, text, at, replayed, None)
            return [] if update is None else [update]
        if message.message_id and not turn.message_ids.add(message.message_id):
            self._report(Outcome.DUPLICATE)
            return []
        if found is None and self._dialects:
            reading = self._dialects_of(turn).read(
                parts, metadata=self._metadata(message, replayed)
            )
            if reading is not None:
                return self._dialect_updates(turn, reading, at, replayed)
        if found is None and not text:
            return []
        self._report(Outcome.DEGRADED if found is None else outcome_of_rejection(found))
        pseudo = Envelope(Kind.TEXT, 0, {"text": text})
        return [
            ProgressUpdate(
                turn.task_id,
                turn.context_id,
                pseudo,
                text,
                degraded=True,
                rejected=found,
                replayed=replayed,
            )
        ]

    def _envelope(  # noqa: PLR0917 - once per envelope: positional is cheaper
        self,
        turn: Turn,
        envelope: Envelope,
        fallback: str,
        at: float | None,
        replayed: bool,
        dialect: str | None,
    ) -> ProgressUpdate | None:
        # envelope.stream_id, inlined (a property call per envelope, and tool_call_id's for
        # the half that carry no streamKey). A dialect's synthetic seqs get windows of their
        # own (see WindowKey).
        seq, payload = envelope.seq, envelope.payload
        key = stream_key = envelope.stream_key
        if not key:
            key = payload.get("tool_call_id")
            if not key or not isinstance(key, str):
                key = ""
        window_at = key if dialect is None else (dialect, key)
        window = turn.streams.get(window_at)
        late = False
        forgotten: tuple[CallRecord, ...] = ()
        if window is None:
            forgotten = turn.open_stream(window_at, seq, self._max_streams)
        else:
            verdict = window.add(seq, self._window, self._window_mask)
            if verdict is not None:  # not new and in order: late (accepted), or a repeat
                if verdict is not _ACCEPTED:
                    self._report(verdict)  # duplicate or stale
                    return None
                late = True
        self._last = _ACCEPTED
        call, opened, closed = turn.calls.track(
            envelope.kind, seq, envelope.status, stream_key, payload, key, at, replayed, dialect
        )
        if forgotten:
            closed = forgotten + closed
        if self._on_accepted is not None:
            # The acceptance is reported here alone: on_accepted is told of it already.
            self._on_accepted(envelope, call, opened, closed)
            return None
        if self._on_outcome is not None:  # _report(ACCEPTED), inlined: once per envelope
            self._on_outcome(_ACCEPTED)
        return accepted_update(
            turn.task_id,
            turn.context_id,
            envelope,
            fallback,
            late,
            call,
            opened,
            closed,
            replayed,
            dialect,
        )

    # -- dialects ----------------------------------------------------------------------------

    def _progress_part(self, part: PartView) -> bool:
        return is_progress_part(part, self._dialects)

    def _dialects_of(self, turn: Turn) -> TurnDialects:
        if turn.dialects is None:
            turn.dialects = TurnDialects(self._dialects)
        return turn.dialects

    def _metadata(self, message: MessageView, replayed: bool) -> list[Mapping[str, Any]]:
        """Every metadata object of a working update: its event's (when live), its message's."""
        objects: list[Mapping[str, Any]] = []
        view = self._last_event  # a view: dialects read only updates fed through feed_view
        if view is not None and not replayed and view.metadata is not None:
            objects.append(view.metadata)
        if message.metadata is not None:
            objects.append(message.metadata)
        return objects

    def _artifact_dialect(
        self,
        turn: Turn,
        artifact: ArtifactView,
        metadata: tuple[Mapping[str, Any], ...],
        *,
        replayed: bool,
    ) -> list[Update]:
        """Progress in an artifact's parts, when a dialect sends it there."""
        if carries_envelope(artifact.parts):
            return []
        if artifact.metadata is not None:
            metadata = (*metadata, artifact.metadata)
        reading = self._dialects_of(turn).read(artifact.parts, metadata=metadata, artifact=True)
        return [] if reading is None else self._dialect_updates(turn, reading, None, replayed)

    def _dialect_updates(
        self, turn: Turn, reading: DialectReading, at: float | None, replayed: bool
    ) -> list[Update]:
        """The envelopes a dialect made of one update, through the same rules as real ones."""
        if not reading.envelopes:
            # In the dialect, but nothing new (an object resent whole): consumed, not shown.
            self._report(Outcome.DUPLICATE)
            return []
        updates: list[Update] = []
        for envelope in reading.envelopes:
            update = self._envelope(
                turn, envelope, fallback_text(envelope), at, replayed, reading.dialect
            )
            if update is not None:
                updates.append(update)
        return updates
