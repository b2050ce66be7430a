"""Values found by the shape around them when no ``key=value`` pair says "secret".

Each shape names where a value sits and what must be true of it:

- a credential's name and the value after blanks or a table rule, no ``=`` or ``:`` (``vault
  kv get``'s ``password    s3cr3t``, ``| STRIPE_KEY | … |``, ``setx API_SECRET …``, "logged in
  with the password …"): the value must read as a password or as random;
- a credential word, then a quoted literal (SQL ``PASSWORD '…'``, ``IDENTIFIED BY '…'``,
  Groovy ``password '…'``), or ``SET PASSWORD … = '…'``;
- a quoted credential name, a comma, a quoted value (``define('DB_PASSWORD', '…')``,
  ``os.Setenv("API_TOKEN", "…")``, gRPC metadata tuples);
- a call or an auth tuple whose name holds a credential word, with literal arguments: the last
  one is the secret (``setPassword("…")``, ``NetworkCredential("u", "…")``,
  ``auth=("u", "…")``, ``ConvertTo-SecureString "…"``);
- a name field holding a credential word and, within a few lines, its value field (Kubernetes
  ``- name: DB_PASSWORD`` / ``value: …``, JSON ``"Name": "/prod/db_password"`` /
  ``"Value": …``, Hadoop ``<name>…secret.key</name><value>…</value>``);
- a YAML block scalar under a credential's name (``password: |`` and the indented lines);
- a literal piped into a command that reads a secret (``echo '…' | docker login
  --password-stdin``, ``| chpasswd``, ``| gh secret set``);
- a flag whose name ends in a password word (``-storepass``, ``--pw``), a ``-P`` or a glued
  ``-p…`` whose value reads as a password, and ``user/password@host`` (Oracle).

Placeholders, references and masks are never values (`NOT_A_SECRET`). Every
quantifier is bounded or possessive: linear on hostile text.
"""

from __future__ import annotations

import re
from typing import Final

from a2a_progress.redaction.anchors import Anchors, first_matches
from a2a_progress.redaction.evidence import MIN_RANDOM, looks_random, password_like
from a2a_progress.redaction.values import (
    HEADER_NAME_WORD,
    MASK,
    NAME_WORDS,
    NOT_A_SECRET,
    NOT_A_VALUE_NAME,
    SCHEME,
)

# A credential's name: a run of name characters holding a credential word.
_NAME: Final = rf"(?i:(?=[\w.-]{{0,80}}?{NAME_WORDS})[\w.-]{{1,80}}+{NOT_A_VALUE_NAME})"
_TRAILING: Final = ".,;:)]}"


def _quoted(tag: str) -> str:
    """A quoted literal (its quote in group ``{tag}_q``, its text in ``{tag}_val``)."""
    q, v = f"{tag}_q", f"{tag}_val"
    body = rf"(?:(?!(?P={q}))[^\r\n\\]|\\[^\r\n]){{1,512}}+"
    return rf"(?P<{q}>[\"']){NOT_A_SECRET}(?P<{v}>{body})(?P={q})"


