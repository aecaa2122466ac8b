"""The console script's first code: Ctrl-C and SIGTERM are caught before anything slow is imported.

Importing click, pandas and pyarrow takes 0.2-1 s. A signal then would end in
a KeyboardInterrupt traceback, or a `run` without the line that resumes it.
So `main` first has signals recorded (`interrupts.record_until_ready`), then
loads the command line, whose commands raise a recorded signal as soon as
they can report it (`cli.Command`): it ends the same way as one during the
command. Every command pays for what this module imports: the standard
library's cheapest only. Both commands write their standard output through
`take_stdout`, so that a reader gone early is an error they see (exit 141).
"""
from __future__ import annotations

import io
import os
import sys

from . import _testhooks, interrupts


EXIT_BROKEN_PIPE = 141
"""128 + SIGPIPE: what a shell shows for any tool whose reader stopped early (`| head`)."""


class StdoutFailed(Exception):
    """Writing to standard output failed (full, closed pipe): not an OSError of any file we opened."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error.strerror or str(error))
        self.errno = error.errno


class _Stdout(io.FileIO):
    """File descriptor 1, whose write errors say that they are standard output's. Written through
    Python, not the interpreter's own sys.stdout: that one returned from a write the pipe took only
    part of when its reader was gone meanwhile, with no error and the rest unwritten (exit 0, cut short)."""

    def write(self, data) -> int | None:
        try:
            return super().write(data)
        except OSError as error:
            raise StdoutFailed(error) from error


STDERR = "<stderr>"
"""The file name a broken pipe of standard error carries (`_Stderr`)."""


class _Stderr(io.FileIO):
    """File descriptor 2, whose broken pipe says it is standard error's: its reader gone (`2>&1 | head`,
    a note after the output) is told from a broken pipe of any other file (a FIFO, a socket). Any other
    failure (`2>/dev/full`) loses the line as a closed standard error does (`2>&-`): the command's status
    stands, where an OSError from a note would have made a finished report exit 1."""

    def write(self, data) -> int | None:
        try:
            return super().write(data)
        except BrokenPipeError as error:
            _to_null_device(2)  # nothing more can be said there; the interpreter's last flush must succeed
            error.filename = STDERR
            raise
        except OSError:
            return len(data)


def take_stderr() -> None:
    """Point sys.stderr at file descriptor 2 through `_Stderr`, as it was set up; for a process that is one
    of our commands (there is one, and its standard error is its own)."""
    if sys.stderr is not None:
        sys.stderr = io.TextIOWrapper(_Stderr(2, "w", closefd=False), encoding=sys.stderr.encoding,  # unbuffered,
                                      errors=sys.stderr.errors, write_through=True)  # as the interpreter's own


def take_stdout() -> None:
    """Point sys.stdout at file descriptor 1 through `_Stdout`, as it was set up (encoding, errors, line
    buffering); for a process that is one of our commands, whose standard output is its own."""
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_Stdout(1, "w", closefd=False)), encoding=sys.stdout.encoding,
                                  errors=sys.stdout.errors, line_buffering=sys.stdout.line_buffering)


def discard_stdout() -> None:
    """Point fd 1 at the null device, so that the interpreter's last flush of unwritten output succeeds."""
    _to_null_device(1)


def _to_null_device(fd: int) -> None:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


def main() -> None:
    """`blackhole-stats` (and `python -m blackhole_stats`)."""
    interrupts.record_until_ready()
    # numpy's OpenBLAS starts a thread a core when it loads, and where it cannot (`ulimit -u`) it sends its
    # process SIGINT: a user's Ctrl-C to us. No command does linear algebra; a user's own setting stands.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    _testhooks.pause("cli-starting")
    from .cli import main as command_line

    command_line(prog_name="blackhole-stats")


def solve_main() -> None:
    """`blackhole-solve`, black-hole-solver's command line (see `dropin`): the same start, and no
    click, so that a process per position starts quickly."""
    interrupts.record_until_ready()
    _testhooks.pause("cli-starting")
    from .dropin import main as command_line

    command_line()
