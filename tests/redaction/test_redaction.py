"""Credential masking (spec rule 6): known credential shapes never survive, innocent text is
left alone, and the switches (extra patterns, disabled, counting) do what they say."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_progress.redaction import DEFAULT_REDACTOR, MASK, Redactor

ALNUM = string.ascii_letters + string.digits

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
GITHUB_CLASSIC = "ghp_" + "a1B2c3D4e5F6" * 3
GITHUB_FINE = "github_pat_11ABCDEFG0abcdefghijKL_" + "x9Y8z7" * 8
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)
PEM_BODY = "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB"
OPENAI = "sk-" + "T3BlbkFJ" * 6
OPENAI_PROJECT = "sk-proj-" + "Ab12Cd34Ef56" * 4
ANTHROPIC = "sk-ant-api03-" + "Zx9_Yw8-Vu7" * 5
GOOGLE = "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"[:35]
NPM = "npm_" + "a1b2C3d4" * 4 + "e5F6"
HUGGINGFACE = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456"
GITLAB = "glpat-" + "xYz123AbC456dEf789gH"
SLACK = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
STRIPE_LIVE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
STRIPE_RESTRICTED = "rk_test_" + "51H8xYz" * 4


# (name, text, secret that must not survive)
VECTORS: list[tuple[str, str, str]] = [
    ("bearer", "curl -H 'Authorization: Bearer abc123DEF456ghi789'", "abc123DEF456ghi789"),
    ("bearer-bare", "use bearer tok.en_with-chars~+/== to call", "tok.en_with-chars~+/=="),
    ("bearer-jwt", f"token is Bearer {JWT} ok", JWT),
    ("authorization-bearer", "Authorization: Bearer s3cr3tT0ken\nAccept: */*", "s3cr3tT0ken"),
    ("authorization-basic", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
    ("authorization-lower", "authorization=Basic Zm9vOmJhcg==", "Zm9vOmJhcg=="),
    ("proxy-authorization", "Proxy-Authorization: Basic Zm9vOmJhcg==", "Zm9vOmJhcg=="),
    (
        "authorization-json",
        '{"Authorization": "Basic dXNlcjpwYXNzd29yZA==", "Accept": "*/*"}',
        "dXNlcjpwYXNzd29yZA==",
    ),
    (
        "authorization-dict-repr",
        "headers={'Authorization': 'Basic dXNlcjpwYXNzd29yZA=='}",
        "dXNlcjpwYXNzd29yZA==",
    ),
    ("aws-access-key-id", f"aws_access_key_id = {AWS_KEY}", AWS_KEY),
    ("aws-bare", f"key {AWS_KEY} leaked", AWS_KEY),
    ("aws-sts", "ASIAY34FZKBOKMUTVV7A is temporary", "ASIAY34FZKBOKMUTVV7A"),
    ("aws-after-cjk", f"密钥是{AWS_KEY}。", AWS_KEY),
    ("aws-in-identifier", f"creds_{AWS_KEY}_backup.csv", AWS_KEY),
    (
        "pem-rsa",
        f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----\nafter",
        PEM_BODY,
    ),
    ("pem-pkcs8", f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n-----END PRIVATE KEY-----", PEM_BODY),
    (
        "pem-openssh",
        f"x\n-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----",
        PEM_BODY,
    ),
    (
        "pem-encrypted",
        f"-----BEGIN ENCRYPTED PRIVATE KEY-----\n{PEM_BODY}\n-----END ENCRYPTED PRIVATE KEY-----",
        PEM_BODY,
    ),
    (
        "pem-pgp",
        f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{PEM_BODY}\n-----END PGP PRIVATE KEY BLOCK-----",
        PEM_BODY,
    ),
    ("pem-unterminated", f"-----BEGIN EC PRIVATE KEY-----\n{PEM_BODY}\nMHcCAQEE", PEM_BODY),
    ("jwt", f"id_token {JWT}", JWT),
    ("jwt-in-url", f"https://app.example/cb#access={JWT}&x=1", JWT),
    ("github-classic", f"GITHUB_TOKEN {GITHUB_CLASSIC}", GITHUB_CLASSIC),
    ("github-oauth", "gho_" + "Z" * 36, "gho_" + "Z" * 36),
    ("github-server", "ghs_" + "1a" * 18, "ghs_" + "1a" * 18),
    ("github-fine-grained", f"pat={GITHUB_FINE}", GITHUB_FINE),
    ("github-after-cjk", f"令牌{GITHUB_CLASSIC}", GITHUB_CLASSIC),
    ("gitlab", f"CI_JOB {GITLAB}", GITLAB),
    ("slack", f"slack: {SLACK}", SLACK),
    ("slack-user", "xoxp-9876543210-abcdefghij", "xoxp-9876543210-abcdefghij"),
    ("stripe-live", f"stripe {STRIPE_LIVE}", STRIPE_LIVE),
    ("stripe-restricted", f"stripe {STRIPE_RESTRICTED}", STRIPE_RESTRICTED),
    ("openai", f"OPENAI {OPENAI}", OPENAI),
    ("openai-project", f"OPENAI {OPENAI_PROJECT}", OPENAI_PROJECT),
    ("anthropic", f"ANTHROPIC {ANTHROPIC}", ANTHROPIC),
    ("anthropic-after-cjk", f"使用{ANTHROPIC}调用", ANTHROPIC),
    ("google", f"maps key {GOOGLE}", GOOGLE),
    ("npm", f"//registry.npmjs.org/:_authToken {NPM}", NPM),
    ("huggingface", f"HF {HUGGINGFACE}", HUGGINGFACE),
    ("password-eq", "password=hunter2", "hunter2"),
    ("password-upper-colon", "DB_PASSWORD: 'correct-horse'", "correct-horse"),
    ("passwd", "passwd=p@ss!word", "p@ss!word"),
    ("pwd-query", "https://h.example/login?user=bob&pwd=Tr0ub4dor&x=1", "Tr0ub4dor"),
    ("api-key-colon", "api_key: abcdef123456", "abcdef123456"),
    ("api-key-dash", "X-Api-Key=abcdef123456", "abcdef123456"),
    ("apikey", "apikey=zzTopSecret99", "zzTopSecret99"),
    ("secret-quoted", 'secret="s3cr3t-value"', "s3cr3t-value"),
    ("client-secret", "client_secret = 'abc.def-ghi'", "abc.def-ghi"),
    ("private-key-pair", "private_key: deadbeefcafe", "deadbeefcafe"),
    ("access-key-pair", "ACCESS_KEY=wJalrXUtnFEMI", "wJalrXUtnFEMI"),
    ("credential", "credentials=alice:wonderland", "alice:wonderland"),
    ("json-token", '{"token": "tok_9f8e7d6c5b4a"}', "tok_9f8e7d6c5b4a"),
    ("json-access-token", '{"access_token":"ya29.a0AfH6SMB"}', "ya29.a0AfH6SMB"),
    ("json-refresh-token", "{'refresh_token': '1//0gLx'}", "1//0gLx"),
    ("url-credentials", "clone https://user:p4ssw0rd@example.com/repo.git", "p4ssw0rd"),
    ("url-credentials-db", "DATABASE_URL=postgres://admin:s3cret@db:5432/app", "s3cret"),
    ("url-credentials-amqp", "amqp://guest:guestpass@rabbit:5672/", "guestpass"),
    ("url-credentials-no-user", "REDIS_URL=redis://:hunter2pass@cache:6379/0", "hunter2pass"),
]


@pytest.mark.parametrize(("text", "secret"), [v[1:] for v in VECTORS], ids=[v[0] for v in VECTORS])
def test_credentials_never_survive(text: str, secret: str) -> None:
    assert secret in text
    redacted = DEFAULT_REDACTOR.redact(text)
    assert secret not in redacted
    assert MASK in redacted
    masked, count = DEFAULT_REDACTOR.redact_counted(text)
    assert masked == redacted
    assert count >= 1


# Exact results: the key or header name and its separator are kept, the rest is masked.
EXACT: list[tuple[str, str]] = [
    ("password=hunter2", f"password={MASK}"),
    ("api_key: abc123", f"api_key: {MASK}"),
    ('secret="s3cr3t"', f'secret="{MASK}"'),
    ('{"token": "abc"}', f'{{"token": "{MASK}"}}'),
    ("Authorization: Basic dXNlcjpw", f"Authorization: {MASK}"),
    ("x Bearer abc.def y", f"x Bearer {MASK} y"),
    ("https://bob:pw@host/x", f"https://bob:{MASK}@host/x"),
    ("redis://:pw@cache:6379", f"redis://:{MASK}@cache:6379"),
    (f"id {AWS_KEY} end", f"id {MASK} end"),
    (f"a {GITHUB_CLASSIC} b", f"a {MASK} b"),
    ("k=v password=pw&x=1", f"k=v password={MASK}&x=1"),
    ("-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\nnext", f"{MASK}\nnext"),
]


@pytest.mark.parametrize(("text", "expected"), EXACT, ids=[e[0][:24] for e in EXACT])
def test_masking_keeps_names_and_separators(text: str, expected: str) -> None:
    assert DEFAULT_REDACTOR.redact(text) == expected


INNOCENT = [
    "max_tokens=100",
    "prompt_tokens: 12, completion_tokens: 34, total_tokens: 46",
    "the password policy requires twelve characters",
    "Please reset your password from the settings page.",
    "Tokens are counted per request; the secret to speed is caching.",
    "The quick brown fox jumps over the lazy dog. 思考中……",
    "def add(a: int, b: int) -> int:\n    return a + b\n",
    "for i in range(10):\n    print(i, i ** 2)",
    'config = {"retries": 3, "timeout": 2.5, "verbose": true}',
    "3.14159 2718281828 -42 0x1F 1e10 123456789012345678901234567890",
    "https://example.com/path?q=1&page=2#top",
    "ssh://git@github.com/org/repo.git and mailto:user@example.com",
    "git@github.com:org/repo.git",
    "uuid 123e4567-e89b-12d3-a456-426614174000",
    "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "ask-questions-about-the-codebase-and-then-answer",
    "risk-assessment-for-the-whole-project-team",
    "ghp_short and AKIA-not-a-key and sk-short",
    "tool_call_id=call_7Hq2 stream=alpha seq=42",
    "Calling tool search",
    "",
]


@pytest.mark.parametrize("text", INNOCENT)
def test_innocent_text_is_unchanged(text: str) -> None:
    assert DEFAULT_REDACTOR.redact(text) == text
    assert DEFAULT_REDACTOR.redact_counted(text) == (text, 0)


def test_redact_counted_counts_each_credential() -> None:
    text = f"password=a {AWS_KEY} and {GITHUB_CLASSIC}; Bearer xyz.abc"
    redacted, count = DEFAULT_REDACTOR.redact_counted(text)
    assert count == 4
    assert redacted.count(MASK) == 4
    assert DEFAULT_REDACTOR.redact(text) == redacted


def test_extra_patterns_mask_their_whole_match() -> None:
    redactor = Redactor([r"ACME-\d{6}", r"(?i:internal-[a-z]+)"])
    text = "ticket ACME-123456 on INTERNAL-project, also ACME-12"
    assert redactor.redact(text) == f"ticket {MASK} on {MASK}, also ACME-12"
    # The built-in patterns still apply.
    assert AWS_KEY not in redactor.redact(f"{AWS_KEY} ACME-000001")
    # And the default redactor does not know the extra patterns.
    assert DEFAULT_REDACTOR.redact(text) == text


def test_extra_patterns_are_counted() -> None:
    redactor = Redactor([r"ACME-\d{6}"])
    assert redactor.redact_counted("ACME-000001 ACME-000002 password=x") == (
        f"{MASK} {MASK} password={MASK}",
        3,
    )


def test_invalid_extra_pattern_fails_at_construction() -> None:
    with pytest.raises(re.error):
        Redactor(["("])


@pytest.mark.parametrize("text", [v[1] for v in VECTORS[:10]] + INNOCENT[:3])
def test_disabled_redactor_returns_input_unchanged(text: str) -> None:
    redactor = Redactor(enabled=False)
    assert not redactor.enabled
    assert redactor.redact(text) is text
    assert redactor.redact_counted(text) == (text, 0)


def test_default_redactor_is_enabled() -> None:
    assert DEFAULT_REDACTOR.enabled
    assert Redactor().enabled


def test_redaction_is_idempotent_on_the_vectors() -> None:
    for _, text, _secret in VECTORS:
        once = DEFAULT_REDACTOR.redact(text)
        assert DEFAULT_REDACTOR.redact(once) == once


# -- properties --------------------------------------------------------------------------------

aws_keys = st.builds(
    lambda prefix, body: prefix + body,
    st.sampled_from(["AKIA", "ASIA", "ABIA", "ACCA"]),
    st.text(string.ascii_uppercase + "234567", min_size=16, max_size=16),
)
github_tokens = st.builds(
    lambda prefix, body: prefix + body,
    st.sampled_from(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]),
    st.text(ALNUM, min_size=36, max_size=40),
) | st.builds(lambda body: "github_pat_" + body, st.text(ALNUM + "_", min_size=22, max_size=82))


@settings(max_examples=150, deadline=None)
@given(st.text(), aws_keys | github_tokens, st.text())
def test_generated_keys_never_survive_in_any_surrounding_text(
    before: str, key: str, after: str
) -> None:
    text = before + key + after
    redacted, count = DEFAULT_REDACTOR.redact_counted(text)
    assert key not in redacted
    assert count >= 1


@pytest.mark.parametrize(
    "text",
    [
        "PASSPHRASEgithub_pat_" + "0" * 22 + ":0",
        "PASSWORDghp_" + "a1" * 18 + "=x",
        "my_secret_AKIAABCDEFGHIJKLMNOP: 1",
    ],
)
def test_a_key_glued_inside_the_name_of_a_pair_is_masked_too(text: str) -> None:
    # Found by the property above: the pair's match kept its name, key and all, and masked
    # only the value after it.
    key = next(word for word in ("github_pat_", "ghp_", "AKIA") if word in text)
    redacted, count = DEFAULT_REDACTOR.redact_counted(text)
    assert key not in redacted
    assert count == 2


@settings(max_examples=100, deadline=None)
@given(st.lists(aws_keys | github_tokens, min_size=1, max_size=4), st.text(" \n\t,;:()'\"="))
def test_every_embedded_key_is_masked(keys: list[str], separator: str) -> None:
    text = (separator or " ").join(keys)
    redacted = DEFAULT_REDACTOR.redact(text)
    for key in keys:
        assert key not in redacted


@settings(max_examples=100, deadline=None)
@given(st.text(string.ascii_lowercase + " .,\n", max_size=200))
def test_lowercase_prose_is_unchanged(text: str) -> None:
    # No built-in pattern matches plain lowercase prose without keywords and separators.
    if any(word in text for word in ("bearer", "password", "passwd", "pwd", "secret", "token")):
        return
    assert DEFAULT_REDACTOR.redact(text) == text


def test_a_long_run_of_key_words_without_a_separator_is_left_alone() -> None:
    # Regression (found by the hostile-input property test): the pre-scan for key=value pairs
    # backtracked over the whole word at every "token", quadratic in the text; the test timed out.
    text = "token_" * 11_000
    assert DEFAULT_REDACTOR.redact(text) == text
    assert DEFAULT_REDACTOR.redact(text + "=s3cr3t") == text + "=" + MASK


def test_a_token_glued_to_a_masked_one_is_masked_too() -> None:
    # The second key only starts a match once the first is masked (no word boundary before it).
    databricks = "dapi2b7f1c9e4d3a6b8c0e5f7a9b1d3c5e7f-3"
    text = f"{databricks}{databricks}{GOOGLE}Authorization: Basic dXNlcjpwYXNzd29yZA=="
    redacted, count = DEFAULT_REDACTOR.redact_counted(text)
    assert redacted == f"{MASK}{MASK}{MASK}Authorization: {MASK}"
    assert count == 4
    assert DEFAULT_REDACTOR.redact(redacted) == redacted


def test_a_token_glued_to_a_key_name_is_masked_not_kept_as_the_name() -> None:
    mailgun = "key-3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e"
    redacted = DEFAULT_REDACTOR.redact(f"MAILGUN {mailgun}X-Api-Key: s3cr3tVa1ue")
    assert redacted == f"MAILGUN {MASK}X-Api-Key: {MASK}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A credential among the arguments a command's match keeps up to its own flag.
        (
            "redis-cli --user bob --token Tok3nValue123abc -a pw1234",
            f"redis-cli --user bob --token {MASK} -a {MASK}",
        ),
        (
            "http --auth alice:S3cretPass123 https://api.example.com xh -a bob:Hunter22pass",
            f"http --auth {MASK} https://api.example.com xh -a {MASK}",
        ),
        (
            "sshpass x password=Hunter22x -p pw",
            f"sshpass x password={MASK} -p {MASK}",
        ),
        # A masked "<" no longer stops the command's arguments before its flag.
        ("redis-cli x api_key=Ab1<c2 -a pw1234", f"redis-cli x api_key={MASK} -a {MASK}"),
    ],
)
def test_a_credential_inside_a_command_match_is_masked_in_one_call(
    text: str, expected: str
) -> None:
    assert DEFAULT_REDACTOR.redact(text) == expected
    assert DEFAULT_REDACTOR.redact(expected) == expected
