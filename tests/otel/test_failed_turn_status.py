"""The caller's span says why a turn failed: the agent's error message, redacted, in its status.

The turn either ends with a FAILED status carrying a message, or (an exception escaping the
callee's ``execute()``) with the stream raising a2a-sdk's error, which carries the exception's
message as it is; either way the caller span's status description holds the message with the
credential masked.
"""

import pytest
from a2a.types import TaskState
from a2a.utils.errors import A2AError
from opentelemetry.trace import StatusCode
from otel_support import Telemetry, call, raise_, serving, start, thinking

from a2a_progress.otel import conventions as conv
from support.scripted import status

SECRET = "Hunter2Correct-Horse"


@pytest.mark.parametrize("transport", ["jsonrpc", "grpc"])
async def test_an_executor_that_raises_puts_its_message_on_the_caller_span(
    telemetry: Telemetry, transport: str
) -> None:
    steps = [thinking("trying"), raise_(RuntimeError(f"db refused: password={SECRET}"))]
    async with serving(steps) as served:
        with pytest.raises(A2AError):
            await call(served.card_for(transport))  # type: ignore[arg-type]
    caller = telemetry.turn_span(conv.OBSERVER_CALLER)
    assert caller.status.status_code is StatusCode.ERROR
    description = caller.status.description or ""
    assert "db refused: password=" in description
    assert SECRET not in description


async def test_a_failed_status_message_is_the_caller_spans_status(telemetry: Telemetry) -> None:
    reason = f"migration failed: password={SECRET} rejected"
    async with serving([start("migrate", "c1"), status(TaskState.TASK_STATE_FAILED, reason)]) as s:
        await call(s.card_for("jsonrpc"))
    caller = telemetry.turn_span(conv.OBSERVER_CALLER)
    assert caller.status.status_code is StatusCode.ERROR
    description = caller.status.description or ""
    assert description.startswith("migration failed: password=")
    assert SECRET not in description
