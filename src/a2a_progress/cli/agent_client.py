"""Reaching an A2A agent from the command line: its card, a client for it, and clear errors.

Every way this can go wrong — nothing listening, a web server that is not an A2A agent, a card
the SDK cannot use, an unknown task id, a dropped connection — becomes a one-line
`CliError` with its exit code.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from urllib.parse import urlsplit

import httpx
from a2a.client import Client
from a2a.client.card_resolver import parse_agent_card
from a2a.types.a2a_pb2 import AgentCard, AgentInterface
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from a2a.utils.errors import A2AError
from google.protobuf.json_format import ParseError  # type: ignore[import-untyped]

from a2a_progress.cli.errors import CliError, ExitCode
from a2a_progress.cli.reach import (
    CHECK_URL,
    NO_FLAGS,
    Flags,
    call_error,
    card_elsewhere,
    card_endpoint_error,
    check_agent_url,
    http_status,
    network_error,
    not_json,
)
from a2a_progress.serving import (
    BINDINGS,
    Transport,
    card_with_interfaces,
    create_client,
    transport_of,
)


def card_url(url: str, flags: Flags = NO_FLAGS) -> str:
    """Where the agent card of ``url`` is: the URL itself when it names a ``.json`` file."""
    check_agent_url(url, flags)
    if urlsplit(url).path.endswith(".json"):
        return url
    return url.rstrip("/") + AGENT_CARD_WELL_KNOWN_PATH


async def fetch_card(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    timeout_seconds: float = 30.0,
    flags: Flags = NO_FLAGS,
) -> AgentCard:
    """The agent card served for ``url``, read as ``a2a-progress watch`` reads it.

    A script that asks an agent can use it in place of a2a-sdk's ``A2ACardResolver`` to say
    what went wrong the way ``watch`` does (``examples/caller.py``)::

        try:
            card = await fetch_card(url)
        except CliError as error:  # one line naming url, what went wrong and what to do
            sys.exit(f"{error}")

    ``flags``: the options of your program that a line may tell its user to use (`Flags`);
    by default it names none, where ``watch``'s says e.g. "raise --timeout".

    Raises:
        CliError: unreachable (7), not an A2A agent card (8), or a bad URL (2); its text is
            ``watch``'s one line and ``.code`` its exit status.
    """
    where = card_url(url, flags)
    async with httpx.AsyncClient(
        timeout=timeout_seconds, headers=dict(headers or {}), follow_redirects=True
    ) as http:
        try:
            response = await http.get(where)
        except httpx.RequestError as exc:
            raise network_error(url, exc, timeout=timeout_seconds, flags=flags) from exc
        not_an_agent = f"{url} does not serve an A2A agent: GET {where}"
        status = http_status(response.status_code)
        if response.status_code in (401, 403):
            credentials = (
                f"pass credentials with {flags.header}, e.g. {flags.header} "
                "Authorization='Bearer ...'"
                if flags.header
                else "it wants credentials, e.g. an Authorization header"
            )
            raise CliError(
                f"{not_an_agent} answered HTTP {status} ({credentials})", ExitCode.NOT_AN_AGENT
            )
        if response.status_code != 200:
            elsewhere = await card_elsewhere(http, url, AGENT_CARD_WELL_KNOWN_PATH)
            raise CliError(
                f"{not_an_agent} answered HTTP {status}{elsewhere or CHECK_URL}",
                ExitCode.NOT_AN_AGENT,
            )
    try:
        data = response.json()
    except ValueError as exc:
        raise not_json(url, where, response) from exc
    try:
        card = parse_agent_card(data)
    except (ParseError, TypeError, ValueError, AttributeError) as exc:
        raise CliError(
            f"{not_an_agent} returned JSON that is not an agent card{CHECK_URL}",
            ExitCode.NOT_AN_AGENT,
        ) from exc
    if not card.supported_interfaces:
        # ParseDict ignores unknown fields: any JSON object parses, so check for substance.
        raise CliError(
            f"{not_an_agent} returned a card with no interfaces to call{CHECK_URL}",
            ExitCode.NOT_AN_AGENT,
        )
    return card


def offered_transports(card: AgentCard) -> list[str]:
    """The transports the card offers that this client speaks, in the card's order."""
    names = (transport_of(interface) for interface in card.supported_interfaces)
    return list(dict.fromkeys(name for name in names if name is not None))


