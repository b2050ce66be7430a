"""A callee in its own process, and a caller's view of it, for the fault tests.

Run as a script, this module serves :func:`faulty_agent` with ``serve_forever`` on the given
ports, instrumented by ``A2AProgressInstrumentor``; with ``FAULTS_OTLP_ENDPOINT`` set its spans
go there over OTLP/HTTP. The first word of the user's message picks the turn (see
:func:`faulty_agent`), so one process serves every scenario of a test module. On a third port
it runs a flooding peer (see :func:`flood_event`).

Imported, it gives :func:`callee_process`, which starts that process, waits until it serves, and
kills it however the test ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from a2a.types import AgentCard, Part, TaskState

from a2a_progress.carrier import TFRS_KEY
from a2a_progress.serving import ServedAgent, Transport, build_agent_card, serve_forever
from support.processes import free_port, python_path, wait_until_serving
from support.scripted import ScriptedAgent, Turn

AGENT_NAME: Final = "faults callee"
SERVICE_NAME: Final = "faults-callee"
STARTUP_SECONDS: Final = 60.0
"""Bound on a callee process getting ready (imports are slow on a loaded CI machine)."""
FLOOD_RATE: Final = 10_000
"""Envelopes per second a flooding peer aims at."""


# -- the callee -----------------------------------------------------------------------------------


def _envelope(seq: int, kind: str, status: str, key: str | None, **payload: str) -> str:
    wire: dict[str, object] = {"v": 1, "kind": kind, "seq": seq, "status": status}
    if key is not None:
        wire["streamKey"] = key
    wire["payload"] = payload
    return json.dumps(wire, separators=(",", ":"))


def faulty_agent(signalled: asyncio.Event) -> ScriptedAgent:
    """One turn per request, picked by the message's first word; the rest are its arguments.

    * ``hang-in-tool``: starts tool ``slow`` and waits forever (to be killed).
    * ``wait-for-signal``: starts tool ``long``, then waits for ``signalled`` (SIGUSR1); then one
      more thinking block and COMPLETED, leaving the tool open for the turn to close.
    * ``steps N``: N envelopes (tool calls and thinking), then COMPLETED.
    * ``big BYTES``: an envelope whose update's fallback text is BYTES long, then a plain update
      that long, then COMPLETED.
    * ``no-terminal``: a tool call and a thinking block, then ``execute()`` returns without a
      terminal state.
    * ``hang``: a tool call and a thinking block, then waits forever: no terminal state ever.
    """

    async def steps(turn: Turn) -> None:
        for step in range(int(turn.args[0])):
            if step % 3 == 0:
                await turn.progress.thinking(f"step {step}")
            else:
                async with turn.progress.tool_call("step", f"call-{step}"):
                    pass
        await _done(turn)

    async def big(turn: Turn) -> None:
        size = int(turn.args[0])
        text = ("x" * 1023 + "\n") * (size // 1024)
        tfrs = _envelope(1, "thinking", "running", None, text="a big one follows")
        for part in (Part(text=text, metadata={TFRS_KEY: tfrs}), Part(text=text)):
            await turn.updater.update_status(
                TaskState.TASK_STATE_WORKING, message=turn.updater.new_agent_message([part])
            )
        await _done(turn)

    async def open_tool(turn: Turn, tool: str) -> None:
        await turn.progress.tool_call(tool, "call-1")
        await turn.progress.thinking("working on it")

    async def wait_for_signal(turn: Turn) -> None:
        await open_tool(turn, "long")
        await signalled.wait()
        signalled.clear()
        await turn.progress.thinking("still working, nobody listening")
        await _done(turn)  # the bare updater: the tool is left open, for the turn's end to close

    async def hang_in_tool(turn: Turn) -> None:
        await open_tool(turn, "slow")
        await asyncio.Event().wait()

    async def hang(turn: Turn) -> None:
        await open_tool(turn, "long")
        await asyncio.Event().wait()

    async def no_terminal(turn: Turn) -> None:
        await open_tool(turn, "long")  # and return with the tool open and no terminal state

    agent = ScriptedAgent()
    agent.register(steps, "steps")
    agent.register(big, "big")
    agent.register(wait_for_signal, "wait-for-signal")
    agent.register(hang_in_tool, "hang-in-tool")
    agent.register(hang, "hang")
    agent.register(no_terminal, "no-terminal")
    return agent


async def _done(turn: Turn) -> None:
    await turn.updater.complete(turn.updater.new_agent_message([Part(text="done")]))


# -- the flooding peer ------------------------------------------------------------------------
# An a2a-sdk server cannot flood: it stores every status message in the task's history, so each
# update costs more than the one before. This peer speaks just enough JSON-RPC over SSE to answer
# SendStreamingMessage, and writes pre-built events as fast as the caller reads, up to the rate.


def flood_event(seq: int, keys: int) -> bytes:
    """Event ``seq`` of a flood: tool calls starting and ending on ``keys`` streams, with a
    keyless thinking block every third event."""
    key = f"stream-{seq % keys}"
    if seq % 3 == 2:
        tfrs = _envelope(seq, "thinking", "running", None, text=f"thought {seq}")
    else:
        status = "running" if (seq // keys) % 2 == 0 else "done"
        tfrs = _envelope(seq, "tool_call", status, key, tool="flood")
    part = {"text": f"update {seq}", "metadata": {TFRS_KEY: tfrs}}
    message = {"messageId": f"m{seq}", "role": "ROLE_AGENT", "parts": [part]}
    return _sse({"statusUpdate": _status("TASK_STATE_WORKING", message)})


def _status(state: str, message: dict[str, object]) -> dict[str, object]:
    status = {"state": state, "message": message}
    return {"taskId": "flood", "contextId": "flood", "status": status}


def _sse(result: dict[str, object]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": "flood", "result": result})
    return f"data: {body}\n\n".encode()


async def _flood(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answer one SendStreamingMessage ``flood SECONDS KEYS``: a flood for SECONDS, then
    COMPLETED with the number of envelopes sent as its reply."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    call = json.loads(await reader.readexactly(length))
    _, seconds, keys = call["params"]["message"]["parts"][0]["text"].split()
    writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n")
    task = {"id": "flood", "contextId": "flood", "status": {"state": "TASK_STATE_SUBMITTED"}}
    writer.write(_sse({"task": task}))
    loop = asyncio.get_running_loop()
    start, sent = loop.time(), 0
    while loop.time() - start < float(seconds):
        writer.writelines(flood_event(sent + i, int(keys)) for i in range(100))
        sent += 100
        await writer.drain()  # the caller's reading is the back-pressure
        await asyncio.sleep(max(0.0, start + sent / FLOOD_RATE - loop.time()))
    reply = {"messageId": "end", "role": "ROLE_AGENT", "parts": [{"text": str(sent)}]}
    writer.write(_sse({"statusUpdate": _status("TASK_STATE_COMPLETED", reply)}))
    await writer.drain()
    writer.close()


def _instrument() -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    from a2a_progress.otel import A2AProgressInstrumentor

    provider = TracerProvider(resource=Resource.create({"service.name": SERVICE_NAME}))
    endpoint = os.environ.get("FAULTS_OTLP_ENDPOINT")
    if endpoint:
        exporter = OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces", timeout=2)
        provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=100))
    # Content captured: the tests read what the agent said from its spans.
    A2AProgressInstrumentor().instrument(tracer_provider=provider, capture_content=True)
    import atexit

    atexit.register(provider.shutdown)


async def _serve(http_port: int, grpc_port: int, flood_port: int) -> None:
    signalled = asyncio.Event()
    agent = faulty_agent(signalled)
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, signalled.set)
    async with await asyncio.start_server(_flood, "127.0.0.1", flood_port):
        await serve_forever(agent, name=AGENT_NAME, http_port=http_port, grpc_port=grpc_port)


# -- the caller's side ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Callee:
    """A running callee process and where it serves."""

    process: asyncio.subprocess.Process
    served: ServedAgent
    flood_url: str
    log: Path

    def card(self, transport: Transport) -> AgentCard:
        """The card of one transport, protocol 1.0."""
        return self.served.card_for(transport)

    def flood_card(self) -> AgentCard:
        """The card of the flooding peer: JSON-RPC 1.0 only."""
        card = build_agent_card(
            "flooding peer", description="floods", http_url=self.flood_url, grpc_target=None
        )
        del card.supported_interfaces[1:]
        return card

    def signal(self, signum: int) -> None:
        self.process.send_signal(signum)


@contextlib.asynccontextmanager
async def callee_process(
    log_dir: Path, *, otlp_endpoint: str | None = None, env: Mapping[str, str] = {}
) -> AsyncIterator[Callee]:
    """Start the callee in its own process; it is killed when the block exits, however."""
    http_port, grpc_port, flood_port = free_port(), free_port(), free_port()
    log = log_dir / f"callee-{http_port}.log"
    child_env = {
        **os.environ,
        "PYTHONPATH": python_path(),  # this file runs as a script: `support` from tests/
        "OTEL_INSTRUMENTATION_A2A_SDK_ENABLED": "false",
        **env,
    }
    if otlp_endpoint is not None:
        child_env["FAULTS_OTLP_ENDPOINT"] = otlp_endpoint
    with log.open("wb") as log_file:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            str(http_port),
            str(grpc_port),
            str(flood_port),
            env=child_env,
            stdout=log_file,
            stderr=log_file,
        )
    try:
        http_url, grpc_target = f"http://127.0.0.1:{http_port}", f"127.0.0.1:{grpc_port}"
        await wait_until_serving(
            http_url,
            alive=lambda: process.returncode is None,
            why=lambda: log_tail(log),
            seconds=STARTUP_SECONDS,
        )
        card = build_agent_card(
            AGENT_NAME, description="fault tests", http_url=http_url, grpc_target=grpc_target
        )
        # card_for only filters the card's interfaces: the handler lives in the other process.
        served = ServedAgent(card=card, http_url=http_url, grpc_target=grpc_target, handler=None)  # type: ignore[arg-type]
        yield Callee(process, served, f"http://127.0.0.1:{flood_port}", log)
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()


def log_tail(log: Path) -> str:
    """The end of a callee's log, for a failure message."""
    return log.read_text(errors="replace")[-4000:]


if __name__ == "__main__":
    _instrument()
    asyncio.run(_serve(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])))
