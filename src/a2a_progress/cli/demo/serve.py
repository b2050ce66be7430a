"""``a2a-progress serve-demo``: a demo agent, served over JSON-RPC, REST and gRPC.

``--agent investigator`` (the default) is the demo callee; with ``--consult URL`` it asks the
change auditor at URL from inside a tool. ``--agent auditor`` is that change auditor.

Under ``opentelemetry-instrument`` (the docker-compose stack) its spans go where the distro sends
them. Spawned by ``a2a-progress demo`` it is given ``--otlp-http``: then it traces with a provider
of its own, exporting there, and flushes it on SIGTERM before it exits.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Sequence
from typing import Final

from a2a.server.agent_execution import AgentExecutor

from a2a_progress.cli.arguments import Commands, non_negative
from a2a_progress.cli.demo.agent import (
    AGENT_DESCRIPTION,
    AGENT_NAME,
    SERVICE_NAME,
    DemoAgentExecutor,
)
from a2a_progress.cli.demo.auditor import (
    AUDITOR_DESCRIPTION,
    AUDITOR_NAME,
    AUDITOR_SERVICE_NAME,
    AuditorAgentExecutor,
)
from a2a_progress.cli.errors import CliError, ExitCode
from a2a_progress.cli.telemetry import start_telemetry
from a2a_progress.extension import progress_extension
from a2a_progress.serving import PortInUseError, serve_forever

AGENTS: Final = ("investigator", "auditor")


def register(commands: Commands) -> None:
    """Add ``serve-demo`` to the command line."""
    serve = commands.add(
        "serve-demo",
        _run,
        help="serve a demo agent over JSON-RPC, REST and gRPC",
        description="Serve a demo agent (the deploy investigator `demo` calls, or the change "
        "auditor it consults) until SIGTERM or Ctrl-C. Run it under opentelemetry-instrument "
        "to trace it.",
        exit_codes=False,
    )
    serve.add_argument(
        "--agent",
        choices=AGENTS,
        default="investigator",
        help="which demo agent to serve (default: %(default)s)",
    )
    serve.add_argument(
        "--consult",
        metavar="URL",
        help="investigator: consult the change auditor at URL from inside its diff_config tool",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    serve.add_argument(
        "--port", type=int, default=9999, help="HTTP port: agent card, JSON-RPC, REST"
    )
    serve.add_argument("--grpc-port", type=int, default=50051, help="gRPC port")
    serve.add_argument(
        "--public-host",
        metavar="NAME",
        help="host name the agent card advertises (default: the bind address)",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer requests addressed to NAME (the Host header), e.g. the name a proxy "
        "or another machine uses; repeatable; '*' answers any. Loopback names, the bind "
        "address and --public-host are always answered",
    )
    serve.add_argument(
        "--pace", type=non_negative, default=1.0, metavar="FACTOR", help="scale the pauses"
    )
    serve.add_argument(
        "--otlp-http",
        metavar="URL",
        help="trace with an own tracer provider exporting to this OTLP/HTTP traces URL "
        "(used by `demo`)",
    )


def _run(args: argparse.Namespace) -> int:
    return asyncio.run(
        run_serve_demo(
            agent=args.agent,
            consult=args.consult,
            host=args.host,
            port=args.port,
            grpc_port=args.grpc_port,
            public_host=args.public_host,
            allowed_hosts=args.allowed_host,
            pace=args.pace,
            otlp_http=args.otlp_http,
        )
    )


async def run_serve_demo(
    *,
    agent: str = "investigator",
    consult: str | None = None,
    host: str,
    port: int,
    grpc_port: int | None,
    public_host: str | None,
    pace: float,
    otlp_http: str | None,
    allowed_hosts: Sequence[str] = (),
) -> int:
    """Serve the demo ``agent`` until SIGTERM; return the exit code."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger("a2a_progress.serve")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    auditing = agent == "auditor"
    default_service = AUDITOR_SERVICE_NAME if auditing else SERVICE_NAME
    telemetry = start_telemetry(os.environ.get("OTEL_SERVICE_NAME") or default_service, otlp_http)
    executor: AgentExecutor
    if auditing:
        executor = AuditorAgentExecutor(pace)
    else:
        tracer = telemetry.tracer("a2a_progress.cli.demo")
        executor = DemoAgentExecutor(pace, consult=consult, tracer=tracer)
    try:
        await serve_forever(
            executor,
            name=AUDITOR_NAME if auditing else AGENT_NAME,
            description=AUDITOR_DESCRIPTION if auditing else AGENT_DESCRIPTION,
            host=host,
            http_port=port,
            grpc_port=grpc_port,
            public_host=public_host,
            allowed_hosts=allowed_hosts,
            extensions=(progress_extension(),),  # it sends progress envelopes
        )
    except PortInUseError as error:
        raise CliError(
            f"{error} (another agent, or a second `a2a-progress serve-demo`?); choose another "
            f"with {'--grpc-port' if error.grpc else '--port'}",
            ExitCode.PORT_IN_USE,
        ) from error
    finally:
        # Spans still in the batch processor reach the collector before the process ends.
        telemetry.close()
    return 0
