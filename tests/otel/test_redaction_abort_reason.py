"""A tool call aborted by an exception says why: the exception's message, redacted and bounded,
rides in the aborted envelope's ``reason`` and becomes the tool span's status description on
both sides, end to end over a real server."""

from opentelemetry.trace import StatusCode
from otel_support import AgentTurn, Step, Telemetry, attrs, call, complete, envelope_of, serving

from a2a_progress.envelope import Status
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.config import NAME_MAX_LENGTH
from a2a_progress.redaction import MASK

TOKEN = "q7Zp2Lk9Xv4Rt8Wm3Nb6Yc1"


def failing_tool(exc: Exception) -> Step:
    async def step(turn: AgentTurn) -> None:
        try:
            async with turn.progress.tool_call("fetch_report", "c1"):
                raise exc
        except type(exc):
            pass  # the agent carries on; the call has ended aborted

    return step


async def abort_reason(exc: Exception) -> str:
    """Serve a turn whose tool raises ``exc``; the reason its aborted envelope carried."""
    async with serving([failing_tool(exc), complete()]) as served:
        events = await call(served.card_for("jsonrpc"))
    [aborted] = [
        envelope
        for envelope in map(envelope_of, events)
        if envelope is not None and envelope.status is Status.ABORTED
    ]
    return str(aborted.payload["reason"])


async def test_the_exception_message_is_the_reason_and_the_span_status(
    telemetry: Telemetry,
) -> None:
    exc = ConnectionError(f"upstream refused the request: token=Bearer {TOKEN}")
    reason = await abort_reason(exc)
    assert reason == f"ConnectionError: upstream refused the request: token={MASK}"

    for observer in (conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE):
        tool = telemetry.tool_span(observer)
        assert attrs(tool)[conv.END_REASON] == "aborted"
        assert tool.status.status_code is StatusCode.ERROR
        assert tool.status.description == reason
        assert TOKEN not in str(tool.status.description)


async def test_a_long_message_is_bounded_after_redaction(telemetry: Telemetry) -> None:
    # The credential sits across the reason's bound: masked first, so no piece of it is left.
    message = "x" * 500 + f" ghp_{TOKEN}abcdefghijklm " + "y" * 5000
    reason = await abort_reason(ValueError(message))
    assert reason.startswith("ValueError: xxx")
    assert reason.endswith("…")
    assert len(reason) < 600
    assert MASK in reason
    assert TOKEN[:6] not in reason  # cut first, "ghp_q7Zp2Lk" would be too short to mask
    for observer in (conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE):
        description = str(telemetry.tool_span(observer).status.description)
        assert description.startswith("ValueError: xxx")
        assert len(description.encode()) <= NAME_MAX_LENGTH
