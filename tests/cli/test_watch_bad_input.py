"""Bad input to ``watch``: one clear line on stderr and a distinct exit code, never a traceback."""

import pytest
from cli_support import CARD_PATH, PlainTextAgent, closed_port, run_cli, web_server

from a2a_progress.cli.errors import ExitCode
from a2a_progress.serving import serve_agent

HTML = ("text/html", b"<html><body>It works!</body></html>")
NOT_A_CARD = ("application/json", b'{"status": "ok"}')
# What to do, said after what went wrong.
CHECK_URL = "; check the URL: an A2A agent serves its card at /.well-known/agent-card.json"


async def test_unreachable_url(monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    result = await run_cli(monkeypatch, "watch", url, "hello")
    result.assert_one_line_error(ExitCode.UNREACHABLE, f"cannot reach {url}")


async def test_web_server_without_a_card_is_not_an_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    with web_server({"/": HTML}) as url:
        result = await run_cli(monkeypatch, "watch", url, "hello")
    result.assert_one_line_error(
        ExitCode.NOT_AN_AGENT, "does not serve an A2A agent", "answered HTTP 404", CHECK_URL
    )


async def test_html_instead_of_a_card(monkeypatch: pytest.MonkeyPatch) -> None:
    with web_server({CARD_PATH: HTML}) as url:
        result = await run_cli(monkeypatch, "watch", url, "hello")
    result.assert_one_line_error(ExitCode.NOT_AN_AGENT, f"returned text/html, not JSON{CHECK_URL}")


async def test_json_that_is_not_a_card(monkeypatch: pytest.MonkeyPatch) -> None:
    with web_server({CARD_PATH: NOT_A_CARD}) as url:
        result = await run_cli(monkeypatch, "watch", url, "hello", "--json")
    result.assert_one_line_error(ExitCode.NOT_AN_AGENT, f"no interfaces to call{CHECK_URL}")
    [error] = result.json_lines()
    assert error["type"] == "error"
    assert error["exit_code"] == ExitCode.NOT_AN_AGENT
    assert error["message"] in result.stderr


async def test_card_without_streaming_is_followed_by_polling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with serve_agent(PlainTextAgent(), streaming=False, name="batch-agent") as served:
        result = await run_cli(
            monkeypatch, "watch", served.http_url, "hello", "--interval", "0.05", "--poll"
        )
        plain = await run_cli(monkeypatch, "watch", served.http_url, "hello")
        subscribed = await run_cli(monkeypatch, "watch", served.http_url, "--subscribe", "t-1")
    assert result.code == 0, result.stderr
    # Without --poll the same turn is watched, by polling, and the user is told why.
    assert plain.code == 0, plain.stderr
    header = plain.stdout.splitlines()[0]
    assert "batch-agent" in header
    assert "(polling: the agent does not stream)" in header
    assert plain.stdout.splitlines()[-1] == result.stdout.splitlines()[-1]
    assert plain.stdout.splitlines()[-1] == f"  {PlainTextAgent.REPLY}"
    # --subscribe becomes a poll of that task: an unknown one is said plainly.
    subscribed.assert_one_line_error(ExitCode.UNSUPPORTED, "no task 't-1'")


@pytest.mark.parametrize("how", ["--subscribe", "--poll"])
async def test_unknown_task_id(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    async with serve_agent(PlainTextAgent()) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, how, "no-such-task")
    result.assert_one_line_error(ExitCode.UNSUPPORTED, "no task 'no-such-task'")


async def test_transport_the_agent_does_not_offer(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serve_agent(PlainTextAgent(), grpc_port=None) as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "hi", "--transport", "grpc")
    result.assert_one_line_error(ExitCode.UNSUPPORTED, "does not offer grpc", "jsonrpc, rest")


async def test_header_values_are_never_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "s3cr3t-token-value"
    bad = await run_cli(monkeypatch, "watch", "http://127.0.0.1:1", "hi", "--header", secret)
    bad.assert_one_line_error(ExitCode.USAGE, "--header", "NAME=VALUE")
    async with serve_agent(PlainTextAgent()) as served:
        good = await run_cli(
            monkeypatch, "watch", served.http_url, "hi", "--header", f"Authorization={secret}"
        )
    assert good.code == 0, good.stderr
    assert "headers: Authorization" in good.stdout
    assert secret not in bad.stdout + bad.stderr + good.stdout + good.stderr
