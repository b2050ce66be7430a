"""Robustness tests: real processes on loopback, killed, disconnected, flooded or slowed down."""
