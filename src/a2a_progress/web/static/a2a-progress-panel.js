// <a2a-progress-panel src="/progress/stream">: the live "tool call details" of a remote A2A agent.
//
// Reads the Server-Sent Events of a2a_progress.web.ProgressRelay (one `watch --json` object per
// update) and renders the turn: thinking collapsed to one line, each tool call with its status and
// a live duration, the tail of its streamed output, progress text, errors, the final reply. No
// framework, no build step. Everything the agent sends is untrusted: it only ever reaches the page
// through textContent / createTextNode, never as HTML.

const TAIL_LINES = 6; // output lines shown under a tool call
const KEPT_LINES = 200; // output lines kept per call (older ones are only counted)
const TICK_MS = 200;
const GLYPHS = { running: "◌", done: "✓", aborted: "✗" };
const OUTCOME_GLYPHS = {
  completed: "✓", failed: "✗", rejected: "✗", canceled: "✗",
  input_required: "?", auth_required: "?",
};

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// Nodes separated by real spaces, so the text reads right when copied or read as text.
function spaced(...nodes) {
  const out = [];
  for (const node of nodes) {
    if (out.length) out.push(document.createTextNode(" "));
    out.push(node);
  }
  return out;
}

// `[adk]` after what an agent dialect reported (not an envelope); null for an envelope's.
function dialectTag(dialect) {
  return typeof dialect === "string" && dialect ? el("span", "a2ap-dialect", `[${dialect}]`) : null;
}

function lines(text) {
  return String(text ?? "").split(/\r\n|\r|\n/).map((line) => line.trim()).filter(Boolean);
}

