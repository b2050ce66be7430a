"""Secrets under an encoding: found in a decoded view of the text, masked in the text itself.

An agent prints a secret HTML-escaped (``{&quot;password&quot;: &quot;…&quot;}``), URL-encoded
inside another URL (``?next=https%3A%2F%2Fuser%3A…%40host``), as JSON inside a JSON string inside
another (``\\\\\\"api_key\\\\\\": …``), behind shell quote escapes (``\\"…\\"``, ``'"'"'``), or
base64-encoded (Kubernetes Secret ``data``, a ``.dockerconfigjson``).

For each encoding the text shows a sign of (an entity, an escaped quote, a ``%XX``), the
redactor's other passes run over the decoded text; every value they mask there is then masked
wherever it occurs in the original, raw or in that encoding. A base64 run of 24 characters or
more that decodes to text is masked whole when its decoded text holds a credential (or a PEM
private key). Decoding goes one level deep for base64 and three for escapes, so the cost stays
linear.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
import urllib.parse
from collections.abc import Callable, Iterator
from typing import Final

from a2a_progress.redaction.values import MASK

Redact = Callable[[str], tuple[str, int]]

_HTML_SIGNS: Final = ("&quot;", "&#34;", "&#x22;", "&#39;", "&#x27;", "&apos;", "&amp;")
_ESCAPE_SIGNS: Final = ('\\"', "\\u00", "'\"'\"'", "\\'")
_PERCENT: Final = re.compile(r"%[0-9A-Fa-f]{2}")
_UNICODE_ESCAPE: Final = re.compile(r"\\u([0-9a-fA-F]{4})")
_BACKSLASHED: Final = re.compile(r"\\([\"'\\/])")
_BASE64: Final = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{24,}+={0,2}(?![A-Za-z0-9+/=_-])")
_MIN_BASE64: Final = 24  # the shortest run _BASE64 takes
_MIN_SECRET: Final = 4
_DEPTH: Final = 3
_MAX_SECRETS: Final = 64


def _unescaped(text: str) -> str:
    """One level of JSON string and shell escapes undone."""
    text = text.replace("'\"'\"'", "'")
    text = _UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    return _BACKSLASHED.sub(r"\1", text)


def _views(text: str) -> list[str]:
    """Decoded views of ``text``, one per encoding it shows a sign of."""
    views: list[str] = []
    if "&" in text and any(sign in text for sign in _HTML_SIGNS):
        views.append(html.unescape(text))
    if "\\" in text or "'\"'\"'" in text:
        view = text
        for _ in range(_DEPTH):
            if not any(sign in view for sign in _ESCAPE_SIGNS):
                break
            view = _unescaped(view)
            views.append(view)
    if "%" in text and _PERCENT.search(text) is not None:
        view = text
        for _ in range(_DEPTH):
            decoded = urllib.parse.unquote(view)
            if decoded == view:
                break
            view = decoded
            views.append(view)
    return views


def secrets_masked(view: str, redacted: str) -> list[str]:
    """The values a redaction masked: ``redacted`` is ``view`` with some spans replaced by
    the mask, everything else kept, so the text between two masks locates each span."""
    segments = redacted.split(MASK)
    if not view.startswith(segments[0]):
        return []
    found: list[str] = []
    pos = len(segments[0])
    for segment in segments[1:]:
        if not segment:
            continue
        at = view.find(segment, pos + 1)
        if at == -1:
            break
        found.append(view[pos:at])
        pos = at + len(segment)
    if redacted.endswith(MASK) and pos < len(view):
        found.append(view[pos:])
    return [secret for secret in found if len(secret.strip()) >= _MIN_SECRET]


def _forms(secret: str) -> list[str]:
    """``secret`` as it may be written in the original: raw, URL-encoded, HTML-escaped,
    JSON-escaped."""
    return [
        secret,
        urllib.parse.quote(secret, safe=""),
        urllib.parse.quote(secret, safe="/"),
        urllib.parse.quote_plus(secret),
        html.escape(secret),
        json.dumps(secret)[1:-1],
    ]


def _decoded_base64(token: str) -> str | None:
    try:
        raw = base64.b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        return None
    head = raw[:96]
    printable = sum(1 for byte in head if 32 <= byte < 127 or byte in (9, 10, 13))
    if not head or printable < 0.9 * len(head):
        return None
    return raw.decode("utf-8", "replace")


def mask_encoded(original: str, text: str, redact: Redact) -> tuple[str, int]:
    """``text`` (``original`` after the other passes) with the secrets found in decoded views
    of ``original`` masked, and how many values were. ``redact`` is the other passes."""
    count = 0
    secrets: set[str] = set()
    for view in _views(original):
        redacted, found = redact(view)
        if found:
            secrets.update(secrets_masked(view, redacted))
    # Longest first: a secret that holds another is masked whole, not around it. Each costs a
    # search of the text: bounded, so that hostile text stays linear. Ties in string order, not a
    # set's (which moves with the string hash seed, and the output with it).
    chosen = sorted(secrets, key=_longest_first)[:_MAX_SECRETS]
    forms = {form for secret in chosen for form in _forms(secret)}
    for form in sorted(forms, key=_longest_first):
        if form in text:
            count += text.count(form)
            text = text.replace(form, MASK)
    words = text.split()
    if max(map(len, words), default=0) >= _MIN_BASE64:  # in C: most texts stop here
        long_words = [word for word in words if len(word) >= _MIN_BASE64]
        text, found = _mask_base64(text, long_words, redact)
        count += found
    return text, count


def _longest_first(secret: str) -> tuple[int, str]:
    return -len(secret), secret


def _runs(text: str, long_words: list[str]) -> Iterator[re.Match[str]]:
    """``_BASE64.finditer(text)``, searched only inside ``long_words`` (the words of ``text``
    of `_MIN_BASE64` characters or more, in order): a run holds no blank, and a blank is
    neither a run's character nor one its look-arounds refuse, so a word's edges are the
    text's for them. Each word is found after the one before it: what lies between is blanks
    and shorter words, which cannot hold it."""
    at = 0
    search = _BASE64.finditer
    for word in long_words:
        at = text.find(word, at)
        end = at + len(word)
        yield from search(text, at, end)
        at = end


def _mask_base64(text: str, long_words: list[str], redact: Redact) -> tuple[str, int]:
    pieces: list[str] = []
    last = 0
    count = 0
    for match in _runs(text, long_words):
        decoded = _decoded_base64(match.group())
        if decoded is None:
            continue
        if "PRIVATE KEY" not in decoded and redact(decoded)[1] == 0:
            continue
        pieces.append(text[last : match.start()])
        pieces.append(MASK)
        last = match.end()
        count += 1
    if not count:
        return text, 0
    pieces.append(text[last:])
    return "".join(pieces), count
