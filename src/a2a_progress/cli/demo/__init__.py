"""``a2a-progress demo`` and ``serve-demo``: demo agents, served and watched, with their trace.

- :mod:`.command` — the ``demo`` command line; :mod:`.run` runs it (embedded or ``--remote``);
- :mod:`.agent` — the demo callee (an SRE agent investigating a failing deploy);
- :mod:`.serve` — ``serve-demo``, the demo callee as a process of its own;
- :mod:`.processes` — starting and stopping those processes for the embedded demo;
- :mod:`.trace` — where the demo's spans go and how its trace is shown.
"""
