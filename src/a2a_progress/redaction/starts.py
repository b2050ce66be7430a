"""Where a built-in pattern of `a2a_progress.redaction.patterns` can start in a text.

The redactor runs its alternation only at these positions (`a2a_progress.redaction.anchors`),
which finds exactly what a scan of every position finds as long as every match starts at one
of them. Each pattern's match holds a literal (lower case here, as the text is searched
lowered) at a known distance from its start, or starts the run of characters that holds it:

- a vendor token, an AWS or GitHub key, a PEM block, a header, a webhook, ``login``, a bearer
  token, a JWT, a ``--flag``, a query parameter, a command: at its literal, or a fixed number
  of characters before it (``1234567890:AA…``, ``abc1Q~…``, ``proxy-authorization``), or at
  the start of its run of name characters (``db_password=``, ``my-eyJ…``, the scheme of
  ``x://u:p@``, a command's path);
- an XML element, a .pgpass line, a cookie printed with its attributes: back from the ``<``,
  the ``:port:`` or the ``; Path=`` that ends its name or its value.

``tests/redaction/test_starts.py`` checks every corpus text against a scan of every position.
"""

from __future__ import annotations

import re
from typing import Final

from a2a_progress.redaction.anchors import Anchors
from a2a_progress.redaction.patterns import BUILTIN_PATTERNS, COMMAND_PATTERNS

# The patterns in the alternation's order: at one position, the first that matches wins.
ORDER: Final = (*(name for name, _ in BUILTIN_PATTERNS), "tokens",
                *(name for name, _ in COMMAND_PATTERNS))  # fmt: skip
_INDEX: Final = {name: index for index, name in enumerate(ORDER)}
_TOKENS: Final = (
    "glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-", "xox", "xapp-", "sk_", "rk_",
    "whsec_", "sk-", "aiza", "ya29.", "gocspx-", "npm_", "hf_", "sg.", "dapi", "doo_v1_",
    "dop_v1_", "dor_v1_", "shp", "atatt3", "pypi-age", "dckr_pat_", "hvs.", "hvb.", "sq0",
    "pmak-", "lin_api_", "nrak-", "glsa_", "glc_", "key-", "sntrys_", "sntryu_", "figd_",
    "sbp_", "nfp_", "pul-", "gsk_", "r8_", "pplx-", "xai-", "lsv2_", "secret_", "ntn_", "atbb",
    "eaa", "access_token$", "ltai", "akid", "hrku-",
)  # fmt: skip
# (pattern, literal, offsets before the literal where a match holding it starts)
_AT: Final = (
    *(("tokens", word, (0,)) for word in _TOKENS),
    ("tokens", ".atlasv1.", (14,)),
    *(("aws_access_key_id", word, (0,)) for word in (
        "akia", "asia", "abia", "acca", "aida", "aroa", "aipa", "anpa", "anva", "apka", "agpa",
    )),
    *(("github_token", word, (0,)) for word in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_",
                                                  "github_pat_")),
    ("telegram_bot_token", ":aa", (8, 9, 10)),
    ("azure_client_secret", "q~", (4,)),
    ("age_secret_key", "age-secret-key-1", (0,)),
    ("private_key", "-----begin", (0,)),
    ("auth_header", "authorization", (0, 6)),
    ("cookie_header", "cookie", (0, 4)),
    *(("webhook_url", word, (0,)) for word in ("hooks.slack.com", "discord",
                                                 "webhook.office.com", "outlook.office")),
    ("url_token_user", "://", (0,)),
    ("basic_user", "-u", (0, 1)),
    ("basic_user", "--proxy-user", (0,)),
    ("netrc", "login", (0,)),
    *(("query_param", word, (0,)) for word in ("key=", "sig=", "signature=", "code=", "auth=",
                                                 "jwt=", "pass=")),
    ("config_attribute", 'key="', (0,)),
    ("config_attribute", 'name="', (0,)),
    ("bearer", "bearer", (0,)),
    # COMMAND_PATTERNS (only for a text the pre-scan says may hold one)
    *(("tool_password", word, (0,)) for word in ("psk", "presharedkey")),
    ("session_cookie", "__host-", (0,)),
    ("session_cookie", "__secure-", (0,)),
    ("session_cookie", "sid=", (0, 5, 8)),
)  # fmt: skip
_FIRST_COMMAND: Final = len(BUILTIN_PATTERNS) + 1
_Gated = tuple[tuple[str, tuple[tuple[int, str, tuple[int, ...]], ...]], ...]


