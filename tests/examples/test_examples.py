"""The files in ``examples/`` run as a user runs them: real processes on loopback.

Each callee is started as ``python examples/<file>.py --port 0`` and found by the line it logs;
``caller.py`` asks it and must print exactly the progress and outcome the callee sends.
``zero_code.sh`` runs both under ``opentelemetry-instrument`` into the project's OTLP receiver.
The README's quick-start blocks are these files, byte for byte.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from google.protobuf.json_format import MessageToJson  # type: ignore[import-untyped]

from a2a_progress.otlp import OtlpReceiver, ReceivedSpan
from a2a_progress.serving import build_agent_card
from support.examples import (
    BIN,
    EXAMPLES,
    ROOT,
    TIMEOUT,
    environment,
    run_example,
    run_script,
    serving,
)
from support.listeners import web_server
from support.otlp import SDK_SCOPE, bridge_spans
from support.processes import python_path, refused_port, taken_port

CALLEE_OUTPUT: Final = """\
  1 thinking           running  The user wants the deploy status; check CI first.
  2 tool_call          running  Calling tool ci_status
  3 tool_call          done     Tool ci_status finished
  4 tool_call          running  Calling tool dashboard
  5 tool_call          aborted  Tool dashboard aborted: the dashboard timed out after 1s
  6 text               running  CI is red (2 failing tests)
completed: The deploy is blocked: CI is red (2 failing tests).
"""
HANDWRITTEN_OUTPUT: Final = """\
  1 thinking           running  Look the order up first.
  2 tool_call          running  Calling tool lookup_order
  3 tool_call          done     Tool lookup_order finished
  4 text               running  Order 42 shipped yesterday.
