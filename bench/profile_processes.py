"""Where the deployed arms' CPU goes, per process: the differential profile of e2e_processes.

Usage::

    python bench/profile_processes.py                      # ours, off, floor, sdk; 3 reps
    python bench/profile_processes.py --reps 5 --arms ours off
    python bench/profile_processes.py --profile /tmp/prof  # and cProfile, by package
    python bench/profile_processes.py --callgrind /tmp/cg --tools 100 --reps 0
                                        # instructions of each process, under callgrind

It runs bench_processes.py's arms as that worker does (one callee process of its own serving
every arm in turn on a fresh server each, one warm-up turn of one tool call, then one turn of
1,500 updates over JSON-RPC, both sides
exporting OTLP/HTTP to a receiver in this process), interleaved, and prints per arm the median
CPU seconds of each process, split into the event loop's thread (the agent, server or client
and the instrumentor) and the other threads (span and metric export, executor threads), then
each arm minus ``off`` and ours minus the floor. With ``--profile``, one more repetition per arm
runs under cProfile (the event loop's thread of each process, over the timed turn only) and the
self time of each function is summed by package (a C builtin's time goes to the packages of
its callers, in proportion to their calls); the profiler inflates Python calls, so read its
shares, and the unprofiled CPU for totals. With ``--callgrind``, the worker and each callee run
under callgrind and one more repetition per arm counts each process's instructions over the
timed turn, all threads, and the export of all its telemetry: both processes flush their
providers before their probes stop (a batch processor exports on its own timer, so how much of
the turn's export fell inside the count used to move with the machine's load, and the turn
spans, which end last and hold the turn's events, were never counted). Figures that move
little with the machine's load (valgrind's slowness changes how the turn's events batch on the
wire, and how the spans batch for export, a little).
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import statistics
import subprocess
import sys
from pathlib import Path

from benchlib import configure_process
from probe import valgrind_prefix

# Module path fragments -> group, first match wins (a2a_progress is split by module below).
_GROUPS = (
    ("google/protobuf/json_format", "protobuf json_format"),
    ("google/protobuf", "protobuf (other)"),
    ("opentelemetry/exporter", "otel exporter"),
    ("opentelemetry/proto", "otel exporter"),
    ("opentelemetry/sdk", "otel sdk"),
    ("opentelemetry/", "otel api"),
    ("/a2a/", "a2a-sdk"),
    ("/httpx/", "http client"),
    ("/httpcore/", "http client"),
    ("/h11/", "http (h11)"),
    ("/uvicorn/", "http server"),
    ("/starlette/", "http server"),
    ("/sse_starlette/", "http server"),
    ("/anyio/", "anyio"),
    ("/asyncio/", "asyncio"),
    ("/bench/", "bench"),
    ("/json/", "json"),
    ("/pydantic", "pydantic"),
    ("/wrapt/", "wrapt"),
)


def group(filename: str) -> str:
    """The package a function's file belongs to (a2a_progress: by module)."""
    marker = "/a2a_progress/"
    if marker in filename:
        return "a2a_progress." + filename.split(marker, 1)[1].removesuffix(".py").replace("/", ".")
    for fragment, name in _GROUPS:
        if fragment in filename:
            return name
    return "other" if filename != "~" else "builtins"


def by_package(path: Path) -> dict[str, float]:
    """Self seconds by package of one cProfile dump; C builtins charged to their callers."""
    stats = pstats.Stats(str(path)).stats  # type: ignore[attr-defined]
    totals: dict[str, float] = {}
    for (filename, _, _), (_, calls, self_time, _, callers) in stats.items():
        if filename != "~" or not callers:
            name = group(filename)
            totals[name] = totals.get(name, 0.0) + self_time
            continue
        counted = sum(caller[1] for caller in callers.values()) or 1
        for (caller_file, _, _), caller in callers.items():
            name = group(caller_file)
            totals[name] = totals.get(name, 0.0) + self_time * caller[1] / counted
        del calls
    return totals


