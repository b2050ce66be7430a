"""The ADK dialect against the real google-adk package: an LlmAgent served through to_a2a().

Marked ``adk``: deselected in the main venv (which has no google-adk), run by ``make test-adk``
in its own venv, where a2a-progress is installed beside ``google-adk[a2a]==2.13.*``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.client import A2ACardResolver
from a2a.client.client import ClientCallContext
from a2a.types import TaskState
from opentelemetry.sdk.trace import ReadableSpan

from a2a_progress import ProgressUpdate, TurnOutcome, follow
from a2a_progress.envelope import Kind, Status
from a2a_progress.serving import create_client, user_message
from support.spans import caller_spans

pytestmark = pytest.mark.adk

QUESTION = "Why did deploy 4812 fail?"
# Asking for this extension switches ADK to its newer executor, which sends every event of the
# agent as an artifact update instead of a WORKING status message.
ADK_ARTIFACT_MODE = "https://google.github.io/adk-docs/a2a/a2a-extension/"


async def card_of(url: str) -> Any:
    async with httpx.AsyncClient() as http:
        return await A2ACardResolver(http, url).get_agent_card()


@pytest.mark.parametrize("mode", ["status updates", "artifact updates"])
async def test_follow_shows_each_adk_tool_call_and_thought(mode: str) -> None:
    from interop.adk_agent import ANSWER, METRICS_ERROR, SECOND_THOUGHT, THOUGHT, serve_adk_agent

    context = None
    if mode == "artifact updates":
        context = ClientCallContext(service_parameters={"A2A-Extensions": ADK_ARTIFACT_MODE})
    async with serve_adk_agent() as served:
        card = await card_of(served.url)
        async with create_client(card) as client:
            stream = client.send_message(user_message(QUESTION), context=context)
            updates = [update async for update in follow(stream)]

    progress = [u for u in updates if isinstance(u, ProgressUpdate)]
    outcome = updates[-1]
    assert isinstance(outcome, TurnOutcome)
    assert outcome.state == TaskState.TASK_STATE_COMPLETED
    assert ANSWER in outcome.reply
    # Thoughts are thinking, never the answer (newer ADK streams them as artifacts too).
    assert THOUGHT not in outcome.reply
    assert SECOND_THOUGHT not in outcome.reply
    assert all(u.dialect == "adk" for u in progress)
    thoughts = [u.envelope.content for u in progress if u.envelope.kind is Kind.THINKING]
    assert thoughts == [THOUGHT, SECOND_THOUGHT]
    calls = {}
    for update in progress:
        for call in update.closed:
            calls[call.tool] = call
    ids = served.calls.ids
    assert set(calls) == {"get_deploy_status", "search_logs", "query_metrics"}
    for tool, call in calls.items():
        assert call.tool_call_id == ids[tool]
        assert call.key == ids[tool]
    assert calls["get_deploy_status"].status is Status.DONE
    assert calls["search_logs"].status is Status.DONE
    assert calls["query_metrics"].status is Status.ABORTED
    aborted = [u for u in progress if u.envelope.status is Status.ABORTED]
    assert [u.envelope.payload.get("reason") for u in aborted] == [METRICS_ERROR]
    opened = [u.call.tool for u in progress if u.opened and u.call is not None]
    assert sorted(opened) == sorted(calls)  # each call opened exactly once
    assert not any(u.degraded for u in progress)


async def test_watch_json_shows_calls_running_and_finished_and_thoughts() -> None:
    from interop.adk_agent import METRICS_ERROR, THOUGHT, serve_adk_agent

    script = Path(sys.executable).with_name("a2a-progress")
    async with serve_adk_agent() as served:
        process = await asyncio.create_subprocess_exec(
            str(script),
            "watch",
            served.url,
            QUESTION,
            "--json",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "NO_COLOR": "1"},
        )
        stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, stderr.decode()
    lines = [json.loads(line) for line in stdout.decode().splitlines() if line.strip()]
    progress = [line for line in lines if line.get("type") == "progress"]
    text = json.dumps(progress)
    assert THOUGHT in text
    assert METRICS_ERROR in text
    for tool, call_id in served.calls.ids.items():
        assert call_id in text, tool
        assert tool in text
    assert lines[-1]["type"] == "outcome"
    assert lines[-1]["progress_extension"] is False  # ADK's card does not declare the envelope
    assert {line["dialect"] for line in progress} == {"adk"}
    # Every tool call shows running, then finished (done, or aborted for the failing one).
    statuses: dict[str, list[str]] = {}
    for line in progress:
        if line["kind"] == "tool_call":
            statuses.setdefault(line["tool"], []).append(line["status"])
            assert line["tool_call_id"] == served.calls.ids[line["tool"]]
    assert statuses == {
        "get_deploy_status": ["running", "done"],
        "search_logs": ["running", "done"],
        "query_metrics": ["running", "aborted"],
    }
    thoughts = [line["content"] for line in progress if line["kind"] == "thinking"]
    assert thoughts[0] == THOUGHT
    assert len(thoughts) == 2
    assert not any(line["degraded"] for line in progress)


async def test_instrumented_caller_makes_one_execute_tool_span_per_adk_call() -> None:
    from interop.adk_agent import METRICS_ERROR, serve_adk_agent

    with caller_spans() as exporter:  # the callee side: no-op global
        async with serve_adk_agent() as served:
            card = await card_of(served.url)
            async with create_client(card) as client:
                async for _update in follow(client.send_message(user_message(QUESTION))):
                    pass

    spans: list[ReadableSpan] = list(exporter.get_finished_spans())
    [call_span] = [s for s in spans if s.name == "SendStreamingMessage"]
    tools = [s for s in spans if s.name.startswith("execute_tool")]
    assert len(tools) == 3
    ids = served.calls.ids
    for span in tools:
        attributes = dict(span.attributes or {})
        tool = attributes["gen_ai.tool.name"]
        assert span.name == f"execute_tool {tool}"
        assert attributes["gen_ai.tool.call.id"] == ids[tool]
        assert attributes["a2a.progress.observer"] == "caller"
        assert attributes.get("a2a.progress.dialect") == "adk"
        assert span.parent is not None
        assert span.parent.span_id == call_span.context.span_id
        assert span.context.trace_id == call_span.context.trace_id
    failing = next(s for s in tools if s.name == "execute_tool query_metrics")
    assert failing.status.status_code.name == "ERROR"
    assert METRICS_ERROR in (failing.status.description or "")
    others = [s for s in tools if s is not failing]
    assert all(s.status.status_code.name == "UNSET" for s in others)
