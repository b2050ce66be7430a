"""What the emitter hands the callee's OpenTelemetry bridge in the same process.

The bridge sees each working update inside the emitter's enqueue call: the envelope and text
fallback the emitter built it from, with the update's task and context ids, are offered here
for that call (`offered`), so the bridge need not read them from the event again. And the
texts an emitter put through a redactor lately are remembered with it (`redacted_by`): the
bridge reads each one back from its envelope a moment later, and a text the same built-in
redactor masked nothing in needs no second scan.
"""

from __future__ import annotations

import contextvars
import warnings
from typing import Final

from a2a_progress.envelope import Envelope
from a2a_progress.redaction import Redactor

# Texts the emitters of this process sent lately, by the redactor they went through.
_RECENT_TEXTS: Final = 64
_recently_redacted: dict[str, Redactor] = {}

# The envelope, text fallback, task id and context id of the working update this task's emitter
# is enqueuing.
_Handed = list[tuple[Envelope, str, str, str]]
_handoff: contextvars.ContextVar[_Handed | None] = contextvars.ContextVar(
    "a2a_progress_handoff", default=None
)


offered: Final = _handoff.get
"""This task's emitter's offer: a list holding ``(envelope, fallback, task_id, context_id)`` of
the WORKING update it is enqueuing (pop it: it is handed once), else empty or None. The
context variable's own ``get``: the callee's bridge asks for every update the agent enqueues,
and a wrapper would cost a call. The ids are the emitter's updater's, which the SDK's update
carries (its ``update_status`` builds the one event it enqueues from them): a bridge that only
counts need not read them from the event again."""


_HANDED_ENVELOPE_DEPRECATED: Final = (
    "a2a_progress.producer.handed_envelope is deprecated and will be removed in 0.4: it is the "
    "callee's OpenTelemetry bridge's, answers only inside the emitter's own enqueue call, and "
    "taking the envelope there keeps it from the bridge; read the envelope from the event "
    "instead, with a2a_progress.read_envelope(event)"
)


def handed_envelope() -> tuple[Envelope, str] | None:
    """Deprecated since 0.3, to be removed in 0.4: use `a2a_progress.read_envelope` on the event.

    The envelope this task's emitter is enqueuing right now and its text fallback (once),
    else None. It was the callee's OpenTelemetry bridge's (which now reads `offered`), and
    answers only for code that runs inside the emitter's enqueue call: an event queue's
    ``enqueue_event``. Taking it there keeps it from the bridge, which then reads the
    envelope from the event again. Warns `DeprecationWarning` on every call.
    """
    warnings.warn(_HANDED_ENVELOPE_DEPRECATED, DeprecationWarning, stacklevel=2)
    held = _handoff.get()
    if not held:
        return None
    envelope, fallback, _, _ = held.pop()
    return envelope, fallback


def offer(handed: _Handed) -> contextvars.Token[_Handed | None]:
    """Offer ``handed`` (empty, or the envelope, fallback, task id and context id of the WORKING
    update being enqueued) to the bridge until `withdraw` is given the token."""
    return _handoff.set(handed)


def withdraw(token: contextvars.Token[_Handed | None]) -> None:
    """End the offer `offer` made."""
    _handoff.reset(token)


def redacted_by(text: str) -> Redactor | None:
    """The redactor an emitter of this process passed ``text`` through lately, if any.

    For the callee's OpenTelemetry bridge, which reads the same text back from the envelope.
    """
    return _recently_redacted.get(text)


def remember(text: str, redactor: Redactor) -> None:
    """Note that ``text`` is what ``redactor`` made of a text an emitter is sending."""
    recent = _recently_redacted
    recent[text] = redactor
    if len(recent) > _RECENT_TEXTS:
        del recent[next(iter(recent))]
