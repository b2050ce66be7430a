"""The seam between a2a-progress and a2a-sdk: the one place that knows which SDK line is here.

a2a-sdk 1.x (protobuf types) and 0.3.x (pydantic types) install the same ``a2a`` package, so an
environment holds one of them. `LINE` says which, read once from the installed
distribution's version (without importing ``a2a``). Everything above the seam talks to the
project's own small types (`a2a_progress.sdk.views`) and to `a2a_progress.sdk.adapter`,
which re-exports the installed line's adapter (`.v1` or `.v03`).

This module and `.views` import no a2a-sdk: the protocol core works without one.
"""

from __future__ import annotations

from enum import StrEnum
from importlib import metadata
from typing import Final

DISTRIBUTION: Final = "a2a-sdk"


class SdkLine(StrEnum):
    """The a2a-sdk release lines a2a-progress adapts."""

    V1 = "1.x"
    V03 = "0.3.x"


def _detect() -> SdkLine | None:
    try:
        version = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None
    major, _, rest = version.partition(".")
    if major == "0":
        return SdkLine.V03 if rest.startswith("3.") else None
    return SdkLine.V1 if major == "1" else None


LINE: Final = _detect()
"""The installed a2a-sdk line, or None when no supported a2a-sdk is installed."""


class UnsupportedSdkError(ImportError):
    """A module needs an a2a-sdk line other than the installed one (its message is one line)."""


def require(feature: str, line: SdkLine = SdkLine.V1) -> None:
    """Raise `UnsupportedSdkError` (one line, no traceback worth reading) unless the
    installed a2a-sdk is ``line``; ``feature`` names what needs it."""
    if LINE is line:
        return
    installed = _installed()
    raise UnsupportedSdkError(
        f"{feature} needs a2a-sdk {line.value} and this environment has {installed}; "
        "install a2a-progress in an environment of its own "
        "(e.g. `pipx install 'a2a-progress[cli]'`) "
        "to run it: it talks to any A2A agent over the wire"
    )


def require_any(feature: str) -> SdkLine:
    """The installed line; raise `UnsupportedSdkError` when there is none."""
    if LINE is None:
        raise UnsupportedSdkError(
            f"{feature} needs a2a-sdk (0.3.x or 1.x) and this environment has {_installed()}"
        )
    return LINE


def _installed() -> str:
    try:
        return f"a2a-sdk {metadata.version(DISTRIBUTION)}"
    except metadata.PackageNotFoundError:
        return "no a2a-sdk"


__all__ = ["LINE", "SdkLine", "UnsupportedSdkError", "require", "require_any"]
