"""Redact with your own gitleaks rules beside the built-in ones (docs/how-to/redaction-rules.md).

Run: ``python examples/redaction_rules.py``. It prints each sample line as it would be logged.
"""

from pathlib import Path

from a2a_progress.redaction import Redactor

RULES = Path(__file__).with_name("redaction_rules.toml")
SAMPLES = (
    "calling billing with acme_svc_Q7ZP2LK9XV4RT8WM3NB6YC1A",
    "the docs use acme_svc_EXAMPLE0000000000000000000",
    "front desk: badge PIN: 482915, fixture badge PIN: 000000",
    "and the built-in passes still run: password=Hunter2!Spring",
)


def main() -> None:
    redactor = Redactor.from_gitleaks(RULES)
    for line in SAMPLES:
        print(redactor.redact(line))


if __name__ == "__main__":
    main()
