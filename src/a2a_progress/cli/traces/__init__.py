"""``a2a-progress traces``: a local OTLP endpoint that prints each trace as a waterfall.

`command` adds the command line; `run` listens and prints (imported only when it runs).
"""
