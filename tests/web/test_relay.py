"""The SSE relay over real HTTP on loopback: resume, gaps, several browsers, slow ones, the end."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from a2a_progress import Envelope, Kind, ProgressAssembler, ProgressUpdate, Status, follow
from a2a_progress.web import ProgressRelay, serve_panel
from support.web import (
    Sse,
    completed_event,
    read_stream,
    serve_app,
    sse_events,
    text_envelope,
    until,
    working_event,
)

TASK = "task-1"


async def _events_from(queue: asyncio.Queue[object]) -> AsyncIterator[object]:
    while (event := await queue.get()) is not None:
        yield event


def _tool(seq: int, status: Status, reason: str | None = None) -> Envelope:
    payload = {"tool": "search", "tool_call_id": "call-1"}
    if reason is not None:
        payload["reason"] = reason
    return Envelope(Kind.TOOL_CALL, seq, payload, status)


def _ids(events: list[Sse]) -> list[int]:
    return [event.id for event in events if event.id is not None]


async def test_resume_with_last_event_id_neither_loses_nor_repeats() -> None:
    relay = ProgressRelay(title="agent")
    queue: asyncio.Queue[object] = asyncio.Queue()
    async with serve_panel(relay) as url, httpx.AsyncClient(timeout=30) as client:
        turn = asyncio.create_task(relay.run(_events_from(queue)))  # type: ignore[arg-type]
        for seq in range(1, 11):
            queue.put_nowait(working_event(TASK, text_envelope(seq, f"line {seq}")))
        first = await read_stream(client, f"{url}stream", stop_after=4)
        assert first[0].event == "hello"
        assert first[0].data["title"] == "agent"
        assert _ids(first) == [1, 2, 3, 4]
        # Away for a while: more updates arrive, then the browser comes back with its last id.
        for seq in range(11, 21):
            queue.put_nowait(working_event(TASK, text_envelope(seq, f"line {seq}")))
        queue.put_nowait(completed_event(TASK, "done"))
        queue.put_nowait(None)
        await turn
        rest = await read_stream(client, f"{url}stream", last_id=4)
        assert _ids(rest) == list(range(5, 22))
        seen = [e.data["content"] for e in first + rest if e.event == "progress"]
        assert seen == [f"line {seq}" for seq in range(1, 21)]
        assert [e.event for e in rest[-2:]] == ["outcome", "end"]
        assert rest[-2].data["reply"] == "done"
        # The query parameter works like the header (a new EventSource cannot set the header).
        by_query = await read_stream(client, f"{url}stream?last_event_id=19")
        assert _ids(by_query) == [20, 21]
        # A browser that has everything is told not to reconnect.
        response = await client.get(f"{url}stream", headers={"last-event-id": "21"})
        assert response.status_code == 204


async def test_a_gap_is_announced_with_a_snapshot_of_the_calls() -> None:
    relay = ProgressRelay(replay_events=5)
    events = [
        working_event(TASK, _tool(1, Status.RUNNING)),
        *(working_event(TASK, text_envelope(seq, f"t{seq}")) for seq in range(2, 12)),
        working_event(TASK, _tool(12, Status.ABORTED, "timed out")),
        completed_event(TASK, "ok"),
    ]

    async def source() -> AsyncIterator[object]:
        for event in events:
            yield event

    await relay.run(source())  # type: ignore[arg-type]
    assert relay.last_id == 13
    async with serve_panel(relay) as url, httpx.AsyncClient(timeout=30) as client:
        resumed = await read_stream(client, f"{url}stream", last_id=3)
        fresh = await read_stream(client, f"{url}stream")
    for got, after in ((resumed, 3), (fresh, 0)):
        gap = got[1]
        assert gap.event == "gap"
        assert gap.data["after_id"] == after
        assert gap.data["next_id"] == 9
        assert gap.data["missed"] == 9 - after - 1
        assert [(c["tool"], c["state"]) for c in gap.data["calls"]] == [("search", "aborted")]
        assert _ids(got) == [9, 10, 11, 12, 13]
        assert got[-1].event == "end"


async def test_an_id_from_another_relay_resets_the_browser() -> None:
    relay = ProgressRelay()
    relay.publish(ProgressAssembler().feed(working_event(TASK, text_envelope(1, "a")))[0])
    async with serve_panel(relay) as url, httpx.AsyncClient(timeout=30) as client:
        got = await read_stream(client, f"{url}stream", last_id=999, stop_after=1)
    assert [e.event for e in got] == ["hello", "reset", "progress"]
    assert got[-1].id == 1


async def test_several_browsers_get_the_same_stream() -> None:
    relay = ProgressRelay()
    queue: asyncio.Queue[object] = asyncio.Queue()
    async with serve_panel(relay) as url, httpx.AsyncClient(timeout=30) as client:
        readers = [asyncio.create_task(read_stream(client, f"{url}stream")) for _ in range(3)]
        await until(lambda: relay.clients == 3)
        turn = asyncio.create_task(relay.run(_events_from(queue)))  # type: ignore[arg-type]
        for seq in range(1, 31):
            queue.put_nowait(working_event(TASK, text_envelope(seq, f"x{seq}")))
            await asyncio.sleep(0)
        queue.put_nowait(completed_event(TASK, "bye"))
        queue.put_nowait(None)
        outcome = await turn
        results = await asyncio.gather(*readers)
    assert outcome is not None
    assert outcome.reply == "bye"
    for result in results:
        assert _ids(result) == list(range(1, 32))
        assert result[-1].event == "end"
    contents = [[(e.event, e.id, e.data.get("content")) for e in r[1:]] for r in results]
    assert contents[0] == contents[1] == contents[2]


async def test_a_slow_browser_is_dropped_without_blocking_the_turn_or_growing_memory() -> None:
    limit = 256 * 1024
    relay = ProgressRelay(replay_bytes=limit)
    assembler = ProgressAssembler()
    chunk = "y" * 8000
    updates: list[ProgressUpdate] = [
        update
        for seq in range(1, 3001)
        for update in assembler.feed(working_event(TASK, text_envelope(seq, f"{seq} {chunk}")))
        if isinstance(update, ProgressUpdate)
    ]
    async with serve_panel(relay) as url, httpx.AsyncClient(timeout=30) as client:
        host, port = url.removeprefix("http://").rstrip("/").split(":")
        slow = socket.create_connection((host, int(port)))
        slow.sendall(f"GET /stream HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        await until(lambda: relay.clients == 1)
        received: list[int] = []
        got = asyncio.Event()

        async def fast() -> list[Sse]:
            events: list[Sse] = []
            async with client.stream("GET", f"{url}stream") as response:
                async for sse in sse_events(response):
                    events.append(sse)
                    if sse.id is not None:
                        received.append(sse.id)
                        got.set()
            return events

        fast_task = asyncio.create_task(fast())
        dropped_at = None
        peak = 0
        for update in updates:
            event_id = relay.publish(update)
            peak = max(peak, relay.buffered_bytes)
            while not received or received[-1] < (event_id or 0):
                got.clear()
                await got.wait()
            if dropped_at is None and relay.clients == 1:
                dropped_at = event_id
        assembler_outcome = assembler.feed(completed_event(TASK, "fine"))
        for item in assembler_outcome:
            relay.publish(item)
        fast_events = await fast_task
        # Read what the server had sent it (asynchronously: the server flushes as we read).
        slow.setblocking(False)
        loop = asyncio.get_running_loop()
        data = b""
        while block := await loop.sock_recv(slow, 1 << 20):
            data += block
        slow.close()
    assert dropped_at is not None, "the browser that never reads was never dropped"
    assert dropped_at < len(updates), "it must be dropped while the turn goes on"
    assert peak <= limit + 9000
    assert _ids(fast_events) == list(range(1, len(updates) + 2))
    assert fast_events[-1].event == "end"
    # The slow browser got a prefix of the stream, in order, and no end: it must reconnect.
    slow_ids = [
        int(line.removeprefix(b"id: ")) for line in data.split(b"\n") if line.startswith(b"id: ")
    ]
    assert slow_ids == list(range(1, len(slow_ids) + 1))
    assert b"event: end" not in data


async def test_the_stream_ends_after_the_outcome_and_ignores_later_updates() -> None:
    relay = ProgressRelay()
    assembler = ProgressAssembler()
    (update,) = assembler.feed(working_event(TASK, text_envelope(1, "only")))
    assert relay.publish(update) == 1
    (outcome,) = assembler.feed(completed_event(TASK, "over"))
    assert relay.publish(outcome) == 2
    assert relay.ended
    assert relay.publish(update) is None
    assert relay.fail("too late") is None
    async with serve_panel(relay) as url, httpx.AsyncClient(timeout=30) as client:
        got = await read_stream(client, f"{url}stream")
    assert [e.event for e in got] == ["hello", "progress", "outcome", "end"]
    assert got[2].data["state"] == "completed"
    assert got[2].data["exit_code"] == 0


async def test_a_failing_source_ends_the_stream_with_an_error() -> None:
    relay = ProgressRelay()

    async def broken() -> AsyncIterator[object]:
        yield working_event(TASK, text_envelope(1, "started"))
        raise ConnectionError("agent went away, Authorization: Bearer abc.def.ghi")

    with pytest.raises(ConnectionError):
        await relay.run(broken())  # type: ignore[arg-type]
    async with serve_panel(relay) as url, httpx.AsyncClient(timeout=30) as client:
        got = await read_stream(client, f"{url}stream")
    assert [e.event for e in got] == ["hello", "progress", "error", "end"]
    error = got[2].data
    assert error["type"] == "error"
    assert error["exit_code"] is None
    assert "agent went away" in error["message"]
    assert "abc.def.ghi" not in error["message"]


async def test_browsers_over_the_limit_are_refused() -> None:
    relay = ProgressRelay(max_clients=1)
    async with (
        serve_panel(relay) as url,
        httpx.AsyncClient(timeout=30) as client,
        client.stream("GET", f"{url}stream") as first,
    ):
        assert first.status_code == 200
        await until(lambda: relay.clients == 1)
        second = await client.get(f"{url}stream")
        assert second.status_code == 503
        assert second.headers["retry-after"]


async def test_the_page_and_the_panel_files() -> None:
    relay = ProgressRelay()
    async with serve_panel(relay) as url, httpx.AsyncClient(timeout=30) as client:
        page = await client.get(url)
        script = await client.get(f"{url}static/a2a-progress-panel.js")
        style = await client.get(f"{url}static/a2a-progress-panel.css")
        missing = await client.get(f"{url}static/../relay.py")
    assert page.status_code == 200
    assert '<a2a-progress-panel src="stream">' in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert script.headers["content-type"].startswith("text/javascript")
    assert "customElements.define" in script.text
    assert "innerHTML" not in script.text
    assert style.headers["content-type"].startswith("text/css")
    assert "prefers-color-scheme: dark" in style.text
    assert missing.status_code == 404


async def test_mounted_in_an_existing_app_under_a_path() -> None:
    relay = ProgressRelay(title="mounted")
    app = Starlette(
        routes=[Route("/health", lambda request: PlainTextResponse("ok")), *relay.routes("/turn")]
    )
    app.mount("/progress", relay.app)
    (update,) = ProgressAssembler().feed(working_event(TASK, text_envelope(1, "hi")))
    relay.publish(update)
    async with serve_app(app) as url, httpx.AsyncClient(timeout=30) as client:
        health = await client.get(f"{url}health")
        for prefix in ("progress", "turn"):
            page = await client.get(f"{url}{prefix}/")
            script = await client.get(f"{url}{prefix}/static/a2a-progress-panel.js")
            got = await read_stream(client, f"{url}{prefix}/stream", stop_after=1)
            assert page.status_code == script.status_code == 200
            assert [e.event for e in got] == ["hello", "progress"]
            assert got[0].data["title"] == "mounted"
        bare = await client.get(f"{url}progress", follow_redirects=False)
    assert health.text == "ok"
    # The page links "stream" and "static/…" relatively: /progress must become /progress/.
    assert bare.status_code in (307, 308)
    assert bare.headers["location"].endswith("/progress/")


async def test_the_loopback_server_answers_only_requests_addressed_to_it() -> None:
    relay = ProgressRelay()
    async with serve_panel(relay) as url, httpx.AsyncClient(timeout=30) as client:
        port = url.rstrip("/").rsplit(":", 1)[1]
        own = await client.get(url)
        by_name = await client.get(url, headers={"host": f"localhost:{port}"})
        rebound = await client.get(f"{url}stream", headers={"host": f"attacker.example:{port}"})
    assert own.status_code == by_name.status_code == 200
    assert rebound.status_code == 400


async def test_run_takes_the_updates_of_a_follow_you_run() -> None:
    async def source() -> AsyncIterator[object]:
        yield working_event(TASK, _tool(1, Status.RUNNING))
        yield working_event(TASK, _tool(2, Status.DONE))
        yield completed_event(TASK, "followed")

    relay = ProgressRelay()
    outcome = await relay.run(follow(source()))  # type: ignore[arg-type]
    assert outcome is not None
    assert outcome.reply == "followed"
    async with serve_panel(relay) as url, httpx.AsyncClient(timeout=30) as client:
        got = await read_stream(client, f"{url}stream")
    assert [(e.event, e.id) for e in got] == [
        ("hello", None),
        ("progress", 1),
        ("progress", 2),
        ("outcome", 3),
        ("end", None),
    ]
    assert got[1].data["opened"] is True
    assert got[2].data["closed"][0]["state"] == "done"


async def test_another_sites_page_cannot_open_the_stream() -> None:
    relay = ProgressRelay(allowed_origins=["https://app.example"])
    (outcome,) = ProgressAssembler().feed(completed_event(TASK, "over"))
    relay.publish(outcome)
    async with serve_panel(relay) as url, httpx.AsyncClient(timeout=30) as client:
        own_origin = url.rstrip("/")
        refused = [
            await client.get(f"{url}stream", headers=headers)
            for headers in (
                {"origin": "https://evil.example"},
                {"origin": "null"},
                {"sec-fetch-site": "cross-site"},
                {"origin": own_origin.replace("127.0.0.1", "localhost")},  # another origin
            )
        ]
        served = [
            await client.get(f"{url}stream", headers=headers)
            for headers in (
                {},
                {"origin": own_origin, "sec-fetch-site": "same-origin"},
                {"origin": "https://app.example", "sec-fetch-site": "cross-site"},
            )
        ]
    assert [response.status_code for response in refused] == [403] * 4
    assert [response.status_code for response in served] == [200] * 3
    assert all("event: end" in response.text for response in served)
