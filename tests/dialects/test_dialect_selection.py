"""Which dialects are on: argument, then A2A_PROGRESS_DIALECTS, then all; detection per update."""

from __future__ import annotations

import pytest

from a2a_progress.dialects import DIALECT_NAMES, DIALECTS_ENV, TurnDialects, resolve_dialects
from dialects.fixtures import (
    ADK_EVENT_METADATA,
    adk_call,
    gemini_metadata,
    gemini_tool_call,
    read_parts,
)


def test_argument_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DIALECTS_ENV, "none")
    assert resolve_dialects("adk") == {"adk"}
    assert resolve_dialects(["gemini-cli"]) == {"gemini-cli"}
    assert resolve_dialects() == frozenset()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("all", set(DIALECT_NAMES)),
        ("", set(DIALECT_NAMES)),
        ("none", set()),
        ("off", set()),
        ("adk,gemini-cli", {"adk", "gemini-cli"}),
        (" ADK ", {"adk"}),
        ("adk, nonsense", {"adk"}),
        ("nonsense", set()),
    ],
)
def test_environment_values(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: set[str]
) -> None:
    monkeypatch.setenv(DIALECTS_ENV, value)
    assert resolve_dialects() == expected


def test_unset_environment_means_all(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DIALECTS_ENV, raising=False)
    assert resolve_dialects() == set(DIALECT_NAMES)


def test_each_update_is_detected_on_its_own_and_seqs_never_collide() -> None:
    turn = TurnDialects(resolve_dialects("all"))
    adk = read_parts(turn, [adk_call("c1", "search")], metadata=[ADK_EVENT_METADATA])
    gemini = read_parts(
        turn, [gemini_tool_call("t1", "EXECUTING")], metadata=[gemini_metadata("TOOL_CALL_UPDATE")]
    )
    assert adk is not None
    assert gemini is not None
    assert (adk.dialect, gemini.dialect) == ("adk", "gemini-cli")
    assert adk.envelopes[0].seq < gemini.envelopes[0].seq


def test_switched_off_dialects_read_nothing() -> None:
    turn = TurnDialects(resolve_dialects("none"))
    assert read_parts(turn, [adk_call("c1", "search")], metadata=[ADK_EVENT_METADATA]) is None
    only_gemini = TurnDialects(resolve_dialects("gemini-cli"))
    assert (
        read_parts(only_gemini, [adk_call("c1", "search")], metadata=[ADK_EVENT_METADATA]) is None
    )
