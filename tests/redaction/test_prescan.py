"""The key=value pre-scan: matching only where an alternative can begin is the full search.

``pair_hint`` decides whether a text is scanned for ``key=value`` secrets at all; a wrong
"no" would let a credential through unmasked, so it is checked against the regex's own search.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_progress.redaction import prescan as redaction_prescan
from support.redaction_corpus import CORPUS

_PIECES = st.sampled_from(
    [
        "pass", "password", "pwd", "secret", "credential", "token", "key", "auth", "signature",
        "sessid", "sessionid", "bearer", "login", "-", "--", "<", ">", "=", ":", " ", "\t", "\n",
        '"', "'", "\\", "]", "_", ".", "x", "api_key", "accesskey", "é", "0",
    ]
)  # fmt: skip


def _search(text: str) -> bool:
    return redaction_prescan.PAIR_HINT.search(text) is not None


@settings(max_examples=3000, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_the_pre_scan_agrees_with_the_search_on_generated_text(text: str) -> None:
    assert redaction_prescan.pair_hint(text) == _search(text)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=200))
def test_the_pre_scan_agrees_with_the_search_on_any_text(text: str) -> None:
    lowered = text.lower()
    assert redaction_prescan.pair_hint(lowered) == _search(lowered)


def test_the_pre_scan_agrees_with_the_search_on_the_credential_corpus() -> None:
    for case in CORPUS:
        for text in (case.text.lower(), f"see {case.text} then".lower()):
            assert redaction_prescan.pair_hint(text) == _search(text), case.id
