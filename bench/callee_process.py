"""The callee of ``e2e_processes``, in a process of its own (bench_processes.py starts it).

Usage: ``python callee_process.py ARM`` with ARM ``off`` (nothing traced), ``ours``
(:class:`A2AProgressInstrumentor`, spans and metrics over OTLP/HTTP), ``floor`` (the SDK floor
of floor.py, exported the same way) or ``sdk`` (a2a-sdk's own tracing, spans over OTLP/HTTP),
exporting to ``BENCH_OTLP_ENDPOINT``. It serves the benchmark
agent over JSON-RPC on 127.0.0.1, prints its agent card (JSON) on one line, then answers each
``cpu`` line on stdin with one JSON line: its process CPU seconds (``process``) and those of
each live thread by name (``threads``, benchlib.cpu_by_thread) and the garbage collector's
collections by generation (``collections``) and its resident set (``rss_kb``). ``flush`` exports
the spans and metrics still held (the next turn, maybe another arm's, is timed while this
process waits: nothing of this turn's is left to export then), answered ``ok``. ``probe start``
and ``probe stop PATH`` start and stop probe.py's probe (profile_processes.py), each answered
``ok``. At the end of stdin it stops serving, flushes its telemetry and exits.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

ARMS = ("off", "ours", "floor", "sdk")


def main() -> None:
    arm = sys.argv[1]
    if arm not in ARMS:
        raise SystemExit(f"arm must be one of {ARMS}")
    # a2a-sdk reads this when it is imported: set it before anything imports a2a.
    os.environ["OTEL_INSTRUMENTATION_A2A_SDK_ENABLED"] = "true" if arm == "sdk" else "false"
    asyncio.run(_serve(arm))


async def _serve(arm: str) -> None:
    from google.protobuf import json_format
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

    from a2a_progress.otel import A2AProgressInstrumentor
    from a2a_progress.otel.metrics import BridgeMetrics
    from a2a_progress.serving import serve_agent
    from agent import ScriptedAgent, tracer_provider
    from benchlib import cpu_by_thread, gc_collections, rss_kb
    from floor import FloorObserver
    from probe import Probe

    endpoint = os.environ["BENCH_OTLP_ENDPOINT"]
    providers: list[object] = []
    agent = ScriptedAgent()
    if arm in ("ours", "floor"):
        service = "bench-callee" if arm == "ours" else "bench-floor-callee"
        spans = tracer_provider(service, OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces"))
        meters = MeterProvider(
            metric_readers=[
                PeriodicExportingMetricReader(OTLPMetricExporter(endpoint=f"{endpoint}/v1/metrics"))
            ]
        )
        if arm == "ours":
            # Content capture off, the default (as the caller's, bench_e2e.Telemetry).
            A2AProgressInstrumentor().instrument(tracer_provider=spans, meter_provider=meters)
        else:
            floor = FloorObserver(
                spans.get_tracer("a2a_progress.bench.floor"),
                BridgeMetrics(meters.get_meter("a2a_progress.bench.floor")),
                content=False,
            )
            agent = ScriptedAgent(observer=floor.turn)
        providers += [spans, meters]
    elif arm == "sdk":
        spans = tracer_provider(
            "bench-a2a-sdk-callee", OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces")
        )
        trace.set_tracer_provider(spans)
        providers.append(spans)

    loop = asyncio.get_running_loop()
    async with serve_agent(agent, grpc_port=None) as served:
        card = json_format.MessageToJson(served.card_for("jsonrpc"), indent=None)
        print(card, flush=True)
        probe = Probe()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            command = line.split()
            if command == ["cpu"]:
                cpu = {
                    "process": time.process_time(),
                    "threads": cpu_by_thread(),
                    "collections": gc_collections(),
                    "rss_kb": rss_kb(),
                }
                print(json.dumps(cpu), flush=True)
            elif command == ["flush"]:
                for provider in providers:
                    provider.force_flush()  # type: ignore[attr-defined]
                print("ok", flush=True)
            elif command == ["probe", "start"]:
                probe.start()
                print("ok", flush=True)
            elif command[:2] == ["probe", "stop"]:
                probe.stop(Path(command[2]))
                print("ok", flush=True)
    for provider in providers:
        provider.shutdown()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
