"""``a2a-progress traces`` as a user runs it: a subprocess on free ports, fed by real agents.

A plain a2a-sdk callee and caller (``support/zero_code_*``) run under ``opentelemetry-instrument``
with nothing but ``OTEL_*`` variables: the callee exports over OTLP/HTTP, the caller over
OTLP/gRPC, both to the ``traces`` process. Its printed waterfall and its OTLP/JSON files are
checked.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

from support import agents, chain
from support.otlp import SDK_SCOPE, json_spans, span_exporter, tracer_provider
from support.processes import (
    PROCESS_TIMEOUT,
    AgentProcess,
    agent_process,
    instrumented,
    otel_environment,
    python_path,
    run_to_end,
    taken_port,
)
from support.traces_process import TRACES, running_traces

CALLER: Final = "traces-caller"
CALLEE: Final = "traces-callee"
PORT_IN_USE: Final = 10
ROW: Final = re.compile(r"^(?P<prefix>[│├└─ ]*)(?P<name>\S.*?)\s{2,}(?P<service>\S+)\s")


@dataclass(frozen=True)
class Row:
    depth: int
    name: str
    service: str
    line: str


@dataclass(frozen=True)
class Block:
    """One printed trace: its title, its table rows, and the lines after the table."""

    title: str
    rows: list[Row]
    notes: list[str]

    @property
    def trace_id(self) -> str:
        return self.title.split()[1]

    def parent(self, row: Row) -> Row | None:
        """The row a row is drawn under (the nearest one above it, one level up)."""
        index = self.rows.index(row)
        for above in reversed(self.rows[:index]):
            if above.depth == row.depth - 1:
                return above
        return None

    def find(self, name: str, service: str) -> Row:
        [row] = [r for r in self.rows if r.name == name and r.service == service]
        return row


def blocks(lines: list[str]) -> list[Block]:
    """Every trace printed with a table, in order (a block ends at its blank line)."""
    found: list[Block] = []
    index = 0
    while index < len(lines):
        if not (lines[index].startswith("trace ") and index + 1 < len(lines)):
            index += 1
            continue
        if not lines[index + 1].startswith("span "):  # a one-line trace
            index += 1
            continue
        end = index + 2
        while end < len(lines) and lines[end].strip():
            end += 1
        if end == len(lines):
            break  # still being printed
        rows, notes = [], []
        for line in lines[index + 2 : end]:
            match = ROW.match(line)
            if match is None or line.startswith("✗"):
                notes.append(line)
                continue
            depth = len(match["prefix"]) // 3
            rows.append(Row(depth, match["name"], match["service"], line))
        found.append(Block(lines[index], rows, notes))
        index = end
    return found


TITLE: Final = re.compile(r"^trace (?P<id>[0-9a-f]{32})  ·  (?P<spans>\d+) spans?  ·  ")
SUMMARY: Final = re.compile(r"^stopped: (?P<traces>[\d,]+) traces? drawn, (?P<spans>[\d,]+) spans?")
LATE: Final = re.compile(r"^(?P<late>\d+) late spans? for trace (?P<id>[0-9a-f]{32}); ")


def assert_counts_are_what_was_drawn(lines: list[str]) -> None:
    """The summary counts the traces and spans drawn, and a late line the spans it adds."""
    drawn: dict[str, int] = {}  # spans in the latest drawing of each trace
    late: int | None = None
    for line in lines:
        if (found := LATE.match(line)) is not None:
            late = int(found["late"])
            assert found["id"] in drawn, line  # drawn again, so drawn before
        elif (found := TITLE.match(line)) is not None:
            spans = int(found["spans"])
            if late is not None:
                assert spans == drawn[found["id"]] + late, line
            drawn[found["id"]], late = spans, None
    summary = SUMMARY.match(lines[-1])
    assert summary is not None, lines[-1]
    assert int(summary["traces"].replace(",", "")) == len(drawn)
    assert int(summary["spans"].replace(",", "")) == sum(drawn.values())


def whole_turn(lines: list[str]) -> bool:
    """Whether a trace of both agents, with the callee's tools, was printed."""
    return any(
        CALLER in block.title
        and CALLEE in block.title
        and any(r.name == "execute_tool fetch" and r.service == CALLEE for r in block.rows)
        for block in blocks(lines)
    )


def callee_exporting_to(
    endpoint: str, protocol: str, log: Path
) -> AbstractContextManager[AgentProcess]:
    """The zero-code callee, exporting to ``endpoint``."""
    env = otel_environment(CALLEE, endpoint, protocol)
    return agent_process(instrumented("support.zero_code_callee"), env, log)


def run_caller(url: str, endpoint: str, protocol: str) -> None:
    env = otel_environment(CALLER, endpoint, protocol)
    run_to_end(instrumented("support.zero_code_caller", url, "find it"), env)


