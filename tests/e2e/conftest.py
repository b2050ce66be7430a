"""Shared parts of the end-to-end protocol tests: a scripted agent served over every transport.

Each test module gets one real a2a-sdk server on 127.0.0.1 (module-scoped, in the module's event
loop: mark the module ``pytestmark = MODULE_LOOP``). Its executor runs whatever script a test
registered, recording every event the script enqueues, so tests compare what the callee sent
with what the caller's consumer saw.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Sequence
from dataclasses import dataclass
from typing import Final, TypeVar, cast

import pytest
import pytest_asyncio
from a2a.types import (
    AgentCard,
    StreamResponse,
    Task,
)

from a2a_progress import Envelope, ProgressUpdate, TurnOutcome, decode
from a2a_progress.consumer import Update
from a2a_progress.sdk.adapter import status_message
from a2a_progress.serving import TRANSPORTS, ServedAgent, Transport, serve_agent
from support.scripted import ScriptedAgent, Turn, envelope_strings

MODULE_LOOP: Final = pytest.mark.asyncio(loop_scope="module")
"""Mark for every test module here: tests share the module's loop, where its server runs."""

GUARD_SECONDS: Final = 15.0
"""Bound on waiting for the other side; only there so a broken build fails instead of hanging."""

T = TypeVar("T")


async def guarded(awaitable: Awaitable[T]) -> T:
    """``awaitable``, failing the test rather than hanging when it never finishes."""
    return await asyncio.wait_for(awaitable, GUARD_SECONDS)


# -- the callee ---------------------------------------------------------------------------------
# The scripted agent is tests/support's: tests register a script and send its name.


@pytest.fixture(scope="module")
def agent() -> ScriptedAgent:
    """Cancelling a turn aborts its open tool calls first, as a producer's executor should."""
    return ScriptedAgent(cancel_open_calls=True)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def served(agent: ScriptedAgent) -> AsyncIterator[ServedAgent]:
    async with serve_agent(agent, name="e2e agent") as served_agent:
        yield served_agent


# -- transports ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Wire:
    """One transport in one protocol line, and the card that makes a client speak exactly it."""

    transport: Transport
    v0_3: bool
    card: AgentCard


WIRES: Final = [
    pytest.param((transport, v0_3), id=f"{transport}-{'v0.3' if v0_3 else '1.0'}")
    for v0_3 in (False, True)
    for transport in TRANSPORTS
]


@pytest.fixture(params=WIRES)
def wire(request: pytest.FixtureRequest, served: ServedAgent) -> Wire:
    """Each of JSON-RPC, REST and gRPC, in protocol 1.0 and through ``enable_v0_3_compat``."""
    transport, v0_3 = request.param
    return Wire(transport, v0_3, served.card_for(transport, v0_3=v0_3))


# -- the caller ---------------------------------------------------------------------------------


async def tap(
    events: AsyncIterable[StreamResponse], seen: list[StreamResponse]
) -> AsyncIterator[StreamResponse]:
    """Pass ``events`` through, keeping a copy of each in ``seen`` (what came over the wire)."""
    async for event in events:
        seen.append(event)
        yield event


def wire_envelopes(seen: Sequence[StreamResponse | Task]) -> list[str]:
    """The envelope strings carried by the events a client received, in order."""
    messages = [status_message(event) for event in seen]
    return envelope_strings([message for message in messages if message is not None])


async def collect(updates: AsyncIterable[Update], into: list[Update] | None = None) -> list[Update]:
    """All of ``updates``; appended to ``into`` as they come, so they survive an exception."""
    collected = [] if into is None else into
    async for update in updates:
        collected.append(update)
    return collected


def progress_of(updates: Sequence[Update]) -> list[ProgressUpdate]:
    return [update for update in updates if isinstance(update, ProgressUpdate)]


def outcome_of(updates: Sequence[Update]) -> TurnOutcome:
    """The single outcome, which must come last."""
    outcomes = [update for update in updates if isinstance(update, TurnOutcome)]
    assert len(outcomes) == 1, outcomes
    assert updates[-1] is outcomes[0]
    return outcomes[0]


def decoded(sent: Sequence[str]) -> list[Envelope]:
    """What the sent envelope strings say, to compare with what the consumer made of them."""
    envelopes = [decode(text) for text in sent]
    assert all(isinstance(envelope, Envelope) for envelope in envelopes), envelopes
    return cast(list[Envelope], envelopes)


def envelopes_of(progress: Sequence[ProgressUpdate]) -> list[Envelope]:
    return [update.envelope for update in progress]


def assert_unique(progress: Sequence[ProgressUpdate]) -> None:
    """Every ``(stream, seq)`` was consumed once (spec rule 3)."""
    keys = [(update.envelope.stream_id, update.envelope.seq) for update in progress]
    assert len(keys) == len(set(keys)), keys


# -- a producer turn that stresses the wire -----------------------------------------------------

SEQ_START: Final = 2**53 + 1
"""Not representable as a float64: a Struct number would round it (spec "Verified facts")."""

TRICKY: Final = (
    "CJK 中文 漢字 · emoji 🎉👩🏽‍💻 · RTL שלום مرحبا · \"double\" 'single' · back\\slash \\n "
    "\\u0041 · tab\tnewline\ncrlf\r\nnul\x00 · separators \x85\u2028\u2029 · {json: [1]}"
)
LONG: Final = "".join(f"line {i:03d} {'é中🎉' * 30}\n" for i in range(120))
"""About 30 KB: the producer splits it by lines into several envelopes under 8 KiB."""
TOOL_OUTPUT: Final = {
    "call-甲": ["甲 first line\n", "甲 «second»\n", "甲 done \\o/\n"],
    "call-乙": ['乙 {"json": true}\n', "乙 🚀\n", "乙 last\n"],
}
REPLY: Final = 'final answer ✅ «done» "quoted" \\ end\nsecond line\u2028third line'
REPLY_RECEIVED: Final = REPLY.replace("\u2028", "\n")
"""The reply as callers get it: line separators that would cut an SSE event become newlines."""


async def stress_script(turn: Turn) -> None:
    """Thinking, long split text, two concurrent tool calls streaming output, an id-less call,
    an error block, then the reply; seq starts above 2^53."""
    async with turn.emitter(seq_start=SEQ_START, enable_output=True) as progress:
        await progress.thinking(TRICKY)
        await progress.text(LONG)

        async def run_tool(call_id: str) -> None:
            async with progress.tool_call(f"tool {call_id}", call_id) as call:
                for chunk in TOOL_OUTPUT[call_id]:
                    await call.output(chunk)
                    await asyncio.sleep(0)  # let the other call interleave

        await asyncio.gather(*(run_tool(call_id) for call_id in TOOL_OUTPUT))
        async with progress.tool_call("summarize"):
            await progress.text("summarizing 要約")
        await progress.error('recoverable: "x" \\ y')
        await progress.complete(REPLY)
