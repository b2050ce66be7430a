"""The <a2a-progress-panel> in a real headless Chromium, fed by real a2a-sdk agents on loopback."""

from __future__ import annotations

import asyncio
import re

from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from a2a_progress import poll_task
from a2a_progress.cli.demo.agent import DEMO_QUESTION, DemoAgentExecutor
from a2a_progress.serving import create_client, serve_agent
from a2a_progress.web import ProgressRelay, serve_panel
from support import scripted as step
from support.agents import user_message
from support.scripted import ScriptedAgent
from support.web import (
    DOCS,
    SCREENSHOTS,
    SeveringProxy,
    chromium,
    open_page,
    rendered,
    serve_app,
    until,
    wait_ended,
)

DEMO_TOOLS = ["get_deploy_status", "search_logs", "query_metrics", "run_smoke_tests", "diff_config"]

# Every state each tool call's row went through, recorded in the page as it happened.
RECORD_STATES = """() => {
  window.__states = {};
  const note = (li) => {
    const tool = li.querySelector('.a2ap-tool')?.textContent;
    if (!tool || !li.dataset.state) return;
    const seen = (window.__states[tool] ||= []);
    if (seen[seen.length - 1] !== li.dataset.state) seen.push(li.dataset.state);
  };
  new MutationObserver((records) => {
    for (const record of records) {
      const target = record.target;
      if (target instanceof HTMLElement && target.matches('li.a2ap-call')) note(target);
      for (const node of record.addedNodes) {
        if (node instanceof HTMLElement && node.matches('li.a2ap-call')) note(node);
      }
    }
  }).observe(document.querySelector('a2a-progress-panel'),
             {subtree: true, childList: true, attributes: true, attributeFilter: ['data-state']});
}"""


def _demo_agent() -> DemoAgentExecutor:
    # The README's pictures show the demo at its real pace; the test runs it faster.
    return DemoAgentExecutor(pace=1.0 if SCREENSHOTS else 0.15)


async def _turn(relay: ProgressRelay, card: object, text: str) -> None:
    async with create_client(card) as client:  # type: ignore[arg-type]
        await relay.run(client.send_message(user_message(text)))


async def test_the_demo_turn_shows_its_tool_calls_in_order_and_live() -> None:
    async with (
        serve_agent(_demo_agent(), name="deploy-investigator", grpc_port=None) as served,
        chromium() as browser,
    ):
        relay = ProgressRelay(title=served.card.name, request=DEMO_QUESTION)
        async with serve_panel(relay) as url:
            page = await open_page(browser, url)
            await page.wait_for_selector("text=deploy-investigator")
            await page.evaluate(RECORD_STATES)
            turn = asyncio.create_task(_turn(relay, served.card, DEMO_QUESTION))
            if SCREENSHOTS:
                tail = page.locator("li.a2ap-call[data-state=running] pre", has_text="test_cart")
                await tail.wait_for()
                await page.screenshot(path=str(DOCS / "web-panel-live.png"), full_page=True)
            await turn
            await wait_ended(page)
            items = await rendered(page)
            states = await page.evaluate("window.__states")
            panel = page.locator("a2a-progress-panel")
            text = await panel.inner_text()
            if SCREENSHOTS:
                await page.screenshot(path=str(DOCS / "web-panel-light.png"), full_page=True)
            # A browser that arrives after the end sees the whole turn (replayed), in dark.
            late = await open_page(browser, url, dark=True)
            await wait_ended(late)
            late_items = await rendered(late)
            backgrounds = [
                await each.locator("a2a-progress-panel").evaluate(
                    "p => getComputedStyle(p).backgroundColor"
                )
                for each in (page, late)
            ]
            if SCREENSHOTS:
                await late.screenshot(path=str(DOCS / "web-panel-dark.png"), full_page=True)
            assert page.script_errors == late.script_errors == []  # type: ignore[attr-defined]
    tools = [item["tool"] for item in items if item["tool"]]
    assert tools == DEMO_TOOLS
    # Live: every call was seen running before it ended.
    assert {tool: seen[0] for tool, seen in states.items()} == dict.fromkeys(DEMO_TOOLS, "running")
    assert states["query_metrics"] == ["running", "aborted"]
    assert states["diff_config"] == ["running", "done"]
    calls = {item["tool"]: item for item in items if item["tool"]}
    assert calls["query_metrics"]["state"] == "aborted"
    assert "metrics backend timed out" in calls["query_metrics"]["text"]
    assert "1 failed, 3 passed" in calls["run_smoke_tests"]["text"]
    assert "completed" in text
    assert "5 tool calls, 1 aborted" in text
    assert "Root cause: deploy #4812" in text
    assert late_items == items
    assert backgrounds == ["rgb(255, 255, 255)", "rgb(13, 17, 23)"]  # light, then dark


