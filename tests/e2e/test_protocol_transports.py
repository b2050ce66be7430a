"""The streamed envelopes arrive byte-exact, in order, over every transport and protocol line."""

from __future__ import annotations

import itertools
import json

from a2a.types import StreamResponse

from a2a_progress import EndReason, Kind, Status, follow
from a2a_progress.envelope import SOFT_LIMIT_BYTES, utf8_size
from a2a_progress.serving import create_client, user_message

from .conftest import (
    LONG,
    MODULE_LOOP,
    REPLY_RECEIVED,
    SEQ_START,
    TOOL_OUTPUT,
    TRICKY,
    ScriptedAgent,
    Wire,
    collect,
    decoded,
    envelopes_of,
    guarded,
    outcome_of,
    progress_of,
    stress_script,
    tap,
    wire_envelopes,
)

pytestmark = MODULE_LOOP


async def test_consumer_sees_exactly_what_the_producer_sent(
    agent: ScriptedAgent, wire: Wire
) -> None:
    seen: list[StreamResponse] = []
    async with create_client(wire.card) as client:
        stream = client.send_message(user_message(agent.register(stress_script)))
        updates = await guarded(collect(follow(tap(stream, seen))))

    outcome = outcome_of(updates)
    turn = agent.turns[outcome.task_id]
    sent = turn.sent()
    # The strings themselves crossed the wire unchanged, none lost, none added, in order...
    assert wire_envelopes(seen) == sent
    # ...and the consumer decoded each one without altering it (seq above 2^53 included).
    progress = progress_of(updates)
    assert envelopes_of(progress) == decoded(sent)
    assert [update.fallback for update in progress] == [
        message.parts[0].text for message in turn.working_messages()
    ]
    assert not any(update.degraded or update.late for update in progress)
    assert outcome.terminal
    assert outcome.succeeded
    assert outcome.reply == REPLY_RECEIVED

    envelopes = envelopes_of(progress)
    seqs = [envelope.seq for envelope in envelopes]
    assert seqs == list(range(SEQ_START, SEQ_START + len(sent)))
    assert [json.loads(text)["seq"] for text in sent] == seqs

    # The content that stresses the codec came through intact.
    assert envelopes[0].kind is Kind.THINKING
    assert envelopes[0].content == TRICKY
    texts: list[str] = [e.payload["text"] for e in envelopes if e.kind is Kind.TEXT]
    long_pieces = [text for text in texts if text in LONG]
    assert len(long_pieces) > 1
    assert "".join(long_pieces) == LONG
    assert all(utf8_size(piece) <= SOFT_LIMIT_BYTES for piece in long_pieces)
    for call_id, chunks in TOOL_OUTPUT.items():
        streamed = [
            e.content
            for e in envelopes
            if e.kind is Kind.TOOL_OUTPUT_APPEND and e.stream_key == call_id
        ]
        assert streamed == chunks
    assert [e.content for e in envelopes if e.kind is Kind.ERROR] == ['recoverable: "x" \\ y']

    # The two concurrent calls really interleaved, and every call ended done.
    output_order = [e.stream_id for e in envelopes if e.kind is Kind.TOOL_OUTPUT_APPEND]
    assert sum(a != b for a, b in itertools.pairwise(output_order)) > 1
    calls = {update.call.key: update.call for update in progress if update.call is not None}
    assert set(calls) == {*TOOL_OUTPUT, ""}
    assert all(call.end_reason is EndReason.DONE for call in calls.values())
    assert all(call.status is Status.DONE for call in calls.values())
    assert outcome.closed == ()
