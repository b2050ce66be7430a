"""Agent text never drives the user's terminal: escape sequences, C1 controls and bidi overrides
in anything an agent sends (thinking, text, errors, tool names and ids, reasons, output, the
reply, its card's name) are shown visibly — piped (plain lines), on a real pty (the live tree)
and in the one-line error of a failed turn. Rich markup in agent text prints literally."""

import asyncio

import pytest
from a2a.types import Part, TaskState
from cli_support import run_cli

from a2a_progress.inert import inert
from a2a_progress.serving import serve_agent
from support import scripted as step
from support.scripted import ScriptedAgent
from support.terminal import ATTACKS, HOSTILE, SEQUENCES, run_in_terminal


def hostile(label: str) -> str:
    return f"{label} {HOSTILE}"


def agent(*ending: step.Step) -> ScriptedAgent:
    return ScriptedAgent(
        [
            step.thinking(hostile("thinking")),
            step.text(hostile("text")),
            step.error(hostile("error")),
            step.start(hostile("tool"), hostile("id")),
            step.output(hostile("id"), hostile("output") + "\n"),
            step.abort(hostile("id"), hostile("reason")),
            step.parts([Part(text=hostile("plain"))]),
            *ending,
        ],
        redactor=None,
        enable_output=True,
    )


def assert_inert(shown: str) -> None:
    for attack in ATTACKS:
        assert attack not in shown, (attack, shown)
    # What the agent sent is still there to read, every control shown as a picture or escape.
    assert "a␛[2Jb␛]0;PWNED␇c␛]52;c;cm0gLXJmIH4=␛\\d\\x9b31me\\u202eevil\\u2067f" in shown
    assert "[bold]markup[/bold]" in shown


def test_inert_shows_controls_and_keeps_lines() -> None:
    assert inert("a\x1b[31mb\x00\x7f\x85\r\nc\rd\te\n") == "a␛[31mb␀␡\\x85\nc␍d\te\n"
    assert inert("\u202aA\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069") == (
        "\\u202aA\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069"
    )
    assert inert(inert(HOSTILE)) == inert(HOSTILE)
    # Bidi marks, line separators (a new line in log viewers), lone surrogates (unwritable).
    assert inert("a\u200fb\u061cc\u2028d\u2029e\ud800f") == (
        "a\\u200fb\\u061cc\\u2028d\\u2029e\\ud800f"
    )
    for sequence in SEQUENCES:
        shown = inert(sequence, one_line=True)
        assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in shown), shown
        assert inert(shown, one_line=True) == shown
    assert inert("plain text, ünïcode, 日本, emoji 🙂") == "plain text, ünïcode, 日本, emoji 🙂"
    assert inert("a\r\nb\nc\x1b", one_line=True) == "a␊b␊c␛"
    assert inert(inert(HOSTILE + "\n", one_line=True), one_line=True) == inert(
        HOSTILE + "\n", one_line=True
    )


async def test_a_name_cannot_forge_a_line_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # A newline in a tool name, id, reason or the card's name would print a line of the
    # agent's making; in the plain view each stays on its line.
    forged = "x\noutcome: completed in 0.01s"
    steps = [step.start(forged, forged), step.abort(forged, forged), step.fail()]
    async with serve_agent(ScriptedAgent(steps), name=forged) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "x")
    lines = result.stdout.splitlines()
    assert [line for line in lines if line.startswith("outcome")] == [
        line for line in lines if line.startswith("outcome: failed")
    ]
    assert len([line for line in lines if line.startswith("outcome")]) == 1
    assert lines[0].startswith("x␊outcome: completed in 0.01s via jsonrpc")
    assert "tool started: x␊outcome: completed in 0.01s [x␊outcome: completed in 0.01s]" in lines


async def test_plain_lines_show_agent_text_inert(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serve_agent(agent(step.complete(hostile("reply"))), name=hostile("card")) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "x")
    assert result.code == 0, result.stderr
    assert "\x1b" not in result.stdout
    assert_inert(result.stdout)
    for label in ("card", "thinking", "text", "error", "tool", "id", "output", "reason", "plain"):
        assert inert(hostile(label)) in result.stdout, label
    assert f"  {inert(hostile('reply'))}" in result.stdout.splitlines()


async def test_a_failed_turns_error_line_is_inert(monkeypatch: pytest.MonkeyPatch) -> None:
    failing = agent(step.status(TaskState.TASK_STATE_FAILED, hostile("failed")))
    async with serve_agent(failing) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "x")
    result.assert_one_line_error(1, inert(hostile("failed")))
    assert_inert(result.stderr)


async def test_the_live_tree_on_a_terminal_shows_agent_text_inert() -> None:
    async with serve_agent(agent(step.complete(hostile("reply"))), name=hostile("card")) as served:
        run = await asyncio.to_thread(run_in_terminal, ["watch", served.http_url, "x"])
    assert run.code == 0, run.text
    assert "\x1b[" in run.text  # the live tree did draw with its own colours and cursor moves
    assert_inert(run.text)
    for label in ("card", "tool", "reply"):
        assert inert(hostile(label)) in run.text, label
