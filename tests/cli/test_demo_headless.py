"""``a2a-progress demo`` with no terminal: plain lines, then the trace of all three agents.

The demo is run for real (its callee and the agent the callee consults are child processes; every
agent exports over OTLP/HTTP), and its spans are checked in the OTLP JSON file it writes.
``OTEL_EXPORTER_OTLP_ENDPOINT`` points at a second receiver, which must get the spans of every
process too.
"""

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import ANSI, closed_port

from a2a_progress.cli import main
from a2a_progress.cli.demo.agent import FINAL_ANSWER
from a2a_progress.cli.demo.auditor import AUDITOR_ANSWER
from a2a_progress.cli.demo.consult import OWN_SPAN
from a2a_progress.otel import conventions as conv
from a2a_progress.otlp import OtlpReceiver, ReceivedSpan
from support.otlp import json_spans
from support.spans import tool_name

TOOLS = ["get_deploy_status", "search_logs", "query_metrics", "run_smoke_tests", "diff_config"]
AUDITOR_TOOLS = ["read_commit", "search_commits"]
SERVICES = {"demo-caller", "demo-callee", "demo-auditor"}
# caller: root, call, 5 tools; callee: turn, 5 tools, own span, call, 2 tools; auditor: turn, 2
SPANS = 20
STATUS_ERROR = 2  # OTLP/JSON writes enums as integers


@pytest.fixture
def collector(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A second receiver, named by OTEL_EXPORTER_OTLP_ENDPOINT (as a collector would be)."""
    for name in ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"):
        monkeypatch.delenv(name, raising=False)
    with OtlpReceiver(grpc_port=None) as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.http_endpoint)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
        yield receiver


def test_demo_shows_the_turn_and_traces_every_agent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], collector: OtlpReceiver
) -> None:
    trace_file = tmp_path / "trace.json"
    code = main(["demo", "--pace", "0", "--trace-file", str(trace_file)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err == ""
    assert not ANSI.search(out)

    lines = out.splitlines()
    for tool_call in ("get_deploy_status [call-1]", "search_logs [call-2]", "diff_config [call-5]"):
        assert f"tool started: {tool_call}" in lines
        assert any(line.startswith(f"tool done: {tool_call} ") for line in lines)
    assert any(
        line.startswith("tool aborted: query_metrics [call-3] ")
        and line.endswith(": metrics backend timed out after 1.0s")
        for line in lines
    )
    assert "output run_smoke_tests: smoke/checkout/test_payment.py::test_authorize FAILED" in lines
    assert f"progress: change-auditor: {AUDITOR_ANSWER}" in lines
    answer = lines.index("answer:")
    assert lines[answer + 1 : answer + 4] == [f"  {line}" for line in FINAL_ANSWER.splitlines()]
    assert f"Wrote {SPANS} spans as OTLP JSON to {trace_file}" in lines
    assert f"Also exported to {collector.http_endpoint}" in lines

    spans = json_spans(json.loads(trace_file.read_text()))
    assert len(spans) == SPANS
    assert len({span["traceId"] for span in spans}) == 1, "every agent shares one trace"
    by_id = {span["spanId"]: span for span in spans}
    [root] = [span for span in spans if "parentSpanId" not in span]
    assert (root["name"], root["service"]) == ("a2a-progress demo", "demo-caller")
    [server] = [span for span in spans if span["service"] == "demo-callee" and span["kind"] == 2]
    assert by_id[server["parentSpanId"]]["service"] == "demo-caller"

    def parent(span: dict[str, Any]) -> dict[str, Any]:
        return by_id[span["parentSpanId"]]

    # The hop: auditor SERVER < callee CLIENT < the callee's own span < its diff_config tool span.
    [audit] = [span for span in spans if span["service"] == "demo-auditor" and span["kind"] == 2]
    client = parent(audit)
    assert (client["service"], client["kind"], client["name"]) == (
        "demo-callee",
        3,
        "SendStreamingMessage",
    )
    own = parent(client)
    assert (own["name"], own["service"]) == (OWN_SPAN, "demo-callee")
    tool = parent(own)
    assert (tool["name"], tool["attrs"][conv.OBSERVER]) == ("execute_tool diff_config", "callee")
    assert parent(tool) == server
    auditor_tools = [span for span in spans if span["service"] == "demo-auditor" and span != audit]
    assert sorted(span["attrs"][conv.GEN_AI_TOOL_NAME] for span in auditor_tools) == AUDITOR_TOOLS
    assert all(parent(span) == audit for span in auditor_tools)

    tool_spans = [span for span in spans if span["name"].startswith("execute_tool ")]
    for service, observer in (("demo-caller", "caller"), ("demo-callee", "callee")):
        mine = [
            span
            for span in tool_spans
            if span["service"] == service and span["attrs"][conv.OBSERVER] == observer
        ]
        assert sorted(tool_name(span["attrs"]) for span in mine) == sorted(TOOLS)
        assert {span["attrs"][conv.OBSERVER] for span in mine} == {observer}
        failed = {
            tool_name(span["attrs"])
            for span in mine
            if span.get("status", {}).get("code") == STATUS_ERROR
        }
        assert failed == {"query_metrics"}
        [smoke] = [span for span in mine if span["name"] == "execute_tool run_smoke_tests"]
        outputs = [event for event in smoke["events"] if event["name"] == conv.EVENT_OUTPUT]
        assert len(outputs) == 7

    def every_service(received: list[ReceivedSpan]) -> bool:
        return {span.service_name for span in received} == SERVICES

    exported = collector.wait_for_spans(every_service, timeout=10)
    assert {span.trace_id for span in exported} == {spans[0]["traceId"]}


def test_demo_skips_an_endpoint_where_nothing_listens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A collector that is not running must cost neither time (export retries) nor stderr noise.
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    dead = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", dead)
    code = main(["demo", "--pace", "0", "--trace-file", str(tmp_path / "trace.json")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err == ""
    assert f"Not exporting to {dead} (OTEL_EXPORTER_OTLP_ENDPOINT)" in " ".join(out.split())
    assert "Also exported" not in out
    assert "To see this trace in Jaeger: `docker compose up -d`" in out
    assert len(json_spans(json.loads((tmp_path / "trace.json").read_text()))) == SPANS


def test_demo_skips_an_otlp_grpc_port_given_as_its_otlp_http_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `a2a-progress traces` prints both ports; the gRPC one, given to --otlp, is no OTLP/HTTP
    # receiver: the HTTP exporter would retry it for seconds and print its raw errors.
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    with OtlpReceiver() as receiver:
        grpc = f"http://{receiver.grpc_endpoint}"
        trace_file = str(tmp_path / "trace.json")
        code = main(["demo", "--pace", "0", "--otlp", grpc, "--trace-file", trace_file])
        received = receiver.spans()
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err == ""
    assert (
        f"Not exporting to {grpc} (OTEL_EXPORTER_OTLP_ENDPOINT): {grpc} does not answer HTTP/1.1 "
        "(is it an OTLP/gRPC port?); OTEL_EXPORTER_OTLP_ENDPOINT takes an OTLP/HTTP URL"
    ) in " ".join(out.split())
    assert "Also exported" not in out
    assert received == []
    assert len(json_spans(json.loads((tmp_path / "trace.json").read_text()))) == SPANS
