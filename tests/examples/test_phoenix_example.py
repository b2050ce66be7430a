"""``examples/phoenix.sh`` (docs/how-to/phoenix.md): the example agents with content capture and
the ``invoke_agent`` span on, exported as Phoenix would receive them (here, into the project's
OTLP receiver): the call is an ``invoke_agent`` span with what was asked and answered, each tool
call is one ``execute_tool`` execution, and the failed one says why."""

from __future__ import annotations

import json
from typing import Final

from a2a_progress.otlp import OtlpReceiver, ReceivedSpan
from support.examples import run_script
from support.otlp import bridge_spans

QUESTION: Final = "Why is the deploy blocked?"


def _complete(spans: list[ReceivedSpan]) -> bool:
    ours = bridge_spans(spans)
    executions = [s for s in ours if s.attributes.get("gen_ai.operation.name") == "execute_tool"]
    return len(executions) == 2 and any(s.kind == "SERVER" for s in ours)


def test_phoenix_script_sends_the_genai_view() -> None:
    with OtlpReceiver(grpc_port=None) as receiver:
        run_script("phoenix.sh", QUESTION, PHOENIX_ENDPOINT=receiver.http_endpoint)
        spans = bridge_spans(receiver.wait_for_spans(_complete))
    [invoke] = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "invoke_agent"]
    assert invoke.name == "invoke_agent research"
    assert invoke.kind == "CLIENT"
    asked = json.loads(invoke.attributes["gen_ai.input.messages"])
    assert asked[0]["parts"][0]["content"] == QUESTION
    answered = json.loads(invoke.attributes["gen_ai.output.messages"])
    assert answered[0]["parts"][-1]["content"].startswith("The deploy is blocked")
    executions = {
        s.attributes["gen_ai.tool.name"]: s
        for s in spans
        if s.attributes.get("gen_ai.operation.name") == "execute_tool"
    }
    assert sorted(executions) == ["ci_status", "dashboard"]  # once each: the callee's spans
    assert executions["dashboard"].attributes["error.type"] == "aborted"
    [call] = [s for s in spans if s.kind == "CLIENT" and s.name == "SendStreamingMessage"]
    assert call.parent_span_id == invoke.span_id
