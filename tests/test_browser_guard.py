"""The agents a2a-progress serves refuse what a web page can make a browser send, and still
answer their own callers.

Real servers on 127.0.0.1 (``serve_agent``, ``a2a-progress serve-demo`` as a process, the
``examples/guarded_app.py`` a user builds), real HTTP requests as a browser would send them
(``Origin``, ``Sec-Fetch-Site``, a rebound ``Host``, ``text/plain`` bodies), and the a2a-sdk
clients over JSON-RPC, REST and gRPC in both protocol lines, and ``a2a-progress watch``.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
from collections.abc import AsyncIterator, Mapping
from typing import Any, Final

import httpx
import pytest
from a2a.types import TaskState

from a2a_progress.serving import REST_PATH, TRANSPORTS, ServedAgent, Transport, serve_agent
from a2a_progress.serving.guard import BrowserGuard, cross_site, host_allowed, served_names
from support import scripted as step
from support.agents import final_state, run_turn
from support.examples import environment, serving
from support.processes import CLI, free_port, wait_until_serving, without_otel
from support.scripted import ScriptedAgent

EVIL: Final = "https://evil.example"
# JSON-RPC SendMessage in protocol 1.0 (with its header) and v0.3 (the default without it).
SEND_1_0: Final = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "SendMessage",
    "params": {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}},
}
SEND_0_3: Final = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "message/send",
    "params": {
        "message": {
            "kind": "message",
            "messageId": "m1",
            "role": "user",
            "parts": [{"kind": "text", "text": "hi"}],
        }
    },
}
REST_SEND: Final = {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}


@pytest.fixture
async def agent() -> AsyncIterator[tuple[ScriptedAgent, ServedAgent]]:
    executor = ScriptedAgent([step.complete("hello")])
    async with serve_agent(executor) as served:
        yield executor, served


def host_of(served: ServedAgent) -> str:
    return served.http_url.removeprefix("http://")


async def send(
    url: str, body: Mapping[str, Any], headers: Mapping[str, str], *, version: str | None = "1.0"
) -> httpx.Response:
    extra = {"A2A-Version": version} if version else {}
    async with httpx.AsyncClient(timeout=30) as http:
        return await http.post(url, content=json.dumps(body), headers={**extra, **headers})


JSON_TYPE: Final = {"Content-Type": "application/json"}
BROWSER_CROSS_SITE: Final = {
    "Content-Type": "text/plain;charset=UTF-8",
    "Origin": EVIL,
    "Sec-Fetch-Site": "cross-site",
    "Sec-Fetch-Mode": "no-cors",
}


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        (BROWSER_CROSS_SITE, 403),  # what fetch(..., {mode: "no-cors"}) sends
        ({**JSON_TYPE, "Origin": EVIL}, 403),
        ({**JSON_TYPE, "Origin": "null"}, 403),  # a sandboxed frame or a file:// page
        ({**JSON_TYPE, "Sec-Fetch-Site": "cross-site"}, 403),
        ({**JSON_TYPE, "Origin": "http://localhost:3000", "Sec-Fetch-Site": "same-site"}, 403),
        ({"Content-Type": "text/plain"}, 415),  # a browser that sends no Origin
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
        ({"Content-Type": "multipart/form-data; boundary=x"}, 415),
        ({**JSON_TYPE, "Host": "evil.example"}, 400),  # DNS rebinding: the page's own name
        ({**JSON_TYPE, "Host": "127.0.0.1.evil.example"}, 400),
    ],
    ids=[
        "no-cors",
        "origin",
        "null-origin",
        "fetch-site",
        "same-site",
        "text-plain",
        "form",
        "multipart",
        "rebound-host",
        "lookalike-host",
    ],
)
@pytest.mark.parametrize("endpoint", ["jsonrpc-1.0", "jsonrpc-0.3", "rest-1.0"])
async def test_a_forged_request_runs_no_turn(
    agent: tuple[ScriptedAgent, ServedAgent], endpoint: str, headers: dict[str, str], status: int
) -> None:
    executor, served = agent
    url, body, version = {
        "jsonrpc-1.0": (served.http_url + "/", SEND_1_0, "1.0"),
        "jsonrpc-0.3": (served.http_url + "/", SEND_0_3, None),
        "rest-1.0": (f"{served.http_url}{REST_PATH}/message:send", REST_SEND, "1.0"),
    }[endpoint]
    refused = await send(url, body, headers, version=version)
    assert refused.status_code == status, refused.text
    assert executor.turns == {}
    # The same request from a program (JSON, its own Host, no Origin) does run a turn.
    allowed = await send(url, body, JSON_TYPE, version=version)
    assert allowed.status_code == 200, allowed.text
    assert len(executor.turns) == 1


async def test_the_card_is_not_read_through_a_rebound_name(
    agent: tuple[ScriptedAgent, ServedAgent],
) -> None:
    _, served = agent
    card = f"{served.http_url}/.well-known/agent-card.json"
    async with httpx.AsyncClient(timeout=30) as http:
        assert (await http.get(card, headers={"Host": "evil.example:80"})).status_code == 400
        assert (await http.get(card, headers={"Origin": EVIL})).status_code == 403
        for own in (host_of(served), f"localhost:{served.http_url.rsplit(':', 1)[1]}"):
            assert (await http.get(card, headers={"Host": own})).status_code == 200
        same_origin = {"Origin": served.http_url, "Sec-Fetch-Site": "same-origin"}
        assert (await http.get(card, headers=same_origin)).status_code == 200


@pytest.mark.parametrize("v0_3", [False, True], ids=["1.0", "0.3"])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_agents_own_callers_still_work(
    agent: tuple[ScriptedAgent, ServedAgent], transport: Transport, v0_3: bool
) -> None:
    _, served = agent
    events = await run_turn(served.card_for(transport, v0_3=v0_3))
    assert final_state(events) == TaskState.TASK_STATE_COMPLETED


async def test_allowed_hosts_and_origins_are_answered() -> None:
    executor = ScriptedAgent([step.complete("hello")])
    async with serve_agent(
        executor, allowed_hosts=["agent.internal"], allowed_origins=["https://app.example"]
    ) as served:
        for headers in (
            {**JSON_TYPE, "Host": "agent.internal:8080"},
            {**JSON_TYPE, "Origin": "https://app.example", "Sec-Fetch-Site": "cross-site"},
        ):
            answer = await send(served.http_url + "/", SEND_1_0, headers)
            assert answer.status_code == 200, answer.text
        assert (await send(served.http_url + "/", SEND_1_0, BROWSER_CROSS_SITE)).status_code == 403
    assert len(executor.turns) == 2


def test_the_rules_on_their_own() -> None:
    loopback = served_names("127.0.0.1")
    assert host_allowed("127.0.0.1:9999", loopback)
    assert host_allowed("[::1]:9999", loopback)
    assert host_allowed("LOCALHOST.", loopback)
    assert not host_allowed(None, loopback)
    assert not host_allowed("", loopback)
    assert not host_allowed("localhost.evil.example", loopback)
    assert not host_allowed("127.0.0.1@evil.example", loopback)
    assert host_allowed("anything", served_names("0.0.0.0", ["*"]))
    assert served_names("0.0.0.0") == loopback  # a wildcard bind answers loopback names only
    assert "10.1.2.3" in served_names("10.1.2.3")
    assert cross_site({"host": "127.0.0.1:1", "origin": "http://127.0.0.1:1"}) is None
    assert cross_site({"host": "127.0.0.1:1", "origin": "http://127.0.0.1:2"}) is not None
    assert cross_site({"sec-fetch-site": "none"}) is None  # typed in the address bar
    guard = BrowserGuard(lambda scope, receive, send: None)  # type: ignore[arg-type,return-value]
    assert guard.refusal("POST", {"host": "localhost"}) is None  # no body, no type: a2a's REST
    assert guard.refusal("POST", {"host": "localhost", "content-length": "5"}) == (
        415,
        "send Content-Type: application/json",
    )
    a2a_json = {"host": "localhost", "content-type": "application/a2a+json"}
    assert guard.refusal("POST", a2a_json) is None


def watch(url: str, env: Mapping[str, str]) -> str:
    """``a2a-progress watch URL`` to its end, as the agent's own caller: what it printed."""
    watched = subprocess.run(
        [*CLI, "watch", url, "hi"], env=env, capture_output=True, text=True, timeout=90, check=False
    )
    assert watched.returncode == 0, watched.stderr
    return watched.stdout


def test_serve_demo_refuses_forged_requests_and_answers_its_own_callers() -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    demo = subprocess.Popen(
        [*CLI, "serve-demo", "--port", str(port), "--grpc-port", "0", "--pace", "0"],
        env=without_otel(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        asyncio.run(wait_until_serving(url, alive=lambda: demo.poll() is None))
        with httpx.Client(timeout=30) as http:
            body = json.dumps(SEND_1_0)
            forged = http.post(url + "/", content=body, headers=BROWSER_CROSS_SITE)
            assert forged.status_code == 403
            rebound = {**JSON_TYPE, "Host": f"evil.example:{port}"}
            assert http.post(url + "/", content=body, headers=rebound).status_code == 400
        assert "outcome: completed" in watch(url, without_otel())
    finally:
        demo.terminate()
        demo.wait(30)


def test_the_guarded_app_example_refuses_a_page_and_answers_a_client() -> None:
    with serving("guarded_app.py", exit_codes=(0, -signal.SIGTERM)) as url:
        with httpx.Client(timeout=30) as http:
            forged = http.post(url + "/", content=json.dumps(SEND_1_0), headers=BROWSER_CROSS_SITE)
            assert forged.status_code == 403
        assert "hello" in watch(url, environment())
