"""A caller on a2a-sdk 0.3: asks the agent at argv[1] argv[2] with 0.3's own client through
follow(), prints each progress update and then the reply. Run by test_mixed_lines.py in
.venv-sdk03 under opentelemetry-instrument (PYTHONPATH=tests)."""

import asyncio
import sys

from a2a_progress import ProgressUpdate, TurnOutcome
from sdk03.test_sdk03_turn import ask


def main() -> int:
    updates = asyncio.run(ask(sys.argv[1], sys.argv[2]))
    for update in updates:
        if isinstance(update, ProgressUpdate):
            print(update.envelope.kind.value, update.envelope.status.value)
        elif isinstance(update, TurnOutcome):
            print(update.reply)
    return 0


if __name__ == "__main__":
    sys.exit(main())
