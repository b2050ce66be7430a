"""Inputs the fuzz target (``fuzz/fuzz_decode.py``) failed on, replayed through its ``check()``;
and its committed seeds, so the target keeps working where atheris is not installed."""

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

FUZZ = Path(__file__).resolve().parents[1] / "fuzz"


def _load_target() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fuzz_decode", FUZZ / "fuzz_decode.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TARGET = _load_target()

REGRESSIONS = {
    # Found after ~300 runs against the consumer before "report the calls and turns the memory
    # bounds push out": four lines, four events. Turns t0 and t2 start, t0 opens a tool call,
    # then t1 pushes t0 out of the max_turns=2 assembler; the open call ended, unreported.
    "evicted_turn_open_call": (
        b' \np\n\x00{"v":1,"kind":"tool_call","":"","seq":1,"status":"running",'
        b'"payload":{"tool":""}}\n\x08'
    ),
}


@pytest.mark.parametrize("data", REGRESSIONS.values(), ids=REGRESSIONS.keys())
def test_fuzz_regression(data: bytes) -> None:
    TARGET.check(data)


@pytest.mark.parametrize("seed", sorted((FUZZ / "seeds").iterdir()), ids=lambda path: path.name)
def test_seed(seed: Path) -> None:
    TARGET.check(seed.read_bytes())


def test_an_empty_corpus_is_seeded_and_a_grown_one_left_alone(tmp_path: Path) -> None:
    empty, grown, crash = tmp_path / "corpus", tmp_path / "grown", tmp_path / "crash-1"
    grown.mkdir()
    (grown / "input").write_bytes(b"x")
    crash.write_bytes(b"y")
    TARGET.seed_corpus(["fuzz_decode.py", "-max_total_time=1", str(empty), str(grown), str(crash)])
    assert sorted(path.name for path in empty.iterdir()) == sorted(
        path.name for path in (FUZZ / "seeds").iterdir()
    )
    assert [path.name for path in grown.iterdir()] == ["input"]
    assert crash.read_bytes() == b"y"
