"""Write the latest results (bench/results.json) into the README and bench/README.md tables.

A full ``bench/run.py`` (``make bench``) calls :func:`main` once it has written its results;
``python bench/tables.py`` does the same by hand (after an ``--only`` run, whose figures are
merged into results.json, run.py leaves the tables alone: they would mix runs). Each table sits
between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->``: ``results`` (every figure) in
bench/README.md, ``summary`` (the users' table: per update, instructions and µs on a quiet core
of ours, the SDK floor's and a2a-sdk's own tracing) in README.md and
docs/explanation/performance.md, ``sampling`` in docs/how-to/sampling.md; nothing outside the
markers is touched.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from benchlib import BENCH_DIR

# What each figure measures, in a table cell (bench/README.md "The figures" has the details).
WHAT = {
    "codec_roundtrip": "encode + decode one envelope vs bare `json.dumps`+`json.loads`",
    "consumer_throughput": (
        "assembler over 300k envelopes, 1,000 streams, 5% dups + reordering vs decode alone"
    ),
    "consumer_memory": "peak RSS growth, 1M envelopes over 10,000 streams",
    "bridge_inprocess": (
        "1,000 updates through callee proxy + caller wrapper, the defaults (sampled, content "
        "off) vs instrumentor off"
    ),
    "bridge_unsampled": (
        "the same, sampler dropping every turn (`ParentBased(ALWAYS_OFF)`) vs instrumentor off"
    ),
    "bridge_content_off": "the same arm (content off), held to floor + 0.05",
    "bridge_content_captured": (
        "the same with content captured (opt-in, `CAPTURE_CONTENT=true`), against a floor "
        "recording the same content"
    ),
    "bridge_sdk_floor": (
        "*the OpenTelemetry SDK floor*: the same spans, events and metrics made in place with "
        "no protocol work (`bench/floor.py`) vs nothing traced"
    ),
    "bridge_sdk_floor_unsampled": "*the SDK floor*, sampler dropping every turn",
    "ir_bridge_inprocess": (
        "**instructions** per update (callgrind), `bridge_inprocess`'s workload (the defaults) "
        "vs instrumentor off"
    ),
    "ir_bridge_unsampled": "**instructions**, the same, sampler dropping every turn",
    "ir_bridge_content_off": "**instructions**, the same arm (content off), held to floor + 0.05",
    "ir_bridge_content_captured": (
        "**instructions**, the same with content captured (opt-in), against a floor recording "
        "the same content"
    ),
    "ir_sdk_floor": "**instructions**, *the SDK floor* (`bench/floor.py`), sampled",
    "ir_sdk_floor_unsampled": "**instructions**, *the SDK floor*, sampler dropping every turn",
    "ir_vs_a2a_sdk_tracing": (
        "**instructions** our defaults add / what a2a-sdk's own tracing adds, in process, "
        "spans kept in memory (a steady companion of the acceptance check)"
    ),
    "e2e_loopback": (
        "2,000 updates over JSON-RPC, both sides exporting OTLP/HTTP vs uninstrumented"
    ),
    "vs_a2a_sdk_tracing": ("our added CPU on `e2e_loopback` / a2a-sdk's own tracing's added CPU"),
    "e2e_sdk_floor": "*the SDK floor* on the `e2e_loopback` workload, exporting the same way",
    "e2e_dead_collector": (
        "the same, collector refusing connections vs live collector, both exporting every 500 ms"
    ),
    "concurrency": "50 concurrent turns x 12 tool calls vs uninstrumented",
    "e2e_processes": (
        "**wall clock**, the callee in its own process, a 1,500-update turn, both sides "
        "exporting vs neither"
    ),
    "e2e_processes_vs_a2a_sdk": (
        "**issue 21's acceptance check**: what ours adds to `e2e_processes`' turn (wall clock) "
        "/ what a2a-sdk's own tracing adds"
    ),
}
# The SDK floors: no target of their own (the bridge's rows are targeted above them).
_FLOORS = (
    "bridge_sdk_floor",
    "bridge_sdk_floor_unsampled",
    "e2e_sdk_floor",
    "ir_sdk_floor",
    "ir_sdk_floor_unsampled",
)
# Informational rows beside a target they do not decide (content capture is opt-in: its rows
# show the default's allowance for comparison).
_COMPANIONS = ("ir_vs_a2a_sdk_tracing", "bridge_content_captured", "ir_bridge_content_captured")
_TIMES = "\u00d7"  # the multiplication sign, as the READMEs write ratios


def _number(value: float, unit: str) -> str:
    if unit == "MB":
        return f"{value:.2f} MB"
    if unit == "instr/update":
        return f"{value / 1000:,.0f} k instr/update"
    return f"{value:.4g} {unit}"


def _ratio(result: dict[str, Any]) -> str:
    ratio = result["ratio"]
    if ratio is None:
        return "—"
    text = f"{ratio:.2f}"
    if result["name"] == "vs_a2a_sdk_tracing":
        text += (
            f" (ours {_TIMES}{result['ours_ratio']:.2f}, "
            f"a2a-sdk {_TIMES}{result['a2a_sdk_ratio']:.2f})"
        )
    if "above_floor" in result:
        absolute = unredacted = ""
        if result["unit"] == "instr/update":
            absolute = f"{result['above_floor'] * result['baseline'] / 1000:+,.0f} k, "
        if "above_floor_vs_unredacted" in result:
            unredacted = (
                f"; {result['above_floor_vs_unredacted']:.3f} of the agent without the "
                "emitter's redaction"
            )
        text += (
            f" ({absolute}{result['above_floor']:+.3f} above its floor's "
            f"{result['floor_ratio']:.3f}{unredacted})"
        )
    interval = target_interval(result)
    if result["name"] == "e2e_processes":
        text += (
            f" (SDK floor {_TIMES}{result['floor_wall_ratio']:.2f}, a2a-sdk "
            f"{_TIMES}{result['a2a_sdk_wall_ratio']:.2f}"
        )
        if interval is not None:
            low, high = interval["ci"]
            text += f"; ours - floor {interval['median']:+.3f}, 95% CI {low:+.3f} to {high:+.3f}"
        if "added_vs_a2a_sdk" in result:
            text += f"; ours adds {result['added_vs_a2a_sdk']:.2f} of what a2a-sdk adds"
        text += ")"
    if result["name"] != "e2e_processes" and interval is not None:
        low, high = interval["ci"]
        text += f" (95% CI {low:.2f} to {high:.2f})"
    if result["name"] == "e2e_processes_vs_a2a_sdk":
        text += (
            f" (CPU of both processes: {result['cpu_added_vs_a2a_sdk']:.2f}; ours "
            f"{_TIMES}{result['cpu_ratio']:.2f}, a2a-sdk {_TIMES}{result['a2a_sdk_cpu_ratio']:.2f})"
        )
    return text


def target_interval(result: dict[str, Any]) -> dict[str, Any] | None:
    """The interval of the figure a row's target is about (runs since December 2026):
    e2e_processes' ours - floor, the acceptance ratio, vs_a2a_sdk_tracing's, as timed; its
    median is what decides ``passed``, its interval the verdict."""
    intervals = result.get("intervals")
    if not intervals:
        return None
    if result["name"] == "e2e_processes":
        found: dict[str, Any] = intervals["wall"]["ours_minus_floor"]
    elif result["name"] == "e2e_processes_vs_a2a_sdk":
        found = intervals["wall"]["added_vs_a2a_sdk"]
    else:
        found = intervals["cpu"]
    return found


def _target(result: dict[str, Any]) -> str:
    if result["name"] in _FLOORS:
        return "—"
    unit = "" if result["ratio"] is not None else f" {result['unit']}"
    target = f"≤ {result['target']:.4g}{unit}"
    if "above_floor" in result:
        allowance = result["target"] - result["floor_ratio"]
        target += f" (floor + {allowance:.2f})"
    elif result["name"] == "e2e_processes" and "floor_wall_ratio_paired" in result:
        # The floor's ratio paired with ours by block (bench_processes.figures): the target
        # holds the median of ours - floor per block to 0.03.
        target += " (floor, paired by block, + 0.03)"
    elif result["name"] == "e2e_processes" and "added_vs_a2a_sdk" in result:
        target += " (floor + 0.03)"
    return target


def _met(result: dict[str, Any]) -> str:
    if result["name"] in _FLOORS:
        return "floor"
    if result["name"] in _COMPANIONS:
        return "info"
    met = "yes" if result["passed"] else "**no**"
    verdict = verdict_of(result)
    if verdict is not None:
        # The median decides yes or no; the 95% interval says whether the run resolved it.
        met += f" ({verdict})"
    return met


def verdict_of(result: dict[str, Any]) -> str | None:
    """What a run's 95% interval says of its target: ``met`` (wholly at or below it),
    ``missed`` (wholly above), ``unresolved`` (it spans the target: this run cannot tell
    either way); None for figures without one."""
    interval = target_interval(result)
    if interval is None or "verdict" not in interval:
        return None
    verdict: str = interval["verdict"]
    return verdict


def table(results: list[dict[str, Any]]) -> str:
    """The results as the READMEs' Markdown table, and a line of wall-clock ratios and checks."""
    rows = [
        "| figure | what | a2a-progress | baseline | ratio | target | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for result in results:
        baseline = result["baseline"]
        earlier = "" if "versions" in result else " *(an earlier run)*"
        rows.append(
            f"| `{result['name']}` | {WHAT[result['name']]}{earlier} "
            f"| {_number(result['value'], result['unit'])} "
            f"| {'—' if baseline is None else _number(baseline, result['unit'])} "
            f"| {_ratio(result)} | {_target(result)} | {_met(result)} |"
        )
    walls = ", ".join(
        f"{result['name']} {result['wall_ratio']:.2f}"
        for result in results
        if "wall_ratio" in result
    )
    checked = ", ".join(
        f"{result['name']} {result['spans_received']:,}"
        for result in results
        if result.get("spans_verified")
    )
    notes = []
    if walls:
        notes.append(f"Wall-clock ratios beside the CPU ones: {walls}.")
    if checked:
        notes.append(f"Spans checked at the OTLP receiver, all correct: {checked}.")
    if any(result["name"].startswith("bridge_") for result in results):
        notes.append("The in-process figures check every repetition's spans, events and metrics.")
    return "\n".join(rows) + ("\n\n" + " ".join(notes) if notes else "") + "\n"


# CPU time from instruction counts, at the rates the last full run on a quiet machine measured
# (commit be9a28e's CPU figures against 58f2ebe's counts of the same workload): the untraced
# agent ran 1,582 k instructions per update in 161.7 us; what the bridge added, 460 k in 94 us
# (its many small allocations run at about half the instructions per cycle).
_UNTRACED_PER_US = 1582 / 161.7
_ADDED_PER_US = 460 / 94


def _us(k_untraced: float, k_added: float) -> float:
    return k_untraced / _UNTRACED_PER_US + k_added / _ADDED_PER_US


def summary(results: list[dict[str, Any]]) -> str:
    """The users' table: per working update, what each way of tracing costs, in instructions
    and in CPU microseconds on a quiet core, and deployed against a2a-sdk's own tracing."""
    by = {result["name"]: result for result in results}
    first = by["ir_bridge_inprocess"]
    off = first["baseline"] / 1000
    plain = first.get("off_unredacted_instructions")
    untraced = f"{off:,.0f} k"
    if plain is not None:
        untraced += f" ({plain / 1000:,.0f} k without the emitter's redaction)"
    rows = [
        "| per progress update, caller and callee together | instructions | added | "
        "of which above the SDK floor | ≈ CPU added, quiet core |",
        "|---|---|---|---|---|",
        f"| untraced (a2a-sdk and `ProgressEmitter`) | {untraced} | — | — "
        f"| {_us(off, 0):.0f} µs in all |",
    ]
    entries = (
        ("OpenTelemetry SDK alone, the same telemetry (the floor), sampled", "ir_sdk_floor"),
        ("the SDK floor, turn not sampled", "ir_sdk_floor_unsampled"),
        ("**a2a-progress**, sampled, content off (the default)", "ir_bridge_inprocess"),
        ("**a2a-progress**, turn not sampled", "ir_bridge_unsampled"),
        ("**a2a-progress**, sampled, content captured", "ir_bridge_content_captured"),
    )
    for label, name in entries:
        ir = by[name]
        added = ir["value"] / 1000 - off
        above = "—"
        if "above_floor" in ir:
            above = f"+{ir['above_floor'] * off:,.0f} k ({ir['above_floor']:.3f} of untraced"
            if "above_floor_vs_unredacted" in ir:
                above += f", {ir['above_floor_vs_unredacted']:.3f} of it without redaction"
            above += ")"
        rows.append(
            f"| {label} | {ir['value'] / 1000:,.0f} k | +{added:,.0f} k "
            f"({ir['ratio'] - 1:+.3f}) | {above} | +{_us(0, added):.0f} µs |"
        )
    versus = by.get("ir_vs_a2a_sdk_tracing")
    if versus is not None:
        added = versus["baseline"] / 1000
        rows.append(
            f"| a2a-sdk's own tracing (its spans only: it has no metrics or content) "
            f"| {off + added:,.0f} k | +{added:,.0f} k ({added / off:+.3f}) | — "
            f"| +{_us(0, added):.0f} µs |"
        )
    table = "\n".join(rows) + "\n"
    processes = by.get("e2e_processes_vs_a2a_sdk")
    if processes is not None and "cpu_medians" in processes:
        table += "\n" + _deployed(processes)
    return table


def _deployed(result: dict[str, Any]) -> str:
    """The acceptance check's arms: wall clock and CPU of a turn, each agent in its process."""
    wall, cpu, updates = result["wall_medians"], result["cpu_medians"], result["updates"]
    load = result.get("load_average")
    measured = (
        "" if load is None else f", measured at a load average of {load[0]:.1f}-{load[1]:.1f}"
    )
    rows = [
        f"| one turn of {updates:,} updates, the callee in its own process, both agents "
        f"exporting OTLP/HTTP{measured} | wall clock of the turn | CPU, both processes "
        "| CPU added per update | added, as a share of a2a-sdk's (wall / CPU) |",
        "|---|---|---|---|---|",
        f"| untraced | {wall['off']:.2f} s | {cpu['off']:.2f} s | — | — |",
    ]
    labels = (
        ("OpenTelemetry SDK alone, the same telemetry (the floor)", "floor"),
        ("**a2a-progress** (defaults: sampled, content off)", "ours"),
        ("a2a-sdk's own tracing", "sdk"),
    )
    # What each arm adds: paired by repetition when the run recorded it (bench_processes.py),
    # else the difference of the medians (runs before December 2026).
    wall_added = result.get("wall_added") or {arm: wall[arm] - wall["off"] for arm in wall}
    cpu_added = result.get("cpu_added") or {arm: cpu[arm] - cpu["off"] for arm in cpu}
    # Each arm's x: the paired median of its ratios to the untraced arm (bench_processes.py),
    # else, for runs before 2 December 2026, the ratio of the medians.
    wall_x = result.get("wall_ratios") or {arm: wall[arm] / wall["off"] for arm in wall}
    cpu_x = result.get("cpu_ratios") or {arm: cpu[arm] / cpu["off"] for arm in cpu}
    split = result.get("cpu_split", {})
    sdk_wall, sdk_cpu = wall_added["sdk"], cpu_added["sdk"]
    # Each arm's share of what a2a-sdk adds: the median over blocks of the per-block share, the
    # acceptance check's own statistic, when recorded (bench_processes.intervals_of); else
    # the ratio of the paired differences.
    shares = {
        arm: tuple(result["intervals"][clock][key]["median"] for clock in ("wall", "cpu"))
        for arm, key in (("ours", "added_vs_a2a_sdk"), ("floor", "floor_added_vs_a2a_sdk"))
        if key in result.get("intervals", {}).get("wall", {})
    }
    for label, arm in labels:
        added_wall, added_cpu = wall_added[arm], cpu_added[arm]
        wall_share, cpu_share = shares.get(arm, (added_wall / sdk_wall, added_cpu / sdk_cpu))
        per_process = ""
        if arm in split:
            caller, callee = (split[arm][side]["added_process"] for side in ("caller", "callee"))
            per_process = (
                f" (caller {caller / updates * 1e6:+,.0f}, callee {callee / updates * 1e6:+,.0f})"
            )
        rows.append(
            f"| {label} | {_TIMES}{wall_x[arm]:.2f} "
            f"| {_TIMES}{cpu_x[arm]:.2f} | {added_cpu / updates * 1e6:+,.0f} µs"
            f"{per_process} | {wall_share:.2f} / {cpu_share:.2f} |"
        )
    return "\n".join(rows) + "\n"


def sampling(results: list[dict[str, Any]]) -> str:
    """docs/how-to/sampling.md's table: a sampled turn, an unsampled one, and their floors."""
    by = {result["name"]: result for result in results}
    rows = [
        "| per progress update | instructions added | ≈ CPU added, quiet core |",
        "|---|---|---|",
    ]
    entries = (
        ("a2a-progress, sampled (content off, the default)", "ir_bridge_inprocess"),
        ("a2a-progress, turn not sampled", "ir_bridge_unsampled"),
        ("the OpenTelemetry SDK alone, sampled", "ir_sdk_floor"),
        ("the OpenTelemetry SDK alone, not sampled", "ir_sdk_floor_unsampled"),
    )
    for label, name in entries:
        ir = by[name]
        added = (ir["value"] - ir["baseline"]) / 1000
        rows.append(f"| {label} | +{added:,.0f} k ({ir['ratio']:.2f}x) | +{_us(0, added):.0f} µs |")
    return "\n".join(rows) + "\n"


def _fill(path: Path, marker: str, block: str, *, required: bool) -> None:
    pattern = re.compile(rf"(<!-- {marker}:start -->\n).*?(<!-- {marker}:end -->)", re.DOTALL)
    text = path.read_text()
    new, count = pattern.subn(lambda m: m.group(1) + block + m.group(2), text)
    if count == 0 and not required:
        return
    if count != 1:
        raise SystemExit(f"{path}: expected one {marker}:start/end block, found {count}")
    path.write_text(new)
    print(f"updated {path.relative_to(BENCH_DIR.parent)} ({marker})")


def main() -> None:
    results = json.loads((BENCH_DIR / "results.json").read_text())
    root = BENCH_DIR.parent
    _fill(BENCH_DIR / "README.md", "results", table(results), required=True)
    _fill(root / "README.md", "results", table(results), required=False)
    block = summary(results)
    for path in (root / "README.md", root / "docs" / "explanation" / "performance.md"):
        if path.exists():
            _fill(path, "summary", block, required=False)
    _fill(root / "docs" / "how-to" / "sampling.md", "sampling", sampling(results), required=True)


if __name__ == "__main__":
    main()