# (name, regex) of each shape (whether its value must read as a password or random: _JUDGED).
# The value is the group "<name>_val" (or "<name>_uval" when unquoted), what precedes it is kept.
# Not private: tests/redaction/test_context_gates checks the gate against each shape's literals.
SHAPES: Final[tuple[tuple[str, str], ...]] = (
    (
        "blank",
        rf"(?<![\w.$-]){_NAME}[\"']?"
        r"(?:[ \t]*[|│][ \t]*|\t[ \t]*|[ \t]+(?i:(?:is|was|of)[ \t]+)?)"
        rf"(?:{_quoted('blank')}|{NOT_A_SECRET}(?![=:-])(?P<blank_uval>[^\s\"'`|│]{{1,256}}+))",
    ),
    (
        "sql",
        r"(?<![\w\"'-])(?:(?i:password|passwd|passphrase|identified[ \t]+by|secret|token)"
        r"(?:[ \t]*=[ \t]*|[ \t]+)"
        r"|(?i:set[ \t]+password)[^;\r\n='\"]{0,200}+(?:['\"][^'\"\r\n]{0,100}+['\"]"
        r"[^;\r\n='\"]{0,100}+){0,4}+=[ \t]*)"
        rf"{_quoted('sql')}",
    ),
    (
        "namepair",
        rf"[\"']{_NAME}[\"'][ \t]*,[ \t]*{_quoted('namepair')}",
    ),
    (
        "call",
        r"(?<![\w$])[\w.$:-]{0,60}?(?i:password|passwd|credential|secret|auth|token"
        r"|securestring)[\w]{0,30}+(?:[ \t]*=[ \t]*)?(?:\(|[ \t]+(?=[\"']))[ \t]*"
        r"(?:(?:[\"'][^\"'\r\n]{0,256}+[\"']|[\w.]{1,60}+)[ \t]*,[ \t]*){0,3}+"
        rf"{_quoted('call')}(?=[ \t]*[),]|[ \t]+-|[ \t]*$)",
    ),
    (
        "sibling",
        r"(?<![\w-])(?:(?P<sib_x><)(?i:name|key)>|[\"']?(?i:name|key|parameter)[\"']?[ \t]*[:=])"
        r"[ \t]*[\"']?(?=[^\"'<\r\n]{0,120}?"
        rf"(?i:{NAME_WORDS}|{HEADER_NAME_WORD}))[^\"'<\r\n]{{1,120}}+[\"']?"
        r"(?(sib_x)</(?i:name|key)>|[ \t]*,?)"
        r"(?:[^\r\n]{0,80}+\r?\n){0,3}?[ \t,{-]*"
        r"(?(sib_x)<(?i:value)>|[\"']?(?i:value)[\"']?[ \t]*[:=][ \t]*)"
        # Unquoted, after an optional scheme word ("value: Token …", a Postman header).
        rf"(?:{_quoted('sibling')}|{NOT_A_SECRET}"
        rf"(?P<sibling_uval>(?:{SCHEME}[ \t]+)?[^\s\"'<,;}}]{{1,512}}+))",
    ),
    (
        "block",
        rf"(?m:^(?P<block_in>[ \t]*+)[\"']?{_NAME}[\"']?[ \t]*:[ \t]*[|>][-+0-9]{{0,2}}"
        r"[ \t]*\r?\n)"
        r"(?P<block_val>(?:(?P=block_in)[ \t]++[^\s][^\r\n]{0,4096}+(?:\r?\n|\Z)){1,64}+)",
    ),
    (
        "pipe",
        r"(?<![\w-])(?:echo|printf)(?:[ \t]+-[neE]{1,3}+)?(?:[ \t]+(?P<pipe_f>[\"'])%s(?:\\n)?"
        r"(?P=pipe_f))?[ \t]+"
        rf"(?:{_quoted('pipe')}|{NOT_A_SECRET}(?P<pipe_uval>[^\s\"'|;&<>]{{1,512}}+))"
        r"(?=[ \t]*\|[^\r\n|]{0,200}?(?i:pass|secret|token|login|auth|key))",
    ),
    (
        "flag",
        r"(?<![\w-])(?:-{1,2}[\w-]{0,30}?(?i:pass|passwd|pw|pwd)(?:[ \t]+|=)"
        r"|-P[ \t]*|-p(?=[^\s\d-]))"
        rf"(?:{_quoted('flag')}|{NOT_A_SECRET}(?P<flag_uval>[^\s\"'|;&<>:/]{{1,256}}+)(?![:/]))",
    ),
    (
        "slash",
        r"(?<![\w/:.@-])[\w.-]{1,64}+/(?P<slash_uval>[^\s/@:\"']{1,128}+)@(?=[\w/])",
    ),
)
# Shapes whose unquoted value must read as a password or as random ("the password policy").
_JUDGED: Final = frozenset(
    {"blank_val", "blank_uval", "pipe_uval", "flag_uval", "slash_uval", "sibling_uval"}
)
REGEX: Final = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern in SHAPES))
# Each shape alone (tried only where it can start, see `_starts`).
_SINGLES: Final = tuple(re.compile(f"(?P<{name}>{pattern})") for name, pattern in SHAPES)
# Each shape's value groups, by the shape's name (a match's ``lastgroup``, in the alternation
# as alone): a dict keyed by the pattern would hash its whole compiled code on every lookup.
_VALUE_GROUPS: Final = {
    name: tuple(group for group in single.groupindex if group.endswith(("_val", "_uval")))
    for (name, _), single in zip(SHAPES, _SINGLES, strict=True)
}
# The gate: every match of a shape holds one of these (lower case), so a text without any is
# not scanned (prose with "passed" or "keys" in it costs a few searches, not the regex). A
# credential word common in prose ("pass", "key") counts only with what must stand before or
# after it in a shape's name or flag ("db_pass", "AccessKey", "pass=", "--pw "): each of its
# occurrences is read once, not one search per name ("accesskey", "privatekey" ...).
# ``tests/redaction/test_context_gates.py`` derives from every shape's regex the literals its
# matches hold and checks that this gate accepts each: a shape added with a word missing here
# fails there.
# (word, what may stand before it, what may follow it)
_WORDS: Final = (
    ("pass", ("_", "-", "store", "key"), ("word", "wd", "phrase", " ", "\t", "=", "'", '"', "(")),
    ("key", (
        "_", "-", "api", "access", "private", "account", "master", "signing", "encryption",
        "license", "licence", "client", "app", "application", "auth", "session", "subscription",
        "service", "admin", "consumer", "function", "functions", "webhook", "storage", "deploy",
        "primary", "secondary",
    ), ('"', "'")),
    ("pw", (), ("d", " ", "\t", "=")),
    ("sess", (), ("id", "ionid")),
    ("signature", ("_", "-"), ()),
)  # fmt: skip
# Literals that count wherever they stand ("-p" starts a flag, "/" user/password@host).
_LITERALS: Final = (
    "secret", "token", "credential", "bearer", "auth", "identified", "securestring", "-p", "/",
)  # fmt: skip
# A literal piped into a command: "echo" or "printf", and the pipe.
_PIPED: Final = ("echo", "printf")


