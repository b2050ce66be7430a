"""How every view prints a duration: ``watch``, the ``traces`` waterfall and the demo alike.

The web panel's ``seconds()`` (``web/static/a2a-progress-panel.js``) prints the same way, from
the value ``watch --json`` carries (to 0.1 ms): so does `duration`, and it rounds an exact tie
up as the panel's ``toFixed`` does, so that both views print the same text for the same call.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
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
    seconds = round(seconds, 4)  # the --json value (schema's 0.1 ms), which the panel formats
    millis = seconds * 1000
    if millis < 9.95:
        return f"{_fixed(millis, 1)}ms"
    if millis < 999.5:
        return f"{_fixed(millis, 0)}ms"
    if seconds < 9.995:
        return f"{_fixed(seconds, 2)}s"
    if seconds < 59.95:
        return f"{_fixed(seconds, 1)}s"
    minutes, rest = divmod(int(_fixed(seconds, 0)), 60)
    return f"{minutes}m{rest:02d}s"


def _fixed(value: float, places: int) -> str:
    """``value`` with ``places`` decimals as JavaScript's ``toFixed`` writes it: an exact tie of
    the binary value rounds up (``12.5`` -> ``13``), where Python's format rounds it to even."""
    return str(Decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))
