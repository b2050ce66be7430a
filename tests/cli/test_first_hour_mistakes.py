"""The mistakes of a first hour with a new agent: each is one clear line and its exit code,
never a traceback or a library's raw text — checked against real servers and sockets."""

import pytest
from cli_support import (
    CARD_PATH,
    PlainTextAgent,
    card_sending_calls_to,
    closed_port,
    run_cli,
    web_server,
)

from a2a_progress.cli import CliError, Flags, fetch_card
from a2a_progress.cli.arguments import header
from a2a_progress.cli.errors import ExitCode
from a2a_progress.serving import serve_agent
from support.listeners import NOT_HTTP, tcp_listener
from support.processes import taken_port

RAW_TEXT = ("illegal", "developer.mozilla.org", "[SSL", "Errno", "bytearray", "Traceback")


def assert_no_raw_text(line: str) -> None:
    for fragment in RAW_TEXT:
        assert fragment not in line, line


async def test_an_empty_message_is_refused_before_anything_is_sent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with tcp_listener(None) as listener:
        result = await run_cli(monkeypatch, "watch", listener.url, "")
        blank = await run_cli(monkeypatch, "watch", listener.url, "   ")
        empty_task = await run_cli(monkeypatch, "watch", listener.url, "--subscribe", "")
        empty_polls = [
            await run_cli(monkeypatch, "watch", listener.url, "--poll", task_id)
            for task_id in ("", "   ")
        ]
        blank_task = await run_cli(monkeypatch, "watch", listener.url, "--subscribe", "  ")
        assert listener.connections == 0
    for refused in (result, blank):
        assert refused.code == ExitCode.USAGE
        [line] = refused.stderr.splitlines()
        assert "MESSAGE is empty" in line
    for empty, flag in ((empty_task, "--subscribe"), (blank_task, "--subscribe")):
        empty.assert_one_line_error(ExitCode.USAGE, f"{flag} needs a TASK_ID")
    for empty in empty_polls:
        empty.assert_one_line_error(ExitCode.USAGE, "--poll needs a TASK_ID, not an empty string")


@pytest.mark.parametrize(
    "args",
    [
        ["hi", "--interval", "0.5"],
        ["--subscribe", "task-1", "--interval", "2"],
    ],
)
async def test_interval_without_poll_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    with tcp_listener(None) as listener:
        result = await run_cli(monkeypatch, "watch", listener.url, *args)
        assert listener.connections == 0
    assert result.code == ExitCode.USAGE
    [line] = result.stderr.splitlines()
    assert "--interval needs --poll" in line


@pytest.mark.parametrize(
    ("url", "suggested"),
    [
        ("localhost:9999", "http://localhost:9999"),
        ("127.0.0.1:9999/", "http://127.0.0.1:9999/"),
        ("http:/localhost:9999", "http://localhost:9999"),
        ("htp://localhost:9999", "http://localhost:9999"),
        ("agent.example.com/a2a", "https://agent.example.com/a2a"),
    ],
)
@pytest.mark.parametrize("command", [["watch", "{url}", "hi"], ["cancel", "{url}", "task-1"]])
async def test_a_url_without_its_scheme_suggests_the_right_one(
    monkeypatch: pytest.MonkeyPatch, url: str, suggested: str, command: list[str]
) -> None:
    result = await run_cli(monkeypatch, *(arg.format(url=url) for arg in command))
    result.assert_one_line_error(ExitCode.USAGE, f"did you mean {suggested}?")


async def test_a_grpc_url_says_to_give_the_http_url(monkeypatch: pytest.MonkeyPatch) -> None:
    result = await run_cli(monkeypatch, "watch", "grpc://localhost:50051", "hi")
    result.assert_one_line_error(ExitCode.USAGE, "--transport grpc")


@pytest.mark.parametrize(
    ("reply", "reset"),
    [(NOT_HTTP, False), (b"", False), (None, True)],
    ids=["sends-bytes-that-are-not-http", "hangs-up", "resets"],
)
async def test_a_port_that_is_not_http_is_not_an_agent(
    monkeypatch: pytest.MonkeyPatch, reply: bytes | None, reset: bool
) -> None:
    with tcp_listener(reply, reset=reset) as listener:
        result = await run_cli(monkeypatch, "watch", listener.url, "hi")
        assert listener.connections >= 1
    result.assert_one_line_error(ExitCode.NOT_AN_AGENT, "answered, but not with HTTP")
    assert_no_raw_text(result.stderr)


