"""``a2a-progress demo``: two instrumented agents on loopback, one turn, its live view and trace.

Embedded (the default): the demo callee runs as a child process (``serve-demo``) and this process
is the caller; both trace with the a2a-progress instrumentor and export over OTLP/HTTP to an
:class:`~a2a_progress.otlp_receiver.OtlpReceiver` started here (and to
``OTEL_EXPORTER_OTLP_ENDPOINT`` when it is set). After the turn the child is stopped, which
flushes its spans, and the trace of both agents is drawn and written as OTLP JSON.

``--remote URL``: no child and no receiver; the caller runs the turn against a callee elsewhere,
once or every ``--every`` seconds (docker-compose's ``caller`` service).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

import httpx
from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from a2a_progress.cli.agent_client import (
    card_url,
    chosen_interface,
    describe_endpoint,
    fetch_card,
    offered_transports,
    only_transport,
    open_client,
)
from a2a_progress.cli.demo_agent import DEMO_QUESTION
from a2a_progress.cli.errors import CliError, ExitCode
from a2a_progress.cli.live_view import LiveView
from a2a_progress.cli.serve_demo import DEFAULT_SERVICE_NAME as CALLEE_SERVICE
from a2a_progress.cli.telemetry import (
    ENV_ENDPOINT,
    ENV_TRACES_ENDPOINT,
    Telemetry,
    endpoint_reachable,
    env_endpoint,
    jaeger_ui_for,
    start_telemetry,
)
from a2a_progress.cli.trace_view import Waterfall
from a2a_progress.cli.watch import exit_code_of, follow_turn, user_message
from a2a_progress.consumer import TurnOutcome
from a2a_progress.otlp_receiver import OtlpReceiver, ReceivedSpan
from a2a_progress.serve import Transport

CALLER_SERVICE: Final = "demo-caller"
DEFAULT_TRACE_FILE: Final = "a2a-progress-trace.json"
ROOT_SPAN: Final = "a2a-progress demo"
_CALL_TIMEOUT: Final = 30.0
_STARTUP_TIMEOUT: Final = 30.0
_STOP_TIMEOUT: Final = 10.0
_TRACE_TIMEOUT: Final = 10.0
_PLAIN_WIDTH: Final = 120
ENDPOINTS: Final = frozenset({ENV_ENDPOINT, ENV_TRACES_ENDPOINT})


@dataclass(frozen=True)
class DemoOptions:
    """What ``demo`` was asked to do."""

    remote: str | None = None
    every: float | None = None
    trace_file: str = DEFAULT_TRACE_FILE
    pace: float = 1.0
    transport: Transport | None = None
    message: str = DEMO_QUESTION


async def run_demo(options: DemoOptions, console: Console) -> int:
    """Run ``demo``; return the exit code. Failures raise :class:`CliError`."""
    if options.remote is not None:
        return await _run_remote(options.remote, options, console)
    return await _run_embedded(options, console)


# -- embedded ----------------------------------------------------------------------------------


async def _run_embedded(options: DemoOptions, console: Console) -> int:
    console.print(
        Text.assemble(
            ("a2a-progress demo", "bold"),
            ": a caller agent asks a callee agent (another process) to investigate a "
            "failing deploy. The callee streams its tool calls as progress envelopes; "
            "both agents trace them.",
        )
    )
    receiver = OtlpReceiver("127.0.0.1", http_port=0, grpc_port=None).start()
    try:
        traces_url = f"{receiver.http_endpoint}/v1/traces"
        endpoint = env_endpoint()
        export_env = endpoint is None or endpoint_reachable(endpoint)
        if not export_env:
            # Retrying a dead collector would slow the demo and flood stderr; say it once.
            console.print(
                f"Not exporting to {endpoint} (OTEL_EXPORTER_OTLP_ENDPOINT): nothing answers "
                "there. Is the docker-compose stack up (`docker compose up -d`)?",
                style="yellow",
                markup=False,
                highlight=False,
            )
        telemetry = start_telemetry(CALLER_SERVICE, traces_url, use_env_endpoint=export_env)
        try:
            async with _callee_process(options.pace, traces_url, export_env) as (url, pid):
                outcome, trace_id = await _turn(url, options, console, telemetry, pid=pid)
            telemetry.flush()
            _show_trace(receiver, trace_id, options.trace_file, telemetry, console)
        finally:
            telemetry.close()
    finally:
        receiver.stop()
    return exit_code_of(outcome)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def _callee_process(
    pace: float, traces_url: str, export_env: bool
) -> AsyncIterator[tuple[str, int]]:
    """Run ``serve-demo`` as a child on free loopback ports; yield its URL and pid.

    ``export_env`` false keeps the child from exporting to ``OTEL_EXPORTER_OTLP_ENDPOINT``.
    """
    http_port, grpc_port = _free_port(), _free_port()
    env = {
        **{key: value for key, value in os.environ.items() if export_env or key not in ENDPOINTS},
        "OTEL_SERVICE_NAME": CALLEE_SERVICE,
        "OTEL_INSTRUMENTATION_A2A_SDK_ENABLED": "false",
    }
    args = [
        "serve-demo",
        *("--host", "127.0.0.1", "--port", str(http_port), "--grpc-port", str(grpc_port)),
        *("--pace", str(pace), "--otlp-http", traces_url),
    ]
    with tempfile.TemporaryFile() as log:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "a2a_progress.cli",
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            env=env,
        )
        try:
            url = f"http://127.0.0.1:{http_port}"
            await _wait_until_serving(url, process, log)
            yield url, process.pid
        finally:
            await _stop(process)


async def _wait_until_serving(
    url: str, process: asyncio.subprocess.Process, log: IO[bytes]
) -> None:
    deadline = asyncio.get_running_loop().time() + _STARTUP_TIMEOUT
    async with httpx.AsyncClient(timeout=1.0) as http:
        while True:
            if process.returncode is not None:
                raise CliError(
                    f"the demo callee exited with code {process.returncode}: {_last_line(log)}",
                    ExitCode.UNREACHABLE,
                )
            with contextlib.suppress(httpx.RequestError):
                if (await http.get(card_url(url))).status_code == 200:
                    return
            if asyncio.get_running_loop().time() > deadline:
                raise CliError(
                    f"the demo callee did not serve {url} within {_STARTUP_TIMEOUT:g}s: "
                    f"{_last_line(log)}",
                    ExitCode.UNREACHABLE,
                )
            await asyncio.sleep(0.1)


def _last_line(log: IO[bytes]) -> str:
    log.seek(0)
    lines = [line.strip() for line in log.read().decode(errors="replace").splitlines()]
    return next((line for line in reversed(lines) if line), "no output")


async def _stop(process: asyncio.subprocess.Process) -> None:
    """SIGTERM (the callee flushes its spans and exits), then SIGKILL if it hangs."""
    if process.returncode is None:
        process.terminate()
    try:
        await asyncio.wait_for(process.wait(), _STOP_TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()


def _show_trace(
    receiver: OtlpReceiver,
    trace_id: str,
    trace_file: str,
    telemetry: Telemetry,
    console: Console,
) -> None:
    def complete(spans: list[ReceivedSpan]) -> bool:
        ours = [span for span in spans if span.trace_id == trace_id]
        return any(span.name == ROOT_SPAN for span in ours) and any(
            span.service_name == CALLEE_SERVICE and span.kind == "SERVER" for span in ours
        )

    try:
        spans = receiver.wait_for_spans(complete, _TRACE_TIMEOUT)
    except TimeoutError:
        spans = receiver.spans()
        console.print(
            f"Some spans did not arrive within {_TRACE_TIMEOUT:g}s; the trace is partial.",
            style="yellow",
        )
    trace = [span for span in spans if span.trace_id == trace_id]
    console.print()
    console.print(Rule("trace of both agents, as received over OTLP", style="dim"))
    # A pipe has no width: do not squeeze the bars into rich's default 80 columns.
    width = console.width if console.is_terminal else max(console.width, _PLAIN_WIDTH)
    console.print(Waterfall(trace), width=width)
    path = Path(trace_file)
    count = receiver.write_otlp_json(path)
    console.print(
        f"\nWrote {count} spans as OTLP JSON to {path}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    console.print(
        "(an OTLP/JSON export request: Jaeger's JSON upload and a collector's otlpjsonfile "
        "receiver read it)",
        style="dim",
        markup=False,
        highlight=False,
    )
    _where_else(telemetry, trace_id, console)


def _where_else(telemetry: Telemetry, trace_id: str, console: Console) -> None:
    """Say where else the spans went, or how to see them in Jaeger."""
    if not telemetry.exports_to:
        console.print(
            "To see this trace in Jaeger: `docker compose up -d`, then "
            "`OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 make demo`.",
            style="dim",
            markup=False,
            highlight=False,
        )
        return
    for endpoint in telemetry.exports_to:
        jaeger = jaeger_ui_for(endpoint)
        where = f"Also exported to {endpoint}"
        if jaeger is not None:
            where += f"; in Jaeger: {jaeger}/trace/{trace_id}"
        console.print(where, markup=False, highlight=False, soft_wrap=True)


# -- one turn ----------------------------------------------------------------------------------


async def _turn(
    url: str,
    options: DemoOptions,
    console: Console,
    telemetry: Telemetry,
    *,
    pid: int | None = None,
) -> tuple[TurnOutcome, str]:
    """Send the demo question to the callee at ``url`` and show the turn; return it and its
    trace id (hex)."""
    card = await fetch_card(url, headers={}, timeout_seconds=_CALL_TIMEOUT)
    if options.transport is not None:
        card = only_transport(card, options.transport)
    process = f" (pid {pid})" if pid is not None else ""
    chosen = chosen_interface(card)
    others = [name for name in offered_transports(card) if chosen is None or name != chosen[0]]
    also = f", also {' and '.join(others)}" if others else ""
    console.print(
        f"  callee  {card.name}{process}: {describe_endpoint(card)}{also}\n"
        f'  caller  asks: "{options.message}"',
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    console.print()
    tracer = telemetry.tracer(__name__)
    with tracer.start_as_current_span(ROOT_SPAN) as root:
        trace_id = format(root.get_span_context().trace_id, "032x")
        async with open_client(card, headers={}, timeout=_CALL_TIMEOUT) as client:
            with LiveView(console, title=card.name) as view:
                events = client.send_message(user_message(options.message))
                outcome = await follow_turn(client, events, view, url=url)
    return outcome, trace_id


# -- remote ------------------------------------------------------------------------------------


async def _run_remote(url: str, options: DemoOptions, console: Console) -> int:
    telemetry = start_telemetry(CALLER_SERVICE)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    # docker stop sends SIGTERM: end between turns (or cut the current one) and flush the spans.
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    try:
        number = 0
        while True:
            number += 1
            if options.every is not None:
                console.print(Rule(f"turn {number}", style="dim"))
            turn = asyncio.ensure_future(_remote_turn(url, options, console, telemetry))
            stopped = asyncio.ensure_future(stop.wait())
            await asyncio.wait({turn, stopped}, return_when=asyncio.FIRST_COMPLETED)
            if not turn.done():
                turn.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await turn
                return 0
            stopped.cancel()
            if options.every is None:
                return turn.result()  # a CliError goes up: one line, its exit code
            error = turn.exception()
            if isinstance(error, CliError):
                # Keep going: the callee may be restarting (docker-compose).
                console.print(f"error: {error.message}", style="red", markup=False, soft_wrap=True)
            elif error is not None:
                raise error
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), options.every)
            if stop.is_set():
                return 0
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGTERM)
        telemetry.close()


async def _remote_turn(
    url: str, options: DemoOptions, console: Console, telemetry: Telemetry
) -> int:
    outcome, trace_id = await _turn(url, options, console, telemetry)
    telemetry.flush()
    if telemetry.provider is not None:
        jaeger = next(filter(None, map(jaeger_ui_for, telemetry.exports_to)), None)
        where = f"{jaeger}/trace/{trace_id}" if jaeger else trace_id
        console.print(f"trace: {where}", markup=False, highlight=False, soft_wrap=True)
    return exit_code_of(outcome)