def _print_split(medians: dict[str, dict[str, dict[str, float]]], updates: int) -> None:
    print("median CPU seconds of the 1,500-update turn (µs per update in brackets)")
    print(
        f"{'arm':>6} {'process':>8} {'all':>14} {'event loop':>14} {'other threads':>14} full GCs"
    )
    for arm, split in medians.items():
        for process in ("caller", "callee"):
            cells = " ".join(
                f"{split[process][key]:6.3f} ({split[process][key] / updates * 1e6:5.0f})"
                for key in ("process", "main", "threads")
            )
            print(f"{arm:>6} {process:>8} {cells} {split[process]['gc_full']:8.0f}")
    pairs = [(arm, "off") for arm in medians if arm != "off"]
    if "ours" in medians and "floor" in medians:
        pairs.append(("ours", "floor"))
    print("\ndifferences, µs per update: all / event loop / other threads")
    for arm, base in pairs:
        if base not in medians:
            continue
        cells = []
        for process in ("caller", "callee"):
            diff = [
                (medians[arm][process][key] - medians[base][process][key]) / updates * 1e6
                for key in ("process", "main", "threads")
            ]
            cells.append(f"{process} {diff[0]:+5.0f} / {diff[1]:+5.0f} / {diff[2]:+5.0f}")
        print(f"{arm:>6} - {base:<6} {'   '.join(cells)}")


def _print_counts(directory: Path, arms: list[str], tools: int) -> None:
    """Instructions per update of each process over the timed turn (callgrind's dumps)."""
    from bench_ir import _LABEL, _TOTALS

    totals: dict[str, int] = {}
    for dump in directory.glob("callgrind.*.*.*"):
        text = dump.read_text(errors="replace")
        label, total = _LABEL.search(text), _TOTALS.search(text)
        if label is not None and total is not None:
            totals[Path(label.group(1)).name] = int(total.group(1))
    updates = tools * 4
    print(f"\ninstructions per update over the timed turn ({updates} updates), callgrind")
    print(f"{'arm':>6} {'caller':>10} {'callee':>10} {'both':>10}   minus off: caller / callee")
    for arm in arms:
        caller = totals.get(f"{arm}-caller", 0) / updates / 1000
        callee = totals.get(f"{arm}-callee", 0) / updates / 1000
        off_caller = totals.get("off-caller", 0) / updates / 1000
        off_callee = totals.get("off-callee", 0) / updates / 1000
        print(
            f"{arm:>6} {caller:9,.0f}k {callee:9,.0f}k {caller + callee:9,.0f}k   "
            f"{caller - off_caller:+8,.0f}k / {callee - off_callee:+8,.0f}k"
        )


def _print_profiles(directory: Path, arms: list[str], updates: int) -> None:
    found = {
        (arm, process): by_package(directory / f"{arm}-{process}.prof")
        for arm in arms
        for process in ("caller", "callee")
        if (directory / f"{arm}-{process}.prof").exists()
    }
    for process in ("caller", "callee"):
        columns = [arm for arm in arms if (arm, process) in found]
        names = sorted(
            {name for arm in columns for name in found[arm, process]},
            key=lambda name: -max(found[arm, process].get(name, 0.0) for arm in columns),
        )
        print(f"\n{process}: cProfile self time by package, µs per update (profiled run)")
        header = "".join(f"{arm:>9}" for arm in columns)
        extra = "".join(f"{arm + '-off':>11}" for arm in columns if arm != "off")
        print(f"{'package':>36}{header}{extra if 'off' in columns else ''}")
        for name in names:
            values = [found[arm, process].get(name, 0.0) / updates * 1e6 for arm in columns]
            if max(values) < 2:
                continue
            row = "".join(f"{value:9.0f}" for value in values)
            if "off" in columns:
                off = values[columns.index("off")]
                row += "".join(
                    f"{value - off:+11.0f}"
                    for arm, value in zip(columns, values, strict=True)
                    if arm != "off"
                )
            print(f"{name:>36}{row}")