completed: Your order shipped yesterday.
"""


def ask(url: str, question: str) -> subprocess.CompletedProcess[str]:
    return run_example("caller.py", url, question)


def test_the_caller_prints_the_callees_progress_and_reply() -> None:
    with serving("callee.py") as url:
        done = ask(url, "Why is the deploy blocked?")
    assert done.returncode == 0, done.stderr
    assert done.stdout == CALLEE_OUTPUT


def test_the_callee_declares_the_progress_extension_that_watch_reports() -> None:
    with serving("callee.py") as url:
        watched = subprocess.run(
            [sys.executable, "-m", "a2a_progress.cli", "watch", url, "Why?"],
            env=environment(),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    assert watched.returncode == 0, watched.stderr
    assert "(progress extension: declared)" in watched.stdout.splitlines()[0]


def test_a_hand_written_callee_is_read_like_the_emitters() -> None:
    # Nothing degraded or late: the hand-made envelopes are valid, in order, each consumed once.
    with serving("handwritten_callee.py") as url:
        done = ask(url, "Where is my order?")
    assert done.returncode == 0, done.stderr
    assert done.stdout == HANDWRITTEN_OUTPUT


def _tools(spans: list[ReceivedSpan], service: str) -> list[ReceivedSpan]:
    ours = bridge_spans(spans)
    return [s for s in ours if s.service_name == service and s.name.startswith("execute_tool")]


def test_zero_code_script_makes_one_trace_of_two_services() -> None:
    with OtlpReceiver(grpc_port=None) as receiver:
        done = run_script(
            "zero_code.sh",
            "Why is the deploy blocked?",
            OTEL_EXPORTER_OTLP_ENDPOINT=receiver.http_endpoint,
        )
        assert done.stdout == CALLEE_OUTPUT
        # The script stops the callee on exit; it flushed its spans before it ended.
        spans = receiver.wait_for_spans(
            lambda spans: (
                len(_tools(spans, "research-agent")) == 2
                and any(s.service_name == "research-caller" for s in bridge_spans(spans))
            )
        )
    ci, dashboard = sorted(_tools(spans, "research-agent"), key=lambda span: span.name)
    assert ci.name == "execute_tool ci_status"
    assert ci.attributes["a2a.progress.end_reason"] == "done"
    assert dashboard.name == "execute_tool dashboard"
    assert dashboard.attributes["a2a.progress.end_reason"] == "aborted"
    assert dashboard.status_message == "the dashboard timed out after 1s"
    # Each call once: the caller makes no span of a call its (instrumented) callee records.
    assert _tools(spans, "research-caller") == []
    assert len({span.trace_id for span in bridge_spans(spans)}) == 1
    # a2a-sdk's own tracing is off (the script's default): none of its spans was exported.
    assert [s.name for s in spans if s.scope_name == SDK_SCOPE] == []


# -- the README shows these files ----------------------------------------------------------------

README_BLOCK: Final = re.compile(
    r"<!-- example: (?P<path>\S+) -->\n```(?:python|sh|console)\n(?P<body>.*?)```", re.DOTALL
)


def test_the_readme_code_is_the_example_files() -> None:
    readme = (ROOT / "README.md").read_text()
    blocks = {m["path"]: m["body"] for m in README_BLOCK.finditer(readme)}
    assert set(blocks) >= {"examples/callee.py"}
    for path, body in blocks.items():
        assert body == (ROOT / path).read_text(), f"README block for {path} differs from the file"
    # Every block of code in the README is one of them (commands and output aside).
    assert readme.count("```python") == len(blocks)


@pytest.mark.parametrize(
    ("example", "args"),
    [
        ("callee.py", ()),
        ("handwritten_callee.py", ()),
        ("plain_agent.py", ()),
        ("guarded_app.py", ()),
        # It takes its port before it asks the agent (here: nothing listens on port 9).
        ("web_app.py", ("http://127.0.0.1:9", "Why?")),
    ],
)
def test_an_example_on_a_taken_port_says_so_in_one_line(
    example: str, args: tuple[str, ...]
) -> None:
    # E.g. a second callee started with the first one's default port.
    with taken_port() as port:
        done = run_example(example, *args, "--port", str(port))
    assert done.returncode == 1
    [line] = done.stderr.splitlines()  # no traceback
    assert line.startswith(f"cannot listen on 127.0.0.1:{port}: "), line
    assert line.endswith("; choose another with --port (0 picks a free one)"), line


# -- a URL where no A2A agent answers ------------------------------------------------------------

CARD: Final = "/.well-known/agent-card.json"
CHECK_URL: Final = "; check the URL: an A2A agent serves its card at /.well-known/agent-card.json"
# A plain web server's pages, by fault: what the line says went wrong, then what to do.
NOT_AN_AGENT: Final = {
    "404": ({"/": ("text/html", b"<h1>It works!</h1>")}, "answered HTTP 404 Not Found", CHECK_URL),
    "html": (
        {CARD: ("text/html", b"<html>It works!</html>")},
        "returned text/html, not JSON",
        CHECK_URL,
    ),
    "bad json": (
        {CARD: ("application/json", b'{"name": "x",')},
        "is not valid JSON (line 1, column 14)",
        "; the agent's card is broken: its owner can fix it",
    ),
}
CALLERS: Final = [
    ("caller.py", ()),
    ("web_app.py", ("--port", "0")),
    ("sampled_caller.py", ("--ratio", "1")),  # every call traced and exported, not one in ten
]


def call(example: str, url: str, *options: str) -> subprocess.CompletedProcess[str]:
    """Run a caller example against ``url`` with a collector listening, as a user's setup has."""
    with OtlpReceiver(grpc_port=None) as receiver:
        return run_example(
            example, url, "anyone?", *options, OTEL_EXPORTER_OTLP_ENDPOINT=receiver.http_endpoint
        )


@pytest.mark.parametrize(("example", "options"), CALLERS)
def test_a_caller_with_nothing_at_the_url_says_so_in_one_line(
    example: str, options: tuple[str, ...]
) -> None:
    url = f"http://127.0.0.1:{refused_port()}"  # connection refused
    done = call(example, url, *options)
    assert done.returncode == 7  # as `a2a-progress watch`
    [line] = done.stderr.splitlines()  # no traceback
    assert line == (
        f"{example}: cannot reach {url}: nothing is listening on {url.removeprefix('http://')} "
        "(connection refused; is the agent running, and on this port?)"
    )


@pytest.mark.parametrize("fault", sorted(NOT_AN_AGENT))
@pytest.mark.parametrize(("example", "options"), CALLERS)
def test_a_caller_of_a_url_that_is_no_a2a_agent_says_so_in_one_line(
    example: str, options: tuple[str, ...], fault: str
) -> None:
    pages, wrong, to_do = NOT_AN_AGENT[fault]
    with web_server(pages) as url:
        done = call(example, url, *options)
    assert done.returncode == 8  # as `a2a-progress watch`
    [line] = done.stderr.splitlines()  # no traceback
    assert line.startswith(f"{example}: {url} does not serve an A2A agent: "), line
    assert line.endswith(f"{wrong}{to_do}"), line
    assert done.stdout == ""


