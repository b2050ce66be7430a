"""``a2a-progress cancel URL TASK_ID``, and the Ctrl-C that leads a user to it."""

import re
import shlex
import signal

import pytest
from a2a.types import GetTaskRequest, TaskState
from cli_support import GatedAgent, HangingToolAgent, RunningCli, run_cli, start_task

from a2a_progress.cli.errors import ExitCode
from a2a_progress.serving import TRANSPORTS, Transport, create_client, serve_agent
from support.processes import cli_process, without_otel


async def task_state(card: object, task_id: str) -> int:
    async with create_client(card) as client:  # type: ignore[arg-type]
        return int((await client.get_task(GetTaskRequest(id=task_id))).status.state)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_cancel_a_running_task(monkeypatch: pytest.MonkeyPatch, transport: Transport) -> None:
    agent = HangingToolAgent()
    async with serve_agent(agent) as served:
        task_id = await start_task(served.card_for("jsonrpc"))
        await agent.running.wait()
        result = await run_cli(
            monkeypatch, "cancel", served.http_url, task_id, "--transport", transport
        )
        state = await task_state(served.card_for("jsonrpc"), task_id)
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout == f"task {task_id} canceled\n"
    assert state == TaskState.TASK_STATE_CANCELED


async def test_cancel_twice_is_still_canceled(monkeypatch: pytest.MonkeyPatch) -> None:
    agent = HangingToolAgent()
    async with serve_agent(agent) as served:
        task_id = await start_task(served.card_for("jsonrpc"))
        await agent.running.wait()
        first = await run_cli(monkeypatch, "cancel", served.http_url, task_id)
        second = await run_cli(monkeypatch, "cancel", served.http_url, task_id)
    assert first.code == 0, first.stderr
    assert (second.code, second.stderr) == (0, "")
    assert second.stdout == f"task {task_id} was already canceled\n"


async def test_cancel_a_finished_task_says_it_had_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    agent = GatedAgent()
    agent.release.set()
    async with serve_agent(agent) as served:
        task_id = await start_task(served.card_for("jsonrpc"))
        # Waiting for the turn to end: follow it to its outcome.
        done = await run_cli(monkeypatch, "watch", served.http_url, "--poll", task_id, "--json")
        assert done.code == 0, done.stderr
        result = await run_cli(monkeypatch, "cancel", served.http_url, task_id)
    result.assert_one_line_error(
        ExitCode.ENDED, f"task {task_id} had already ended (completed)", "nothing to cancel"
    )


async def test_cancel_an_unknown_task(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serve_agent(GatedAgent()) as served:
        result = await run_cli(monkeypatch, "cancel", served.http_url, "no-such-task")
    result.assert_one_line_error(ExitCode.UNSUPPORTED, "no task 'no-such-task'")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_agent_that_cannot_cancel_says_so_without_raw_text(
    monkeypatch: pytest.MonkeyPatch, transport: Transport
) -> None:
    agent = GatedAgent()  # its cancel() raises NotImplementedError
    async with serve_agent(agent) as served:
        task_id = await start_task(served.card_for("jsonrpc"))
        await agent.reached.wait()
        result = await run_cli(
            monkeypatch, "cancel", served.http_url, task_id, "--transport", transport
        )
        agent.release.set()
    result.assert_one_line_error(ExitCode.UNSUPPORTED, f"the agent at {served.http_url} failed")
    for raw in ("mozilla", "NotImplementedError", "HTTP Error", "For more information"):
        assert raw not in result.stderr


async def test_empty_task_id_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    result = await run_cli(monkeypatch, "cancel", "http://127.0.0.1:1", " ")
    result.assert_one_line_error(ExitCode.USAGE, "TASK_ID is empty")


async def test_ctrl_c_prints_the_commands_to_follow_or_cancel_the_task(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = HangingToolAgent()
    async with (
        serve_agent(agent) as served,
        cli_process(
            *("watch", served.http_url, "run the job", "--header", "Authorization=Bearer s3cr3t"),
            env=without_otel(),
        ) as watch,
    ):
        await watch.wait_for(
            lambda lines: any(x.startswith("tool started: long_job") for x in lines)
        )
        code, err = await watch.stop(signal.SIGINT)
        assert code == ExitCode.INTERRUPTED, err
        [message] = err.decode().splitlines()
        assert "s3cr3t" not in message
        assert message.startswith("a2a-progress: interrupted: task ")
        assert "may still be running on the agent" in message
        follow, cancel = re.findall(r"`([^`]+)`", message)
        task_id = message.split("interrupted: task ", 1)[1].split(" ", 1)[0]
        assert follow == (
            f"a2a-progress watch {served.http_url} --subscribe {task_id} --header Authorization=..."
        )
        assert (
            cancel == f"a2a-progress cancel {served.http_url} {task_id} --header Authorization=..."
        )
        # The printed command works (with the header's value typed again).
        argv = shlex.split(cancel)[1:]
        argv[argv.index("Authorization=...")] = "Authorization=Bearer s3cr3t"
        result = await RunningCli(monkeypatch, argv).result()
        assert (result.code, result.stdout) == (0, f"task {task_id} canceled\n")
