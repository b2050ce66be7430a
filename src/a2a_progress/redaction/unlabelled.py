"""The pass for values with no label and no vendor prefix: random strings, masked whole.

A CLI prints a secret in a table cell, on a line of its own, as a positional argument; nothing
around it says "secret". What it is made of does: `mask_random` masks every run of token
characters that `looks_random` finds random, unless it is
structurally public (`public_shape`: a digest, an id,
encoded media, an SSH public key, a value labelled as an id) or sits inside a PEM block that
holds no private key (a certificate, a public key). A path or URL is judged whole, then segment
by segment, so ``https://maker.example.com/trigger/x/with/key/<random>`` loses only its key.

Only words of 20 characters or more are looked at (a split of the text, in C), so prose costs
almost nothing.
"""

from __future__ import annotations

import re
from typing import Final

from a2a_progress.redaction.evidence import (
    CANDIDATE,
    MIN_RANDOM,
    looks_random,
    public_shape,
    random_body,
)
from a2a_progress.redaction.values import MASK

_BEGIN: Final = "-----BEGIN "
_END: Final = "-----END "
_LINE_BACK: Final = 64


def _public_blocks(text: str) -> list[tuple[int, int]]:
    """Spans of PEM blocks that hold no private key (certificates, public keys): linear, one
    ``find`` per block."""
    spans: list[tuple[int, int]] = []
    at = text.find(_BEGIN)
    while at != -1:
        head_end = text.find("-----", at + len(_BEGIN))
        end = text.find(_END, at)
        stop = len(text) if end == -1 else end + len(_END)
        if head_end != -1 and "PRIVATE" not in text[at:head_end]:
            spans.append((at, stop))
        at = text.find(_BEGIN, stop)
    return spans


def _judge(token: str, before: str) -> bool:
    body = random_body(token)
    return body is not None and looks_random(body) and not public_shape(token, before)


# A path or a URL: it starts with "/", "./" or "~", or a segment is a host ("a.b") or a word.
_PATH_SEGMENT: Final = re.compile(r"[a-z]{3,}|[\w-]+\.[a-z]{2,}")


def _is_path(token: str) -> bool:
    if token.startswith(("/", "./", "~")):
        return True
    return any(_PATH_SEGMENT.fullmatch(segment) for segment in token.split("/"))


def _random_parts(token: str, before: str) -> list[tuple[int, int]]:
    """Spans of ``token`` to mask: all of it, or, in a path or URL, its random segments."""
    if "/" not in token or not _is_path(token):
        return [(0, len(token))] if _judge(token, before) else []
    if public_shape(token, before):
        return []
    parts: list[tuple[int, int]] = []
    start = 0
    for segment in token.split("/"):
        end = start + len(segment)
        if len(segment) >= MIN_RANDOM and _judge(segment, before + token[:start]):
            parts.append((start, end))
        start = end + 1
    return parts


# Each byte of UTF-8 as b" " when it is an ASCII blank (what str.split() splits on below 128)
# and b"x" otherwise.
_BLANK_OR_NOT: Final = bytes(32 if chr(byte).isspace() else 120 for byte in range(128)) + (
    b"x" * 128
)


def has_long_word(text: str, length: int = MIN_RANDOM) -> bool:
    """Whether ``text`` has a run of ``length`` non-blank characters or more (by default
    `MIN_RANDOM`: without one it holds no random value and no base64 worth decoding)."""
    # In C, ~10x cheaper than splitting the text into words: in UTF-8 a character is one byte
    # or more, and none of its bytes is an ASCII blank unless it is one, so a text without
    # ``length`` non-blank bytes in a row has no such run of characters. A run of bytes may
    # be shorter in characters (multi-byte ones) or hold a blank above U+007F: the words
    # decide then.
    shape = text.encode("utf-8", "surrogatepass").translate(_BLANK_OR_NOT)
    if b"x" * length not in shape:
        return False
    if text.isascii():
        return True
    return max(map(len, text.split()), default=0) >= length


def mask_random(text: str) -> tuple[str, int]:
    """``text`` with random values masked, and how many were."""
    blocks = _public_blocks(text) if _BEGIN in text else []
    spans: list[tuple[int, int]] = []
    for match in CANDIDATE.finditer(text):
        start, end = match.span()
        if any(low <= start < high for low, high in blocks):
            continue
        if text.startswith("@", end) and not text.endswith("://", 0, start):
            continue  # an address's or a message id's local part
        line = text.rfind("\n", max(0, start - _LINE_BACK), start) + 1
        before = text[max(line, start - _LINE_BACK) : start]
        spans.extend((start + a, start + b) for a, b in _random_parts(match.group(), before))
    if not spans:
        return text, 0
    pieces: list[str] = []
    last = 0
    for start, end in spans:
        pieces.append(text[last:start])
        pieces.append(MASK)
        last = end
    pieces.append(text[last:])
    return "".join(pieces), len(spans)
