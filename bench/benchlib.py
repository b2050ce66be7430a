"""What every benchmark shares: process settings, interleaved timing, figures, memory readings.

The machine is shared and noisy, so every ratio comes from arms run in the same process,
interleaved A, B, B, A, A, B, ... (the order flips each time, so drift hits both arms alike),
after a warm-up, and is the ratio of the two medians over the repetitions. CPU-bound figures
alternate within each repetition too, every few milliseconds (:func:`alternating`).
"""

from __future__ import annotations

import gc
import math
import os
import platform
import statistics
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

BENCH_DIR = Path(__file__).resolve().parent

# a2a-sdk's own tracing (66-88 spans per streaming call) is not ours to measure. It is read when
# a2a is imported: run.py sets it first, and every subprocess inherits it.
BENCH_ENV = {"OTEL_INSTRUMENTATION_A2A_SDK_ENABLED": "false"}


BRIDGE_ROWS: dict[str, tuple[str, str, float]] = {
    "inprocess": ("content_off", "floor", 0.07),
    "unsampled": ("unsampled", "floor_unsampled", 0.03),
    "content_off": ("content_off", "floor", 0.05),
    "content_captured": ("content_captured", "floor_content", 0.07),
}
"""The bridge's in-process rows (``bridge_<row>`` in CPU time, bench_bridge.py;
``ir_bridge_<row>`` in instructions, bench_ir.py): row -> (the bridge's arm, its SDK floor's arm,
what the bridge may add above that floor per update as a share of the instrumentor-off
baseline). ``inprocess`` measures the default configuration (sampled, content capture off), so
it is the ``content_off`` arm held to issue 21's 0.07; ``content_off`` is the same arm held to
0.05; ``content_captured`` (the opt-in) is informational, its 0.07 shown beside it. Each floor
records content exactly when its bridge arm does: a floor with content under a content-off arm
would charge the floor for work the bridge does not do."""

VERSIONED = ("a2a-sdk", "opentelemetry-api", "opentelemetry-sdk", "protobuf", "wrapt")
"""The packages whose versions the figures depend on (with Python's), recorded with them."""


def versions() -> dict[str, str]:
    """Python's version and those of the packages in :data:`VERSIONED`."""
    found = {"python": platform.python_version()}
    for package in VERSIONED:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def configure_process() -> None:
    """Apply :data:`BENCH_ENV`; call before anything imports a2a."""
    os.environ.update(BENCH_ENV)


Arm = Callable[[], float]
"""Runs one repetition of one arm and returns the seconds it measured (setup excluded)."""


Warmup = Callable[[], object]
"""Runs an arm once, untimed, before its repetitions: a shorter repetition of the same arm (the
same code paths, imports and caches as a timed one; a repetition sets up its own server,
client or handler, so nothing of it carries over but the process's warmth)."""


def interleave(
    a: Arm, b: Arm, *, reps: int, warmup: tuple[Warmup, Warmup] | None = None
) -> tuple[list[float], list[float]]:
    """Run ``a`` and ``b`` alternately: one untimed pair (``warmup``, by default ``a`` and
    ``b`` themselves), then ``reps`` timed pairs."""
    for run in warmup or (a, b):
        run()
    samples_a: list[float] = []
    samples_b: list[float] = []
    for rep in range(reps):
        gc.collect()
        if rep % 2 == 0:
            samples_a.append(a())
            gc.collect()
            samples_b.append(b())
        else:
            samples_b.append(b())
            gc.collect()
            samples_a.append(a())
    return samples_a, samples_b


def interleave_arms(
    arms: dict[str, Arm], *, reps: int, warmup: Mapping[str, Warmup] | None = None
) -> dict[str, list[float]]:
    """Like :func:`interleave` for any number of arms: the order reverses every repetition."""
    for name in arms:
        (warmup or arms)[name]()
    samples: dict[str, list[float]] = {name: [] for name in arms}
    for rep in range(reps):
        for name in arm_order(tuple(arms), rep):
            gc.collect()
            samples[name].append(arms[name]())
    return samples


def arm_order(names: Sequence[str], rep: int) -> Sequence[str]:
    """The arms' order in repetition ``rep`` (from 0): as given, reversed every other one."""
    return names if rep % 2 == 0 else names[::-1]


def mirrored_blocks(names: Sequence[str], blocks: int) -> list[tuple[int, str]]:
    """The slots (block, arm) of ``blocks`` mirrored blocks: each block runs the arms in order
    and back (A B C C B A). Every arm's two slots in a block are centred on the same moment,
    so a drift of the machine's speed that is linear over the block reaches each arm alike;
    adjacent slots pair the arms closer still."""
    return [(block, name) for block in range(blocks) for name in (*names, *reversed(names))]


@dataclass(frozen=True)
class Interval:
    """A median over blocks (repetitions) and a distribution-free confidence interval for it:
    the order statistics ``low`` = x(k) and ``high`` = x(n+1-k), with ``coverage`` =
    1 - 2 P(Binomial(n, 1/2) < k), the largest k whose coverage is at least the confidence
    asked (k = 1, min and max, when none is). It assumes only that the blocks are independent
    draws of the same distribution, not that it is normal."""

    median: float
    low: float
    high: float
    coverage: float
    n: int
    confidence: float

    def verdict(self, target: float) -> str:
        """``met`` when the whole interval is at or below ``target``, ``missed`` when it is
        wholly above, ``unresolved`` when it spans it or too few blocks give the confidence
        asked: the run cannot tell."""
        if self.coverage < self.confidence:
            return "unresolved"
        if self.high <= target:
            return "met"
        if self.low > target:
            return "missed"
        return "unresolved"

    def as_json(self, target: float | None = None) -> dict[str, Any]:
        found: dict[str, Any] = {
            "median": round(self.median, 4),
            "ci": [round(self.low, 4), round(self.high, 4)],
            "coverage": round(self.coverage, 3),
            "n": self.n,
        }
        if target is not None:
            found["target"] = round(target, 4)
            found["verdict"] = self.verdict(target)
        return found


