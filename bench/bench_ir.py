"""Instruction counts of the in-process arms under callgrind: figures that do not move with load.

CPU ratios on a shared 2-core machine move by 0.1 between runs; the number of instructions a
piece of code executes does not. This runs bench_bridge.py's in-process workload (the same
agent, client, arms and checks) inside ``valgrind --tool=callgrind`` and counts, per working
update, the instructions of each arm: ``off`` (a2a-sdk and ``ProgressEmitter`` alone), the SDK
floor (floor.py: the same spans, events and metrics made in place with no protocol work),
sampled, unsampled and sampled with content recorded, and the bridge in its default
configuration (sampled, content capture off), unsampled and with content captured.

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

from benchlib import BENCH_DIR, BRIDGE_ROWS, Figure, configure_process, versions

_MARKS_SOURCE = BENCH_DIR / "marks.c"
SDK_TRACING_ENV = "OTEL_INSTRUMENTATION_A2A_SDK_ENABLED"
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
    """What to count: the arms of ``processes``, each tuple run in that order by one valgrind
    process, each arm one turn of ``tools`` tool calls on a handler and client that have served
    one uncounted turn of the same, the agent's texts ``text_scale`` times their usual sizes.

    Counts repeat exactly for the same plan. An arm's count depends a little on what ran
    before it in its process (up to ~0.6% of the arm between orders tried: caches, the
    allocator's arenas), so a bridge arm runs in the same process as its floor, and a plan is
    compared only with itself.
    """

    processes: tuple[tuple[str, ...], ...]
    tools: int
    text_scale: float = 1.0

    @property
    def arms(self) -> tuple[str, ...]:
        return tuple(arm for arms in self.processes for arm in arms)

    @property
    def updates(self) -> int:
        """Working updates in each arm's counted turn."""
        from agent import UPDATES_PER_TOOL

        return self.tools * UPDATES_PER_TOOL


FULL = Plan(
    (
        ("floor", "content_off", "floor_content", "content_captured"),
        ("off", "floor_unsampled", "unsampled", "sdk", "off_unredacted"),
    ),
    tools=25,
)
"""make bench: every arm, the CPU figures' turns of 25 tool calls, 100 updates counted each;
two processes of about the same cost (content captured doubles the redaction, a2a-sdk's own
tracing more than doubles the untraced agent)."""


def count(plan: Plan) -> dict[str, float]:
    """Instructions per working update of each arm of ``plan``, under callgrind.

    The processes of the plan run side by side (on two cores, in half the time): the count of
    an arm does not depend on the machine's load.
    """
    problem = missing_tools()
    if problem is not None:
        raise RuntimeError(problem)
    with tempfile.TemporaryDirectory(prefix="a2a-progress-ir-") as tmp:
        directory = Path(tmp)
        library = _marks_library(directory)
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        running = []
        for index, arms in enumerate(plan.processes):
            inside = {
                "arms": arms,
                "tools": plan.tools,
                "text_scale": plan.text_scale,
                "sdk_tracing": "sdk" in plan.arms,
            }
            command = [
                "valgrind",
                "--tool=callgrind",
                "--instr-atstart=no",
                f"--callgrind-out-file={directory}/callgrind.out.{index}",
                sys.executable,
                str(Path(__file__).resolve()),
                "--inside",
                json.dumps({**inside, "library": str(library)}),
            ]
            running.append(
                subprocess.Popen(
                    command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
                )
            )
        for process in running:
            _, stderr = process.communicate()
            if process.returncode != 0:
                raise RuntimeError(
                    f"callgrind run failed ({process.returncode}):\n{stderr[-4000:]}"
                )
        totals: dict[str, int] = {}
        for dump in directory.glob("callgrind.out.*.*"):
            text = dump.read_text(errors="replace")
            label, total = _LABEL.search(text), _TOTALS.search(text)
            if label is not None and total is not None:
                totals[label.group(1)] = int(total.group(1))
    return {arm: totals[arm] / plan.updates for arm in plan.arms}


def _inside(plan_json: str) -> None:
    """In a valgrind process: per arm, one turn uncounted, then one counted, same client."""
    options = json.loads(plan_json)
    marks = ctypes.CDLL(options["library"])
    marks.ir_dump.argtypes = [ctypes.c_char_p]
    if options["sdk_tracing"]:
        # a2a-sdk's own tracing exists only if it is on when a2a is imported; the other arms
        # switch it off again (bench_sdk_tracing.sdk_tracing), in every process of the plan.
        os.environ[SDK_TRACING_ENV] = "true"
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from bench_bridge import InProcessArms

    # Longer than any run: spans go out by full batches only, at the same points every time.
    arms = InProcessArms(
        options["tools"],
        export_delay_ms=24 * 3600 * 1000,
        text_scale=options["text_scale"],
        sdk_exporter=InMemorySpanExporter() if options["sdk_tracing"] else None,
    )

    def window(label: str) -> Callable[[Callable[[], None]], None]:
        def measure(turns: Callable[[], None]) -> None:
            gc.collect()
            gc.freeze()  # the collector's work in the window: this turn's objects, not the past
            marks.ir_start()
            turns()
            marks.ir_stop()
            marks.ir_dump(label.encode())
            gc.unfreeze()

        return measure

    try:
        for arm in options["arms"]:
            arms.run(arm, 1, window(arm), warmup=1)
    finally:
        arms.close()


# -- figures for run.py ---------------------------------------------------------------------

# Figure name -> (arm, its floor arm or None, target above the floor, what it is).
_WHAT = {
    "inprocess": "bridge_inprocess's workload: both sides instrumented, the instrumentor's "
    "defaults (sampled, content capture off)",
    "unsampled": "the same, ParentBased(ALWAYS_OFF) sampler",
    "content_off": "the same arm as ir_bridge_inprocess (capture_content=False), held to 0.05",
    "content_captured": "the same, sampled, capture_content=True (opt-in; informational), "
    "against a floor recording the same content",
}
_FIGURES: dict[str, tuple[str, str | None, float | None, str]] = {
    **{
        f"ir_bridge_{row}": (arm, floor, allowance, _WHAT[row])
        for row, (arm, floor, allowance) in BRIDGE_ROWS.items()
    },
    "ir_sdk_floor": (
        "floor",
        None,
        None,
        "the OpenTelemetry SDK floor (floor.py), sampled, content not recorded",
    ),
    "ir_sdk_floor_unsampled": (
        "floor_unsampled",
        None,
        None,
        "the SDK floor, ParentBased(ALWAYS_OFF) sampler",
    ),
}
IR_FIGURES = (*_FIGURES, "ir_vs_a2a_sdk_tracing")


def figures(counts: dict[str, float], plan: Plan) -> list[Figure]:
    """One figure per row of :data:`_FIGURES`: instructions per update, ratio to ``off``.

    A bridge figure's target is its floor's ratio plus the issue's allowance above the floor;
    ``above_floor`` is what it measured there. A floor figure is informational (target: its
    own ratio). Every figure also records the ``off_unredacted`` arm (the untraced agent with
    the emitter's redaction left out), and a bridge figure its instructions above its floor
    against that baseline: the emitter's redaction is most of ``off`` and none of the bridge.
    """
    off, plain = counts["off"], counts["off_unredacted"]
    results = []
    for name, (arm, floor_arm, allowance, what) in _FIGURES.items():
        ratio = counts[arm] / off
        extra: dict[str, object] = {
            "off_instructions": round(off),
            "off_unredacted_instructions": round(plain),
            "updates": plan.updates,
        }
        notes = (
            f"{what}; instructions per working update under callgrind (one turn of "
            f"{plan.tools} tool calls, {plan.updates} updates, counted after an uncounted one "
            f"on the same handler and client), vs the instrumentor off ({off / 1000:,.0f} k, "
            f"of which the emitter's redaction {(off - plain) / 1000:,.0f} k: "
            f"{plain / 1000:,.0f} k without it)"
        )
        if floor_arm is not None and allowance is not None:
            floor_ratio = counts[floor_arm] / off
            above = counts[arm] - counts[floor_arm]
            extra["above_floor"] = round(ratio - floor_ratio, 4)
            extra["floor_ratio"] = round(floor_ratio, 4)
            extra["above_floor_instructions"] = round(above)
            extra["above_floor_vs_unredacted"] = round(above / plain, 4)
            target = round(floor_ratio + allowance, 4)
            notes += (
                f"; {ratio - floor_ratio:.3f} above its floor ({floor_ratio:.3f}): "
                f"{above / 1000:+,.0f} k per update, {above / plain:.3f} of the untraced agent "
                f"without the emitter's redaction (target {allowance:.2f} of the baseline)"
            )
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
    results.append(_versus_sdk(counts, plan))
    return results


def _versus_sdk(counts: dict[str, float], plan: Plan) -> Figure:
    """What our instrumentor (defaults: sampled, content off) adds per update over what
    a2a-sdk's own tracing adds, in instructions: a steady companion of the acceptance check
    (bench_processes.py), not the check itself (in process, spans kept in memory: no transport
    and no OTLP export, which a2a-sdk's ~35 spans per update would pay most of)."""
    off = counts["off"]
    ours, theirs = counts["content_off"] - off, counts["sdk"] - off
    return Figure(
        name="ir_vs_a2a_sdk_tracing",
        value=round(ours),
        unit="instr/update",
        baseline=round(theirs),
        ratio=round(ours / theirs, 4),
        target=0.15,
        notes=(
            "instructions our instrumentor adds per working update (content_off: the defaults, "
            f"sampled, content capture off) over those a2a-sdk's own tracing adds, in process "
            f"(one turn of {plan.tools} tool calls, spans to in-memory exporters): "
            f"{ours / 1000:+,.0f} k vs {theirs / 1000:+,.0f} k on the untraced "
            f"{off / 1000:,.0f} k (a2a-sdk x{counts['sdk'] / off:.3f}); informational: the "
            "acceptance check is e2e_processes_vs_a2a_sdk"
        ),
        extra={"updates": plan.updates, "a2a_sdk_ratio": round(counts["sdk"] / off, 4)},
    )


def run(quick: bool) -> list[Figure]:
    """run.py's ``ir_inprocess`` worker (``quick``: the same plan)."""
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