@pytest.mark.parametrize(("example", "options"), CALLERS)
def test_a_caller_whose_card_sends_calls_where_nothing_listens_says_so(
    example: str, options: tuple[str, ...]
) -> None:
    # An agent in a container or bound to 0.0.0.0 often advertises a URL only it can reach.
    nowhere = f"http://127.0.0.1:{refused_port()}"
    with web_server(_card_sending_calls_to(nowhere)) as url:
        done = call(example, url, *options)
    assert done.returncode == 7  # as `a2a-progress watch`
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == _unreachable(example, url, nowhere)


def test_a_sampled_caller_without_a_collector_still_ends_on_its_reason() -> None:
    # The OpenTelemetry exporter retries, then logs its own failure at shutdown (the traced call
    # made a span); the user's last line is still why the call failed.
    nowhere = f"http://127.0.0.1:{refused_port()}"
    collector = f"http://127.0.0.1:{refused_port()}"  # nothing listens there either
    with web_server(_card_sending_calls_to(nowhere)) as url:
        done = run_example(
            "sampled_caller.py", url, "anyone?", "--ratio", "1",
            OTEL_EXPORTER_OTLP_ENDPOINT=collector,
        )  # fmt: skip
    assert done.returncode == 7
    assert "Traceback" not in done.stderr
    *exporter, reason = done.stderr.splitlines()
    assert any("exporting spans" in line for line in exporter), done.stderr
    assert reason == _unreachable("sampled_caller.py", url, nowhere)


def _card_sending_calls_to(nowhere: str) -> dict[str, tuple[str, bytes]]:
    card = build_agent_card("away", description="Not here.", http_url=nowhere, grpc_target=None)
    return {CARD: ("application/json", MessageToJson(card).encode())}


def _unreachable(example: str, url: str, nowhere: str) -> str:
    return (
        f"{example}: cannot reach {nowhere}: nothing is listening on "
        f"{nowhere.removeprefix('http://')} (connection refused; is the agent running, and on "
        f"this port?); the agent card at {url} sends calls there (is the URL in the card right "
        "for this machine?)"
    )


@pytest.mark.parametrize("example", ["caller.py", "watch_json.py"])  # the others: argparse
def test_a_caller_without_its_arguments_says_what_it_needs(example: str) -> None:
    done = run_example(example)
    assert done.returncode == 2
    assert "required" in done.stderr.splitlines()[-1], done.stderr  # the usage line first
    assert "Traceback" not in done.stderr


