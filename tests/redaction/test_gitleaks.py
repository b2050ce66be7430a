"""Rules from a gitleaks file: secret groups, keywords, entropy, allow-lists (global and per
rule, regexes and stopwords); a rule Python cannot compile is an error naming it at startup;
the bridge's environment variable loads a file and survives a bad one; the how-to's example."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from a2a_progress.otel.config import ENV_REDACT_PATTERNS, ENV_REDACT_RULES, BridgeConfig
from a2a_progress.redaction import DEFAULT_REDACTOR, MASK, Redactor
from a2a_progress.redaction.gitleaks import RulesError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

RULES = """
[[rules]]
id = "ticket-secret"
regex = '''ticket=(TK-[a-z]{8})-(\\d{4})'''
secretGroup = 2
keywords = ["ticket="]

[[rules]]
id = "first-group"
regex = '''(?i)vaultpin (\\d{4})(?: or (\\d{4}))?'''

[[rules]]
id = "whole-match"
regex = '''zzsecret-[a-z]{6}'''
entropy = 2.5

[rules.allowlist]
stopwords = ["aaa"]

[allowlist]
regexes = ['''^0000$''']

[[allowlists]]
regexes = ['''^sample:''']
regexTarget = "line"
"""


def rules_file(tmp_path: Path, text: str = RULES) -> Path:
    path = tmp_path / "rules.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # secretGroup: only that group is masked, the rest of the match stays
        ("see ticket=TK-abcdefgh-4821 now", f"see ticket=TK-abcdefgh-{MASK} now"),
        # keywords: a text without one is not searched
        ("ticket:TK-abcdefgh-4821", "ticket:TK-abcdefgh-4821"),
        # no secretGroup: the first group that matched
        ("VaultPIN 4821", f"VaultPIN {MASK}"),
        # no group: the whole match, unless at or below the entropy floor or a stopword
        ("id zzsecret-qwerty end", f"id {MASK} end"),
        ("id zzsecret-zzzzzz end", "id zzsecret-zzzzzz end"),
        ("id zzsecret-aaabcd end", "id zzsecret-aaabcd end"),
        # global allow-lists: a regex on the secret, a regex on the line
        ("vaultpin 0000", "vaultpin 0000"),
        ("sample: vaultpin 4821", "sample: vaultpin 4821"),
    ],
)
def test_rules_mask_what_they_find(tmp_path: Path, text: str, expected: str) -> None:
    redactor = Redactor.from_gitleaks(rules_file(tmp_path))
    assert redactor.redact(text) == expected
    assert redactor.redact(expected) == expected
    assert DEFAULT_REDACTOR.redact("see ticket=TK-abcdefgh-4821 now").endswith("4821 now")


def test_the_built_in_passes_still_run(tmp_path: Path) -> None:
    redactor = Redactor.from_gitleaks(rules_file(tmp_path), ["internal-[0-9]+"])
    assert redactor.redact_counted("password=hunter22 internal-42 vaultpin 1234") == (
        f"password={MASK} {MASK} vaultpin {MASK}",
        3,
    )


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[[rules]]\nid = \"bad-one\"\nregex = '''(?<=a+)b'''\n", "'bad-one'"),
        ('[[rules]]\nid = "no-regex"\npath = "x"\n', "'no-regex'"),
        ("[allowlist]\nregexes = ['''(''']\n", "global allowlist"),
        ("[[rules]\n", "cannot read"),
    ],
)
def test_an_unusable_rule_is_an_error_naming_it(tmp_path: Path, text: str, named: str) -> None:
    path = rules_file(tmp_path, text)
    with pytest.raises(RulesError) as raised:
        Redactor.from_gitleaks(path)
    assert named in str(raised.value)
    assert str(path) in str(raised.value)


def test_the_environment_variable_loads_the_rules(tmp_path: Path) -> None:
    environ = {ENV_REDACT_RULES: str(rules_file(tmp_path)), ENV_REDACT_PATTERNS: "internal-\\d+"}
    redactor = BridgeConfig.resolve({}, environ).redactor
    assert redactor.redact("vaultpin 4821 internal-7") == f"vaultpin {MASK} {MASK}"


def test_a_bad_rules_file_is_logged_and_the_agent_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = rules_file(tmp_path, '[[rules]]\nid = "bad-one"\nregex = "(?<=a+)b"\n')
    with caplog.at_level(logging.ERROR):
        redactor = BridgeConfig.resolve({}, {ENV_REDACT_RULES: str(path)}).redactor
    assert redactor is DEFAULT_REDACTOR
    assert any("bad-one" in record.getMessage() for record in caplog.records)
    assert any(ENV_REDACT_RULES in record.getMessage() for record in caplog.records)


def test_the_how_to_example_runs_as_documented() -> None:
    script = EXAMPLES / "redaction_rules.py"
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=True, timeout=60
    )
    lines = run.stdout.splitlines()
    assert lines == [
        f"calling billing with {MASK}",
        "the docs use acme_svc_EXAMPLE0000000000000000000",
        f"front desk: badge PIN: {MASK}, fixture badge PIN: 000000",
        f"and the built-in passes still run: password={MASK}",
    ]