async def test_intermediate_states_show_before_the_turn_ends() -> None:
    gates = {name: asyncio.Event() for name in ("search", "text", "fetch")}
    agent = ScriptedAgent(
        [
            step.thinking("First line of thought.\nA second line, hidden until expanded."),
            step.start("search", "call-1"),
            step.output("call-1", "result 1\nresult 2\n"),
            step.wait(gates["search"]),
            step.done("call-1"),
            step.wait(gates["text"]),
            step.text("found two results"),
            step.start("fetch", "call-2"),
            step.wait(gates["fetch"]),
            step.done("call-2"),
            step.complete("all done"),
        ],
        enable_output=True,
    )
    async with serve_agent(agent, grpc_port=None) as served, chromium() as browser:
        relay = ProgressRelay(title="gated")
        async with serve_panel(relay) as url:
            page = await open_page(browser, url)
            turn = asyncio.create_task(_turn(relay, served.card, "go"))
            running = page.locator("li.a2ap-call[data-state=running]")
            await running.filter(has_text="search").wait_for()
            # The agent is held inside `search`: this is the live state, not the end.
            assert not turn.done()
            row = await running.inner_text()
            assert "running" in row
            live = re.compile(r"^\d+\.\ds$")  # a running call's duration: one decimal
            await page.locator("li.a2ap-call .a2ap-duration", has_text=live).wait_for()
            await page.get_by_text("result 2").wait_for()
            thinking = page.locator("li.a2ap-thinking details")
            assert await thinking.get_attribute("open") is None  # collapsed to one line
            summary = await thinking.locator("summary").inner_text()
            assert summary == "thinking First line of thought. (+1 more line)"
            assert not await page.get_by_text("A second line").is_visible()
            await thinking.locator("summary").focus()
            await page.keyboard.press("Enter")  # keyboard expands it
            await page.get_by_text("A second line").wait_for()
            assert await page.locator("[aria-live=polite]").count() == 1
            gates["search"].set()
            await page.locator("li.a2ap-call[data-state=done]", has_text="search").wait_for()
            assert "working" in await page.locator(".a2ap-status").inner_text()
            gates["text"].set()
            await page.get_by_text("found two results").wait_for()
            await running.filter(has_text="fetch").wait_for()
            gates["fetch"].set()
            await turn
            await wait_ended(page)
            assert await page.locator(".a2ap-reply-text").inner_text() == "all done"
            assert "completed" in await page.locator(".a2ap-status").inner_text()


async def test_a_reconnect_in_the_middle_repeats_nothing_and_loses_nothing() -> None:
    cut, after = asyncio.Event(), asyncio.Event()
    agent = ScriptedAgent(
        [
            *(step.text(f"before {n}") for n in range(1, 4)),
            step.wait(cut),
            step.start("lookup", "call-1"),
            *(step.text(f"during {n}") for n in range(1, 4)),
            step.done("call-1"),
            step.wait(after),
            step.text("after the reconnect"),
            step.complete("whole"),
        ]
    )
    async with serve_agent(agent, grpc_port=None) as served, chromium() as browser:
        relay = ProgressRelay()
        async with serve_panel(relay) as url:
            port = int(url.rstrip("/").rsplit(":", 1)[1])
            async with SeveringProxy(port) as proxy:
                page = await open_page(browser, f"http://127.0.0.1:{proxy.port}/")
                turn = asyncio.create_task(_turn(relay, served.card, "go"))
                await page.get_by_text("before 3").wait_for()
                proxy.sever()  # the network drops mid-turn
                cut.set()
                await until(lambda: relay.last_id >= 8)  # updates while the browser is away
                after.set()
                await turn
                await wait_ended(page)
                ids = await page.evaluate(
                    "document.querySelector('a2a-progress-panel').receivedIds"
                )
                items = await rendered(page)
                fresh = await open_page(browser, url)
                await wait_ended(fresh)
                reference = await rendered(fresh)
    assert ids == list(range(1, relay.last_id + 1))
    assert [item["text"] for item in items] == [item["text"] for item in reference]
    texts = [item["text"] for item in items]
    assert sum("during 2" in text for text in texts) == 1
    assert "after the reconnect" in texts[-1]
    streams = [head for head in proxy.requests if head.startswith("GET /stream")]
    assert len(streams) >= 2
    assert any("last-event-id: 3" in head.lower() for head in streams[1:])


HOSTILE_THINKING = '<img src=x onerror="window.__pwned=1">'
HOSTILE_SCRIPT = "<script>window.__pwned=2</script>"


