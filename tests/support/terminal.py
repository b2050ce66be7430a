"""Run a command in a real pseudo-terminal, as a user at a terminal would, and keep every byte
it wrote there (escape sequences included)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass

from support.processes import BIN, PROCESS_TIMEOUT

# What a peer may put in any text that reaches a terminal or a log line.
CLEAR = "\x1b[2J"  # clear the screen
TITLE = "\x1b]0;PWNED\x07"  # set the window title (OSC ... BEL)
CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x1b\\"  # write the clipboard (OSC 52 ... ST)
CSI_C1 = "\x9b31m"  # a one-byte CSI
RLO = "\u202e"  # right-to-left override: "evil" would read "live"
ISOLATE = "\u2067"
HOSTILE = f"a{CLEAR}b{TITLE}c{CLIPBOARD}d{CSI_C1}e{RLO}evil{ISOLATE}f [bold]markup[/bold]"
ATTACKS = (CLEAR, TITLE, "\x1b]52", "\x9b", RLO, ISOLATE, "\x07")
# Each alone, for what keeps only part of a text; and other controls a terminal may obey.
SEQUENCES = (
    CLEAR,
    TITLE,
    CLIPBOARD,
    CSI_C1,
    RLO,
    ISOLATE,
    "\x1bP+q544e\x1b\\",  # DCS: ask the terminal to answer (a reply typed into the shell)
    "\x1b[6n",  # ask for the cursor position (answered as input)
    "\x9d0;title\x9c",  # OSC and ST as C1 controls
    "\x85",  # NEL: a new line in some terminals
    "\r",  # back to the start of the line, to write over it
    "\x08",  # backspace
    "\u2028",  # a line separator: a new line in log viewers
    "\u200f",  # right-to-left mark
)


@dataclass(frozen=True)
class TerminalRun:
    """What a command wrote to its terminal (stdout and stderr both), and its exit code."""

    output: bytes
    code: int

    @property
    def text(self) -> str:
        return self.output.decode("utf-8", errors="replace")


def run_in_terminal(
    args: list[str], *, env: Mapping[str, str] | None = None, columns: int = 120
) -> TerminalRun:
    """Run ``a2a-progress ARGS`` on a pty of ``columns`` until it exits (blocking: call it from
    a worker thread when the agent it talks to runs on this event loop)."""
    controller, terminal = pty.openpty()
    environment = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(columns), **(env or {})}
    environment.pop("NO_COLOR", None)
    process = subprocess.Popen(
        [str(BIN / "a2a-progress"), *args],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env=environment,
        close_fds=True,
    )
    os.close(terminal)
    chunks: list[bytes] = []
    deadline = time.monotonic() + PROCESS_TIMEOUT
    try:
        while time.monotonic() < deadline:
            if not select.select([controller], [], [], 1.0)[0]:
                continue
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: every holder of the terminal's other end has closed it
                break
            if not chunk:
                break
            chunks.append(chunk)
        return TerminalRun(b"".join(chunks), process.wait(timeout=PROCESS_TIMEOUT))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(controller)
