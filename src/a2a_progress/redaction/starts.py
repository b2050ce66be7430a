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
# Words of a credential's name (values.NAME_WORDS and the "api key"/"x-…key" names).
_NAME_PARTS: Final = (
    "pass", "pwd", "secret", "credential", "sess", "bearer", "token", "key", "auth", "signature",
)  # fmt: skip
_PAIR_RUN: Final = re.compile(r"[\w.-]*")
_FLAG_RUN: Final = re.compile(r"[\w-]*")
_JWT_RUN: Final = re.compile(r"[A-Za-z0-9_-]*")
_SCHEME_RUN: Final = re.compile(r"[a-zA-Z0-9+.-]*")
_PATH_RUN: Final = re.compile(r"[\w./-]*")
_XML_RUN: Final = re.compile(r"[\w:.-]*")
_BLANKS: Final = re.compile(r"[ \t]*")
_PGPASS_RUN: Final = re.compile(r"[\w.*-]*")
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
    flag = index["cli_flag"]
    for at in anchors.hits("cookie"):
        start = anchors.whole_run_start(at, _FLAG_RUN)
        if text[start] == "-":
            add((start, flag))
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
        add((anchors.whole_run_start(at, _PAIR_RUN), session))
    tool = index["tool_password"]
    for word in _COMMANDS:
        for at in anchors.hits(word):
            add((at, tool))
            if at and text[at - 1] == "/":
                add((anchors.whole_run_start(at, _PATH_RUN), tool))
    directive = index["config_directive"]
    for word in ("bindpw", "rootpw", "requirepass", "masterauth", "olcrootpw:"):
        for at in anchors.hits(word):
            add((anchors.run_start(at, 41, _BLANKS), directive))
    pgpass = index["pgpass"]
    for at in anchors.hits(":"):
        if text[at + 1 : at + 2].isdigit() or text.startswith("*", at + 1):
            add((anchors.run_start(at, 254, _PGPASS_RUN), pgpass))
    cookie = index["cookie_attributes"]
    for at in anchors.hits(";"):
        if _COOKIE_ATTRIBUTE.match(text, at):
            value = anchors.run_start(anchors.run_start(at, at, _PADDING), 4097, _COOKIE_VALUE)
            if value and text[value - 1] == "=":
                add((anchors.run_start(value - 1, 257, _COOKIE_NAME_RUN), cookie))


def _name_starts(anchors: Anchors, starts: set[tuple[int, int]]) -> None:
    """A credential word's: a pair's name, a flag, "api key", an XML element."""
    add = starts.add
    text = anchors.text
    lowered = anchors.lowered
    pair, flag, xml = _INDEX["secret_pair"], _INDEX["cli_flag"], _INDEX["xml_element"]
    for word in _NAME_PARTS:
        for at in anchors.hits(word):
            start = anchors.whole_run_start(at, _PAIR_RUN)
            add((start, pair))
            flag_start = anchors.whole_run_start(at, _FLAG_RUN)
            if text[flag_start] == "-":
                add((flag_start, flag))
            if word == "key" and at and text[at - 1] == " ":
                for prefix in _KEY_PREFIXES:
                    if lowered.endswith(prefix, 0, at):
                        add((at - len(prefix), pair))
            # An element's name is the name's run, or longer with a ":" before it.
            before = text[start - 1 : start]
            if before == ":":
                start = anchors.run_start(at, 46, _XML_RUN)
                before = text[start - 1 : start]
            if before == "<" and at - start <= 46:
                add((start - 1, xml))
