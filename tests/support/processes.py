"""Real processes for tests: free ports, output read line by line, agents under zero-code OTel.

``opentelemetry-instrument`` processes get their exporters from ``OTEL_*`` variables only, as a
user's agents would; :func:`otel_environment` builds those variables from a clean slate.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import httpx

TESTS: Final = Path(__file__).resolve().parent.parent
BIN: Final = Path(sys.executable).parent  # the virtualenv's bin, next to opentelemetry-instrument
PROCESS_TIMEOUT: Final = 60.0


# Every port free_port() handed out in this run. Asked twice in a row, the kernel gives the same
# free port about once in 12,000 pairs (measured: 17 in 200,000), and two servers told to listen
# there would then fight over it.
_HANDED_OUT: set[int] = set()
# The sockets that keep refused_port()'s ports: bound, never listening, open until the run ends.
_REFUSING: list[socket.socket] = []


def free_port() -> int:
    """A loopback port nothing listens on right now, for a server to bind soon (another may take
    it meanwhile); never one it gave before in this run."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


def refused_port() -> int:
    """A loopback port that refuses connections until the run ends: this process holds it bound
    and never listens, so no server can be given it (a port of :func:`free_port` is merely free:
    the next server that binds port 0, the test's own or a child's, may get it and answer)."""
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    _REFUSING.append(holder)
    return int(holder.getsockname()[1])


@contextlib.contextmanager
def taken_port() -> Iterator[int]:
    """A loopback port something listens on (this test) while the block runs."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


async def wait_until_serving(
    url: str,
    *,
    alive: Callable[[], bool] = lambda: True,
    why: Callable[[], str] = lambda: "",
    seconds: float = PROCESS_TIMEOUT,
) -> None:
    """Poll the agent card at ``url`` until it answers 200.

    Raises:
        RuntimeError: ``alive()`` turned false first (the server's process exited); the
            message ends with ``why()`` (e.g. the tail of its log).
        TimeoutError: ``seconds`` passed.
    """
    deadline = time.monotonic() + seconds
    async with httpx.AsyncClient(timeout=2) as http:
        while True:
            if not alive():
                raise RuntimeError(f"{url} stopped before it served: {why()}")
            with contextlib.suppress(httpx.HTTPError):
                response = await http.get(f"{url}/.well-known/agent-card.json")
                if response.status_code == 200:
                    return
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} not serving after {seconds}s: {why()}")
            await asyncio.sleep(0.05)


def without_otel(**extra: str) -> dict[str, str]:
    """This process's environment without its ``OTEL_*`` settings (none of this run's telemetry
    reaches a child), plus ``extra``."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    environment.update(extra)
    return environment


def python_path() -> str:
    """``PYTHONPATH`` for a child: ``tests`` (for ``support``) before whatever this one has."""
    inherited = os.environ.get("PYTHONPATH")
    return os.pathsep.join([str(TESTS), *([inherited] if inherited else [])])


def otel_environment(
    service: str, endpoint: str, protocol: str, **overrides: str
) -> dict[str, str]:
    """This process's environment without its ``OTEL_*`` settings, plus zero-code ones.

    Traces go to ``endpoint`` over ``protocol`` (``http/protobuf`` or ``grpc``), batched every
    100 ms; metrics and logs are off unless ``overrides`` turn them on.
    """
    environment = without_otel(
        OTEL_SERVICE_NAME=service,
        OTEL_TRACES_EXPORTER="otlp",
        OTEL_METRICS_EXPORTER="none",
        OTEL_LOGS_EXPORTER="none",
        OTEL_EXPORTER_OTLP_PROTOCOL=protocol,
        OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
        OTEL_BSP_SCHEDULE_DELAY="100",
        PYTHONPATH=python_path(),
    )
    environment.update(overrides)
    return environment


CLI: Final = [sys.executable, "-m", "a2a_progress.cli"]
"""The command that runs ``a2a-progress``."""