def _gated(
    entries: tuple[tuple[str, str, tuple[int, ...]], ...],
) -> tuple[tuple[str, tuple[tuple[int, str, tuple[int, ...]], ...]], ...]:
    """The entries grouped under a character of their literal that text often lacks (or "",
    none), so that a text without it skips the group's searches."""
    groups: dict[str, list[tuple[int, str, tuple[int, ...]]]] = {}
    for name, word, offsets in entries:
        gate = next((char for char in "$~=_/:.-" if char in word), "")
        groups.setdefault(gate, []).append((_INDEX[name], word, offsets))
    return tuple((gate, tuple(group)) for gate, group in groups.items())


_COMMON_AT: Final = _gated(tuple(e for e in _AT if _INDEX[e[0]] < _FIRST_COMMAND))
_COMMAND_AT: Final = _gated(tuple(e for e in _AT if _INDEX[e[0]] >= _FIRST_COMMAND))
# "api key", "access key" …: the word before the credential word.
_KEY_PREFIXES: Final = ("api ", "access ", "secret ", "private ", "account ", "auth ")
# Twilio's "AC"/"SK" + 32 hex digits: the literal is common, the hex run after it is not.
_TWILIO: Final = re.compile(r"(?:AC|SK)[0-9a-f]{32}")
# A Discord bot token's start (the pre-scan's hint): found at every position it matches.
_DISCORD: Final = re.compile(r"[MNO][A-Za-z0-9]{23,27}\.[\w-]{6}\.")
# Commands whose password flag is their own (tool_password), maybe after a path.
_COMMANDS: Final = (
    "redis-cli", "sshpass", "docker", "podman", "nerdctl", "buildah", "skopeo", "oras", "az",
    "helm", "ldap", "ssh-keygen", "mysql", "mariadb", "sqlcmd", "bcp", "mongo", "vault login",
    "htpasswd", "npm", "pnpm", "yarn", "aws configure", "dotnet", "gh", "curl", "http", "xh",
    "wpa_passphrase", "nmcli", "--from-literal=", "-u", "-pass", "net use",
)  # fmt: skip
_PAIR_RUN: Final = re.compile(r"[\w.-]*")
# A secret_pair's name is a run of name characters holding a credential word, then a
# separator. Read from the separator back, over the lowered text reversed ("drowssap_bd" for
# "db_password"), the search starts with ":" or "=", rarer than the words, and walks each run
# once; the run's far end is where the name starts. The words reversed: pass, pwd, secret,
# credential, sess, bearer, token, key, auth, signature (each of values.NAME_WORDS holds one).
_PAIR_NAME_BACK: Final = re.compile(
    r"[:=][ \t]*+\]?[\"']?\\?"
    r"((?=[\w.-]*?(?:ssap|dwp|terces|laitnederc|sses|reraeb|nekot|yek|htua|erutangis))[\w.-]++)"
)
# A cli_flag: "-" starting a run of [\w-] that holds a credential word (or "cookie"), then a
# blank. The "-" first lets the engine skip to it; the look-behind keeps to a run's start, so
# each run is walked once.
_FLAG_NAME: Final = re.compile(
    r"-(?<![\w-]-)"
    r"(?=[\w-]*?(?:pass|pwd|secret|credential|sess|bearer|token|key|auth|signature|cookie))"
    r"[\w-]*+[ \t]"
)
# An xml_element's "<" and its name, lowered (the pattern's own start and words).
_ELEMENT: Final = re.compile(r"<(?=[\w:.-]{0,40}?(?:password|secret|token|api_?key|accesskey))")
_JWT_RUN: Final = re.compile(r"[A-Za-z0-9_-]*")
_SCHEME_RUN: Final = re.compile(r"[a-zA-Z0-9+.-]*")
_PATH_RUN: Final = re.compile(r"[\w./-]*")
_BLANKS: Final = re.compile(r"[ \t]*")
_PGPASS_RUN: Final = re.compile(r"[\w.*-]*")
# What follows a .pgpass line's host: ":port:database:user:" (a time of day has no user).
_PGPASS_FIELDS: Final = re.compile(r":(?:[0-9]{1,5}+|\*):[^\s:]{1,256}+:[^\s:]{1,256}+:")
_COOKIE_NAME_RUN: Final = re.compile(r"[\w.%-]*")
_COOKIE_VALUE: Final = re.compile(r"[^\s;,\"'=]*")
_PADDING: Final = re.compile(r"=*")
_COOKIE_ATTRIBUTE: Final = re.compile(
    r";[ \t]*(?i:path=|domain=|expires=|max-age=|samesite=|priority=|httponly|secure"
    r"|partitioned)"
)


