"""Two turns through an instrumented callee and caller in one process, for the provider warning.

``python -m support.provider_check_turns MODE`` instruments first, then, per ``MODE``:
``unset`` sets no provider (the spans and metrics go nowhere); ``late`` sets SDK tracer and meter
providers after ``instrument()`` but before the first turn (the usual order in an application
that instruments at import). It then serves :class:`support.agents.ToolAgent` on loopback and
asks it twice, and prints ``done``. The warning, if any, is on stderr (Python's last-resort log
handler: no logging is configured, as in a script that never thought of it).
"""

import asyncio
import sys

from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.trace import TracerProvider

from a2a_progress import follow
from a2a_progress.otel import A2AProgressInstrumentor
from a2a_progress.serving import create_client, serve_agent, user_message
from support.agents import ToolAgent


async def two_turns() -> None:
    async with serve_agent(ToolAgent(), grpc_port=None) as served:
        for _ in range(2):
            async with create_client(served.card_for("jsonrpc")) as client:
                async for _update in follow(client.send_message(user_message("go"))):
                    pass


def main() -> None:
    A2AProgressInstrumentor().instrument()
    if sys.argv[1] == "late":
        trace.set_tracer_provider(TracerProvider())
        metrics.set_meter_provider(MeterProvider())
    asyncio.run(two_turns())
    print("done", flush=True)


if __name__ == "__main__":
    main()
