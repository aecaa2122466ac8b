"""Ctrl-C and SIGTERM during a run: an exception in the main thread, from the first instant, never lost.

A signal can land anywhere: in an import, in a child process that was just
forked and still runs the parent's handler, in code that swallows exceptions
(an exception in an at-fork callback is printed and ignored), or halfway
through starting a worker process, which the clean-up would then miss. So the
handler records the signal before raising it, the run looks at the record
again at its safe points (`check`, `received`), work that must not be cut in
two runs `deferred()`, and a forked child, told apart by its process id,
leaves Ctrl-C to its parent and dies of SIGTERM as usual. Workers start
within `starting_workers()`, whatever the start method, and call
`leave_ctrl_c_to_parent()` first thing.

Standard library only, and cheap: the console script has signals recorded
(`record_until_ready`) before it imports anything slow, and the command that
runs raises one recorded meanwhile as soon as it can report it (`ready`).
"""
from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator

_HANG_UP = getattr(signal, "SIGHUP", None)  # (none on Windows)
SIGNALS = (signal.SIGINT, signal.SIGTERM, *((_HANG_UP,) if _HANG_UP is not None else ()))
"""Ctrl-C, SIGTERM, and SIGHUP (the terminal closed, an ssh connection dropped), which ended a run as
kill -9 would, with no line and the chunks in flight lost. One ignored when the process starts stays
ignored: a hang-up under `nohup`, Ctrl-C in a script's background job (the shell ignores it there, so that
the job outlives a Ctrl-C to the script), any of them after `trap '' ...`. Like Ctrl-C, a hang-up reaches
the whole process group: workers leave both to the parent, which stops them."""
_TO_PARENT = (signal.SIGINT, *((_HANG_UP,) if _HANG_UP is not None else ()))
"""What workers ignore: the parent, which gets it too, stops them."""

_owner: int | None = None
"""The process whose main thread gets `Interrupted`; None outside `raised()`."""
_received: int | None = None
"""The first signal since `raised()` began: the one an interrupted program dies of (128 + it: its status
where signals give none)."""
_deferring = 0
"""How many `deferred()` blocks the main thread is in: signals are recorded, raised at the end."""
_starting = False
"""Between `record_until_ready()` and `ready()`: the program cannot report a signal yet (it counts in `_deferring`)."""
_ignored: frozenset = frozenset()
"""Of SIGNALS, those this process found ignored when it took the others (see SIGNALS): they stay so."""
_dying_of: int | None = None
"""The signal a program that stopped for it dies of, after its exit handlers (`die_of_signal_at_exit`)."""
_program: int | None = None
"""The process whose first step was `record_until_ready`: one of our commands, whose ending is ours."""
_sealed: list | None = None
"""[status, signals still let pass] once the program's status is decided (`seal_status`): `_handle`
then ends the process instead of raising. A flag, not other handlers: a signal can come between two
steps of swapping handlers, but not halfway through setting one name."""


