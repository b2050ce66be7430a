"""`BrowserGuard`: what a web page can make a browser send to a local server, refused.

A server on this machine is reachable from every web page the user opens. A page cannot read the
answers of another origin, but it can *send*: a "simple" cross-site ``POST`` (``text/plain``,
form encodings, no ``Content-Type``) goes out without a CORS preflight, so a page could start a
turn of a local agent. And a page whose own domain name is made to resolve to 127.0.0.1 (DNS
rebinding) is same-origin with the server as far as the browser knows: it can read too, but its
requests carry *its* name as ``Host``.

So the guard answers only requests that

* are addressed to a name the server serves (``Host``; loopback names for a loopback server),
* come from no other site (``Origin`` absent or the server's own; ``Sec-Fetch-Site`` absent,
  ``same-origin`` or ``none`` — typed in the address bar), unless their origin is allowed, and
* carry JSON, or no body and no ``Content-Type`` at all, on every method but ``GET``, ``HEAD``
  and ``OPTIONS`` (``application/json`` or ``application/…+json``): a browser sends JSON
  cross-site only after a preflight that nothing here answers.

Programs (the a2a-sdk clients, ``curl``, ``a2a-progress watch``) send no ``Origin`` nor
``Sec-Fetch-*`` headers and JSON bodies, and pass. Refusals: 400 (``Host``), 403 (another site),
415 (not JSON), each with a one-line plain-text reason.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Final

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = [
    "ANY_HOST",
    "LOOPBACK_NAMES",
    "BrowserGuard",
    "cross_site",
    "host_allowed",
    "is_wildcard",
    "served_names",
]

LOOPBACK_NAMES: Final = frozenset({"127.0.0.1", "localhost", "::1"})
"""The names a server bound to loopback answers to."""
ANY_HOST: Final = "*"
"""In a list of allowed hosts: any ``Host`` (a server behind a proxy that checks it)."""

_WILDCARD_BINDS: Final = frozenset({"0.0.0.0", "::", ""})
_BODYLESS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
_SAME_SITE: Final = frozenset({"same-origin", "none"})


def is_wildcard(bind: str) -> bool:
    """Whether ``bind`` is a wildcard address (``0.0.0.0``, ``::``): every interface."""
    return bind in _WILDCARD_BINDS


def served_names(bind: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The ``Host`` names a server bound to ``bind`` answers: the loopback names, ``bind``
    itself unless it is a wildcard address, and ``extra`` (e.g. the name a card advertises,
    or `ANY_HOST`)."""
    names = set(LOOPBACK_NAMES)
    if not is_wildcard(bind):
        names.add(_normal(bind))
    names.update(_normal(name) for name in extra)
    return frozenset(names)


def host_allowed(host_header: str | None, allowed: Collection[str]) -> bool:
    """Whether a ``Host`` header (``name[:port]``, ``[v6]:port``) names one of ``allowed``."""
    if ANY_HOST in allowed:
        return True
    if not host_header:
        return False
    return _host_name(host_header) in allowed


def cross_site(headers: Mapping[str, str], allowed_origins: Collection[str] = ()) -> str | None:
    """Why a request comes from another site (a web page's), or None.

    ``headers`` are the request's, looked up by lower-case name. A request with an ``Origin``
    other than its own (``scheme://`` + its ``Host``) or one of ``allowed_origins``, or whose
    browser says ``Sec-Fetch-Site: cross-site`` / ``same-site``, comes from another site.
    """
    origin = headers.get("origin")
    if origin is not None:
        origin = origin.strip().lower().rstrip("/")
        if origin in allowed_origins:
            return None
        host = (headers.get("host") or "").strip().lower()
        if origin not in (f"http://{host}", f"https://{host}"):
            return "a request from another origin"
    site = (headers.get("sec-fetch-site") or "").strip().lower()
    if site and site not in _SAME_SITE:
        return f"a {site} request"
    return None


class BrowserGuard:
    """ASGI middleware refusing what a web page can make a browser send (see the module).

    Args:
        app: the ASGI app to guard (e.g. the Starlette app of an a2a-sdk agent).
        allowed_hosts: the ``Host`` names to answer (any port); `ANY_HOST` for any.
            Defaults to the loopback names.
        allowed_origins: web origins (``https://app.example``) allowed to call it from a
            browser, for a web app of your own; none by default.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: Iterable[str] = LOOPBACK_NAMES,
        allowed_origins: Iterable[str] = (),
    ) -> None:
        self._app = app
        self._hosts = frozenset(_normal(host) for host in allowed_hosts)
        self._origins = frozenset(origin.strip().lower().rstrip("/") for origin in allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan; websockets are not served
            await self._app(scope, receive, send)
            return
        refusal = self.refusal(scope["method"], Headers(scope=scope))
        if refusal is None:
            await self._app(scope, receive, send)
            return
        status, reason = refusal
        body = reason.encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"x-content-type-options", b"nosniff"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def refusal(self, method: str, headers: Mapping[str, str]) -> tuple[int, str] | None:
        """The status and reason to refuse a request with, or None to serve it."""
        if not host_allowed(headers.get("host"), self._hosts):
            return 400, "this server does not answer to that Host"
        why = cross_site(headers, self._origins)
        if why is not None:
            return 403, f"refused {why}"
        if method.upper() not in _BODYLESS and not _json_or_no_body(headers):
            return 415, "send Content-Type: application/json"
        return None


def _json_or_no_body(headers: Mapping[str, str]) -> bool:
    """Whether a request carries JSON, or nothing at all (no type, no body: e.g. a2a-sdk's
    REST ``:subscribe``); a browser's cross-site form or ``text/plain`` body is neither."""
    content_type = headers.get("content-type")
    if content_type is not None:
        return _is_json(content_type)
    length = (headers.get("content-length") or "0").strip()
    return "transfer-encoding" not in headers and length == "0"


def _is_json(content_type: str | None) -> bool:
    media = (content_type or "").split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def _host_name(host_header: str) -> str:
    """The name of a ``Host`` header: no port, no IPv6 brackets, lower case, no final dot."""
    host = host_header.strip()
    if host.startswith("["):
        host = host[1 : host.find("]")] if "]" in host else host
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    return _normal(host)


def _normal(name: str) -> str:
    name = name.strip().lower()
    return name if name == ANY_HOST else name.strip("[]").rstrip(".")
