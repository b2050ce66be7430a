"""The live view in a terminal: a rich tree with spinners, ✓/✗, durations and output tails."""

import io

from a2a.types import TaskState
from cli_support import ScriptedTurn
from rich.console import Console

from a2a_progress.cli.live_view import LiveView
from support.clock import FakeClock

SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"  # rich's "dots" spinner


def terminal() -> Console:
    return Console(file=io.StringIO(), record=True, width=100, force_terminal=True)


def rendered(view: LiveView, console: Console) -> list[str]:
    console.print(view.renderable())
    return console.export_text(clear=True).splitlines()


def test_running_frame_shows_spinner_durations_and_output_tail() -> None:
    clock = FakeClock()
    console = terminal()
    view = LiveView(console, title="deploy-investigator", tail=3, clock=clock)
    assert not view.plain
    ScriptedTurn(view, clock).run_until_smoke_tests()
    clock.now += 0.5
    lines = rendered(view, console)
    assert lines[0] == "deploy-investigator  task task-1"
    # Thinking is collapsed to one line: its first line, cut to fit, and how much is hidden.
    assert len(lines[1]) == 100
    assert lines[1].startswith("├── thinking Find the stage where the deploy failed, then")
    assert lines[1].endswith("… (+1 more line)")
    assert lines[2] == "├── ✓ get_deploy_status  call-1  500ms"
    assert lines[3] == "├── ✗ query_metrics  call-3  1.00s  backend timed out"
    assert lines[4] == "├── ! metrics unavailable"
    assert lines[5] == "├── ▸ legacy status line"
    spinner, running = lines[6].removeprefix("├── ").split(" ", 1)
    assert spinner in SPINNER_FRAMES
    assert running == "run_smoke_tests  call-4  2.00s"
    assert [line[4:].strip() for line in lines[7:11]] == [
        "└── … 2 earlier lines",
        "three",
        "four",
        "five",
    ]
    assert lines[11] == "└── ▸ Comparing configs."
    spinner, status = lines[12].split(" ", 1)
    assert spinner in SPINNER_FRAMES
    assert status == "working  3.60s  ·  1 tool call running"


def test_final_frame_ends_open_calls_and_shows_the_answer() -> None:
    clock = FakeClock()
    console = terminal()
    with LiveView(console, title="deploy-investigator", tail=3, clock=clock) as view:
        turn = ScriptedTurn(view, clock)
        turn.run_until_smoke_tests()
        turn.end(TaskState.TASK_STATE_COMPLETED, "It was the config.", after=0.5)
    # Live leaves its last frame on screen, then the answer panel follows it.
    text = console.export_text()
    final = text[text.rindex("deploy-investigator  task task-1") :].splitlines()
    assert "├── ✓ run_smoke_tests  call-4  2.00s" in final
    assert not any(frame in line for line in final for frame in SPINNER_FRAMES)
    status = final.index("✓ completed in 3.60s  ·  3 tool calls, 1 aborted")
    panel = final[status + 1 :]
    assert "answer" in panel[0]
    assert "It was the config." in panel[1]


def test_failed_turn_shows_a_cross_and_the_reason() -> None:
    clock = FakeClock()
    console = terminal()
    view = LiveView(console, title="agent", clock=clock)
    turn = ScriptedTurn(view, clock)
    turn.run_until_smoke_tests()
    turn.end(TaskState.TASK_STATE_FAILED, "disk full", after=1.0)
    lines = rendered(view, console)
    assert "├── ✗ run_smoke_tests  call-4  2.50s  turn failed" in lines
    assert lines[-1] == "✗ failed in 4.10s  ·  3 tool calls, 2 aborted"
