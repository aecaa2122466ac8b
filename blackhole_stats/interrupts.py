"""Ctrl-C and SIGTERM during a run: an exception in the main thread, from the first instant, never lost.

A signal can land anywhere: in an import, in a child process that was just
forked and still runs the parent's handler, or in code that swallows
exceptions (Python ignores an exception raised in an at-fork callback, which
is where a Ctrl-C lands while the worker pool starts). So the handler records
the signal before raising it, the run looks at the record again at its safe
points (`check`, `received`), and a forked child, told apart by its process
id, leaves Ctrl-C to its parent and dies of SIGTERM as usual.

Standard library only: `run` installs this before it imports anything slow.
"""
from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager
from typing import Iterator

SIGNALS = (signal.SIGINT, signal.SIGTERM)

_owner: int | None = None
"""The process whose main thread gets `Interrupted`; None outside `raised()`."""
_received: int | None = None
"""The first signal since `raised()` began; the exit status is 128 + it."""


class Interrupted(BaseException):
    """SIGINT or SIGTERM; not an Exception, so that `except Exception` lets it through."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _handle(signum: int, frame) -> None:
    global _received
    if os.getpid() != _owner:  # a child forked from the run, before it set its own handlers
        if signum == signal.SIGTERM:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
        return
    if _received is None:
        _received = signum
    raise Interrupted(signum)


@contextmanager
def raised() -> Iterator[None]:
    """Within: every SIGINT and SIGTERM raises `Interrupted` in the main thread.

    A second signal raises again (it interrupts the cleaning up of the first:
    whatever is cut short is safe to cut). Nested uses are one; outside the
    main thread this does nothing (Python delivers signals to the main thread).
    """
    global _owner, _received
    if threading.current_thread() is not threading.main_thread() or _owner == os.getpid():
        yield
        return
    _owner, _received = os.getpid(), None
    previous = {signum: signal.signal(signum, _handle) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _owner = None


def received() -> int | None:
    """The first signal that came within `raised()`, even one whose exception something swallowed."""
    return _received if _owner == os.getpid() else None


def check() -> None:
    """Raise `Interrupted` again if a signal came: for loops that must stop even if it was swallowed."""
    signum = received()
    if signum is not None:
        raise Interrupted(signum)
