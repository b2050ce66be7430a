"""The regression guard of ``make test``: the bridge's own instructions per update vs a budget.

A short in-process run under callgrind (bench_ir.py; ~45 s of CPU with valgrind's slowdown)
counts, per working update, the instructions the bridge executes above the OpenTelemetry SDK
floor (floor.py makes exactly the SDK calls the bridge makes, with no protocol work), sampled
(content capture off, the default) and unsampled. It fails when either rises more than 10%
above the budget committed next to this file (``ir_budget.json``), printing the budget and the
new figure. Instruction counts are not
timings: on the same versions they repeat to well under 1%, whatever the machine's load.

The budget records the Python, a2a-sdk, OpenTelemetry, protobuf and wrapt versions it was
measured with. When the installed ones differ, the guard says so and compares anyway: the
figure is a difference against the floor, which makes the same SDK calls, so a faster or
slower SDK moves both sides alike; what is left is mostly our own code. If valgrind or a C
compiler is missing, it prints why and fails (``make test`` installs both, see system-deps);
``--skip-if-missing`` turns that into a printed skip.

Usage::

    python bench/ir_guard.py                # compare with ir_budget.json
    python bench/ir_guard.py --record       # measure and write ir_budget.json (after an
                                            # intended change; commit it with the change)
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from bench_ir import Plan, count, missing_tools
from benchlib import BENCH_DIR, configure_process, versions

BUDGET = BENCH_DIR / "ir_budget.json"
PLAN = Plan((("floor", "content_off"), ("floor_unsampled", "unsampled")), tools=8, text_scale=0.1)
"""One 8-tool-call turn per arm, after an uncounted one: 32 working updates counted. The agent's
texts are a tenth of their usual size: the emitter redacts each one, which is most of what the
untraced agent costs and none of what the bridge does with content capture off."""
TOLERANCE = 0.10
# Figure -> (the bridge's arm, its floor's arm). Sampled is the default configuration, content
# capture off: with content on, the redactor's scan of each recorded text is most of the cost,
# and it is measured by make bench (ir_bridge_inprocess) and bench_redaction.py.
FIGURES = {"sampled": ("content_off", "floor"), "unsampled": ("unsampled", "floor_unsampled")}


def measure() -> dict[str, Any]:
    """The bridge's instructions per update above the floor, sampled and unsampled."""
    counts = count(PLAN)
    return {
        "above_floor": {
            name: round(counts[arm] - counts[floor]) for name, (arm, floor) in FIGURES.items()
        },
        "arms": {arm: round(value) for arm, value in counts.items()},
        "plan": {
            "processes": PLAN.processes,
            "tools": PLAN.tools,
            "text_scale": PLAN.text_scale,
        },
        "versions": versions(),
    }


def compare(budget: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """Print both figures; the names of those more than TOLERANCE above their budget."""
    if budget["versions"] != now["versions"]:
        changed = ", ".join(
            f"{key} {budget['versions'].get(key)} -> {value}"
            for key, value in now["versions"].items()
            if budget["versions"].get(key) != value
        )
        print(
            f"note: the budget was recorded with other versions ({changed}); comparing anyway:"
            " the figure is measured against the SDK floor, which makes the same SDK calls"
        )
    over = []
    for name in FIGURES:
        old, new = budget["above_floor"][name], now["above_floor"][name]
        change = (new - old) / old if old else 0.0
        verdict = "OVER BUDGET" if new > old * (1 + TOLERANCE) else "ok"
        print(
            f"{name:>9}: {new / 1000:8.1f} k instructions per update above the SDK floor, "
            f"budget {old / 1000:8.1f} k ({change:+.1%}, limit +{TOLERANCE:.0%}): {verdict}"
        )
        if verdict != "ok":
            over.append(name)
        elif change < -TOLERANCE:
            print(f"           {name} is well under budget: record it (--record) to keep the gain")
    return over


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="write ir_budget.json")
    parser.add_argument(
        "--skip-if-missing", action="store_true", help="skip (printed) without valgrind or cc"
    )
    args = parser.parse_args()
    problem = missing_tools()
    if problem is not None:
        verdict = "SKIPPED" if args.skip_if_missing else "FAILED"
        print(f"instruction budget guard {verdict}: {problem}")
        return 0 if args.skip_if_missing else 1
    now = measure()
    if args.record:
        BUDGET.write_text(json.dumps(now, indent=2) + "\n")
        print(f"recorded {BUDGET.name}: {json.dumps(now['above_floor'])}")
        return 0
    over = compare(json.loads(BUDGET.read_text()), now)
    if over:
        print(
            f"instruction budget exceeded ({', '.join(over)}): the bridge does more work per "
            "update than when the budget was recorded. Find what (bench/README.md, 'Instruction "
            "counts'), or record a new budget with the change that needs it (--record)."
        )
        return 1
    print("instruction budget guard passed")
    return 0


if __name__ == "__main__":
    configure_process()
    sys.exit(main())
