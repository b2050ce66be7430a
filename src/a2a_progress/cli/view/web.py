"""``--web``: the turn in a browser too — the live panel served on 127.0.0.1 beside the terminal.

``watch --web`` and ``demo --web`` serve the `a2a_progress.web` page on loopback (a free port,
or ``--web-port P``), print its URL on a line of its own, feed the turn to it as well as to the
terminal view, and keep serving after the turn until Ctrl-C (or SIGTERM), so the user can look.
A turn that fails after the page is up shows its error on the page too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import signal
from collections.abc import AsyncIterator
from typing import IO

from a2a_progress.cli.arguments import port
from a2a_progress.cli.errors import CliError, ExitCode
from a2a_progress.cli.view.sink import ProgressSink, Update
from a2a_progress.web import ProgressRelay, serve_panel

__all__ = ["WebPanel", "add_web_arguments", "web_panel", "web_port"]


def add_web_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--web`` and ``--web-port P`` to a command."""
    parser.add_argument(
        "--web",
        action="store_true",
        help="also show the turn in a browser: serve the live panel on 127.0.0.1, print its "
        "URL, and keep serving after the turn until Ctrl-C",
    )
    parser.add_argument(
        "--web-port",
        type=port,
        metavar="P",
        help="serve the --web panel on this port (implies --web; default: a free port)",
    )


def web_port(args: argparse.Namespace) -> int | None:
    """The port to serve the panel on (0: any free one), or None without ``--web``."""
    if args.web_port is not None:
        return int(args.web_port)
    return 0 if args.web else None


class _Tee:
    """Shows each update on the terminal sink and publishes it to the browsers."""

    def __init__(self, sink: ProgressSink, relay: ProgressRelay) -> None:
        self._sink = sink
        self._relay = relay

    def update(self, item: Update) -> None:
        self._relay.publish(item)
        self._sink.update(item)


class WebPanel:
    """The served panel of one turn (or nothing, without ``--web``)."""

    def __init__(self, relay: ProgressRelay | None, url: str | None, out: IO[str]) -> None:
        self.relay = relay
        self.url = url
        self._out = out

    def tee(self, sink: ProgressSink) -> ProgressSink:
        """``sink``, also feeding the browsers when the panel is served."""
        return sink if self.relay is None else _Tee(sink, self.relay)

    def describe(self, title: str) -> None:
        """Set the panel's heading (e.g. the agent's name, once its card is read)."""
        if self.relay is not None:
            self.relay.describe(title=title)

    async def hold(self) -> None:
        """Keep serving until Ctrl-C or SIGTERM (returns at once without ``--web``)."""
        if self.relay is None:
            return
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        signals = (signal.SIGINT, signal.SIGTERM)
        for number in signals:
            loop.add_signal_handler(number, stop.set)
        try:
            # Said once Ctrl-C is ours to handle: pressing it after this line ends cleanly.
            print(f"serving {self.url} until Ctrl-C", file=self._out, flush=True)
            await stop.wait()
        finally:
            for number in signals:
                loop.remove_signal_handler(number)


@contextlib.asynccontextmanager
async def web_panel(
    port: int | None, *, out: IO[str], title: str = "", request: str = ""
) -> AsyncIterator[WebPanel]:
    """Serve the panel on 127.0.0.1:``port`` (None: no panel) and print its URL on ``out``.

    A `CliError` raised inside is shown on the page, which is served until Ctrl-C before
    the error goes on up.
    """
    if port is None:
        yield WebPanel(None, None, out)
        return
    relay = ProgressRelay(title=title, request=request)
    async with contextlib.AsyncExitStack() as stack:
        try:
            url = await stack.enter_async_context(serve_panel(relay, port=port))
        except OSError as error:
            where = f"cannot serve the web panel on 127.0.0.1:{port}"
            if error.errno == errno.EADDRINUSE:
                raise CliError(
                    f"{where}: the port is taken (a second --web?); choose another with "
                    "--web-port, or drop it for a free one",
                    ExitCode.PORT_IN_USE,
                ) from None
            raise CliError(f"{where}: {error.strerror or error}", ExitCode.USAGE) from None
        print(url, file=out, flush=True)
        panel = WebPanel(relay, url, out)
        try:
            yield panel
        except CliError as error:
            relay.fail(error.message, int(error.code))
            await panel.hold()
            raise
