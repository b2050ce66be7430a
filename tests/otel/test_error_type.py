"""Errors as error panels read them: ``error.type`` on the turn span (the exception's fully
qualified name, or the task's failed state), on tool spans (the end reason) and on the duration
metric; status descriptions are the redacted message; a cancellation is no error."""

import pytest
from a2a.types import TaskState
from a2a.utils.errors import A2AError
from opentelemetry.trace import StatusCode
from otel_support import (
    Telemetry,
    attrs,
    call,
    events,
    raise_,
    serving,
    start,
    status,
)

from a2a_progress.otel import conventions as conv
from a2a_progress.otel.errors import error_type, qualified_name
from support.scripted import status as scripted_status

CALLER, CALLEE = conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE


class QuotaExceededError(RuntimeError):
    """An agent's own exception."""


def test_qualified_names() -> None:
    assert qualified_name(ValueError) == "ValueError"
    assert qualified_name(QuotaExceededError) == f"{__name__}.QuotaExceededError"
    assert error_type(A2AError("x")) == "a2a.utils.errors.A2AError"

    class WithStatusError(Exception):
        status_code = 503

    assert error_type(WithStatusError()) == "503"


async def test_a_failed_task_is_an_error_with_its_state_and_message(telemetry: Telemetry) -> None:
    message = "rollout broke: token=ghp_" + "a" * 36
    steps = [start("deploy", "d1"), scripted_status(TaskState.TASK_STATE_FAILED, message)]
    async with serving(steps) as served:
        await call(served.card_for("jsonrpc"))
    for observer in (CALLER, CALLEE):
        turn = telemetry.turn_span(observer)
        assert status(turn) is StatusCode.ERROR
        assert attrs(turn)[conv.ERROR_TYPE] == "TASK_STATE_FAILED"
        # The failure message from the wire, redacted: never the credential it quoted.
        assert turn.status.description is not None
        assert turn.status.description.startswith("rollout broke")
        assert "ghp_" + "a" * 36 not in turn.status.description
        tool = telemetry.tool_span(observer)
        assert attrs(tool)[conv.ERROR_TYPE] == "turn_failed"
    [(attributes, _)] = telemetry.points(conv.METRIC_TOOL_DURATION)
    assert attributes[conv.ERROR_TYPE] == "turn_failed"


async def test_an_exception_is_named_in_full(telemetry: Telemetry) -> None:
    steps = [start("quota", "q1"), raise_(QuotaExceededError("over quota for today"))]
    async with serving(steps) as served:
        with pytest.raises(A2AError):
            await call(served.card_for("grpc"))
    callee = telemetry.turn_span(CALLEE)
    assert attrs(callee)[conv.ERROR_TYPE] == f"{__name__}.QuotaExceededError"
    assert callee.status.description == "QuotaExceededError: over quota for today"
    [exception] = events(callee, conv.EXCEPTION_EVENT)
    assert exception[conv.EXCEPTION_TYPE] == f"{__name__}.QuotaExceededError"
