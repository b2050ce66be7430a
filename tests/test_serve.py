"""End-to-end tests of `a2a_progress.serving`: every transport, both protocol lines, clean exit."""

import asyncio
import gc
import importlib
import os
import signal
import socket
import threading
from dataclasses import dataclass, field

import httpx
import pytest
from a2a.client import A2ACardResolver, A2AClientError, Client
from a2a.helpers import get_message_text
from a2a.types import (
    AgentCard,
    GetTaskRequest,
    Part,
    Role,
    StreamResponse,
    TaskState,
)
from google.protobuf import json_format

from a2a_progress.extension import declares_progress_extension, progress_extension
from a2a_progress.serving import (
    REST_PATH,
    TRANSPORTS,
    Transport,
    build_agent_card,
    create_client,
    serve_agent,
    serve_forever,
    user_message,
)
from support.processes import free_port, wait_until_serving
from support.scripted import ScriptedAgent, Turn, raw

TFRS = '{"x":1}'
COMBINATIONS = [(transport, v0_3) for transport in TRANSPORTS for v0_3 in (False, True)]
COMBINATION_IDS = [f"{transport}-{'v0.3' if v0_3 else '1.0'}" for transport, v0_3 in COMBINATIONS]


async def reply_with_the_question(turn: Turn) -> None:
    reply = Part(text=f"done: {turn.context.get_user_input()}")
    await turn.updater.complete(turn.updater.new_agent_message([reply]))


def progress_agent() -> ScriptedAgent:
    """Task, a WORKING update carrying a progress part, then COMPLETED with a reply."""
    return ScriptedAgent([raw(TFRS, "step"), reply_with_the_question])


def via(turn: Turn) -> str:
    """The binding a turn's request came over: "grpc" or "http"."""
    return "grpc" if "grpc_context" in turn.context.call_context.state else "http"


