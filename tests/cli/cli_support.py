"""Helpers of the CLI tests: run ``a2a-progress`` for real, and small agents for it to watch.

``main()`` runs its own event loop (``asyncio.run``), so async tests run it in a worker thread
while their own loop serves the agents; stdout and stderr are captured thread-safely, and a test
can wait for a line to appear before it moves the agent on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Final

import pytest
from a2a.types import (
    AgentCard,
    Part,
    TaskState,
)
from google.protobuf.json_format import MessageToJson

from a2a_progress.cli import main
from a2a_progress.cli.live_view import LiveView
from a2a_progress.consumer import ProgressAssembler, TurnOutcome
from a2a_progress.envelope import Envelope, Kind, Status, encode
from a2a_progress.sdk.adapter import envelope_part
from a2a_progress.serving import Transport, create_client, serve_agent, user_message
from support import events
from support.clock import FakeClock
from support.listeners import web_server
from support.processes import refused_port
from support.scripted import (
    ScriptedAgent,
    complete,
    done,
    raise_,
    raw,
    reached,
    sleep,
    start,
    status,
    text,
    thinking,
    wait,
)

ANSI: Final = re.compile(r"\x1b\[")
CARD_PATH: Final = "/.well-known/agent-card.json"
THINKING_LINE: Final = (
    "Find the stage where the deploy failed, then read its logs and metrics side by side."
)


class Capture:
    """A text stream the CLI writes to from its thread while the test reads it."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._changed = threading.Condition()

    def write(self, text: str) -> int:
        with self._changed:
            self._parts.append(text)
            self._changed.notify_all()
        return len(text)

    def flush(self) -> None:
        return None

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError("not a real file")

    @property
    def text(self) -> str:
        with self._changed:
            return "".join(self._parts)

    def wait_for(self, needle: str, timeout: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: needle in "".join(self._parts), timeout)


@dataclass(frozen=True)
class CliResult:
    """How a command ended and what it printed."""

    code: int
    stdout: str
    stderr: str

    def json_lines(self) -> list[dict[str, Any]]:
        """Every stdout line, parsed (each must be one JSON object)."""
        return [json.loads(line) for line in self.stdout.splitlines()]

    def progress(self) -> list[dict[str, Any]]:
        return [obj for obj in self.json_lines() if obj["type"] == "progress"]

    def assert_one_line_error(self, code: int, *fragments: str) -> None:
        """Exit ``code``; stderr is exactly one line with every fragment and no traceback."""
        assert self.code == code, (self.code, self.stderr)
        lines = self.stderr.splitlines()
        assert len(lines) == 1, self.stderr
        assert lines[0].startswith("a2a-progress")
        assert "Traceback" not in self.stderr + self.stdout
        for fragment in fragments:
            assert fragment in lines[0], (fragment, lines[0])


class RunningCli:
    """One ``a2a-progress`` command running in a worker thread."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
        self.stdout, self.stderr = Capture(), Capture()
        monkeypatch.setattr(sys, "stdout", self.stdout)
        monkeypatch.setattr(sys, "stderr", self.stderr)
        self._task = asyncio.ensure_future(asyncio.to_thread(main, args))

    async def wait_for_stdout(self, needle: str) -> None:
        """Wait until stdout contains ``needle`` (fails the test after 30 seconds)."""
        found = await asyncio.to_thread(self.stdout.wait_for, needle, 30.0)
        assert found, f"{needle!r} not printed; stdout: {self.stdout.text!r}"

    async def result(self) -> CliResult:
        code = await self._task
        return CliResult(code, self.stdout.text, self.stderr.text)


# A loopback port that refuses connections (held bound, never listening).
closed_port = refused_port


async def run_cli(monkeypatch: pytest.MonkeyPatch, *args: str) -> CliResult:
    """Run ``a2a-progress ARGS`` to the end."""
    return await RunningCli(monkeypatch, list(args)).result()


async def start_task(card: AgentCard, text: str = "go") -> str:
    """Send ``text`` without waiting for the turn (``return_immediately``); the task's id."""
    async with create_client(card, streaming=False, polling=True) as client:
        async for response in client.send_message(user_message(text)):
            return str(response.task.id)
    raise AssertionError("the agent returned no task")


# The agents the CLI watches: each is the one scripted agent (support.scripted) with its steps.


class PlainTextAgent(ScriptedAgent):
    """A pre-upgrade agent: plain-text working updates, no envelopes."""

    UPDATES: Final = ("reading the runbook", "restarting the pods")
    REPLY: Final = "all pods are healthy again"

    def __init__(self) -> None:
        super().__init__([*(raw(None, update) for update in self.UPDATES), complete(self.REPLY)])


@contextlib.asynccontextmanager
async def card_sending_calls_to(
    endpoint: str, transport: Transport = "jsonrpc"
) -> AsyncIterator[str]:
    """A plain web server whose ``/card.json`` is a real agent card sending ``transport`` calls
    to ``endpoint`` (the agent's text: in a container, on 0.0.0.0, mistyped); yields its URL."""
    async with serve_agent(PlainTextAgent()) as served:
        card = served.card_for(transport)
    card.supported_interfaces[0].url = endpoint
    with web_server({"/card.json": ("application/json", MessageToJson(card).encode())}) as url:
        yield f"{url}/card.json"


