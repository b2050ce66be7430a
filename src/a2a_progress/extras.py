"""The ``[cli]`` extra: what a library install leaves out, and the one line said without it.

``pip install a2a-progress`` brings what the protocol and the OpenTelemetry bridge need: the
OpenTelemetry API (an application or a vendor distribution chooses the SDK and exporters),
wrapt and a2a-sdk. The command line, the demo, the OTLP receiver, the web relay and the serving
helpers need more (rich, uvicorn, the OpenTelemetry SDK and OTLP exporters) and come with
``pip install 'a2a-progress[cli]'`` (or ``pipx install 'a2a-progress[cli]'``).

Each of those parts imports `a2a_progress.cli_extra` first: without the extra, the import
fails with `MissingExtraError`, one line naming the extra, and the ``a2a-progress``
command prints that line alone.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Final

CLI_EXTRA: Final = "cli"
INSTALL_CLI: Final = "pip install 'a2a-progress[cli]'"
# One module of each distribution the extra brings.
_CLI_MODULES: Final = (
    "rich",
    "uvicorn",
    "opentelemetry.sdk",
    "opentelemetry.exporter.otlp.proto.http",
    "opentelemetry.proto",
)


class MissingExtraError(ImportError):
    """A part of a2a-progress was imported without the extra it needs (one line)."""


def missing(modules: tuple[str, ...] = _CLI_MODULES) -> list[str]:
    """The modules of ``modules`` that cannot be imported here."""
    absent = []
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except ImportError:  # a parent package is missing
            found = False
        if not found:
            absent.append(name)
    return absent


def require_cli(feature: str) -> None:
    """Raise `MissingExtraError` naming the ``[cli]`` extra unless it is installed."""
    absent = missing()
    if absent:
        raise MissingExtraError(
            f"{feature} needs the [{CLI_EXTRA}] extra: {INSTALL_CLI} "
            f"(missing here: {', '.join(absent)})"
        )


def main() -> int:
    """The ``a2a-progress`` command: one line on stderr, exit 1, without the ``[cli]`` extra."""
    try:
        require_cli("the a2a-progress command")
    except MissingExtraError as error:
        print(f"a2a-progress: {error}", file=sys.stderr)
        return 1
    from a2a_progress.cli import main as cli_main

    return cli_main()
