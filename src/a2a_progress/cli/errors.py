"""Exit codes of the ``a2a-progress`` commands, and the one error type they report.

Every failure a user can cause or meet (a bad URL, a server that is not an A2A agent, an unknown
task id, a network error) becomes a `CliError`: one line on stderr and a distinct exit code,
never a traceback.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from a2a_progress import schema
from a2a_progress.consumer.outcomes import state_label
from a2a_progress.inert import inert

__all__ = [
    "EXIT_CODES_HELP",
    "CliError",
    "ExitCode",
    "exit_code_for_state",
    "state_label",
]


class ExitCode(IntEnum):
    """What a command's exit status means (listed in ``--help``)."""

    COMPLETED = 0
    FAILED = 1
    USAGE = 2
    CANCELED = 3
    REJECTED = 4
    NEEDS_INPUT = 5
    INCOMPLETE = 6
    UNREACHABLE = 7
    NOT_AN_AGENT = 8
    UNSUPPORTED = 9
    PORT_IN_USE = 10
    ENDED = 11
    INTERRUPTED = 130
    BROKEN_PIPE = 141


EXIT_CODES_HELP: Final = """\
exit codes:
  0    the task completed
  1    the task failed
  2    bad command-line arguments
  3    the task was canceled
  4    the agent rejected the task
  5    the agent needs input or authorization to go on (input-required / auth-required)
  6    the stream ended before the task did (no terminal state seen)
  7    cannot reach the agent (connection refused, DNS, timeout, network error)
  8    the URL does not serve an A2A agent card
  9    the agent cannot do what was asked (no streaming, unknown task id, protocol error,
       no transport this client speaks)
  10   cannot listen: the port is taken (traces, serve-demo, --web-port)
  11   cancel: the task had already ended (completed, failed or rejected): nothing to cancel
  130  interrupted (Ctrl-C)
  141  stdout was closed early (e.g. piped into head)"""


def exit_code_for_state(state: int) -> ExitCode:
    """The exit code of a turn that ended in ``state`` (any other state: incomplete)."""
    return ExitCode(schema.exit_code_for_state(state))


class CliError(Exception):
    """A failure to report as one line on stderr, with its exit code."""

    def __init__(self, message: str, code: ExitCode) -> None:
        # One line, whatever the underlying library put in its message, and inert: it may
        # quote an agent (a reply, a task id, an SDK error carrying the agent's text).
        self.message = inert(" ".join(message.split()))
        """The line to print (also ``str(error)``): one line, terminal controls made inert."""
        self.code = code
        """The exit status to end with (`ExitCode`)."""
        super().__init__(self.message)