async def test_the_agents_grpc_port_is_not_an_agent_card(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serve_agent(PlainTextAgent()) as served:
        grpc_url = f"http://{served.card_for('grpc').supported_interfaces[0].url}"
        result = await run_cli(monkeypatch, "watch", grpc_url, "hi", "--json")
    result.assert_one_line_error(ExitCode.NOT_AN_AGENT, "not with HTTP", "gRPC port")
    assert_no_raw_text(result.stderr)
    [error] = result.json_lines()
    assert (error["type"], error["exit_code"]) == ("error", ExitCode.NOT_AN_AGENT)


async def test_a_card_that_is_not_valid_json_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = ("application/json", b'{\n  "name": "agent",\n  "skills": [}\n')
    with web_server({CARD_PATH: broken}) as url:
        result = await run_cli(monkeypatch, "watch", url, "hi")
    result.assert_one_line_error(
        ExitCode.NOT_AN_AGENT,
        "the agent card at",
        "is not valid JSON (line 3, column 14); the agent's card is broken: its owner can fix it",
    )
    assert "Expecting" not in result.stderr  # the decoder's own words


async def test_a_wrong_path_points_at_the_url_that_serves_the_card(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with serve_agent(PlainTextAgent()) as served:
        result = await run_cli(monkeypatch, "watch", f"{served.http_url}/agents/helper", "hi")
    result.assert_one_line_error(
        ExitCode.NOT_AN_AGENT, "HTTP 404 Not Found", f"did you mean {served.http_url}?"
    )


async def test_a_wrong_path_on_a_plain_web_server_has_no_suggestion(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with web_server({}) as url:
        result = await run_cli(monkeypatch, "watch", f"{url}/agents/helper", "hi")
    result.assert_one_line_error(ExitCode.NOT_AN_AGENT, "HTTP 404 Not Found")
    assert "did you mean" not in result.stderr


async def test_https_to_a_plain_http_agent_suggests_http(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serve_agent(PlainTextAgent()) as served:
        https = served.http_url.replace("http://", "https://")
        result = await run_cli(monkeypatch, "watch", https, "hi")
    result.assert_one_line_error(
        ExitCode.UNREACHABLE, "does not speak TLS", f"did you mean {served.http_url}?"
    )
    assert_no_raw_text(result.stderr)


async def test_a_silent_server_times_out_with_a_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    with tcp_listener(None) as listener:
        result = await run_cli(monkeypatch, "watch", listener.url, "hi", "--timeout", "0.3")
    result.assert_one_line_error(
        ExitCode.UNREACHABLE,
        "accepted the connection but did not answer within 0.3s",
        "raise --timeout",
    )


async def test_nothing_listening_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    result = await run_cli(monkeypatch, "cancel", url, "task-1")
    result.assert_one_line_error(
        ExitCode.UNREACHABLE, f"cannot reach {url}", "nothing is listening", "connection refused"
    )


async def test_a_host_that_does_not_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    # .invalid never resolves (RFC 2606).
    result = await run_cli(monkeypatch, "watch", "http://agent.invalid:9999", "hi")
    result.assert_one_line_error(ExitCode.UNREACHABLE, "no such host 'agent.invalid'")
    assert_no_raw_text(result.stderr)


@pytest.mark.parametrize(
    ("given", "parsed"),
    [
        ("Authorization=Bearer a=b", ("Authorization", "Bearer a=b")),
        ("Authorization: Bearer a=b", ("Authorization", "Bearer a=b")),  # curl -H style
        ("X-Callback=http://host:1/x", ("X-Callback", "http://host:1/x")),
        ("X-Empty=", ("X-Empty", "")),
    ],
)
def test_headers_as_name_equals_value_or_curl_style(given: str, parsed: tuple[str, str]) -> None:
    assert header(given) == parsed


@pytest.mark.parametrize(
    "given", ["s3cr3t", "=value", ": value", "Bad Name=x", "Nämé=x", "X(1)=y", "X\x1b=y"]
)
async def test_a_header_without_a_name_is_refused_without_echoing_it(
    monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    result = await run_cli(monkeypatch, "watch", "http://127.0.0.1:1", "hi", "--header", given)
    result.assert_one_line_error(ExitCode.USAGE, "--header", "NAME=VALUE")
    assert given not in result.stderr


@pytest.mark.parametrize("elsewhere", ["http://127.0.0.1:{port}", "http://agent.invalid:9999"])
async def test_a_card_that_sends_calls_where_nothing_answers(
    monkeypatch: pytest.MonkeyPatch, elsewhere: str
) -> None:
    # An agent bound to 0.0.0.0 or in a container advertises a URL this machine cannot call.
    target = elsewhere.format(port=closed_port())
    async with card_sending_calls_to(target) as card_url:
        result = await run_cli(monkeypatch, "watch", card_url, "hi")
    result.assert_one_line_error(
        ExitCode.UNREACHABLE, f"cannot reach {target}", f"the agent card at {card_url} sends calls"
    )
    assert_no_raw_text(result.stderr)


@pytest.mark.parametrize(
    ("target", "why"),
    [("127.0.0.1:{port}", "nothing is listening"), ("agent.invalid:50051", "no such host")],
)
async def test_a_card_that_sends_grpc_calls_where_nothing_answers(
    monkeypatch: pytest.MonkeyPatch, target: str, why: str
) -> None:
    # The gRPC target, not the card's URL, is what could not be reached; and it never connected.
    advertised = target.format(port=closed_port())
    async with card_sending_calls_to(advertised, "grpc") as card_url:
        watched = await run_cli(monkeypatch, "watch", card_url, "hi")
        canceled = await run_cli(monkeypatch, "cancel", card_url, "task-1")
    for result in (watched, canceled):
        result.assert_one_line_error(
            ExitCode.UNREACHABLE,
            f"cannot reach {advertised} (gRPC): ",
            why,
            f"the agent card at {card_url} sends calls there",
        )
        assert "lost connection" not in result.stderr
        assert_no_raw_text(result.stderr)


@pytest.mark.parametrize(
    "value", ["sëcret", "a\nInjected: yes", "a\x1b[2Jb", "a\x00b", "tok\u202en"]
)
@pytest.mark.parametrize("command", [["watch", "{url}", "hi"], ["cancel", "{url}", "task-1"]])
async def test_a_header_value_that_http_cannot_carry_is_refused_without_echoing_it(
    monkeypatch: pytest.MonkeyPatch, value: str, command: list[str]
) -> None:
    with tcp_listener(None) as listener:
        args = [arg.format(url=listener.url) for arg in command]
        result = await run_cli(monkeypatch, *args, "--header", f"Authorization={value}")
        assert listener.connections == 0
    result.assert_one_line_error(ExitCode.USAGE, "--header", "printable ASCII")
    assert value not in result.stderr


@pytest.mark.parametrize("flag", ["--port", "--grpc-port"])
async def test_serve_demo_on_a_taken_port_says_which_flag_to_change(
    monkeypatch: pytest.MonkeyPatch, flag: str
) -> None:
    # A second demo agent started with the first one's defaults (9999, gRPC 50051).
    other = "--grpc-port" if flag == "--port" else "--port"
    with taken_port() as port:
        result = await run_cli(monkeypatch, "serve-demo", flag, str(port), other, "0")
    result.assert_one_line_error(
        ExitCode.PORT_IN_USE, f"cannot listen on 127.0.0.1:{port}: the port is taken", flag
    )
    assert_no_raw_text(result.stderr)


async def test_watch_web_on_a_taken_port_says_which_flag_to_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # E.g. a second `watch --web-port 8080` while the first still serves its panel.
    async with serve_agent(PlainTextAgent(), grpc_port=None) as served:
        with taken_port() as port:
            result = await run_cli(
                monkeypatch, "watch", served.http_url, "hi", "--web-port", str(port)
            )
    result.assert_one_line_error(
        ExitCode.PORT_IN_USE,
        f"cannot serve the web panel on 127.0.0.1:{port}: the port is taken",
        "choose another with --web-port",
    )
    assert_no_raw_text(result.stderr)


async def test_a_scripts_lines_suggest_only_its_own_options() -> None:
    # fetch_card for a script of yours: watch's --timeout does not exist there.
    with tcp_listener(None) as listener:
        with pytest.raises(CliError) as plain:
            await fetch_card(listener.url, timeout_seconds=0.3)
        with pytest.raises(CliError) as named:
            await fetch_card(listener.url, timeout_seconds=0.3, flags=Flags(timeout="--wait"))
    silent = (
        f"cannot reach {listener.url}: it accepted the connection but did not answer within 0.3s"
    )
    assert plain.value.code == named.value.code == ExitCode.UNREACHABLE
    assert plain.value.message == f"{silent} (a slow agent, or not an HTTP server?)"
    assert named.value.message == f"{silent} (a slow agent, or not an HTTP server? raise --wait)"
