"""Instruction counts of the in-process arms under callgrind: figures that do not move with load.

CPU ratios on a shared 2-core machine move by 0.1 between runs; the number of instructions a
piece of code executes does not. This runs bench_bridge.py's in-process workload (the same
agent, client, arms and checks) inside ``valgrind --tool=callgrind`` and counts, per working
update, the instructions of each arm: ``off`` (a2a-sdk and ``ProgressEmitter`` alone), the SDK
floor (floor.py: the same spans, events and metrics made in place with no protocol work),
sampled and unsampled, and the bridge, sampled, unsampled and with content capture off.

How the counts are made deterministic:

- callgrind starts with its instrumentation off (``--instr-atstart=no``): interpreter start,
  imports and one warm-up turn per arm run uninstrumented. A client request (``marks.c``,
  compiled on first use with the system's C compiler against valgrind's ``callgrind.h``,
  loaded with ctypes) switches it on around the measured turns and dumps the count.
- Each arm is measured at two turn counts and the figure is the difference divided by the
  updates between them: what is constant per window (building the handler and client, the
  client requests themselves, the last partial span batch) cancels out.
- ``PYTHONHASHSEED=0``, the same seeded texts, a ``gc.collect()`` before every window, and
  span export only by full batches (bench_bridge.InProcessArms' ``export_delay_ms``): the same
  Python calls in every run. Counts repeat to a few hundred instructions per update.

Usage::

    python bench/bench_ir.py                 # every arm, printed (k instructions per update)
    python bench/bench_ir.py --guard         # the regression guard of `make test` (ir_guard.py)

run.py's ``ir_inprocess`` worker calls :func:`run`.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchlib import ABOVE_FLOOR, BENCH_DIR, Figure, configure_process, versions

_MARKS_SOURCE = BENCH_DIR / "marks.c"
_TOTALS = re.compile(r"^totals:\s+(\d+)", re.MULTILINE)
_LABEL = re.compile(r"^desc: Trigger: Client Request: (\S+)", re.MULTILINE)


def missing_tools() -> str | None:
    """Why instructions cannot be counted here (no valgrind, no C compiler), or None."""
    if shutil.which("valgrind") is None:
        return "valgrind is not installed (Debian: apt-get install valgrind)"
    if not Path("/usr/include/valgrind/callgrind.h").exists():
        return "valgrind's callgrind.h is missing (Debian's valgrind package ships it)"
    if shutil.which("cc") is None:
        return "no C compiler (cc) to build the callgrind client requests"
    return None


def _marks_library(directory: Path) -> Path:
    """Compile marks.c (callgrind's client requests as plain C functions) into ``directory``."""
    library = directory / "marks.so"
    subprocess.run(
        ["cc", "-O1", "-shared", "-fPIC", "-o", str(library), str(_MARKS_SOURCE)],
        check=True,
        capture_output=True,
    )
    return library


@dataclass(frozen=True)
class Plan:
    """What to count: ``arms`` at turn counts ``low`` and ``high`` of ``tools`` tool calls,
    the agent's texts ``text_scale`` times their usual sizes."""

    arms: tuple[str, ...]
    tools: int
    low: int
    high: int
    text_scale: float = 1.0

    @property
    def updates(self) -> int:
        """Working updates between the two windows of an arm."""
        from agent import UPDATES_PER_TOOL

        return (self.high - self.low) * self.tools * UPDATES_PER_TOOL


FULL = Plan(("off", "floor", "floor_unsampled", "on", "unsampled", "content_off"), 25, 1, 3)
"""make bench: every arm, the CPU figures' turns of 25 tool calls, 200 updates counted."""


def count(plan: Plan) -> dict[str, float]:
    """Instructions per working update of each arm of ``plan``, under callgrind."""
    problem = missing_tools()
    if problem is not None:
        raise RuntimeError(problem)
    with tempfile.TemporaryDirectory(prefix="a2a-progress-ir-") as tmp:
        directory = Path(tmp)
        library = _marks_library(directory)
        command = [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={directory}/callgrind.out",
            sys.executable,
            str(Path(__file__).resolve()),
            "--inside",
            json.dumps({**plan.__dict__, "library": str(library)}),
        ]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"callgrind run failed ({done.returncode}):\n{done.stderr[-4000:]}")
        totals: dict[str, int] = {}
        for dump in directory.glob("callgrind.out.*"):
            text = dump.read_text(errors="replace")
            label, total = _LABEL.search(text), _TOTALS.search(text)
            if label is not None and total is not None:
                totals[label.group(1)] = int(total.group(1))
    per_update = {}
    for arm in plan.arms:
        low, high = totals[f"{arm}:{plan.low}"], totals[f"{arm}:{plan.high}"]
        per_update[arm] = (high - low) / plan.updates
    return per_update