def _measure(
    arms: list[str], reps: int, probe: Path | None, tools: int | None
) -> dict[str, list[dict[str, float]]]:
    """In the worker process: every repetition's CPU split, by arm (profiles written)."""
    configure_process()
    # a2a-sdk's own tracing is one arm: on when a2a is imported (bench_sdk_tracing.py).
    os.environ["OTEL_INSTRUMENTATION_A2A_SDK_ENABLED"] = "true"
    import bench_processes

    deployed = bench_processes.Deployed(tools=tools or bench_processes.TOOLS_PER_TURN)
    samples: dict[str, list[dict[str, float]]] = {arm: [] for arm in arms}
    try:
        for arm in arms:  # warm-up: imports, first connections of this process
            deployed.sample(arm)
        for rep in range(reps):
            for arm in arms if rep % 2 == 0 else reversed(arms):
                sample = deployed.sample(arm)
                samples[arm].append(
                    {"wall": sample.wall}
                    | {f"caller_{key}": value for key, value in sample.caller.items()}
                    | {f"callee_{key}": value for key, value in sample.callee.items()}
                )
        if probe is not None:
            for arm in arms:
                deployed.sample(arm, probe=probe)
    finally:
        deployed.close()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arms", nargs="+", default=["ours", "off", "floor", "sdk"])
    parser.add_argument("--reps", type=int, default=3, help="unprofiled repetitions per arm")
    parser.add_argument("--profile", type=Path, help="also profile one repetition per arm here")
    parser.add_argument("--callgrind", type=Path, help="also count instructions (callgrind) here")
    parser.add_argument("--tools", type=int, help="tool calls in the timed turn (default 375)")
    parser.add_argument("--json", type=Path, help="write every repetition's figures here")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    probe = args.profile or args.callgrind
    if args.inside:
        print(json.dumps(_measure(args.arms, args.reps, probe, args.tools)))
        return
    env = dict(os.environ)
    command = [sys.executable, __file__, "--inside", *sys.argv[1:]]
    if probe is not None:
        probe.mkdir(parents=True, exist_ok=True)
        env["BENCH_PROBE"] = "cprofile" if args.profile else "callgrind"
    if args.callgrind is not None:
        from bench_ir import _marks_library

        env.update(BENCH_MARKS=str(_marks_library(probe)), BENCH_PROBE_DIR=str(probe))
        command = valgrind_prefix(probe, "caller") + command
    # The receiver decodes both processes' spans: in this process, as run.py does, so that
    # its CPU is not the caller's.
    from a2a_progress.otlp import OtlpReceiver

    receiver = OtlpReceiver(http_port=0, grpc_port=None).start()
    try:
        done = subprocess.run(
            command,
            env={**env, "BENCH_OTLP_ENDPOINT": receiver.http_endpoint},
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        receiver.stop()
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"the worker failed with exit code {done.returncode}")
    samples: dict[str, list[dict[str, float]]] = json.loads(done.stdout.strip().splitlines()[-1])
    if args.json is not None:
        args.json.write_text(json.dumps(samples, indent=1) + "\n")
    from agent import UPDATES_PER_TOOL
    from bench_processes import TOOLS_PER_TURN

    updates = (args.tools or TOOLS_PER_TURN) * UPDATES_PER_TOOL
    if args.reps:
        medians = {
            arm: {
                process: {
                    key: statistics.median(sample[f"{process}_{key}"] for sample in taken)
                    for key in ("process", "main", "threads", "gc_full")
                }
                for process in ("caller", "callee")
            }
            for arm, taken in samples.items()
        }
        _print_split(medians, updates)
    if args.profile is not None:
        _print_profiles(args.profile, args.arms, updates)
    if args.callgrind is not None:
        _print_counts(args.callgrind, args.arms, args.tools or TOOLS_PER_TURN)


if __name__ == "__main__":
    main()