async def test_agent_text_is_shown_as_text_and_runs_nothing() -> None:
    agent = ScriptedAgent(
        [
            step.thinking(HOSTILE_THINKING),
            step.thinking(HOSTILE_SCRIPT),
            step.text('<a href="javascript:window.__pwned=3">click</a>'),
            step.start("<b>tool</b>", "<i>id</i>"),
            step.output("<i>id</i>", '<svg onload="window.__pwned=4"></svg>\n'),
            step.done("<i>id</i>"),
            step.error("<iframe src=javascript:window.__pwned=5>"),
            step.complete('<img src=y onerror="window.__pwned=6"> reply'),
        ],
        enable_output=True,
    )

    # A page of our own without the relay page's Content-Security-Policy: only the panel's
    # discipline (text, never HTML) stands between agent text and the page.
    relay = ProgressRelay(title='<img src=z onerror="window.__pwned=7">')
    page_html = (
        '<!doctype html><link rel="stylesheet" href="/p/static/a2a-progress-panel.css">'
        '<script type="module" src="/p/static/a2a-progress-panel.js"></script>'
        '<a2a-progress-panel src="/p/stream"></a2a-progress-panel>'
    )
    app = Starlette(routes=[*relay.routes("/p"), Route("/", lambda r: HTMLResponse(page_html))])
    async with (
        serve_agent(agent, grpc_port=None) as served,
        serve_app(app) as url,
        chromium() as browser,
    ):
        page = await open_page(browser, url)
        await _turn(relay, served.card, "go")
        await wait_ended(page)
        for summary in await page.locator("li.a2ap-thinking summary").all():
            await summary.click()
        text = await page.locator("a2a-progress-panel").inner_text()
        assert await page.evaluate("typeof window.__pwned") == "undefined"
        panel = page.locator("a2a-progress-panel")
        for tag in ("img", "script", "a", "svg", "iframe", "b", "i"):
            assert await panel.locator(tag).count() == 0, tag
        assert page.script_errors == []  # type: ignore[attr-defined]
    for literal in (
        HOSTILE_THINKING,
        HOSTILE_SCRIPT,
        '<a href="javascript:window.__pwned=3">click</a>',
        '<svg onload="window.__pwned=4"></svg>',
        "<iframe src=javascript:window.__pwned=5>",
        '<img src=y onerror="window.__pwned=6"> reply',
        '<img src=z onerror="window.__pwned=7">',
        "<b>tool</b>",
    ):
        assert literal in text, literal


async def test_a_late_update_lands_in_seq_order_and_an_aborted_call_is_marked() -> None:
    agent = ScriptedAgent(
        [
            step.env("thinking", 1, text="one"),
            step.env("text", 3, text="three"),
            step.env("text", 2, text="two (late)"),
            step.env("tool_call", 1, "running", "s-1", tool="quota", tool_call_id="c-1"),
            step.env(
                "tool_call",
                2,
                "aborted",
                "s-1",
                tool="quota",
                tool_call_id="c-1",
                reason="quota exceeded",
            ),
            step.complete("partial answer"),
        ]
    )
    async with (
        serve_agent(agent, grpc_port=None) as served,
        chromium() as browser,
    ):
        relay = ProgressRelay()
        async with serve_panel(relay) as url:
            page = await open_page(browser, url)
            await _turn(relay, served.card, "go")
            await wait_ended(page)
            items = await rendered(page)
    texts = [item["text"] for item in items if item["kind"] != "tool_call"]
    assert [text.split()[-1] for text in texts[:3]] == ["one", "(late)", "three"]
    (call,) = [item for item in items if item["kind"] == "tool_call"]
    assert call["state"] == "aborted"
    assert "aborted" in call["text"]
    assert "quota exceeded" in call["text"]


async def test_a_replayed_history_says_so_and_invents_no_durations() -> None:
    agent = ScriptedAgent(
        [step.start("search", "call-1"), step.done("call-1"), step.complete("from history")]
    )
    async with serve_agent(agent, grpc_port=None) as served, chromium() as browser:
        async with create_client(served.card) as client:
            async for _ in client.send_message(user_message("go")):
                pass
            (task_id,) = agent.turns
            relay = ProgressRelay()
            await relay.run(poll_task(client, task_id))
        async with serve_panel(relay) as url:
            page = await open_page(browser, url)
            await wait_ended(page)
            duration = await page.locator("li.a2ap-call .a2ap-duration").inner_text()
            status = await page.locator(".a2ap-status").inner_text()
    assert duration == "?"
    assert "replayed from the task's history" in status
    assert " in " not in status  # no made-up turn duration either
