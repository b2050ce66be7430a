"""Peak RSS growth of one ProgressAssembler fed ``ENVELOPES`` updates over ``STREAMS`` streams.

Usage: ``python bench/memprobe.py STREAMS ENVELOPES``; prints one JSON line. Run by
bench_consumer.py, one fresh process per configuration, so nothing else has touched the heap.
"""

from __future__ import annotations

import gc
import json
import sys
import time

from benchlib import configure_process, peak_rss_kb, reset_peak_rss, rss_kb

configure_process()

from a2a_progress.consumer import ProgressAssembler  # noqa: E402
from workload import consumer_events  # noqa: E402 - after the process settings


def main(streams: int, envelopes: int) -> dict[str, object]:
    source = consumer_events(envelopes, streams)
    first = next(source)  # primes the generator: its O(streams) state is not the assembler's
    # A throwaway assembler reads it first: the modules a consumer's first event imports (the
    # a2a-sdk seam, a2a.client with it: ~37 MB in December 2026) are the process's, once, not
    # memory per envelope.
    ProgressAssembler().feed(first)
    assembler = ProgressAssembler()
    gc.collect()
    reset_ok = reset_peak_rss()
    start = rss_kb()
    began = time.perf_counter()
    assembler.feed(first)
    fed = 1
    for event in source:
        assembler.feed(event)
        fed += 1
    seconds = time.perf_counter() - began
    peak = peak_rss_kb()
    if assembler.live_turns:
        raise AssertionError("turns still live after every turn's end")
    return {
        "streams": streams,
        "events": fed,
        "start_mb": round(start / 1024, 2),
        "peak_mb": round(peak / 1024, 2),
        "growth_mb": round((peak - start) / 1024, 2),
        "peak_reset": reset_ok,
        "seconds": round(seconds, 1),
    }


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]), int(sys.argv[2]))))
