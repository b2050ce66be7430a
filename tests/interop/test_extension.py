"""The progress envelope as a declared A2A extension, on a real a2a-sdk server over HTTP
(``serve_agent``, which puts ``extensions`` in the card it serves)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from a2a.client import A2ACardResolver
from a2a.client.client import ClientCallContext
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentExtension,
)

from a2a_progress import (
    PROGRESS_EXTENSION_URI,
    ProgressUpdate,
    TurnOutcome,
    declares_progress_extension,
    follow,
    progress_extension,
    request_progress_extension,
)
from a2a_progress.extension import progress_extension_requested
from a2a_progress.serving import create_client, serve_agent, user_message
from support import scripted as step
from support.scripted import ScriptedAgent


class RecordingAgent(ScriptedAgent):
    """Emits one tool call; :attr:`requested` says whether each caller asked for the extension."""

    def __init__(self) -> None:
        super().__init__([step.start("lookup", "call-1"), step.done("call-1"), step.complete("ok")])

    @property
    def requested(self) -> list[bool]:
        return [progress_extension_requested(turn.context) for turn in self.turns.values()]


class Served:
    def __init__(self, url: str, agent: RecordingAgent, declared: bool) -> None:
        self.url = url
        self.agent = agent
        self.declared = declared


@pytest.fixture(params=[True, False], ids=["declared", "undeclared"])
async def served(request: pytest.FixtureRequest) -> AsyncIterator[Served]:
    agent = RecordingAgent()
    extensions = [progress_extension()] if request.param else []
    async with serve_agent(
        agent, name="extension agent", grpc_port=None, extensions=extensions
    ) as running:
        yield Served(running.http_url, agent, declared=bool(request.param))


async def fetched_card(url: str) -> AgentCard:
    async with httpx.AsyncClient() as http:
        return await A2ACardResolver(http, url).get_agent_card()


async def test_the_served_card_says_whether_the_agent_declares_it(served: Served) -> None:
    fetched = await fetched_card(served.url)
    assert declares_progress_extension(fetched) is served.declared
    assert len(fetched.capabilities.extensions) == (1 if served.declared else 0)
    if served.declared:
        [extension] = fetched.capabilities.extensions
        assert extension.uri == PROGRESS_EXTENSION_URI
        assert extension.required is False
        assert dict(extension.params) == {"metadataKey": "tfrs", "envelopeVersion": "1"}


async def test_a_caller_asks_for_it_and_the_agent_sees_the_request(served: Served) -> None:
    agent_card = await fetched_card(served.url)
    async with create_client(agent_card) as client:
        asking = client.send_message(user_message("go"), context=request_progress_extension())
        asked = [u async for u in follow(asking)]
        plain = [u async for u in follow(client.send_message(user_message("go")))]
    assert served.agent.requested == [True, False]
    # The wire format is the same either way: the extension declares what is sent anyway.
    for updates in (asked, plain):
        kinds = [
            (u.envelope.kind.value, u.envelope.status.value)
            for u in updates
            if isinstance(u, ProgressUpdate)
        ]
        assert kinds == [("tool_call", "running"), ("tool_call", "done")]
        assert isinstance(updates[-1], TurnOutcome)
        assert updates[-1].succeeded


def test_requesting_keeps_the_callers_other_parameters() -> None:
    base = ClientCallContext(
        service_parameters={"Authorization": "Bearer x", "A2A-Extensions": "https://ex/a"},
        timeout=5.0,
    )
    context = request_progress_extension(base)
    assert context.timeout == 5.0
    assert context.service_parameters is not None
    assert context.service_parameters["Authorization"] == "Bearer x"
    assert set(context.service_parameters["A2A-Extensions"].split(",")) == {
        "https://ex/a",
        PROGRESS_EXTENSION_URI,
    }
    assert base.service_parameters == {
        "Authorization": "Bearer x",
        "A2A-Extensions": "https://ex/a",
    }
    twice = request_progress_extension(context)
    assert twice.service_parameters == context.service_parameters


def test_the_uri_is_versioned_and_required_is_opt_in() -> None:
    assert PROGRESS_EXTENSION_URI.endswith("/progress-envelope/v1")
    assert progress_extension(required=True).required is True
    other = AgentCard(capabilities=AgentCapabilities(extensions=[AgentExtension(uri="x:y")]))
    assert not declares_progress_extension(other)
    assert not declares_progress_extension(AgentCard())
