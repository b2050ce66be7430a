"""Imported first by the parts that come with the ``[cli]`` extra (the command line, the demo,
``otlp/``, ``web/``, ``serving/``): without it their import fails with one line naming the extra
(see `a2a_progress.extras`)."""

from a2a_progress.extras import require_cli

require_cli(
    "this part of a2a-progress (the command line, serving, the OTLP receiver, the web relay)"
)
