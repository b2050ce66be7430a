"""The tutorial (docs/tutorial/index.md), step by step, as a reader runs it.

Each step's code is a file of ``examples/`` that the page includes; each step's command runs here
as a real process against a real server, and what it prints must be what the page shows (task
and trace ids, ports and durations aside). Step 4 runs ``a2a-progress traces`` first, then the
agent under ``opentelemetry-instrument`` exporting to it, then ``watch --otlp``.
"""

from __future__ import annotations

import re
import subprocess
from typing import Final

from support.examples import BIN, ROOT, TIMEOUT, environment, serving
from support.traces_process import running_traces

PAGE: Final = ROOT / "docs" / "tutorial" / "index.md"
QUESTION: Final = "Why is the deploy blocked?"
_VARYING: Final = (
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<task id>"),
    (re.compile(r"\b[0-9a-f]{32}\b"), "<trace id>"),
    (re.compile(r"127\.0\.0\.1:\d+"), "127.0.0.1:<port>"),
    (re.compile(r"\b\d+(?:\.\d+)?(?:ms|s)\b"), "<duration>"),
    (re.compile(r"[█ ]{2,}"), "  "),  # a timeline's bars and the columns' padding
)


def normalized(text: str) -> list[str]:
    lines = []
    for raw in text.strip().splitlines():
        line = raw
        for pattern, placeholder in _VARYING:
            line = pattern.sub(placeholder, line)
        lines.append(line.rstrip())
    return lines


def shown(name: str) -> list[str]:
    """The output the page shows under ``<!-- output: NAME -->``."""
    found = re.search(rf"<!-- output: {name} -->\n```text\n(.*?)```", PAGE.read_text(), re.S)
    assert found is not None, name
    return normalized(found.group(1))


def watch(*args: str) -> str:
    done = subprocess.run(
        [str(BIN / "a2a-progress"), "watch", *args],
        env=environment(),
        capture_output=True,
        text=True,
        timeout=2 * TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_step_2_watch_your_agent() -> None:
    with serving("plain_agent.py") as url:
        assert normalized(watch(url, QUESTION)) == shown("watch-plain")


def test_step_3_add_the_emitter() -> None:
    with serving("callee.py") as url:
        assert normalized(watch(url, QUESTION)) == shown("watch-emitter")


def test_step_4_see_your_traces() -> None:
    expected = shown("traces")

    def drawn(lines: list[str]) -> bool:
        return any(normalized(line) == expected[:1] for line in lines)

    # Step 1 first: the viewer runs before anything exports to it.
    with (
        running_traces("--no-grpc") as traces,
        serving("callee.py", instrumented_to=traces.http) as url,
    ):
        watch(url, QUESTION, "--otlp", traces.http)
        lines = traces.out.wait_for(drawn)
    # The last drawing of the trace (late spans draw it again, whole), up to its blank line.
    start = max(i for i, line in enumerate(lines) if normalized(line) == expected[:1])
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    assert normalized("\n".join(lines[start:end])) == expected


def test_the_readmes_ten_minute_path_is_the_tutorials() -> None:
    """Every command of the README's ten-minute path is one of the tutorial's, run above."""
    readme = (ROOT / "README.md").read_text()
    path = readme[readme.index("## Ten minutes") : readme.index("## Telemetry conventions")]
    page = PAGE.read_text()

    def commands(text: str) -> set[str]:
        blocks = re.findall(r"```console\n(.*?)```", text, re.S)
        return {line.split("  #")[0].strip() for block in blocks for line in block.splitlines()}

    inline = set(re.findall(r"`(python examples/\S+ --port 9999)`", path))
    assert commands(path) | inline <= commands(page)