def _value_span(match: re.Match[str]) -> tuple[str, int, int] | None:
    for group in _VALUE_GROUPS[match.lastgroup or ""]:
        start = match.start(group)
        if start != -1:
            return group, start, match.end(group)
    return None


# A call that looks a secret up takes its name, not its value ("get_secret('name')").
_LOOKUP: Final = re.compile(
    r"(?:^|[^A-Za-z])(?i:get|fetch|read|load|lookup|find|retrieve|has|delete|remove|describe"
    r"|show|print|log|validate|check|verify|hash|compare)"
)


def _secret(match: re.Match[str], group: str, value: str) -> bool:
    if group == "call_val":
        return _LOOKUP.search(match.group("call")[: match.start(group) - match.start()]) is None
    if group not in _JUDGED:
        return True
    if len(value) < MIN_RANDOM and (value.isalpha() or value.isdigit()):
        # A word or a number ("the token budget"): no symbol nor digit among letters, too
        # short to be random. The common case, decided without the two tests.
        return False
    return password_like(value) or looks_random(value)


def possible(lowered: str) -> bool:
    """Whether a text (``lowered``, in lower case) may hold one of these shapes."""
    # Plain loops, not any() over generators: most texts fail every test, each in C.
    for word, before, after in _WORDS:
        at = lowered.find(word)
        while at != -1:
            if lowered.startswith(after, at + len(word)) or lowered.endswith(before, 0, at):
                return True
            at = lowered.find(word, at + 1)
    for literal in _LITERALS:
        if literal in lowered:
            return True
    if "|" in lowered:
        for command in _PIPED:
            if command in lowered:
                return True
    return False


