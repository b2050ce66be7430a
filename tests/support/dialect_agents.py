"""Agents for the views' dialect tests: one that reports its work only as Google ADK's own
parts (no envelope), and one that sends our envelopes, to tell the two apart in a view.

Both are the scripted agent (:mod:`support.scripted`) with their steps."""

from __future__ import annotations

from typing import Final

from dialects.fixtures import adk_call, adk_response, adk_thought
from support.scripted import ScriptedAgent, complete, done, parts, start, thinking

REPLY: Final = "The deploy is blocked by a red CI run."


class AdkPartsAgent(ScriptedAgent):
    """ADK-shaped working updates: a thought, a call that succeeds (``adk-1``) and one whose
    response reports an error (``adk-2``)."""

    THOUGHT: Final = "Check CI first, then the deploy log."
    ERROR: Final = "log store offline"

    def __init__(self) -> None:
        adk_parts = [
            [adk_thought(self.THOUGHT)],
            [adk_call("adk-1", "ci_status", {"branch": "main"})],
            [adk_response("adk-1", "ci_status", {"result": "red"})],
            [adk_call("adk-2", "deploy_log")],
            [adk_response("adk-2", "deploy_log", {"error": self.ERROR})],
        ]
        steps = [parts(each, message_id=f"adk-{index}") for index, each in enumerate(adk_parts)]
        super().__init__([*steps, complete(REPLY)])


class EnvelopeAgent(ScriptedAgent):
    """Our own envelopes (no dialect): a thought and one tool call ``env-1``."""

    def __init__(self) -> None:
        super().__init__(
            [
                thinking("Reading the request."),
                start("ci_status", "env-1"),
                done("env-1"),
                complete(REPLY),
            ]
        )