def test_a_two_agent_turn_over_http_and_grpc_prints_one_waterfall(tmp_path: Path) -> None:
    json_file, directory = tmp_path / "traces.jsonl", tmp_path / "traces"
    with running_traces(
        "--quiet-period", "1", "--json", str(json_file), "--otlp-json", str(directory)
    ) as traces:
        with callee_exporting_to(traces.http, "http/protobuf", tmp_path / "callee.log") as callee:
            run_caller(callee.url, f"http://{traces.grpc}", "grpc")
            lines = traces.out.wait_for(whole_turn)
        traces.process.send_signal(signal.SIGINT)
        assert traces.process.wait(PROCESS_TIMEOUT) == 0, traces.err.text
        lines = traces.out.join()

    assert lines[-1].startswith("stopped: "), lines[-1]
    # The banner says how to get an agent's spans in before the trace is printed (an SDK
    # exports every 5 s by default; tests/examples/test_tutorial.py runs the advice).
    [quiet] = [line for line in lines if line.startswith("Each trace is printed")]
    assert "OTEL_BSP_SCHEDULE_DELAY=500" in quiet
    # a2a-sdk's own spans (one per SDK method) arrive, are written, and are not drawn: said once.
    assert lines[-1].endswith(", --sdk-spans draws them")
    assert sum("a2a-sdk span" in line for line in lines) == 1
    assert_counts_are_what_was_drawn(lines)
    assert not [line for line in lines if "a2a.server." in line or "a2a.client." in line]
    assert traces.err.lines == []
    # The last print of the trace holds every span (late spans print it again).
    [*_, block] = [b for b in blocks(lines) if CALLER in b.title and CALLEE in b.title]

    root = block.rows[0]
    assert (root.depth, root.name, root.service) == (0, "SendStreamingMessage", CALLER)
    server = block.find("SendStreamingMessage", CALLEE)
    # The thinking and text events, once: on the callee's turn, which announced it records them.
    assert server.line.rstrip().endswith(" 2")
    assert root.line.rstrip().endswith(" ok")  # no events column: the caller wrote none
    chain = [server]
    while (above := block.parent(chain[-1])) is not None:
        chain.append(above)
    assert chain[-1] == root, "the callee's turn hangs under the caller's"
    # Each tool call once, the callee's span (the caller makes none of a call its callee records).
    assert not [row for row in block.rows if row.service == CALLER and "execute_tool" in row.name]
    search = block.find("execute_tool search", CALLEE)
    fetch = block.find("execute_tool fetch", CALLEE)
    assert block.parent(search) == block.parent(fetch) == server
    assert block.rows.index(search) < block.rows.index(fetch)
    assert " ok " in search.line
    assert " ERROR " in fetch.line
    assert f"✗ execute_tool fetch ({CALLEE}): {agents.ABORT_REASON}" in block.notes
    assert f"  ·  {len(block.rows)} spans  ·  " in block.title

    # --json: one OTLP/JSON request on one line, holding each span of the trace once.
    [line] = json_file.read_text().splitlines()
    written = [s for s in json_spans(json.loads(line)) if s["traceId"] == block.trace_id]
    assert len([s for s in written if s["scope"] != SDK_SCOPE]) == len(block.rows)
    assert len({s["spanId"] for s in written}) == len(written)
    assert {s["service"] for s in written} == {CALLER, CALLEE}
    for span in written:
        assert re.fullmatch("[0-9a-f]{32}", span["traceId"])
        assert re.fullmatch("[0-9a-f]{16}", span["spanId"])
        assert span.get("parentSpanId", "") in {s["spanId"] for s in written} | {""}
    # --otlp-json: the trace in a file of its own, every span in one request.
    [document] = map(json.loads, (directory / f"{block.trace_id}.json").read_text().splitlines())
    assert sorted(s["spanId"] for s in json_spans(document)) == sorted(s["spanId"] for s in written)


def test_sigterm_prints_open_traces_and_exits_cleanly(tmp_path: Path) -> None:
    # A quiet period no test waits out: the trace is still open when SIGTERM comes.
    with running_traces("--quiet-period", "600", "--no-grpc", "--sdk-spans") as traces:
        assert traces.grpc == ""  # no gRPC line
        with callee_exporting_to(traces.http, "http/protobuf", tmp_path / "callee.log") as callee:
            run_caller(callee.url, traces.http, "http/protobuf")
        traces.process.terminate()
        assert traces.process.wait(PROCESS_TIMEOUT) == 0, traces.err.text
        lines = traces.out.join()
    assert whole_turn(lines), "\n".join(lines)
    assert any("a2a.server." in line for line in lines)  # --sdk-spans draws the SDK's own
    assert lines[-1].startswith("stopped: ")
    assert "not drawn" not in lines[-1]
    assert_counts_are_what_was_drawn(lines)


