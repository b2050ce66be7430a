"""Credential masking for anything that may be logged: envelope text and telemetry content.

The producer and the OpenTelemetry bridge put every text through one `Redactor`;
`a2a_progress.redaction.redactor` says what it masks and what it leaves alone.
"""

from a2a_progress.redaction.redactor import DEFAULT_REDACTOR, Redactor
from a2a_progress.redaction.values import MASK

__all__ = ["DEFAULT_REDACTOR", "MASK", "Redactor"]
