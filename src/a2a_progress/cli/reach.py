"""What went wrong reaching an agent, said in one line a newcomer understands.

The first hour with a new agent meets the same mistakes: a URL typed without ``http://``, the
gRPC port instead of the HTTP one, ``https`` to a plain-HTTP server, a path that is not where the
agent card is, a card that is not JSON, a server that stays silent. Each becomes a
`CliError` with its exit code and a line that says what to do —
never a library's raw text (an "illegal request line", an ``[SSL: ...]`` code, a link to a page
of HTTP status codes).
"""

from __future__ import annotations

import http
import ipaddress
import json
import re
import socket
import ssl
from dataclasses import dataclass
from typing import Final, TypeVar
from urllib.parse import unquote, urlsplit

import httpx
from a2a.client import A2AClientTimeoutError
from a2a.utils.errors import InternalError, TaskNotCancelableError, TaskNotFoundError

from a2a_progress.cli.errors import CliError, ExitCode
from a2a_progress.consumer import error_text

_E = TypeVar("_E", bound=BaseException)
_LOOPBACK_NAMES = frozenset({"localhost", "0.0.0.0"})


@dataclass(frozen=True)
class Flags:
    """The options of the program that reaches the agent, which its failure lines may suggest.

    ``watch`` and ``cancel`` have ``--timeout``, ``--header`` and ``--transport``, and their lines
    say e.g. "raise --timeout". A program without such an option (a script of yours, the demo)
    leaves it None, and no line tells its user to use an option that does not exist.
    """

    timeout: str | None = None
    """Raises the seconds to wait for the agent, e.g. ``--timeout``."""
    header: str | None = None
    """Sends a header (credentials) with each request, e.g. ``--header``."""
    transport: str | None = None
    """Picks the card's transport to call over, e.g. ``--transport``."""


NO_FLAGS: Final = Flags()


def _raise_timeout(flags: Flags) -> str:
    """`` raise --timeout`` when the program has a timeout option, else nothing."""
    return f" raise {flags.timeout}" if flags.timeout else ""


def check_agent_url(url: str, flags: Flags = NO_FLAGS) -> None:
    """Refuse (exit 2) a URL a client cannot call, suggesting the one the user meant.

    ``localhost:9999`` -> ``did you mean http://localhost:9999?``
    """
    if not url.strip():
        raise CliError(
            "URL is empty: give the agent's base URL, e.g. http://localhost:9999", ExitCode.USAGE
        )
    problem = _unparsable(url)
    if problem is not None:
        raise _invalid(url, problem)
    parts = urlsplit(url)
    if parts.scheme in ("http", "https") and parts.hostname:
        problem = _uncallable(url, parts.hostname)
        if problem is not None:
            raise _invalid(url, problem)
        return
    message = f"{url!r} is not an http:// or https:// URL"
    if parts.scheme in ("http", "https"):
        message = f"{url!r} is not a complete {parts.scheme}:// URL"
    if parts.scheme.lower() in ("grpc", "grpcs"):
        message += "; give the agent's HTTP URL (its agent card is served there)"
        if flags.transport:
            message += f" and add {flags.transport} grpc to call it over gRPC"
    elif (suggestion := _suggest_url(url.strip())) is not None:
        message += f"; did you mean {suggestion}?"
    raise CliError(message, ExitCode.USAGE)


def card_endpoint_error(agent: str, endpoint: str) -> CliError | None:
    """The line (exit 8) for an agent card whose HTTP interface URL no client can call
    (the agent's text, not the user's), or None when ``endpoint`` is callable."""
    problem = _unparsable(endpoint)
    if problem is None:
        parts = urlsplit(endpoint)
        if parts.scheme in ("http", "https") and parts.hostname:
            problem = _uncallable(endpoint, parts.hostname)
        else:
            problem = "it is not a complete http:// or https:// URL"
    if problem is None:
        return None
    return CliError(
        f"{agent} is not a usable A2A agent: its card sends calls to {endpoint!r}, which is "
        f"not a valid URL: {problem}",
        ExitCode.NOT_AN_AGENT,
    )


def _invalid(url: str, why: str) -> CliError:
    # repr() quotes the URL and escapes its controls, so the line itself stays inert.
    return CliError(f"{url!r} is not a valid URL: {why}", ExitCode.USAGE)


def _unparsable(url: str) -> str | None:
    """Why ``url`` cannot even be split into its parts, or None."""
    if url != url.strip():  # pasted with a space or newline, which httpx reads as no scheme
        return f"it has spaces around it; did you mean {url.strip()!r}?"
    if any(_is_control(char) for char in url):
        return "it holds a control character"
    if any("\udc80" <= char <= "\udcff" for char in url):  # undecodable command-line bytes
        return "it holds bytes that are not UTF-8 (is the terminal's encoding UTF-8?)"
    try:
        urlsplit(url)
    except ValueError:  # "Invalid IPv6 URL", "'zz' does not appear to be an IPv4 or IPv6 address"
        return _unsplittable(url)
    return None


