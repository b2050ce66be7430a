"""``watch`` against a plain a2a-sdk agent that sends no envelopes: its text still shows."""

import pytest
from cli_support import ANSI, PlainTextAgent, run_cli

from a2a_progress.serving import serve_agent


async def test_json_marks_text_updates_degraded(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serve_agent(PlainTextAgent()) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "fix it", "--json")
    assert result.code == 0, result.stderr
    *progress, outcome = result.json_lines()
    assert [(obj["kind"], obj["content"], obj["text"]) for obj in progress] == [
        ("text", text, text) for text in PlainTextAgent.UPDATES
    ]
    assert all(obj["degraded"] and obj["rejected"] is None for obj in progress)
    assert all(obj["seq"] == 0 and obj["call"] is None for obj in progress)
    assert outcome["state"] == "completed"
    assert outcome["reply"] == PlainTextAgent.REPLY


async def test_live_view_prints_the_plain_updates(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serve_agent(PlainTextAgent(), name="legacy-agent") as served:
        # The URL may also be the agent card's own.
        card_url = f"{served.http_url}/.well-known/agent-card.json"
        result = await run_cli(monkeypatch, "watch", card_url, "fix it")
    assert result.code == 0, result.stderr
    assert not ANSI.search(result.stdout)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("legacy-agent via jsonrpc 1.0 http://127.0.0.1:")
    assert [line for line in lines if line.startswith("status: ")] == [
        f"status: {text}" for text in PlainTextAgent.UPDATES
    ]
    assert lines[-2:] == ["answer:", f"  {PlainTextAgent.REPLY}"]
    assert lines[-3].startswith("outcome: completed in ")
