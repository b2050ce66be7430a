"""Every ``a2a-progress`` command, in the order ``--help`` lists them.

To add a command: write a module with ``register(commands: Commands) -> None`` (see
`a2a_progress.cli.arguments`) and list its ``register`` here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from a2a_progress.cli import cancel, watch
from a2a_progress.cli.arguments import Commands
from a2a_progress.cli.demo import command as demo
from a2a_progress.cli.demo import serve as serve_demo
from a2a_progress.cli.traces import command as traces

COMMANDS: Final[tuple[Callable[[Commands], None], ...]] = (
    demo.register,
    watch.register,
    cancel.register,
    serve_demo.register,
    traces.register,
)
