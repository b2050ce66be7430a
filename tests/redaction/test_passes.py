"""Each pass beyond names and vendor shapes, one shape at a time: what it masks (the value, the
name kept) and its near miss that must come through unchanged. These are tuning cases, written
for the shapes; the held-out corpus (test_heldout.py) says whether the shapes generalise."""

from __future__ import annotations

import base64

import pytest

from a2a_progress.redaction import DEFAULT_REDACTOR, MASK

RANDOM = "kP3vX9qL2mW8rT5nB7cY4hJ6"  # 24 letters and digits, random
RANDOM_B64 = "Zk3+q9LmX2/rT8vW5nB7cY4hJ6pQ1sD0=="

# (text, the part that must be masked, a part that must stay)
MASKED: list[tuple[str, str, str]] = [
    # randomness, no label
    (f"key1   FULL   {RANDOM_B64}", RANDOM_B64, "key1   FULL"),
    (f"Your new token is {RANDOM} (copy it now)", RANDOM, "(copy it now)"),
    (f"https://hooks.example.com/in/team/{RANDOM}/", RANDOM, "https://hooks.example.com/in/team/"),
    # context: a name then blanks or a table rule
    ("db_password      Wx7!kLp2#Zq", "Wx7!kLp2#Zq", "db_password"),
    ("| SMTP_PASSWORD | Wx7!kLp2#Zq |", "Wx7!kLp2#Zq", "| SMTP_PASSWORD |"),
    ("setx SERVICE_TOKEN Wx7kLp2Zq9Ty", "Wx7kLp2Zq9Ty", "setx SERVICE_TOKEN"),
    # SQL and code
    ("ALTER LOGIN app WITH PASSWORD = 'Wx7!kLp2#Zq';", "Wx7!kLp2#Zq", "ALTER LOGIN app"),
    ("GRANT ALL TO ops IDENTIFIED BY 'Wx7!kLp2#Zq';", "Wx7!kLp2#Zq", "GRANT ALL TO ops"),
    ("putenv('MAIL_SECRET', 'Wx7kLp2Zq9')", "Wx7kLp2Zq9", "MAIL_SECRET"),
    ('conn.setPassword("Wx7!kLp2#Zq");', "Wx7!kLp2#Zq", "conn.setPassword("),
    ('client = Client(basic_auth=("svc", "Wx7!kLp2#Zq"))', "Wx7!kLp2#Zq", '"svc"'),
    # name/value siblings, block scalars, pipes, flags, user/password@host
    ("- name: API_TOKEN\n  value: Wx7kLp2Zq9Ty", "Wx7kLp2Zq9Ty", "- name: API_TOKEN"),
    ("secret_key: |\n  Wx7kLp2Zq9Ty\nnext: 1", "Wx7kLp2Zq9Ty", "next: 1"),
    ("echo 'Wx7!kLp2#Zq' | podman login -u ci --password-stdin quay.io", "Wx7!kLp2#Zq", "quay.io"),
    ("jarsigner -storepass Wx7!kLp2#Zq app.jar", "Wx7!kLp2#Zq", "app.jar"),
    ("sqlplus scott/Wx7kLp2Zq9@db01", "Wx7kLp2Zq9", "@db01"),
    # encodings
    ("{&quot;api_key&quot;: &quot;Wx7kLp2Zq9Ty&quot;}", "Wx7kLp2Zq9Ty", "api_key"),
    ("next=https%3A%2F%2Fsvc%3AWx7kLp2Zq9Ty%40host%2F", "Wx7kLp2Zq9Ty", "next="),
    (
        "payload: " + base64.b64encode(b'{"password": "Wx7!kLp2#Zq", "user": "ops"}').decode(),
        base64.b64encode(b'{"password": "Wx7!kLp2#Zq", "user": "ops"}').decode(),
        "payload: ",
    ),
]

UNCHANGED: list[str] = [
    # randomness' structural exclusions
    "commit 3f2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a",
    "span 9f86d081884c7d65 trace 9f86d081884c7d659a2feaa0c55ad015",
    "id 01HF3Z7Q9W8E2R4T6Y8V0K2M4P",
    "integrity sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl a@b",
    "img data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4",
    "request_id: Zk3q9LmX2rT8vW5nB7cY4hJ6pQ1sD0",
    "Stripe customer cus_NffrFeUfNV2Hib and order ord_8Hq2Lm9Xp4",
    # context near misses: words, flags, lookups, references, masks, types
    "the password policy requires twelve characters",
    "db_password      --see-vault",
    "value = get_secret('payments-db')",
    "- name: API_TOKEN\n  valueFrom:\n    secretKeyRef: {name: api, key: token}",
    "mysql -P 3306 -h db",
    "docs/readme@v2 and actions/checkout@v4",
    "api_token: ${API_TOKEN:-}",
    "password: (sensitive value)",
    "Access denied for user 'root'@'localhost' (using password: NO)",
    "token: SecretStr = Field(default=None)",
    "conn = connect(host=host, password=password)",
    "gcloud secrets versions access latest --secret=payments-api-key",
]


@pytest.mark.parametrize(("text", "secret", "kept"), MASKED, ids=[m[1][:10] for m in MASKED])
def test_the_pass_masks_the_value_and_keeps_the_rest(text: str, secret: str, kept: str) -> None:
    redacted, count = DEFAULT_REDACTOR.redact_counted(text)
    assert secret not in redacted
    assert MASK in redacted
    assert count >= 1
    assert kept in redacted
    assert DEFAULT_REDACTOR.redact(redacted) == redacted


@pytest.mark.parametrize("text", UNCHANGED)
def test_the_near_miss_comes_through_unchanged(text: str) -> None:
    assert DEFAULT_REDACTOR.redact_counted(text) == (text, 0)
