"""Issue 9 from the outside: credentials an agent prints reach neither the wire nor telemetry.

A README-style callee prints QA's own corpus through every channel; ``a2a-progress watch --json``
(the envelopes as they arrive) and the spans both sides export into ``a2a-progress traces`` must
hold no secret part, and ordinary text must come through unchanged.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from credentials import CASES, PLAIN
from user_processes import A2A_PROGRESS, INSTRUMENT, TracesCommand, started, terminate

from support.processes import free_port

AGENT = str(Path(__file__).parent / "leaky_agent.py")


def _forms(secret: str) -> set[str]:
    """The secret as it would appear in a JSON file, and a telling piece of it."""
    forms = {secret, json.dumps(secret)[1:-1]}
    if len(secret) >= 16:
        forms.add(secret[4:16])
    return forms


def test_no_secret_on_the_wire_or_in_spans_and_plain_text_unchanged(tmp_path: Path) -> None:
    assert len(CASES) >= 40
    traces = TracesCommand(tmp_path)
    port = free_port()
    with traces.running():
        env = traces.environment("leaky")
        command = [INSTRUMENT, sys.executable, AGENT, "--port", str(port)]
        with started(command, tmp_path / "agent.log", port, env) as agent:
            watch = subprocess.run(
                [INSTRUMENT, A2A_PROGRESS, "watch", f"http://127.0.0.1:{port}", "go", "--json"],
                env=traces.environment("watcher"),
                capture_output=True,
                text=True,
                timeout=90,
                check=False,
            )
            assert terminate(agent) == 0
        assert watch.returncode == 0, watch.stderr
    exported = "\n".join(path.read_text() for path in traces.directory.glob("*.json"))
    assert "a2a.progress.thinking" in exported  # the content really went to the spans
    places = {"watch --json": watch.stdout + watch.stderr, "exported spans": exported}
    leaks = [
        (name, secret[:12], where)
        for name, _, secrets in CASES
        for secret in secrets
        for where, text in places.items()
        if any(form in text for form in _forms(secret))
    ]
    assert leaks == []
    lines = [json.loads(line) for line in watch.stdout.splitlines()]
    shown = {line.get("content") for line in lines if line.get("kind") == "text"}
    assert [text for text in PLAIN if text not in shown] == []
    calls = [line for line in lines if line.get("kind") == "tool_call"]
    aborted = [call for call in calls if call["status"] == "aborted"]
    assert len(aborted) == len(CASES)  # each with the exception's (redacted) message
    assert all(call["reason"].startswith("RuntimeError: request failed: ") for call in aborted)
