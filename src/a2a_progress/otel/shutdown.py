"""Open spans end, and the last batch is exported, however the process stops.

- Normal exit, ``sys.exit()``, an uncaught ``KeyboardInterrupt`` (what SIGINT does by default,
  also after uvicorn's graceful shutdown re-raises it): an ``atexit`` hook ends the turns still
  open with reason ``shutdown``. It is registered after the OpenTelemetry SDK's providers, so it
  runs before they shut down and export (``atexit`` is last in, first out).
- SIGTERM (``docker stop``, Kubernetes): its default action kills the process without running
  exit hooks, so the batch span processor's last batch would be lost. uvicorn's ``Server.run()``
  catches SIGTERM for its graceful shutdown, then restores the handler it found and raises the
  signal again. When the instrumentor is installed in the main thread and SIGTERM still has its
  default action (the application has no handler of its own), a handler is installed that ends
  the open turns (``shutdown``), flushes the tracer and meter providers, then restores the
  default action and raises the signal again: the process still dies of SIGTERM, with the exit
  status it would have had. The application's own handler, or uvicorn's while it serves, is never
  replaced; a handler installed later simply replaces this one. Set
  ``OTEL_INSTRUMENTATION_A2A_PROGRESS_SIGTERM_HANDLER=false`` (``sigterm_handler=False``) and it
  is never installed.
- As PID 1 (a container started without an init), the kernel ignores a signal whose action is
  the default: raising SIGTERM again would do nothing, and the agent would keep serving with its
  spans already ended. When the signal comes back unheeded, the handler ends the process itself,
  with ``os._exit(128 + SIGTERM)`` (143, what a shell reports for a process killed by SIGTERM),
  after the flush. Better still, run under an init (``docker run --init``, compose ``init: true``,
  or ``tini``, as the project's Dockerfile does).

The ending and flushing run in a helper thread joined for at most ``FLUSH_TIMEOUT_S`` seconds: a
signal handler runs between two bytecodes of the main thread, which may hold a lock the exporter
needs, and waiting on it there would hang the process instead of stopping it.
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
from collections.abc import Callable, Iterable
from types import FrameType
from typing import Final

from a2a_progress.otel.bridge import Bridge

logger = logging.getLogger(__name__)

FLUSH_TIMEOUT_S: Final = 5.0


class ExitHooks:
    """The ``atexit`` hook and the SIGTERM handler of one instrumentation.

    Args:
        bridge: whose live turns end at exit.
        providers: the tracer and meter providers to flush on SIGTERM (asked when it comes).
        take_sigterm: whether SIGTERM may be taken at all (``sigterm_handler``).
    """

    def __init__(
        self,
        bridge: Bridge,
        providers: Callable[[], Iterable[object]],
        *,
        take_sigterm: bool = True,
    ) -> None:
        self._bridge = bridge
        self._providers = providers
        self._take_sigterm = take_sigterm
        self._sigterm = False

    def install(self) -> None:
        """Register the exit hook; take SIGTERM only if nobody handles it."""
        atexit.register(self._at_exit)
        if (
            self._take_sigterm
            and threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        ):
            signal.signal(signal.SIGTERM, self._on_sigterm)
            self._sigterm = True

    def remove(self) -> None:
        """Give SIGTERM back (if this handler is still the one installed); drop the exit hook.

        Turns still open on the bridge keep the exit hook until the process ends.
        """
        if (
            self._sigterm
            and threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGTERM) == self._on_sigterm
        ):
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        self._sigterm = False
        if not self._bridge.live_turns:
            atexit.unregister(self._at_exit)

    def _at_exit(self) -> None:
        self._bridge.end_live_turns()

    def _on_sigterm(self, signum: int, frame: FrameType | None) -> None:
        try:
            worker = threading.Thread(
                target=self._end_and_flush, name="a2a-progress-sigterm", daemon=True
            )
            worker.start()
            worker.join(FLUSH_TIMEOUT_S)
        except Exception:  # whatever failed, the signal still ends the process
            logger.warning("a2a-progress: could not flush on SIGTERM", exc_info=True)
        finally:
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)
            # Still here: the default action was ignored (PID 1). End as the signal would have.
            logger.warning("a2a-progress: SIGTERM's default action was ignored (PID 1?); exiting")
            os._exit(128 + signum)

    def _end_and_flush(self) -> None:
        try:
            self._bridge.end_live_turns()
        except Exception:  # flush what there is all the same
            logger.warning("a2a-progress: ending open turns on SIGTERM failed", exc_info=True)
        for provider in self._providers():
            flush = getattr(provider, "force_flush", None)
            if callable(flush):
                try:
                    flush(int(FLUSH_TIMEOUT_S * 1000))
                except Exception:
                    logger.warning("a2a-progress: flush on SIGTERM failed", exc_info=True)
