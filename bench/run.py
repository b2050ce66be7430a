"""Run the benchmarks, print the table, write bench/results.json.

Usage::

    python bench/run.py                   # every figure (under 10 minutes on 2 cores)
    python bench/run.py --quick           # smaller runs, written to bench/results.quick.json
    python bench/run.py --only NAME ...   # some figures; merged into the results file

A full run (neither ``--quick`` nor ``--only``) then writes its results into the READMEs' and
docs' generated tables (tables.py): the committed tables always show the committed results.

Each worker (``--worker NAME``) runs in a fresh process, so one figure's heap, threads and
patches never touch the next one's timing. A worker may give several figures that share arms
(e.g. the in-process workload with the instrumentor off, on, unsampled and without content):
they are measured interleaved in the same process, against the same baseline samples.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import tables
from benchlib import BENCH_DIR, Figure, configure_process, versions

configure_process()

# Worker -> the figures it gives, in table order.
WORKERS: dict[str, tuple[str, ...]] = {
    "codec_roundtrip": ("codec_roundtrip",),
    "consumer_throughput": ("consumer_throughput",),
    "consumer_memory": ("consumer_memory",),
    "bridge_inprocess": (
        "bridge_inprocess",
        "bridge_unsampled",
        "bridge_content_off",
        "bridge_content_captured",
        "bridge_sdk_floor",
        "bridge_sdk_floor_unsampled",
    ),
    "ir_inprocess": (
        "ir_bridge_inprocess",
        "ir_bridge_unsampled",
        "ir_bridge_content_off",
        "ir_bridge_content_captured",
        "ir_sdk_floor",
        "ir_sdk_floor_unsampled",
        "ir_vs_a2a_sdk_tracing",
    ),
    "e2e_loopback": ("e2e_loopback", "vs_a2a_sdk_tracing", "e2e_sdk_floor"),
    "e2e_dead_collector": ("e2e_dead_collector",),
    "concurrency": ("concurrency",),
    "e2e_processes": ("e2e_processes", "e2e_processes_vs_a2a_sdk"),
}
FIGURES = tuple(name for names in WORKERS.values() for name in names)

# Workers that export OTLP to a receiver in this process.
E2E_WORKERS = ("e2e_loopback", "e2e_dead_collector", "concurrency", "e2e_processes")

# Workers that time nothing (instruction counts under callgrind; peak RSS): they run side by
# side, never beside a timed worker. Each keeps two cores busy (two valgrind processes, two
# memory probes), so on two cores this saves little (~5 s); on four it saves the shorter one.
UNTIMED_WORKERS = ("consumer_memory", "ir_inprocess")


def _runner(name: str) -> Callable[[bool], Figure | list[Figure]]:
    # Imported here: a worker loads only what its figures need.
    if name == "codec_roundtrip":
        import bench_codec

        return bench_codec.run
    if name == "consumer_throughput":
        import bench_consumer

        return bench_consumer.run_throughput
    if name == "consumer_memory":
        import bench_consumer

        return bench_consumer.run_memory
    if name == "bridge_inprocess":
        import bench_bridge

        return bench_bridge.run
    if name == "ir_inprocess":
        import bench_ir

        return bench_ir.run
    if name in ("e2e_loopback", "e2e_processes"):
        # a2a-sdk's own tracing is one arm of these workers: it must be on when a2a is imported
        # (the other arms switch it off again, see bench_sdk_tracing.py).
        os.environ["OTEL_INSTRUMENTATION_A2A_SDK_ENABLED"] = "true"
        if name == "e2e_processes":
            import bench_processes

            return bench_processes.run
        import bench_sdk_tracing

        return bench_sdk_tracing.run
    import bench_e2e

    return {
        "e2e_dead_collector": bench_e2e.run_dead_collector,
        "concurrency": bench_e2e.run_concurrency,
    }[name]


def _worker(name: str, quick: bool) -> None:
    figures = _runner(name)(quick)
    if isinstance(figures, Figure):
        figures = [figures]
    print(json.dumps([figure.as_json() for figure in figures]))


def _run_worker(name: str, quick: bool) -> list[dict[str, Any]]:
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", name]
    if quick:
        command.append("--quick")
    started, load_before = time.monotonic(), os.getloadavg()[0]
    receiver = None
    env = dict(os.environ)
    if name in E2E_WORKERS:
        # The collector lives here, not in the worker: its CPU is not the agents'.
        from a2a_progress.otlp import OtlpReceiver

        receiver = OtlpReceiver(http_port=0, grpc_port=None).start()
        env["BENCH_OTLP_ENDPOINT"] = receiver.http_endpoint
        # The receiver keeps every span it is sent (e2e_processes: ~140k of a2a-sdk's own),
        # and this process's full collections over them grew to ~0.4 s each (4 in one
        # e2e_processes run, load 6), landing in whichever timed turn was running: a
        # collector is not a Python heap. E2E workers never run beside another worker.
        gc.disable()
    try:
        returncode, stdout, stderr, usage = _wait_for(command, env)
        if returncode != 0:
            sys.stderr.write(stderr)
            raise SystemExit(f"{name}: worker failed with exit code {returncode}")
        results: list[dict[str, Any]] = json.loads(stdout.strip().splitlines()[-1])
        if receiver is not None:
            for result in results:
                if "expect_spans" in result:
                    _verify_spans(result, receiver)
    finally:
        if receiver is not None:
            receiver.stop()
            gc.enable()
    seconds = round(time.monotonic() - started, 1)
    # CPU time of the worker and every process it waited for (callee processes, valgrind): on
    # two quiet cores the worker's wall time is about this, less where it runs two at once.
    cpu_seconds = round(usage.ru_utime + usage.ru_stime, 1)
    found = versions()
    # The machine's 1-minute load average as the worker started and ended: on a shared machine
    # wall-clock figures move with it (instruction counts do not).
    load = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    for result in results:
        result["seconds"] = seconds
        result["cpu_seconds"] = cpu_seconds
        result["load_average"] = load
        result["versions"] = found
    return results


def _wait_for(command: list[str], env: dict[str, str]) -> tuple[int, str, str, Any]:
    """Run ``command``: its exit code, output, errors and resource usage (its own and that of
    every process it waited for, from wait4: exact even with another worker running)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, text=True, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return process.returncode, out.read(), err.read(), usage


