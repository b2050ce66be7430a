"""How ``watch`` and ``demo`` show a turn: one model of the turn, and the sinks that show it.

`sink` says what a sink is; `model` keeps what a view knows of a turn and reports
each change; `plain` prints one line per change (CI, pipes), `tree` draws the live
rich tree (terminals). ``a2a_progress.cli.live_view.LiveView`` picks between the two, and
``a2a_progress.cli.json_view.JsonLines`` is the sink for scripts.
"""
