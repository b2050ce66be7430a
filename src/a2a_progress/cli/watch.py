"""``a2a-progress watch``: follow a turn of any A2A agent and show its progress.

Sends a message with streaming (or attaches to a running task with ``SubscribeToTask``, or polls
it with ``GetTask``) and feeds the events through `a2a_progress.consumer.follow` into the
live view or JSON lines. Agents that send no envelopes still show their plain-text updates.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import shlex
import sys
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Final, TextIO

from a2a.client import Client
from a2a.types.a2a_pb2 import (
    AgentCard,
    GetTaskRequest,
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
from a2a_progress.cli.arguments import (
    AGENT_FLAGS,
    PROG,
    Commands,
    add_agent_arguments,
    add_otlp_argument,
    positive,
    text,
    usage_error,
)
from a2a_progress.cli.console import output_console
from a2a_progress.cli.errors import CliError, ExitCode, state_label
from a2a_progress.cli.json_view import JsonLines, error_json
from a2a_progress.cli.live_view import LiveView
from a2a_progress.cli.reach import check_agent_url
from a2a_progress.cli.turn import TaskRef, exit_code_of, follow_turn, user_message
from a2a_progress.cli.view.web import add_web_arguments, web_panel, web_port
from a2a_progress.consumer import (
    INTERRUPTED_STATES,
    TERMINAL_STATES,
    TurnOutcome,
    poll_task,
)
from a2a_progress.extension import declares_progress_extension, request_progress_extension
from a2a_progress.inert import inert
from a2a_progress.serving import Transport

__all__ = ["WatchOptions", "register", "run_watch", "user_message"]

DEFAULT_INTERVAL: Final = 1.0


# `--poll` given without TASK_ID: send MESSAGE, then poll the task it starts (`--poll ""` is a
# TASK_ID left empty by mistake, refused like `--subscribe ""`).
_SEND_THEN_POLL: Final = object()


def register(commands: Commands) -> None:
    """Add ``watch`` to the command line."""
    watch = commands.add(
        "watch",
        _run,
        help="send a message to any A2A agent and show its progress live",
        description="Send MESSAGE to the A2A agent at URL with streaming and show its progress "
        "live: tool calls, thinking, progress text and streamed output when the agent sends "
        "a2a-progress envelopes, its plain-text updates when it does not. URL is the agent's "
        "base URL or the URL of its agent card.",
    )
    add_agent_arguments(watch)
    watch.add_argument(
        "message", metavar="MESSAGE", nargs="?", type=text, help="the message to send"
    )
    watch.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object per update on stdout, then the outcome (for scripts)",
    )
    follow = watch.add_mutually_exclusive_group()
    follow.add_argument(
        "--subscribe",
        metavar="TASK_ID",
        type=text,
        help="attach to a running task instead of sending",
    )
    follow.add_argument(
        "--poll",
        metavar="TASK_ID",
        type=text,
        nargs="?",
        const=_SEND_THEN_POLL,
        help="follow TASK_ID by polling GetTask (coarse: from the task's history); without "
        "TASK_ID, send MESSAGE without streaming and poll the task it starts",
    )
    watch.add_argument(
        "--interval",
        type=positive,
        metavar="SECONDS",
        help=f"with --poll: seconds between polls (default: {DEFAULT_INTERVAL:g})",
    )
    add_web_arguments(watch)
    add_otlp_argument(watch)


def _run(args: argparse.Namespace) -> int:
    send_then_poll = args.poll is _SEND_THEN_POLL
    polled: str | None = None if send_then_poll else args.poll  # a TASK_ID as typed
    poll = "" if send_then_poll else polled
    attach = args.subscribe is not None or bool(poll)
    for flag, task_id in (("--subscribe", args.subscribe), ("--poll", polled)):
        if task_id is not None and not task_id.strip():
            usage_error(args, f"{flag} needs a TASK_ID, not an empty string")
    if attach and args.message is not None:
        usage_error(args, "give MESSAGE or a TASK_ID to follow, not both")
    if not attach and args.message is None:
        usage_error(args, "MESSAGE is required (or --subscribe TASK_ID / --poll TASK_ID)")
    if args.message is not None and not args.message.strip():
        usage_error(args, "MESSAGE is empty: say what the agent should do")
    if args.interval is not None and poll is None:
        usage_error(args, "--interval needs --poll (streaming and --subscribe do not poll)")
    check_agent_url(args.url, AGENT_FLAGS)
    options = WatchOptions(
        url=args.url,
        message=args.message,
        transport=args.transport,
        json=args.json,
        subscribe=args.subscribe,
        poll=poll,
        interval=DEFAULT_INTERVAL if args.interval is None else args.interval,
        headers=dict(args.header),
        timeout=args.timeout,
        web_port=web_port(args),
        otlp=args.otlp,
    )
    return asyncio.run(run_watch(options, output_console(), sys.stdout))


@dataclass(frozen=True)
class WatchOptions:
    """What ``watch`` was asked to do."""

    url: str
    message: str | None = None
    transport: Transport | None = None
    json: bool = False
    subscribe: str | None = None
    poll: str | None = None  # "" = send the message without streaming, then poll its task
    interval: float = DEFAULT_INTERVAL
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 30.0
    web_port: int | None = None  # --web: serve the panel on this port (0: a free one)
    polled_as_fallback: bool = False  # the card cannot stream, so we poll though not asked to
    otlp: str | None = None  # --otlp: trace this watch too, exporting to this OTLP/HTTP URL


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


def _fit_to_card(card: AgentCard, options: WatchOptions) -> WatchOptions:
    """``options`` as this agent can serve them: polling where its card says it cannot stream.

    An agent without streaming still records its WORKING updates in the task's history, so
    polling shows its progress; refusing to watch it would only send the user to ``--poll``.
    """
    if options.poll is not None or card.capabilities.streaming:
        return options
    return replace(options, poll=options.subscribe or "", subscribe=None, polled_as_fallback=True)


async def _ended_task(client: Client, options: WatchOptions) -> Task | None:
    """The task ``--subscribe`` / ``--poll`` attaches to, when it has already ended: its history
    is then replayed (once), not followed."""
    task_id = options.subscribe or options.poll
    if not task_id:
        return None
    with agent_errors(options.url, task_id=task_id, timeout=options.timeout, flags=AGENT_FLAGS):
        task = await client.get_task(GetTaskRequest(id=task_id))
    return task if task.status.state in TERMINAL_STATES else None


async def _replay(task: Task) -> AsyncIterator[StreamResponse | Task]:
    yield task


def _events(client: Client, options: WatchOptions) -> AsyncIterator[StreamResponse | Task]:
    # Ask for the progress extension: an agent that honours the request knows we read envelopes.
    context = request_progress_extension()
    if options.subscribe is not None:
        return client.subscribe(SubscribeToTaskRequest(id=options.subscribe), context=context)
    if options.poll:
        return poll_task(client, options.poll, interval=options.interval)
    request = user_message(options.message or "")
    if options.poll is not None:
        return _send_then_poll(client, request, options.interval)
    return client.send_message(request, context=context)


async def run_watch(options: WatchOptions, console: Console, stdout: TextIO) -> int:
    """Run ``watch``; return the exit code. Failures raise `CliError`."""
    json_lines = JsonLines(stdout) if options.json else None
    try:
        with _traced(options):
            outcome = await _watch(options, console, json_lines, stdout)
    except CliError as error:
        if json_lines is not None:
            json_lines.write(error_json(error))
        raise
    return exit_code_of(outcome)


def _traced(options: WatchOptions) -> contextlib.AbstractContextManager[None]:
    """``--otlp``: this watch in a trace of its own, which the agent's spans join."""
    if options.otlp is None:
        return contextlib.nullcontext()
    # The SDK and its exporter are imported only when asked for.
    from a2a_progress.cli.telemetry import traced_command

    return traced_command("watch", options.otlp, sys.stderr)


