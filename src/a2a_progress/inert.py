"""Peer text made inert before it reaches a terminal or a log line.

A peer is untrusted, and so is everything it sends: an agent's thinking, tool names, reasons,
output, reply, task ids, its card's name and URLs; the span names and events an exporter sends;
the path, headers and body of any request a local server receives. Printed raw, an ``ESC`` starts
a sequence the terminal obeys — clear the screen, set the window title, move the cursor over
earlier lines, write the clipboard (OSC 52) — and a bidi override (U+202E) makes text read
backwards. `inert` shows every such character visibly instead, so the user sees what the
peer sent and the terminal (or the log viewer) does nothing with it. ``--json`` needs none of
this: JSON escapes controls, and a bidi override inside a JSON string steers nothing.

It depends on nothing, so every layer (the OTLP receiver, the servers, the bridge, the command
line) uses this one helper for every line that can carry what a peer chose.
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
    # Bidi marks, embeddings, overrides and isolates: they reorder the text around them on
    # screen. Line and paragraph separators: a log viewer starts a new line at them.
    for code in (0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F)):
        table[code] = f"\\u{code:04x}"
    for code in range(0x2066, 0x206A):
        table[code] = f"\\u{code:04x}"
    # Lone surrogates (JSON can carry them): no terminal shows them, and writing one to a UTF-8
    # stream raises.
    for code in range(0xD800, 0xE000):
        table[code] = f"\\u{code:04x}"
    del table[ord("\n")], table[ord("\t")]  # line structure stays; a tab moves nothing back
    return table


_INERT: Final = _table()
# For what must stay on its line (a tool name, a reason, a task id, a header): a newline in it
# would print a line of the peer's making, e.g. a forged "outcome: completed".
_ONE_LINE: Final = {**_INERT, ord("\n"): "␊"}


def inert(text: str, *, one_line: bool = False) -> str:
    """``text`` with control characters (but ``\\n`` and ``\\t``), bidi controls, line
    separators and lone surrogates shown visibly: ``ESC`` -> ``␛``, ``0x9b`` -> ``\\x9b``,
    U+202E -> ``\\u202e``; a ``\\r\\n`` line end becomes ``\\n``, and with ``one_line`` every
    newline becomes ``␊``. Idempotent: what it returns is returned unchanged."""
    if text.isascii() and text.isprintable():
        # Nothing to show (no control, not even a newline or tab): most texts, e.g. every header
        # a request carries. translate() looks each character up in a dict, ~100x the cost.
        return text
    return text.replace("\r\n", "\n").translate(_ONE_LINE if one_line else _INERT)
