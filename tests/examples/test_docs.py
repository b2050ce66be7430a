"""``docs/reference/json-output.md`` lists exactly the fields ``watch --json`` writes: a real
watch of the example callee (and of a port nobody listens on) is compared with the doc's tables,
so neither can change without the other."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any, Final

import httpx

from support.examples import BIN, ROOT, TIMEOUT, environment, run_example, serving
from support.processes import refused_port

DOC: Final = ROOT / "docs" / "reference" / "json-output.md"
SERVING_PAGE: Final = re.compile(r"the page: (http://\S+)/progress/")
WATCH: Final = BIN / "a2a-progress"


def documented_fields() -> dict[str, set[str]]:
    """The field names of each table of the doc, by the heading above the table."""
    tables: dict[str, set[str]] = {}
    heading = ""
    for line in DOC.read_text().splitlines():
        if line.startswith("#"):
            heading = line.strip("# ").strip()
        found = re.match(r"\| `(\w+)` \|", line)
        if found:
            tables.setdefault(heading, set()).add(found.group(1))
    return tables


def watch_json(*args: str) -> tuple[int, list[dict[str, Any]]]:
    done = subprocess.run(
        [str(WATCH), "watch", *args, "--json"],
        env=environment(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()]


def test_the_doc_lists_every_field_watch_writes_and_no_other() -> None:
    with serving("callee.py") as url:
        code, objects = watch_json(url, "Why is the deploy blocked?")
    unreachable = f"http://127.0.0.1:{refused_port()}"
    error_code, errors = watch_json(unreachable, "anyone?")

    assert code == 0
    assert [obj["type"] for obj in objects] == ["progress"] * 6 + ["outcome"]
    assert error_code == 7
    [error] = errors
    progress = objects[:-1]
    calls = [obj["call"] for obj in progress if obj["call"] is not None]
    calls += [call for obj in progress for call in obj["closed"]]
    assert calls

    tables = documented_fields()
    assert tables["`progress`"] == set().union(*progress)
    assert tables["`outcome`"] == set(objects[-1])
    assert tables["`error`"] == set(error)
    assert tables["Tool call objects (`call`, `closed`)"] == set().union(*calls)
    assert all(obj["v"] == 1 for obj in [*objects, error])
    assert objects[-1]["exit_code"] == code
    assert error["exit_code"] == error_code


def test_the_docs_json_consumer_reads_a_turn() -> None:
    with serving("callee.py") as url:
        done = run_example("watch_json.py", url, "Blocked?")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "running ci_status ",
        "done ci_status ",
        "running dashboard ",
        "aborted dashboard the dashboard timed out after 1s",
        "completed The deploy is blocked: CI is red (2 failing tests).",
    ]


def test_the_docs_web_app_streams_the_turn_to_a_browser() -> None:
    with serving("callee.py") as url:
        app = subprocess.Popen(
            [sys.executable, str(ROOT / "examples" / "web_app.py"), url, "Why?", "--port", "0"],
            env=environment(),
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert app.stderr is not None
            page = next(m[1] for line in app.stderr if (m := SERVING_PAGE.search(line)))
            events = []
            with httpx.stream("GET", f"{page}/progress/stream", timeout=TIMEOUT) as stream:
                for line in stream.iter_lines():
                    if line.startswith("event: "):
                        events.append(line.removeprefix("event: "))
                    if line.startswith("data: ") and events[-1] == "outcome":
                        outcome = json.loads(line.removeprefix("data: "))
                        break
        finally:
            app.terminate()
            app.wait(TIMEOUT)
    assert events == ["hello"] + ["progress"] * 6 + ["outcome"]
    assert outcome["state"] == "completed"


def test_the_docs_example_has_the_documented_fields() -> None:
    found = re.search(r"## Example\n\n```json\n(.*?)```", DOC.read_text(), re.S)
    assert found is not None
    objects = [json.loads(line) for line in found.group(1).splitlines()]
    tables = documented_fields()
    assert [obj["type"] for obj in objects] == ["progress", "outcome", "error"]
    for obj in objects:
        assert set(obj) == tables[f"`{obj['type']}`"], obj["type"]
    assert set(objects[0]["call"]) == tables["Tool call objects (`call`, `closed`)"]
