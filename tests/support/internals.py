"""The one place tests read our own classes' private state: the memory-bound checks.

A bound on what an assembler (or the bridge's turn) keeps per turn, per stream or per finished
task is a promise about memory under hostile input, not about anything a user reads: the public
API shows none of it (`ProgressAssembler.live_turns` is the one count worth a user's while).
Those tests reach in through here, so a rename of a private field breaks this module only.
"""

from __future__ import annotations

from collections.abc import Iterable

from a2a_progress.consumer import ProgressAssembler
from a2a_progress.consumer.turn import Turn
from a2a_progress.otel.tool_span import ToolSpan
from a2a_progress.otel.turn import TurnTelemetry


def turn_state(assembler: ProgressAssembler, task_id: str) -> Turn | None:
    """The live turn ``task_id``'s state (its streams' windows, calls, degraded message ids),
    None when it is not live."""
    return assembler._turns.get(task_id)


def turn_states(assembler: ProgressAssembler) -> Iterable[Turn]:
    """Every live turn's state."""
    return assembler._turns.values()


def finished_remembered(assembler: ProgressAssembler) -> int:
    """How many finished tasks the assembler remembers (to drop their late updates)."""
    return len(assembler._finished)


def bridge_assembler(turn: TurnTelemetry) -> ProgressAssembler:
    """The assembler the OpenTelemetry bridge's turn feeds."""
    return turn._assembler


def open_tool_spans(turn: TurnTelemetry) -> dict[int, ToolSpan]:
    """The bridge turn's open tool spans, by the id of their call."""
    return turn._tools
