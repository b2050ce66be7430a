"""How ``watch`` and ``demo`` show a turn: one model of the turn, and the sinks that show it.

:mod:`.sink` says what a sink is; :mod:`.model` keeps what a view knows of a turn and reports
each change; :mod:`.plain` prints one line per change (CI, pipes), :mod:`.tree` draws the live
rich tree (terminals). ``a2a_progress.cli.live_view.LiveView`` picks between the two, and
``a2a_progress.cli.json_view.JsonLines`` is the sink for scripts.
"""
