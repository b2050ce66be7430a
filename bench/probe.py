"""What profile_processes.py runs around the timed turn of a deployed arm, in both processes.

``BENCH_PROBE`` names it, inherited by the worker and its callee processes: ``cprofile`` (the
event loop's thread under cProfile with a CPU clock, stats written to ``<path>.prof``) or
``callgrind`` (the process runs under ``valgrind --tool=callgrind --instr-atstart=no``; the
client requests of marks.c, built at ``BENCH_MARKS``, count the instructions of every thread
between start and stop and dump them labelled ``<path>``). Unset: nothing is probed.
"""

from __future__ import annotations

import cProfile
import ctypes
import os
import time
from pathlib import Path

PROBE_ENV, MARKS_ENV = "BENCH_PROBE", "BENCH_MARKS"


class Probe:
    """One process's probe of the timed turn (a no-op when BENCH_PROBE is unset)."""

    def __init__(self) -> None:
        self.kind = os.environ.get(PROBE_ENV)
        # CPU time, not wall: the event loop waits in select() for most of a turn.
        self._profile = cProfile.Profile(time.thread_time)
        self._marks = None
        if self.kind == "callgrind":
            self._marks = ctypes.CDLL(os.environ[MARKS_ENV])
            self._marks.ir_dump.argtypes = [ctypes.c_char_p]

    def start(self) -> None:
        if self._marks is not None:
            self._marks.ir_start()
        elif self.kind == "cprofile":
            self._profile.enable()

    def stop(self, path: Path) -> None:
        if self._marks is not None:
            self._marks.ir_stop()
            self._marks.ir_dump(str(path).encode())
        elif self.kind == "cprofile":
            self._profile.disable()
            self._profile.dump_stats(f"{path}.prof")
            self._profile = cProfile.Profile(time.thread_time)


def valgrind_prefix(directory: Path, name: str) -> list[str]:
    """The command prefix that runs a process under callgrind, its counts in ``directory``."""
    return [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={directory}/callgrind.{name}.%p",
    ]
