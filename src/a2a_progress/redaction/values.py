"""The grammar of a credential's value: where it starts and ends, quoted or not, and which
values are not secrets at all (placeholders, references, masks, code).

`a2a_progress.redaction.patterns` and `a2a_progress.redaction.context` build their
patterns from these pieces, so every shape agrees on what a value is.
"""

from __future__ import annotations

import re
from typing import Final

MASK: Final = "[REDACTED]"
"""What a masked credential is replaced by."""

# Words that make a name (a key, a header, a flag) a credential's name, wherever they occur in
# it: "DB_PASSWORD", "x-auth-token", "aws_secret_access_key", "AccountKey". "tokens" and
# "tokenizer" are not credentials; a bare "key" or "auth" is too common ("sort key", an "auth:"
# logger) and counts only in the shapes below.
NAME_WORDS: Final = (
    r"(?:password|passwd|passphrase|pwd|secret|credential|sess(?:ion)?id|bearer|token(?!s|iz|is)"
    r"|api[_-]?key|(?:access|private|account|master|signing|encryption|licen[cs]e|client|app"
    r"|application|auth|session|subscription|service|admin|consumer|functions?|webhook|storage"
    r"|deploy)[_-]?key"
    r"|(?:primary|secondary)(?:master)?key|(?<=[_\"'-])auth(?![a-z])|(?<=[_-])signature"
    r"|(?<=[_-])pass(?![a-z]))"
)
# A field that names the Authorization header beside a field of its value ({"name":
# "Authorization", "value": "Basic …"} in a HAR file or a Postman collection, <header
# name="Authorization" value="…"/>): the value is a credential, whatever its scheme. Only whole:
# "authorization_status" names no header.
HEADER_NAME_WORD: Final = r"authorization(?![\w.-])"
# A name ending in one of these says *about* a credential, not the credential: "token_type",
# "password_file", "token_uri", "SharedAccessKeyName", "--password-stdin". Lookbehinds must have
# a fixed width, hence one per length.
NOT_A_VALUE_NAME: Final = (
    r"(?<!url|uri|dir|ttl|len|env|ref)(?<!type|file|path|name|size|hint|mode|kind)"
    r"(?<!count|limit|usage|stdin|field|label)(?<!length|budget|policy|prefix|header|expiry)"
    r"(?<!expires|timeout|version|enabled)(?<!endpoint|provider)"
)

# A scheme word before the value is part of it: "token=Bearer q7Z…" masks the token too.
SCHEME: Final = (
    r"(?i:bearer|basic|digest|token|bot|jwt|key|apikey|api-key|sso-key|ssws|negotiate|ntlm"
    r"|oauth|aws4-hmac-sha256)"
)
UNQUOTED_STOP: Final = r"\s\"',;&}"
# What follows a quote that closes a string of code rather than opens a value: a blank, an
# operator, a delimiter ("Bearer " + token, 'Basic '+b64, "Bearer ".concat(t), "Bearer ")).
_CLOSES: Final = r"(?=[\s+.,;&|~})\]]|$)"
# A quoted value after a scheme word ("Bearer \"…\"", "Basic '…'"): its quotes hold it, blanks,
# escapes and all, to the closing quote or the line's end; not a quote that closes code.
# (A run of a scheme word's characters first: most values fail that at once, before the
# alternation of scheme words is tried.)
SCHEME_QUOTED: Final = (
    rf"(?=[A-Za-z0-9-]{{3,16}}+[ \t]+[\"']){SCHEME}[ \t]+"
    rf"(?:\"(?!{_CLOSES})(?:[^\"\\\r\n]|\\[^\r\n])*+\"?"
    rf"|'(?!{_CLOSES})(?:[^'\\\r\n]|\\[^\r\n])*+'?)"
)