def _is_control(char: str) -> bool:
    """C0 and C1 controls and DEL: never part of a URL someone means to type."""
    code = ord(char)
    return code < 0x20 or 0x7F <= code < 0xA0


def _unsplittable(url: str) -> str:
    """Why ``urlsplit`` refused ``url``: its only complaints are about a bracketed host."""
    netloc = re.split(r"[/?#]", url.split("://", 1)[-1], maxsplit=1)[0]
    if "[" in netloc and "]" not in netloc:
        return "an unclosed '[' in its host (an IPv6 address is written http://[::1]:9999)"
    if "]" in netloc and "[" not in netloc:
        return "a ']' without '[' in its host"
    return "the host in [...] is not an IP address"


def _uncallable(url: str, host: str) -> str | None:
    """What ``urlsplit`` lets through but no client can call: a port outside 1-65535 or not a
    number, a host name with spaces, or one IDNA refuses (``xn--``, a bidi control); or None."""
    bad_port = "its port must be a number from 1 to 65535"
    try:
        port = urlsplit(url).port
    except ValueError:
        return bad_port
    if port == 0:
        return bad_port
    if any(char.isspace() for char in host):
        return f"its host name {host!r} has a space in it"
    try:
        _ = httpx.URL(url).host  # .host decodes the name: IDNA complains only then
    except httpx.InvalidURL as error:
        # "http://[::1]x": the text after the bracket is read as the port.
        return (
            bad_port
            if str(error).startswith("Invalid port")
            else f"its host name {host!r} is not valid"
        )
    except ValueError:  # idna.IDNAError (a UnicodeError) for a malformed international name
        return f"its host name {host!r} is not valid"
    return None


def _suggest_url(text: str) -> str | None:
    if any(char.isspace() for char in text):
        return None
    scheme = re.match(r"^([a-z][a-z0-9+.-]*):", text, re.IGNORECASE)
    if "://" in text:  # a mistyped scheme: "htp://host", "ftp://host"
        rest = text.split("://", 1)[1]
    elif scheme and scheme.group(1).lower() in ("http", "https"):  # "http:/host", "http:host"
        rest = text[scheme.end() :].lstrip("/")
    elif scheme and not re.match(r"^[^:/]+:\d+(/|$)", text):
        return None  # another kind of URI (mailto:...): nothing sensible to suggest
    else:  # no scheme at all: "localhost:9999", "agent.example.com/a2a"
        rest = text.lstrip("/")
    try:
        host = urlsplit(f"//{rest}").hostname
    except ValueError:  # "localhost:[99": nothing sensible to suggest
        return None
    if not host:
        return None
    has_port = re.match(r"^[^/]*:\d+", rest) is not None
    secure = text.lower().startswith("https") or not (_is_local(host) or has_port)
    return f"{'https' if secure else 'http'}://{rest}"


def _is_local(host: str) -> bool:
    """Loopback, private or a bare name (a docker-compose service): plain HTTP is likely."""
    if host in _LOOPBACK_NAMES or "." not in host:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private


