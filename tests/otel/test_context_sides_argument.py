"""``instrument(sides=...)`` takes the README's words as a string (``"caller"``, ``"callee"``,
``"both"``, ``"none"``, comma-separated too), like the environment variable, or any iterable of
sides — a string is never read as its letters (which would observe no side at all)."""

from typing import Any

import pytest
from otel_support import Telemetry, attrs, call, complete, done, serving, start

from a2a_progress.otel import conventions as conv


@pytest.mark.parametrize(
    ("sides", "observed"),
    [
        ("caller", {"caller"}),
        ("callee", {"callee"}),
        ("both", {"caller", "callee"}),
        ("caller,callee", {"caller", "callee"}),
        (" Callee ", {"callee"}),
        ("none", set()),
        (["caller"], {"caller"}),
        (frozenset({"callee"}), {"callee"}),
        ((), set()),
    ],
)
async def test_sides_as_words_or_as_a_collection(
    telemetry: Telemetry, sides: Any, observed: set[str]
) -> None:
    telemetry.instrument(sides=sides)
    async with serving([start("search", "s"), done("s"), complete()]) as served:
        await call(served.card_for("jsonrpc"))
    assert {attrs(span)[conv.OBSERVER] for span in telemetry.tool_spans()} == observed
    assert len(telemetry.turn_spans(conv.OBSERVER_CALLER)) == ("caller" in observed)
    assert len(telemetry.turn_spans(conv.OBSERVER_CALLEE)) == ("callee" in observed)
