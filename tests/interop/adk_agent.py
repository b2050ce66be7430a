"""A real google-adk ``LlmAgent`` served through ``to_a2a()`` on loopback, with a scripted model.

Imported only by the tests marked ``adk`` (run in ``make test-adk``'s venv beside google-adk).
The model is a ``BaseLlm`` subclass that needs no network: it thinks and asks for two tools at
once, then for a third that reports an error, then answers. The tools record the call ids ADK
gave them (``tool_context.function_call_id``), the ids a caller must see.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Final

from google.adk.a2a.utils.agent_to_a2a import to_a2a
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from support.asgi import loopback_server

THOUGHT: Final = "The deploy failed: find the stage where it stopped, and read the logs."
SECOND_THOUGHT: Final = "Logs show refused connections; check the metrics backend too."
METRICS_ERROR: Final = "metrics backend timed out after 1.0s"
ANSWER: Final = "Root cause: payments-db refuses connections since the rollout."
TOOLS: Final = ("get_deploy_status", "search_logs", "query_metrics")


@dataclass
class Calls:
    """The ADK call id of every tool call, by tool, in the order the tools ran."""

    ids: dict[str, str] = field(default_factory=dict)


def _function_responses(request: LlmRequest) -> int:
    return sum(
        1
        for content in request.contents
        for part in content.parts or ()
        if part.function_response is not None
    )


class ScriptedModel(BaseLlm):
    """Two parallel tool calls after a thought, then a failing one, then the answer."""

    model: str = "scripted-model"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        answered = _function_responses(llm_request)
        if answered == 0:
            parts = [
                types.Part(text=THOUGHT, thought=True),
                types.Part(
                    function_call=types.FunctionCall(
                        name="get_deploy_status", args={"deploy": "4812"}
                    )
                ),
                types.Part(
                    function_call=types.FunctionCall(name="search_logs", args={"query": "refused"})
                ),
            ]
        elif answered == 2:
            parts = [
                types.Part(text=SECOND_THOUGHT, thought=True),
                types.Part(
                    function_call=types.FunctionCall(name="query_metrics", args={"metric": "p99"})
                ),
            ]
        else:
            parts = [types.Part(text=ANSWER)]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


def build_agent(calls: Calls) -> LlmAgent:
    def get_deploy_status(deploy: str, tool_context: ToolContext) -> dict[str, Any]:
        """The status of a deploy."""
        calls.ids["get_deploy_status"] = tool_context.function_call_id or ""
        return {"deploy": deploy, "stage": "canary", "ready": "0/3"}

    def search_logs(query: str, tool_context: ToolContext) -> dict[str, Any]:
        """Log lines matching a query."""
        calls.ids["search_logs"] = tool_context.function_call_id or ""
        return {"lines": [f"connection {query} to payments-db:5433"]}

    def query_metrics(metric: str, tool_context: ToolContext) -> dict[str, Any]:
        """A metric's recent values; reports an error the ADK way."""
        calls.ids["query_metrics"] = tool_context.function_call_id or ""
        return {"error": METRICS_ERROR}

    return LlmAgent(
        name="deploy_investigator",
        description="Finds why a deploy failed.",
        model=ScriptedModel(),
        instruction="Investigate the failed deploy.",
        tools=[get_deploy_status, search_logs, query_metrics],
    )


@dataclass(frozen=True)
class ServedAdk:
    url: str
    calls: Calls


@contextlib.asynccontextmanager
async def serve_adk_agent() -> AsyncIterator[ServedAdk]:
    """``to_a2a(agent)`` under uvicorn on a free loopback port, in this event loop."""
    calls = Calls()

    def app(port: int) -> Any:
        return to_a2a(build_agent(calls), host="127.0.0.1", port=port)

    async with loopback_server(app) as url:
        yield ServedAdk(url=url, calls=calls)
