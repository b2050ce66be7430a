"""HTTP/1.1 as a hostile client writes it: raw bytes on a socket to 127.0.0.1, each exchange
bounded in time, and the requests every server must survive."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from typing import Final

WAIT: Final = 10.0
"""Seconds any one exchange may take before the test gives up on it."""


def exchange(address: tuple[str, int], request: bytes, *, wait: float = WAIT) -> bytes:
    """Send ``request`` as it is and read until the server closes or ``wait`` passes: what it
    answered (``b""``: it closed without a word)."""
    with socket.create_connection(address, timeout=wait) as connection:
        with contextlib.suppress(OSError):  # a server may close while we still write
            connection.sendall(request)
        with contextlib.suppress(OSError):
            connection.shutdown(socket.SHUT_WR)
        chunks: list[bytes] = []
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                chunk = connection.recv(65536)
            except (TimeoutError, OSError):
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


def status(answer: bytes) -> int | None:
    """The status code of the first response in ``answer``; None when there is none."""
    line = answer.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) > 1 and line[0].startswith(b"HTTP/") else None


@contextlib.contextmanager
def idle_connections(address: tuple[str, int], count: int) -> Iterator[list[socket.socket]]:
    """``count`` connections that send nothing (held open for the block)."""
    held: list[socket.socket] = []
    try:
        for _ in range(count):
            held.append(socket.create_connection(address, timeout=WAIT))
        yield held
    finally:
        for connection in held:
            connection.close()


def trickle(
    address: tuple[str, int], head: bytes, seconds: float, *, answer_within: float = 1.0
) -> bytes:
    """A slow client: ``head`` one byte every quarter second for ``seconds`` (then the rest at
    once); what the server answered within ``answer_within`` seconds after."""
    pause = 0.25
    with socket.create_connection(address, timeout=WAIT) as connection:
        sent = 0
        deadline = time.monotonic() + seconds
        try:
            while sent < len(head) and time.monotonic() < deadline:
                connection.sendall(head[sent : sent + 1])
                sent += 1
                time.sleep(pause)
            connection.sendall(head[sent:])
        except OSError:
            pass  # the server gave up on us: what it said is what counts
        connection.settimeout(answer_within)
        try:
            return connection.recv(65536)
        except OSError:
            return b""


def malformed(host: bytes, path: bytes = b"/") -> dict[str, bytes]:
    """Requests every HTTP/1.1 server must refuse or survive, by name (``host``: ``name:port``;
    ``path``: where the server takes a body)."""
    head = b"Host: " + host + b"\r\n"
    post = b"POST " + path + b" HTTP/1.1\r\n"
    return {
        "garbage": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64,  # a TLS hello
        "no-version": b"GET /\r\n\r\n",
        "http-9": b"GET / HTTP/9.9\r\n" + head + b"\r\n",
        "long-line": b"GET /" + b"a" * 200_000 + b" HTTP/1.1\r\n" + head + b"\r\n",
        "nul-in-path": b"POST " + path + b"\x00/v1 HTTP/1.1\r\n" + head + b"\r\n",
        "no-colon": post + head + b"NoColonHere\r\nContent-Length: 0\r\n\r\n",
        "obs-fold": post + head + b"X-A: b\r\n c\r\nContent-Length: 0\r\n\r\n",
        "many-headers": post
        + head
        + b"".join(b"X-%d: v\r\n" % n for n in range(2000))
        + b"Content-Length: 0\r\n\r\n",
        "huge-header": post + head + b"X-Big: " + b"v" * 1_000_000 + b"\r\n\r\n",
        "two-lengths": post
        + head
        + b"Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}",
        "length-and-chunked": post
        + head
        + b"Content-Type: application/json\r\nContent-Length: 4\r\n"
        + b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\n\r\n",
        "bad-chunks": post
        + head
        + b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n",
        "negative-length": post + head + b"Content-Length: -5\r\n\r\n",
        "huge-length": post + head + b"Content-Length: 99999999999999\r\n\r\n",
        "short-body": post
        + head
        + b'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":',
        "latin1-header": post + head + b"X-A: \xff\x9b31m\r\nContent-Length: 0\r\n\r\n",
    }