# Where a shape can start, from the words it holds (see `anchors`): a name holding a credential
# word starts its run of name characters (at most 80 before the word, plus the longest prefix
# of a "..._key" word), or the quote before it, or its line (a block scalar); SQL's keyword, a
# call's name and a flag's dashes are at most 60 and 32 characters before their word; a
# sibling's field name is the word or the quote or "<" before it; "user/password@" is found
# back from its "@".
_NAME_PARTS: Final = (
    "pass", "pwd", "secret", "credential", "sess", "bearer", "token", "key", "auth", "signature",
)  # fmt: skip
_CALL_WORDS: Final = ("pass", "credential", "secret", "auth", "token", "securestring")
_SQL_WORDS: Final = ("pass", "identified", "secret", "token", "set")
_NAME_BACK: Final = 80 + 20
_BLANK, _SQL, _NAMEPAIR, _CALL, _SIBLING, _BLOCK, _PIPE, _FLAG, _SLASH = range(len(SHAPES))
_CALL_RUN: Final = re.compile(r"[\w.$:-]*")
_FLAG_RUN: Final = re.compile(r"[\w-]*")
_SLASH_VALUE: Final = re.compile(r"[^\s/@:\"']*")
# What must follow a credential's name (its run of name characters, whole) for a shape: a quote
# (a name pair), blanks or a table rule after an optional quote (blank), ":" (a block scalar);
# and a call's name then "(" or a quoted argument.
_NAME_MAX: Final = 80
_NAME_END: Final = re.compile(rf"[\w.-]{{0,{_NAME_MAX + 1}}}")
_QUOTES: Final = ('"', "'")
_BLANK_AFTER: Final = " \t|\u2502"
_BLOCK_AFTER: Final = re.compile(r"[\"']?[ \t]*:")
_CALL_AFTER: Final = re.compile(r"\w{0,44}+(?:[ \t]*=[ \t]*)?(?:\(|[ \t]+[\"'])")
# The heads of SQL's and a block scalar's shapes without their look-arounds: a start where
# they fail is not tried (the shape's regex would cost several times more to fail there).
_SQL_HEAD: Final = re.compile(
    r"(?i:password|passwd|passphrase|identified[ \t]+by|secret|token)(?:[ \t]*=[ \t]*|[ \t]+)"
    r"[\"']|(?i:set[ \t]+password)"
)
_BLOCK_HEAD: Final = re.compile(r"[ \t]*+[\"']?[\w.-]{1,80}+[\"']?[ \t]*:[ \t]*[|>]")


def _word_char(char: str) -> bool:
    """``\\w``, or the start or end of the text (``""``)."""
    return char.isalnum() or char == "_"


def _flag_char(char: str) -> bool:
    """``[\\w-]``: a character of a flag's run."""
    return char.isalnum() or char in "_-"


def _name_char(char: str) -> bool:
    """``[\\w.-]``: a character of a name's run (``str.isalnum`` is ``re``'s ``\\w`` but "_")."""
    return char.isalnum() or char in "_.-"


