"""``watch --subscribe TASK_ID``: attach to a task that is already running."""

import pytest
from cli_support import GatedAgent, RunningCli, run_cli, start_task

from a2a_progress.serving import serve_agent


async def test_subscribe_follows_a_running_task_to_its_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = GatedAgent()
    async with serve_agent(agent) as served:
        task_id = await start_task(served.card_for("jsonrpc"))
        await agent.reached.wait()
        cli = RunningCli(monkeypatch, ["watch", served.http_url, "--subscribe", task_id, "--json"])
        # The subscription's first event is the task snapshot, carrying the current update.
        await cli.wait_for_stdout(GatedAgent.BEFORE)
        agent.release.set()
        result = await cli.result()
    assert result.code == 0, result.stderr
    *progress, outcome = result.json_lines()
    assert [obj["content"] for obj in progress if obj["kind"] == "text"] == [
        GatedAgent.BEFORE,
        GatedAgent.AFTER,
    ]
    opened = [obj["call"]["tool"] for obj in progress if obj["opened"]]
    assert opened == ["after_gate"]
    assert {obj["task_id"] for obj in progress} == {task_id}
    assert (outcome["state"], outcome["reply"]) == ("completed", GatedAgent.REPLY)


async def test_subscribe_to_a_finished_task_shows_its_final_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = GatedAgent()
    agent.release.set()
    async with serve_agent(agent) as served:
        task_id = await start_task(served.card_for("jsonrpc"))
        # Polling the finished task is the synchronisation; watch then meets a refused
        # subscription and falls back to the task's final state.
        poll = await run_cli(monkeypatch, "watch", served.http_url, "--poll", task_id, "--json")
        assert poll.code == 0, poll.stderr
        result = await run_cli(monkeypatch, "watch", served.http_url, "--subscribe", task_id)
    assert result.code == 0, result.stderr
    assert "outcome: completed" in result.stdout
    assert f"  {GatedAgent.REPLY}" in result.stdout.splitlines()


async def test_an_attached_turn_does_not_claim_to_know_how_long_it_ran(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The task ran before we attached: the time we watched is not the turn's duration.
    agent = GatedAgent()
    async with serve_agent(agent) as served:
        task_id = await start_task(served.card_for("jsonrpc"))
        await agent.reached.wait()
        cli = RunningCli(monkeypatch, ["watch", served.http_url, "--subscribe", task_id])
        await cli.wait_for_stdout(GatedAgent.BEFORE)
        agent.release.set()
        result = await cli.result()
    assert result.code == 0, result.stderr
    [summary] = [line for line in result.stdout.splitlines() if line.startswith("outcome: ")]
    assert summary.startswith("outcome: completed (attached: watched for ")
    assert " in " not in summary