def watch(url: str) -> subprocess.CompletedProcess[str]:
    """``a2a-progress watch URL anyone?``, from the same shell as the examples."""
    return subprocess.run(
        [str(BIN / "a2a-progress"), "watch", url, "anyone?"],
        env=environment(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def _card_in(binding: str) -> dict[str, tuple[str, bytes]]:
    card = build_agent_card(
        "pigeon", description="Elsewhere.", http_url="http://127.0.0.1:9", grpc_target=None
    )
    for interface in card.supported_interfaces:
        interface.protocol_binding = binding
    return {CARD: ("application/json", MessageToJson(card).encode())}


@pytest.mark.parametrize(("example", "options"), CALLERS)
def test_a_caller_of_a_card_in_unknown_transports_says_what_watch_says(
    example: str, options: tuple[str, ...]
) -> None:
    with web_server(_card_in("SLIMRPC")) as url:
        done = call(example, url, *options)
        watched = watch(url)
    assert watched.returncode == done.returncode == 9  # the agent cannot do what was asked
    [said] = watched.stderr.splitlines()
    assert said == (
        "a2a-progress: pigeon offers no transport this client speaks: its card lists 'SLIMRPC', "
        "this client calls JSONRPC, HTTP+JSON, GRPC"
    )
    [line] = done.stderr.splitlines()  # no ValueError traceback
    assert line == said.replace("a2a-progress: ", f"{example}: ", 1)


# -- the example's lines name no option of watch's that the example lacks -----------------------


@pytest.mark.parametrize(("example", "options"), CALLERS)
def test_a_caller_of_a_card_behind_credentials_names_no_header_option(
    example: str, options: tuple[str, ...]
) -> None:
    with web_server(_card_in("JSONRPC"), statuses={CARD: 401}) as url:
        done = call(example, url, *options)
        watched = watch(url)
    assert watched.returncode == done.returncode == 8
    [said] = watched.stderr.splitlines()
    assert said.endswith(
        "answered HTTP 401 Unauthorized (pass credentials with --header, e.g. --header "
        "Authorization='Bearer ...')"
    ), said
    [line] = done.stderr.splitlines()
    assert line.startswith(f"{example}: {url} does not serve an A2A agent: GET {url}{CARD}"), line
    assert line.endswith(
        "answered HTTP 401 Unauthorized (it wants credentials, e.g. an Authorization header)"
    ), line


def test_a_caller_given_a_grpc_url_names_no_transport_option() -> None:
    done = run_example("caller.py", "grpc://127.0.0.1:50051", "anyone?")
    watched = watch("grpc://127.0.0.1:50051")
    assert watched.returncode == done.returncode == 2
    [said] = watched.stderr.splitlines()
    assert said.endswith("and add --transport grpc to call it over gRPC"), said
    assert done.stderr.splitlines() == [
        "caller.py: 'grpc://127.0.0.1:50051' is not an http:// or https:// URL; give the agent's "
        "HTTP URL (its agent card is served there)"
    ]


def test_watch_json_without_the_command_says_how_to_get_it(tmp_path: Path) -> None:
    # The [cli] extra not installed, or its virtualenv not active: PATH has no a2a-progress.
    done = run_example("watch_json.py", "http://127.0.0.1:9", "anyone?", PATH=str(tmp_path))
    assert done.returncode == 127  # the shell's "command not found", none of watch's codes
    assert done.stderr.splitlines() == [
        "watch_json.py: no a2a-progress command on PATH: pip install 'a2a-progress[cli]', or "
        "activate the virtualenv that has it"
    ]
    assert done.stdout == ""


def test_watch_json_passes_on_the_help_of_watch() -> None:
    done = run_example("watch_json.py", "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: a2a-progress watch"), done.stdout
    assert done.stderr == ""


# support.chain_agent's request: no next agent, and its tool waits forever.
HOLD: Final = json.dumps({"route": [], "hold": True})


@contextlib.contextmanager
def held_agent() -> Iterator[str]:
    """An agent whose tool never ends (``support.chain_agent``); its URL."""
    agent = subprocess.Popen(
        [sys.executable, "-m", "support.chain_agent", "held"],
        env=environment(PYTHONPATH=python_path()),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert agent.stdout is not None
        yield f"http://127.0.0.1:{agent.stdout.readline().split()[1]}"
    finally:
        agent.terminate()
        agent.wait(TIMEOUT)


def ctrl_c(command: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``command`` as a terminal's foreground job; press Ctrl-C (SIGINT to its process group)
    once it printed its first line; what it printed, and its exit status."""
    running = subprocess.Popen(
        command,
        env=environment(**env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, as a shell's job
    )
    assert running.stdout is not None
    first = running.stdout.readline()  # the turn is on: its tool has started (or its thinking)
    os.killpg(running.pid, signal.SIGINT)
    out, err = running.communicate(timeout=TIMEOUT)
    return subprocess.CompletedProcess(command, running.returncode, first + out, err)


def test_watch_json_stopped_with_ctrl_c_ends_on_watchs_error_line() -> None:
    with held_agent() as url:
        done = ctrl_c([sys.executable, str(EXAMPLES / "watch_json.py"), url, HOLD])
    assert done.stdout.splitlines()[0] == "running tool_held "
    assert done.returncode == 130, done.stderr  # watch's "interrupted"
    assert "Traceback" not in done.stderr
    assert done.stdout.splitlines()[-1].startswith("error: interrupted: task "), done.stdout


@pytest.mark.parametrize(("example", "options"), [CALLERS[0], CALLERS[2]])
def test_a_caller_stopped_with_ctrl_c_says_so_in_one_line(
    example: str, options: tuple[str, ...]
) -> None:
    with held_agent() as url, OtlpReceiver(grpc_port=None) as receiver:
        done = ctrl_c(
            [sys.executable, str(EXAMPLES / example), url, HOLD, *options],
            OTEL_EXPORTER_OTLP_ENDPOINT=receiver.http_endpoint,
        )
    assert done.returncode == 130, done.stderr  # as `a2a-progress watch`
    assert done.stderr.splitlines() == [
        f"{example}: interrupted: stopped calling {url}; the agent may still be working on the task"
    ]
