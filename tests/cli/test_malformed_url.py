"""A URL argument that cannot be parsed is one line and exit 2, before anything is sent —
never a traceback from ``urllib`` or ``httpx`` (an unclosed IPv6 bracket, a port that is not a
number or out of range, a host name IDNA refuses, control characters, surrounding spaces)."""

import httpx
import pytest
from cli_support import card_sending_calls_to, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_progress.cli.agent_client import card_url
from a2a_progress.cli.errors import CliError, ExitCode

MALFORMED = [
    ("http://[::1", "unclosed '['"),
    ("http://[::1:9999/", "unclosed '['"),
    ("http://[zz]:1", "not an IP address"),
    ("http://host:99999", "port"),
    ("http://host:abc", "port"),
    ("http://host:-1", "port"),
    ("http://host:0", "port"),
    ("http://[::1]x", "port"),
    ("http://xn--/", "host name"),
    ("http://h\u202eost/", "host name"),
    ("http://exa mple.com", "host name"),
    ("http://a\x1b[31m/", "control character"),
    ("http://host:1/\x07", "control character"),
    (" http://127.0.0.1:1 ", "did you mean 'http://127.0.0.1:1'?"),
    ("http://127.0.0.1:1/caf\udce9", "bytes that are not UTF-8"),
]


@pytest.mark.parametrize(("url", "why"), MALFORMED)
@pytest.mark.parametrize("command", [["watch", "{url}", "hi"], ["cancel", "{url}", "task-1"]])
async def test_a_malformed_url_is_one_line_and_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, url: str, why: str, command: list[str]
) -> None:
    result = await run_cli(monkeypatch, *(arg.replace("{url}", url) for arg in command))
    result.assert_one_line_error(ExitCode.USAGE, "is not a valid URL", why)
    # The URL is quoted with its controls escaped, so the error line itself is inert.
    assert "\x1b" not in result.stderr
    assert "\x07" not in result.stderr


@pytest.mark.parametrize(
    ("url", "code", "why"),
    [
        ("http://:80", ExitCode.USAGE, "not a complete http:// URL"),
        ("http:///x", ExitCode.USAGE, "not a complete http:// URL"),
        ("http://agent.invalid:9999", ExitCode.UNREACHABLE, "no such host"),
        ("http://ünïcode.invalid:9999/", ExitCode.UNREACHABLE, "no such host"),
        ("http://[::1]:1", ExitCode.UNREACHABLE, "nothing is listening"),
    ],
)
async def test_urls_that_parse_keep_their_own_outcome(
    monkeypatch: pytest.MonkeyPatch, url: str, code: ExitCode, why: str
) -> None:
    result = await run_cli(monkeypatch, "watch", url, "hi")
    result.assert_one_line_error(code, why)


@pytest.mark.parametrize("advertised", ["http://[::1", "http://host:abc", "http://xn--/", "x"])
async def test_a_card_that_sends_calls_to_a_malformed_url(
    monkeypatch: pytest.MonkeyPatch, advertised: str
) -> None:
    # The card is the agent's text, not the user's: a broken URL in it is the agent's fault.
    async with card_sending_calls_to(advertised) as where:
        result = await run_cli(monkeypatch, "watch", where, "hi")
    result.assert_one_line_error(
        ExitCode.NOT_AN_AGENT, f"its card sends calls to {advertised!r}", "not a valid URL"
    )


_URLISH = st.text(
    alphabet=st.sampled_from(list("hts:/[]@%.-_ 9a0:x?#\t\x1b\x85\u202eü")), max_size=24
).map(lambda rest: "http://" + rest)


@settings(max_examples=400, deadline=None)
@given(url=_URLISH | st.text(max_size=30))
def test_any_url_is_refused_in_one_line_or_builds_a_request(url: str) -> None:
    # What check_agent_url lets through must not fail later when the request is built.
    try:
        where = card_url(url)
    except CliError as error:
        refused = error
    else:
        httpx.Request("GET", where)
        return
    assert refused.code == ExitCode.USAGE
    assert "\n" not in refused.message
