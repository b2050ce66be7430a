"""CleanNames, the memo the emitter and the bridge keep of names a redactor left unchanged: a
name holding a credential is never kept, and a redactor of your own is asked every time."""

from __future__ import annotations

import uuid

import pytest
from a2a.server.tasks import TaskUpdater

from a2a_progress import ProgressEmitter
from a2a_progress.otel.peer_names import PeerNames
from a2a_progress.redaction import DEFAULT_REDACTOR, MASK, Redactor
from a2a_progress.redaction.clean_names import CleanNames
from support.queues import RecordingQueue
from support.redaction_corpus import CORPUS_TUNING, Case


@pytest.mark.parametrize("case", CORPUS_TUNING, ids=lambda case: case.id)
def test_a_name_holding_a_credential_is_masked_and_never_kept(case: Case) -> None:
    names = CleanNames(DEFAULT_REDACTOR, 16)
    masked = names.note(case.text, DEFAULT_REDACTOR.redact(case.text))
    assert case.secret not in masked
    assert case.text not in names
    # The bridge's names, through the same memo.
    peer_names = PeerNames(DEFAULT_REDACTOR)
    assert case.secret not in peer_names.name(case.text)
    assert case.text not in peer_names


def test_a_clean_name_is_kept_and_the_memo_stays_bounded() -> None:
    names = CleanNames(DEFAULT_REDACTOR, 2)
    for name in ("search_code", "read_file"):
        assert names.note(name, DEFAULT_REDACTOR.redact(name)) == name
        assert name in names
    names.note("run_tests", "run_tests")  # full: cleared, then kept
    assert "run_tests" in names
    assert "search_code" not in names
    assert "read_file" not in names


class _Counting(Redactor):
    """A redactor of your own: its answers may depend on more than the text."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def redact(self, text: str) -> str:
        self.asked.append(text)
        return super().redact(text)

    def redact_counted(self, text: str) -> tuple[str, int]:
        self.asked.append(text)
        return super().redact_counted(text)


async def test_a_redactor_of_your_own_is_asked_for_every_name() -> None:
    redactor = _Counting()
    names = CleanNames(redactor, 16)
    names.note("search_code", "search_code")
    assert "search_code" not in names
    # The emitter's names and fallbacks, every call.
    updater = TaskUpdater(RecordingQueue(), f"task-{uuid.uuid4()}", "ctx-1")
    progress = ProgressEmitter(updater, redactor=redactor)
    for index in range(2):
        async with progress.tool_call("search", f"call-{index}"):
            pass
    assert redactor.asked.count("search") == 2
    assert redactor.asked.count("Calling tool search") == 2
    # The bridge's, every turn.
    peer_names = PeerNames(redactor)
    for _ in range(3):
        assert peer_names.name("search_code") == "search_code"
    assert redactor.asked.count("search_code") == 3


def test_the_mask_itself_is_no_clean_name_of_a_credential() -> None:
    names = CleanNames(DEFAULT_REDACTOR, 16)
    secret = "ghp_1234567890abcdefghijABCDEFGHIJ123456"
    assert names.note(secret, DEFAULT_REDACTOR.redact(secret)) == MASK
    assert secret not in names
