"""``python -m a2a_progress.cli``: how ``demo`` starts its agents with the same interpreter
(``python -m a2a_progress`` is the same command)."""

import sys

from a2a_progress.cli import main

sys.exit(main())
