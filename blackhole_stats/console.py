"""The console script's first code: Ctrl-C and SIGTERM are caught before anything slow is imported.

Importing click, pandas and pyarrow takes 0.2-1 s. A signal then would end in
a KeyboardInterrupt traceback, or a `run` without the line that resumes it.
So `main` first has signals recorded (`interrupts.record_until_ready`), then
loads the command line, whose commands raise a recorded signal as soon as
they can report it (`cli.Command`): it ends the same way as one during the
command. Every command pays for what this module imports: the standard
library's cheapest only.
"""
from __future__ import annotations

from . import _testhooks, interrupts


def main() -> None:
    """`blackhole-stats` (and `python -m blackhole_stats`)."""
    interrupts.record_until_ready()
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
