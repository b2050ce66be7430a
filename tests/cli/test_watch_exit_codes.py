"""``watch`` exit codes: 0 only for a completed task, a distinct code for every other end."""

import pytest
from a2a.types import CancelTaskRequest, TaskState
from cli_support import EndsInAgent, HangingToolAgent, RaisingAgent, RunningCli, run_cli

from a2a_progress.cli.errors import ExitCode
from a2a_progress.serving import create_client, serve_agent


@pytest.mark.parametrize(
    ("state", "code", "label"),
    [
        (TaskState.TASK_STATE_COMPLETED, ExitCode.COMPLETED, "completed"),
        (TaskState.TASK_STATE_FAILED, ExitCode.FAILED, "failed"),
        (TaskState.TASK_STATE_REJECTED, ExitCode.REJECTED, "rejected"),
        (TaskState.TASK_STATE_INPUT_REQUIRED, ExitCode.NEEDS_INPUT, "input_required"),
    ],
)
async def test_exit_code_follows_the_final_state(
    monkeypatch: pytest.MonkeyPatch, state: int, code: int, label: str
) -> None:
    async with serve_agent(EndsInAgent(state)) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "migrate", "--json")
    outcome = result.json_lines()[-1]
    assert outcome["state"] == label
    assert outcome["exit_code"] == code
    assert outcome["reply"] == EndsInAgent.REASON
    if code == ExitCode.COMPLETED:
        assert (result.code, result.stderr) == (0, "")
    else:
        result.assert_one_line_error(code, outcome["task_id"], EndsInAgent.REASON)


async def test_an_executor_that_raises_is_reported_failed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The stream breaks with an error instead of a FAILED event; watch asks the task's state.
    async with serve_agent(RaisingAgent()) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "go")
    result.assert_one_line_error(ExitCode.FAILED, "failed")
    assert "tool started: flaky_tool [call-1]" in result.stdout
    assert "tool aborted: flaky_tool [call-1]" in result.stdout
    assert "outcome: failed" in result.stdout


async def test_a_canceled_task_exits_3_and_its_open_call_ends_aborted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = HangingToolAgent()
    async with serve_agent(agent) as served:
        cli = RunningCli(monkeypatch, ["watch", served.http_url, "run the job", "--json"])
        await cli.wait_for_stdout('"tool": "long_job"')
        task_id = cli.stdout.text.split('"task_id": "', 1)[1].split('"', 1)[0]
        async with create_client(served.card_for("jsonrpc")) as client:
            await client.cancel_task(CancelTaskRequest(id=task_id))
        result = await cli.result()
    result.assert_one_line_error(ExitCode.CANCELED, task_id, "canceled")
    *progress, outcome = result.json_lines()
    ended = [call for obj in progress for call in obj["closed"]]
    assert [(call["tool"], call["state"]) for call in ended] == [("long_job", "aborted")]
    aborted = next(obj for obj in progress if obj["status"] == "aborted")
    assert aborted["reason"] == "turn canceled"
    assert outcome["state"] == "canceled"
    assert outcome["reply"] == "stopped by the test"
    assert outcome["exit_code"] == ExitCode.CANCELED
