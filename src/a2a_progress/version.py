"""Version of the a2a-progress distribution."""

__version__ = "0.2.0"
