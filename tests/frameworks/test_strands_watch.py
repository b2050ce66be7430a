"""``a2a-progress watch --json`` (a2a-sdk 1.x, this venv) against Strands' own A2A server in
.venv-sdk03 (a2a-sdk 0.3 and strands-agents, which make test-sdk03 builds), each in its own
process: the command shows the model's text as it comes, no tool call (Strands sends none), and
the answer."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from a2a_progress.sdk import LINE, SdkLine
from support.processes import free_port, python_path, wait_until_serving, without_otel

ROOT = Path(__file__).resolve().parents[2]
V03_PYTHON = ROOT / ".venv-sdk03" / "bin" / "python"
PLAN = "Checking CI first."
ANSWER = "The deploy is blocked: CI is red (2 failing tests)."


def _strands_installed() -> bool:
    if not V03_PYTHON.exists():
        return False
    probe = [str(V03_PYTHON), "-c", "import strands.multiagent.a2a"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


pytestmark = [
    pytest.mark.skipif(LINE is not SdkLine.V1, reason="the command line runs on a2a-sdk 1.x"),
    pytest.mark.skipif(not _strands_installed(), reason="needs strands-agents in .venv-sdk03"),
]


async def test_watch_json_shows_the_text_and_the_answer() -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = without_otel(PYTHONPATH=python_path(), PYTHONWARNINGS="ignore")
    server = await asyncio.create_subprocess_exec(
        str(V03_PYTHON), "-m", "frameworks.strands_agent", "--port", str(port),
        env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        await wait_until_serving(url, alive=lambda: server.returncode is None)
        watch = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "a2a_progress.cli", "watch", url, "Why is it blocked?", "--json",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=without_otel(NO_COLOR="1"),
        )  # fmt: skip
        stdout, stderr = await asyncio.wait_for(watch.communicate(), timeout=60)
    finally:
        server.terminate()
        await asyncio.wait_for(server.wait(), timeout=30)
    assert watch.returncode == 0, stderr.decode()
    lines = [json.loads(line) for line in stdout.decode().splitlines() if line.strip()]
    progress = [line for line in lines if line.get("type") == "progress"]
    assert [(line["kind"], line["content"]) for line in progress] == [
        ("text", PLAN),
        ("text", ANSWER),
    ]
    assert lines[-1]["type"] == "outcome"
    assert lines[-1]["progress_extension"] is False
    assert ANSWER in json.dumps(lines[-1])
