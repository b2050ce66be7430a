"""Version of the a2a-progress distribution."""

__version__ = "0.1.0"
