"""The API reference's examples run: every ``Examples:`` section of the package's docstrings is
a doctest, and every class and function ``a2a_progress`` exports has one."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest

import a2a_progress
from a2a_progress.sdk import LINE, SdkLine

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# The adapter of the a2a-sdk line that is not installed (it imports that line's types).
_ADAPTERS = {
    SdkLine.V1: ("a2a_progress.sdk.v1", "a2a_progress.sdk.client_v1", "a2a_progress.sdk.hooks_v1"),
    SdkLine.V03: (
        "a2a_progress.sdk.v03",
        "a2a_progress.sdk.client_v03",
        "a2a_progress.sdk.hooks_v03",
    ),
}
OTHER_LINE = frozenset(
    name for line, names in _ADAPTERS.items() if line is not LINE for name in names
)


def modules() -> list[ModuleType]:
    names = [
        info.name
        for info in pkgutil.walk_packages(a2a_progress.__path__, "a2a_progress.")
        if not info.name.endswith("__main__") and info.name not in OTHER_LINE
    ]
    return [a2a_progress, *map(importlib.import_module, sorted(names))]


@pytest.mark.parametrize("module", modules(), ids=lambda module: module.__name__)
def test_the_examples_run(module: ModuleType) -> None:
    failed, _ = doctest.testmod(module, optionflags=FLAGS, report=True)
    assert failed == 0


def test_every_exported_class_and_function_has_an_example() -> None:
    missing = [
        name
        for name in a2a_progress.__all__
        if (inspect.isclass(obj := getattr(a2a_progress, name)) or inspect.isfunction(obj))
        and ">>> " not in (inspect.getdoc(obj) or "")
    ]
    assert missing == []