async def _watch(
    options: WatchOptions, console: Console, json_lines: JsonLines | None, stdout: TextIO
) -> TurnOutcome:
    card = await fetch_card(
        options.url, headers=options.headers, timeout_seconds=options.timeout, flags=AGENT_FLAGS
    )
    if options.transport is not None:
        card = only_transport(card, options.transport)
    options = _fit_to_card(card, options)
    client = open_client(
        card,
        headers=options.headers,
        timeout=options.timeout,
        streaming=options.poll is None,
        polling=options.poll == "",
    )
    task = TaskRef(options.subscribe or options.poll or None)
    async with client:
        ended = await _ended_task(client, options)
        events = _replay(ended) if ended is not None else _events(client, options)
        # --web: the page's URL goes where the output goes (stderr under --json: JSON only).
        web = web_panel(
            options.web_port,
            out=sys.stderr if json_lines is not None else stdout,
            title=card.name or options.url,
            request=options.message or "",
        )
        turn = functools.partial(
            follow_turn,
            client,
            events,
            url=options.url,
            task=task,
            timeout_seconds=options.timeout,
            flags=AGENT_FLAGS,
        )
        try:
            async with web as panel:
                if json_lines is not None:
                    json_lines.progress_extension = declares_progress_extension(card)
                    outcome = await turn(panel.tee(json_lines))
                else:
                    _announce(console, card, options, ended)
                    attached = options.subscribe is not None or bool(options.poll)
                    title = card.name or options.url
                    with LiveView(console, title=title, attached=attached) as view:
                        outcome = await turn(panel.tee(view))
                await panel.hold()
                return outcome
        except asyncio.CancelledError:  # Ctrl-C: asyncio.run cancels this task
            if task.id is None:
                raise
            raise CliError(_still_running(options, card, task.id), ExitCode.INTERRUPTED) from None


