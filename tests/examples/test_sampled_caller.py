"""``examples/sampled_caller.py`` (docs/how-to/sampling.md) runs as the page says: of 24 turns
with a 0.5 ratio sampler, some are traced and some not, every traced turn is whole (its call
span and its tool span), and the metrics count every turn's envelopes and tool calls."""

from __future__ import annotations

import subprocess
import sys

from a2a_progress.otel import conventions as conv
from a2a_progress.otlp import OtlpReceiver
from support.examples import EXAMPLES, TIMEOUT, environment, serving
from support.otlp import bridge_spans

TURNS = 24
# examples/callee.py: thinking, ci_status start and done, dashboard start and aborted, text
UPDATES_PER_TURN = 6
TOOLS_PER_TURN = 2


def test_a_ratio_sampler_traces_some_turns_and_the_metrics_count_all() -> None:
    with OtlpReceiver(grpc_port=None) as receiver, serving("callee.py") as url:
        command = [sys.executable, str(EXAMPLES / "sampled_caller.py"), url, "Blocked?"]
        done = subprocess.run(
            [*command, "--turns", str(TURNS), "--ratio", "0.5"],
            env=environment(OTEL_EXPORTER_OTLP_ENDPOINT=receiver.http_endpoint),
            capture_output=True,
            text=True,
            timeout=2 * TIMEOUT,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        spans = [s for s in bridge_spans(receiver.spans()) if s.service_name == "sampled-caller"]
        points = receiver.metric_points()
    calls = [s for s in spans if s.kind == "CLIENT"]
    tools = [s for s in spans if s.name.startswith(conv.TOOL_SPAN_PREFIX)]
    # P(all or none of 24 traced) = 2 / 2**24.
    assert 0 < len(calls) < TURNS
    parents = sorted(c.span_id for c in calls for _ in range(TOOLS_PER_TURN))
    assert sorted(t.parent_span_id for t in tools) == parents

    def last(name: str, **attributes: str) -> float | int | None:
        found = [
            value
            for metric, attrs, value in points
            if metric == name and all(attrs.get(k) == v for k, v in attributes.items())
        ]
        return found[-1] if found else None  # cumulative: the last export holds the total

    accepted = last(conv.METRIC_ENVELOPES, **{conv.OUTCOME: "accepted"})
    assert accepted == TURNS * UPDATES_PER_TURN
