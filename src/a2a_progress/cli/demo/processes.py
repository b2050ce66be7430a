"""The embedded demo's agents as child processes: started on free loopback ports, stopped with
SIGTERM (which flushes their spans), their output kept for the error message if one fails."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Final

import httpx

from a2a_progress.cli.agent_client import card_url
from a2a_progress.cli.errors import CliError, ExitCode

_STARTUP_TIMEOUT: Final = 30.0
_STOP_TIMEOUT: Final = 10.0


@dataclass(frozen=True)
class AgentSpec:
    """A demo agent to run: ``a2a-progress ARGS`` (a ``serve-demo``) serving on ``http_port``.

    ``name`` says which agent it is in error messages.
    """

    name: str
    args: Sequence[str]
    env: Mapping[str, str]
    http_port: int

    @property
    def url(self) -> str:
        """Where it serves its card."""
        return f"http://127.0.0.1:{self.http_port}"


@dataclass(frozen=True)
class Served:
    """A demo agent running in a child process."""

    url: str
    pid: int


def free_ports(count: int) -> list[int]:
    """``count`` different loopback TCP ports nothing listens on (they were free a moment ago).

    Probed all at once: probed one after another, the kernel can give the same free port twice
    in a row (about one pair in 12,000), and two of the demo's servers would then fight over it.
    """
    with contextlib.ExitStack() as probes:
        ports: list[int] = []
        for _ in range(count):
            probe = probes.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            probe.bind(("127.0.0.1", 0))
            ports.append(probe.getsockname()[1])
        return ports


@contextlib.asynccontextmanager
async def agent_processes(specs: Sequence[AgentSpec]) -> AsyncIterator[list[Served]]:
    """Run every agent of ``specs`` as a child until the block ends; they start side by side
    (the demo waits for the slowest, not for the sum) and are stopped together."""
    with contextlib.ExitStack() as logs:
        started: list[tuple[AgentSpec, asyncio.subprocess.Process, IO[bytes]]] = []
        try:
            for spec in specs:
                log = logs.enter_context(tempfile.TemporaryFile())
                process = await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    "a2a_progress.cli",
                    *spec.args,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    env=dict(spec.env),
                )
                started.append((spec, process, log))
            await asyncio.gather(
                *(
                    _wait_until_serving(spec.name, spec.url, process, log)
                    for spec, process, log in started
                )
            )
            yield [Served(spec.url, process.pid) for spec, process, _ in started]
        finally:
            await asyncio.gather(*(_stop(process) for _, process, _ in started))


def child_environment(
    service_name: str, *, export_env: bool, endpoint_variables: frozenset[str]
) -> dict[str, str]:
    """This process's environment for a child named ``service_name``.

    ``export_env`` false drops ``endpoint_variables`` (the OTLP endpoint variables), so the
    child does not export to a collector that is not there.
    """
    return {
        **{
            key: value
            for key, value in os.environ.items()
            if export_env or key not in endpoint_variables
        },
        "OTEL_SERVICE_NAME": service_name,
        "OTEL_INSTRUMENTATION_A2A_SDK_ENABLED": "false",
    }


async def _wait_until_serving(
    name: str, url: str, process: asyncio.subprocess.Process, log: IO[bytes]
) -> None:
    deadline = asyncio.get_running_loop().time() + _STARTUP_TIMEOUT
    async with httpx.AsyncClient(timeout=1.0) as http:
        while True:
            if process.returncode is not None:
                raise CliError(
                    f"the {name} exited with code {process.returncode}: {_last_line(log)}",
                    ExitCode.UNREACHABLE,
                )
            with contextlib.suppress(httpx.RequestError):
                if (await http.get(card_url(url))).status_code == 200:
                    return
            if asyncio.get_running_loop().time() > deadline:
                raise CliError(
                    f"the {name} did not serve {url} within {_STARTUP_TIMEOUT:g}s: "
                    f"{_last_line(log)}",
                    ExitCode.UNREACHABLE,
                )
            await asyncio.sleep(0.1)


def _last_line(log: IO[bytes]) -> str:
    log.seek(0)
    lines = [line.strip() for line in log.read().decode(errors="replace").splitlines()]
    return next((line for line in reversed(lines) if line), "no output")


async def _stop(process: asyncio.subprocess.Process) -> None:
    """SIGTERM (the agent flushes its spans and exits), then SIGKILL if it hangs."""
    if process.returncode is None:
        process.terminate()
    try:
        await asyncio.wait_for(process.wait(), _STOP_TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()
