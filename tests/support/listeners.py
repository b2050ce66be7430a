"""Raw TCP listeners on 127.0.0.1 for the mistakes a client meets: a port that answers with
bytes that are not HTTP, hangs up or resets, and a port that accepts but never says anything."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

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