@pytest.mark.parametrize("flag", ["--http-port", "--grpc-port"])
def test_a_taken_port_is_one_line_and_exit_code_10(flag: str) -> None:
    with taken_port() as port:
        other = "--grpc-port" if flag == "--http-port" else "--http-port"
        done = subprocess.run(
            [*TRACES, flag, str(port), other, "0"],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": python_path()},
            timeout=PROCESS_TIMEOUT,
            check=False,
        )
    assert done.returncode == PORT_IN_USE
    [line] = done.stderr.splitlines()
    what = "OTLP/HTTP" if flag == "--http-port" else "OTLP/gRPC"
    assert line.startswith(f"a2a-progress: cannot listen for {what} on 127.0.0.1:{port}: ")
    assert "the port is taken" in line
    assert flag in line
    assert "Each trace" not in done.stdout


def test_an_unwritable_json_file_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [*TRACES, "--http-port", "0", "--no-grpc", "--json", str(tmp_path / "no" / "such.jsonl")],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": python_path()},
        timeout=PROCESS_TIMEOUT,
        check=False,
    )
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("a2a-progress: cannot write ")


def test_a_grpc_exporter_on_the_http_port_is_told_where_to_go() -> None:
    with running_traces() as traces:
        target = traces.http.removeprefix("http://")
        provider = tracer_provider("misdirected", span_exporter("grpc", target, timeout=2))
        with provider.get_tracer("test").start_as_current_span("lost"):
            pass
        provider.shutdown()  # the export fails: the HTTP port does not speak gRPC
        [line] = traces.err.wait_for(lambda lines: len(lines) >= 1)
        traces.process.send_signal(signal.SIGINT)
        assert traces.process.wait(PROCESS_TIMEOUT) == 0
    assert line == (
        f"a2a-progress traces: an OTLP/gRPC exporter is sending to the OTLP/HTTP endpoint "
        f"{traces.http}: send OTLP/gRPC to http://{traces.grpc}, or set "
        "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"
    )
    assert traces.err.join() == [line]  # said once, though the exporter retried


def chain_agent(
    name: str, endpoint: str, protocol: str, log: Path
) -> AbstractContextManager[AgentProcess]:
    """``support.chain_agent NAME --grpc`` under zero-code OTel, exporting to ``endpoint``."""
    env = otel_environment(f"chain-{name}", endpoint, protocol)
    return agent_process(instrumented("support.chain_agent", name, "--grpc"), env, log)


def descends(block: Block, row: Row, ancestor: Row) -> bool:
    above = block.parent(row)
    while above is not None and above != ancestor:
        above = block.parent(above)
    return above == ancestor


def test_an_a_b_c_chain_of_agent_processes_is_one_waterfall(tmp_path: Path) -> None:
    services = ("chain-a", "chain-b", "chain-c")

    def chain_printed(lines: list[str]) -> bool:
        return any(
            all(service in block.title for service in services)
            and any(row.name == "execute_tool tool_c" for row in block.rows)
            for block in blocks(lines)
        )

    with running_traces("--quiet-period", "1") as traces:
        grpc = f"http://{traces.grpc}"
        with (
            chain_agent("c", traces.http, "http/protobuf", tmp_path / "c.log") as c,
            chain_agent("b", grpc, "grpc", tmp_path / "b.log") as b,
            chain_agent("a", traces.http, "http/protobuf", tmp_path / "a.log") as a,
        ):
            events = asyncio.run(chain.send(a.url, chain.request([b.url, c.url], "grpc")))
            assert events[-1].status_update.status.message.parts[0].text == "a done"
            lines = traces.out.wait_for(chain_printed)
        traces.process.send_signal(signal.SIGINT)
        assert traces.process.wait(PROCESS_TIMEOUT) == 0, traces.err.text

    [*_, block] = [b for b in blocks(lines) if all(s in b.title for s in services)]
    assert block.rows[0].depth == 0
    assert block.rows[0].service == "chain-a"
    # Each agent's own tool, once: a caller makes no span of a call its callee records.
    tools = {name: block.find(f"execute_tool tool_{name}", f"chain-{name}") for name in "abc"}
    assert [row for row in block.rows if row.name.startswith("execute_tool")] == [
        tools[name] for name in "abc"
    ]
    own_work = {name: block.find(f"{name} own work", f"chain-{name}") for name in "abc"}
    for name in "abc":
        assert block.parent(own_work[name]) == tools[name]
    # B's turn as it served A (under A's tool), and as it called C (under B's own tool).
    served, calling = [
        r for r in block.rows if r.name == "SendStreamingMessage" and r.service == "chain-b"
    ]
    assert descends(block, served, tools["a"])
    assert descends(block, tools["b"], served)
    assert descends(block, calling, tools["b"])
    assert descends(block, tools["c"], calling)