def quoted_or(prefix: str, unquoted: str, guard: str = "") -> str:
    """The value after a keep group that ended with ``(?P<{prefix}_e>\\\\)?(?P<{prefix}_q>…)?``.

    Quoted, it runs to the matching quote (to ``\\"`` when the quote was itself escaped, as in
    JSON inside a JSON string); unquoted, it is ``unquoted``, except that a PEM block over
    several lines is left to its own pattern, which masks all of it. ``guard`` (a lookahead)
    is tested where the value starts, inside the quotes if there are any.
    """
    e, q = f"{prefix}_e", f"{prefix}_q"
    escaped = rf"(?:[^\r\n\\]|\\(?!(?P={q}))[^\r\n])+"
    plain = rf"(?:[^\r\n\\\"']|\\[^\r\n]|(?!(?P={q}))[\"'])+"
    return rf"{guard}(?({q})(?({e}){escaped}|{plain})|(?!-----BEGIN){unquoted})"


def opening_quote(prefix: str) -> str:
    # Used inside an atomic group with the separator before it: once the separator and quote
    # are read, no other reading of them is tried when the value fails ("=>" is not "=" + ">").
    # A string prefix (f"…", r'…', b"…") is part of the opening quote.
    return rf"(?:[fFrRbBuU]{{1,2}}(?=\\?[\"']))?(?P<{prefix}_e>\\)?(?P<{prefix}_q>[\"'])?"


