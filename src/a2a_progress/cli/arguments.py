"""Argument parsing shared by every command: the parser type, the registry, value types.

Each command module has a ``register(commands)`` function that adds its subparser with
`Commands.add` and names the function that runs it; ``a2a_progress.cli.commands`` lists
the modules. ``main`` parses and calls ``args.run(args)``: there is no dispatch table to edit.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import Final, NoReturn

from a2a_progress.cli.errors import EXIT_CODES_HELP, CliError, ExitCode
from a2a_progress.cli.reach import Flags, check_agent_url
from a2a_progress.serving import TRANSPORTS

PROG: Final = "a2a-progress"
TRANSPORT_CHOICES: Final = TRANSPORTS

RunCommand = Callable[[argparse.Namespace], int]
"""Runs a parsed command; returns its exit code (failures raise ``CliError``)."""


class CliParser(argparse.ArgumentParser):
    """Usage errors as one line (and exit code 2), not the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(ExitCode.USAGE, f"{self.prog}: error: {message} (see --help)\n")


class HelpFormatter(argparse.HelpFormatter):
    """Wraps descriptions to the terminal; keeps pre-formatted text (the exit codes) as is."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


class Commands:
    """The subcommands of ``parser``; each command module adds itself with `add`."""

    def __init__(self, parser: CliParser) -> None:
        self._subparsers = parser.add_subparsers(
            dest="command", metavar="COMMAND", parser_class=CliParser
        )
        self._subparsers.required = True

    def add(
        self,
        name: str,
        run: RunCommand,
        *,
        help: str,
        description: str,
        exit_codes: bool = True,
    ) -> CliParser:
        """Add the command ``name``, run by ``run``; returns its parser for the arguments."""
        parser = self._subparsers.add_parser(
            name,
            help=help,
            description=description,
            epilog=EXIT_CODES_HELP if exit_codes else None,
            formatter_class=HelpFormatter,
        )
        parser.set_defaults(run=run, command_parser=parser)
        return parser


def usage_error(args: argparse.Namespace, message: str) -> NoReturn:
    """Refuse the parsed arguments of a command: one line on stderr, exit code 2."""
    parser: CliParser = args.command_parser
    parser.error(message)


def text(value: str) -> str:
    """An argument type: text that can be sent. A command line in an encoding other than UTF-8
    reaches Python as undecodable bytes (kept as lone surrogates), which no protocol carries."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError(
            "is not valid UTF-8 (is the terminal's encoding UTF-8?)"
        ) from None
    return value


def _number(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None


def positive(value: str) -> float:
    """An argument type: a number greater than 0."""
    number = _number(value)
    if not number > 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0, not {value}")
    return number


def non_negative(value: str) -> float:
    """An argument type: a number, 0 or more."""
    number = _number(value)
    if not number >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return number


_MAX_PORT: Final = 65535


def port(value: str) -> int:
    """An argument type: a TCP port, 0 to 65535 (0: any free port)."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {value!r}") from None
    if not 0 <= number <= _MAX_PORT:
        raise argparse.ArgumentTypeError(f"must be 0 to {_MAX_PORT}, not {number}")
    return number


# RFC 9110: a header name is a token; its value visible ASCII, spaces and tabs.
_HEADER_NAME: Final = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_HEADER_VALUE: Final = re.compile(r"[\t\x20-\x7e]*")


def header(value: str) -> tuple[str, str]:
    """An argument type: ``NAME=VALUE``, or ``NAME: VALUE`` as curl's ``-H`` writes it."""
    equals, colon = value.find("="), value.find(":")
    at = colon if colon != -1 and (equals == -1 or colon < equals) else equals
    name = value[:at].strip() if at > 0 else ""
    if not _HEADER_NAME.fullmatch(name):
        # Never echo the argument: it may be a credential typed without its name.
        raise argparse.ArgumentTypeError("must be NAME=VALUE (or NAME: VALUE)")
    content = value[at + 1 :]
    # "Name: value" has a space after the colon that is not part of the value.
    content = content.strip() if at == colon else content
    if not _HEADER_VALUE.fullmatch(content):
        # HTTP/1.1 and gRPC metadata carry ASCII; a newline would split the request.
        raise argparse.ArgumentTypeError(
            "its VALUE must be printable ASCII (no newline, control or non-ASCII character)"
        )
    return name, content


# What the options add_agent_arguments gives are called, for the lines that suggest them.
AGENT_FLAGS: Final = Flags(timeout="--timeout", header="--header", transport="--transport")


def add_agent_arguments(parser: argparse.ArgumentParser) -> None:
    """How a command reaches an agent: ``URL`` and ``--transport``, ``--header``, ``--timeout``."""
    parser.add_argument("url", metavar="URL", help="the agent's base URL, or its agent card's")
    parser.add_argument(
        "--transport", choices=TRANSPORT_CHOICES, help="call over this (default: the card's first)"
    )
    parser.add_argument(
        "--header",
        type=header,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="send this header with every request (repeatable), e.g. for auth; values are "
        "never printed",
    )
    parser.add_argument(
        "--timeout",
        type=positive,
        default=30.0,
        metavar="SECONDS",
        help="give up when the agent is silent this long (default: %(default)s)",
    )


def otlp_url(value: str) -> str:
    """An argument type: an OTLP/HTTP URL a client can call (``host:port`` means http://)."""
    url = value if "://" in value else f"http://{value}"
    if not value.strip() or url.split("://", 1)[0].lower() not in ("http", "https"):
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an OTLP/HTTP URL; give e.g. http://127.0.0.1:4318"
        )
    try:
        check_agent_url(url)
    except CliError as error:  # it does not parse, a port out of range...
        raise argparse.ArgumentTypeError(error.message) from None
    return value


def add_otlp_argument(parser: argparse.ArgumentParser) -> None:
    """``--otlp URL``: trace this command itself, exporting over OTLP/HTTP to URL."""
    parser.add_argument(
        "--otlp",
        type=otlp_url,
        metavar="URL",
        help="trace this command too: export its spans over OTLP/HTTP to URL, e.g. "
        "http://127.0.0.1:4318 (`a2a-progress traces` or a collector), so the agent's spans "
        "join its trace",
    )
