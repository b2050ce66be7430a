"""Issue 9 §3 from the outside: first-hour mistakes get the README's exit code and one line on
stderr (no traceback); Ctrl-C says how to follow or cancel the task; `cancel` cancels it."""

from __future__ import annotations

import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread

import pytest
from user_processes import A2A_PROGRESS, WITH_CTRL_C, started

from support.processes import free_port, refused_port

AGENT = str(Path(__file__).parent / "readme_agent.py")
SLOW = ["--name", "slow", "--tool-seconds", "60"]


class _Agent:
    def __init__(self, url: str, grpc_port: int) -> None:
        self.url, self.grpc_port = url, grpc_port


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Agent]:
    port, grpc_port = free_port(), free_port()
    command = [sys.executable, AGENT, *SLOW, "--port", str(port), "--grpc-port", str(grpc_port)]
    log = tmp_path_factory.mktemp("agent") / "agent.log"
    with started(command, log, port) as process:
        yield _Agent(f"http://127.0.0.1:{port}", grpc_port)
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(scope="module")
def broken_card() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b'{\n  "name": "x",\n  "description": oops\n}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    command = [A2A_PROGRESS, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def _one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_mistakes_made_before_anything_is_sent(agent: _Agent) -> None:
    for args, said in [
        (["watch", agent.url, ""], "MESSAGE is empty"),
        (["watch", agent.url, "   "], "MESSAGE is empty"),
        (["watch", agent.url, "hi", "--interval", "2"], "--interval needs --poll"),
        (["watch", "localhost:9999", "hi"], "did you mean http://localhost:9999?"),
        (["watch", "127.0.0.1:9999", "hi"], "did you mean http://127.0.0.1:9999?"),
        (["watch", "http://[::1", "hi"], "is not a valid URL"),
        (["cancel", "http://[::1", "task-1"], "is not a valid URL"),
        (["watch", "http://127.0.0.1:99999", "hi"], "is not a valid URL"),
    ]:
        result = _run(*args)
        assert result.returncode == 2, args
        assert said in _one_line(result)
        assert result.stdout == ""


def test_urls_that_are_not_an_agent(agent: _Agent, broken_card: str) -> None:
    grpc = _run("watch", f"http://127.0.0.1:{agent.grpc_port}", "hi")
    assert grpc.returncode == 8
    assert "not with HTTP" in _one_line(grpc)
    wrong_path = _run("watch", f"{agent.url}/agents/x", "hi")
    assert wrong_path.returncode == 8
    assert f"did you mean {agent.url}?" in _one_line(wrong_path)
    broken = _run("watch", broken_card, "hi")
    assert broken.returncode == 8
    assert "not valid JSON (line 3" in _one_line(broken)
    nobody = _run("watch", f"http://127.0.0.1:{refused_port()}", "hi")
    assert nobody.returncode == 7
    assert "nothing is listening" in _one_line(nobody)
    tls = _run("watch", agent.url.replace("http://", "https://"), "hi")
    assert tls.returncode == 7
    assert f"did you mean {agent.url}?" in _one_line(tls)


def test_ctrl_c_names_the_commands_and_cancel_cancels(agent: _Agent) -> None:
    watch = subprocess.Popen(
        [*WITH_CTRL_C, A2A_PROGRESS, "watch", agent.url, "go", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert watch.stdout is not None
    first = watch.stdout.readline()  # the task exists once its first update is out
    assert '"task_id"' in first
    time.sleep(0.5)
    watch.send_signal(signal.SIGINT)
    _, stderr = watch.communicate(timeout=30)
    assert watch.returncode == 130
    commands = re.findall(r"`(a2a-progress [^`]+)`", stderr)
    assert len(commands) == 2, stderr
    subscribe, cancel = (shlex.split(command)[1:] for command in commands)
    assert subscribe[:3] == ["watch", agent.url, "--subscribe"]
    assert cancel[:2] == ["cancel", agent.url]
    assert subscribe[3] == cancel[2]
    canceled = _run(*cancel)
    assert canceled.returncode == 0, canceled.stderr
    replay = _run(*subscribe)
    assert replay.returncode == 3  # canceled
    assert "already canceled" in replay.stdout + replay.stderr
    assert _run("cancel", agent.url, "no-such-task").returncode == 9