def median_interval(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """The median of ``values`` with its order-statistic confidence interval (:class:`Interval`)."""
    ordered = sorted(values)
    n = len(ordered)
    k, coverage = 1, 1 - 2 * 0.5**n
    for candidate in range(2, n // 2 + 1):
        below = sum(math.comb(n, i) for i in range(candidate)) / 2**n
        if 1 - 2 * below < confidence:
            break
        k, coverage = candidate, 1 - 2 * below
    return Interval(
        statistics.median(ordered), ordered[k - 1], ordered[n - k], coverage, n, confidence
    )


def alternating(
    a: Callable[[T], object], b: Callable[[T], object], chunks: Sequence[T]
) -> tuple[float, float]:
    """Seconds ``a`` and ``b`` spent over every chunk, alternating chunk by chunk.

    For CPU-bound, single-threaded figures. The clock is this thread's CPU time: on a shared
    machine the process is preempted for milliseconds at a time, and wall time would charge
    that to whichever arm was running. Chunks take milliseconds, so both arms also see the same
    cache and frequency conditions. The first arm flips with every chunk.
    """
    clock = time.thread_time
    total_a = total_b = 0.0
    for index, chunk in enumerate(chunks):
        if index % 2 == 0:
            start = clock()
            a(chunk)
            middle = clock()
            b(chunk)
            total_a += middle - start
            total_b += clock() - middle
        else:
            start = clock()
            b(chunk)
            middle = clock()
            a(chunk)
            total_b += middle - start
            total_a += clock() - middle
    return total_a, total_b


def timed(fn: Callable[[], object]) -> float:
    """Seconds ``fn()`` took."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


@dataclass
class Figure:
    """One row of the results: ``value`` (candidate) against ``baseline`` (same run)."""

    name: str
    value: float
    unit: str
    baseline: float | None
    ratio: float | None
    target: float
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """Whether the target is met: the ratio when there is one, else the value."""
        measured = self.ratio if self.ratio is not None else self.value
        return measured <= self.target

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "unit": self.unit,
            "baseline": self.baseline,
            "ratio": self.ratio,
            "target": self.target,
            "passed": self.passed,
            "notes": self.notes,
            **self.extra,
        }


def ratio_figure(
    name: str,
    samples: tuple[list[float], list[float]],
    *,
    unit: str,
    scale: float,
    target: float,
    notes: str = "",
    extra: dict[str, Any] | None = None,
    paired: bool = False,
) -> Figure:
    """A figure from interleaved samples: medians times ``scale`` (e.g. 1e6 / ops for us/op).

    The ratio is of the two medians; with ``paired``, the median of the ratios of samples of
    the same index (repetition), for samples far apart in time, where the machine's speed moves
    between repetitions more than an arm's cost does."""
    candidate, baseline = samples
    value = statistics.median(candidate) * scale
    base = statistics.median(baseline) * scale
    ratio = (
        statistics.median(c / b for c, b in zip(candidate, baseline, strict=True))
        if paired
        else value / base
    )
    return Figure(
        name=name,
        value=round(value, 4),
        unit=unit,
        baseline=round(base, 4),
        ratio=round(ratio, 4),
        target=target,
        notes=notes,
        extra={
            "reps": len(candidate),
            "samples": {
                "value": [round(s * scale, 4) for s in candidate],
                "baseline": [round(s * scale, 4) for s in baseline],
            },
            **(extra or {}),
        },
    )


_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_by_thread() -> dict[str, float]:
    """CPU seconds (user + system) of each live thread of this process, by thread name
    (``MainThread``, ``OtelBatchSpanRecordProcessor``, ...; threads Python did not start are
    summed under ``other``), from /proc: whole ticks (10 ms), enough for seconds of work.

    What an arm spends in its span processor's export thread and what it spends on the event
    loop are different costs (the one competes for the GIL, the other is the agent's own
    path): the deployed figures record them apart.
    """
    names = {thread.native_id: thread.name for thread in threading.enumerate()}
    found: dict[str, float] = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended while we looked
            continue
        # utime and stime: fields 14 and 15 of stat(5), the 12th and 13th after the name.
        seconds = (int(fields[11]) + int(fields[12])) / _TICKS
        name = names.get(int(task.name), "other")
        found[name] = found.get(name, 0.0) + seconds
    return found


def gc_collections() -> list[int]:
    """The garbage collector's collections so far, by generation (0, 1, 2)."""
    return [generation["collections"] for generation in gc.get_stats()]


def _status_kb(field_name: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field_name} not in /proc/self/status")


def reset_peak_rss() -> bool:
    """Reset this process's peak RSS to its current RSS (Linux >= 4.0); False if refused."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return False
    return True


def rss_kb() -> int:
    """Current resident set size, KiB."""
    return _status_kb("VmRSS")


def peak_rss_kb() -> int:
    """Peak resident set size since start or the last :func:`reset_peak_rss`, KiB."""
    return _status_kb("VmHWM")