@dataclass
class Hanging:
    """A step that goes WORKING and then waits forever, counting the turns it holds."""

    expected: int
    working: int = 0
    all_working: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once ``expected`` turns are working."""
    cancelled: int = 0

    async def __call__(self, turn: Turn) -> None:
        await turn.updater.start_work()
        self.working += 1
        if self.working == self.expected:
            self.all_working.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise


def state_of(event: StreamResponse) -> int | None:
    if event.HasField("task"):
        return event.task.status.state
    if event.HasField("status_update"):
        return event.status_update.status.state
    return None


async def stream_once(card: AgentCard) -> list[StreamResponse]:
    async with create_client(card) as client:
        return [event async for event in client.send_message(user_message("x"))]


def port_of(address: str) -> int:
    return int(address.rsplit(":", 1)[1])


def assert_refused(port: int) -> None:
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


@pytest.mark.parametrize(("transport", "v0_3"), COMBINATIONS, ids=COMBINATION_IDS)
async def test_round_trip(transport: Transport, v0_3: bool) -> None:
    agent = progress_agent()
    async with serve_agent(agent) as served:
        card = served.card_for(transport, v0_3=v0_3)
        headers = {"Authorization": "Bearer s3cret", "X-Probe": transport}

        async with create_client(card, headers=headers) as client:
            events = [event async for event in client.send_message(user_message("hello"))]
        working = [e for e in events if state_of(e) == TaskState.TASK_STATE_WORKING]
        assert len(working) == 1
        [part] = working[0].status_update.status.message.parts
        assert part.text == "step"
        assert part.metadata["tfrs"] == TFRS
        assert state_of(events[-1]) == TaskState.TASK_STATE_COMPLETED
        assert get_message_text(events[-1].status_update.status.message) == "done: hello"
        task_id = events[-1].status_update.task_id

        async with create_client(card, streaming=False) as client:
            [response] = [event async for event in client.send_message(user_message("again"))]
            assert response.task.status.state == TaskState.TASK_STATE_COMPLETED
            assert get_message_text(response.task.status.message) == "done: again"
            stored = await client.get_task(GetTaskRequest(id=task_id))
        assert stored.id == task_id
        assert stored.status.state == TaskState.TASK_STATE_COMPLETED
        assert get_message_text(stored.status.message) == "done: hello"

    # The executor saw the transport and protocol line asked for, and the headers
    # given to create_client (HTTP headers, or gRPC metadata) only on that client.
    [streamed, unary] = agent.turns.values()
    assert via(streamed) == via(unary) == ("grpc" if transport == "grpc" else "http")
    [streamed_headers, unary_headers] = agent.headers
    assert streamed_headers["a2a-version"] == unary_headers["a2a-version"]
    assert streamed_headers["a2a-version"] == ("0.3" if v0_3 else "1.0")
    assert streamed_headers["authorization"] == "Bearer s3cret"
    assert streamed_headers["x-probe"] == transport
    assert "authorization" not in unary_headers


async def test_agent_card_resolves_over_http() -> None:
    async with serve_agent(progress_agent()) as served, httpx.AsyncClient() as http:
        resolved = await A2ACardResolver(http, served.http_url).get_agent_card()
        raw = (await http.get(f"{served.http_url}/.well-known/agent-card.json")).json()
    assert resolved == served.card
    assert served.grpc_target is not None
    assert [
        (i.protocol_binding, i.url, i.protocol_version) for i in resolved.supported_interfaces
    ] == [
        (binding, url, version)
        for version in ("1.0", "0.3")
        for binding, url in [
            ("JSONRPC", served.http_url),
            ("HTTP+JSON", served.http_url + REST_PATH),
            ("GRPC", served.grpc_target),
        ]
    ]
    # v0.3 clients read the legacy fields, which describe the 0.3 interfaces.
    assert raw["url"] == served.http_url
    assert raw["preferredTransport"] == "JSONRPC"
    assert raw["protocolVersion"] == "0.3"
    assert [(i["transport"], i["url"]) for i in raw["additionalInterfaces"]] == [
        ("HTTP+JSON", served.http_url + REST_PATH),
        ("GRPC", served.grpc_target),
    ]


async def test_url_layout() -> None:
    """JSON-RPC answers at "/", REST 1.0 under REST_PATH (what the card's URLs rely on)."""
    body = json_format.MessageToDict(user_message("raw"))
    async with serve_agent(progress_agent()) as served, httpx.AsyncClient() as http:
        version = {"A2A-Version": "1.0"}
        rest = await http.post(
            f"{served.http_url}{REST_PATH}/message:send", json=body, headers=version
        )
        assert rest.status_code == 200, rest.text
        task = rest.json()["task"]
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"
        got = await http.get(f"{served.http_url}{REST_PATH}/tasks/{task['id']}", headers=version)
        assert got.json()["id"] == task["id"]

        rpc = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": task["id"]}}
        answer = await http.post(f"{served.http_url}/", json=rpc, headers=version)
        assert answer.json()["result"]["status"]["state"] == "TASK_STATE_COMPLETED"


async def test_card_for_offers_only_what_is_served() -> None:
    async with serve_agent(progress_agent(), grpc_port=None, enable_v0_3_compat=False) as served:
        assert served.grpc_target is None
        assert [i.protocol_binding for i in served.card.supported_interfaces] == [
            "JSONRPC",
            "HTTP+JSON",
        ]
        rest = served.card_for("rest")
        assert [(i.protocol_binding, i.protocol_version) for i in rest.supported_interfaces] == [
            ("HTTP+JSON", "1.0")
        ]
        assert rest.name == served.card.name
        assert len(served.card.supported_interfaces) == 2  # card_for copied, not trimmed
        with pytest.raises(ValueError, match="grpc"):
            served.card_for("grpc")
        with pytest.raises(ValueError, match=r"0\.3"):
            served.card_for("jsonrpc", v0_3=True)
        # Nor does the server answer v0.3 JSON-RPC (a request without A2A-Version).
        async with httpx.AsyncClient() as http:
            rpc = {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "x"}}
            answer = (await http.post(served.http_url, json=rpc)).json()
        assert "error" in answer


def test_build_agent_card_advertises_public_urls() -> None:
    card = build_agent_card(
        "demo",
        description="d",
        http_url="http://agent:8000/",
        grpc_target="agent:50051",
        streaming=False,
        v0_3=False,
    )
    assert [(i.protocol_binding, i.url) for i in card.supported_interfaces] == [
        ("JSONRPC", "http://agent:8000"),
        ("HTTP+JSON", "http://agent:8000/rest"),
        ("GRPC", "agent:50051"),
    ]
    assert {i.protocol_version for i in card.supported_interfaces} == {"1.0"}
    assert not card.capabilities.streaming
    assert len(card.skills) == 1  # the spec requires one


async def test_public_host_is_what_the_card_advertises() -> None:
    async with serve_agent(progress_agent(), host="0.0.0.0", public_host="agent") as served:
        assert served.http_url.startswith("http://agent:")
        assert served.grpc_target is not None
        assert served.grpc_target.startswith("agent:")
        assert {i.url.split("//")[-1].split(":")[0] for i in served.card.supported_interfaces} == {
            "agent"
        }


async def test_exit_closes_ports_and_leaves_nothing_running() -> None:
    tasks_before = asyncio.all_tasks()
    threads_before = set(threading.enumerate())
    agent = progress_agent()
    async with serve_agent(agent) as served:
        for transport in ("rest", "grpc"):  # an SSE stream and a gRPC stream
            events = await stream_once(served.card_for(transport))
            assert state_of(events[-1]) == TaskState.TASK_STATE_COMPLETED
        assert served.grpc_target is not None
        ports = [port_of(served.http_url), port_of(served.grpc_target)]
    for port in ports:
        assert_refused(port)
    assert asyncio.all_tasks() == tasks_before
    agent.turns.clear()  # a turn's request context holds the gRPC call's objects
    gc.collect()  # grpc.aio runs a poller thread while any channel or server object lives
    assert set(threading.enumerate()) <= threads_before  # nothing new (earlier ones may end)


