"""``a2a-progress cancel URL TASK_ID``: ask an agent to cancel a task.

Exit 0 when the task ends CANCELED (or already was); 11 when it had already ended otherwise
(completed, failed, rejected: nothing to cancel); 9 for an unknown task id or an agent that could
not cancel it; 7 and 8 as for ``watch`` (unreachable, not an agent).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Mapping
from typing import TextIO

from a2a.client import Client
from a2a.types.a2a_pb2 import CancelTaskRequest, GetTaskRequest, TaskState

from a2a_progress.cli.agent_client import agent_errors, fetch_card, only_transport, open_client
from a2a_progress.cli.arguments import (
    AGENT_FLAGS,
    Commands,
    add_agent_arguments,
    text,
    usage_error,
)
from a2a_progress.cli.errors import CliError, ExitCode, state_label
from a2a_progress.cli.reach import check_agent_url
from a2a_progress.consumer import TERMINAL_STATES
from a2a_progress.inert import inert
from a2a_progress.serving import Transport


def register(commands: Commands) -> None:
    """Add ``cancel`` to the command line."""
    cancel = commands.add(
        "cancel",
        _run,
        help="cancel a task an A2A agent is running",
        description="Ask the A2A agent at URL to cancel the task TASK_ID (e.g. one you stopped "
        "watching with Ctrl-C). Exit 0 once it is canceled; 11 when it had already ended.",
    )
    add_agent_arguments(cancel)
    cancel.add_argument("task_id", metavar="TASK_ID", type=text, help="the task to cancel")


def _run(args: argparse.Namespace) -> int:
    if not args.task_id.strip():
        usage_error(args, "TASK_ID is empty")
    check_agent_url(args.url, AGENT_FLAGS)
    return asyncio.run(
        cancel_task(
            args.url,
            args.task_id,
            transport=args.transport,
            headers=dict(args.header),
            timeout_seconds=args.timeout,
            stdout=sys.stdout,
        )
    )


async def cancel_task(
    url: str,
    task_id: str,
    *,
    transport: Transport | None = None,
    headers: Mapping[str, str],
    timeout_seconds: float,
    stdout: TextIO,
) -> int:
    """Cancel ``task_id`` at the agent at ``url``; say so on ``stdout``; return the exit code.

    Failures raise `CliError`.
    """
    card = await fetch_card(
        url, headers=headers, timeout_seconds=timeout_seconds, flags=AGENT_FLAGS
    )
    if transport is not None:
        card = only_transport(card, transport)
    async with open_client(
        card, headers=headers, timeout=timeout_seconds, streaming=False
    ) as client:
        already = False
        try:
            with agent_errors(url, task_id=task_id, timeout=timeout_seconds, flags=AGENT_FLAGS):
                canceled = await client.cancel_task(CancelTaskRequest(id=task_id))
            state = int(canceled.status.state)
        except CliError as error:
            if error.code is not ExitCode.ENDED:
                raise
            # The agent refused because the task has ended: say how, from the task itself.
            already = True
            state = await _state(client, url, task_id, timeout_seconds)
    if state == TaskState.TASK_STATE_CANCELED:
        done = "was already canceled" if already else "canceled"
        stdout.write(inert(f"task {task_id} {done}", one_line=True) + "\n")
        return int(ExitCode.COMPLETED)
    if already or state in TERMINAL_STATES:
        raise CliError(
            f"task {task_id} had already ended ({state_label(state)}): nothing to cancel",
            ExitCode.ENDED,
        )
    raise CliError(
        f"{url} accepted the cancel but task {task_id} is still {state_label(state)}",
        ExitCode.UNSUPPORTED,
    )


async def _state(client: Client, url: str, task_id: str, timeout_seconds: float) -> int:
    with agent_errors(url, task_id=task_id, timeout=timeout_seconds, flags=AGENT_FLAGS):
        task = await client.get_task(GetTaskRequest(id=task_id))
    return int(task.status.state)
