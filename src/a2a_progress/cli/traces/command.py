"""``a2a-progress traces``: the command line; `a2a_progress.cli.traces.run` does the work."""

from __future__ import annotations

import argparse
from typing import Final

from a2a_progress.cli.arguments import Commands, port, positive
from a2a_progress.cli.errors import ExitCode

DEFAULT_HTTP_PORT: Final = 4318
DEFAULT_GRPC_PORT: Final = 4317
DEFAULT_QUIET_PERIOD: Final = 2.0
DEFAULT_MAX_TRACES: Final = 1000
DEFAULT_MAX_REQUEST_MIB: Final = 4
_MIB: Final = 1024 * 1024

_EXIT_CODES: Final = f"""\
exit codes:
  0    stopped with Ctrl-C or SIGTERM
  2    bad command-line arguments, or a --json / --otlp-json path that cannot be written
  {int(ExitCode.PORT_IN_USE):<4} cannot listen: the port is taken (or the address is not local)"""


def register(commands: Commands) -> None:
    """Add ``traces`` to the command line."""
    traces = commands.add(
        "traces",
        _run,
        help="receive OTLP from your local agents and print each trace as a waterfall",
        description="Listen for OTLP traces on 127.0.0.1 (OTLP/HTTP on 4318, OTLP/gRPC on 4317) "
        "and print each trace as a waterfall once it is complete: its services, nesting, "
        "durations, status and events. Point your agents at it with "
        "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318. Ctrl-C stops it.",
        exit_codes=False,
    )
    traces.epilog = _EXIT_CODES
    traces.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default: %(default)s; 0.0.0.0 accepts other machines)",
    )
    traces.add_argument(
        "--http-port",
        type=port,
        default=DEFAULT_HTTP_PORT,
        metavar="PORT",
        help="the OTLP/HTTP port, 0 for a free one (default: %(default)s)",
    )
    traces.add_argument(
        "--grpc-port",
        type=port,
        default=DEFAULT_GRPC_PORT,
        metavar="PORT",
        help="the OTLP/gRPC port, 0 for a free one (default: %(default)s)",
    )
    traces.add_argument("--no-grpc", action="store_true", help="serve OTLP/HTTP only")
    traces.add_argument(
        "--quiet-period",
        type=positive,
        default=DEFAULT_QUIET_PERIOD,
        metavar="SECONDS",
        help="a trace is complete once its root span arrived and no span of it came for this "
        "long (default: %(default)s)",
    )
    traces.add_argument(
        "--json",
        metavar="FILE",
        help="write every trace to FILE as one OTLP/JSON request on one line, growing as traces "
        "complete (replaces FILE; the collector's otlpjsonfile format)",
    )
    traces.add_argument(
        "--otlp-json",
        metavar="DIR",
        help="write each trace to DIR/<trace id>.json as OTLP/JSON (rewritten when late spans "
        "arrive)",
    )
    traces.add_argument(
        "--sdk-spans",
        action="store_true",
        help="also draw a2a-sdk's own spans of its methods (many per turn; the files always "
        "hold them)",
    )
    traces.add_argument(
        "--max-traces",
        type=_count,
        default=DEFAULT_MAX_TRACES,
        metavar="N",
        help="traces kept in memory; past it the oldest open one is printed early "
        "(default: %(default)s)",
    )
    traces.add_argument(
        "--max-request-mib",
        type=_count,
        default=DEFAULT_MAX_REQUEST_MIB,
        metavar="MIB",
        help="the largest OTLP request accepted, in MiB, as sent and once decompressed, on both "
        "protocols (default: %(default)s, gRPC's own default)",
    )


def _count(value: str) -> int:
    try:
        count = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if count < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {count}")
    return count


def _run(args: argparse.Namespace) -> int:
    # Imported here: the OTLP servers (grpc, protobuf) are only needed once the command runs.
    from a2a_progress.cli.console import output_console
    from a2a_progress.cli.traces.run import TracesOptions, run_traces

    options = TracesOptions(
        host=args.host,
        http_port=args.http_port,
        grpc_port=None if args.no_grpc else args.grpc_port,
        quiet_period=args.quiet_period,
        json_file=args.json,
        otlp_json_dir=args.otlp_json,
        max_traces=args.max_traces,
        sdk_spans=args.sdk_spans,
        max_request_bytes=args.max_request_mib * _MIB,
    )
    return run_traces(options, output_console())
