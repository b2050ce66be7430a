"""``a2a-progress serve-demo``: the demo callee, served over JSON-RPC, REST and gRPC.

Under ``opentelemetry-instrument`` (the docker-compose stack) its spans go where the distro sends
them. Spawned by ``a2a-progress demo`` it is given ``--otlp-http``: then it traces with a provider
of its own, exporting there, and flushes it on SIGTERM before it exits.
"""

from __future__ import annotations

import logging
import os
import sys

from a2a_progress.cli.demo_agent import AGENT_DESCRIPTION, AGENT_NAME, DemoAgentExecutor
from a2a_progress.cli.telemetry import start_telemetry
from a2a_progress.serve import serve_forever

DEFAULT_SERVICE_NAME = "demo-callee"


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
