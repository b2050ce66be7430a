"""Listeners on 127.0.0.1 for the mistakes a client meets: a port that answers with bytes that
are not HTTP, hangs up or resets, a port that accepts but never says anything, and a plain web
server that is no A2A agent."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# What a non-HTTP server might send first: an HTTP/2 SETTINGS frame, then noise.
NOT_HTTP = b"\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x64SSH-2.0-x\r\n"


@dataclass
class Listener:
    """A listening socket, its port and how many connections it accepted."""

    port: int
    connections: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def accepted(self) -> None:
        with self._lock:
            self.connections += 1


@contextlib.contextmanager
def tcp_listener(reply: bytes | None, *, reset: bool = False) -> Iterator[Listener]:
    """Accept connections; send ``reply`` and close each, or (``None``) hold them silently;
    ``reset`` aborts each connection at once (an RST, as a server that refuses the protocol)."""
    server = socket.create_server(("127.0.0.1", 0))
    listener = Listener(server.getsockname()[1])
    held: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            listener.accepted()
            if reset:
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                connection.close()
                continue
            if reply is None:
                held.append(connection)
                continue
            with connection, contextlib.suppress(OSError):
                connection.settimeout(2)
                connection.recv(65536)
                connection.sendall(reply)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener
    finally:
        stop.set()
        thread.join()
        server.close()
        for connection in held:
            connection.close()


@contextlib.contextmanager
def web_server(
    pages: dict[str, tuple[str, bytes]], *, statuses: dict[str, int] | None = None
) -> Iterator[str]:
    """A plain HTTP server on 127.0.0.1 (no A2A anywhere); its base URL.

    It answers a GET of a path in ``pages`` with its ``(content type, body)``, any other with 404;
    a path in ``statuses`` with that status (e.g. 401 for a card behind credentials).
    """

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            content_type, body = pages.get(self.path, ("text/html", b"<h1>Not Found</h1>"))
            status = 200 if self.path in pages else 404
            self.send_response((statuses or {}).get(self.path, status))
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