def only_transport(card: AgentCard, transport: Transport) -> AgentCard:
    """A copy of ``card`` offering only ``transport`` (every protocol version of it)."""
    copy = card_with_interfaces(card, transport)
    if not copy.supported_interfaces:
        offered = ", ".join(offered_transports(card)) or "none this client speaks"
        raise CliError(
            f"{card.name or 'the agent'} does not offer {transport} (it offers: {offered})",
            ExitCode.UNSUPPORTED,
        )
    return copy


def chosen_interface(card: AgentCard) -> tuple[str, AgentInterface] | None:
    """The transport a client of ``card`` will use, and the interface it will call.

    Mirrors the SDK's choice: the first interface with a known binding picks the transport, and
    among that transport's interfaces protocol 1.0 wins over 0.3.
    """
    for interface in card.supported_interfaces:
        name = transport_of(interface)
        if name is None:
            continue
        same = [
            i for i in card.supported_interfaces if i.protocol_binding == interface.protocol_binding
        ]
        return name, next((i for i in same if i.protocol_version.startswith("1.")), interface)
    return None


def describe_endpoint(card: AgentCard) -> str:
    """E.g. ``jsonrpc 1.0 http://127.0.0.1:9999``: how a client of ``card`` will call it."""
    chosen = chosen_interface(card)
    if chosen is None:
        return "no transport this client speaks"
    name, interface = chosen
    version = f" {interface.protocol_version}" if interface.protocol_version else ""
    return f"{name}{version} {interface.url}"


def open_client(
    card: AgentCard,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float = 30.0,
    streaming: bool = True,
    polling: bool = False,
) -> Client:
    """A client for ``card`` (close it: ``async with``); the card's interfaces pick the transport.

    `a2a_progress.serving.create_client` with ``watch``'s checks first: a script that calls an
    agent through it fails as ``watch`` does (``examples/caller.py``). ``headers`` go with
    every call; ``timeout`` bounds each network operation, in seconds.

    Raises:
        CliError: the card sends calls to a URL that is not valid (8), or offers no transport
            this client speaks (9); its text is ``watch``'s one line, ``.code`` its exit status.
    """
    chosen = chosen_interface(card)
    if chosen is not None and chosen[0] != "grpc":  # a gRPC target is host:port, no scheme
        unusable = card_endpoint_error(card.name or "the agent", chosen[1].url)
        if unusable is not None:
            raise unusable
    try:
        return create_client(
            card, streaming=streaming, polling=polling, headers=headers, timeout=timeout
        )
    except ValueError as exc:
        listed = list(dict.fromkeys(i.protocol_binding for i in card.supported_interfaces))
        shown = ", ".join(repr(binding) for binding in listed[:3]) + (
            f" and {len(listed) - 3} more" if len(listed) > 3 else ""
        )
        raise CliError(
            f"{card.name or 'the agent'} offers no transport this client speaks: its card "
            f"lists {shown}, this client calls {', '.join(BINDINGS.values())}",
            ExitCode.UNSUPPORTED,
        ) from exc


@contextlib.contextmanager
def agent_errors(
    url: str,
    *,
    task_id: str | None = None,
    timeout: float | None = None,
    flags: Flags = NO_FLAGS,
) -> Iterator[None]:
    """Turn the SDK's errors during calls to the agent at ``url`` into `CliError`.

    A network failure (the agent went away mid-turn, or its card sends calls to an address this
    machine cannot reach), a timeout or an error the agent answered becomes ``watch``'s one
    line and exit status. ``task_id`` names the task in an unknown-task line; ``timeout`` is
    the seconds a timeout line says; ``flags`` the options a line may suggest (`fetch_card`).
    Ctrl-C (a ``KeyboardInterrupt``, as ``asyncio.run`` raises it) becomes one line too, exit
    130, in place of the traceback of every coroutine it stopped.
    """
    try:
        yield
    except (A2AError, httpx.RequestError) as exc:
        raise call_error(url, exc, task_id=task_id, timeout=timeout, flags=flags) from exc
    except KeyboardInterrupt as exc:
        raise CliError(
            f"interrupted: stopped calling {url}; the agent may still be working on the task",
            ExitCode.INTERRUPTED,
        ) from exc
