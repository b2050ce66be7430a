"""``a2a-progress demo`` and ``serve-demo``: demo agents, served and watched, with their trace.

- `command` — the ``demo`` command line; `run` runs it (embedded or ``--remote``);
- `agent` — the demo callee (an SRE agent investigating a failing deploy);
- `serve` — ``serve-demo``, the demo callee as a process of its own;
- `processes` — starting and stopping those processes for the embedded demo;
- `trace` — where the demo's spans go and how its trace is shown.
"""
