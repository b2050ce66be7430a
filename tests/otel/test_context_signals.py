"""SIGTERM handling is taken only when nobody handles the signal, from the main thread, and
given back on ``uninstrument()`` only if it is still ours; a second ``instrument()`` starts with a
new bridge and no live turn of the first (what the real processes of ``tests/multihop`` check end
to end: every span exported, the exit status unchanged)."""

import signal
import threading
from collections.abc import Iterator
from types import FrameType

import pytest
from otel_support import Telemetry

from a2a_progress.otel.bridge import Bridge
from a2a_progress.otel.config import ENV_SIGTERM_HANDLER


def app_handler(signum: int, frame: FrameType | None) -> None:
    """An application's own handler (never called here)."""


@pytest.fixture
def sigterm_restored() -> Iterator[None]:
    before = signal.getsignal(signal.SIGTERM)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def test_the_default_action_is_taken_and_given_back(
    telemetry: Telemetry, sigterm_restored: None
) -> None:
    telemetry.uninstrument()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    telemetry.instrument()
    installed = signal.getsignal(signal.SIGTERM)
    assert callable(installed)
    assert installed is not app_handler
    telemetry.uninstrument()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_an_application_handler_is_never_replaced_nor_removed(
    telemetry: Telemetry, sigterm_restored: None
) -> None:
    telemetry.uninstrument()
    signal.signal(signal.SIGTERM, app_handler)
    telemetry.instrument()
    assert signal.getsignal(signal.SIGTERM) is app_handler
    telemetry.uninstrument()
    assert signal.getsignal(signal.SIGTERM) is app_handler
    # Installed after the instrumentor's (as under opentelemetry-instrument): it stays.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    telemetry.instrument()
    signal.signal(signal.SIGTERM, app_handler)
    telemetry.uninstrument()
    assert signal.getsignal(signal.SIGTERM) is app_handler


def test_other_threads_leave_signals_alone(telemetry: Telemetry, sigterm_restored: None) -> None:
    telemetry.uninstrument()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    bridges: list[Bridge | None] = []

    def instrument_here() -> None:
        telemetry.instrument()
        bridges.append(telemetry.instrumentor.bridge)

    worker = threading.Thread(target=instrument_here)
    worker.start()
    worker.join()
    [bridge] = bridges
    assert bridge is not None  # instrumented there, and SIGTERM left alone:
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_a_second_instrument_starts_with_a_new_bridge(
    telemetry: Telemetry, caplog: pytest.LogCaptureFixture
) -> None:
    first = telemetry.instrumentor.bridge
    assert first is not None
    first.warn_once("somewhere")  # logged once, remembered by this bridge only
    telemetry.instrument()
    second = telemetry.instrumentor.bridge
    assert second is not None
    assert second is not first
    assert not first.active
    assert second.live_turns == []
    assert second.turns_by_task == {}
    caplog.clear()
    first.warn_once("somewhere")
    second.warn_once("somewhere")
    assert [record.getMessage() for record in caplog.records] == [
        "a2a-progress telemetry error in somewhere (logged once)"
    ]


@pytest.mark.parametrize("how", ["argument", "environment"])
def test_the_handler_can_be_switched_off(
    telemetry: Telemetry,
    sigterm_restored: None,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    telemetry.uninstrument()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if how == "argument":
        telemetry.instrument(sigterm_handler=False)
    else:
        monkeypatch.setenv(ENV_SIGTERM_HANDLER, "false")
        telemetry.instrument()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