class Interrupted(BaseException):
    """SIGINT or SIGTERM; not an Exception, so that `except Exception` lets it through."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        self.done: str | None = None
        """What the command finished before the signal was handled, if that is worth saying (a held step)."""


def _handle(signum: int, frame) -> None:
    global _received
    if os.getpid() != _owner:  # a child forked from the run, before it set its own handlers
        if signum == signal.SIGTERM:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
        return
    if _sealed is not None:
        if _sealed[1]:
            _sealed[1] -= 1
            return
        if _dying_of is not None:
            die_of(_dying_of)
        os._exit(_sealed[0])
    if _received is None:
        _received = signum
    if not _deferring:
        raise Interrupted(signum)


@contextlib.contextmanager
def raised() -> Iterator[None]:
    """Within: every SIGINT and SIGTERM raises `Interrupted` in the main thread.

    A second signal raises again (it interrupts the cleaning up of the first:
    whatever is cut short is safe to cut). Nested uses are one, and within a
    program that called `record_until_ready` this adds nothing; outside the
    main thread this does nothing (Python delivers signals to the main thread).
    """
    global _owner
    if threading.current_thread() is not threading.main_thread() or _owner == os.getpid():
        yield
        return
    previous, previous_hook = _take_signals(), sys.unraisablehook
    sys.unraisablehook = _passing_over_interrupts(previous_hook)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if getattr(sys.unraisablehook, "passes_over", None) is previous_hook:  # (else another hook came since)
            sys.unraisablehook = previous_hook
        _owner = None


def _passing_over_interrupts(previous):
    """sys.unraisablehook that passes over `Interrupted` where Python could only print it as "Exception
    ignored" with a traceback (a weakref callback run inside an import, a finalizer): the signal is
    recorded, and the program stops for it at its next safe point."""
    def hook(unraisable) -> None:
        if not isinstance(unraisable.exc_value, Interrupted):
            previous(unraisable)
    hook.passes_over = previous
    return hook


def _take_signals() -> dict:
    """Handle SIGNALS in this process from now on (not those ignored: see SIGNALS); returns the handlers
    they had."""
    global _owner, _received, _ignored
    _owner, _received = os.getpid(), None
    _ignored = frozenset(signum for signum in SIGNALS if signal.getsignal(signum) == signal.SIG_IGN)
    return {signum: signal.signal(signum, _handle) for signum in taken()}


def taken() -> tuple:
    """SIGNALS but those ignored when this process took them: what its handlers may set."""
    return tuple(signum for signum in SIGNALS if signum not in _ignored)


def record_until_ready() -> None:
    """A program's first step: from now on SIGINT and SIGTERM are recorded, and raised only from `ready()` on.

    For the rest of the process, as within `raised()`. Until `ready()`, nothing
    is raised in the middle of an import, where nothing could report it yet.
    Does nothing outside the main thread, or if signals are handled here already.
    """
    global _starting, _deferring, _program
    if threading.current_thread() is not threading.main_thread() or _owner == os.getpid():
        return
    _take_signals()
    sys.unraisablehook = _passing_over_interrupts(sys.unraisablehook)
    _program = os.getpid()
    _starting = True
    _deferring += 1
    atexit.register(_last_step)  # first registered, so it runs last: after the pools' and logging's


def _last_step() -> None:
    """The interpreter's last steps, once every other exit handler has run: the exit status stands.
    A program that stopped for a signal writes out what it said, then dies of it (`die_of_signal_at_exit`;
    a signal meanwhile ends it at once, as `seal_status` says). Then signals are ignored: Python resets
    the handlers it set to the default action, so a signal in its final clean-up killed a complete run
    without a word (143); ignored signals stay ignored."""
    if _dying_of is not None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # closed, or its reader gone: nothing more can be said
                stream.flush()
        die_of(_dying_of)
    for signum in SIGNALS:
        if signal.getsignal(signum) != signal.SIG_IGN:
            signal.signal(signum, signal.SIG_IGN)


def owns_process() -> bool:
    """Whether this process is one of our commands (`record_until_ready` was its first step), not a
    program that called one in its own process (a notebook, click's CliRunner): only then may the
    command decide how the process ends (`die_of_signal_at_exit`, `seal_status`)."""
    return _program == os.getpid()


def die_of_signal_at_exit(signum: int) -> None:
    """A program that stopped for `signum` and said so: once its exit handlers have run (its workers
    stopped, its log closed), it dies of that signal (`die_of`), not with a status of 128 + it. A shell
    shows 128 + it either way, but its `for` loop stops after Ctrl-C (which reaches the shell too) only
    for a child the signal killed: one that exits 130 chose to stop, and the loop goes on to its next
    round (the next run). Only where this process is ours (`owns_process`) and the signal one it takes."""
    global _dying_of
    if owns_process() and signum in taken():
        _dying_of = signum


def seal_status(status: int, let_pass: int = 0) -> None:
    """The program's status is decided: a signal from here on ends the process at once, of the signal
    it stopped for if it did (`die_of_signal_at_exit`), else with `status` (a complete run exited 143
    with no line when SIGTERM came as the interpreter shut down). The first `let_pass` signals are let
    pass, so that the second of two sent together (GNU timeout signals the process, then its group)
    does not cut the last word of an interrupted program short, while a third still ends one whose last
    word hangs (on a stalled terminal). Ignored signals stay ignored. Only where this process is ours
    (`owns_process`): a program that called a command keeps its own handlers."""
    global _sealed
    if owns_process():
        _sealed = [status, let_pass]


def die_of(signum: int) -> None:
    """End this process of `signum` at its default action, now (not on Windows, which has no status
    for a process a signal killed: there, nothing happens and the caller's own exit follows)."""
    if os.name == "nt":
        return
    signal.signal(signum, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
    signal.raise_signal(signum)  # in this thread: the process ends here


def ready() -> None:
    """The program can report an interrupt now: one recorded since `record_until_ready` raises here.

    Later calls do nothing (a later signal raises where it lands, as within `raised()`).
    """
    global _starting, _deferring
    if _starting and _owner == os.getpid():
        _starting = False
        _deferring -= 1
        check()


def cause(error: BaseException) -> Interrupted | None:
    """The `Interrupted` that `error` is, was raised from, or was raised while handling, if any.

    Python 3.11 wraps one raised in a class's `__set_name__` (a signal while a module defines its
    classes, as a command imports what it needs) in a RuntimeError; a second signal can cut a library's
    handling of the first in two, and it then fails in its own way (futures.wait: "release unlocked lock").
    """
    seen = set()
    while error is not None and id(error) not in seen:  # the chain a traceback shows (`from None` ends it)
        if isinstance(error, Interrupted):
            return error
        seen.add(id(error))
        error = error.__cause__ if error.__cause__ is not None else \
            None if error.__suppress_context__ else error.__context__
    return None


@contextlib.contextmanager
def unwrapped() -> Iterator[None]:
    """Within: an exception caused by an `Interrupted` (`cause`) is raised as that interrupt, which a
    command ends with its one line, not a traceback."""
    try:
        yield
    except Exception as error:
        interrupt = cause(error)
        if interrupt is None:
            raise
        raise interrupt from None


def record_only() -> None:
    """From now on a signal is recorded, never raised: for a program's last steps, once its outcome
    stands (raised there, it would only turn that outcome into a traceback)."""
    global _deferring
    _deferring += 1


@contextlib.contextmanager
def recorded() -> Iterator[None]:
    """Within: a signal is only recorded (`received`), never raised: for a short step of stopping after
    a first signal, which a second must not cut in two."""
    global _deferring
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Within: a signal is only recorded, and raised when the block ends (if no exception does)."""
    with recorded():
        yield
    check()


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Within: Ctrl-C and SIGTERM wait until the block ends, then the first is handled as it would
    have been (a command's `Interrupted`, Python's KeyboardInterrupt, a script's own handler, or the
    default action): for a few steps that a signal, or a second one during the clean-up after the
    first, must not cut in two. Outside the main thread no signal handler runs: nothing to hold."""
    handlers = {signum: signal.getsignal(signum) for signum in SIGNALS}
    handlers = {signum: handler for signum, handler in handlers.items() if handler != signal.SIG_IGN}  # (nohup)
    if threading.current_thread() is not threading.main_thread() or None in handlers.values():
        yield  # (None: a handler set outside Python, which cannot be put back)
        return
    caught = []
    for signum in handlers:
        signal.signal(signum, lambda signum, frame: caught.append((signum, frame)))
    try:
        yield
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        if caught:
            signum, frame = caught[0]
            if callable(handlers[signum]):
                handlers[signum](signum, frame)
            elif handlers[signum] == signal.SIG_DFL:
                os.kill(os.getpid(), signum)


@contextlib.contextmanager
def starting_workers() -> Iterator[None]:
    """Within: start worker processes, forked, spawned or from a fork server alike.

    A signal to this process is deferred (`deferred`): a worker half started
    would escape the clean-up. And SIGINT and SIGHUP are blocked in this thread meanwhile:
    a child inherits the mask through fork and exec, so a Ctrl-C that reaches
    a worker before it has set its own handlers (a spawned one imports for a
    while) stays pending until `leave_ctrl_c_to_parent` discards it, instead
    of ending the worker with a KeyboardInterrupt traceback. (Threads started
    within, such as a pool's, keep SIGINT blocked: it goes to the main thread.)
    """
    with deferred():
        if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks
            yield
            return
        before = signal.pthread_sigmask(signal.SIG_BLOCK, set(_TO_PARENT))
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)


def leave_ctrl_c_to_parent() -> None:
    """In a worker started within `starting_workers`: ignore Ctrl-C and a hang-up (one pending since
    the start is discarded), which the parent handles, and die at once of SIGTERM, unless the parent
    ignores it (see SIGNALS: the child, forked or spawned, starts with it ignored too)."""
    for signum in _TO_PARENT:
        signal.signal(signum, signal.SIG_IGN)
    if signal.getsignal(signal.SIGTERM) != signal.SIG_IGN:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, set(_TO_PARENT))


PR_SET_PDEATHSIG = 1
"""From <linux/prctl.h>: the signal a process gets when its parent dies (asked of `prctl`)."""


def exit_with_parent() -> None:
    """In a worker process (a run's, a script's): die when the process that started it does (kill -9, the
    OOM killer): an orphan would go on solving, holding a run's directory lock or a script's pipes.

    Linux sends a signal when the process that forked this one dies, if asked:
    the parent, or under forkserver the fork server (which lives on as long as
    its workers do). Everywhere, a thread watches the parent itself (`watch_parent`),
    which also catches a parent gone before this worker asked for the signal.
    """
    signalled = False
    if sys.platform.startswith("linux"):
        import ctypes  # (here: only workers need it)

        try:
            signalled = ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL) == 0
        except (OSError, AttributeError):
            pass
    try:
        threading.Thread(target=watch_parent, name="parent-watch", daemon=True).start()
    except RuntimeError:  # can't start new thread (a memory limit): the signal alone will do, where asked for
        if not signalled:
            raise


def watch_parent() -> None:
    """Exit once the parent is gone: the pipe that multiprocessing keeps from it to this process closes.

    Forked siblings started later hold copies of that pipe: the last one sees it
    close first, and its exit closes the copies that the others wait on.
    """
    import multiprocessing.connection

    multiprocessing.connection.wait([multiprocessing.parent_process().sentinel])
    os._exit(1)


def received() -> int | None:
    """The first signal that came within `raised()`, even one whose exception something swallowed."""
    return _received if _owner == os.getpid() else None


def first_signal(signum: int | None) -> int | None:
    """The first signal that came (`received`), else `signum`: what an interrupted program reports and
    dies of, when a second signal cut the handling of the first short (its exception is then in flight)."""
    return received() or signum


def end_as_signalled() -> None:
    """If a signal came (`received`), end this process of it now that everything is said (`die_of`; see
    `die_of_signal_at_exit` for why)."""
    signum = received()
    if signum is not None:
        die_of(signum)


def check() -> None:
    """Raise `Interrupted` again if a signal came: for loops that must stop even if it was swallowed."""
    signum = received()
    if signum is not None:
        raise Interrupted(signum)
