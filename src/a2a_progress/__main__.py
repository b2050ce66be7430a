"""``python -m a2a_progress``: the ``a2a-progress`` command, where its script is not on PATH."""

import sys

from a2a_progress.extras import main

sys.exit(main())
