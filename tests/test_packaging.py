"""The wheel as it would be published: built from this tree by ``python -m build``, then opened.

It must hold what an installed package needs (the web panel's files, ``py.typed``, the license,
the ``a2a-progress`` script and the instrumentor's entry point) and nothing of the repository's
own (tests, benchmarks, docs, examples).
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from a2a_progress import __version__

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_holds_the_package_and_only_the_package(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path), str(ROOT)],
        capture_output=True,
        check=True,
        timeout=300,
    )
    [wheel] = tmp_path.glob("*.whl")
    assert wheel.name == f"a2a_progress-{__version__}-py3-none-any.whl"
    names = zipfile.ZipFile(wheel).namelist()
    info = f"a2a_progress-{__version__}.dist-info"
    for needed in (
        "a2a_progress/py.typed",
        "a2a_progress/web/static/a2a-progress-panel.js",
        "a2a_progress/web/static/a2a-progress-panel.css",
        "a2a_progress/__main__.py",
        f"{info}/licenses/LICENSE",
        f"{info}/entry_points.txt",
    ):
        assert needed in names, needed
    tops = {name.split("/")[0] for name in names}
    assert tops == {"a2a_progress", info}, tops  # no tests, bench, docs or examples
    assert not [name for name in names if "/tests/" in name or name.endswith(".pyc")]
    entry_points = zipfile.ZipFile(wheel).read(f"{info}/entry_points.txt").decode()
    assert "a2a-progress = a2a_progress.extras:main" in entry_points
    assert "a2a_progress = a2a_progress.otel:A2AProgressInstrumentor" in entry_points
    metadata = zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode()
    assert f"Version: {__version__}" in metadata
    assert "License-Expression: Apache-2.0" in metadata
