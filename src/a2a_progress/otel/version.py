"""Version of the a2a-progress OpenTelemetry instrumentation (the distribution's version)."""

from a2a_progress.version import __version__

__all__ = ["__version__"]