def _inside(plan_json: str) -> None:
    """In the valgrind process: warm each arm up, then count it at both turn counts."""
    options = json.loads(plan_json)
    marks = ctypes.CDLL(options.pop("library"))
    marks.ir_dump.argtypes = [ctypes.c_char_p]
    plan = Plan(**{**options, "arms": tuple(options["arms"])})
    from bench_bridge import InProcessArms

    # Longer than any run: spans go out by full batches only, at the same points every time.
    arms = InProcessArms(plan.tools, export_delay_ms=24 * 3600 * 1000, text_scale=plan.text_scale)

    def window(label: str) -> Callable[[Callable[[], None]], None]:
        def measure(turns: Callable[[], None]) -> None:
            gc.collect()
            marks.ir_start()
            turns()
            marks.ir_stop()
            marks.ir_dump(label.encode())

        return measure

    try:
        for arm in plan.arms:
            arms.run(arm, 1, lambda turns: turns())  # warm-up, uninstrumented
        for arm in plan.arms:
            for turns in (plan.low, plan.high):
                arms.run(arm, turns, window(f"{arm}:{turns}"))
    finally:
        arms.close()


# -- figures for run.py ---------------------------------------------------------------------

# Figure name -> (arm, its floor arm or None, target above the floor, what it is).
_FIGURES: dict[str, tuple[str, str | None, float | None, str]] = {
    "ir_bridge_inprocess": (
        "on",
        "floor",
        ABOVE_FLOOR["on"],
        "bridge_inprocess's workload: both sides instrumented, content captured",
    ),
    "ir_bridge_unsampled": (
        "unsampled",
        "floor_unsampled",
        ABOVE_FLOOR["unsampled"],
        "the same, ParentBased(ALWAYS_OFF) sampler",
    ),
    "ir_bridge_content_off": (
        "content_off",
        "floor",
        ABOVE_FLOOR["content_off"],
        "the same, sampled, capture_content=False",
    ),
    "ir_sdk_floor": ("floor", None, None, "the OpenTelemetry SDK floor (floor.py), sampled"),
    "ir_sdk_floor_unsampled": (
        "floor_unsampled",
        None,
        None,
        "the SDK floor, ParentBased(ALWAYS_OFF) sampler",
    ),
}
IR_FIGURES = tuple(_FIGURES)


def figures(counts: dict[str, float], plan: Plan) -> list[Figure]:
    """One figure per row of :data:`_FIGURES`: instructions per update, ratio to ``off``.

    A bridge figure's target is its floor's ratio plus the issue's allowance above the floor;
    ``above_floor`` is what it measured there. A floor figure is informational (target: its
    own ratio).
    """
    off = counts["off"]
    results = []
    for name, (arm, floor_arm, allowance, what) in _FIGURES.items():
        ratio = counts[arm] / off
        extra: dict[str, object] = {"off_instructions": round(off)}
        notes = (
            f"{what}; instructions per working update under callgrind (difference of "
            f"{plan.low}- and {plan.high}-turn windows of {plan.tools} tool calls, "
            f"{plan.updates} updates), vs the instrumentor off ({off / 1000:,.0f} k)"
        )
        if floor_arm is not None and allowance is not None:
            floor_ratio = counts[floor_arm] / off
            extra["above_floor"] = round(ratio - floor_ratio, 4)
            extra["floor_ratio"] = round(floor_ratio, 4)
            target = round(floor_ratio + allowance, 4)
            notes += f"; {ratio - floor_ratio:.3f} above its floor ({floor_ratio:.3f})"
        else:
            target = round(ratio, 4)
        results.append(
            Figure(
                name=name,
                value=round(counts[arm]),
                unit="instr/update",
                baseline=round(off),
                ratio=round(ratio, 4),
                target=target,
                notes=notes,
                extra=extra,
            )
        )
    return results


def run(quick: bool) -> list[Figure]:
    """run.py's ``ir_inprocess`` worker (``quick``: the same plan; it takes about 2 minutes)."""
    del quick
    return figures(count(FULL), FULL)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inside", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inside:
        _inside(args.inside)
        return
    counts = count(FULL)
    off = counts["off"]
    for arm, value in counts.items():
        print(f"{arm:>16}: {value / 1000:9,.1f} k instructions per update, {value / off:.4f} x off")
    print(json.dumps(versions()))


if __name__ == "__main__":
    configure_process()
    main()
