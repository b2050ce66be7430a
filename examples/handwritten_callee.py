"""A callee that writes progress envelopes by hand: no ProgressEmitter, only the codec.

For an agent that already has its own event loop or framework: each progress step is one
WORKING status update whose one Part carries the text fallback (what any caller shows) and
the envelope JSON under ``metadata["tfrs"]``. The rules the emitter would keep for you are kept
here by hand: one ``seq`` counter per turn, a tool call's ``done`` on the same stream key as its
``running``, credentials masked before anything goes out, and the terminal state last.

    python examples/handwritten_callee.py --port 9998
"""

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import Mapping

from a2a.helpers import new_task
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Part, TaskState

from a2a_progress import DEFAULT_REDACTOR, Envelope, Kind, Status, encode, envelope_part
from a2a_progress.serving import PortInUseError, serve_forever


class Progress:
    """The smallest correct writer: one seq counter, redaction, one update per envelope."""

    def __init__(self, updater: TaskUpdater) -> None:
        self.updater = updater
        self.seq = 0

    async def send(
        self,
        kind: Kind,
        payload: Mapping[str, str],
        fallback: str,
        status: Status = Status.RUNNING,
        stream_key: str | None = None,
    ) -> None:
        self.seq += 1
        payload = {name: DEFAULT_REDACTOR.redact(value) for name, value in payload.items()}
        envelope = Envelope(kind, self.seq, payload, status, stream_key)
        part = envelope_part(encode(envelope), DEFAULT_REDACTOR.redact(fallback))
        message = self.updater.new_agent_message([part])
        await self.updater.update_status(TaskState.TASK_STATE_WORKING, message=message)


class HandwrittenAgent(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        if context.current_task is None:  # a new task goes out first, SUBMITTED
            history = [context.message] if context.message else []
            await event_queue.enqueue_event(
                new_task(task_id, context_id, TaskState.TASK_STATE_SUBMITTED, history=history)
            )
        updater = TaskUpdater(event_queue, task_id, context_id)
        progress = Progress(updater)
        await progress.send(Kind.THINKING, {"text": "Look the order up first."}, "Thinking")
        call = {"tool": "lookup_order", "tool_call_id": "call-1"}
        await progress.send(Kind.TOOL_CALL, call, "Calling tool lookup_order", stream_key="call-1")
        await asyncio.sleep(0.2)  # the tool runs
        await progress.send(
            Kind.TOOL_CALL, call, "Tool lookup_order finished", Status.DONE, stream_key="call-1"
        )
        await progress.send(Kind.TEXT, {"text": "Order 42 shipped yesterday."}, "Order 42 shipped")
        reply = updater.new_agent_message([Part(text="Your order shipped yesterday.")])
        await updater.complete(message=reply)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id or "", context.context_id or "").cancel()


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve the hand-written example agent.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9998, help="0 picks a free port")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    agent = HandwrittenAgent()
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve_forever(agent, name="orders", host=args.host, http_port=args.port))
    except PortInUseError as error:  # e.g. a second copy on the first one's port
        sys.exit(f"{error}; choose another with --port (0 picks a free one)")


if __name__ == "__main__":
    main()
