"""``watch`` shows whether the agent declares the progress extension, and requests it."""

import pytest
from cli_support import run_cli, web_server
from google.protobuf.json_format import MessageToJson

from a2a_progress.extension import progress_extension, progress_extension_requested
from a2a_progress.serving import serve_agent
from support.scripted import ScriptedAgent, Turn


async def reply_whether_requested(turn: Turn) -> None:
    """The scripted agent's one step: reply whether the caller requested the extension."""
    await turn.progress.complete(f"requested={progress_extension_requested(turn.context)}")


@pytest.mark.parametrize("declared", [True, False])
async def test_watch_shows_the_declaration_and_requests_the_extension(
    monkeypatch: pytest.MonkeyPatch, declared: bool
) -> None:
    async with serve_agent(ScriptedAgent([reply_whether_requested]), name="probe") as served:
        card = served.card_for("jsonrpc")
        if declared:
            card.capabilities.extensions.append(progress_extension())
        # The card is given by its own URL (a .json file), as a user may point watch at one.
        with web_server({"/card.json": ("application/json", MessageToJson(card).encode())}) as url:
            plain = await run_cli(monkeypatch, "watch", f"{url}/card.json", "hi")
            as_json = await run_cli(monkeypatch, "watch", f"{url}/card.json", "hi", "--json")
    word = "declared" if declared else "not declared"
    assert plain.code == 0, plain.stderr
    assert plain.stdout.splitlines()[0].endswith(f"(progress extension: {word})")
    assert "  requested=True" in plain.stdout.splitlines()
    outcome = as_json.json_lines()[-1]
    assert outcome["progress_extension"] is declared
    assert outcome["reply"] == "requested=True"
