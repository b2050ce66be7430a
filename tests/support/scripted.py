"""The one scripted test agent: a real ``AgentExecutor`` that runs what each test scripts.

A *script* is an async callable given the :class:`Turn` (one ``execute()``). Either the agent
runs the same list of *steps* for every request (``ScriptedAgent([thinking("x"), complete()])``),
or tests :meth:`~ScriptedAgent.register` scripts on one shared agent and send the returned name
as the request text (followed by arguments, if the script takes some). Every event a turn
enqueues is recorded (:attr:`Turn.events`).

Steps emit envelopes through the real producer, or hand-built Parts and raw ``tfrs`` strings for
hostile, out-of-order and duplicate input; terminal steps use the bare ``TaskUpdater`` so that
tool calls still open at the turn's end are left for the consumer or bridge to close.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import Event, EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message, Part, TaskState

from a2a_progress.carrier import TFRS_KEY
from a2a_progress.producer import ProgressEmitter, ToolCall, open_task
from a2a_progress.sdk.adapter import raw_envelope
from support.queues import RecordingQueue


@dataclass
class Turn:
    """One ``execute()`` of the scripted agent: its request, queue, updater and what it sent."""

    context: RequestContext
    queue: RecordingQueue
    updater: TaskUpdater
    events: list[Event]
    emitter_options: Mapping[str, Any] = field(default_factory=dict)
    calls: dict[str, ToolCall] = field(default_factory=dict)
    """Tool calls started by :func:`start`, by ``call_id or tool``."""
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when ``execute()`` returned or raised (also when it was cancelled)."""
    args: list[str] = field(default_factory=list)
    """The words of the request text after the script's name."""

    @property
    def task_id(self) -> str:
        return self.updater.task_id

    @property
    def context_id(self) -> str:
        return self.updater.context_id

    @cached_property
    def progress(self) -> ProgressEmitter:
        """The turn's emitter (made on first use, with the agent's ``emitter_options``)."""
        return ProgressEmitter(self.updater, **self.emitter_options)

    def emitter(self, **options: Any) -> ProgressEmitter:
        """A new emitter of this turn with ``options``."""
        return ProgressEmitter(self.updater, **options)

    async def working(
        self, text: str, tfrs: object = None, *, message_id: str | None = None
    ) -> None:
        """A WORKING update with one Part: ``text`` and, unless None, ``metadata.tfrs``."""
        part = Part(text=text) if tfrs is None else Part(text=text, metadata={TFRS_KEY: tfrs})
        await self.working_parts([part], message_id=message_id)

    async def working_parts(
        self,
        parts: Sequence[Part],
        *,
        message_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        """A WORKING update whose message holds ``parts`` as they are (none: no message at
        all), and the event's ``metadata`` (as other dialects send them)."""
        message = None
        if parts:
            message = self.updater.new_agent_message(list(parts))
            if message_id is not None:
                message.message_id = message_id
        await self.updater.update_status(
            TaskState.TASK_STATE_WORKING,
            message=message,
            metadata=None if metadata is None else dict(metadata),
        )

    def working_messages(self) -> list[Message]:
        """The status messages of the WORKING updates enqueued, in order."""
        return [
            event.status.message for event in self.queue.working if event.status.HasField("message")
        ]

    def sent(self) -> list[str]:
        """The envelope strings (``metadata["tfrs"]``) enqueued, in order."""
        return envelope_strings(self.working_messages())

    def states(self) -> list[int]:
        """The state of every status update enqueued, in order."""
        return self.queue.states()


Step = Callable[[Turn], Awaitable[object]]
"""One step of a script (see the step functions below)."""
Script = Callable[[Turn], Awaitable[None]]
"""A whole turn, for :meth:`ScriptedAgent.register`."""


def script(*steps: Step) -> Script:
    """A script that runs ``steps`` in order."""

    async def run(turn: Turn) -> None:
        for each in steps:
            await each(turn)

    return run


class ScriptedAgent(AgentExecutor):
    """Runs ``steps`` for every request, or the script registered under the request's first word.

    The task is announced SUBMITTED first (:func:`open_task`). ``cancel()`` sends a bare
    CANCELED, leaving open tool calls for the consumer or bridge to close; with
    ``cancel_open_calls`` it does what a producer's executor should instead: it reaches the
    emitter ``execute()`` uses and cancels the turn with ``cancel_reply`` (None: no message),
    so open tool calls
    end ``aborted`` first. An agent made with ``cancellable=False`` cannot cancel at all: its
    ``cancel()`` raises ``NotImplementedError``, as the SDK's own agents do.
    ``emitter_options`` go to each turn's :attr:`Turn.progress` (e.g. ``redactor=None``).
    """

    def __init__(
        self,
        steps: Sequence[Step] = (),
        *,
        cancel_open_calls: bool = False,
        cancel_reply: str | None = "canceled by the caller",
        cancellable: bool = True,
        **emitter_options: Any,
    ) -> None:
        self.steps = list(steps)
        self.emitter_options = emitter_options
        self.cancel_open_calls = cancel_open_calls
        self.cancel_reply = cancel_reply
        self.cancellable = cancellable
        self.turns: dict[str, Turn] = {}
        """Every turn so far, by task id, in the order they started."""
        self.headers: list[dict[str, str]] = []
        """The HTTP headers (or gRPC metadata) of every request, lower-cased, in order."""
        self._scripts: dict[str, Script] = {}
        self._names = itertools.count()

    def register(self, script: Script, name: str | None = None) -> str:
        """Make ``script`` runnable; returns its name (``name``, or a new one).

        A request whose text starts with the name runs it, given the text's other words as
        :attr:`Turn.args`.
        """
        name = name or f"script-{next(self._names)}"
        self._scripts[name] = script
        return name

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None
        assert context.context_id is not None
        assert context.message is not None
        self.headers.append(inbound_headers(context))
        events: list[Event] = []
        queue = RecordingQueue(event_queue, events)
        updater = await open_task(context, queue)
        name, *args = context.get_user_input().split() or [""]
        turn = Turn(context, queue, updater, events, self.emitter_options, args=args)
        self.turns[turn.task_id] = turn
        try:
            registered = self._scripts.get(name)
            if registered is not None:
                await registered(turn)
            elif self._scripts and not self.steps:
                raise LookupError(f"no script registered as {name!r}")
            else:
                await script(*self.steps)(turn)
        finally:
            turn.finished.set()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        if not self.cancellable:
            raise NotImplementedError("this agent cannot cancel")
        assert context.task_id is not None
        assert context.context_id is not None
        turn = self.turns.get(context.task_id)
        queue = event_queue if turn is None else RecordingQueue(event_queue, turn.events)
        if self.cancel_open_calls:
            emitter = ProgressEmitter.for_task(queue, context.task_id, context.context_id)
            await emitter.cancel(self.cancel_reply)
        else:
            await TaskUpdater(queue, context.task_id, context.context_id).cancel()


def envelope_strings(messages: Sequence[Message]) -> list[str]:
    """The string-valued ``metadata["tfrs"]`` of each message (first carrying Part), in order."""
    found: list[str] = []
    for message in messages:
        for part in message.parts:
            value = raw_envelope(part)
            if value is not None:
                if isinstance(value, str):
                    found.append(value)
                break
    return found


def inbound_headers(context: RequestContext) -> dict[str, str]:
    """The request's HTTP headers or gRPC metadata, keys lower-cased."""
    state = context.call_context.state if context.call_context is not None else {}
    if "grpc_context" in state:
        metadata = state["grpc_context"].invocation_metadata() or ()
        return {str(key).lower(): str(value) for key, value in metadata}
    headers: Mapping[str, str] = state.get("headers", {})
    return {str(key).lower(): str(value) for key, value in headers.items()}


# -- steps ----------------------------------------------------------------------------------------


def wire(
    kind: str,
    seq: object,
    status: str = "running",
    stream_key: str | None = None,
    *,
    version: object = 1,
    **payload: Any,
) -> str:
    """A hand-built envelope JSON string (no validation: tests send what they like)."""
    obj: dict[str, Any] = {
        "v": version,
        "kind": kind,
        "seq": seq,
        "status": status,
        "payload": payload,
    }
    if stream_key is not None:
        obj["streamKey"] = stream_key
    return json.dumps(obj)


def raw(tfrs: object, text: str = "fallback", *, message_id: str | None = None) -> Step:
    """Send a WORKING update carrying ``tfrs`` as is (None: a plain-text update)."""
    return lambda turn: turn.working(text, tfrs, message_id=message_id)


def parts(
    parts: Sequence[Part],
    *,
    message_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Step:
    """Send a WORKING update of ``parts`` as they are (see :meth:`Turn.working_parts`)."""
    return lambda turn: turn.working_parts(parts, message_id=message_id, metadata=metadata)


def env(
    kind: str, seq: int, status: str = "running", stream_key: str | None = None, **payload: Any
) -> Step:
    """Send one hand-built envelope (see :func:`wire`)."""
    return raw(wire(kind, seq, status, stream_key, **payload), f"{kind} {seq}")


def thinking(text: str) -> Step:
    return lambda turn: turn.progress.thinking(text)


def text(text: str) -> Step:
    return lambda turn: turn.progress.text(text)


def error(message: str) -> Step:
    return lambda turn: turn.progress.error(message)


def start(tool: str, call_id: str | None = None, *, stream_key: str | None = None) -> Step:
    """Start a tool call through the producer; later steps find it by ``call_id or tool``."""

    async def step(turn: Turn) -> None:
        call = turn.progress.tool_call(tool, call_id, stream_key=stream_key)
        turn.calls[call_id or tool] = call
        await call

    return step


def output(key: str, chunk: str) -> Step:
    return lambda turn: turn.calls[key].output(chunk)


def done(key: str) -> Step:
    return lambda turn: turn.calls[key].done()


def abort(key: str, reason: str | None = None) -> Step:
    return lambda turn: turn.calls[key].aborted(reason)


def complete(reply: str = "all done") -> Step:
    return lambda turn: turn.updater.complete(turn.updater.new_agent_message([Part(text=reply)]))


def status(state: int, reply: str) -> Step:
    """A status update in ``state`` (terminal or not) with the agent message ``reply``."""
    return lambda turn: turn.updater.update_status(
        TaskState.ValueType(state), message=turn.updater.new_agent_message([Part(text=reply)])
    )


def fail() -> Step:
    return lambda turn: turn.updater.failed()


def reject() -> Step:
    return lambda turn: turn.updater.reject()


def cancel() -> Step:
    return lambda turn: turn.updater.cancel()


def raise_(exc: BaseException) -> Step:
    async def step(turn: Turn) -> None:
        raise exc

    return step


def wait(gate: asyncio.Event) -> Step:
    """Block the turn until the test opens ``gate``."""
    return lambda turn: gate.wait()


def sleep(seconds: float) -> Step:
    """Let the turn take ``seconds`` of the agent's time (e.g. inside a tool call)."""
    return lambda turn: asyncio.sleep(seconds)


def reached(mark: asyncio.Event) -> Step:
    """Tell the test the script got here."""

    async def step(turn: Turn) -> None:
        mark.set()

    return step
