"""The redactor stays linear on hostile text: each pattern's worst shape, repeated.

No timing assertion: every input is long enough (100,000 characters) that a pattern quadratic
in it would need ~10^10 regex steps — minutes — and hit the per-test timeout below, while the
linear cost is a fraction of a second. Every piece is a prefix that makes one pattern start
(or its pre-scan hint) and then fail late, the shape that costs backtracking engines dearly.
"""

from __future__ import annotations

import pytest

from a2a_progress.redaction import DEFAULT_REDACTOR, MASK

SIZE = 100_000
SECRET = "s3cr3tVa1ue9"

PIECES = [
    # headers: a name and separator over and over, an opening quote never closed
    "Authorization: ", 'Authorization: "', 'authorization=\\"', 'Authorization: Digest a="',
    "Cookie: ", "Cookie: a", "set-cookie=", 'Cookie: "a',
    # webhooks and URLs
    "hooks.slack.com/services/", "discord.com/api/webhooks/", "outlook.office.com/webhook/",
    "x://", "x://a:@", "x://a:b@@", "a:", "a.", "?key=", "&sig", "?signature", "://aaaaaaaaaaaaaaaaaaaaaaaa",
    'key="', 'key="password', 'key="password" value="', "['a'] = ", "login\n", "_pass=", "-pass ",
    # CLI flags, curl users, .netrc
    "-u ", "-u a", "--user=", "-u a -p", "login a password ", "login ", "--token ",
    "--password-", "--token -", "--api-key '",
    # key/value pairs: names, separators, quotes, scheme words, code-like values
    "password=", "password: a ", "password: a #", 'password: "', 'password=\\"', "password-",
    "token_", "DB_PASSWORD", "secret",
    " secret : ", "secret:\t", "x-", "x-key", "api key", "password=getpass", "password: a.",
    "token=Bearer ", "token: bearer", "_auth", '"auth"', "a_signature", "AccountKey=a;",
    "<password>", "<password", "key-", "password=<a", "password={{a", "password=${A", "pwd=*",
    # standalone shapes
    "bearer ", "Bearer a", "eyJhbGciOi.", "eyJ-", "ghp_", "github_pat_", "AKIA", "SG.",
    "SG.aaaaaaaaaaaaaaaaaa.", "xoxb-", "12345678:AA", "aaa1Q~", "-----BEGIN PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----\n-----END", "AC0", "sk-", "sk-ant-", "dapi", "glc_", "ATATT3",
    "hvs.", "ya29.", "dop_v1_", "pypi-AgE", "key-", "a.atlasv1.", "access_token$production$",
    "EAA", "ATBB", "sntrys_", "HRKU-", "sk-aaaaaaaaaaaaaaaaaaaaaaaa=", "eyJaaaaaa.=",
    "M1aaaaaaaaaaaaaaaaaaaaaaa.", "Maaaaaaaaaaaaaaaaaaaaaaa1.aaaaaa.",
    # tool password flags: a command, then arguments and never the flag (or the flag, no value)
    "redis-cli ", "redis-cli a ", "redis-cli -a ", "sshpass -p", "sshpass x", "docker login ",
    "docker login -p '", "ldapsearch -x ", "ssh-keygen -N ", "mysql -p", "mysql -uroot ",
    "mysql-", "sqlcmd -P ", "mongosh a ", "vault login -a ", "vault login ", "htpasswd -b a ",
    "htpasswd -b", "htpasswd ", "npm config set a ", "npm config set _auth", "-passout pass:",
    "-passin 'pass:", " -pass ",
    # config directives, .pgpass lines, session cookies, cookie attributes
    "\nbindpw ", "requirepass", "a:1:", "a:1:b:", "a:1:b:c:", "h.x:5432:db:u:", "*:*:",
    "sid=", "connect.sid=", "_a-session=", "_session", "__Host-a=", "a=b;", "a=b; ", "a=b=",
    "session=a; Pat", ";path", "=;secure",
    # placeholders and code references: each nearly one, then not
    "password=${A", "password=$(a", "password=%A", "password=your-", "password=a.b.",
    "password=a.b.c1x", "token=sk-..", "password=xxx", "`password = None", "password=a`b",
    "Authorization: Bearer <a", "Authorization: Bearer $", "Bearer YOUR_", "Bearer your-a.",
    # a quoted value after a scheme word: opened, never closed, or escaped to the line's end
    'Authorization: Bearer "', "Authorization: Basic 'a", 'Authorization: Token "a\\', 'bearer "',
    "'Authorization', '", '("authorization", "Basic a', "'Authorization', ",
    "name: Authorization\nvalue: Token ", 'name="Authorization" value="', '"Authorization", "Basic',
    "bearer 'a", 'Bearer "a b', "bearer a!", 'token=Bearer "', "api_key: Bearer 'a",
    # names the context pass's gate reads around ("AccessKey", "x_signature", "--pw\t")
    "AccessKey ", "primaryKey: |\n", "x_signature ", "X-Bearer ", "--adminpass\t", "--pw=",
    "echo a |",
    "--with-token <<< ",
    "aws configure set a", "dotnet user-secrets set \"a", "gh secret set a ", "--from-literal=a",
    "curl -b a", "curl -b 'a", "curl a ", "-U a", "-U a%",
    "password=${{", "token: {{ a", "password=$a", "password=$A1b", "-u a -p $", "-u a -p ;",
    # httpie, net use, Wi-Fi: a command and arguments without the secret's place, or a guard
    # that reads a long value and then fails
    "http ", "http a ", "http -a ", "http -a a", "xh -a '", "bearer -a ", "bearer --a",
    "net use ", "net use a ", "net use \\\\a ", "net use \\\\a /", "net use /user:a ",
    "NET USE /U:a *", "wpa_passphrase ", "wpa_passphrase a ", 'wpa_passphrase "a',
    "wpa_passphrase 'a' ", "nmcli ", "nmcli wifi ", "nmcli c ", "nmcli c a.", "nmcli c a.b-",
    "nmcli c a.psk-", "nmcli wifi password ", "psk", "psk=", "psk =", 'wpa_psk="', "_psk= '",
    "PreSharedKey=", "/a", "/a/", " /a/a/a/a/a/a/a/a/a/a", "/usr/bin/nmcli wifi ",
    # shapes found by context: a name and blanks, SQL literals, calls, siblings, block scalars,
    # pipes, flags, user/password@host
    "password ", "PASSWORD '", "identified by '", "set password ", "set password 'a' ",
    "'DB_PASSWORD', '", "'DB_PASSWORD', ", "setPassword(", "setPassword('a', ", "auth=(",
    "name: password\n", "name: password\n  ", '"Name": "db_password", ', "<name>secret</name>",
    "password: |\n", "password: |\n  a\n", "echo 'a' ", "echo a | ", "printf '%s' ",
    "-storepass ", "-P ", "-pa", "a/b@", "a/", "| password | ", "API_TOKEN\t",
    # encodings and random runs: an escape or an entity repeated, base64 that decodes to text
    "&quot;", "&quot;password&quot;: &quot;", '\\"', '\\\\\\"password\\\\\\": ',
    "%3A", "%253A", "'\"'\"'", "\\u0022", "cGFzc3dvcmQ9", "aB3dE5gH7jK9mN1p", "aB3dE5gH7jK9/",
    "sha256:", "AAAA", "iVBORw0KGgo", "-----BEGIN CERTIFICATE-----\n", "ch_", "x@",
]  # fmt: skip


@pytest.mark.timeout(60)
@pytest.mark.parametrize("piece", PIECES)
def test_hostile_repetition_costs_linear_time(piece: str) -> None:
    text = piece * (SIZE // len(piece)) + f" password={SECRET}\n"
    redacted = DEFAULT_REDACTOR.redact(text)
    assert SECRET not in redacted
    assert MASK in redacted
