"""A peer's text with a lone surrogate is shown escaped, never a crash of the watcher."""

from __future__ import annotations

import io
import json
import sys

import pytest

from a2a_progress.cli import tolerate_unencodable_output
from a2a_progress.cli.json_view import JsonLines
from a2a_progress.envelope import Envelope, decode

WIRE = '{"v":1,"kind":"text","seq":1,"status":"running","payload":{"text":"a\\ud800b"}}'


def test_json_lines_of_a_lone_surrogate_survive_strict_utf8_stdout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    envelope = decode(WIRE)
    assert isinstance(envelope, Envelope)
    content = envelope.content
    assert content == "a\ud800b"  # what a hostile or broken peer can deliver
    with pytest.raises(UnicodeEncodeError):
        content.encode("utf-8")  # what a strict stdout does with it
    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="utf-8"))
    tolerate_unencodable_output()
    JsonLines(sys.stdout).write({"content": content})
    line = raw.getvalue().decode("utf-8")
    assert json.loads(line) == {"content": "a\ud800b"}  # escaped on the way out, same value back
