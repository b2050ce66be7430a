"""The panel's loopback server (``watch --web``) under hostile clients on 127.0.0.1: malformed
HTTP/1.1, slow and idle clients, rebound hosts and other sites' pages; it keeps serving the
page and the stream. Every exchange is bounded in time."""

from __future__ import annotations

import asyncio

import httpx

from a2a_progress.web import ProgressRelay, serve_panel
from support.raw_http import exchange, idle_connections, malformed, status, trickle


def address(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").rstrip("/").rsplit(":", 1)
    return host, int(port)


async def serves(url: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        assert (await http.get(url)).status_code == 200


async def test_malformed_http_slow_and_idle_clients() -> None:
    relay = ProgressRelay()
    async with serve_panel(relay) as url:
        where = address(url)
        for name, request in malformed(url.removeprefix("http://").rstrip("/").encode()).items():
            code = status(await asyncio.to_thread(exchange, where, request))
            assert code is None or 400 <= code < 500, name
        await serves(url)
        head = b"GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        with idle_connections(where, 100):
            slow = asyncio.create_task(asyncio.to_thread(trickle, where, head, 2.0))
            await serves(url)
            await slow
        async with httpx.AsyncClient(timeout=30) as http:
            for headers in ({"origin": "https://evil.example"}, {"host": "evil.example"}):
                assert (await http.get(f"{url}stream", headers=headers)).status_code in (400, 403)
        assert relay.clients == 0
        await serves(url)
