"""Issue 13 from the outside: ``watch URL "msg" --web`` against an agent nobody tuned, the page
read in Debian's Chromium: the turn is readable, the reply shown, hostile agent text inert."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright
from user_processes import A2A_PROGRESS, WITH_CTRL_C, started

from support.processes import free_port
from support.web import BROWSER_ARGS, CHROMIUM

AGENT = str(Path(__file__).parent / "plain_sdk_agent.py")
# The panel's text: its shadow root when it has one, else its light DOM.
PANEL_TEXT = """() => {
    const panel = document.querySelector('a2a-progress-panel');
    return panel ? (panel.shadowRoot ? panel.shadowRoot.textContent : panel.textContent) : '';
}"""
ELEMENTS = """() => {
    const found = [];
    const walk = (root) => root.querySelectorAll('*').forEach((e) => {
        found.push(e.tagName);
        if (e.shadowRoot) walk(e.shadowRoot);
    });
    walk(document);
    return found;
}"""


def test_watch_web_shows_an_untuned_agents_turn_and_keeps_its_text_inert(tmp_path: Path) -> None:
    port = free_port()
    with started([sys.executable, AGENT, str(port)], tmp_path / "agent.log", port):
        url = f"http://127.0.0.1:{port}"
        watch = subprocess.Popen(
            [*WITH_CTRL_C, A2A_PROGRESS, "watch", url, "How many widgets?", "--web"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert watch.stdout is not None
        page_url = None
        for line in watch.stdout:
            if match := re.fullmatch(r"(http://127\.0\.0\.1:\d+/)\n", line):
                page_url = match.group(1)
                break
        assert page_url is not None, "the page's URL on a line of its own"
        dialogs: list[str] = []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
            page = browser.new_page()
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
            page.goto(page_url)
            deadline = time.monotonic() + 30
            while "42 widgets" not in (text := page.evaluate(PANEL_TEXT)):
                assert time.monotonic() < deadline, text
                time.sleep(0.2)
            title, elements = page.title(), page.evaluate(ELEMENTS)
            browser.close()
        watch.send_signal(signal.SIGINT)
        watch.communicate(timeout=30)
    assert watch.returncode == 0  # the turn's exit code
    assert "How many widgets?" in text
    assert "Checking the inventory service..." in text
    assert "<img src=x onerror=" in text  # shown as text ...
    assert "<script>document.title='PWNED-SCRIPT'</script>" in text
    assert "Final answer: 42 widgets in stock <i>really</i>." in text
    assert "PWNED" not in title  # ... and run as nothing
    assert dialogs == []
    assert "IMG" not in elements
    assert "B" not in elements
