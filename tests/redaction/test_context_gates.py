"""The context pass's gate: a text it turns away holds no shape the pass could mask.

`context.possible` groups its literals under a string each member of the group holds, and
searches a group's members only when the text holds that string. A member without its group's
string would be skipped for a text that holds the member (a credential let through), and
nothing but a differential run against the old flat list would notice: so every member is
checked to hold its gate, and the grouped search against the flat one.

(The gate is what decides, not the shapes: "bearer" or "signature" alone names a shape's
credential but is no member, so "bearer of bad news" is never scanned. Kept as it is: the
redactor's output is the contract, and this pass was made faster without changing it.)
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_progress.redaction import context
from support.redaction_corpus import CORPUS, FALSE_POSITIVES
from support.redaction_heldout import HELDOUT, HELDOUT_LOOKALIKES

_PIECES = st.sampled_from(
    [
        "password", "Passwd", "passphrase", "pass", "PASS", "pwd", "secret", "token", "api",
        "key", "KEY", "sess", "sessionid", "credential", "identified", "securestring", "auth",
        "store", "name", "value", "echo ", "| docker login --password-stdin", "-p", "-P", "--pw ",
        "/", "@", "(", ")", "=", ":", " ", "\t", "\n", '"', "'", ",", "|", "_", "-", ".", "x",
        "Q7zP2Lk9Xv4Rt8Wm3Nb6", "S3cr3t!x", "12345678",
    ]
)  # fmt: skip


def test_every_member_of_a_gated_group_holds_its_gate() -> None:
    for gate, members in context._TRIGGERS:
        for member in members:
            assert gate in member, (gate, member)


def _flat(lowered: str) -> bool:
    return any(member in lowered for _, members in context._TRIGGERS for member in members)


def _check(text: str) -> None:
    lowered = text.lower()
    assert context.possible(lowered) == _flat(lowered), text
    if not context.possible(lowered):
        assert context.mask_in_context(text) == (text, 0)


@settings(max_examples=1500, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_the_grouped_gate_is_the_flat_one_on_generated_text(text: str) -> None:
    _check(text)


def test_the_grouped_gate_is_the_flat_one_on_every_corpus_text() -> None:
    for text in [case.text for case in CORPUS + HELDOUT] + FALSE_POSITIVES + HELDOUT_LOOKALIKES:
        _check(text)
