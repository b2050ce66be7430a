"""What every test folder shares: the run's own signal disposition.

A job started in the background (``make test &``, some CI runners) inherits SIGINT *ignored*,
and every process it starts inherits that in turn, so the tests that stop a command with SIGINT,
as a user's Ctrl-C would, would wait for a process that never hears it. The run takes SIGINT
back (a handler, which a child's exec resets to the default) so the processes it starts hear it.
"""

import signal

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
