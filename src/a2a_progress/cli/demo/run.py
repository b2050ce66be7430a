"""Running the demo: agents on loopback, one turn, its live view and trace.

Embedded (the default): the demo callee runs as a child process (``serve-demo``) and this process
is the caller; both trace with the a2a-progress instrumentor and export over OTLP/HTTP to an
`a2a_progress.otlp.OtlpReceiver` started here (and to
``OTEL_EXPORTER_OTLP_ENDPOINT`` when it is set). After the turn the child is stopped, which
flushes its spans, and the trace of every agent is drawn and written as OTLP JSON.

``--remote URL``: no child and no receiver; the caller runs the turn against a callee elsewhere,
once or every ``--every`` seconds (docker-compose's ``caller`` service).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from a2a_progress.cli.agent_client import (
    chosen_interface,
    describe_endpoint,
    fetch_card,
    offered_transports,
    only_transport,
    open_client,
)
from a2a_progress.cli.demo.agent import DEMO_QUESTION
from a2a_progress.cli.demo.agent import SERVICE_NAME as CALLEE_SERVICE
from a2a_progress.cli.demo.auditor import AUDITOR_NAME
from a2a_progress.cli.demo.auditor import AUDITOR_SERVICE_NAME as AUDITOR_SERVICE
from a2a_progress.cli.demo.command import DEFAULT_TRACE_FILE
from a2a_progress.cli.demo.processes import (
    AgentSpec,
    Served,
    agent_processes,
    child_environment,
    free_ports,
)
from a2a_progress.cli.demo.trace import (
    ENDPOINTS,
    ROOT_SPAN,
    export_to_environment,
    remote_trace_line,
    show_trace,
)
from a2a_progress.cli.errors import CliError
from a2a_progress.cli.live_view import LiveView
from a2a_progress.cli.telemetry import Telemetry, start_telemetry
from a2a_progress.cli.turn import exit_code_of, follow_turn, user_message
from a2a_progress.cli.view.web import WebPanel, web_panel
from a2a_progress.consumer import TurnOutcome
from a2a_progress.extension import request_progress_extension
from a2a_progress.inert import inert
from a2a_progress.otlp import OtlpReceiver
from a2a_progress.serving import Transport

CALLER_SERVICE: Final = "demo-caller"
_CALL_TIMEOUT: Final = 30.0


@dataclass(frozen=True)
class DemoOptions:
    """What ``demo`` was asked to do."""

    remote: str | None = None
    every: float | None = None
    trace_file: str = DEFAULT_TRACE_FILE
    pace: float = 1.0
    transport: Transport | None = None
    message: str = DEMO_QUESTION
    web_port: int | None = None  # --web: serve the panel on this port (0: a free one)


async def run_demo(options: DemoOptions, console: Console) -> int:
    """Run ``demo``; return the exit code. Failures raise `CliError`."""
    if options.remote is not None:
        return await _run_remote(options.remote, options, console)
    return await _run_embedded(options, console)


# -- embedded ----------------------------------------------------------------------------------


async def _run_embedded(options: DemoOptions, console: Console) -> int:
    console.print(
        Text.assemble(
            ("a2a-progress demo", "bold"),
            ": a caller agent asks a callee agent (another process) to investigate a "
            "failing deploy. The callee streams its tool calls as progress envelopes and, from "
            "inside one of them, consults a third agent; every agent traces them.",
        )
    )
    async with web_panel(options.web_port, out=console.file, request=options.message) as panel:
        outcome = await _run_agents(options, console, panel)
        await panel.hold()
    return exit_code_of(outcome)


async def _run_agents(options: DemoOptions, console: Console, panel: WebPanel) -> TurnOutcome:
    """Start the demo agents, run the turn, show its trace; return how the turn ended."""
    receiver = OtlpReceiver("127.0.0.1", http_port=0, grpc_port=None).start()
    try:
        traces_url = f"{receiver.http_endpoint}/v1/traces"
        export_env = export_to_environment(console)
        telemetry = start_telemetry(CALLER_SERVICE, traces_url, use_env_endpoint=export_env)
        try:
            ports = free_ports(4)  # each agent's HTTP and gRPC port, four different ones
            auditor = _agent_spec(
                "auditor", AUDITOR_SERVICE, options, traces_url, export_env, ports=ports[:2]
            )
            callee = _agent_spec(
                "investigator",
                CALLEE_SERVICE,
                options,
                traces_url,
                export_env,
                ports=ports[2:],
                consult=auditor.url,
            )
            async with agent_processes([callee, auditor]) as (served, consulted):
                outcome, trace_id = await _turn(
                    served.url,
                    options,
                    console,
                    telemetry,
                    pid=served.pid,
                    consults=consulted,
                    panel=panel,
                )
            telemetry.flush()
            show_trace(
                receiver,
                trace_id,
                options.trace_file,
                telemetry,
                console,
                servers=[CALLEE_SERVICE, AUDITOR_SERVICE],
            )
        finally:
            telemetry.close()
    finally:
        receiver.stop()
    return outcome


def _agent_spec(
    agent: str,
    service: str,
    options: DemoOptions,
    traces_url: str,
    export_env: bool,
    *,
    ports: Sequence[int],
    consult: str | None = None,
) -> AgentSpec:
    """``serve-demo --agent AGENT`` on the free loopback ``ports`` (HTTP, gRPC), exporting to
    ``traces_url``."""
    http_port, grpc_port = ports
    args = [
        *("serve-demo", "--agent", agent),
        *("--host", "127.0.0.1", "--port", str(http_port), "--grpc-port", str(grpc_port)),
        *("--pace", str(options.pace), "--otlp-http", traces_url),
        *(("--consult", consult) if consult else ()),
    ]
    env = child_environment(service, export_env=export_env, endpoint_variables=ENDPOINTS)
    return AgentSpec(f"demo {agent}", args, env, http_port)


# -- one turn ----------------------------------------------------------------------------------


async def _turn(
    url: str,
    options: DemoOptions,
    console: Console,
    telemetry: Telemetry,
    *,
    pid: int | None = None,
    consults: Served | None = None,
    panel: WebPanel | None = None,
) -> tuple[TurnOutcome, str]:
    """Send the demo question to the callee at ``url`` and show the turn; return it and its
    trace id (hex)."""
    card = await fetch_card(url, headers={}, timeout_seconds=_CALL_TIMEOUT)
    if options.transport is not None:
        card = only_transport(card, options.transport)
    if panel is not None:
        panel.describe(card.name)
    process = f" (pid {pid})" if pid is not None else ""
    chosen = chosen_interface(card)
    others = [name for name in offered_transports(card) if chosen is None or name != chosen[0]]
    also = f", also {' and '.join(others)}" if others else ""
    auditor = (
        f"\n            consults {AUDITOR_NAME} (pid {consults.pid}) at {consults.url}"
        if consults is not None
        else ""
    )
    console.print(
        inert(
            f"  callee  {card.name}{process}: {describe_endpoint(card)}{also}{auditor}\n"
            f'  caller  asks: "{options.message}"'
        ),
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
                events = client.send_message(
                    user_message(options.message), context=request_progress_extension()
                )
                sink = view if panel is None else panel.tee(view)
                outcome = await follow_turn(client, events, sink, url=url)
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
    line = remote_trace_line(telemetry, trace_id)
    if line is not None:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    return exit_code_of(outcome)
