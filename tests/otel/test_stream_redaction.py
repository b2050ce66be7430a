"""A secret split across streamed updates is masked in every piece, end to end: a real
ProgressEmitter behind a real a2a-sdk server, a real client, the bridge on both sides.

With the producer's redaction on, no envelope or text fallback on the wire shows a piece of the
secret; with it off, the bridge alone keeps every piece out of the caller's and the callee's span
events. Each stream (kind and stream key) is redacted with its own pieces in mind."""

import pytest
from otel_support import (
    Step,
    Telemetry,
    all_telemetry_text,
    call,
    complete,
    done,
    envelope_of,
    events,
    output,
    serving,
    start,
    thinking,
)

from a2a_progress.otel import conventions as conv
from a2a_progress.redaction import MASK
from support.redaction_score import leaks
from support.redaction_streams import SPLIT_SECRETS


def steps(pieces: list[str]) -> list[Step]:
    """The pieces as thinking chunks, and as the output of a tool call beside them."""
    return [
        *(thinking(piece) for piece in pieces),
        start("shell", "c1"),
        *(output("c1", piece) for piece in pieces),
        done("c1"),
        complete(),
    ]


@pytest.mark.parametrize("name", list(SPLIT_SECRETS))
async def test_the_wire_never_shows_a_piece_of_a_split_secret(
    telemetry: Telemetry, name: str
) -> None:
    pieces, secrets, kept = SPLIT_SECRETS[name]
    async with serving(steps(pieces), enable_output=True) as served:
        received = await call(served.card_for("jsonrpc"))
    envelopes = [e for e in map(envelope_of, received) if e is not None]
    contents = [e.content or "" for e in envelopes if e.kind.value != "tool_call"]
    assert len(contents) == 2 * len(pieces)
    wire = [str(event) for event in received]
    for secret in secrets:
        assert not any(leaks(text, secret) for text in contents + wire), secret
    assert MASK in "".join(contents)
    for text in kept:
        assert text in "".join(contents)


@pytest.mark.parametrize("name", list(SPLIT_SECRETS))
async def test_the_bridge_masks_every_piece_on_both_sides(telemetry: Telemetry, name: str) -> None:
    pieces, secrets, kept = SPLIT_SECRETS[name]
    # A first turn with the producer's redaction on: the callee's bridge takes the texts its
    # own emitter found clean as they are, without a scan; its stream must still see them.
    async with serving(steps(pieces), enable_output=True) as served:
        await call(served.card_for("jsonrpc"))
    # The producer's own redaction off: only the bridge stands between the pieces and the spans.
    async with serving(steps(pieces), redactor=None, enable_output=True) as served:
        await call(served.card_for("rest"))
    texts = all_telemetry_text(telemetry)
    for secret in secrets:
        assert not any(leaks(text, secret) for text in texts), secret
    for observer in (conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE):
        thought = [e[conv.CONTENT] for e in events(telemetry.turn_spans(observer)[-1])]
        shell = telemetry.tool_spans(observer)[-1]
        tool_output = [e[conv.CONTENT] for e in events(shell) if conv.CONTENT in e]
        for stream in (thought, tool_output):
            assert len(stream) == len(pieces)
            assert MASK in "".join(stream)
            for text in kept:
                assert text in "".join(stream)
