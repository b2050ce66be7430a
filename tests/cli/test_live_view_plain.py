"""The live view anywhere but a terminal: one plain line per update, no ANSI codes."""

import io

from a2a.types import TaskState
from cli_support import ANSI, THINKING_LINE, ScriptedTurn
from rich.console import Console

from a2a_progress.cli.live_view import LiveView
from support.clock import FakeClock


def test_plain_lines_one_per_update() -> None:
    clock = FakeClock()
    out = io.StringIO()
    with LiveView(Console(file=out, width=40), clock=clock) as view:
        assert view.plain
        turn = ScriptedTurn(view, clock)
        turn.run_until_smoke_tests()
        turn.end(TaskState.TASK_STATE_COMPLETED, "It was the config.\nRevert it.", after=0.5)
    text = out.getvalue()
    assert not ANSI.search(text)
    # Lines are never wrapped at the console width: each update stays one greppable line.
    assert text.splitlines() == [
        "task: task-1",
        f"thinking: {THINKING_LINE} (+1 more line)",
        "tool started: get_deploy_status [call-1]",
        "tool done: get_deploy_status [call-1] 500ms",
        "tool started: query_metrics [call-3]",
        "tool aborted: query_metrics [call-3] 1.00s: backend timed out",
        "error: metrics unavailable",
        "status: legacy status line",
        "tool started: run_smoke_tests [call-4]",
        "output run_smoke_tests: one",
        "output run_smoke_tests: two",
        "output run_smoke_tests: three",
        "output run_smoke_tests: four",
        "output run_smoke_tests: five",
        "progress: Comparing configs.",
        "tool done: run_smoke_tests [call-4] 2.00s",
        "outcome: completed in 3.60s  ·  3 tool calls, 1 aborted",
        "answer:",
        "  It was the config.",
        "  Revert it.",
    ]


def test_stream_that_ends_early_says_so() -> None:
    clock = FakeClock()
    out = io.StringIO()
    view = LiveView(Console(file=out), clock=clock)
    turn = ScriptedTurn(view, clock)
    turn.run_until_smoke_tests()
    for outcome in turn.close_stream():
        view.update(outcome)
    lines = out.getvalue().splitlines()
    assert lines[-2] == "tool aborted: run_smoke_tests [call-4] 1.50s: stream closed"
    assert lines[-1] == (
        "outcome: stream ended before the task did (last state: working) after 3.10s"
    )
