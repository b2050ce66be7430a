"""Replays that tell the truth: a finished task's history has no times, so its durations are
unknown (``?`` / null), never ``0.00s``; live turns show the durations the agent recorded."""

import pytest
from cli_support import SlowToolAgent, run_cli, start_task

from a2a_progress.serving import serve_agent


async def finished_task(served: object) -> str:
    task_id = await start_task(served.card_for("jsonrpc"))  # type: ignore[attr-defined]
    return task_id


@pytest.mark.parametrize("how", ["--subscribe", "--poll"])
async def test_attaching_to_a_finished_task_replays_it_without_made_up_times(
    monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    async with serve_agent(SlowToolAgent()) as served:
        task_id = await finished_task(served)
        # The JSON run waits for the end (polling); then the task has ended for sure.
        live = await run_cli(monkeypatch, "watch", served.http_url, "--poll", task_id, "--json")
        assert live.code == 0, live.stderr
        plain = await run_cli(monkeypatch, "watch", served.http_url, how, task_id)
        json_run = await run_cli(monkeypatch, "watch", served.http_url, how, task_id, "--json")
    assert plain.code == 0, plain.stderr
    lines = plain.stdout.splitlines()
    assert f"task {task_id} already completed; replaying its history" in lines[0]
    assert "subscribing to task" not in plain.stdout
    assert "tool done: slow_tool [call-1] ?" in lines
    assert "0.00s" not in plain.stdout
    assert any(
        line.startswith("outcome: completed (replayed from its history; duration unknown)")
        for line in lines
    )

    assert json_run.code == 0, json_run.stderr
    *progress, outcome = json_run.json_lines()
    assert progress
    assert all(obj["replayed"] for obj in progress)
    calls = [call for obj in progress for call in obj["closed"]]
    assert [call["tool"] for call in calls] == ["slow_tool"]
    assert calls[0]["duration"] is None
    assert calls[0]["replayed"] is True
    assert (outcome["replayed"], outcome["duration"], outcome["state"]) == (True, None, "completed")


async def test_a_live_turn_shows_the_durations_the_agent_recorded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with serve_agent(SlowToolAgent()) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "go", "--json")
        plain = await run_cli(monkeypatch, "watch", served.http_url, "go")
    assert result.code == 0, result.stderr
    *progress, outcome = result.json_lines()
    assert not any(obj["replayed"] for obj in progress)
    [call] = [call for obj in progress for call in obj["closed"]]
    assert call["started_at"] is not None
    assert call["ended_at"] is not None
    # The tool slept SECONDS between its running and done updates, stamped by the agent.
    assert call["duration"] >= SlowToolAgent.SECONDS
    assert outcome["replayed"] is False
    assert outcome["duration"] >= call["duration"]
    tool_done = next(line for line in plain.stdout.splitlines() if line.startswith("tool done"))
    assert not tool_done.endswith((" ?", " 0.00s"))
