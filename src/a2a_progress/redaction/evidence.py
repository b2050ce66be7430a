"""Evidence about a value on its own: does it read as random, as a password, or as something
structurally public (a digest, an id, encoded image data, a public key)?

The redactor's last pass masks values that carry no label and no vendor prefix — long random
strings in CLI tables, positional arguments, bare lines — when this module finds them random
and finds no structural reason to think they are public. Every test here is a single pass over
the value (or a bounded look at the text just before it), so the pass stays linear.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter
from typing import Final

# A candidate: a run of the characters tokens are made of (base64 and URL-safe base64, dots
# and tildes), with '=' only as padding at its end. Not after one of them: it starts a run.
TOKEN_CHARS: Final = r"A-Za-z0-9+/_.~\-"
CANDIDATE: Final = re.compile(
    rf"(?<![{TOKEN_CHARS}])[{TOKEN_CHARS}]{{20,}}+(?:={{1,3}}(?![{TOKEN_CHARS}]))?"
)

# Random bodies shorter than this are not trusted: ids and words reach it seldom.
MIN_RANDOM: Final = 20
# A body after a short lower-case prefix and "_" ("ch_", "cus_", "pi_") is an object id of an
# API far more often than a key; keys with such a prefix are longer, or have a pattern.
MIN_PREFIXED: Final = 28
_ID_PREFIX: Final = re.compile(r"[a-z]{1,10}_(?=[A-Za-z0-9])")
# Prefixes that say what the rest is: a digest or integrity hash, never a secret.
_DIGEST_PREFIX: Final = re.compile(
    r"(?i:sha(?:1|224|256|384|512)?|md5|blake2[bs]?|h1|crc32)[-:=](?=\S)"
)
_HEX: Final = re.compile(r"(?:0x)?[0-9a-fA-F-]++")
# Crockford base32, 26 characters: a ULID (time-sortable id).
_ULID: Final = re.compile(r"[0-9A-HJKMNP-TV-Z]{26}")
# The start of base64 image and document data (PNG, JPEG, GIF, WebP, SVG, PDF, ICO).
_MEDIA_MAGIC: Final = ("iVBORw0KGgo", "/9j/", "R0lGOD", "UklGR", "PHN2Zy", "PD94bWwg", "JVBERi",
                       "AAABAA")  # fmt: skip
# Words that, naming a value, say it is public or an identifier, not a secret.
_PUBLIC_LABEL: Final = re.compile(
    r"(?i:(?<![a-z])(?:ids?|uid|uuid|guid|digest|hash|checksum|sha\d*|md5|etag|fingerprint"
    r"|integrity|commit|rev|revision|version|trace|span|request|public|pub|recipient|address"
    r"|thumbprint|kid|image|thumbnail|avatar|icon|logo|playlist|video|nonce|salt|cursor"
    r"|page_?token|next)(?:[_-]?\d+)?)[\"']?[ \t]*[:=][ \t]*[\"'(<]?\Z"
)
# Algorithm names that precede an SSH public key ("ssh-ed25519 AAAA…").
_SSH_KEY_BEFORE: Final = re.compile(
    r"(?:ssh-(?:rsa|dss|ed25519|ed448)|ecdsa-sha2-nistp\d+|sk-(?:ssh|ecdsa)[\w@.-]*"
    r"|[\w.-]+-cert-v01@openssh\.com)[ \t]+\Z"
)
_LOOK_BACK: Final = 48
# Words joined by separators ("Proxy-Authorization", "db_host", "sort.key"): a name.
_WORDS: Final = re.compile(r"[A-Za-z]+(?:[_.-][A-Za-z]+)*")


def entropy(text: str) -> float:
    """Shannon entropy of ``text``'s characters, in bits per character."""
    size = len(text)
    if size == 0:
        return 0.0
    return -sum(n / size * math.log2(n / size) for n in Counter(text).values())


class _Deleting(dict[int, str]):
    """A `str.translate` table that deletes every character it does not list."""

    def __missing__(self, key: int) -> None:
        return None


