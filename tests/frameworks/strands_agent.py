"""A real Strands ``Agent`` served by Strands' own ``A2AServer`` on loopback, with a scripted model.

Imported only where ``strands-agents[a2a]`` is installed (make test-sdk03's venv). The model is
a subclass of Strands' ``Model`` that needs no network: it says what it will do and asks for a
tool, then for a second tool that fails, then answers.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Final

from strands import Agent, tool
from strands.models import Model
from strands.multiagent.a2a import A2AServer

from support.asgi import loopback_server

PLAN: Final = "Checking CI first."
DASHBOARD_ERROR: Final = "dashboard unreachable"
ANSWER: Final = "The deploy is blocked: CI is red (2 failing tests)."
CALLS: Final = {"ci_status": "tooluse_ci_1", "dashboard": "tooluse_dash_2"}


def _tool_results(messages: Any) -> int:
    return sum(
        1
        for message in messages
        for block in message.get("content", ())
        if isinstance(block, dict) and "toolResult" in block
    )


def _text(text: str) -> list[dict[str, Any]]:
    return [
        {"contentBlockStart": {"start": {}}},
        {"contentBlockDelta": {"delta": {"text": text}}},
        {"contentBlockStop": {}},
    ]


def _tool_use(name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"contentBlockStart": {"start": {"toolUse": {"toolUseId": CALLS[name], "name": name}}}},
        {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(arguments)}}}},
        {"contentBlockStop": {}},
    ]


class ScriptedModel(Model):
    """A tool call after a plan, then a failing one, then the answer."""

    def update_config(self, **model_config: Any) -> None:
        return None

    def get_config(self) -> Any:
        return {}

    async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError
        yield  # pragma: no cover

    async def stream(self, messages: Any, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        answered = _tool_results(messages)
        events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
        if answered == 0:
            events += _text(PLAN) + _tool_use("ci_status", {"branch": "main"})
            stop = "tool_use"
        elif answered == 1:
            events += _tool_use("dashboard", {"service": "deploy"})
            stop = "tool_use"
        else:
            events += _text(ANSWER)
            stop = "end_turn"
        events.append({"messageStop": {"stopReason": stop}})
        for event in events:
            yield event


@dataclass
class Served:
    """The server's URL and the tools the agent ran, in order."""

    url: str
    calls: list[str] = field(default_factory=list)


def agent(calls: list[str]) -> Agent:
    """The Strands agent, as a user of Strands writes it; its tools append to ``calls``."""

    @tool
    def ci_status(branch: str) -> str:
        """The CI status of a branch."""
        calls.append("ci_status")
        return f"{branch}: red, 2 failing tests"

    @tool
    def dashboard(service: str) -> str:
        """The deploy dashboard of a service."""
        calls.append("dashboard")
        raise RuntimeError(DASHBOARD_ERROR)

    return Agent(
        name="deploy-helper",
        description="Says why a deploy is blocked.",
        model=ScriptedModel(),
        tools=[ci_status, dashboard],
        callback_handler=None,
    )


@contextlib.asynccontextmanager
async def serve_strands_agent(*, compliant: bool = False) -> AsyncIterator[Served]:
    """Strands' own A2A server for :func:`agent` on a free loopback port.

    ``compliant``: Strands' ``enable_a2a_compliant_streaming`` (text as artifact chunks instead
    of WORKING status messages).
    """
    calls: list[str] = []

    def make_app(port: int) -> Any:
        server = A2AServer(
            agent_factory=lambda _context_id: agent(calls),
            host="127.0.0.1",
            port=port,
            enable_a2a_compliant_streaming=compliant,
        )
        return server.to_starlette_app()

    async with loopback_server(make_app) as url:
        yield Served(url, calls)


def main() -> None:
    """``python -m frameworks.strands_agent --port N``: the server in a process of its own."""
    import argparse

    import uvicorn

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    port = parser.parse_args().port
    calls: list[str] = []
    server = A2AServer(agent_factory=lambda _context_id: agent(calls), host="127.0.0.1", port=port)
    uvicorn.run(server.to_starlette_app(), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
