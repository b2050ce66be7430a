"""The callee's bridge takes the envelope from the emitter that is enqueuing it, not the wire.

``ProgressEmitter`` builds each working update's lone Part from an :class:`Envelope` and enqueues
it; the callee's bridge sees that very update inside the same enqueue call, so it is handed the
envelope instead of decoding the JSON it was encoded to a microsecond earlier. What an agent
enqueues by hand is still read from the wire, and both sides record the same spans either way.
"""

import pytest
from otel_support import (
    Telemetry,
    call,
    complete,
    done,
    env,
    events,
    raw,
    serving,
    start,
    text,
    thinking,
)

from a2a_progress.envelope import HARD_LIMIT_BYTES, Envelope, Rejected
from a2a_progress.otel import conventions as conv
from a2a_progress.sdk import v1

SIDES = (conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE)


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every envelope the seam decoded from a Part."""
    found: list[object] = []
    decode = v1.decode

    def counting(text: object) -> Envelope | Rejected:
        result = decode(text)
        found.append(result)
        return result

    monkeypatch.setattr(v1, "decode", counting)
    return found


async def test_the_callee_decodes_only_what_its_emitter_did_not_build(
    telemetry: Telemetry, decoded: list[object]
) -> None:
    steps = [
        thinking("planning"),  # the emitter's: handed over on the callee
        start("search", "s1"),
        text("searching"),
        done("s1"),
        env("text", 100, text="by hand"),  # the agent's own Part: read from the wire
        raw("{not json", "broken by hand"),
        complete(),
    ]
    async with serving(steps) as served:
        await call(served.card_for("jsonrpc"))
    # The caller read all six Parts (five envelopes, one broken); the callee only the two the
    # emitter did not build. Each reads the broken one twice: a working update is read without
    # a view (sdk working_envelope) unless its envelope is unusable, then in full.
    assert len([d for d in decoded if isinstance(d, Envelope)]) == 5 + 1
    assert len([d for d in decoded if isinstance(d, Rejected)]) == 2 + 2
    caller, callee = (telemetry.turn_span(side) for side in SIDES)
    assert events(caller) == events(callee)
    assert [e.get(conv.CONTENT) for e in events(callee)] == [
        "planning",
        "searching",
        "by hand",
        "broken by hand",
    ]
    for side in SIDES:
        [tool] = telemetry.tool_spans(side)
        assert tool.attributes is not None
        assert tool.attributes[conv.END_REASON] == "done"
        assert tool.attributes[conv.SEQ_FIRST] == 2


async def test_an_emitter_block_too_big_for_an_envelope_is_not_handed_over(
    telemetry: Telemetry,
) -> None:
    # Over the hard limit once escaped, the emitter sends the text fallback alone.
    steps = [text("\u2028" * (HARD_LIMIT_BYTES // 6 + 100)), complete()]
    async with serving(steps, soft_limit=HARD_LIMIT_BYTES) as served:
        await call(served.card_for("rest"))
    for side in SIDES:
        [event] = events(telemetry.turn_span(side))
        assert event[conv.DEGRADED] is True
