"""Arguments: one-line usage errors (exit 2), and help that documents the exit codes."""

import subprocess
import sys

import pytest

from a2a_progress import __version__
from a2a_progress.cli import main
from a2a_progress.cli.errors import ExitCode


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["demo", "--every", "5"], "demo: error: --every needs --remote"),
        (["demo", "--remote", "http://x", "--every", "0"], "must be greater than 0"),
        (["watch", "http://x"], "watch: error: MESSAGE is required"),
        (["watch", "http://x", "hi", "--subscribe", "t"], "give MESSAGE or a TASK_ID"),
        (["watch", "http://x", "--subscribe", "t", "--poll", "t"], "not allowed with"),
        (["watch", "http://x", "hi", "--transport", "smtp"], "invalid choice"),
        (["watch", "http://x", "hi", "--web-port", "abc"], "--web-port: not a port number: 'abc'"),
        (["watch", "http://x", "hi", "--web-port", "70000"], "must be 0 to 65535, not 70000"),
        (["watch", "http://x", "hi", "--timeout", "soon"], "--timeout: not a number: 'soon'"),
        (["watch", "http://x", "hi", "--otlp", "http://[::1"], "--otlp: 'http://[::1' is not a"),
        (["watch", "http://x", "hi", "--otlp", "grpc://x:4317"], "is not an OTLP/HTTP URL"),
        (["demo", "--otlp", "http://x:99999"], "its port must be a number from 1 to 65535"),
        (["traces", "--http-port", "abc"], "--http-port: not a port number: 'abc'"),
        (["traces", "--quiet-period", "x"], "--quiet-period: not a number: 'x'"),
        # Bytes a non-UTF-8 terminal wrote reach Python as lone surrogates: nothing can send them.
        (["watch", "http://x", "caf\udce9"], "MESSAGE: is not valid UTF-8"),
        (["watch", "http://x", "--subscribe", "t\udcff"], "--subscribe: is not valid UTF-8"),
        (["watch", "http://x", "--poll", "t\udcff"], "--poll: is not valid UTF-8"),
        (["cancel", "http://x", "t\udcff"], "TASK_ID: is not valid UTF-8"),
        (["demo", "--message", "caf\udce9"], "--message: is not valid UTF-8"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_usage_errors_are_one_line(
    argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == ExitCode.USAGE
    out, err = capsys.readouterr()
    assert out == ""
    [line] = err.splitlines()
    assert fragment in line
    assert line.endswith("(see --help)")
    assert "invalid _" not in line  # never the name of a function of ours


@pytest.mark.parametrize("command", ["watch", "demo"])
def test_help_documents_every_exit_code(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    for code in ExitCode:
        assert f"\n  {int(code):<4} " in out, code


def test_non_http_url_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["watch", "localhost:9999", "hi"]) == ExitCode.USAGE
    assert capsys.readouterr().err == (
        "a2a-progress: 'localhost:9999' is not an http:// or https:// URL; "
        "did you mean http://localhost:9999?\n"
    )


def test_no_arguments_prints_the_help_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.startswith("usage: a2a-progress ")
    for command in ("demo", "watch", "cancel", "traces"):
        assert f"\n    {command} " in out, command


@pytest.mark.parametrize("module", ["a2a_progress", "a2a_progress.cli"])
def test_python_dash_m_is_the_command(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", module, "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, f"a2a-progress {__version__}\n")
    alone = subprocess.run(
        [sys.executable, "-m", module], capture_output=True, text=True, timeout=60, check=False
    )
    assert alone.returncode == 0
    assert alone.stdout.startswith("usage: a2a-progress ")
