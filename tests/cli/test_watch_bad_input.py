"""Bad input to ``watch``: one clear line on stderr and a distinct exit code, never a traceback."""

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cli_support import PlainTextAgent, closed_port, run_cli

from a2a_progress.cli.errors import ExitCode
from a2a_progress.serve import serve_agent

CARD_PATH = "/.well-known/agent-card.json"
HTML = ("text/html", b"<html><body>It works!</body></html>")
NOT_A_CARD = ("application/json", b'{"status": "ok"}')


@contextlib.contextmanager
def web_server(pages: dict[str, tuple[str, bytes]]) -> Iterator[str]:
    """A plain HTTP server on 127.0.0.1 (no A2A anywhere): ``pages`` by path, else 404."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            content_type, body = pages.get(self.path, ("text/html", b"<h1>Not Found</h1>"))
            self.send_response(200 if self.path in pages else 404)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


async def test_unreachable_url(monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    result = await run_cli(monkeypatch, "watch", url, "hello")
    result.assert_one_line_error(ExitCode.UNREACHABLE, f"cannot reach {url}")


async def test_web_server_without_a_card_is_not_an_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    with web_server({"/": HTML}) as url:
        result = await run_cli(monkeypatch, "watch", url, "hello")
    result.assert_one_line_error(
        ExitCode.NOT_AN_AGENT, "does not serve an A2A agent", "answered HTTP 404"
    )


async def test_html_instead_of_a_card(monkeypatch: pytest.MonkeyPatch) -> None:
    with web_server({CARD_PATH: HTML}) as url:
        result = await run_cli(monkeypatch, "watch", url, "hello")
    result.assert_one_line_error(ExitCode.NOT_AN_AGENT, "returned text/html, not JSON")


async def test_json_that_is_not_a_card(monkeypatch: pytest.MonkeyPatch) -> None:
    with web_server({CARD_PATH: NOT_A_CARD}) as url:
        result = await run_cli(monkeypatch, "watch", url, "hello", "--json")
    result.assert_one_line_error(ExitCode.NOT_AN_AGENT, "no interfaces")
    [error] = result.json_lines()
    assert error["type"] == "error"
    assert error["exit_code"] == ExitCode.NOT_AN_AGENT
    assert error["message"] in result.stderr


async def test_card_without_streaming_suggests_poll(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serve_agent(PlainTextAgent(), streaming=False, name="batch-agent") as served:
        result = await run_cli(monkeypatch, "watch", served.http_url, "hello")
        subscribed = await run_cli(monkeypatch, "watch", served.http_url, "--subscribe", "t-1")
    result.assert_one_line_error(
        ExitCode.UNSUPPORTED, "batch-agent does not stream", "rerun with --poll"
    )
    subscribed.assert_one_line_error(ExitCode.UNSUPPORTED, "use --poll t-1")


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
