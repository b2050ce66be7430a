"""How every view prints a duration: ``watch``, the ``traces`` waterfall and the demo alike.

The web panel's ``seconds()`` (``web/static/a2a-progress-panel.js``) prints the same way.
"""

from __future__ import annotations

from typing import Final

UNKNOWN: Final = "?"
"""How a duration nobody recorded is shown (never a made-up ``0.00s``)."""


def duration(seconds: float | None) -> str:
    """``0.2ms``, ``701ms``, ``1.40s``, ``12.3s``, ``2m05s``; `UNKNOWN` for None.

    Examples:
        >>> [duration(s) for s in (0.0002, 0.7012, 1.4, 12.34, 125.4, None)]
        ['0.2ms', '701ms', '1.40s', '12.3s', '2m05s', '?']
    """
    if seconds is None:
        return UNKNOWN
    millis = seconds * 1000
    if millis < 9.95:
        return f"{millis:.1f}ms"
    if millis < 999.5:
        return f"{millis:.0f}ms"
    if seconds < 9.995:
        return f"{seconds:.2f}s"
    if seconds < 59.95:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s"
