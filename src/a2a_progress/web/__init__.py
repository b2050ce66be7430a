"""The live "tool call details" panel for web apps: an SSE relay and a web component.

`ProgressRelay` streams one turn's progress to browsers as Server-Sent Events — one
``watch --json`` object per update (`a2a_progress.schema`), numbered so that a browser
reconnecting with ``Last-Event-ID`` neither loses nor repeats one — and serves the plain page and
the ``<a2a-progress-panel>`` web component (one script and one stylesheet in ``static/``, no build
step) that renders it. `serve_panel` runs it on loopback, as ``watch --web`` does.

Mount it in your app::

    relay = ProgressRelay(title="research agent")
    app.mount("/progress", relay.app)            # /progress/, /progress/stream, /progress/static/…
    await relay.run(client.send_message(request))
"""

import a2a_progress.cli_extra  # noqa: F401 - without the [cli] extra: one clear line
from a2a_progress.web.assets import PANEL_SCRIPT, PANEL_STYLESHEET, static_file, static_routes
from a2a_progress.web.relay import ProgressRelay
from a2a_progress.web.server import serve_panel

__all__ = [
    "PANEL_SCRIPT",
    "PANEL_STYLESHEET",
    "ProgressRelay",
    "serve_panel",
    "static_file",
    "static_routes",
]