def _steps(workers: list[str]) -> list[list[str]]:
    """The workers in order, one at a time, but the untimed ones together where the first of
    them comes."""
    steps: list[list[str]] = []
    untimed = [worker for worker in workers if worker in UNTIMED_WORKERS]
    for worker in workers:
        if worker not in UNTIMED_WORKERS:
            steps.append([worker])
        elif worker == untimed[0]:
            steps.append(untimed)
    return steps


def _verify_spans(result: dict[str, Any], receiver: Any) -> None:
    """Check, at the receiver, every span the worker's instrumented runs exported.

    ``expect_spans`` gives the service prefix and how many traces (turns) of each number of
    tool calls were run: timed turns, warm-up turns and each run's one-tool connection turn.
    Per trace (one turn): one caller CLIENT span, one callee SERVER span under it, and one
    ``execute_tool`` span per tool call under the callee's, ended ``done`` with no error (the
    caller makes none of a call its callee announced as recorded).
    """
    expect = result.pop("expect_spans")
    services = (f"{expect['service']}-caller", f"{expect['service']}-callee")
    wanted_sizes = {int(tools): n for tools, n in expect["traces"].items()}
    wanted_spans = sum(n * (2 + tools) for tools, n in wanted_sizes.items())
    problems: list[str] = []

    def ours(got: list[Any]) -> list[Any]:
        # Other arms' spans (a2a-sdk's own tracing, the bridge or the SDK floor) are checked
        # by their own figures.
        return [span for span in got if span.service_name in services]

    try:
        spans = ours(
            receiver.wait_for_spans(lambda got: len(ours(got)) >= wanted_spans, timeout=30)
        )
    except TimeoutError:
        spans = ours(receiver.spans())
    if len(spans) != wanted_spans:
        problems.append(f"{len(spans)} spans received, {wanted_spans} expected")
    by_trace: dict[str, list[Any]] = {}
    for span in spans:
        by_trace.setdefault(span.trace_id, []).append(span)
    sizes: dict[int, int] = {}
    for trace_spans in by_trace.values():
        problem = _trace_problem(trace_spans, services)
        if problem:
            problems.append(problem)
        n_tools = sum(s.name.startswith("execute_tool") for s in trace_spans)
        sizes[n_tools] = sizes.get(n_tools, 0) + 1
    if sizes != wanted_sizes:
        problems.append(f"traces by tool calls {sizes}, expected {wanted_sizes}")
    result["spans_verified"] = not problems
    result["spans_received"] = len(spans)
    others = len(receiver.spans()) - len(spans)
    if others:
        result["notes"] += f"; {others} spans of other arms' services received"
    verdict = "every span correct" if not problems else "SPAN PROBLEMS: " + "; ".join(problems[:5])
    result["notes"] += f"; at the receiver: {len(spans)} spans in {len(by_trace)} traces, {verdict}"


