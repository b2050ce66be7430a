"""Write the latest results (bench/results.json) into the README and bench/README.md tables.

Usage: ``python bench/tables.py`` after a full ``bench/run.py``. The tables sit between
``<!-- results:start -->`` and ``<!-- results:end -->`` in both files; nothing else is touched.
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
        "assembler over 600k envelopes, 1,000 streams, 5% dups + reordering vs decode alone"
    ),
    "consumer_memory": "peak RSS growth, 1M envelopes over 10,000 streams",
    "bridge_inprocess": ("6,000 updates through callee proxy + caller wrapper vs instrumentor off"),
    "bridge_unsampled": (
        "the same, sampler dropping every turn (`ParentBased(ALWAYS_OFF)`) vs instrumentor off"
    ),
    "bridge_content_off": "the same, sampled, `CAPTURE_CONTENT=false` vs instrumentor off",
    "bridge_sdk_floor": (
        "*the OpenTelemetry SDK floor*: the same spans, events and metrics made in place with "
        "no protocol work (`bench/floor.py`) vs nothing traced"
    ),
    "bridge_sdk_floor_unsampled": "*the SDK floor*, sampler dropping every turn",
    "ir_bridge_inprocess": (
        "**instructions** per update (callgrind), `bridge_inprocess`'s workload vs instrumentor off"
    ),
    "ir_bridge_unsampled": "**instructions**, the same, sampler dropping every turn",
    "ir_bridge_content_off": "**instructions**, the same, sampled, `CAPTURE_CONTENT=false`",
    "ir_sdk_floor": "**instructions**, *the SDK floor* (`bench/floor.py`), sampled",
    "ir_sdk_floor_unsampled": "**instructions**, *the SDK floor*, sampler dropping every turn",
    "e2e_loopback": (
        "2,000 updates over JSON-RPC, both sides exporting OTLP/HTTP vs uninstrumented"
    ),
    "vs_a2a_sdk_tracing": ("our added CPU on `e2e_loopback` / a2a-sdk's own tracing's added CPU"),
    "e2e_sdk_floor": "*the SDK floor* on the `e2e_loopback` workload, exporting the same way",
    "e2e_dead_collector": "the same, collector refusing connections vs live collector",
    "concurrency": "50 concurrent turns x 24 tool calls vs uninstrumented",
    "e2e_processes": (
        "**wall clock**, the callee in its own process, 1,500-update turns, both sides "
        "exporting vs neither"
    ),
}
# Figures whose target is the bridge's, shown beside the floor for comparison.
_INFORMATIONAL = ("bridge_sdk_floor", "bridge_sdk_floor_unsampled", "e2e_sdk_floor")
# Instruction-count floors: no target of their own (the bridge's rows are targeted above them).
_IR_FLOORS = ("ir_sdk_floor", "ir_sdk_floor_unsampled")
_TIMES = "\u00d7"  # the multiplication sign, as the READMEs write ratios
_MARKERS = re.compile(r"(<!-- results:start -->\n).*?(<!-- results:end -->)", re.DOTALL)


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
        text += f" ({result['above_floor']:+.3f} above its floor's {result['floor_ratio']:.3f})"
    if result["name"] == "e2e_processes":
        text += (
            f" (SDK floor {_TIMES}{result['floor_wall_ratio']:.2f}, a2a-sdk "
            f"{_TIMES}{result['a2a_sdk_wall_ratio']:.2f})"
        )
    return text


def _target(result: dict[str, Any]) -> str:
    if result["name"] in _IR_FLOORS:
        return "—"
    unit = "" if result["ratio"] is not None else f" {result['unit']}"
    target = f"≤ {result['target']:g}{unit}"
    if "above_floor" in result:
        allowance = result["target"] - result["floor_ratio"]
        target += f" (floor + {allowance:.2f})"
    return target


def _met(result: dict[str, Any]) -> str:
    if result["name"] in _IR_FLOORS:
        return "floor"
    if result["name"] in _INFORMATIONAL:
        return "floor: " + ("within" if result["passed"] else "**above**")
    return "yes" if result["passed"] else "**no**"


def table(results: list[dict[str, Any]]) -> str:
    """The results as the READMEs' Markdown table, and a line of wall-clock ratios and checks."""
    rows = [
        "| figure | what | a2a-progress | baseline | ratio | target | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for result in results:
        baseline = result["baseline"]
        rows.append(
            f"| `{result['name']}` | {WHAT[result['name']]} "
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


def main() -> None:
    results = json.loads((BENCH_DIR / "results.json").read_text())
    block = table(results)
    for path in (BENCH_DIR.parent / "README.md", BENCH_DIR / "README.md"):
        text = path.read_text()
        new, count = _MARKERS.subn(lambda m: m.group(1) + block + m.group(2), text)
        if count != 1:
            raise SystemExit(f"{path}: expected one results:start/end block, found {count}")
        Path(path).write_text(new)
        print(f"updated {path.relative_to(BENCH_DIR.parent)}")


if __name__ == "__main__":
    main()
