"""The ``a2a-progress`` command line.

``main(argv)`` parses the arguments, runs the command and returns its exit code (see
`a2a_progress.cli.errors`). Every failure is one line on stderr, never a traceback; with no
arguments at all it prints the help and exits 0.

A script that asks an agent can fail as ``watch`` does (``examples/caller.py``): `fetch_card`
reads the card and raises `CliError` when nothing answers at the URL or it serves no A2A agent
card; `open_client` makes the client and raises it when the card offers nothing this client can
call; `agent_errors` turns the SDK's errors of the calls that follow into `CliError` too. Its
text is ``watch``'s one line and its ``code`` is ``watch``'s exit status; a line suggests an
option (``watch``'s say "raise --timeout") only when `Flags` names the script's own.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Sequence

import a2a_progress.cli_extra  # without the [cli] extra: one clear line
import a2a_progress.sdk.v1_only  # noqa: F401 - 1.x only: one clear error on 0.3
from a2a_progress.cli.agent_client import agent_errors, fetch_card, open_client
from a2a_progress.cli.arguments import PROG, CliParser, Commands, HelpFormatter
from a2a_progress.cli.commands import COMMANDS
from a2a_progress.cli.errors import EXIT_CODES_HELP, CliError, ExitCode
from a2a_progress.cli.reach import Flags
from a2a_progress.version import __version__

__all__ = [
    "CliError",
    "Flags",
    "agent_errors",
    "fetch_card",
    "main",
    "open_client",
    "tolerate_unencodable_output",
]


def build_parser() -> CliParser:
    """The ``a2a-progress`` parser, with every command of `COMMANDS`."""
    parser = CliParser(
        prog=PROG,
        description="See what a remote A2A agent is doing while it works: its tool calls, "
        "live in the terminal and as OpenTelemetry traces.",
        epilog=EXIT_CODES_HELP,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = Commands(parser)
    for register in COMMANDS:
        register(commands)
    return parser


def tolerate_unencodable_output() -> None:
    """Print what the terminal cannot encode as escapes instead of failing.

    A peer's text can hold lone surrogates (a JSON ``"\\ud800"`` escape decodes to one), which
    strict UTF-8 output refuses: a watcher must show them, not crash on them.
    """
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``a2a-progress`` command line; return the exit code."""
    tolerate_unencodable_output()
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:  # `a2a-progress` alone: what it can do, not an error
        parser.print_help()
        return int(ExitCode.COMPLETED)
    try:
        args = parser.parse_args(argv)
        code: int = args.run(args)
        return code
    except SystemExit as exit_:  # --help, --version and usage errors
        return exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
    except CliError as error:
        print(f"{PROG}: {error.message}", file=sys.stderr)
        return int(error.code)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, and keep Python's exit-time flush
        # of stdout from failing again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return int(ExitCode.BROKEN_PIPE)
