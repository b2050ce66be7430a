"""The ``a2a-progress`` command: ``demo``, ``watch`` and ``serve-demo``.

``main(argv)`` parses the arguments, runs the command and returns its exit code (see
:mod:`a2a_progress.cli.errors`). Every failure is one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from rich.console import Console

from a2a_progress.cli.errors import EXIT_CODES_HELP, CliError, ExitCode
from a2a_progress.version import __version__

__all__ = ["main"]

_PROG = "a2a-progress"
_TRANSPORTS = ("jsonrpc", "rest", "grpc")


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line (and exit code 2), not the usage block."""

    commands: dict[str, _Parser]

    def error(self, message: str) -> NoReturn:
        self.exit(ExitCode.USAGE, f"{self.prog}: error: {message} (see --help)\n")


class _HelpFormatter(argparse.HelpFormatter):
    """Wraps descriptions to the terminal; keeps pre-formatted text (the exit codes) as is."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def _positive(value: str) -> float:
    number = float(value)
    if not number > 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0, not {value}")
    return number


def _non_negative(value: str) -> float:
    number = float(value)
    if not number >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return number


def _header(value: str) -> tuple[str, str]:
    name, sep, content = value.partition("=")
    if not sep or not name.strip():
        # Never echo the argument: it may be a credential typed without its name.
        raise argparse.ArgumentTypeError("must be NAME=VALUE")
    return name.strip(), content


def _parser() -> _Parser:
    parser = _Parser(
        prog=_PROG,
        description="See what a remote A2A agent is doing while it works: its tool calls, "
        "live in the terminal and as OpenTelemetry traces.",
        epilog=EXIT_CODES_HELP,
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True

    demo = subparsers.add_parser(
        "demo",
        help="run a caller and a callee agent on 127.0.0.1 and show one turn, live and as a trace",
        description="Start a demo callee agent (a child process) and a caller, both traced, on "
        "127.0.0.1; run one turn, showing the callee's tool calls live, then the trace of both "
        "agents. Nothing to install, no network. With OTEL_EXPORTER_OTLP_ENDPOINT set, the spans "
        "also go there (e.g. the docker-compose stack's collector, http://localhost:4318).",
        epilog=EXIT_CODES_HELP,
        formatter_class=_HelpFormatter,
    )
    demo.add_argument(
        "--trace-file",
        default="a2a-progress-trace.json",
        metavar="PATH",
        help="where to write the trace as OTLP JSON (default: %(default)s)",
    )
    demo.add_argument(
        "--pace",
        type=_non_negative,
        default=1.0,
        metavar="FACTOR",
        help="scale the callee's pauses: 0.5 is twice as fast, 0 has none (default: 1)",
    )
    demo.add_argument("--transport", choices=_TRANSPORTS, help="call the callee over this")
    demo.add_argument("--message", help="ask this instead of the demo question")
    demo.add_argument(
        "--remote",
        metavar="URL",
        help="no embedded callee: run the turn against the demo callee at URL (no trace view)",
    )
    demo.add_argument(
        "--every",
        type=_positive,
        metavar="SECONDS",
        help="with --remote: run a turn every SECONDS until stopped",
    )

    watch = subparsers.add_parser(
        "watch",
        help="send a message to any A2A agent and show its progress live",
        description="Send MESSAGE to the A2A agent at URL with streaming and show its progress "
        "live: tool calls, thinking, progress text and streamed output when the agent sends "
        "a2a-progress envelopes, its plain-text updates when it does not. URL is the agent's "
        "base URL or the URL of its agent card.",
        epilog=EXIT_CODES_HELP,
        formatter_class=_HelpFormatter,
    )
    watch.add_argument("url", metavar="URL", help="the agent's base URL, or its agent card's")
    watch.add_argument("message", metavar="MESSAGE", nargs="?", help="the message to send")
    watch.add_argument(
        "--transport", choices=_TRANSPORTS, help="call over this (default: the card's first)"
    )
    watch.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object per update on stdout, then the outcome (for scripts)",
    )
    follow = watch.add_mutually_exclusive_group()
    follow.add_argument(
        "--subscribe", metavar="TASK_ID", help="attach to a running task instead of sending"
    )
    follow.add_argument(
        "--poll",
        metavar="TASK_ID",
        nargs="?",
        const="",
        help="follow TASK_ID by polling GetTask (coarse: from the task's history); without "
        "TASK_ID, send MESSAGE without streaming and poll the task it starts",
    )
    watch.add_argument(
        "--interval",
        type=_positive,
        default=1.0,
        metavar="SECONDS",
        help="with --poll: seconds between polls (default: %(default)s)",
    )
    watch.add_argument(
        "--header",
        type=_header,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="send this header with every request (repeatable), e.g. for auth; values are "
        "never printed",
    )
    watch.add_argument(
        "--timeout",
        type=_positive,
        default=30.0,
        metavar="SECONDS",
        help="give up when the agent is silent this long (default: %(default)s)",
    )

    serve = subparsers.add_parser(
        "serve-demo",
        help="serve the demo callee agent over JSON-RPC, REST and gRPC",
        description="Serve the demo callee agent until SIGTERM or Ctrl-C. Run it under "
        "opentelemetry-instrument to trace it.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    serve.add_argument(
        "--port", type=int, default=9999, help="HTTP port: agent card, JSON-RPC, REST"
    )
    serve.add_argument("--grpc-port", type=int, default=50051, help="gRPC port")
    serve.add_argument(
        "--public-host",
        metavar="NAME",
        help="host name the agent card advertises (default: the bind address)",
    )
    serve.add_argument(
        "--pace", type=_non_negative, default=1.0, metavar="FACTOR", help="scale the pauses"
    )
    serve.add_argument(
        "--otlp-http",
        metavar="URL",
        help="trace with an own tracer provider exporting to this OTLP/HTTP traces URL "
        "(used by `demo`)",
    )
    parser.commands = {"demo": demo, "watch": watch, "serve-demo": serve}
    return parser


def _console() -> Console:
    """The output console; off a terminal (CI, a pipe) rich would assume 80 columns, which cuts
    the waterfall's service names to "demo-cal…": use ``COLUMNS``, else 120."""
    if sys.stdout.isatty():
        return Console()
    return Console(width=int(os.environ.get("COLUMNS", "") or 120))


