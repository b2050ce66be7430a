"""`ProgressEmitter`: one turn's envelopes, each a WORKING status update of the task; and
`ToolCall`, the handle of one tool call it emits the start and end of.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Generator, Mapping
from enum import Enum
from types import TracebackType
from typing import Any, Final

from a2a_progress.envelope import (
    SOFT_LIMIT_BYTES,
    Envelope,
    Kind,
    OversizeEnvelopeError,
    Status,
    encode,
    split_text,
)
from a2a_progress.producer.handoff import offer, remember, withdraw
from a2a_progress.producer.redacting import TurnRedaction
from a2a_progress.producer.tasks import forget, live_emitter, register
from a2a_progress.redaction import DEFAULT_REDACTOR, Redactor
from a2a_progress.sdk.adapter import (
    EventQueue,
    Message,
    TaskUpdater,
    agent_message,
    envelope_part,
    text_part,
    update_status,
)
from a2a_progress.sdk.views import TaskState

logger = logging.getLogger(__name__)

_WORKING: Final = TaskState.WORKING
_OVERSIZE_NOTE: Final = " [progress block dropped: its envelope is over the 64 KiB limit]"


class CallState(Enum):
    """Lifecycle of a tool call handle."""

    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    ABORTED = "aborted"


class ToolCall:
    """One tool call of the turn: ``await`` it (or ``async with`` it) to announce its start.

    ``async with`` ends it ``done`` on normal exit and ``aborted`` on an exception or
    cancellation; the exception still propagates. To report a tool that failed and go on with
    the turn, end it yourself with `aborted` (its reason is redacted, and becomes the tool
    span's status); `done` ends it well. `ProgressEmitter`'s example runs both.

    Examples:
        >>> from a2a.server.tasks import TaskUpdater
        >>> progress = ProgressEmitter(TaskUpdater(None, "task-1", "ctx-1"))  # the task's updater
        >>> call = progress.tool_call("search", tool_call_id="call-1")
        >>> call.tool, call.stream_key, call.is_open  # running once awaited or entered
        ('search', 'call-1', False)
    """

    __slots__ = ("_emitter", "_id_is_key", "_sent", "state", "stream_key", "tool", "tool_call_id")

    def __init__(
        self,
        emitter: ProgressEmitter,
        tool: str,
        tool_call_id: str | None,
        stream_key: str | None,
        *,
        id_is_key: bool = False,
    ) -> None:
        self._emitter = emitter
        self.tool = tool
        self.tool_call_id = tool_call_id
        self.stream_key = stream_key
        self.state = CallState.PENDING
        # Whether stream_key is tool_call_id redacted (no key of its own was given).
        self._id_is_key = id_is_key
        # The payload every block of the call carries ({"tool", "tool_call_id"}), redacted once.
        self._sent: dict[str, str] | None = None

    @property
    def is_open(self) -> bool:
        """Whether the call has started and not ended."""
        return self.state is CallState.RUNNING

    def _payload(self) -> dict[str, str]:
        """The call's payload as it is sent: its start, its end and each output chunk carry it
        (the same names, so redacted once per call; the tool's name once per process)."""
        sent = self._sent
        if sent is None:
            redaction = self._emitter._redaction
            sent = {"tool": redaction.name(self.tool)}
            if self.tool_call_id is not None:
                key = self.stream_key
                if key is None or not self._id_is_key:
                    key = redaction.text(self.tool_call_id)
                sent["tool_call_id"] = key
            self._sent = sent
        return sent

    async def start(self) -> ToolCall:
        """Emit the ``tool_call`` ``running`` block (once; later calls do nothing)."""
        if self.state is CallState.PENDING:
            self.state = CallState.RUNNING
            emitter = self._emitter
            emitter._opened(self)
            await emitter._emit(
                Kind.TOOL_CALL,
                self._payload(),
                Status.RUNNING,
                self.stream_key,
                emitter._redaction.name(f"Calling tool {self.tool}"),
            )
        return self

    def __await__(self) -> Generator[Any, None, ToolCall]:
        return self.start().__await__()

    async def output(self, chunk: str) -> None:
        """Emit streamed output (``tool_output_append``), split by lines under the soft limit.

        The protocol keeps this kind off by default in v1: unless the emitter was created with
        ``enable_output=True`` this does nothing.
        """
        if not self._emitter.output_enabled or self.state is not CallState.RUNNING:
            return
        await self._emitter._emit_text(
            Kind.TOOL_OUTPUT_APPEND, "chunk", chunk, self.stream_key, self._payload()
        )

    async def done(self) -> None:
        """End the call successfully (``status: done``)."""
        if self._end(CallState.DONE):
            emitter = self._emitter
            fallback = emitter._redaction.name(f"Tool {self.tool} finished")
            await emitter._emit(
                Kind.TOOL_CALL, self._payload(), Status.DONE, self.stream_key, fallback
            )

    async def aborted(self, reason: str | None = None) -> None:
        """End the call as aborted; ``reason`` (redacted) rides in ``payload.reason``."""
        if not self._end(CallState.ABORTED):
            return
        redaction = self._emitter._redaction
        payload = sent = self._payload()
        text = f"Tool {self.tool} aborted"
        if reason:
            text += f": {reason}"
            # The reason goes between the tool and its call id, as the wire has always had it.
            payload = {"tool": sent["tool"], "reason": redaction.text(reason)}
            if "tool_call_id" in sent:
                payload["tool_call_id"] = sent["tool_call_id"]
        await self._emitter._emit(
            Kind.TOOL_CALL, payload, Status.ABORTED, self.stream_key, redaction.text(text)
        )

    def _end(self, state: CallState) -> bool:
        """End the call in ``state``; False when it was not running (nothing to emit)."""
        if self.state is not CallState.RUNNING:
            return False
        self.state = state
        self._emitter._closed(self)
        return True

    async def __aenter__(self) -> ToolCall:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None:
            await self.done()
            return
        if isinstance(exc, asyncio.CancelledError):
            reason = "cancelled"
        else:
            reason = self._emitter._redaction.exception_reason(exc)
        try:
            await self.aborted(reason)
        except Exception:
            # The body's exception is what propagates, not a failure to report it (the turn
            # may already be over: a terminal updater refuses every further event).
            logger.debug("could not emit aborted for %s", self.tool, exc_info=True)


class ProgressEmitter:
    """Emits one turn's progress envelopes through a task's `TaskUpdater`.

    Args:
        updater: the task's updater; each block becomes one WORKING status update.
        seq_start: the first ``seq`` (any start is allowed).
        enable_output: switch on ``tool_output_append`` (off in v1).
        redactor: masks credentials in every text field and fallback; ``None`` disables masking.
        soft_limit: UTF-8 bytes per text piece; longer text is split by lines.

    Use it as ``async with ProgressEmitter(updater) as progress:`` so that tool calls still open
    when ``execute()`` raises or is cancelled end ``aborted``. The turn ends with `complete`,
    or with `failed` (FAILED, with your reason as its message, which callers show as the
    error); leaving the ``async with`` block does not end the task. An exception that escapes
    ``execute()`` fails the turn too, but a2a-sdk then sends the exception's message to the
    caller unredacted: catch it and call `failed` with words of your own.

    Examples:
        >>> import asyncio
        >>> from a2a.server.events import EventQueue
        >>> from a2a.server.tasks import TaskUpdater
        >>> class Recorder(EventQueue):  # keeps what is enqueued (a2a-sdk's queue in an agent)
        ...     def __init__(self) -> None:
        ...         self.events = []
        ...     async def enqueue_event(self, event) -> None:
        ...         self.events.append(event)
        >>> from a2a_progress import read_envelope
        >>> async def turn(queue):
        ...     async with ProgressEmitter(TaskUpdater(queue, "task-1", "ctx-1")) as progress:
        ...         await progress.thinking("Check CI first.")
        ...         async with progress.tool_call("ci_status", tool_call_id="call-1"):
        ...             pass  # the tool runs here: running, then done
        ...         call = await progress.tool_call("dashboard", tool_call_id="call-2")
        ...         try:
        ...             raise TimeoutError("the dashboard timed out")
        ...         except TimeoutError as error:
        ...             await call.aborted(str(error))  # report the failed tool, and go on
        ...         await progress.complete("The deploy is blocked: CI is red.")
        >>> queue = Recorder()
        >>> asyncio.run(turn(queue))
        >>> for event in queue.events[:5]:
        ...     envelope, fallback = read_envelope(event), event.status.message.parts[0].text
        ...     print(envelope.seq, envelope.kind.value, envelope.status.value, fallback)
        1 thinking running Check CI first.
        2 tool_call running Calling tool ci_status
        3 tool_call done Tool ci_status finished
        4 tool_call running Calling tool dashboard
        5 tool_call aborted Tool dashboard aborted: the dashboard timed out
        >>> queue.events[-1].status.state == TaskState.COMPLETED
        True
    """

    def __init__(
        self,
        updater: TaskUpdater,
        *,
        seq_start: int = 1,
        enable_output: bool = False,
        redactor: Redactor | None = DEFAULT_REDACTOR,
        soft_limit: int = SOFT_LIMIT_BYTES,
    ) -> None:
        self.updater = updater
        self.output_enabled = enable_output
        self._next_seq = seq_start
        self._redactor = redactor
        self._redaction = TurnRedaction(redactor)
        self._soft_limit = soft_limit
        self._open: dict[int, ToolCall] = {}
        self._lock = asyncio.Lock()
        register(updater.task_id, self)

    @classmethod
    def for_task(
        cls, event_queue: EventQueue, task_id: str, context_id: str, **options: Any
    ) -> ProgressEmitter:
        """The live emitter of ``task_id``, or a new one on ``event_queue``.

        Call it from ``AgentExecutor.cancel()`` and then `cancel`: the tool calls that
        ``execute()`` left open end ``aborted`` before the CANCELED state.
        """
        live = live_emitter(task_id)
        if live is not None:
            return live
        return cls(TaskUpdater(event_queue, task_id, context_id), **options)

    @property
    def next_seq(self) -> int:
        """The ``seq`` the next envelope will carry."""
        return self._next_seq

    @property
    def open_calls(self) -> list[ToolCall]:
        """Tool calls started and not yet ended, oldest first."""
        return list(self._open.values())

    async def thinking(self, text: str) -> None:
        """Emit a thinking segment (split by lines when long)."""
        await self._emit_text(Kind.THINKING, "text", text)

    async def text(self, text: str) -> None:
        """Emit ordinary progress text (split by lines when long)."""
        await self._emit_text(Kind.TEXT, "text", text)

    async def error(self, message: str) -> None:
        """Emit a callee-side process error. It never replaces the terminal verdict."""
        await self._emit_text(Kind.ERROR, "message", message)

    def tool_call(
        self, tool: str, tool_call_id: str | None = None, *, stream_key: str | None = None
    ) -> ToolCall:
        """A tool call handle; ``await`` it or ``async with`` it to emit the start.

        ``stream_key`` defaults to ``tool_call_id``; with neither, the call is on the single
        aggregated stream (no ``streamKey`` on the wire).
        """
        key = stream_key or tool_call_id
        # The key rides outside the payload: give it the payload's treatment (the same id
        # always maps to the same key).
        if key is not None:
            key = self._redaction.text(key)
            if self._redactor is not None:
                # The callee's bridge names the call's span after it (see redacted_by()).
                remember(key, self._redactor)
        id_is_key = not stream_key and tool_call_id is not None
        return ToolCall(self, tool, tool_call_id, key, id_is_key=id_is_key)

    async def abort_open_calls(self, reason: str) -> None:
        """End every open tool call ``aborted`` with ``reason`` (errors from a closed queue are
        swallowed: the turn is over and nothing more can be said on it)."""
        for call in self.open_calls:
            try:
                await call.aborted(reason)
            except Exception:
                logger.debug("could not emit aborted for %s", call.tool, exc_info=True)
                # Nothing more can be said on this turn: end the other calls without a word.
                for rest in self.open_calls:
                    rest.state = CallState.ABORTED
                    self._closed(rest)
                return

    async def complete(self, reply: Message | str | None = None) -> None:
        """Close open calls (``aborted``: they never said done), then COMPLETED with ``reply``."""
        await self._finish(TaskState.COMPLETED, "turn completed", reply)

    async def failed(self, reply: Message | str | None = None) -> None:
        """Close open calls ``aborted``, then FAILED."""
        await self._finish(TaskState.FAILED, "turn failed", reply)

    async def cancel(self, reply: Message | str | None = None) -> None:
        """Close open calls ``aborted``, then CANCELED."""
        await self._finish(TaskState.CANCELED, "turn canceled", reply)

    async def reject(self, reply: Message | str | None = None) -> None:
        """Close open calls ``aborted``, then REJECTED."""
        await self._finish(TaskState.REJECTED, "turn rejected", reply)

    async def input_required(self, question: Message | str) -> None:
        """Close open calls ``aborted``, then INPUT_REQUIRED with ``question``: the turn ends and
        the task waits for the caller's next message (which `open_task` continues in the same
        task and context).

        Examples:
            >>> import asyncio
            >>> from a2a_progress import TaskState
            >>> from a2a_progress.sdk.adapter import TaskUpdater
            >>> class Recorder:
            ...     events = []
            ...     async def enqueue_event(self, event): self.events.append(event)
            >>> emitter = ProgressEmitter(TaskUpdater(Recorder(), "task-1", "ctx-1"))
            >>> asyncio.run(emitter.input_required("Which environment?"))
            >>> Recorder.events[-1].status.state == TaskState.INPUT_REQUIRED
            True
        """
        await self._finish(TaskState.INPUT_REQUIRED, "turn needs input", question)

    async def _finish(self, state: TaskState, reason: str, reply: Message | str | None) -> None:
        await self.abort_open_calls(reason)
        if isinstance(reply, str):
            reply = agent_message(self.updater, [text_part(reply)])
        await update_status(self.updater, state, reply)
        self._forget()

    def _forget(self) -> None:
        forget(self.updater.task_id, self)

    async def __aenter__(self) -> ProgressEmitter:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None:
            reason = "turn ended"
        elif isinstance(exc, asyncio.CancelledError):
            reason = "turn canceled"
        else:
            reason = f"turn failed: {type(exc).__name__}"
        try:
            await self.abort_open_calls(reason)
        finally:
            self._forget()

    def _opened(self, call: ToolCall) -> None:
        self._open[id(call)] = call

    def _closed(self, call: ToolCall) -> None:
        self._open.pop(id(call), None)

    async def _emit_text(
        self,
        kind: Kind,
        field: str,
        text: str,
        stream_key: str | None = None,
        base: Mapping[str, str] = {},
    ) -> None:
        """Emit ``text`` as the next pieces of its stream, each in ``field`` beside ``base``
        (redacted already)."""
        for piece in split_text(self._redaction.piece(kind, stream_key, text), self._soft_limit):
            if self._redactor is not None:
                remember(piece, self._redactor)
            await self._emit(kind, {**base, field: piece}, Status.RUNNING, stream_key, piece)

    async def _emit(
        self,
        kind: Kind,
        payload: Mapping[str, str],
        status: Status,
        stream_key: str | None,
        fallback: str,
    ) -> None:
        """Put one block on the wire, its payload and ``fallback`` redacted already."""
        async with self._lock:
            seq = self._next_seq
            self._next_seq += 1
            envelope = Envelope(
                kind=kind, seq=seq, payload=payload, status=status, stream_key=stream_key
            )
            handed: list[tuple[Envelope, str, str, str]] = []
            try:
                part = envelope_part(encode(envelope), fallback)
                updater = self.updater
                handed.append((envelope, fallback, updater.task_id, updater.context_id))
            except OversizeEnvelopeError:
                part = text_part(split_text(fallback, self._soft_limit)[0] + _OVERSIZE_NOTE)
            token = offer(handed)
            try:
                await update_status(self.updater, _WORKING, agent_message(self.updater, [part]))
            finally:
                withdraw(token)
