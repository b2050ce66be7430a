"""The tutorial (docs/tutorial/index.md), step by step, as a reader runs it.

Each step's code is a file of ``examples/`` that the page includes; each step's command runs here
as a real process against a real server, and what it prints must be what the page shows (task
and trace ids, ports and durations aside). Step 4 runs ``a2a-progress traces`` first, then the
agent under ``opentelemetry-instrument`` with the page's settings, exporting to it, then
``watch --otlp``.
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


def step_4_environment(endpoint: str) -> dict[str, str]:
    """What step 4 sets for the agent: its ``export`` lines and the command's own variables,
    with the viewer's endpoint (a free port here) for the page's ``http://127.0.0.1:4318``."""
    step = PAGE.read_text().split("## 4. ")[1]
    block = re.search(r"```console\n(.*?)```", step, re.S)
    assert block is not None
    settings: dict[str, str] = {}
    for line in block.group(1).splitlines():
        words = line.split("  #")[0].split()
        if words[:1] == ["export"]:
            words = words[1:]
        settings.update(word.split("=", 1) for word in words if re.match(r"[A-Z_]+=", word))
    assert settings["OTEL_SERVICE_NAME"] == "research-agent"
    assert settings["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://127.0.0.1:4318"
    return {**settings, "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}


def test_step_4_see_your_traces() -> None:
    expected = shown("traces")

    def first(lines: list[str]) -> int | None:
        return next((i for i, line in enumerate(lines) if normalized(line) == expected[:1]), None)

    def drawn(lines: list[str]) -> bool:  # the first drawing, to the blank line that ends it
        start = first(lines)
        return start is not None and "" in lines[start:]

    # Step 1 first: the viewer runs before anything exports to it; the agent exports as the page
    # says (every 0.5 s: with the SDK's default 5 s, the viewer's first drawing lacks its spans).
    with running_traces("--no-grpc") as traces:
        otel = step_4_environment(traces.http)
        with serving("callee.py", instrumented_to=traces.http, otel=otel) as url:
            watch(url, QUESTION, "--otlp", traces.http)
            lines = traces.out.wait_for(drawn)
    # The first drawing of the trace is the whole trace.
    start = first(lines)
    assert start is not None
    assert normalized("\n".join(lines[start : lines.index("", start)])) == expected


def test_the_readmes_ten_minute_path_is_the_tutorials() -> None:
    """Every command of the README's ten-minute path is one of the tutorial's, run above."""
    readme = (ROOT / "README.md").read_text()
    start = readme.index("## Ten minutes")
    path = readme[start : readme.index("\n## ", start)]
    page = PAGE.read_text()

    def commands(text: str) -> set[str]:
        blocks = re.findall(r"```console\n(.*?)```", text, re.S)
        return {line.split("  #")[0].strip() for block in blocks for line in block.splitlines()}

    inline = set(re.findall(r"`(python examples/\S+ --port 9999)`", path))
    assert commands(path) | inline <= commands(page)