def _run(args: argparse.Namespace, parser: _Parser) -> int:
    command_parser = parser.commands[args.command]
    console = _console()
    if args.command == "demo":
        if args.every is not None and args.remote is None:
            command_parser.error("--every needs --remote")
        from a2a_progress.cli.demo import DemoOptions, run_demo

        options = DemoOptions(
            remote=args.remote,
            every=args.every,
            trace_file=args.trace_file,
            pace=args.pace,
            transport=args.transport,
            **({"message": args.message} if args.message else {}),
        )
        return asyncio.run(run_demo(options, console))
    if args.command == "watch":
        attach = args.subscribe is not None or bool(args.poll)
        if attach and args.message is not None:
            command_parser.error("give MESSAGE or a TASK_ID to follow, not both")
        if not attach and args.message is None:
            command_parser.error("MESSAGE is required (or --subscribe TASK_ID / --poll TASK_ID)")
        from a2a_progress.cli.watch import WatchOptions, run_watch

        watch_options = WatchOptions(
            url=args.url,
            message=args.message,
            transport=args.transport,
            json=args.json,
            subscribe=args.subscribe,
            poll=args.poll,
            interval=args.interval,
            headers=dict(args.header),
            timeout=args.timeout,
        )
        return asyncio.run(run_watch(watch_options, console, sys.stdout))
    from a2a_progress.cli.serve_demo import run_serve_demo

    return asyncio.run(
        run_serve_demo(
            host=args.host,
            port=args.port,
            grpc_port=args.grpc_port,
            public_host=args.public_host,
            pace=args.pace,
            otlp_http=args.otlp_http,
        )
    )


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
    parser = _parser()
    try:
        args = parser.parse_args(argv)
        return _run(args, parser)
    except SystemExit as exit_:  # --help, --version and usage errors
        return exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
    except CliError as error:
        print(f"{_PROG}: {error.message}", file=sys.stderr)
        return int(error.code)
    except KeyboardInterrupt:
        print(f"{_PROG}: interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, and keep Python's exit-time flush
        # of stdout from failing again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return int(ExitCode.BROKEN_PIPE)
