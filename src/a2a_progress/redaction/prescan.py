"""The redactor's pre-scan: whether a text can hold a built-in credential pattern at all.

Most text an agent sends holds no credential. Python's regex engine tries the redactor's whole
alternation at every position (~1 µs per character); a few substring searches in C decide for
most texts that none of the patterns can match, and `a2a_progress.redaction.redactor` skips the
regex for them. The rule that keeps it safe: every built-in pattern's match contains at least
one literal listed here (or matches one of the hints), so a "no" is never wrong. When a pattern
is added to `a2a_progress.redaction.patterns`, its literal is added here
(``tests/redaction/test_corpus.py`` checks the pre-scan against a redactor that always scans).
"""

from __future__ import annotations

import re
from typing import Final

from a2a_progress.redaction.unlabelled import has_long_word

# Literals (lower case) at least one of which every built-in pattern's match contains. Most text
# holds none of them, and a few substring searches in C cost far less than the alternation,
# which Python's engine tries at every position (~1 us per character of text). They are grouped
# under a character every match of the group's patterns holds (the literal's own, or the
# shape's after it: Slack's "xoxb-"), so prose without "_" or "=" skips those groups.
# Vendor tokens and the other shapes whose match is a run of at least _LONG non-blank
# characters (the shortest, Slack's "xoxb-" and ten more): a text alone without such a run
# skips all of their searches (~60 of them).
_LONG: Final = 15
TOKEN_TRIGGERS: Final = (
    ("", ("aiza", "dapi", "atatt3", "atbb", "eaa", "ltai", "akid", "hrku-")),
    ("-", (
        "glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-", "xox", "xapp-", "sk-",
        "gocspx-", "pypi-age", "pmak-", "nrak-", "sq0", "age-secret-key-", "key-", "pul-",
        "pplx-", "xai-",
    )),
    (".", ("eyj", "ya29.", "sg.", "hvs.", "hvb.", "hooks.slack.com", ".atlasv1.")),
    ("_", (
        "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "k_live_", "k_test_", "whsec_",
        "npm_", "hf_", "_v1_", "shp", "dckr_pat_", "lin_api_", "glsa_", "glc_", "sntrys_",
        "sntryu_", "figd_", "sbp_", "nfp_", "gsk_", "r8_", "lsv2_", "secret_", "ntn_",
        "access_token$",
    )),
    (":", (":aa",)),
    ("/", ("/api/webhooks/", "webhookb2", "/webhook/")),
    ("~", ("q~",)),
)  # fmt: skip
# The other shapes' literals.
TRIGGERS: Final = (
    ("", ("bearer",)),
    ("-", ("-----begin",)),
    ("=", ("sig=", "signature=", "code=", "key=", "auth=", "jwt=", "pass=", 'value="')),
    (":", ("://",)),
)  # fmt: skip
# And the headers' names, which need more than their literal: "authorization" a ":" or "="
# after it, or the quote that ends it in a (name, value) pair (auth_header), "cookie" an "=" in
# its value (cookie_header) or a "-" before it (cli_flag's "--cookie"). Prose says
# "authorization required". (name, characters one of which the text holds, what may follow it)
HEADERS: Final = (("authorization", ":=", ('"', "'", "\\")), ("cookie", "=-", ()))
# AWS key ids are upper case; Twilio ids and Discord bot tokens have no literal. Each regex
# starts with a literal or a small set, which the engine finds quickly. All are long runs.
_TOKEN_HINTS: Final = tuple(
    re.compile(pattern)
    for pattern in (
        r"A(?:KIA|SIA|BIA|CCA|IDA|ROA|IPA|NPA|NVA|PKA|GPA)",
        r"AC[0-9a-f]{32}",
        r"SK[0-9a-f]{32}",
        r"[MNO][A-Za-z0-9]{23,27}\.[\w-]{6}\.",
    )
)
# "-u" is too common a literal: curl's -u/--user/--proxy-user as they start basic_user.
_BASIC_USER: Final = re.compile(r"-(?<![\w-]-)(?:u|-user|-proxy-user)[ \t=]")
# The key words of key=value pairs are common in prose ("tokens"): for them, the cheap test is
# whether one is followed by the separator, as a match of the secret_pair pattern must be, or
# sits in a CLI flag or a .netrc line. Grouped under a string each word of the group holds:
# prose without "pass" or "sess" skips those groups' searches.
PAIR_WORDS: Final = (
    ("pass", ("password", "passwd", "passphrase", "_pass", "-pass")),
    ("sess", ("sessid", "sessionid")),
    ("", ("pwd", "secret", "credential", "token", "key", "auth", "signature", "bearer")),
)  # fmt: skip
PAIR_HINT: Final = re.compile(
    r"(?:pass|pwd|secret|credential|token|key|auth|signature|sess(?:ion)?id|bearer)"
    r"[\w.-]{0,256}+\\?[\"']?\]?[ \t]*[:=]"
    r"|-[\w-]{0,60}?(?:pass|pwd|secret|credential|token|key|auth|signature|bearer)"
    r"|login\s+\S{1,256}+\s+password"
    r"|<[\w:.-]{0,40}?(?:password|secret|token|api_?key|accesskey)"
)  # bounded and possessive: linear even on "token_token_token..." (no separator to find)

# Every alternative of PAIR_HINT begins with one of these. An unanchored search tries the whole
# alternation at every position of the text; matching it only where one of them occurs is the
# same answer, 3-4x cheaper on prose (which holds "key", "token", "auth" often enough).
_PAIR_STARTS: Final = (
    "pass", "pwd", "secret", "credential", "token", "key", "auth", "signature", "sess", "bearer",
    "-", "login", "<",
)  # fmt: skip