def _trace_problem(spans: list[Any], services: tuple[str, str]) -> str | None:
    caller, callee = services
    calls = [s for s in spans if s.kind == "CLIENT" and s.service_name == caller]
    executions = [s for s in spans if s.kind == "SERVER" and s.service_name == callee]
    if len(calls) != 1 or len(executions) != 1:
        return f"trace with {len(calls)} caller and {len(executions)} callee turn spans"
    call, execution = calls[0], executions[0]
    if execution.parent_span_id != call.span_id:
        return "callee turn span not under the caller's"
    for span in spans:
        if span in (call, execution):
            continue
        if not span.name.startswith("execute_tool") or span.parent_span_id != execution.span_id:
            return f"stray span {span.service_name}/{span.name}"
        if span.attributes.get("a2a.progress.end_reason") != "done" or span.status_code == "ERROR":
            return f"tool span ended {span.attributes.get('a2a.progress.end_reason')}"
    return None


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def _line(result: dict[str, Any]) -> str:
    """A result in one line: its value and ratio against its target, whether its median meets
    it (``passed``) and, where the figure has one, what its 95% interval says (the verdict)."""
    line = (
        f"{result['name']}: {_fmt(result['value'])} {result['unit']}, "
        f"ratio {_fmt(result['ratio'])}, target {_fmt(result['target'])}: "
        f"{'met' if result['passed'] else 'NOT met'}"
    )
    interval = tables.target_interval(result)
    verdict = tables.verdict_of(result)
    if interval is not None and verdict is not None:
        low, high = interval["ci"]
        line += (
            f" (the statistic the target asks {interval['median']:.4g}, 95% interval "
            f"{low:.4g} to {high:.4g} against {interval['target']:.4g}: {verdict})"
        )
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs (a smoke test)")
    parser.add_argument("--only", nargs="+", choices=FIGURES, metavar="NAME", help="these figures")
    parser.add_argument("--worker", choices=tuple(WORKERS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args.worker, args.quick)
        return
    workers = [
        worker
        for worker, names in WORKERS.items()
        if not args.only or any(name in args.only for name in names)
    ]
    out = BENCH_DIR / ("results.quick.json" if args.quick else "results.json")
    previous = json.loads(out.read_text()) if args.only and out.exists() else []
    merged = {r["name"]: r for r in previous}
    results = []
    spent: dict[str, tuple[float, float, list[float]]] = {}
    started = time.monotonic()
    for step in _steps(workers):
        print(f"running {' and '.join(step)} ...", flush=True)
        with ThreadPoolExecutor(len(step)) as pool:
            ran = list(pool.map(lambda worker: _run_worker(worker, args.quick), step))
        for worker, result in ((w, r) for w, got in zip(step, ran, strict=True) for r in got):
            print(f"  {_line(result)} ({result['seconds']} s)", flush=True)
            results.append(result)
            merged[result["name"]] = result
            spent[worker] = (result["seconds"], result["cpu_seconds"], result["load_average"])
        ordered = [merged[n] for n in FIGURES if n in merged]
        out.write_text(
            json.dumps(ordered, indent=2) + "\n"
        )  # after each worker: partial runs survive
    print()
    print(tables.table(sorted(results, key=lambda result: FIGURES.index(result["name"]))))
    print("\nper worker: wall s / CPU s of its processes / 1-min load average at start, end")
    if len([worker for worker in workers if worker in UNTIMED_WORKERS]) > 1:
        print(f"  ({' and '.join(UNTIMED_WORKERS)} ran side by side)")
    for worker, (wall, cpu, load) in spent.items():
        print(f"  {worker:>20}: {wall:6.0f} {cpu:6.0f}   {load[0]:.1f}, {load[1]:.1f}")
    cpu_total = sum(cpu for _, cpu, _ in spent.values())
    print(
        f"{len(workers)} workers in {time.monotonic() - started:.0f} s "
        f"({cpu_total:.0f} s of CPU; load average now {os.getloadavg()[0]:.1f})"
    )
    print(f"written to {out.relative_to(BENCH_DIR.parent)}")
    if not args.quick and not args.only:
        # The tables show a whole run: after --only they would mix runs (tables.py by hand).
        tables.main()


if __name__ == "__main__":
    main()
