"""``demo --remote URL``: the caller side only, against a callee elsewhere (docker-compose)."""

import asyncio
import os
import re
import signal
import sys

import pytest
from cli_support import ANSI, run_cli

from a2a_progress.cli.demo.agent import DemoAgentExecutor
from a2a_progress.otlp_receiver import OtlpReceiver, ReceivedSpan
from a2a_progress.serve import serve_agent


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
    env = {key: value for key, value in os.environ.items() if not key.startswith("OTEL_")}
    async with serve_agent(DemoAgentExecutor(pace=0)) as served:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            *("-m", "a2a_progress.cli", "demo", "--remote", served.http_url, "--every", "0.1"),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        assert process.stdout is not None
        completed = 0
        while completed < 2:
            line = await asyncio.wait_for(process.stdout.readline(), 60)
            assert line, "the demo exited early"
            completed += line.startswith(b"outcome: completed")
        process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, err
    assert err == b""
