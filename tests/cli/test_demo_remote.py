"""``demo --remote URL``: the caller side only, against a callee elsewhere (docker-compose)."""

import asyncio
import re
import signal

import pytest
from cli_support import ANSI, run_cli

from a2a_progress.cli.demo.agent import DemoAgentExecutor
from a2a_progress.otlp import OtlpReceiver, ReceivedSpan
from a2a_progress.serving import serve_agent
from support.processes import cli_process, without_otel


async def test_one_turn_is_traced_to_the_configured_endpoint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    with OtlpReceiver(grpc_port=None) as collector:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.http_endpoint)
        async with serve_agent(DemoAgentExecutor(pace=0)) as served:
            result = await run_cli(monkeypatch, "demo", "--remote", served.http_url)
        assert result.code == 0, result.stderr
        assert not ANSI.search(result.stdout)
        assert "outcome: completed" in result.stdout
        assert "trace of every agent" not in result.stdout  # no receiver of its own
        [trace_id] = re.findall(r"^trace: ([0-9a-f]{32})$", result.stdout, re.MULTILINE)

        def caller_turn(spans: list[ReceivedSpan]) -> bool:
            return any(span.name == "SendStreamingMessage" for span in spans)

        spans = await asyncio.to_thread(collector.wait_for_spans, caller_turn, 10)
    assert {span.trace_id for span in spans} == {trace_id}
    assert {span.service_name for span in spans} == {"demo-caller"}
    assert sum(span.name.startswith("execute_tool ") for span in spans) == 5


async def test_every_repeats_turns_until_sigterm() -> None:
    async with (
        serve_agent(DemoAgentExecutor(pace=0)) as served,
        cli_process(
            "demo", "--remote", served.http_url, "--every", "0.1", env=without_otel()
        ) as demo,
    ):
        await demo.wait_for(
            lambda lines: sum(line.startswith("outcome: completed") for line in lines) >= 2
        )
        code, err = await demo.stop(signal.SIGTERM)
    assert code == 0, err
    assert err == b""