def pair_hint(lowered: str) -> bool:
    """``PAIR_HINT.search(lowered) is not None``, matching only where an alternative can begin."""
    match = PAIR_HINT.match
    for start in _PAIR_STARTS:
        at = lowered.find(start)
        while at != -1:
            if match(lowered, at) is not None:
                return True
            at = lowered.find(start, at + 1)
    return False


def _may_hold_common_secret(text: str, lowered: str, alone: bool) -> bool:
    # Plain loops, not any() over generators: a generator costs more than the search of a
    # one-character gate, and most texts fail at the first gate of every group.
    if not alone or has_long_word(text, _LONG):
        for gate, triggers in TOKEN_TRIGGERS:
            if gate in lowered:
                for trigger in triggers:
                    if trigger in lowered:
                        return True
        for hint in _TOKEN_HINTS:
            if hint.search(text) is not None:
                return True
    for gate, triggers in TRIGGERS:
        if gate in lowered:
            for trigger in triggers:
                if trigger in lowered:
                    return True
    for word, needs, after in HEADERS:
        if word in lowered:
            if not alone:
                return True
            for char in needs:
                if char in lowered:
                    return True
            at = lowered.find(word)
            while after and at != -1:
                if lowered.startswith(after, at + len(word)):
                    return True
                at = lowered.find(word, at + 1)
    if "-" in lowered and _BASIC_USER.search(text) is not None:
        return True
    # Every alternative of PAIR_HINT holds ":" or "=", "-", "<", or "login".
    if alone and not (
        ":" in lowered or "=" in lowered or "-" in lowered or "<" in lowered or "login" in lowered
    ):
        return False
    for gate, words in PAIR_WORDS:
        if gate in lowered:
            for word in words:
                if word in lowered:
                    return pair_hint(lowered)
    return False


# The same for the redactor's command patterns (tool password flags, config lines, cookies),
# each group under the strings every one of its matches holds.
COMMAND_TRIGGERS: Final = (
    ((), (
        # tool_password's commands without a flag (nmcli's "password" or "<setting>.psk" has no
        # character prose lacks), config_directive's names
        "vault login", "config set", "aws configure", "bindpw", "rootpw", "requirepass",
        "masterauth", "nmcli",
    )),
    (("-",), (
        "user-secrets", "from-literal",
        # tool_password's commands with a flag after them ("-a", "-p", "--body")
        "redis-cli", "sshpass", "login", "ldap", "ssh-keygen", "mysql", "mariadb", "sqlcmd",
        "bcp", "mongo", "htpasswd", "secret set", "curl",
    )),
    (("-", "-a"), ("http", "xh")),  # tool_password's "http -a", "xh -a"
    # tool_password's net use: the share's "\\" before the password, or "/user:" before it
    (("\\",), ("net use",)),
    (("/", ":"), ("net use",)),
    (("_",), ("wpa_passphrase",)),  # tool_password's
    # session_cookie's names; tool_password's Wi-Fi keys, "psk=", "wpa_psk=", "PreSharedKey="
    (("=",), ("sid=", "session=", "session_id=", "__host-", "__secure-", "psk", "presharedkey")),
    # a cookie's attributes after its "name=value;": "; Path=/", never a bare "path" (prose
    # has "; the payment path")
    (("=", ";"), (
        "path=", "domain=", "expires=", "max-age=", "samesite=", "priority=", "httponly",
        "secure", "partitioned",
    )),
    ((":",), ("pass:",)),  # openssl's -passout pass:…
)  # fmt: skip
_COMMAND_HINTS: Final = tuple(
    re.compile(pattern)
    for pattern in (
        r"-U[ \t]+[\w.\\@-]{1,256}+%",  # smbclient -U user%password
        r":(?:[0-9]{1,5}+|\*):[^\s:]{1,256}+:[^\s:]{1,256}+:",  # .pgpass ":port:db:user:"
    )
)


def _may_hold_command_secret(text: str, lowered: str) -> bool:
    # Plain loops, not all()/any() over generators: a generator costs more than the search of
    # a one-character gate, and most texts fail at the first gate of every group.
    for gates, triggers in COMMAND_TRIGGERS:
        for gate in gates:
            if gate not in lowered:
                break
        else:
            for trigger in triggers:
                if trigger in lowered:
                    return True
    return any(hint.search(text) is not None for hint in _COMMAND_HINTS)


def _folds_apart(text: str, lowered: str) -> bool:
    """Whether lowering ``text`` does not keep what the patterns match case-insensitively:
    "\u0130" lowers to two characters (a combining dot then sits inside a name: "passwordİ="
    no longer reads as a pair), "\u0131" and "\u017f" stay apart from the "i" and "s" they
    match. The literals' search cannot rule such a text out, so it is scanned whole."""
    return len(lowered) != len(text) or "\u0131" in text or "\u017f" in text


NONE: Final = 0
"""No built-in pattern can match the text: it need not be scanned."""
COMMON: Final = 1
"""Only the common patterns can match (not the redactor's command patterns)."""
ANY: Final = 2
"""Any built-in pattern may match."""


def patterns_possible(text: str, *, alone: bool = False) -> int:
    """Which built-in patterns ``text`` may hold a match of: `NONE`, `COMMON` or
    `ANY` (never too few: each pattern's match holds one of its literals). ``alone``: the
    text is all there is to scan, so a pattern that needs a character or a long run besides
    its literal is left out when the text has none; otherwise more text may follow it (a
    stream's carry, the start of a line), and a literal is enough."""
    lowered = text.lower()
    if not text.isascii() and _folds_apart(text, lowered):
        return ANY
    if _may_hold_command_secret(text, lowered):
        return ANY
    return COMMON if _may_hold_common_secret(text, lowered, alone) else NONE
