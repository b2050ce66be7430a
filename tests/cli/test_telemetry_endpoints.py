"""Where the demo's spans go: the compose stack's Jaeger link, and reachability of a collector."""

import socket

import pytest
from cli_support import closed_port

from a2a_progress.cli.telemetry import endpoint_reachable, jaeger_ui_for


@pytest.mark.parametrize(
    ("endpoint", "jaeger"),
    [
        ("http://localhost:4318", "http://localhost:16686"),
        ("http://127.0.0.1:4317", "http://localhost:16686"),
        ("http://otel-collector:4318", "http://localhost:16686"),  # inside the compose network
        ("localhost:4317", "http://localhost:16686"),
        ("http://collector.example.com:4318", None),
        ("http://localhost:9999", None),
        ("http://localhost:notaport", None),
        (None, None),
    ],
)
def test_jaeger_link_only_for_the_compose_stack(endpoint: str | None, jaeger: str | None) -> None:
    assert jaeger_ui_for(endpoint) == jaeger


def test_reachable_only_when_something_listens() -> None:
    with socket.create_server(("127.0.0.1", 0)) as listening:
        port = listening.getsockname()[1]
        assert endpoint_reachable(f"http://127.0.0.1:{port}")
        assert endpoint_reachable(f"127.0.0.1:{port}")
    assert not endpoint_reachable(f"http://127.0.0.1:{closed_port()}")
    assert not endpoint_reachable("http://127.0.0.1:notaport")
