"""The terminal and the web panel print the same text for the same duration: Python's
``duration()`` against the panel's own ``seconds()`` (the shipped script, in Chromium), on the
value ``watch --json`` carries. Ties at each rounding step are where they used to differ
(Python's format rounds an exact tie to even, ``toFixed`` up): 12.5 ms was 12ms and 13ms."""

from __future__ import annotations

import json
import random
import re

from a2a_progress.cli.durations import duration
from a2a_progress.web import PANEL_SCRIPT, static_file
from support.web import chromium

SECONDS_FUNCTION = re.compile(r"^function seconds\(value\) \{\n.*?^\}\n", re.M | re.S)


def _values() -> list[float]:
    ties = [0.00025, 0.00995, 0.0125, 0.0105, 0.9995, 1.005, 9.995, 12.25, 59.95, 62.5, 90.5]
    near = [t + d for t in ties for d in (-5e-9, 5e-9)]  # either side of a tie, before rounding
    rng = random.Random(7)
    spread = [10 ** rng.uniform(-5, 2.5) for _ in range(2000)]
    return [*ties, *near, *spread, 0.0]


async def test_the_panel_prints_each_duration_as_the_terminal_does() -> None:
    [source] = SECONDS_FUNCTION.findall(static_file(PANEL_SCRIPT).decode())
    # What the panel receives: the --json number (the schema rounds to 0.1 ms), parsed by JS.
    sent = [json.loads(json.dumps(round(value, 4))) for value in _values()]
    async with chromium() as browser:
        page = await browser.new_page()
        shown = await page.evaluate(f"(values) => {{ {source} return values.map(seconds); }}", sent)
    printed = [duration(value) for value in _values()]
    assert [(v, p) for v, p, s in zip(_values(), printed, shown, strict=True) if p != s] == []
