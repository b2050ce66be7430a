"""A follow-up message that names only its task (no context id) continues that task.

a2a-sdk 1.3 hands the executor a freshly generated context id for such a message, and its task
manager refuses every update made with it (-32602 "Context in event doesn't match
TaskManager"); `open_task` takes the context id of the task being continued instead. Every
transport, both protocol lines of the 1.x server (the same on a2a-sdk 0.3: tests/sdk03).
"""

from __future__ import annotations

import pytest

from a2a_progress import ProgressUpdate, TurnOutcome, follow
from a2a_progress.serving import TRANSPORTS, create_client, serve_agent, user_message
from support.multiturn_agent import AskingAgent


@pytest.mark.parametrize("v0_3", [False, True], ids=["1.0", "0.3"])
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_follow_up_naming_only_the_task_continues_it(transport: str, v0_3: bool) -> None:
    agent = AskingAgent()
    async with (
        serve_agent(agent) as served,
        create_client(served.card_for(transport, v0_3=v0_3)) as client,
    ):
        first = [u async for u in follow(client.send_message(user_message("deploy it")))]
        [asked] = [u for u in first if isinstance(u, TurnOutcome)]
        assert asked.state_label == "input_required"
        assert asked.reply == "Which environment: staging or prod?"
        follow_up = user_message("staging", task_id=asked.task_id)
        assert not follow_up.message.context_id  # the case: the task only
        second = [u async for u in follow(client.send_message(follow_up))]
    [done] = [u for u in second if isinstance(u, TurnOutcome)]
    assert (done.state_label, done.reply) == ("completed", "Deployed to staging.")
    assert done.task_id == asked.task_id
    assert done.context_id == asked.context_id
    tools = [u.call.tool for u in second if isinstance(u, ProgressUpdate) and u.opened and u.call]
    assert tools == ["deploy"]
    assert agent.context_ids == [asked.context_id, asked.context_id]
