"""How the demo callee consults another agent from inside one of its tools.

The call runs inside a span of the callee's own (as an agent's code would open around its work),
so the trace shows the hop nested under the tool: ``execute_tool diff_config`` > the own span >
the client's ``SendStreamingMessage`` > the other agent's SERVER span and tool spans.
"""

from __future__ import annotations

from typing import Final

from opentelemetry.trace import Tracer

from a2a_progress.cli.agent_client import fetch_card, open_client
from a2a_progress.cli.turn import user_message
from a2a_progress.consumer import TurnOutcome, follow
from a2a_progress.extension import request_progress_extension

OWN_SPAN: Final = "compare config/prod.yaml with v2.13.4"
_TIMEOUT: Final = 30.0


async def ask_agent(url: str, question: str, tracer: Tracer) -> str:
    """Ask the agent at ``url`` ``question`` over A2A streaming; return its reply.

    Raises:
        CliError: the agent could not be reached or did not complete (the caller reports it).
    """
    with tracer.start_as_current_span(OWN_SPAN) as span:
        span.set_attribute("demo.consulted_agent", url)
        card = await fetch_card(url, headers={}, timeout_seconds=_TIMEOUT)
        reply = ""
        async with open_client(card, headers={}, timeout=_TIMEOUT) as client:
            request = user_message(question)
            events = client.send_message(request, context=request_progress_extension())
            async for item in follow(events):
                if isinstance(item, TurnOutcome):
                    reply = item.reply
        return reply
