"""``watch --web`` and ``demo --web`` as a user runs them: a process, its URL line, Chromium."""

from __future__ import annotations

import asyncio
import re
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from a2a_progress.serving import serve_agent
from support import scripted as step
from support.processes import free_port
from support.scripted import ScriptedAgent
from support.web import chromium, open_page, wait_ended

CLI = [sys.executable, "-m", "a2a_progress.cli"]
URL_LINE = re.compile(r"^http://127\.0\.0\.1:(\d+)/$")


def plain_agent() -> ScriptedAgent:
    """An agent as one without a2a-progress writes it: plain-text working updates, a reply."""
    return ScriptedAgent(
        [
            step.raw(None, "Reading the incident ticket"),
            step.raw(None, "Checking <b>three</b> dashboards"),
            step.complete("The cache node is full."),
        ]
    )


@asynccontextmanager
async def _running(*args: str) -> AsyncIterator[tuple[asyncio.subprocess.Process, str, list[str]]]:
    """The CLI running with ``args``; yields it, the page URL it printed, and its stdout lines."""
    process = await asyncio.create_subprocess_exec(
        *CLI, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None
    lines: list[str] = []
    try:
        while True:
            raw = await process.stdout.readline()
            assert raw, f"exited without a URL line: {lines}"
            line = raw.decode().rstrip("\n")
            lines.append(line)
            if URL_LINE.match(line):
                break
        yield process, line, lines
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def _interrupt(process: asyncio.subprocess.Process, lines: list[str]) -> int:
    """Wait for the 'still serving' line, press Ctrl-C; the exit code."""
    assert process.stdout is not None
    while not any(line.startswith("serving http://127.0.0.1:") for line in lines):
        raw = await process.stdout.readline()
        assert raw, lines
        lines.append(raw.decode().rstrip("\n"))
    process.send_signal(signal.SIGINT)
    await process.communicate()
    assert process.returncode is not None
    return process.returncode


async def test_watch_web_shows_a_plain_agent_in_the_browser_until_ctrl_c() -> None:
    port = free_port()
    async with (
        serve_agent(plain_agent(), name="ops <helper>", grpc_port=None) as served,
        _running("watch", served.http_url, "Why is checkout slow?", "--web-port", str(port)) as (
            process,
            url,
            lines,
        ),
        chromium() as browser,
    ):
        assert url == f"http://127.0.0.1:{port}/"
        page = await open_page(browser, url)
        await wait_ended(page)
        text = await page.locator("a2a-progress-panel").inner_text()
        # Still served after the turn: a second browser reads the whole turn.
        again = await open_page(browser, url)
        await wait_ended(again)
        assert await again.locator("a2a-progress-panel").inner_text() == text
        code = await _interrupt(process, lines)
    assert code == 0
    for shown in (
        "ops <helper>",
        "Why is checkout slow?",
        "Reading the incident ticket",
        "Checking <b>three</b> dashboards",
        "The cache node is full.",
        "completed",
    ):
        assert shown in text, shown
    assert page.script_errors == []  # type: ignore[attr-defined]


async def test_demo_web_serves_the_demo_turn(tmp_path: Path) -> None:
    trace = tmp_path / "trace.json"
    async with (
        _running("demo", "--web", "--pace", "0", "--trace-file", str(trace)) as (
            process,
            url,
            lines,
        ),
        chromium() as browser,
    ):
        page = await open_page(browser, url)
        await wait_ended(page)
        tools = await page.locator("li.a2ap-call .a2ap-tool").all_inner_texts()
        title = await page.locator(".a2ap-title").inner_text()
        code = await _interrupt(process, lines)
    assert code == 0
    assert title == "deploy-investigator"
    assert tools == [
        "get_deploy_status",
        "search_logs",
        "query_metrics",
        "run_smoke_tests",
        "diff_config",
    ]
    assert trace.exists()