_DIGITS: Final = "0123456789"
_LOWER: Final = "abcdefghijklmnopqrstuvwxyz"
_UPPER: Final = _LOWER.upper()
# An ASCII letter or digit kept as itself, or as its class (0: digit, 1: lower, 2: upper);
# anything else deleted: in C, rather than a test of each character in Python.
_ALNUM: Final = _Deleting({ord(char): char for char in _DIGITS + _LOWER + _UPPER})
_CLASSES: Final = _Deleting(
    {ord(char): str(kind) for kind, chars in enumerate((_DIGITS, _LOWER, _UPPER)) for char in chars}
)
_RUNS: Final = re.compile(r"0+|1+|2+")


def looks_random(body: str) -> bool:
    """Whether ``body`` reads as machine-made randomness rather than words, an identifier or a
    number: at least `MIN_RANDOM` letters and digits, two of the three classes (lower,
    upper, digit), frequent switches between them (a random string switches on about half its
    characters; ``camelCaseNames`` and ``kebab-case-words`` seldom do), and a high entropy for
    its length."""
    classes = body.translate(_CLASSES)
    size = len(classes)
    if size < MIN_RANDOM:
        return False
    if len(set(classes)) < 2:
        return False
    switches = len(_RUNS.findall(classes)) - 1
    if switches / (size - 1) < 0.28:
        return False
    digits = classes.count("0")
    if digits == 0 and switches / (size - 1) < 0.38:
        return False
    # A random string of n characters from a large alphabet has nearly log2(n) bits per
    # character (few repeats); words and ids repeat letters.
    return entropy(body.translate(_ALNUM)) >= min(4.2, math.log2(size) - 1.0)


def password_like(value: str) -> bool:
    """Whether ``value``, standing where a password may stand, reads as one rather than as a
    word of prose: six characters or more mixing at least two of lower case, upper case,
    digits and symbols, with a digit or a symbol ("MyWifi" is a name), not only digits, not a
    lower-case identifier or a path."""
    if len(value) < 6 or value.isdigit():
        return False
    symbol = any(not c.isalnum() and not c.isspace() for c in value)
    digit = any(c.isdigit() for c in value)
    kinds = any(c.islower() for c in value) + any(c.isupper() for c in value) + digit + symbol
    if kinds < 2 or not (digit or symbol):
        return False
    if _WORDS.fullmatch(value):
        return False
    return not value.startswith(("/", "./", "~/", "$", "%", "{", "<"))


def public_shape(token: str, before: str) -> bool:
    """Whether ``token`` is structurally public: a digest or id, encoded media, an SSH public
    key, or labelled as one (``before`` is the text just before it on its line)."""
    core = token.rstrip("=")
    if _HEX.fullmatch(core) is not None or _ULID.fullmatch(core) is not None:
        return True
    if core.startswith(_MEDIA_MAGIC) or before.endswith(";base64,"):
        return True
    if _DIGEST_PREFIX.match(token) is not None or _digest_before(before):
        return True
    if core.startswith("AAAA") and (_SSH_KEY_BEFORE.search(before) or _ssh_wire(core)):
        return True
    return _PUBLIC_LABEL.search(before[-_LOOK_BACK:]) is not None


def _digest_before(before: str) -> bool:
    tail = before[-12:].lower()
    return tail.endswith(("sha256:", "sha1:", "sha512:", "sha384:", "md5:", "sha256=", "h1:"))


def _ssh_wire(core: str) -> bool:
    """Whether base64 ``core`` starts as an SSH public key blob does: a length, then the
    algorithm name ("ssh-…", "ecdsa-…", "sk-…")."""
    try:
        head = base64.b64decode(core[:16] + "=" * (-len(core[:16]) % 4))
    except (binascii.Error, ValueError):
        return False
    return head[4:8] in (b"ssh-", b"ecds", b"sk-s", b"sk-e")


def random_body(token: str) -> str | None:
    """The part of ``token`` to judge for randomness: the token, or the body after an API
    object id's prefix ("ch_…"), which must then be longer; None when too short for either."""
    prefix = _ID_PREFIX.match(token)
    if prefix is not None:
        body = token[prefix.end() :]
        return body if len(body) >= MIN_PREFIXED else None
    return token
