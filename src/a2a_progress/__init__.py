"""a2a-progress: structured progress envelopes for A2A agents."""

from a2a_progress.version import __version__

__all__ = ["__version__"]
