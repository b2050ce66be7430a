"""``a2a-progress serve-demo``: the demo callee, served over JSON-RPC, REST and gRPC.

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
from typing import Final

from a2a_progress.cli.arguments import Commands, non_negative
from a2a_progress.cli.demo.agent import AGENT_DESCRIPTION, AGENT_NAME, DemoAgentExecutor
from a2a_progress.cli.telemetry import start_telemetry
from a2a_progress.serving import serve_forever

DEFAULT_SERVICE_NAME: Final = "demo-callee"


def register(commands: Commands) -> None:
    """Add ``serve-demo`` to the command line."""
    serve = commands.add(
        "serve-demo",
        _run,
        help="serve the demo callee agent over JSON-RPC, REST and gRPC",
        description="Serve the demo callee agent until SIGTERM or Ctrl-C. Run it under "
        "opentelemetry-instrument to trace it.",
        exit_codes=False,
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
            host=args.host,
            port=args.port,
            grpc_port=args.grpc_port,
            public_host=args.public_host,
            pace=args.pace,
            otlp_http=args.otlp_http,
        )
    )


async def run_serve_demo(
    *,
    host: str,
    port: int,
    grpc_port: int | None,
    public_host: str | None,
    pace: float,
    otlp_http: str | None,
) -> int:
    """Serve the demo callee until SIGTERM; return the exit code."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger("a2a_progress.serve")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    telemetry = start_telemetry(
        os.environ.get("OTEL_SERVICE_NAME") or DEFAULT_SERVICE_NAME, otlp_http
    )
    try:
        await serve_forever(
            DemoAgentExecutor(pace),
            name=AGENT_NAME,
            description=AGENT_DESCRIPTION,
            host=host,
            http_port=port,
            grpc_port=grpc_port,
            public_host=public_host,
        )
    finally:
        # Spans still in the batch processor reach the collector before the process ends.
        telemetry.close()
    return 0
