"""SIGTERM ends a run the way Ctrl-C (SIGINT) does: by an exception, so that every `finally` and
context manager runs and temporary directories (the engine's search home, the consumers' procfs
roots) are removed. Python's default for SIGTERM is to die on the spot, leaving them behind."""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:
    from typing import Iterator

EXIT_STATUS = 128 + signal.SIGTERM  # what a shell reports for a process killed by SIGTERM


class Terminated(BaseException):
    """SIGTERM arrived (a BaseException, like KeyboardInterrupt, so `except Exception` lets it by)."""


class _State:
    received = False  # SIGTERM arrived: whatever the run did with the exception, it ends as terminated


STATE = _State()


def _raise_terminated(signum: int, frame: object) -> None:
    STATE.received = True
    raise Terminated()


@contextmanager
def signals_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block is over: for creating a resource and taking charge
    of its cleanup in one step (a signal in between would leave it behind). Python runs signal
    handlers in the main thread whichever thread the kernel picked, so a thread's signal mask
    cannot hold them back: the handlers are swapped for ones that only take note, and what they
    noted is raised again once the real handlers are back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    previous = {signum: signal.signal(signum, lambda number, frame: noted.append(number))
                for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(noted):
            signal.raise_signal(signum)


@contextmanager
def temporary_directory(prefix: str) -> Iterator[str]:
    """A temporary directory that SIGINT or SIGTERM cannot leave behind: the signals wait while it
    is created and while it is removed (a signal inside `rmtree` would stop it half-way), and the
    block that owns it starts before they are let through again."""
    import tempfile

    owned = None
    try:
        with signals_deferred():
            owned = tempfile.TemporaryDirectory(prefix=prefix)
        yield owned.name
    finally:
        if owned is not None:
            with signals_deferred():
                owned.cleanup()


def _signal_again_if_swallowed(previous_hook):
    """An exception raised where Python cannot propagate it (a garbage-collector callback, such as
    the one Hypothesis installs) is "unraisable" and dropped. A dropped `Terminated` is not printed
    but delivered again, a moment later from another thread, to land where it can propagate."""

    def hook(unraisable) -> None:
        if isinstance(unraisable.exc_value, Terminated):
            again = threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGTERM))
            again.daemon = True
            again.start()
            return
        previous_hook(unraisable)

    return hook


@contextmanager
def sigterm_raises() -> Iterator[None]:
    """Within the block SIGTERM raises `Terminated`; the previous handler comes back afterwards.
    Outside the main thread (where handlers cannot be set) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    STATE.received = False
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _signal_again_if_swallowed(previous_hook)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        sys.unraisablehook = previous_hook
