"""The seam (a2a_progress.sdk): one place knows the a2a-sdk line; the protocol core needs none."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from a2a_progress.sdk import LINE, SdkLine
from a2a_progress.sdk.views import Role, TaskState, state_name

SRC = Path(__file__).resolve().parents[1] / "src" / "a2a_progress"

# An import hook that refuses the a2a package, as if no a2a-sdk were installed.
_WITHOUT_A2A = """
import importlib.abc, sys

class NoA2A(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "a2a" or name.startswith("a2a."):
            raise ImportError(f"blocked: {name}")
        return None

sys.meta_path.insert(0, NoA2A())
"""

_CORE = """
from a2a_progress import Envelope, Kind, decode, encode
from a2a_progress.consumer.assembler import ProgressAssembler
from a2a_progress.dialects import TurnDialects, resolve_dialects
from a2a_progress.redaction import DEFAULT_REDACTOR
from a2a_progress.sdk.views import EventKind, EventView, MessageView, PartView, TaskState

envelope = Envelope(Kind.TEXT, 1, {"text": DEFAULT_REDACTOR.redact("token=hunter2hunter2")})
part = PartView("fallback", decode(encode(envelope)), None, None, None)
message = MessageView("m1", 2, (part,), None, None)
view = EventView(EventKind.STATUS_UPDATE, "t1", "c1", int(TaskState.WORKING), message)
[update] = ProgressAssembler().feed_view(view)
assert update.envelope.content == envelope.content, update
assert "hunter2" not in update.envelope.content
assert TurnDialects(resolve_dialects("all")) is not None
assert not any(name == "a2a" or name.startswith("a2a.") for name in sys.modules)
print("ok")
"""


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT_A2A + code], capture_output=True, text=True, check=False
    )


def test_the_protocol_core_imports_and_works_with_no_a2a_sdk() -> None:
    result = _run(_CORE)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_the_hook_is_real_the_adapter_needs_the_sdk() -> None:
    # The same hook makes the seam's adapter fail: the test above would catch an a2a import.
    result = _run("import a2a_progress.sdk.adapter")
    assert result.returncode != 0
    assert "blocked: a2a" in result.stderr


def test_the_installed_line_is_detected() -> None:
    from importlib.metadata import version

    assert LINE is (SdkLine.V03 if version("a2a-sdk").startswith("0.3.") else SdkLine.V1)


@pytest.mark.skipif(LINE is not SdkLine.V1, reason="A2A 1.0's protobuf enums")
def test_the_own_enums_number_states_and_roles_as_the_sdk() -> None:
    from a2a.types.a2a_pb2 import Role as PbRole
    from a2a.types.a2a_pb2 import TaskState as PbTaskState

    assert {state.name: int(state) for state in TaskState} == {
        name.removeprefix("TASK_STATE_"): number for name, number in PbTaskState.items()
    }
    assert {role.name: int(role) for role in Role} == {
        name.removeprefix("ROLE_"): number for name, number in PbRole.items()
    }
    assert state_name(3) == "TASK_STATE_COMPLETED"
    assert state_name(99) == "99"


# Parts that are 1.x-only by design (they serve agents or are the command line), and the seam.
_MAY_IMPORT_A2A = ("sdk/", "serving/", "cli/")


def test_only_the_seam_and_the_one_line_parts_import_a2a_sdk() -> None:
    importing = sorted(
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if re.search(r"^\s*(from|import) a2a(\.|\s)", path.read_text(), re.MULTILINE)
    )
    assert importing, "the seam imports a2a-sdk"
    assert [path for path in importing if not path.startswith(_MAY_IMPORT_A2A)] == []
