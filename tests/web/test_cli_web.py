"""``watch --web`` and ``demo --web`` as a user runs them: a process, its URL line, Chromium."""

from __future__ import annotations

import re
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from a2a.types.a2a_pb2 import TaskState

from a2a_progress.envelope import Envelope, Kind, Status
from a2a_progress.serving import serve_agent
from support import scripted as step
from support.processes import CliProcess, cli_process, free_port
from support.scripted import ScriptedAgent
from support.stamped_agent import StampedAgent, Step, at
from support.web import chromium, open_page, wait_ended

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
async def _running(*args: str) -> AsyncIterator[tuple[CliProcess, str]]:
    """The CLI running with ``args``; yields it and the page URL it printed."""
    async with cli_process(*args) as cli:
        lines = await cli.wait_for(lambda lines: bool(lines) and bool(URL_LINE.match(lines[-1])))
        yield cli, lines[-1]


async def _interrupt(cli: CliProcess) -> int:
    """Wait for the 'still serving' line, press Ctrl-C; the exit code."""
    await cli.wait_for(
        lambda lines: any(line.startswith("serving http://127.0.0.1:") for line in lines)
    )
    code, _ = await cli.stop(signal.SIGINT)
    return code


async def test_watch_web_shows_a_plain_agent_in_the_browser_until_ctrl_c() -> None:
    port = free_port()
    async with (
        serve_agent(plain_agent(), name="ops <helper>", grpc_port=None) as served,
        _running("watch", served.http_url, "Why is checkout slow?", "--web-port", str(port)) as (
            cli,
            url,
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
        code = await _interrupt(cli)
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
        _running("demo", "--web", "--pace", "0", "--trace-file", str(trace)) as (cli, url),
        chromium() as browser,
    ):
        page = await open_page(browser, url)
        await wait_ended(page)
        tools = await page.locator("li.a2ap-call .a2ap-tool").all_inner_texts()
        title = await page.locator(".a2ap-title").inner_text()
        code = await _interrupt(cli)
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


TOOL_ENDED = re.compile(r"^tool (?:done|aborted): \S+ \[\S+\] ([0-9.]+m?s)\b")
# How long each call lasted, by the times the agent stamped on its updates (never measured, so
# each run prints every format: to 0.1 ms under 10 ms, whole ms, seconds), and how it is printed.
LASTED = [(0.0003, "0.3ms"), (0.0042, "4.2ms"), (0.0099, "9.9ms"), (0.25, "250ms"), (1.4, "1.40s")]


def _stamped_calls() -> StampedAgent:
    """A call for each of LASTED, one after another, then one aborted after 0.5 ms."""
    steps, seq, clock = [], 1, 0.0
    ends = [(Status.DONE, lasted) for lasted, _ in LASTED] + [(Status.ABORTED, 0.0005)]
    for n, (end, lasted) in enumerate(ends):
        call = {"tool": f"t{n}", "tool_call_id": f"c{n}"}
        steps.append(
            Step(envelope=Envelope(Kind.TOOL_CALL, seq, call, Status.RUNNING), at=at(clock))
        )
        clock += lasted
        reason = {"reason": "it broke"} if end is Status.ABORTED else {}
        steps.append(
            Step(envelope=Envelope(Kind.TOOL_CALL, seq + 1, call | reason, end), at=at(clock))
        )
        seq += 2
    return StampedAgent([*steps, Step(TaskState.TASK_STATE_COMPLETED, text="done", at=at(clock))])


async def test_watch_web_shows_each_duration_as_the_terminal_does() -> None:
    async with (
        serve_agent(_stamped_calls(), name="quick", grpc_port=None) as served,
        _running("watch", served.http_url, "go", "--web-port", str(free_port())) as (cli, url),
        chromium() as browser,
    ):
        page = await open_page(browser, url)
        await wait_ended(page)
        shown = await page.locator("li.a2ap-call .a2ap-duration").all_inner_texts()
        assert await _interrupt(cli) == 0
    printed = [m[1] for line in cli.lines if (m := TOOL_ENDED.match(line))]
    assert printed == [text for _, text in LASTED] + ["0.5ms"]
    assert shown == printed
