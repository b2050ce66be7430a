"""A plain a2a-sdk caller with no telemetry code and no a2a-progress import at all.

``python -m support.zero_code_caller AGENT_URL TEXT [--exit-mid-stream]`` streams ``TEXT`` to
the agent and prints each event it receives as one line of protobuf JSON. With
``--exit-mid-stream`` a daemon thread reads the stream and the process exits as soon as the agent
says it called its ``fetch`` tool, with the stream still open.
"""

import asyncio
import sys
import threading
import uuid
from collections.abc import Callable

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import Message, Part, Role, SendMessageRequest, StreamResponse
from google.protobuf import json_format

# The text fallback of the working update that starts the agent's "fetch" tool.
FETCH_STARTED = "Calling tool fetch"


async def stream(url: str, text: str, seen: Callable[[StreamResponse], None]) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create(card)
        parts = [Part(text=text)]
        message = Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()), parts=parts)
        request = SendMessageRequest(message=message)
        async for event in client.send_message(request):
            print(json_format.MessageToJson(event, indent=None), flush=True)
            seen(event)
        await client.close()


def main() -> int:
    url, text, *options = sys.argv[1:]
    if "--exit-mid-stream" not in options:
        asyncio.run(stream(url, text, lambda event: None))
        return 0
    fetch_started = threading.Event()

    def seen(event: StreamResponse) -> None:
        parts = event.status_update.status.message.parts
        if any(part.text == FETCH_STARTED for part in parts):
            fetch_started.set()

    reader = threading.Thread(target=lambda: asyncio.run(stream(url, text, seen)), daemon=True)
    reader.start()
    return 0 if fetch_started.wait(60) else 1


if __name__ == "__main__":
    sys.exit(main())
