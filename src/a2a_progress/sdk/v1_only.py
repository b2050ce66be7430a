"""Imported first by the parts that are 1.x-only by design (``serving/``, the CLI): on another
a2a-sdk line their import fails with one clear line instead of a traceback deep in a2a-sdk.

They serve agents and talk to them over the wire, so a 0.3 user runs them from an environment
of their own (``pipx install 'a2a-progress[cli]'``), against any agent.
"""

from a2a_progress.sdk import require

require("a2a_progress.serving and the a2a-progress command")