class EndsInAgent(ScriptedAgent):
    """Thinks, runs one tool, then ends the task in ``state`` with :data:`REASON`."""

    REASON: Final = "the database is read-only"

    def __init__(self, state: int) -> None:
        super().__init__(
            [
                thinking("trying the migration"),
                start("migrate", "call-1"),
                done("call-1"),
                status(state, self.REASON),
            ]
        )


class RaisingAgent(ScriptedAgent):
    """Starts a tool call, then its executor raises: the stream breaks, the task is FAILED."""

    def __init__(self) -> None:
        super().__init__([start("flaky_tool", "call-1"), raise_(RuntimeError("the agent crashed"))])


class GatedAgent(ScriptedAgent):
    """Reports :data:`BEFORE`, waits for :attr:`release`, reports :data:`AFTER`, completes.

    It cannot cancel: its ``cancel()`` raises ``NotImplementedError``.
    """

    BEFORE: Final = "before the gate"
    AFTER: Final = "after the gate"
    REPLY: Final = "gated answer"

    def __init__(self) -> None:
        self.reached = asyncio.Event()
        self.release = asyncio.Event()
        super().__init__(
            [
                text(self.BEFORE),
                reached(self.reached),
                wait(self.release),
                start("after_gate", "call-1"),
                text(self.AFTER),
                done("call-1"),
                complete(self.REPLY),
            ],
            cancellable=False,
        )


class SlowToolAgent(ScriptedAgent):
    """Runs ``slow_tool`` for :data:`SECONDS`, then completes with :data:`REPLY`."""

    SECONDS: Final = 0.3
    REPLY: Final = "slow answer"

    def __init__(self) -> None:
        super().__init__(
            [
                start("slow_tool", "call-1"),
                sleep(self.SECONDS),
                done("call-1"),
                complete(self.REPLY),
            ]
        )


class HangingToolAgent(ScriptedAgent):
    """Starts ``long_job`` and waits forever inside it; ``cancel()`` aborts it, then CANCELED."""

    def __init__(self) -> None:
        self.running = asyncio.Event()
        super().__init__(
            [start("long_job", "call-1"), reached(self.running), wait(asyncio.Event())],
            cancel_open_calls=True,
            cancel_reply="stopped by the test",
        )


class ScriptedTurn:
    """Feeds a live view the consumer's updates for a scripted turn, at scripted times."""

    TASK_ID: Final = "task-1"

    def __init__(self, view: LiveView, clock: FakeClock) -> None:
        self._assembler = ProgressAssembler()
        self._view = view
        self._clock = clock
        self._seq = 0

    def _feed(self, state: int, parts: list[Part]) -> None:
        message = events.message(parts, task_id=self.TASK_ID)
        event = events.status_event(state, message, task_id=self.TASK_ID)
        for update in self._assembler.feed(event):
            self._view.update(update)

    def envelope(
        self,
        kind: Kind,
        payload: dict[str, str],
        status: Status = Status.RUNNING,
        stream_key: str | None = None,
        *,
        after: float = 0.0,
    ) -> None:
        """Advance the clock by ``after`` seconds, then deliver the next envelope."""
        self._clock.now += after
        self._seq += 1
        envelope = Envelope(kind, self._seq, payload, status, stream_key)
        self._feed(TaskState.TASK_STATE_WORKING, [envelope_part(encode(envelope), "fallback")])

    def plain(self, text: str) -> None:
        """A working update with no envelope."""
        self._feed(TaskState.TASK_STATE_WORKING, [Part(text=text)])

    def end(self, state: int, reply: str, *, after: float = 0.0) -> None:
        self._clock.now += after
        self._feed(state, [Part(text=reply)])

    def close_stream(self) -> list[TurnOutcome]:
        """The stream ended with no terminal state."""
        return self._assembler.close()

    def run_until_smoke_tests(self) -> None:
        """Thinking, a finished call, an aborted call, an error, and a call still streaming."""
        self.envelope(Kind.THINKING, {"text": f"{THINKING_LINE}\nThen decide."})
        call_1 = {"tool": "get_deploy_status", "tool_call_id": "call-1"}
        self.envelope(Kind.TOOL_CALL, call_1, stream_key="call-1", after=0.1)
        self.envelope(Kind.TOOL_CALL, call_1, Status.DONE, "call-1", after=0.5)
        call_3 = {"tool": "query_metrics", "tool_call_id": "call-3"}
        self.envelope(Kind.TOOL_CALL, call_3, stream_key="call-3")
        self.envelope(
            Kind.TOOL_CALL,
            {**call_3, "reason": "backend timed out"},
            Status.ABORTED,
            "call-3",
            after=1.0,
        )
        self.envelope(Kind.ERROR, {"message": "metrics unavailable"})
        self.plain("legacy status line")
        call_4 = {"tool": "run_smoke_tests", "tool_call_id": "call-4"}
        self.envelope(Kind.TOOL_CALL, call_4, stream_key="call-4")
        for line in ("one", "two", "three", "four", "five"):
            self.envelope(
                Kind.TOOL_OUTPUT_APPEND,
                {**call_4, "chunk": f"{line}\n"},
                stream_key="call-4",
                after=0.25,
            )
        self.envelope(Kind.TEXT, {"text": "Comparing configs."}, after=0.25)