def _starts(anchors: Anchors) -> set[tuple[int, int]]:
    """``(position, shape)`` pairs where a shape (its index in ``SHAPES``) may start. A pair
    is left out when the characters around its word already rule the shape out (what must
    follow a name, a look-behind), so that fewer are tried."""
    starts: set[tuple[int, int]] = set()
    add = starts.add
    text = anchors.text
    # A word several loops look for ("pass", "token", "key"…) is searched for once.
    found: dict[str, list[int]] = {}

    def hits(word: str) -> list[int]:
        at = found.get(word)
        if at is None:
            at = found[word] = anchors.hits(word)
        return at

    for word in _NAME_PARTS:
        for at in hits(word):
            # Most words stand after a blank: then the run starts at the word (no walk back).
            run = anchors.run_start(at, _NAME_BACK) if at and _name_char(text[at - 1]) else at
            end = _NAME_END.match(text, at).end()  # type: ignore[union-attr]
            if end - run > _NAME_MAX:
                continue  # a name of more than 80 characters is followed by one of its own
            after = text[end : end + 1]
            if after in _QUOTES:
                add((run - 1, _NAMEPAIR))
                after = text[end + 1 : end + 2]
            if after and after in _BLANK_AFTER:
                add((run, _BLANK))
            if _BLOCK_AFTER.match(text, end):
                line = anchors.line_start(run)
                if _BLOCK_HEAD.match(text, line):
                    add((line, _BLOCK))
    for word in _SQL_WORDS:
        for at in hits(word):
            before = text[at - 1 : at] if at else ""
            if not (_word_char(before) or (before in "\"'-" and before)) and _SQL_HEAD.match(
                text, at
            ):
                add((at, _SQL))
    for word in _CALL_WORDS:
        for at in hits(word):
            if not _CALL_AFTER.match(text, at):
                continue
            run = anchors.run_start(at, 61, _CALL_RUN)
            add((run, _CALL))
            for i in range(run, at):
                if text[i] in ".:-":
                    add((i + 1, _CALL))
    for word in ("name", "key", "parameter"):
        for at in hits(word):
            # The field's value names a credential on the same line, after the field's name.
            line_end = anchors.lowered.find("\n", at)
            rest = anchors.lowered[at + len(word) : None if line_end == -1 else line_end]
            if not any(part in rest for part in _NAME_PARTS):
                continue
            before = text[at - 1 : at] if at else ""
            if not (_word_char(before) or before == "-"):
                add((at, _SIBLING))
            if before and before in "\"'<":
                add((at - 1, _SIBLING))
    for word in ("echo", "printf"):
        for at in hits(word):
            add((at, _PIPE))
    for at in hits("-p"):
        add((at, _FLAG))
    for word in ("pw", "pass"):
        for at in hits(word):
            if not at or not _flag_char(text[at - 1]):
                continue  # no run of flag characters before it: no dash to start a flag
            for i in range(anchors.run_start(at, 33, _FLAG_RUN), at):
                if text[i] == "-":
                    add((i, _FLAG))
    for at in hits("@"):
        value = anchors.run_start(at, 129, _SLASH_VALUE)
        if value and text[value - 1] == "/":
            add((anchors.run_start(value - 1, 65), _SLASH))
    return starts


def mask_in_context(text: str, *, scan_all: bool = False) -> tuple[str, int]:
    """``text`` with the values of these shapes masked, and how many were. ``scan_all``
    tries the shapes at every position rather than only where one can start (the same
    result, slower: for tests)."""
    lowered = text.lower()
    if not possible(lowered):
        return text, 0
    anchors = Anchors(text, lowered)
    found_all = (
        first_matches(_SINGLES, text, _starts(anchors))
        if anchors.exact and not scan_all
        else REGEX.finditer(text)
    )
    pieces: list[str] = []
    last = 0
    count = 0
    for match in found_all:
        found = _value_span(match)
        if found is None:
            continue
        group, start, end = found
        value = text[start:end]
        if MASK in value or (group in _JUDGED and value.endswith(":")):
            continue  # masked already; or the name of the next pair ("Proxy-Authorization:")
        if group.endswith("_uval") or value.endswith("\n"):
            trimmed = value.rstrip(_TRAILING + "\r\n")
            end -= len(value) - len(trimmed)
            value = trimmed
        if not value or not _secret(match, group, value):
            continue
        pieces.append(text[last:start])
        pieces.append(MASK)
        last = end
        count += 1
    if not count:
        return text, 0
    pieces.append(text[last:])
    return "".join(pieces), count
