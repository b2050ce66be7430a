"""Agent text made inert before it reaches a terminal.

An agent is untrusted, and so is everything it sends: its thinking, tool names, reasons, output,
reply, task ids, its card's name and URLs, the span names and events it exports. Printed raw, an
``ESC`` starts a sequence the terminal obeys — clear the screen, set the window title, move the
cursor over earlier lines, write the clipboard (OSC 52) — and a bidi override (U+202E) makes
text read backwards. :func:`inert` shows every such character visibly instead, so the user sees
what the agent sent and the terminal does nothing with it. ``--json`` needs none of this: JSON
escapes controls, and a bidi override inside a JSON string steers nothing.
"""

from __future__ import annotations

from typing import Final

__all__ = ["inert"]


def _table() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in range(0x20):  # C0: the Unicode "control pictures" (ESC -> ␛, BEL -> ␇, CR -> ␍)
        table[code] = chr(0x2400 + code)
    table[0x7F] = "␡"
    for code in range(0x80, 0xA0):  # C1 (0x9b is a one-byte CSI): no pictures exist, so escape
        table[code] = f"\\x{code:02x}"
    # Bidi embeddings, overrides and isolates: they reorder the text that follows on screen.
    for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)):
        table[code] = f"\\u{code:04x}"
    del table[ord("\n")], table[ord("\t")]  # line structure stays; a tab moves nothing back
    return table


_INERT: Final = _table()
# For what must stay on its line (a tool name, a reason, a task id, a header): a newline in it
# would print a line of the agent's making, e.g. a forged "outcome: completed".
_ONE_LINE: Final = {**_INERT, ord("\n"): "␊"}


def inert(text: str, *, one_line: bool = False) -> str:
    """``text`` with control characters (but ``\\n`` and ``\\t``) and bidi overrides shown
    visibly: ``ESC`` -> ``␛``, ``0x9b`` -> ``\\x9b``, U+202E -> ``\\u202e``; a ``\\r\\n`` line
    end becomes ``\\n``, and with ``one_line`` every newline becomes ``␊``. Idempotent: what
    it returns is returned unchanged."""
    return text.replace("\r\n", "\n").translate(_ONE_LINE if one_line else _INERT)
