"""The callee of ``e2e_processes``, in a process of its own (bench_processes.py starts it).

Usage: ``python callee_process.py``. One process serves every arm in turn, switched between
slots the way the in-process workers switch theirs (bench_e2e.py, bench_sdk_tracing.py), so
that the arms differ in their code and in nothing of the process (its memory layout, hash seed,
placement: one process per arm kept whatever made it a few % faster or slower for the whole
run). It reads one command a line on stdin and answers each with one line:

- ``serve ARM``: set up arm ``off`` (nothing traced), ``ours`` (:class:`A2AProgressInstrumentor`,
  spans and metrics over OTLP/HTTP), ``floor`` (the SDK floor of floor.py, exported the same
  way) or ``sdk`` (a2a-sdk's own tracing, spans over OTLP/HTTP), exporting to
  ``BENCH_OTLP_ENDPOINT``; then serve the benchmark agent on a fresh server (JSON-RPC on
  127.0.0.1; the instrumentor proxies the executors of handlers built while it is on) and
  answer its agent card (JSON);
- ``stop``: stop the server, switch the arm off again (uninstrument, a2a-sdk's tracer back to
  the no-op) and export what its telemetry still holds (so nothing of this slot is exported
  during the next one, maybe another arm's); answered ``ok``. The next ``serve`` collects the
  garbage once its arm is set up, before its turns;
- ``cpu``: its process CPU seconds (``process``), those of each live thread by name
  (``threads``, benchlib.cpu_by_thread), the garbage collector's collections by generation
  (``collections``) and its resident set (``rss_kb``), as JSON;
- ``probe start``, ``probe stop PATH``: start and stop probe.py's probe (profile_processes.py),
  each answered ``ok``.

The ``ours`` and ``floor`` arms get fresh providers each slot, as the caller's arms do
(bench_e2e.Telemetry): their metric reader's 60 s timer starts with the slot, so it never fires
inside a turn. a2a-sdk's tracing exists from import (it is enabled here before a2a is imported)
and is switched with bench_sdk_tracing.sdk_tracing, its tracer swapped for the no-op a2a-sdk
installs itself when its tracing is off: the untraced arms run what an untraced a2a-sdk runs.
At the end of stdin it exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ARMS = ("off", "ours", "floor", "sdk")


def main() -> None:
    if len(sys.argv) != 1:
        raise SystemExit("usage: callee_process.py (the arms are chosen on stdin: serve ARM)")
    # a2a-sdk reads this when it is imported: its tracing must exist for the sdk arm.
    os.environ["OTEL_INSTRUMENTATION_A2A_SDK_ENABLED"] = "true"
    asyncio.run(_serve())


class _Arms:
    """Sets up and tears down one arm at a time in this process."""

    def __init__(self, endpoint: str) -> None:
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        from a2a_progress.otel import A2AProgressInstrumentor
        from agent import tracer_provider
        from bench_sdk_tracing import sdk_tracing

        self._endpoint = endpoint
        self._instrumentor = A2AProgressInstrumentor()
        self._sdk_tracing = sdk_tracing
        # a2a-sdk's tracing goes to the global provider, which can be set once: it lives as long
        # as the process, as the caller's does (bench_processes.Deployed).
        self._sdk_provider = tracer_provider(
            "bench-a2a-sdk-callee", OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces")
        )
        trace.set_tracer_provider(self._sdk_provider)
        sdk_tracing(False)
        self.arm: str | None = None
        self._providers: list[Any] = []

    def start(self, arm: str) -> Any:
        """Switch ``arm`` on; the agent to serve."""
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

        from a2a_progress.otel.metrics import BridgeMetrics
        from agent import ScriptedAgent, tracer_provider
        from floor import FloorObserver

        if arm not in ARMS:
            raise SystemExit(f"arm must be one of {ARMS}, not {arm!r}")
        if self.arm is not None:
            raise SystemExit(f"serve {arm} while {self.arm} is still on")
        self.arm = arm
        agent = ScriptedAgent()
        if arm in ("ours", "floor"):
            service = "bench-callee" if arm == "ours" else "bench-floor-callee"
            spans = tracer_provider(
                service, OTLPSpanExporter(endpoint=f"{self._endpoint}/v1/traces")
            )
            meters = MeterProvider(
                metric_readers=[
                    PeriodicExportingMetricReader(
                        OTLPMetricExporter(endpoint=f"{self._endpoint}/v1/metrics")
                    )
                ]
            )
            self._providers = [spans, meters]
            if arm == "ours":
                # Content capture off, the default (as the caller's, bench_e2e.Telemetry).
                self._instrumentor.instrument(tracer_provider=spans, meter_provider=meters)
            else:
                floor = FloorObserver(
                    spans.get_tracer("a2a_progress.bench.floor"),
                    BridgeMetrics(meters.get_meter("a2a_progress.bench.floor")),
                    content=False,
                )
                agent = ScriptedAgent(observer=floor.turn)
        elif arm == "sdk":
            self._sdk_tracing(True)
        return agent

    def flush(self) -> None:
        """Export what the arm's telemetry holds now (inside a probe's count: bench_processes)."""
        for provider in self._providers:
            provider.force_flush()
        if self.arm == "sdk":
            self._sdk_provider.force_flush()

    def stop(self) -> None:
        """Switch the arm off and export what it still holds."""
        if self.arm == "ours":
            self._instrumentor.uninstrument()
        self._sdk_tracing(False)
        for provider in self._providers:
            provider.shutdown()
        self._providers = []
        self._sdk_provider.force_flush()
        # Nothing of an arm may reach the next slot: the instrumentor off, a2a-sdk's no-op back.
        if self._instrumentor.is_instrumented_by_opentelemetry:
            raise RuntimeError("the instrumentor is still on")
        self.arm = None

    def close(self) -> None:
        if self.arm is not None:
            self.stop()
        self._sdk_provider.shutdown()


async def _serve() -> None:
    from google.protobuf import json_format

    from a2a_progress.serving import serve_agent
    from benchlib import cpu_by_thread, gc_collections, rss_kb
    from probe import Probe

    arms = _Arms(os.environ["BENCH_OTLP_ENDPOINT"])
    loop = asyncio.get_running_loop()
    probe = Probe()
    server = contextlib.AsyncExitStack()
    print("ready", flush=True)
    try:
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            command = line.split()
            if command[:1] == ["serve"] and len(command) == 2:
                agent = arms.start(command[1])
                served = await server.enter_async_context(serve_agent(agent, grpc_port=None))
                gc.collect()  # the garbage of the set-up, not the turn's to collect
                card = json_format.MessageToJson(served.card_for("jsonrpc"), indent=None)
                print(card, flush=True)
            elif command == ["stop"]:
                await server.aclose()
                arms.stop()
                print("ok", flush=True)
            elif command == ["cpu"]:
                cpu = {
                    "process": time.process_time(),
                    "threads": cpu_by_thread(),
                    "collections": gc_collections(),
                    "rss_kb": rss_kb(),
                }
                print(json.dumps(cpu), flush=True)
            elif command == ["flush"]:
                arms.flush()
                print("ok", flush=True)
            elif command == ["probe", "start"]:
                probe.start()
                print("ok", flush=True)
            elif command[:2] == ["probe", "stop"] and len(command) == 3:
                probe.stop(Path(command[2]))
                print("ok", flush=True)
            else:
                raise SystemExit(f"unknown command {line.strip()!r}")
    finally:
        await server.aclose()
        arms.close()


if __name__ == "__main__":
    main()