def _still_running(options: WatchOptions, card: AgentCard, task_id: str) -> str:
    """What to tell a user who stopped watching a task the agent may still be running."""
    common = [shlex.quote(options.url)]
    flags = [f"--transport {options.transport}"] if options.transport else []
    # Never print a header's value: the user types it again.
    flags += [f"--header {shlex.quote(name + '=...')}" for name in options.headers]
    follow = "--subscribe" if options.poll is None and card.capabilities.streaming else "--poll"
    watch = " ".join([PROG, "watch", *common, follow, shlex.quote(task_id), *flags])
    cancel = " ".join([PROG, "cancel", *common, shlex.quote(task_id), *flags])
    return (
        f"interrupted: task {task_id} may still be running on the agent; "
        f"follow it with `{watch}`, or cancel it with `{cancel}`"
    )


def _announce(console: Console, card: AgentCard, options: WatchOptions, ended: Task | None) -> None:
    how = "polling" if options.poll is not None else "streaming"
    if options.polled_as_fallback:
        how = "polling: the agent does not stream"
    if ended is not None:
        what = f"task {ended.id} already {state_label(ended.status.state)}; replaying its history"
    elif options.subscribe is not None:
        what = f"subscribing to task {options.subscribe}"
    elif options.poll:
        what = f"polling task {options.poll} every {options.interval:g}s"
        if options.polled_as_fallback:
            what += " (the agent does not stream)"
    else:
        what = f"sending {options.message!r} ({how})"
    headers = f", headers: {', '.join(options.headers)}" if options.headers else ""
    declared = "declared" if declares_progress_extension(card) else "not declared"
    console.print(
        inert(
            f"{card.name or options.url} via {describe_endpoint(card)}: {what}{headers}"
            f" (progress extension: {declared})",
            one_line=True,
        ),
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
