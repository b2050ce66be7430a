"""``python -m a2a_progress.cli``: how ``demo`` starts its callee with the same interpreter."""

import sys

from a2a_progress.cli import main

sys.exit(main())
