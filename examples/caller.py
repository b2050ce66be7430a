"""Ask an A2A agent something and print its progress while it works, then its reply.

    python examples/caller.py http://127.0.0.1:9999 "Why is the deploy blocked?"

Any A2A agent works: one that sends no progress envelopes shows its working updates as text.
"""

import argparse
import asyncio
import sys

from a2a_progress import ProgressUpdate, TurnOutcome, follow
from a2a_progress.cli import CliError, agent_errors, fetch_card, open_client
from a2a_progress.serving import user_message


async def ask(url: str, question: str) -> bool:
    card = await fetch_card(url)  # the agent card, read as `a2a-progress watch` reads it
    request = user_message(question)  # a SendMessageRequest with a new user message
    succeeded = False
    async with open_client(card) as client:  # the card picks the transport
        async for update in follow(client.send_message(request)):  # or client.subscribe(...)
            if isinstance(update, ProgressUpdate):
                env = update.envelope
                text = env.payload.get("text") or env.payload.get("message") or update.fallback
                late = " (late)" if update.late else ""  # show it by seq, before later ones
                line = f"{env.seq:>3} {env.kind.value:<18} {env.status.value:<8} {text}{late}"
                print(line, flush=True)  # now, also into a pipe (Python holds a pipe's lines)
            elif isinstance(update, TurnOutcome):
                print(f"{update.state_label}: {update.reply}", flush=True)
                succeeded = update.succeeded
    return succeeded


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Ask an A2A agent; print its progress.")
    parser.add_argument("agent_url")
    parser.add_argument("question")
    args = parser.parse_args()
    try:
        with agent_errors(args.agent_url):  # a call that fails (the agent went away...) too
            succeeded = asyncio.run(ask(args.agent_url, args.question))
    except CliError as error:  # nothing answers at the URL, it is no A2A agent...: watch's line
        print(f"caller.py: {error}", file=sys.stderr)
        sys.exit(error.code)
    sys.exit(0 if succeeded else 1)
