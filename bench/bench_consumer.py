"""consumer_throughput and consumer_memory: the caller-side assembler under heavy traffic.

Throughput: one :class:`ProgressAssembler` is fed 300k working updates over 1,000 tool-call streams
(100 live turns of 10 streams, 5% duplicates, 5% reordered; workload.py). The run is cut into
slices; each slice is timed through the assembler and, on a fresh copy of the same events,
through ``read_envelope`` alone (what any reader must do anyway), alternating between
the two every 250 events (CPU time; benchlib.alternating). The assembler keeps its state across
slices, so each slice is steady-state traffic.

Memory: each configuration runs in a fresh subprocess (memprobe.py): peak RSS minus RSS just
before the first event, with the envelope generator already primed and one event read by a
throwaway assembler (the modules a first event imports are the process's, not per envelope), so
only the assembler (and the garbage of feeding it) is counted.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from itertools import islice

from a2a.types.a2a_pb2 import TaskStatusUpdateEvent

from a2a_progress.consumer import EndReason, Outcome, ProgressAssembler, TurnOutcome
from a2a_progress.sdk.adapter import read_envelope
from benchlib import BENCH_DIR, Figure, alternating, ratio_figure
from workload import consumer_events


def _copies(events: list[TaskStatusUpdateEvent]) -> tuple[list[TaskStatusUpdateEvent], ...]:
    """Two independent, freshly parsed copies: neither arm reads objects the other warmed."""
    wire = [event.SerializeToString() for event in events]
    parse = TaskStatusUpdateEvent.FromString
    return [parse(data) for data in wire], [parse(data) for data in wire]


def verify(envelopes: int, streams: int) -> dict[str, object]:
    """Feed a small run and check the assembler's verdicts: every call opened once, ended done."""
    assembler = ProgressAssembler()
    outcomes: Counter[str] = Counter()
    opened = closed_done = terminal = 0
    for event in consumer_events(envelopes, streams, seed=5):
        for update in assembler.feed(event):
            if isinstance(update, TurnOutcome):
                terminal += update.terminal
                continue
            opened += update.opened
            closed_done += sum(call.end_reason is EndReason.DONE for call in update.closed)
        outcomes[assembler.last_outcome.value] += 1
    ok = (
        opened == streams
        and closed_done == streams
        and terminal == -(-streams // 10)
        and assembler.live_turns == 0
        and outcomes[Outcome.DUPLICATE.value] > 0
    )
    if not ok:
        raise AssertionError(f"assembler verdicts wrong: {opened=} {closed_done=} {outcomes}")
    return {"opened": opened, "closed_done": closed_done, "outcomes": dict(outcomes)}


def run_throughput(quick: bool) -> Figure:
    # 6 slices of 50k: per-slice ratios spread by ~0.07 (1.58-1.65 over 12 slices of the
    # 600k run of 70f63a2), the median of 6 within ~0.02 of that of 12.
    total, slices, chunk = (120_000, 6, 250) if quick else (300_000, 6, 250)
    streams = 1_000
    checked = verify(20_000, streams)  # also the warm-up of both code paths
    source = consumer_events(total, streams)
    assembler = ProgressAssembler()
    samples: tuple[list[float], list[float]] = ([], [])
    fed = 0
    for index in range(slices):
        # The last slice also takes the turn ends that follow the last envelope.
        events = list(islice(source, total // slices)) if index < slices - 1 else list(source)
        fed += len(events)
        for_assembler, for_decode = _copies(events)
        del events

        def through_assembler(
            first: int, batch: list[TaskStatusUpdateEvent] = for_assembler
        ) -> None:
            for event in batch[first : first + chunk]:
                assembler.feed(event)

        def decode_only(first: int, batch: list[TaskStatusUpdateEvent] = for_decode) -> None:
            for event in batch[first : first + chunk]:
                read_envelope(event)

        # The slice's 100k pre-built events are the bench's, not the consumer's: frozen out of
        # the garbage collector, else every collection walks them and the arm that allocates
        # more (the assembler) pays for the bench's heap. A real consumer holds one event.
        gc.collect()
        gc.freeze()
        spent = alternating(through_assembler, decode_only, range(0, len(for_assembler), chunk))
        gc.unfreeze()
        samples[0].append(spent[0] / len(for_assembler))
        samples[1].append(spent[1] / len(for_assembler))
    if assembler.live_turns:
        raise AssertionError("turns still live after every turn's end")
    return ratio_figure(
        "consumer_throughput",
        samples,
        unit="us/op",
        scale=1e6,
        target=1.5,
        notes=(
            f"{fed} events ({total} working updates incl. 5% duplicates and 5% reordered, then "
            f"one COMPLETED per turn) over {streams} tool-call streams in {-(-streams // 10)} live "
            f"turns; {slices} slices (repetitions), each alternating between the arms every "
            f"{chunk} events; verdicts checked on a 20k run: {checked}"
        ),
    )


def _probe(streams: int, envelopes: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, str(BENCH_DIR / "memprobe.py"), str(streams), str(envelopes)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"memprobe {streams} {envelopes} failed:\n{done.stderr}")
    result: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return result


def run_memory(quick: bool) -> Figure:
    small, large = (40_000, 200_000) if quick else (100_000, 1_000_000)
    configs = [(10, large), (10_000, large), (10, small), (10_000, small)]
    # Memory does not depend on CPU contention: two probes at a time.
    with ThreadPoolExecutor(max_workers=2) as pool:
        probes = dict(zip(configs, pool.map(lambda c: _probe(*c), configs), strict=True))
    growth = {config: probes[config]["growth_mb"] for config in configs}
    # "No growth with envelope count": 10x the envelopes moves the peak by under 2 MB or 10%.
    flat = all(
        abs(growth[(streams, large)] - growth[(streams, small)])
        <= max(2.0, 0.1 * growth[(streams, small)])
        for streams in (10, 10_000)
    )
    value = max(growth[(10, large)], growth[(10_000, large)])
    return Figure(
        name="consumer_memory",
        value=round(value, 2),
        unit="MB",
        baseline=None,
        ratio=None,
        target=50,
        notes=(
            "peak RSS growth, fresh process per configuration: "
            + ", ".join(
                f"{e:,} envelopes over {s:,} streams: {growth[(s, e)]:.2f} MB" for s, e in configs
            )
            + f"; flat in envelope count: {flat}"
        ),
        extra={
            "flat_in_envelope_count": flat,
            "probes": {f"{s}x{e}": probes[(s, e)] for s, e in configs},
        },
    )
