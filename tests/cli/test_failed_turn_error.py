"""A failed turn says why: the agent's error message, redacted and bounded, in ``watch`` (plain
and ``--json``'s ``"error"``) and on the stderr line.

An exception that escapes ``execute()`` outside any tool never becomes a FAILED status with a
message: a2a-sdk ends the stream with an error carrying the exception's message as it is (a
JSON-RPC ``-32603`` error, gRPC status details; over REST a2a-sdk sends only "unknown
exception"). ``watch`` fetches the failed task and shows that message, credentials masked.
"""

from __future__ import annotations

from typing import Final

import pytest
from a2a.types import TaskState
from cli_support import EndsInAgent, run_cli

from a2a_progress.cli.errors import ExitCode
from a2a_progress.serving import serve_agent
from support.scripted import ScriptedAgent, raise_, thinking

SECRET: Final = "hunter2-Correct-Horse"
CRASH: Final = f"payments-db refused the connection (password={SECRET})"


class CrashingAgent(ScriptedAgent):
    """Thinks, then its executor raises outside any tool with ``message``."""

    def __init__(self, message: str = CRASH) -> None:
        super().__init__([thinking("checking the database"), raise_(RuntimeError(message))])


@pytest.mark.parametrize("transport", ["jsonrpc", "grpc"])
async def test_watch_shows_why_the_turn_failed_redacted(
    monkeypatch: pytest.MonkeyPatch, transport: str
) -> None:
    async with serve_agent(CrashingAgent()) as served:
        url = served.http_url
        plain = await run_cli(monkeypatch, "watch", url, "go", "--transport", transport)
        json = await run_cli(monkeypatch, "watch", url, "go", "--transport", transport, "--json")

    plain.assert_one_line_error(ExitCode.FAILED, "failed: payments-db refused the connection")
    assert "outcome: failed" in plain.stdout
    [error_line] = [line for line in plain.stdout.splitlines() if line.startswith("error: ")]
    assert error_line.startswith("error: payments-db refused the connection (password=")
    outcome = json.json_lines()[-1]
    assert outcome["type"] == "outcome"
    assert outcome["state"] == "failed"
    assert outcome["reply"] == ""
    assert outcome["error"].startswith("payments-db refused the connection (password=")
    for result in (plain, json):
        assert SECRET not in result.stdout + result.stderr


async def test_over_rest_a2a_sdk_sends_no_message_and_watch_says_what_it_got(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with serve_agent(CrashingAgent()) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "go", "--transport", "rest")
    result.assert_one_line_error(ExitCode.FAILED, "failed: unknown exception")
    assert "error: unknown exception" in result.stdout


async def test_a_long_error_is_cut_at_512_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serve_agent(CrashingAgent("x" * 5000)) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "go", "--json")
    assert result.json_lines()[-1]["error"] == "x" * 512 + "…"


async def test_a_failed_status_message_is_the_error(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serve_agent(EndsInAgent(TaskState.TASK_STATE_FAILED)) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "go", "--json")
    outcome = result.json_lines()[-1]
    assert outcome["reply"] == outcome["error"] == EndsInAgent.REASON


async def test_a_completed_turn_has_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serve_agent(EndsInAgent(TaskState.TASK_STATE_COMPLETED)) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "go", "--json")
    assert result.json_lines()[-1]["error"] is None
