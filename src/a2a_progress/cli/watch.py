"""``a2a-progress watch``: follow a turn of any A2A agent and show its progress.

Sends a message with streaming (or attaches to a running task with ``SubscribeToTask``, or polls
it with ``GetTask``) and feeds the events through :func:`a2a_progress.consumer.follow` into the
live view or JSON lines. Agents that send no envelopes still show their plain-text updates.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import TextIO

from a2a.client import Client
from a2a.types.a2a_pb2 import (
    AgentCard,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
)
from rich.console import Console

from a2a_progress.cli.agent_client import (
    agent_errors,
    describe_endpoint,
    fetch_card,
    only_transport,
    open_client,
)
from a2a_progress.cli.errors import CliError, ExitCode, exit_code_for_state, state_label
from a2a_progress.cli.json_view import JsonLines, error_json
from a2a_progress.cli.live_view import LiveView, ProgressSink
from a2a_progress.consumer import (
    INTERRUPTED_STATES,
    TERMINAL_STATES,
    ProgressAssembler,
    TurnOutcome,
    follow,
    poll_task,
)
from a2a_progress.serve import Transport


@dataclass(frozen=True)
class WatchOptions:
    """What ``watch`` was asked to do."""

    url: str
    message: str | None = None
    transport: Transport | None = None
    json: bool = False
    subscribe: str | None = None
    poll: str | None = None  # "" = send the message without streaming, then poll its task
    interval: float = 1.0
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 30.0


def user_message(text: str) -> SendMessageRequest:
    """A request carrying ``text`` as a new user message."""
    return SendMessageRequest(
        message=Message(role=Role.ROLE_USER, message_id=uuid.uuid4().hex, parts=[Part(text=text)])
    )


class _TaskIdTap:
    """Passes events through and remembers the task they belong to."""

    def __init__(self, events: AsyncIterator[StreamResponse | Task], task_id: str | None) -> None:
        self._events = events
        self.task_id = task_id

    async def __aiter__(self) -> AsyncIterator[StreamResponse | Task]:
        async for event in self._events:
            if self.task_id is None:
                self.task_id = _task_id_of(event) or None
            yield event


def _task_id_of(event: StreamResponse | Task) -> str:
    if isinstance(event, Task):
        return event.id
    which = event.WhichOneof("payload")
    if which == "task":
        return event.task.id
    if which in ("status_update", "artifact_update"):
        return str(getattr(event, which).task_id)
    return ""


async def follow_turn(
    client: Client,
    events: AsyncIterator[StreamResponse | Task],
    sink: ProgressSink,
    *,
    url: str,
    task_id: str | None = None,
) -> TurnOutcome:
    """Show a turn's events on ``sink`` until it ends; return how it ended.

    When the stream breaks with an error (an agent whose executor raised ends the stream with
    an error, not a FAILED event; subscribing to a finished task is refused), the task is fetched
    once: if it has ended, its final state is shown and returned instead of the error.
    """
    assembler = ProgressAssembler()
    tap = _TaskIdTap(events, task_id)
    outcome: TurnOutcome | None = None
    try:
        with agent_errors(url, task_id=task_id):
            async for item in follow(tap, assembler=assembler):
                sink.update(item)
                if isinstance(item, TurnOutcome) and outcome is None:
                    outcome = item
    except CliError:
        if tap.task_id is None:
            raise
        snapshot = await _final_task(client, tap.task_id)
        if snapshot is None:
            raise
        for item in assembler.feed(snapshot):
            sink.update(item)
            if isinstance(item, TurnOutcome) and outcome is None:
                outcome = item
        if outcome is None:
            raise
    if outcome is None:  # follow() always ends with an outcome; keep mypy and readers sure
        raise CliError(f"{url} sent no events", ExitCode.INCOMPLETE)
    return outcome


async def _final_task(client: Client, task_id: str) -> Task | None:
    """The task, if it can be fetched and has ended (or waits for input); else None."""
    try:
        task = await client.get_task(GetTaskRequest(id=task_id))
    except Exception:  # noqa: BLE001 - the original error is the one to report
        return None
    state = task.status.state
    return task if state in TERMINAL_STATES or state in INTERRUPTED_STATES else None


async def _send_then_poll(
    client: Client, request: SendMessageRequest, interval: float
) -> AsyncIterator[StreamResponse | Task]:
    """Send without streaming (the agent returns the task at once), then poll the task."""
    task: Task | None = None
    async for response in client.send_message(request):
        yield response
        if response.HasField("task"):
            task = response.task
    if task is None:
        return
    if task.status.state in TERMINAL_STATES or task.status.state in INTERRUPTED_STATES:
        return
    async for snapshot in poll_task(client, task.id, interval=interval):
        yield snapshot


def _check_streaming(card: AgentCard, options: WatchOptions) -> None:
    if options.poll is not None or card.capabilities.streaming:
        return
    name = card.name or options.url
    if options.subscribe is not None:
        hint = f"use --poll {options.subscribe} to follow the task by polling"
    else:
        hint = "rerun with --poll to send the message and follow its task by polling"
    raise CliError(
        f"{name} does not stream (its card has capabilities.streaming=false); {hint}",
        ExitCode.UNSUPPORTED,
    )


def _events(client: Client, options: WatchOptions) -> AsyncIterator[StreamResponse | Task]:
    if options.subscribe is not None:
        return client.subscribe(SubscribeToTaskRequest(id=options.subscribe))
    if options.poll:
        return poll_task(client, options.poll, interval=options.interval)
    request = user_message(options.message or "")
    if options.poll is not None:
        return _send_then_poll(client, request, options.interval)
    return client.send_message(request)


def outcome_reason(outcome: TurnOutcome) -> str:
    """The one-line stderr reason for a turn that did not complete."""
    label = state_label(outcome.state)
    task = f"task {outcome.task_id}"
    reply = " ".join(outcome.reply.split())
    if not outcome.terminal and exit_code_for_state(outcome.state) is ExitCode.INCOMPLETE:
        return f"the stream ended before {task} did (last state: {label})"
    detail = f": {reply}" if reply else ""
    if label in ("input_required", "auth_required"):
        return f"{task} is waiting: {label.replace('_', ' ')}{detail}"
    return f"{task} {label}{detail}"


async def run_watch(options: WatchOptions, console: Console, stdout: TextIO) -> int:
    """Run ``watch``; return the exit code. Failures raise :class:`CliError`."""
    json_lines = JsonLines(stdout) if options.json else None
    try:
        outcome = await _watch(options, console, json_lines)
    except CliError as error:
        if json_lines is not None:
            json_lines.write(error_json(error))
        raise
    return exit_code_of(outcome)


def exit_code_of(outcome: TurnOutcome) -> int:
    """0 for a completed turn; otherwise raises :class:`CliError` with the reason and code."""
    code = exit_code_for_state(outcome.state)
    if code is not ExitCode.COMPLETED:
        raise CliError(outcome_reason(outcome), code)
    return int(code)


async def _watch(
    options: WatchOptions, console: Console, json_lines: JsonLines | None
) -> TurnOutcome:
    card = await fetch_card(options.url, headers=options.headers, timeout_seconds=options.timeout)
    if options.transport is not None:
        card = only_transport(card, options.transport)
    _check_streaming(card, options)
    client = open_client(
        card,
        headers=options.headers,
        timeout=options.timeout,
        streaming=options.poll is None,
        polling=options.poll == "",
    )
    task_id = options.subscribe or options.poll or None
    async with client:
        if json_lines is not None:
            outcome = await follow_turn(
                client, _events(client, options), json_lines, url=options.url, task_id=task_id
            )
        else:
            _announce(console, card, options)
            with LiveView(console, title=card.name or options.url) as view:
                outcome = await follow_turn(
                    client, _events(client, options), view, url=options.url, task_id=task_id
                )
    return outcome


def _announce(console: Console, card: AgentCard, options: WatchOptions) -> None:
    how = "polling" if options.poll is not None else "streaming"
    if options.subscribe is not None:
        what = f"subscribing to task {options.subscribe}"
    elif options.poll:
        what = f"polling task {options.poll} every {options.interval:g}s"
    else:
        what = f"sending {options.message!r} ({how})"
    headers = f", headers: {', '.join(options.headers)}" if options.headers else ""
    console.print(
        f"{card.name or options.url} via {describe_endpoint(card)}: {what}{headers}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