class CliProcess:
    """``a2a-progress`` in a child process (see :func:`cli_process`); stdout read line by line."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        """The stdout lines read so far."""

    async def wait_for(self, predicate: Callable[[list[str]], bool]) -> list[str]:
        """Read stdout until ``predicate(lines so far)`` holds; the lines.

        Raises:
            AssertionError: stdout closed first (the command exited).
            TimeoutError: no line came for :data:`PROCESS_TIMEOUT` seconds.
        """
        assert self.process.stdout is not None
        while not predicate(self.lines):
            line = await asyncio.wait_for(self.process.stdout.readline(), PROCESS_TIMEOUT)
            assert line, f"the command exited first; its output: {self.lines}"
            self.lines.append(line.decode().rstrip("\n"))
        return self.lines

    async def stop(self, signum: int = signal.SIGINT) -> tuple[int, bytes]:
        """Send ``signum`` (default: as Ctrl+C) and wait for the exit; its code and stderr."""
        self.process.send_signal(signum)
        _, err = await asyncio.wait_for(self.process.communicate(), PROCESS_TIMEOUT)
        assert self.process.returncode is not None
        return self.process.returncode, err


@contextlib.asynccontextmanager
async def cli_process(
    *args: str, env: Mapping[str, str] | None = None
) -> AsyncIterator[CliProcess]:
    """Run ``a2a-progress ARGS`` (with ``env``, else this process's environment); on exit it is
    killed if it still runs."""
    process = await asyncio.create_subprocess_exec(
        *CLI,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=None if env is None else dict(env),
    )
    try:
        yield CliProcess(process)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def instrumented(module: str, *args: str) -> list[str]:
    """The command that runs ``python -m module args`` under ``opentelemetry-instrument``."""
    return [str(BIN / "opentelemetry-instrument"), sys.executable, "-m", module, *args]


class OutputLines:
    """Every line a child process writes to one of its pipes, read by a thread as it comes."""

    def __init__(self, pipe: Iterable[str]) -> None:
        self._lines: list[str] = []
        self._changed = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self._thread.start()

    def _read(self, pipe: Iterable[str]) -> None:
        for line in pipe:
            with self._changed:
                self._lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    @property
    def lines(self) -> list[str]:
        with self._changed:
            return list(self._lines)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def wait_for(
        self, predicate: Callable[[list[str]], bool], timeout: float = PROCESS_TIMEOUT
    ) -> list[str]:
        """Block until ``predicate(lines so far)`` holds; return the lines.

        Raises:
            AssertionError: it did not hold within ``timeout`` seconds, or the pipe closed first.
        """
        with self._changed:
            held = self._changed.wait_for(lambda: predicate(self._lines) or self._closed, timeout)
            if held and predicate(self._lines):
                return list(self._lines)
            lines = list(self._lines)
        state = "the pipe closed" if self._closed else f"{timeout}s passed"
        raise AssertionError(f"{state} before the output matched:\n" + "\n".join(lines))

    def join(self, timeout: float = PROCESS_TIMEOUT) -> list[str]:
        """Wait for the pipe to close (the process ended); every line."""
        self._thread.join(timeout)
        return self.lines


@dataclass
class AgentProcess:
    """An agent in a child process (see :func:`agent_process`); ``url`` is its HTTP base URL."""

    url: str
    process: subprocess.Popen[str]

    def stop(self, signum: int = signal.SIGINT) -> int:
        """Send ``signum`` (default: as Ctrl+C, so exit hooks flush telemetry); the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signum)
        return self.process.wait(PROCESS_TIMEOUT)

    def output(self) -> str:
        """What it printed after ``PORT`` (read once it has exited)."""
        assert self.process.stdout is not None
        return self.process.stdout.read()


@contextlib.contextmanager
def agent_process(command: list[str], env: Mapping[str, str], log: Path) -> Iterator[AgentProcess]:
    """Run an agent that prints ``PORT <n>`` once it listens on 127.0.0.1 (stderr to ``log``).

    On exit it is stopped with SIGINT (and killed if that does not end it).
    """
    with log.open("w") as stderr:
        process = subprocess.Popen(
            command, env=dict(env), stdout=subprocess.PIPE, stderr=stderr, text=True, cwd=TESTS
        )
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            assert line.startswith("PORT "), f"{command} did not start:\n{log.read_text()}"
            yield AgentProcess(f"http://127.0.0.1:{int(line.split()[1])}", process)
        finally:
            with contextlib.suppress(subprocess.TimeoutExpired):
                AgentProcess("", process).stop()
            stop(process)


def run_to_end(command: list[str], env: Mapping[str, str]) -> str:
    """Run ``command`` to its exit, which must be 0; what it printed."""
    return finished(command, env).stdout


def finished(command: list[str], env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """Run ``command`` (in ``tests``) to its exit, which must be 0; what it wrote, both pipes."""
    done = subprocess.run(
        command,
        env=dict(env),
        capture_output=True,
        text=True,
        cwd=TESTS,
        timeout=PROCESS_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done


def stop(process: subprocess.Popen[str], timeout: float = PROCESS_TIMEOUT) -> None:
    """End ``process`` if it still runs (kill after ``timeout``) and reap it."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
