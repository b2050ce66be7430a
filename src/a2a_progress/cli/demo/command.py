"""``a2a-progress demo``: the command line; `a2a_progress.cli.demo.run` does the work."""

from __future__ import annotations

import argparse
import asyncio
import os

from a2a_progress.cli.arguments import (
    TRANSPORT_CHOICES,
    Commands,
    add_otlp_argument,
    non_negative,
    positive,
    text,
    usage_error,
)
from a2a_progress.cli.console import output_console
from a2a_progress.cli.demo.agent import DEMO_QUESTION
from a2a_progress.cli.view.web import add_web_arguments, web_port

DEFAULT_TRACE_FILE = "a2a-progress-trace.json"


def register(commands: Commands) -> None:
    """Add ``demo`` to the command line."""
    demo = commands.add(
        "demo",
        _run,
        help="run three traced agents on 127.0.0.1 and show one turn, live and as a trace",
        description="Start a demo callee agent and the change auditor it consults from inside a "
        "tool (child processes), and a caller, all traced, on 127.0.0.1; run one turn, showing "
        "the callee's tool calls live, then the trace of all three agents. Nothing to install, "
        "no network. With --otlp URL (or OTEL_EXPORTER_OTLP_ENDPOINT) set, the spans also go "
        "there (e.g. `a2a-progress traces` or the docker-compose stack's collector, "
        "http://localhost:4318).",
    )
    demo.add_argument(
        "--trace-file",
        default=DEFAULT_TRACE_FILE,
        metavar="PATH",
        help="where to write the trace as OTLP JSON (default: %(default)s)",
    )
    demo.add_argument(
        "--pace",
        type=non_negative,
        default=1.0,
        metavar="FACTOR",
        help="scale the callee's pauses: 0.5 is twice as fast, 0 has none (default: 1)",
    )
    demo.add_argument("--transport", choices=TRANSPORT_CHOICES, help="call the callee over this")
    demo.add_argument("--message", type=text, help="ask this instead of the demo question")
    demo.add_argument(
        "--remote",
        metavar="URL",
        help="no embedded callee: run the turn against the demo callee at URL (no trace view)",
    )
    demo.add_argument(
        "--every",
        type=positive,
        metavar="SECONDS",
        help="with --remote: run a turn every SECONDS until stopped",
    )
    add_web_arguments(demo)
    add_otlp_argument(demo)


def _run(args: argparse.Namespace) -> int:
    if args.every is not None and args.remote is None:
        usage_error(args, "--every needs --remote")
    if web_port(args) is not None and args.remote is not None:
        usage_error(args, "--web shows the embedded demo's turn; it does not go with --remote")
    if args.otlp is not None:
        _export_to(args.otlp)
    # Imported here: the OTLP receiver and exporters are only needed once the demo runs.
    from a2a_progress.cli.demo.run import DemoOptions, run_demo

    options = DemoOptions(
        remote=args.remote,
        every=args.every,
        trace_file=args.trace_file,
        pace=args.pace,
        transport=args.transport,
        message=args.message or DEMO_QUESTION,
        web_port=web_port(args),
    )
    return asyncio.run(run_demo(options, output_console()))


def _export_to(endpoint: str) -> None:
    """``--otlp URL``: the demo and its agents export there too, as with the variables set."""
    os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
    os.environ["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf"
    for variable in ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"):
        os.environ.pop(variable, None)  # they would win over the endpoint asked for