def _literal_starts(anchors: Anchors, starts: set[tuple[int, int]], gated: _Gated) -> None:
    add = starts.add
    lowered = anchors.lowered
    for gate, group in gated:
        if gate and gate not in lowered:
            continue
        for pattern, word, offsets in group:
            if word not in lowered:
                continue
            for at in anchors.hits(word):
                for offset in offsets:
                    if at >= offset:
                        add((at - offset, pattern))


def pattern_starts(anchors: Anchors, *, commands: bool) -> set[tuple[int, int]]:
    """``(position, pattern)`` pairs of ``anchors``' text where a built-in pattern (its index
    in `ORDER`) may start: every pair where one does; the command patterns' only with
    ``commands``."""
    starts: set[tuple[int, int]] = set()
    add = starts.add
    text = anchors.text
    index = _INDEX
    _literal_starts(anchors, starts, _COMMON_AT)
    tokens = index["tokens"]
    for twilio in _TWILIO.finditer(text):
        add((twilio.start(), tokens))
    discord = _DISCORD.search(text)
    while discord is not None:
        add((discord.start(), tokens))
        discord = _DISCORD.search(text, discord.start() + 1)
    jwt = index["jwt"]
    for at in anchors.hits("eyj"):
        add((at, jwt))
        add((anchors.whole_run_start(at, _JWT_RUN), jwt))
    url_credentials = index["url_credentials"]
    for at in anchors.hits("://"):
        add((anchors.whole_run_start(at, _SCHEME_RUN), url_credentials))
    _name_starts(anchors, starts)
    if commands:
        _command_starts(anchors, starts)
    return starts


def _command_starts(anchors: Anchors, starts: set[tuple[int, int]]) -> None:
    """The command patterns': tool passwords, config directives, .pgpass lines, cookies."""
    add = starts.add
    text = anchors.text
    index = _INDEX
    _literal_starts(anchors, starts, _COMMAND_AT)
    session = index["session_cookie"]
    for at in anchors.hits("session"):
        # "…session=" or "…session_id=" (what follows the name's last "session").
        if text.startswith(("=", "_id="), at + 7):
            add((anchors.whole_run_start(at, _PAIR_RUN), session))
    tool = index["tool_password"]
    for word in _COMMANDS:
        for at in anchors.hits(word):
            # A command starts after none of [\w./-] ("high", "lazy" hold "gh" and "az"),
            # or ends a path ("/usr/bin/redis-cli"), which starts the match.
            before = text[at - 1] if at else " "
            if before == "/":
                add((anchors.whole_run_start(at, _PATH_RUN), tool))
            elif not (before.isalnum() or before in "_.-"):
                add((at, tool))
    directive = index["config_directive"]
    for word in ("bindpw", "rootpw", "requirepass", "masterauth", "olcrootpw:"):
        for at in anchors.hits(word):
            add((anchors.run_start(at, 41, _BLANKS), directive))
    pgpass = index["pgpass"]
    for at in anchors.hits(":"):
        if _PGPASS_FIELDS.match(text, at):
            add((anchors.run_start(at, 254, _PGPASS_RUN), pgpass))
    cookie = index["cookie_attributes"]
    for at in anchors.hits(";"):
        if _COOKIE_ATTRIBUTE.match(text, at):
            value = anchors.run_start(anchors.run_start(at, at, _PADDING), 4097, _COOKIE_VALUE)
            if value and text[value - 1] == "=":
                add((anchors.run_start(value - 1, 257, _COOKIE_NAME_RUN), cookie))


def _name_starts(anchors: Anchors, starts: set[tuple[int, int]]) -> None:
    """A credential word's: a pair's name, a flag, "api key", an XML element. Each is found by
    one search in C that holds what must follow the name (a separator, a blank, ">"): most
    credential words in prose and code have none of that, and cost nothing in Python."""
    add = starts.add
    text = anchors.text
    lowered = anchors.lowered
    pair = _INDEX["secret_pair"]
    size = len(lowered)
    for found in _PAIR_NAME_BACK.finditer(anchors.lowered_reversed):
        start = size - found.end(1)
        add((start, pair))
        if found.group(1) == "yek" and start and text[start - 1] == " ":
            for prefix in _KEY_PREFIXES:
                if lowered.endswith(prefix, 0, start):
                    add((start - len(prefix), pair))
    flag = _INDEX["cli_flag"]
    for found in _FLAG_NAME.finditer(lowered):
        add((found.start(), flag))
    if "<" in lowered:
        xml = _INDEX["xml_element"]
        for found in _ELEMENT.finditer(lowered):
            add((found.start(), xml))