# A value is not a credential when it is a literal (None, true …), a placeholder ("********",
# "xxxx", "<your-key>", "<token>", "${DB_PASSWORD}", "$TOKEN", "$(cat f)", "%TOKEN%", "{token}",
# "%s", "{{ .Values.token }}", "YOUR_TOKEN_HERE", "sk-..." — a vendor prefix and an ellipsis,
# no more), or already masked, whole up to a delimiter, after an optional scheme word
# ("Bearer <token>"). A backtick ends it too: "`password = None`" is Markdown inline code.
PLACEHOLDER: Final = (
    r"(?i:none|null|true|false|yes|no|on|off|undefined|nil|str|string|bytes|int|bool|any"
    # what tools print instead of a secret, and permission words ("id-token: write")
    r"|redacted|masked|hidden|sensitive|omitted|read|write|required|optional)"
    r"|\[[A-Za-z _-]{3,20}\]|\((?i:sensitive|hidden|redacted|masked|secret)[\w ]{0,20}\)"
    # a tuple or a call's arguments ("auth=(user, password)", "basic_auth=("svc", …)")
    r"|\("
    # a YAML block scalar's indicator ("password: |"): the value is on the lines below
    r"|[|>][-+]?[0-9]?"
    # a path ("/run/secrets/db", "./pw.txt", "~/.pgpass"); a YAML tag ("!vault |")
    r"|(?:\.{0,2}/|~/)[\w./@-]{0,200}+|![A-Za-z]\w{0,30}(?=[ \t]+[|>\w])"
    # a type ("SecretStr = Field(...)", "SecretStr | None"): a capitalised name, then "=" or "|"
    r"|[A-Z][A-Za-z]{1,40}+(?=[ \t]+[=|][ \t])"
    # a name or a reference in code: a snake_case name holding a credential word
    # ("password=password", "api_key=api_key"), or a secret's name in a secret manager
    # ("stripe-api-key", "prod/db/password", "db-credentials")
    r"|(?:[a-z0-9]{1,40}+[-_/.]){0,8}+(?:password|passwd|secret|token|key|credential|auth)s?"
    r"(?:[-_/.][a-z0-9]{1,40}+){0,8}+"
    r"|\*{3,}|•+|x{3,}|X{3,}|<[^<>\r\n]{1,60}>|\$\([^()\r\n]{1,200}\)|\$\{[A-Za-z_][\w.]{0,60}(?::-?[^{}\s]{0,60})?\}"
    # "$TOKEN", "$api_key"; "$ecretP4ss" (mixed case and digits) is a password, not a variable.
    r"|\$(?:[A-Z_][A-Z0-9_]{0,60}+|[a-z_][a-z0-9_]{0,60}+)"
    r"|%[A-Za-z_]\w{0,60}%|\{[\w. ]{1,60}\}|%\(?\w*\)?s|(?i:your)[_-][\w-]{0,60}"
    # templates: Jinja/Helm "{{ lookup('env', 'X') }}", GitHub Actions "${{ secrets.X }}"
    r"|\$?\{\{[^{}\r\n]{1,100}\}\}"
    r"|(?:[A-Za-z0-9]{1,10}[_-]){0,3}(?:\.{3}|…)"
    rf"|{re.escape(MASK)}"
)
VALUE_END: Final = r"(?:[\s\"',;&})\]\\`]|$)"
# A value that starts with a mask was masked before: masking twice changes nothing.
_MASKED: Final = rf"(?!{re.escape(MASK)})"
# A placeholder may be quoted after its scheme word ("Bearer \"$TOKEN\""); a scheme word alone
# is no value: before the line's end or a delimiter, or before a quote that closes a string of
# code ("Bearer " + token), not one that opens a value ("Bearer \"…\"").
# One look-ahead, the scheme word read once: after it, either nothing (alone) or a placeholder.
NOT_A_SECRET: Final = _MASKED + (
    rf"(?!{SCHEME}(?:[ \t]*+(?:[\"']{_CLOSES}|(?![\"']){VALUE_END})"
    rf"|[ \t]+[\"']?(?:{PLACEHOLDER}){VALUE_END})"
    rf"|[\"']?(?:{PLACEHOLDER}){VALUE_END})"
)
# Unquoted, a value is code, not a credential, when it fetches the secret ("getpass()",
# "os.environ[…]") or names it: a dotted chain of words without digits, the first in lower case
# ("settings.API_KEY", "config.token", "self.password"). A token has digits ("s.Q7Zp2Lk9…", an
# old Vault token), and so has a password like "Hunter2.Spring"; "Summer.Spring" is no variable.
CODE: Final = (
    r"(?![A-Za-z_$][\w.:$]{0,60}+[(\[])"
    r"(?![a-z_][A-Za-z_]{0,59}+(?:\.[A-Za-z_]{1,60}+){1,8}+" + VALUE_END + ")"
)
# An unquoted value of a pair: one run of non-delimiters, after an optional scheme word; a
# backtick before a delimiter closes Markdown inline code and is not part of it.
PAIR_VALUE: Final = (
    rf"{CODE}(?:{SCHEME_QUOTED}|(?:{SCHEME}[ \t]+(?=[^{UNQUOTED_STOP}]))?"
    rf"(?:[^{UNQUOTED_STOP}`]|`(?!{VALUE_END}))++)"
)
# An unquoted header value runs to the end of the line or a closing quote; a quote right after
# "=" opens a quoted parameter (Digest's response="…") that is part of the value, and so does a
# quoted credential after the scheme word (Bearer "…", Basic '…').
_HEADER_CHAR: Final = r"(?:[^\r\n\"'\\]|\\[^\r\n]|(?<==)\"[^\"\r\n]*+\"?)"
HEADER_VALUE: Final = rf"(?:{SCHEME_QUOTED}{_HEADER_CHAR}*|{_HEADER_CHAR}+)"
PAIR_SEPARATOR: Final = r"\\?[\"']?\]?[ \t]*(?:=>|:=|:|=(?!=))"
# After "key: " (YAML, a header, prose) an unquoted value is the rest of the line, spaces
# included ("password: correct horse battery staple"), up to a delimiter or a " #" comment;
# after "=" it is one run (a log line's next "user=..." is not part of it).
COLON_WORD: Final = rf"(?:[^{UNQUOTED_STOP}\]`]|`(?!{VALUE_END}))++"
COLON_VALUE: Final = rf"{CODE}(?:{SCHEME_QUOTED}|{COLON_WORD}(?:[ \t]++(?!#){COLON_WORD})*+)"
HEADER_SEPARATOR: Final = r"\\?[\"']?[ \t]*[:=][ \t]*"
