"""``watch --poll``: the coarse replay channel, from the task's GetTask history."""

import pytest
from cli_support import ANSI, GatedAgent, PlainTextAgent, RunningCli, run_cli, start_task

from a2a_progress.serving import serve_agent


async def test_poll_replays_a_running_task_from_its_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = GatedAgent()
    async with serve_agent(agent) as served:
        task_id = await start_task(served.card_for("rest"))
        await agent.reached.wait()
        cli = RunningCli(
            monkeypatch,
            ["watch", served.http_url, "--poll", task_id, "--interval", "0.05", "--json"],
        )
        await cli.wait_for_stdout(GatedAgent.BEFORE)
        agent.release.set()
        result = await cli.result()
    assert result.code == 0, result.stderr
    *progress, outcome = result.json_lines()
    texts = [obj["content"] for obj in progress if obj["kind"] == "text"]
    assert texts == [GatedAgent.BEFORE, GatedAgent.AFTER]
    assert (outcome["state"], outcome["reply"]) == ("completed", GatedAgent.REPLY)


async def test_poll_without_task_id_sends_then_polls_an_agent_that_does_not_stream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with serve_agent(PlainTextAgent(), streaming=False) as served:
        result = await run_cli(
            monkeypatch, "watch", served.http_url, "fix it", "--poll", "--interval", "0.05"
        )
    assert result.code == 0, result.stderr
    assert not ANSI.search(result.stdout)
    lines = result.stdout.splitlines()
    assert "(polling)" in lines[0]
    assert lines[-1] == f"  {PlainTextAgent.REPLY}"
