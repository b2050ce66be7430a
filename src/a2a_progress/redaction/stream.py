"""Redacting a stream piece by piece, so that a secret split across pieces is masked in each.

A thinking stream or a tool's output arrives in pieces (envelopes with one ``streamKey`` and
kind), each sent on at once. Redacted alone, a piece that holds the second half of a secret —
the value after a label that ended the last piece, the next line of a PEM private key or of a
YAML block scalar — has nothing that says "secret". `StreamRedactor` keeps, per stream:

- a *carry*: the raw text of the stream's last lines (up to `CARRY_LINES` lines and
  `CARRY_CHARS` characters). A piece is redacted joined to the carry, and what the carry
  alone redacts to is taken off the front: the rest is the piece, masked as the whole stream
  would be (a label that ended the last piece masks the value that starts this one). A carry
  that holds no credential word and no vendor literal cannot do that, and the piece is then
  redacted alone (one scan, the cost of a piece without a stream). Two rules
  keep a join from doing harm: when a mask would start inside the carry and run into the piece
  (two messages read as one token), and when the joined piece would show part of something the
  piece alone masks, the piece goes out masked as it reads alone. So a secret split *inside*
  a token is masked only where its pieces are recognisable alone (a random run of 20
  characters or more is);
- whether a PEM private key is *open*: from its ``BEGIN`` line on, every piece is masked whole
  up to the ``END`` line, however many pieces the body takes.

Each emitted piece is the piece (nothing is held back), and the state is bounded.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final, Protocol

from a2a_progress.redaction.decoding import secrets_masked
from a2a_progress.redaction.redactor import Redactor
from a2a_progress.redaction.values import MASK

CARRY_LINES: Final = 4
CARRY_CHARS: Final = 1024
_PEM_BEGIN: Final = re.compile(r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END: Final = re.compile(r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")


class Redacts(Protocol):
    """What masks a text: a `Redactor`, or a stream of one."""

    def redact_counted(self, text: str) -> tuple[str, int]:
        """``text`` masked, and how many credentials were."""
        ...


class StreamRedactor:
    """The pieces of one stream, redacted with ``redactor`` as the whole stream would be."""

    __slots__ = ("_carry", "_marks_changes", "_names_nothing", "_pem_open", "_redactor")

    def __init__(self, redactor: Redacts) -> None:
        self._redactor = redactor
        # A redactor that can tell a text holding no credential word (the built-in one) lets a
        # piece after such a carry be redacted alone; any other is always given the join.
        self._names_nothing: Callable[[str], bool] = getattr(redactor, "names_nothing", _never)
        # The built-in redactor writes `MASK` into every value it changes and counts only
        # changes in a text without one; of any other, nothing is assumed.
        self._marks_changes = type(redactor) is Redactor
        self._carry = ""
        self._pem_open = False

    @property
    def held(self) -> int:
        """How many characters of the stream this keeps (at most `CARRY_CHARS`)."""
        return len(self._carry)

    def redact(self, piece: str) -> str:
        """The next piece of the stream, masked."""
        return self.redact_counted(piece)[0]

    def redact_counted(self, piece: str) -> tuple[str, int]:
        """Like `redact`, and how many credentials were masked in it."""
        head = ""
        count = 0
        if self._pem_open:
            end = _PEM_END.search(piece)
            if end is None:
                return (MASK if piece.strip() else piece), int(bool(piece.strip()))
            head, count, piece = MASK, 1, piece[end.end() :]
            self._pem_open = False
            self._carry = ""
        out, found = self._joined(piece)
        return head + out, count + found

    def passed(self, piece: str) -> None:
        """Note the next piece, known to need no mask (it went out as it is): the piece after
        it is still redacted with it in mind."""
        if not self._pem_open:
            self._remember(self._carry + piece)

    def _joined(self, piece: str) -> tuple[str, int]:
        carry = self._carry
        joined = carry + piece
        if not carry or self._names_nothing(carry):
            # Nothing in the carry can make the piece a credential: the piece alone (one scan).
            self._remember(joined)
            return self._redactor.redact_counted(piece)
        masked, count = self._redactor.redact_counted(joined)
        self._remember(joined)
        alone, alone_count = self._redactor.redact_counted(piece)
        if self._marks_changes and not alone_count and masked == joined and MASK not in joined:
            # The join and the piece alone mask nothing (most pieces). Whatever the carry alone
            # masks, the piece then goes out as it is: a carry that changes gains a mask, which
            # the join does not start with, and one that does not leaves the piece. So the
            # carry is not redacted a third time.
            return piece, 0
        carry_masked, carry_count = self._redactor.redact_counted(carry)
        if not masked.startswith(carry_masked):
            # A mask starts inside the carry and runs into the piece: the pieces read as one
            # token ("…key=<your-key>" + "export …") that neither is. Pieces are messages, not
            # halves of a word: the piece is masked as it reads alone.
            return alone, alone_count
        out = masked[len(carry_masked) :]
        # The join may read the piece otherwise than alone does: when the joined piece shows
        # any part of what the piece alone masks, it goes out as it alone is masked.
        if alone_count and any(_shows(out, secret) for secret in secrets_masked(piece, alone)):
            return alone, alone_count
        return out, max(0, count - carry_count)

    def _remember(self, joined: str) -> None:
        last_begin = None
        for last_begin in _PEM_BEGIN.finditer(joined):  # noqa: B007  (the last one counts)
            pass
        if last_begin is not None and _PEM_END.search(joined, last_begin.end()) is None:
            self._pem_open = True
            self._carry = ""
            return
        tail = joined[-CARRY_CHARS:]
        cut = len(tail)
        for _ in range(CARRY_LINES):
            cut = tail.rfind("\n", 0, cut)
            if cut == -1:
                break
        self._carry = tail if cut == -1 else tail[cut + 1 :]


def _shows(text: str, secret: str, width: int = 12) -> bool:
    """Whether ``text`` holds ``secret`` or any ``width`` characters of it."""
    if len(secret) <= width:
        return secret in text
    return any(secret[i : i + width] in text for i in range(len(secret) - width + 1))


def _never(text: str) -> bool:
    return False
