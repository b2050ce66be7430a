"""``watch`` into a pipe whose reader has gone (``| head``): exit 141 as its ``--help`` says,
quietly, in plain lines (rich's console, which exits 1 on its own since rich 14) and ``--json``."""

import os
import subprocess
import sys

import pytest

from a2a_progress.cli.errors import ExitCode
from support.examples import TIMEOUT, environment, serving


@pytest.mark.parametrize("options", [(), ("--json",)], ids=["lines", "json"])
def test_watch_into_a_closed_pipe_exits_141(options: tuple[str, ...]) -> None:
    with serving("callee.py") as url:
        read, write = os.pipe()
        os.close(read)  # the reader is gone before watch writes its first line: no race
        try:
            done = subprocess.run(
                [sys.executable, "-m", "a2a_progress.cli", "watch", url, "Why?", *options],
                stdout=write,
                stderr=subprocess.PIPE,
                env=environment(),
                text=True,
                timeout=TIMEOUT,
                check=False,
            )
        finally:
            os.close(write)
    assert done.returncode == ExitCode.BROKEN_PIPE, done.stderr  # 1 would say "the task failed"
    assert done.stderr == ""