async def test_exit_ends_streams_still_in_flight() -> None:
    """After the grace, closing the handler cancels the executions and ends their streams."""
    transports: list[Transport] = ["jsonrpc", "grpc"]
    hanging = Hanging(expected=len(transports))
    async with serve_agent(ScriptedAgent([hanging])) as served:
        clients = [create_client(served.card_for(t)) for t in transports]

        async def consume(client: Client) -> tuple[list[StreamResponse], str]:
            events = []
            try:
                async for event in client.send_message(user_message("wait")):
                    events.append(event)
            except A2AClientError as error:
                return events, str(error)
            return events, "ended"

        streams = [asyncio.create_task(consume(client)) for client in clients]
        await asyncio.wait_for(hanging.all_working.wait(), 5)
    assert hanging.cancelled == len(transports)
    for stream in streams:
        events, end = await asyncio.wait_for(stream, 1)
        # Ended by the handler closing, not cut by the server cancelling the call.
        assert end == "ended"
        assert state_of(events[-1]) == TaskState.TASK_STATE_WORKING
    for client in clients:
        await client.close()


async def test_serve_forever_stops_on_sigterm() -> None:
    port = free_port()
    sigterm_before = signal.getsignal(signal.SIGTERM)
    server = asyncio.create_task(serve_forever(progress_agent(), http_port=port, grpc_port=None))
    await wait_until_serving(f"http://127.0.0.1:{port}", alive=lambda: not server.done())
    os.kill(os.getpid(), signal.SIGTERM)
    await asyncio.wait_for(server, 5)  # returns normally
    assert_refused(port)
    assert signal.getsignal(signal.SIGTERM) == sigterm_before


async def test_serve_forever_gives_back_the_sigterm_handler_it_found() -> None:
    # E.g. the instrumentor's flush-then-exit handler: the loop's own removal would leave SIG_DFL.
    calls: list[int] = []

    def earlier_handler(signum: int, frame: object) -> None:
        calls.append(signum)

    before = signal.signal(signal.SIGTERM, earlier_handler)
    try:
        port = free_port()
        server = asyncio.create_task(
            serve_forever(progress_agent(), http_port=port, grpc_port=None)
        )
        await wait_until_serving(f"http://127.0.0.1:{port}", alive=lambda: not server.done())
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.wait_for(server, 5)
        assert calls == [], "while serving, SIGTERM stops the server"
        assert signal.getsignal(signal.SIGTERM) is earlier_handler
    finally:
        signal.signal(signal.SIGTERM, before)


async def test_client_closes_its_http_connections(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The SDK leaves a configured httpx client open; the client create_client returns closes it."""
    closed: list[httpx.AsyncClient] = []
    aclose = httpx.AsyncClient.aclose

    async def recording_aclose(self: httpx.AsyncClient) -> None:
        closed.append(self)
        await aclose(self)

    monkeypatch.setattr(httpx.AsyncClient, "aclose", recording_aclose)
    async with serve_agent(progress_agent(), grpc_port=None) as served:
        async with create_client(served.card_for("jsonrpc")) as client:
            assert isinstance(client, Client)
            [event async for event in client.send_message(user_message("x"))]
            assert closed == []
        assert len(closed) == 1
        assert closed[0].is_closed


def test_the_moved_modules_are_gone() -> None:
    # A 0.x package keeps no shims for moved modules.
    for old in ("a2a_progress.serve", "a2a_progress.otlp_receiver"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(old)


def test_user_message_starts_or_continues_a_turn() -> None:
    first, second = user_message("hi"), user_message("hi")
    assert first.message.role == Role.ROLE_USER
    assert [part.text for part in first.message.parts] == ["hi"]
    assert first.message.message_id != second.message.message_id
    assert not first.HasField("configuration")
    follow_up = user_message("yes", context_id="ctx", task_id="task", return_immediately=True)
    assert (follow_up.message.context_id, follow_up.message.task_id) == ("ctx", "task")
    assert follow_up.configuration.return_immediately


async def test_the_card_declares_the_extensions_given() -> None:
    async with (
        serve_agent(progress_agent(), extensions=(progress_extension(),)) as declaring,
        serve_agent(progress_agent()) as plain,
        httpx.AsyncClient() as http,
    ):
        cards = [
            await A2ACardResolver(http, served.http_url).get_agent_card()
            for served in (declaring, plain)
        ]
    assert [declares_progress_extension(card) for card in cards] == [True, False]
    [extension] = cards[0].capabilities.extensions
    assert extension.params["metadataKey"] == "tfrs"
