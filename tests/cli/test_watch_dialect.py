"""``watch`` says when an update was read from another agent dialect (here ADK's own parts)
rather than from a progress envelope: ``"dialect"`` in ``--json``, ``[adk]`` in the views."""

import io

import pytest
from cli_support import run_cli
from rich.console import Console

from a2a_progress import follow
from a2a_progress.cli.live_view import LiveView
from a2a_progress.serving import create_client, serve_agent, user_message
from support.clock import FakeClock
from support.dialect_agents import AdkPartsAgent, EnvelopeAgent


async def test_json_names_the_dialect_of_each_update_and_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with serve_agent(AdkPartsAgent()) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "why?", "--json")
    async with serve_agent(EnvelopeAgent()) as served:
        ours = await run_cli(monkeypatch, "watch", served.http_url, "why?", "--json")
    assert result.code == 0, result.stderr
    progress = result.progress()
    assert [(obj["kind"], obj["dialect"]) for obj in progress] == [
        ("thinking", "adk"),
        ("tool_call", "adk"),
        ("tool_call", "adk"),
        ("tool_call", "adk"),
        ("tool_call", "adk"),
    ]
    calls = [obj["call"] for obj in progress if obj["call"] is not None]
    assert {(call["tool_call_id"], call["dialect"]) for call in calls} == {
        ("adk-1", "adk"),
        ("adk-2", "adk"),
    }
    assert ours.code == 0, ours.stderr
    assert [obj["dialect"] for obj in ours.progress()] == [None, None, None]
    assert [obj["call"]["dialect"] for obj in ours.progress() if obj["call"]] == [None, None]


async def test_plain_lines_mark_what_a_dialect_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serve_agent(AdkPartsAgent()) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "why?")
    async with serve_agent(EnvelopeAgent()) as served:
        ours = await run_cli(monkeypatch, "watch", served.http_url, "why?")
    assert result.code == 0, result.stderr
    assert "[adk]" not in ours.stdout
    assert "thinking: Reading the request." in ours.stdout.splitlines()
    assert "tool started: ci_status [env-1]" in ours.stdout.splitlines()
    lines = result.stdout.splitlines()
    assert "thinking [adk]: Check CI first, then the deploy log." in lines
    assert "tool started: ci_status [adk-1] [adk]" in lines
    assert any(line.startswith("tool done: ci_status [adk-1] [adk] ") for line in lines)
    aborted = [line for line in lines if line.startswith("tool aborted: deploy_log [adk-2] [adk]")]
    assert len(aborted) == 1
    assert aborted[0].endswith(": log store offline")


async def test_the_live_tree_marks_what_a_dialect_reported() -> None:
    console = Console(file=io.StringIO(), record=True, width=100, force_terminal=True)
    view = LiveView(console, title="adk-agent", clock=FakeClock())
    async with (
        serve_agent(AdkPartsAgent()) as served,
        create_client(served.card_for("jsonrpc")) as client,
    ):
        async for item in follow(client.send_message(user_message("why?"))):
            view.update(item)
    console.print(view.renderable())
    lines = console.export_text().splitlines()
    assert "├── thinking Check CI first, then the deploy log. [adk]" in lines
    assert any(line.startswith("├── ✓ ci_status  adk-1 [adk]  ") for line in lines), lines
    assert any(line.startswith("└── ✗ deploy_log  adk-2 [adk]  ") for line in lines), lines