def network_error(
    url: str, error: httpx.RequestError, *, timeout: float | None, flags: Flags = NO_FLAGS
) -> CliError:
    """The line for a request to ``url`` that failed below HTTP (or got no HTTP at all)."""
    host = urlsplit(url).netloc or url
    if isinstance(error, httpx.ConnectTimeout):
        return CliError(
            f"cannot reach {url}: it did not accept a connection{_within(timeout)} "
            f"(a firewall, or a host that is down?{_raise_timeout(flags)})",
            ExitCode.UNREACHABLE,
        )
    if isinstance(error, httpx.TimeoutException):
        return CliError(
            f"cannot reach {url}: it accepted the connection but did not answer"
            f"{_within(timeout)} (a slow agent, or not an HTTP server?{_raise_timeout(flags)})",
            ExitCode.UNREACHABLE,
        )
    reset = _in_chain(error, ConnectionResetError) is not None
    if reset or isinstance(error, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        # Something listens, but it does not speak HTTP/1.1 (a gRPC port, a database, TLS...):
        # it sends bytes that are not HTTP, or hangs up (or resets) instead of answering.
        return CliError(
            f"{url} answered, but not with HTTP, so it serves no A2A agent card there "
            "(is this the agent's gRPC port, or an https:// server? use the agent's HTTP URL, "
            "the one its card is served at)",
            ExitCode.NOT_AN_AGENT,
        )
    tls = _in_chain(error, ssl.SSLError)
    if tls is not None:
        return CliError(_tls_line(url, tls), ExitCode.UNREACHABLE)
    if _in_chain(error, ConnectionRefusedError) is not None:
        return CliError(f"cannot reach {url}: {_nothing_listening(host)}", ExitCode.UNREACHABLE)
    if _in_chain(error, socket.gaierror) is not None:
        name = urlsplit(url).hostname or host
        return CliError(f"cannot reach {url}: no such host {name!r}", ExitCode.UNREACHABLE)
    return CliError(f"cannot reach {url}: {_os_reason(error)}", ExitCode.UNREACHABLE)


def _nothing_listening(host: str) -> str:
    return (
        f"nothing is listening on {host} (connection refused; is the agent running, and on "
        "this port?)"
    )


def _within(timeout: float | None) -> str:
    return f" within {timeout:g}s" if timeout is not None else " in time"


def _in_chain(error: BaseException, kind: type[_E]) -> _E | None:
    """The first exception of type ``kind`` among ``error`` and its causes (httpx wraps the
    socket's own error two or three times)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, kind):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _tls_line(url: str, error: ssl.SSLError) -> str:
    if isinstance(error, ssl.SSLCertVerificationError):
        return f"cannot reach {url}: its TLS certificate is not trusted ({error.verify_message})"
    reason = (error.reason or "").upper()
    if reason in (
        "WRONG_VERSION_NUMBER",
        "HTTP_REQUEST",
        "UNKNOWN_PROTOCOL",
        "RECORD_LAYER_FAILURE",
    ):
        plain = "http://" + url.split("://", 1)[-1]
        return f"cannot reach {url}: the server does not speak TLS; did you mean {plain}?"
    return f"cannot reach {url}: the TLS handshake failed ({reason.lower() or 'no reason given'})"


def _os_reason(error: BaseException) -> str:
    """``[Errno -2] Name or service not known`` -> ``name or service not known``."""
    text = re.sub(r"^\[Errno -?\d+\]\s*", "", str(error))
    return text[0].lower() + text[1:] if text else "a network error"


# What to do when a URL answers HTTP but serves no agent card: the user's URL is likely wrong.
CHECK_URL: Final = "; check the URL: an A2A agent serves its card at /.well-known/agent-card.json"


def http_status(code: int) -> str:
    """``404 Not Found``: a status with its name, never a link to a page about it."""
    try:
        return f"{code} {http.HTTPStatus(code).phrase}"
    except ValueError:
        return str(code)


def not_json(url: str, where: str, response: httpx.Response) -> CliError:
    """The line for an agent card that is not JSON (an HTML page, a typo in a card file)."""
    kind = response.headers.get("content-type", "").split(";")[0].strip()
    if "json" in kind or response.text.lstrip().startswith(("{", "[")):
        try:
            json.loads(response.text)
        except ValueError as error:
            where_in = (
                f" (line {error.lineno}, column {error.colno})"
                if isinstance(error, json.JSONDecodeError)
                else ""
            )
            return CliError(
                f"{url} does not serve an A2A agent: the agent card at {where} is not valid "
                f"JSON{where_in}; the agent's card is broken: its owner can fix it",
                ExitCode.NOT_AN_AGENT,
            )
    return CliError(
        f"{url} does not serve an A2A agent: GET {where} returned {kind or 'no content type'}, "
        f"not JSON{CHECK_URL}",
        ExitCode.NOT_AN_AGENT,
    )


async def card_elsewhere(http_client: httpx.AsyncClient, url: str, card_path: str) -> str:
    """`` (did you mean ORIGIN? its card is there)`` when ``url`` has a path that served no card
    but the server's root does; else empty."""
    parts = urlsplit(url)
    if parts.path.strip("/") == "" or parts.path.endswith(".json"):
        return ""
    origin = f"{parts.scheme}://{parts.netloc}"
    try:
        response = await http_client.get(origin + card_path)
    except httpx.HTTPError:
        return ""
    if response.status_code != 200:
        return ""
    return f" (did you mean {origin}? an agent card is served there)"


def call_error(
    url: str,
    error: Exception,
    *,
    task_id: str | None,
    timeout: float | None,
    flags: Flags = NO_FLAGS,
) -> CliError:
    """The line for a call to the agent at ``url`` that the SDK failed with ``error``."""
    if isinstance(error, TaskNotFoundError):
        return CliError(f"no task {task_id!r} at {url}", ExitCode.UNSUPPORTED)
    if isinstance(error, TaskNotCancelableError):
        return CliError(f"task {task_id!r} at {url} can no longer be canceled", ExitCode.ENDED)
    if isinstance(error, A2AClientTimeoutError):
        return CliError(
            f"{url} did not answer{_within(timeout)} (a slow agent?{_raise_timeout(flags)})",
            ExitCode.UNREACHABLE,
        )
    network = error if isinstance(error, httpx.RequestError) else error.__cause__
    if isinstance(network, httpx.RequestError):
        return _call_network_error(url, network, timeout, flags)
    cause = error.__cause__
    if isinstance(cause, httpx.HTTPStatusError):
        status = cause.response.status_code
        if status >= 500:
            return CliError(
                f"the agent at {url} failed (HTTP {http_status(status)})", ExitCode.UNSUPPORTED
            )
        return CliError(f"{url} refused the call: HTTP {http_status(status)}", ExitCode.UNSUPPORTED)
    text = _first_line(str(error))
    grpc_status = re.match(r"^gRPC Error (\w+): ?(.*)$", text)
    if grpc_status is not None:
        code, details = grpc_status.groups()
        never = _grpc_never_connected(url, details) if code == "UNAVAILABLE" else None
        if never is not None:
            return never
        if code in ("UNAVAILABLE", "DEADLINE_EXCEEDED"):
            return CliError(f"lost connection to {url} (gRPC {code})", ExitCode.UNREACHABLE)
        if code in ("UNKNOWN", "INTERNAL"):  # the agent raised: say what it said, redacted
            return CliError(
                f"the agent at {url} failed (gRPC {code}): {error_text(error)}",
                ExitCode.UNSUPPORTED,
            )
        return CliError(f"{url} refused: gRPC {code}: {details}", ExitCode.UNSUPPORTED)
    if isinstance(error, InternalError):
        return CliError(f"the agent at {url} failed: {error_text(error)}", ExitCode.UNSUPPORTED)
    return CliError(f"{url} refused: {text}", ExitCode.UNSUPPORTED)


# gRPC's words for a channel that never connected: nothing listening, or a name not resolved
# (older gRPC: "DNS resolution failed for HOST:PORT").
_GRPC_NOT_CONNECTED: Final = re.compile(
    r"failed to connect to all addresses; last error: \w+: (?:ipv[46]:)?(?P<target>\S+?): "
    r"(?P<why>.*)$"
)
_GRPC_NOT_RESOLVED: Final = re.compile(
    r"(?:errors resolving|DNS resolution failed for) (?P<target>[^\s:]+(?::\d+)?)"
)


def _grpc_never_connected(url: str, details: str) -> CliError | None:
    """The line for a gRPC call that never reached the target the card at ``url`` names
    (the card's URL itself was reached: the card came from there), or None."""
    refused = _GRPC_NOT_CONNECTED.search(details)
    resolved = None if refused is not None else _GRPC_NOT_RESOLVED.search(details)
    if refused is not None:
        target = unquote(refused["target"])  # gRPC writes an IPv6 target as %5B::1%5D:1
        said = refused["why"].strip()
        refused_here = "refused" in said.lower()
        why = _nothing_listening(target) if refused_here else said[:1].lower() + said[1:]
    elif resolved is not None:
        target = resolved["target"]
        why = f"no such host {target.rsplit(':', 1)[0]!r}"
    else:
        return None
    return CliError(
        f"cannot reach {target} (gRPC): {why}; the agent card at {url} sends calls there (is the "
        "URL in the card right for this machine?)",
        ExitCode.UNREACHABLE,
    )


def _call_network_error(
    url: str, error: httpx.RequestError, timeout: float | None, flags: Flags
) -> CliError:
    """A call that failed on the network: mid-call, or where the agent card points calls."""
    try:
        called = error.request.url
    except RuntimeError:  # no request attached: the user's URL is all there is to name
        return _lost(url, error, timeout, flags)
    endpoint = f"{called.scheme}://{called.netloc.decode()}"
    if urlsplit(url).netloc == called.netloc.decode():
        return _lost(url, error, timeout, flags)
    # The card was read at URL, but it sends calls elsewhere and that place cannot be reached:
    # agents in containers or bound to 0.0.0.0 often advertise a URL only they can reach.
    reached = network_error(endpoint, error, timeout=timeout, flags=flags)
    return CliError(
        f"{reached.message}; the agent card at {url} sends calls there (is the URL in the card "
        "right for this machine?)",
        reached.code,
    )


def _lost(url: str, error: httpx.RequestError, timeout: float | None, flags: Flags) -> CliError:
    """A network failure in the middle of a call: the connection was lost, not never made."""
    if isinstance(error, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return CliError(
            f"lost connection to {url}: it closed the connection in the middle of the call",
            ExitCode.UNREACHABLE,
        )
    reached = network_error(url, error, timeout=timeout, flags=flags)
    message = reached.message.replace(f"cannot reach {url}", f"lost connection to {url}", 1)
    return CliError(message, reached.code)


def _first_line(text: str) -> str:
    # The SDK appends "For more information check: https://developer.mozilla.org/..." lines.
    return text.strip().splitlines()[0] if text.strip() else "no reason given"
