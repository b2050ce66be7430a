"""Running one turn against an agent and showing it: shared by ``watch`` and ``demo``.

`follow_turn` feeds a turn's events through `a2a_progress.consumer.follow` into a
sink and returns how the turn ended; `exit_code_of` turns that into the exit code.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

from a2a.client import Client
from a2a.types.a2a_pb2 import (
    GetTaskRequest,
    StreamResponse,
    Task,
)

from a2a_progress.cli.agent_client import agent_errors
from a2a_progress.cli.errors import CliError, ExitCode, exit_code_for_state, state_label
from a2a_progress.cli.reach import NO_FLAGS, Flags
from a2a_progress.cli.view.sink import ProgressSink
from a2a_progress.consumer import (
    INTERRUPTED_STATES,
    TERMINAL_STATES,
    ProgressAssembler,
    TurnOutcome,
    error_text,
    follow,
)
from a2a_progress.sdk.adapter import view_event
from a2a_progress.serving import user_message

__all__ = ["TaskRef", "exit_code_of", "follow_turn", "outcome_reason", "user_message"]


class TaskRef:
    """The id of the task a turn runs as: given up front, or learnt from its first event."""

    def __init__(self, task_id: str | None = None) -> None:
        self.id = task_id

    async def tap(
        self, events: AsyncIterator[StreamResponse | Task]
    ) -> AsyncIterator[StreamResponse | Task]:
        """Pass ``events`` through, learning the task id from the first that names it."""
        async for event in events:
            if self.id is None:
                self.id = view_event(event).task_id or None
            yield event


async def follow_turn(
    client: Client,
    events: AsyncIterator[StreamResponse | Task],
    sink: ProgressSink,
    *,
    url: str,
    task: TaskRef | None = None,
    timeout_seconds: float | None = None,
    flags: Flags = NO_FLAGS,
) -> TurnOutcome:
    """Show a turn's events on ``sink`` until it ends; return how it ended.

    When the stream breaks with an error (an agent whose executor raised ends the stream with
    an error, not a FAILED event; subscribing to a finished task is refused), the task is fetched
    once: if it has ended, its final state is shown and returned instead of the error, with the
    error's message (redacted, bounded) as the outcome's ``error``.
    ``task`` (given or learnt from the events) says which task the turn is, also to the caller
    when the turn is cut short. ``timeout_seconds`` and ``flags``: `agent_errors`' ``timeout``
    and ``flags``.
    """
    task = task or TaskRef()
    given = task.id
    assembler = ProgressAssembler()
    outcome: TurnOutcome | None = None
    try:
        with agent_errors(url, task_id=given, timeout=timeout_seconds, flags=flags):
            async for item in follow(task.tap(events), assembler=assembler):
                sink.update(item)
                if isinstance(item, TurnOutcome) and outcome is None:
                    outcome = item
    except CliError as error:
        if task.id is None:
            raise
        snapshot = await _final_task(client, task.id)
        if snapshot is None:
            raise
        for fed in assembler.feed(snapshot):
            item = _with_error(fed, error.__cause__) if isinstance(fed, TurnOutcome) else fed
            sink.update(item)
            if isinstance(item, TurnOutcome) and outcome is None:
                outcome = item
        if outcome is None:
            raise
    if outcome is None:  # follow() always ends with an outcome; keep mypy and readers sure
        raise CliError(f"{url} sent no events", ExitCode.INCOMPLETE)
    return outcome


def _with_error(outcome: TurnOutcome, error: BaseException | None) -> TurnOutcome:
    """``outcome`` with the agent's error message from the error that ended its stream."""
    if error is None or outcome.error is not None or outcome.succeeded:
        return outcome
    return dataclasses.replace(outcome, error=error_text(error))


async def _final_task(client: Client, task_id: str) -> Task | None:
    """The task, if it can be fetched and has ended (or waits for input); else None."""
    try:
        task = await client.get_task(GetTaskRequest(id=task_id))
    except Exception:  # noqa: BLE001 - the original error is the one to report
        return None
    state = task.status.state
    return task if state in TERMINAL_STATES or state in INTERRUPTED_STATES else None


def outcome_reason(outcome: TurnOutcome) -> str:
    """The one-line stderr reason for a turn that did not complete."""
    label = state_label(outcome.state)
    task = f"task {outcome.task_id}"
    reply = " ".join(outcome.reply.split())
    if not outcome.terminal and exit_code_for_state(outcome.state) is ExitCode.INCOMPLETE:
        return f"the stream ended before {task} did (last state: {label})"
    detail = f": {outcome.error or reply}" if outcome.error or reply else ""
    if label in ("input_required", "auth_required"):
        return f"{task} is waiting: {label.replace('_', ' ')}{detail}"
    return f"{task} {label}{detail}"


def exit_code_of(outcome: TurnOutcome) -> int:
    """0 for a completed turn; otherwise raises `CliError` with the reason and code."""
    code = exit_code_for_state(outcome.state)
    if code is not ExitCode.COMPLETED:
        raise CliError(outcome_reason(outcome), code)
    return int(code)
