"""``watch --json`` against the real demo callee, over every transport: the stable schema."""

import pytest
from cli_support import closed_port, run_cli

from a2a_progress.cli.demo.agent import FINAL_ANSWER, DemoAgentExecutor
from a2a_progress.cli.demo.auditor import AUDITOR_ANSWER, AuditorAgentExecutor
from a2a_progress.serving import TRANSPORTS, Transport, serve_agent

PROGRESS_KEYS = {
    "v",
    "type",
    "task_id",
    "context_id",
    "kind",
    "seq",
    "stream_key",
    "status",
    "content",
    "tool",
    "tool_call_id",
    "reason",
    "text",
    "degraded",
    "rejected",
    "late",
    "opened",
    "call",
    "closed",
    "replayed",
    "dialect",
    "time",
}
CALL_KEYS = {
    "index",
    "tool",
    "tool_call_id",
    "stream_key",
    "state",
    "end_reason",
    "started_at",
    "ended_at",
    "duration",
    "replayed",
    "dialect",
}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_watch_json_reports_every_block_and_the_outcome(
    monkeypatch: pytest.MonkeyPatch, transport: Transport
) -> None:
    async with serve_agent(DemoAgentExecutor(pace=0), name="deploy-investigator") as served:
        result = await run_cli(
            monkeypatch, "watch", served.http_url, "why?", "--json", "--transport", transport
        )
    assert result.code == 0, result.stderr
    assert result.stderr == ""
    objects = result.json_lines()
    *progress, outcome = objects
    assert all(obj["v"] == 1 and obj["type"] == "progress" for obj in progress)
    assert all(set(obj) == PROGRESS_KEYS for obj in progress)
    assert len({obj["task_id"] for obj in objects}) == 1

    seqs = [obj["seq"] for obj in progress]
    assert seqs == sorted(set(seqs))
    assert not any(obj["degraded"] or obj["late"] for obj in progress)
    kinds = {obj["kind"] for obj in progress}
    assert kinds == {"thinking", "tool_call", "tool_output_append", "text", "error"}

    opened = [obj["call"] for obj in progress if obj["opened"]]
    assert all(set(call) == CALL_KEYS for call in opened)
    assert [call["tool"] for call in opened] == [
        "get_deploy_status",
        "search_logs",
        "query_metrics",
        "run_smoke_tests",
        "diff_config",
    ]
    closed = {call["tool"]: call for obj in progress for call in obj["closed"]}
    assert closed["query_metrics"]["state"] == "aborted"
    assert closed["query_metrics"]["end_reason"] == "aborted"
    assert all(closed[tool]["state"] == "done" for tool in closed if tool != "query_metrics")
    aborted = next(obj for obj in progress if obj["status"] == "aborted")
    assert aborted["reason"] == "metrics backend timed out after 1.0s"

    output = [obj for obj in progress if obj["kind"] == "tool_output_append"]
    assert {obj["tool"] for obj in output} == {"run_smoke_tests"}
    assert all(obj["call"]["tool"] == "run_smoke_tests" for obj in output)
    assert "test_authorize FAILED" in "".join(obj["content"] for obj in output)

    assert outcome["type"] == "outcome"
    assert outcome["state"] == "completed"
    assert outcome["terminal"] is True
    assert outcome["reply"] == FINAL_ANSWER
    assert outcome["exit_code"] == 0


async def test_the_callee_goes_on_when_the_agent_it_consults_is_down(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    down = f"http://127.0.0.1:{closed_port()}"
    async with serve_agent(DemoAgentExecutor(pace=0, consult=down)) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "why?", "--json")
    assert result.code == 0, result.stderr
    *progress, outcome = result.json_lines()
    errors = [obj["content"] for obj in progress if obj["kind"] == "error"]
    assert errors[-1].startswith(f"change-auditor did not answer: cannot reach {down}")
    diff = [obj for obj in progress if obj["tool"] == "diff_config" and obj["status"] == "done"]
    assert len(diff) == 1
    assert outcome["reply"] == FINAL_ANSWER


async def test_the_callee_relays_what_the_consulted_agent_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with (
        serve_agent(AuditorAgentExecutor(pace=0), name="change-auditor") as auditor,
        serve_agent(DemoAgentExecutor(pace=0, consult=auditor.http_url)) as served,
    ):
        result = await run_cli(monkeypatch, "watch", served.http_url, "why?", "--json")
    assert result.code == 0, result.stderr
    texts = [obj["content"] for obj in result.progress() if obj["kind"] == "text"]
    assert f"change-auditor: {AUDITOR_ANSWER}" in texts
