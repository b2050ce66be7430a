"""The task a turn runs in: `open_task`, and the emitter of each task's running turn."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from a2a_progress.sdk.adapter import EventQueue, RequestContext, TaskUpdater, new_task

if TYPE_CHECKING:
    from a2a_progress.producer.emitter import ProgressEmitter

# Emitters of turns still running, by task id, so an executor's cancel() can reach the emitter
# its execute() is using and abort the open tool calls before the CANCELED state.
_live_emitters: weakref.WeakValueDictionary[str, ProgressEmitter] = weakref.WeakValueDictionary()


def live_emitter(task_id: str) -> ProgressEmitter | None:
    """The emitter of ``task_id``'s running turn, if any."""
    return _live_emitters.get(task_id)


def register(task_id: str, emitter: ProgressEmitter) -> None:
    """``emitter`` runs ``task_id``'s turn now."""
    _live_emitters[task_id] = emitter


def forget(task_id: str, emitter: ProgressEmitter) -> None:
    """``emitter``'s turn of ``task_id`` is over (another emitter's is left alone)."""
    if _live_emitters.get(task_id) is emitter:
        del _live_emitters[task_id]


async def open_task(context: RequestContext, event_queue: EventQueue) -> TaskUpdater:
    """The updater of the request's task, first enqueuing the task if it is new.

    A new task goes out SUBMITTED with the user's message in its history, which is what callers
    (and ``return_immediately`` sends) expect as the first event of a turn. A follow-up turn of
    a known task keeps that task's context id: a follow-up message may name only the task, and
    the SDK then hands the executor a freshly generated context id, which its task store
    refuses in every update.


    Examples:
        In an ``AgentExecutor`` (``examples/callee.py``, which the tests run, is complete):

        >>> from a2a.server.agent_execution import AgentExecutor
        >>> class ResearchAgent(AgentExecutor):
        ...     async def execute(self, context, event_queue):
        ...         updater = await open_task(context, event_queue)  # SUBMITTED, if new
        ...         async with ProgressEmitter(updater) as progress:
        ...             await progress.complete("The deploy is blocked.")
        ...     async def cancel(self, context, event_queue):
        ...         pass
    """
    task = context.current_task
    context_id = (task.context_id if task is not None else "") or context.context_id or ""
    if task is None:
        await event_queue.enqueue_event(new_task(context, context_id))
    return TaskUpdater(event_queue, context.task_id or "", context_id)