// As the command line prints durations (a2a_progress/cli/durations.py): 0.2ms, 701ms, 1.40s,
// 12.3s, 2m05s.
function seconds(value) {
  const millis = value * 1000;
  if (millis < 9.95) return `${millis.toFixed(1)}ms`;
  if (millis < 999.5) return `${millis.toFixed(0)}ms`;
  if (value < 9.995) return `${value.toFixed(2)}s`;
  if (value < 59.95) return `${value.toFixed(1)}s`;
  const whole = Math.round(value);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, "0")}s`;
}

function plural(count, word) {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

class A2AProgressPanel extends HTMLElement {
  static get observedAttributes() { return ["src"]; }

  constructor() {
    super();
    this._source = null;
    this._timer = null;
    this._retry = null;
    this._built = false;
  }

  connectedCallback() {
    if (!this._built) this._build();
    this._connect();
  }

  disconnectedCallback() {
    this._disconnect();
    this._stopTicking();
  }

  attributeChangedCallback(name, before, after) {
    if (name === "src" && this.isConnected && before !== after && this._built) {
      this._reset();
      this._connect();
    }
  }

  /** The ids of the updates rendered so far, in arrival order (for tests and debugging). */
  get receivedIds() { return this._ids.slice(); }

  /** Whether the turn has ended (outcome or error received). */
  get ended() { return this._ended; }

  // -- skeleton ---------------------------------------------------------------------------------

  _build() {
    this._built = true;
    this.classList.add("a2ap");
    const root = el("section", "a2ap-panel");
    root.setAttribute("aria-label", "Agent progress");
    const header = el("header", "a2ap-head");
    this._title = el("h2", "a2ap-title", "Agent");
    this._request = el("p", "a2ap-request");
    this._request.hidden = true;
    this._status = el("p", "a2ap-status", "connecting…");
    header.append(this._title, this._request, this._status);
    this._tree = el("ol", "a2ap-tree");
    this._tree.setAttribute("aria-label", "Tool call details");
    this._notice = el("p", "a2ap-notice");
    this._notice.hidden = true;
    this._reply = el("section", "a2ap-reply");
    this._reply.setAttribute("aria-label", "Reply");
    this._reply.hidden = true;
    // One polite live region carries short announcements; the ticking durations stay silent.
    this._live = el("div", "a2ap-sr-only");
    this._live.setAttribute("role", "status");
    this._live.setAttribute("aria-live", "polite");
    root.append(header, this._tree, this._notice, this._reply, this._live);
    this.replaceChildren(root);
    this._reset();
  }

  _reset() {
    this._nodes = []; // {seq, li} in display order
    this._calls = new Map(); // call index -> call view
    this._ids = [];
    this._lastId = null;
    this._ended = false;
    this._started = null;
    this._endedAt = null;
    this._skew = Infinity; // browser clock minus server clock (smallest seen)
    this._outcome = null;
    delete this.dataset.ended;
    this._tree.replaceChildren();
    this._tree.setAttribute("aria-busy", "true");
    this._reply.replaceChildren();
    this._reply.hidden = true;
    this._notice.hidden = true;
    this._status.textContent = "connecting…";
  }

  // -- connection -------------------------------------------------------------------------------

  _connect() {
    this._disconnect();
    const src = this.getAttribute("src");
    if (!src || this._ended) return;
    let url = src;
    if (this._lastId !== null) {
      // A new EventSource does not send Last-Event-ID: the relay also reads it from the query.
      const resolved = new URL(src, document.baseURI);
      resolved.searchParams.set("last_event_id", String(this._lastId));
      url = resolved.href;
    }
    const source = new EventSource(url);
    this._source = source;
    const handlers = {
      hello: (data) => this._hello(data),
      progress: (data, id) => this._accept(id, () => this._progress(data)),
      outcome: (data, id) => this._accept(id, () => this._finish(data)),
      error: (data, id) => this._accept(id, () => this._error(data)),
      gap: (data) => this._gap(data),
      reset: () => this._restart(),
      dropped: () => this._setStatus("reconnecting…"),
      end: () => this._end(),
    };
    for (const [name, handle] of Object.entries(handlers)) {
      source.addEventListener(name, (event) => {
        if (source !== this._source || typeof event.data !== "string") return;
        let data;
        try {
          data = JSON.parse(event.data);
        } catch {
          return; // not ours: ignore rather than break the view
        }
        handle(data, event.lastEventId);
      });
    }
    source.onopen = () => this._refresh();
    source.onerror = (event) => {
      // The relay's own `event: error` frames are MessageEvents; this is the connection's error.
      if (event instanceof MessageEvent || source !== this._source || this._ended) return;
      if (source.readyState === EventSource.CLOSED) {
        // Refused (HTTP error): try again later with our own Last-Event-ID.
        this._setStatus("disconnected; retrying…");
        this._retry = setTimeout(() => this._connect(), 3000);
      } else {
        this._setStatus("reconnecting…");
      }
    };
  }

  _disconnect() {
    if (this._retry !== null) clearTimeout(this._retry);
    this._retry = null;
    if (this._source) this._source.close();
    this._source = null;
  }

  _restart() {
    this._reset();
    this._startTicking();
  }

  _accept(id, apply) {
    const number = Number.parseInt(id, 10);
    if (Number.isFinite(number)) {
      if (this._lastId !== null && number <= this._lastId) return; // already shown
      this._lastId = number;
      this._ids.push(number);
    }
    apply();
  }

  _end() {
    this._ended = true;
    this.dataset.ended = "";
    this._disconnect();
    this._stopTicking();
    this._refresh();
  }

  // -- updates ----------------------------------------------------------------------------------

  _hello(data) {
    if (data.title) this._title.textContent = String(data.title);
    if (data.request) {
      this._request.textContent = String(data.request);
      this._request.hidden = false;
    }
    if (typeof data.started === "number" && this._started === null) this._started = data.started;
    this._startTicking();
    this._refresh();
  }

  _clock(time) {
    if (typeof time === "number") {
      this._skew = Math.min(this._skew, Date.now() / 1000 - time);
      if (this._started === null) this._started = time;
    }
  }

  _serverNow() {
    return Date.now() / 1000 - (Number.isFinite(this._skew) ? this._skew : 0);
  }

  _progress(data) {
    this._clock(data.time);
    const time = typeof data.time === "number" ? data.time : this._serverNow();
    const seq = Number.isInteger(data.seq) ? data.seq : 0;
    const late = data.late === true;
    const call = data.call && typeof data.call === "object" ? data.call : null;
    if (call && (data.opened || !this._calls.has(call.index))) {
      this._openCall(call, seq, time, late);
    }
    if (data.degraded) {
      this._note("plain", data.text ?? data.content, seq, false);
    } else if (data.kind === "tool_output_append") {
      const view = call ? this._calls.get(call.index) : null;
      if (view) this._output(view, data.content ?? "");
      else this._note("text", data.content, seq, late, data.dialect);
    } else if (data.kind !== "tool_call") {
      const kind = data.kind === "thinking" || data.kind === "error" ? data.kind : "text";
      this._note(kind, data.content ?? data.text, seq, late, data.dialect);
    }
    const own = call ? call.index : null;
    for (const closed of Array.isArray(data.closed) ? data.closed : []) {
      this._updateCall(closed, time, closed.index === own ? data.reason : null);
    }
    if (call) this._updateCall(call, time, data.reason);
    this._refresh();
  }

  _finish(data) {
    this._clock(data.time);
    const time = typeof data.time === "number" ? data.time : this._serverNow();
    for (const closed of Array.isArray(data.closed) ? data.closed : []) {
      this._updateCall(closed, time, null);
    }
    this._outcome = data;
    this._endedAt = time;
    this._ended = true;
    this._tree.setAttribute("aria-busy", "false");
    const state = String(data.state ?? "");
    const reply = String(data.reply ?? "");
    // Why a failed turn failed, in the agent's words (redacted, bounded): it replaces the reply,
    // which for a failed turn is that same message unredacted, or empty.
    const error = typeof data.error === "string" ? data.error : "";
    this._reply.replaceChildren();
    this._reply.dataset.state = state;
    if (error) {
      const heading = `Error (${state.replace("_", " ")})`;
      this._reply.append(el("h3", "a2ap-reply-title", heading), el("p", "a2ap-reply-text", error));
      this._reply.hidden = false;
    } else if (reply) {
      const heading = state === "completed" ? "Reply" : `Reply (${state.replace("_", " ")})`;
      this._reply.append(el("h3", "a2ap-reply-title", heading), el("p", "a2ap-reply-text", reply));
      this._reply.hidden = false;
    }
    this._announce(this._summary());
    this._stopTicking();
  }

  _error(data) {
    this._ended = true;
    this._tree.setAttribute("aria-busy", "false");
    this._outcome = { state: "error", message: String(data.message ?? "") };
    this._endedAt = this._serverNow();
    this._reply.replaceChildren(
      el("h3", "a2ap-reply-title", "Error"),
      el("p", "a2ap-reply-text", this._outcome.message),
    );
    this._reply.dataset.state = "error";
    this._reply.hidden = false;
    this._announce(`error: ${this._outcome.message}`);
    this._stopTicking();
  }

  _gap(data) {
    const missed = Number(data.missed) || 0;
    const li = el("li", "a2ap-item a2ap-gap");
    li.append(...spaced(el("span", "a2ap-mark", "…"), el("span", "a2ap-text",
      `${plural(missed, "earlier update")} ${missed === 1 ? "is" : "are"} no longer available`)));
    this._tree.append(li);
    this._nodes.push({ seq: -1, li });
    for (const call of Array.isArray(data.calls) ? data.calls : []) {
      if (!this._calls.has(call.index)) {
        this._openCall(call, -1, null, false);
        this._updateCall(call, null, null);
      }
    }
  }

  // -- nodes ------------------------------------------------------------------------------------

  _insert(li, seq, late) {
    const node = { seq, li };
    if (late) {
      // Before the first item with a higher seq: where it would have been had it been on time.
      const index = this._nodes.findIndex((other) => other.seq > seq);
      if (index >= 0) {
        this._tree.insertBefore(li, this._nodes[index].li);
        this._nodes.splice(index, 0, node);
        return;
      }
    }
    this._tree.append(li);
    this._nodes.push(node);
  }

  _note(kind, text, seq, late, dialect) {
    const content = String(text ?? "");
    const tag = dialectTag(dialect);
    const tagged = (...nodes) => (tag ? [...nodes, tag] : nodes);
    const li = el("li", `a2ap-item a2ap-${kind}`);
    li.dataset.kind = kind;
    li.dataset.seq = String(seq);
    if (kind === "thinking") {
      const all = lines(content);
      const details = el("details", "a2ap-thinking-details");
      const summary = el("summary", "a2ap-summary");
      const parts = [el("span", "a2ap-label", "thinking"), el("span", "a2ap-line", all[0] ?? "")];
      if (all.length > 1) {
        parts.push(el("span", "a2ap-more", `(+${plural(all.length - 1, "more line")})`));
      }
      summary.append(...spaced(...tagged(...parts)));
      details.append(summary, el("div", "a2ap-full", content));
      li.append(details);
    } else if (kind === "error") {
      li.setAttribute("role", "alert");
      li.append(...spaced(...tagged(el("span", "a2ap-mark", "!"), el("span", "a2ap-label", "error"),
        el("span", "a2ap-text", content))));
    } else {
      li.append(...spaced(...tagged(el("span", "a2ap-mark", kind === "plain" ? "·" : "▸"),
        el("span", "a2ap-text", content))));
    }
    this._insert(li, seq, late);
  }

  _openCall(call, seq, time, late) {
    const li = el("li", "a2ap-item a2ap-call");
    li.dataset.kind = "tool_call";
    li.dataset.seq = String(seq);
    const row = el("div", "a2ap-row");
    const glyph = el("span", "a2ap-glyph");
    glyph.setAttribute("aria-hidden", "true");
    const tool = el("span", "a2ap-tool", call.tool || "tool");
    const ident = el("span", "a2ap-id", call.tool_call_id || "");
    const state = el("span", "a2ap-state");
    const duration = el("span", "a2ap-duration");
    const reason = el("span", "a2ap-reason");
    const tag = dialectTag(call.dialect);
    row.append(...spaced(glyph, tool, ident, ...(tag ? [tag] : []), state, duration, reason));
    li.append(row);
    const view = {
      li, glyph, state, duration, reason, started: time, ended: null, status: null,
      recorded: null, replayed: false,
      output: null, pre: null, kept: [], partial: "", count: 0,
    };
    this._calls.set(call.index, view);
    this._insert(li, seq, late);
    this._setCallState(view, "running");
    this._announce(`tool started: ${call.tool || "tool"}`);
  }

  _updateCall(call, time, reason) {
    const view = this._calls.get(call.index);
    if (!view) return;
    // Durations the agent recorded win over arrival times (a replayed history arrives at once).
    if (typeof call.duration === "number") view.recorded = call.duration;
    if (call.replayed === true) view.replayed = true;
    const state = call.state === "done" || call.state === "aborted" ? call.state : "running";
    if (state === "running" || view.status !== "running") {
      if (state !== "running" && view.status === state && reason) view.reason.textContent = reason;
      return;
    }
    view.ended = time;
    if (view.partial) this._output(view, "\n");
    this._setCallState(view, state);
    if (state === "aborted") {
      // The consumer's end reason in words ("turn failed"), as the producer words its own.
      const why = reason || String(call.end_reason || "aborted").replaceAll("_", " ");
      view.reason.textContent = String(why);
    }
    const tool = view.li.querySelector(".a2ap-tool").textContent;
    const took = this._durationText(view);
    this._announce(`tool ${state}: ${tool}${took ? ` ${took}` : ""}`);
  }

  _setCallState(view, state) {
    view.status = state;
    view.li.dataset.state = state;
    view.glyph.textContent = GLYPHS[state];
    view.state.textContent = state;
    view.duration.textContent = this._durationText(view);
  }

  _durationText(view) {
    if (view.status !== "running" && view.recorded !== null) return seconds(view.recorded);
    if (view.status !== "running" && view.replayed) return "?"; // a history keeps no times
    if (view.started === null) return "";
    const end = view.ended ?? (view.status === "running" ? this._serverNow() : null);
    if (end === null) return "";
    const value = Math.max(0, end - view.started);
    return view.ended === null ? `${value.toFixed(1)}s` : seconds(value);
  }

  _output(view, chunk) {
    const pieces = (view.partial + String(chunk)).split("\n");
    view.partial = pieces.pop();
    for (const piece of pieces) view.kept.push(piece);
    view.count += pieces.length;
    if (view.kept.length > KEPT_LINES) view.kept.splice(0, view.kept.length - KEPT_LINES);
    if (!view.output) {
      view.output = el("details", "a2ap-output");
      view.output.open = true;
      view.outputSummary = el("summary", "a2ap-summary");
      view.pre = el("pre", "a2ap-tail");
      view.output.append(view.outputSummary, view.pre);
      view.li.append(view.output);
    }
    const shown = view.kept.concat(view.partial ? [view.partial] : []);
    const total = view.count + (view.partial ? 1 : 0);
    const tail = shown.slice(-TAIL_LINES);
    const earlier = total - tail.length;
    view.outputSummary.textContent = `output · ${plural(total, "line")}`;
    view.pre.textContent = (earlier > 0 ? `… ${plural(earlier, "earlier line")}\n` : "")
      + tail.join("\n");
  }

  // -- status -----------------------------------------------------------------------------------

  _summary() {
    const outcome = this._outcome;
    if (!outcome) return "";
    if (outcome.state === "error") return `error: ${outcome.message}`;
    const calls = [...this._calls.values()];
    const aborted = calls.filter((view) => view.status === "aborted").length;
    let took = "";
    if (typeof outcome.duration === "number") took = ` in ${seconds(outcome.duration)}`;
    else if (outcome.replayed !== true && this._started !== null && this._endedAt !== null) {
      took = ` in ${seconds(Math.max(0, this._endedAt - this._started))}`;
    }
    if (!outcome.terminal && !(outcome.state in OUTCOME_GLYPHS)) {
      return `stream ended before the task did (last state: ${outcome.state})${took}`;
    }
    let text = `${OUTCOME_GLYPHS[outcome.state] ?? "·"} ${outcome.state}${took}  ·  `
      + plural(calls.length, "tool call");
    if (aborted) text += `, ${aborted} aborted`;
    if (outcome.replayed === true) text += "  ·  replayed from the task's history";
    return text;
  }

  _refresh() {
    for (const view of this._calls.values()) {
      if (view.status === "running") view.duration.textContent = this._durationText(view);
    }
    if (this._outcome) {
      this._status.textContent = this._summary();
      this._status.dataset.state = this._outcome.state;
      return;
    }
    if (this._source && this._source.readyState === EventSource.CONNECTING) return;
    const running = [...this._calls.values()].filter((view) => view.status === "running").length;
    let text = "working";
    if (this._started !== null) text += ` ${(Math.max(0, this._serverNow() - this._started)).toFixed(1)}s`;
    if (running) text += `  ·  ${plural(running, "tool call")} running`;
    this._status.textContent = text;
    this._status.dataset.state = "working";
  }

  _setStatus(text) {
    if (!this._outcome) this._status.textContent = text;
  }

  _announce(text) {
    this._live.textContent = text;
  }

  _startTicking() {
    if (this._timer === null && !this._ended) {
      this._timer = setInterval(() => this._refresh(), TICK_MS);
    }
  }

  _stopTicking() {
    if (this._timer !== null) clearInterval(this._timer);
    this._timer = null;
  }
}

if (!customElements.get("a2a-progress-panel")) {
  customElements.define("a2a-progress-panel", A2AProgressPanel);
}

export { A2AProgressPanel };
