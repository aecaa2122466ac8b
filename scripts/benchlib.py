"""What every measuring script shares, in one place: its options, the machine's load, the summary file.

A figure in README must reproduce on a shared machine, so each script
repeats its measurements and reports medians (`--repeats`, with a floor
below which a median says little), names the load average it started
under, and with `--summary FILE` writes the figures it printed to a JSON
file that README quotes and `tests/test_results.py` checks README against.
The summary names the command that reproduces it.

Every script (the studies too; not fuzz_cli.py) also takes from here its argument parser
(one-line usage errors), how it ends on a signal or a failure (`run_script`), how
it runs one of the package's commands (`run_command`), its worker processes
(`pool_map`) and a C compiler (`compiled`, `built_core`).

Signals are the package's (`blackhole_stats.interrupts`): a script imports this
module first, and from then on Ctrl-C, SIGTERM and a hang-up are recorded, raised
as `Interrupted` once `run_script` has started `main`, and only recorded within
the waits for a pool or a command, which look at the record between steps.
"""
from __future__ import annotations

import os
import sys

from blackhole_stats import _testhooks, interrupts


def _run_as_a_script() -> bool:
    """Whether the program is one of this folder's scripts, not a test that imports one as a module or a
    pool worker that a script spawned (each keeps its own signal handling)."""
    main = sys.modules.get("__main__")
    here = os.path.dirname(os.path.realpath(__file__))  # (a script run through a link: its target's folder)
    return getattr(main, "__name__", None) == "__main__" and \
        os.path.dirname(os.path.realpath(getattr(main, "__file__", None) or "-")) == here


if _run_as_a_script():  # before the script's own imports, which take a while (pandas, pyarrow): a Ctrl-C
    interrupts.record_until_ready()  # meanwhile was a KeyboardInterrupt traceback
    _testhooks.pause("script-loading")

import argparse
import contextlib
import errno
import importlib.machinery
import importlib.util
import json
import multiprocessing
import select
import shutil
import signal
import statistics
import subprocess
import sysconfig
import tempfile
from collections.abc import Callable
from concurrent import futures
from pathlib import Path
from typing import NoReturn, TypeVar

from blackhole_stats.atomic import replace_text
from blackhole_stats.console import EXIT_BROKEN_PIPE, StdoutFailed, discard_stdout, take_stdout
from blackhole_stats.interrupts import Interrupted, die_of


class Parser(argparse.ArgumentParser):
    """Every script's argument parser: a usage error is one line, `SCRIPT: error: ...`, and exit status 2
    (argparse put its usage line, two or three for a long one, above it; --help still shows it)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


MIN_REPEATS = 5
"""Fewest repeats whose median holds up on a shared machine (a script may ask for more)."""


def parser(doc: str, *, repeats: int = MIN_REPEATS, floor: int = MIN_REPEATS, game: bool = False) -> Parser:
    """The options every measuring script takes: --repeats (at least `floor`), --summary FILE, and --game if asked."""
    made = Parser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    made.add_argument("--repeats", type=int, default=repeats,
                      help=f"runs of each measurement, at least {floor} (default {repeats}): figures are medians")
    if game:
        made.add_argument("--game", type=game_type, default="black_hole",
                          help="the game: key, PySolFC id or name (default black_hole)")
    made.add_argument("--summary", type=Path, metavar="FILE", help="also write the figures printed to this JSON file")
    made.set_defaults(repeats_floor=floor)
    return made


def parse(made: argparse.ArgumentParser, argv: list[str] | None = None) -> argparse.Namespace:
    """The arguments, with --repeats and --summary checked (before anything is measured: a summary that
    cannot be written would fail only once it all was) and --game turned into its Game; usage errors exit 2."""
    args = made.parse_args(argv)
    if args.repeats < args.repeats_floor:
        made.error(f"--repeats must be at least {args.repeats_floor}: a median of fewer runs does not reproduce")
    if args.summary is not None:
        if args.summary.exists() and not args.summary.is_file():
            made.error(f"--summary {args.summary}: no file can be written there")
        problem = (os.strerror(errno.EACCES) if args.summary.is_file() and not os.access(args.summary, os.W_OK)
                   else cannot_write_in(args.summary.absolute().parent))
        if problem is not None:
            made.error(f"--summary {args.summary}: {problem}")
    return args


def cannot_write_in(folder: Path) -> str | None:
    """Why no file can be made in `folder` (or, where it is not there yet, in its nearest existing folder,
    where it would be made), None if one can: a temporary file tried there and removed. A script checks
    where it writes before it works, which a read-only folder or mount otherwise failed only after."""
    existing = next(place for place in (folder, *folder.parents) if place.exists())
    try:
        tempfile.TemporaryFile(dir=existing).close()
    except OSError as error:
        return error.strerror
    return None


SCRIPT_LOCK = ".script.lock"
"""The file in a results folder whose lock says that a script is writing there (`holding`)."""


def holding(folder: Path, busy: str, written: tuple[str, ...]) -> contextlib.ExitStack:
    """`folder` (where a script writes its results) held by this script until the block ends, a second one
    writing there refused with the line `busy`, as a study's was; then the leftovers of the files in
    `written` (glob patterns, relative to `folder`) removed that one killed outright (kill -9) left:
    `replacing`'s private `.NAME.*.partial` folders, which no later one removed. Held, no other script is
    writing them now."""
    from blackhole_stats.dataset import RunBusy, lock
    held = contextlib.ExitStack()
    marker = folder / SCRIPT_LOCK  # a file of its own: a run locks its folder itself, and a held empty
    marker.touch()                 # folder would read as a run's (dataset.enclosing_run)
    try:
        held.enter_context(lock(str(marker)))
    except RunBusy:
        sys.exit(busy)
    held.callback(marker.unlink, missing_ok=True)
    for pattern in written:
        place, name = os.path.split(pattern)
        for leftover in folder.glob(os.path.join(place, f".{name}.*.partial")):
            shutil.rmtree(leftover)
    return held


def game_type(text: str):
    """An argparse type: a game of the family by key, PySolFC id or name (its error lists the games)."""
    from blackhole_stats.games import UnknownGameError, get_game

    try:
        return get_game(text)
    except UnknownGameError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def game_number(text: str):
    """An argparse type: a PySolFC game number as the package reads one (`97`, `ms123`)."""
    from blackhole_stats.dealing import DealNumberError, GameNumber

    try:
        return GameNumber.parse(text)
    except DealNumberError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def positive(text: str) -> int:
    """An argparse type: a whole number of 1 or more (a count of chunks, workers, ...)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is no whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is less than 1")
    return value


def iteration_budget(text: str) -> int:
    """An argparse type: a --max-iters as `blackhole-stats run --max-iters` takes it, 1 to 2^63-1 (the C
    search counts in 64 bits: a larger one was a ValueError traceback from every worker)."""
    from blackhole_stats.solver import MAX_ITERS

    value = positive(text)
    if value > MAX_ITERS:
        raise argparse.ArgumentTypeError(f"{value} is more than {MAX_ITERS} (2^63-1)")
    return value


def deal_range(text: str, made: argparse.ArgumentParser | None = None, option: str = "--deals") -> range:
    """`option` FIRST-LAST (or one number) as the range of plain game numbers it names; anything else is a
    usage error of `made` (exit 2; without one, SystemExit with the reason)."""
    first, dash, last = text.partition("-")
    try:
        numbers = range(int(first), int(last if dash else first) + 1)
        problem = (f"{option} {text} holds no deal" if not numbers else
                   f"{option} {text}: game numbers start at 1" if numbers.start < 1 else None)
    except ValueError:
        problem = f"{option} must be FIRST-LAST, not {text!r}"
    if problem is not None:
        made.error(problem) if made is not None else sys.exit(problem)
    return numbers


def check_runs(made: argparse.ArgumentParser, option: str, command: list[str]) -> None:
    """Refuse `option` (a usage error of `made`) unless `command`, its program tried once, runs and exits 0:
    a baseline that cannot run failed only once the timing had started, in a traceback."""
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, errors="replace")
    except OSError as error:
        made.error(f"{option} {command[0]}: {error.strerror}")
    if done.returncode:
        said = done.stderr.strip().splitlines()[-1:]
        made.error(f"{option} {command[0]}: `{' '.join(command)}` exited with status {done.returncode}"
                   + "".join(f" ({line})" for line in said))


def _dies_with(parent: int, prctl, signum: int) -> None:
    """Linux: this process gets `signum` when `parent`, its parent, dies, even of kill -9 (the kernel watches
    the thread that started it); at once if the parent is gone already."""
    prctl(interrupts.PR_SET_PDEATHSIG, signum)
    if os.getppid() != parent:
        os.kill(os.getpid(), signum)


def _ends_with(parent: int, prctl):
    """What a command's child runs before it becomes the command (Linux): SIGTERM when the script dies
    (`_dies_with`), so that no run goes on solving for a script that is gone. `run_command` runs in the main
    thread, and `prctl` is looked up before the fork (no import between fork and exec)."""
    def set_up() -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the script's handler, until the exec
        _dies_with(parent, prctl, signal.SIGTERM)
    return set_up


def run_command(command: list[str], stdout=None, stderr=None, group: bool = False) -> int:
    """Run `command` (one of the package's, which stops cleanly on a signal) to its end; its exit status.

    The command runs in a session of its own, so that a signal meant for the script (Ctrl-C, SIGTERM to
    the script's process or process group, or its terminal's hang-up, which would not reach it) reaches
    it exactly once, forwarded from here (SIGINT for Ctrl-C, else SIGTERM): it then stops as it does on
    its own (a run records what it solved) before the script goes on stopping. With `group`, it goes to
    the command's whole process group: a command that does not pass it on (a C compiler's driver left its
    cc1 compiling on, orphaned). A script killed outright (kill -9, out of memory) cannot forward
    anything: on Linux the command then gets SIGTERM from the kernel (`_ends_with`).
    """
    preexec = None
    if sys.platform.startswith("linux"):
        import ctypes

        preexec = _ends_with(os.getpid(), ctypes.CDLL(None).prctl)
    with interrupts.recorded():  # raised inside Popen, the command would run on, neither stopped nor waited for
        child = subprocess.Popen(command, stdout=stdout, stderr=stderr, start_new_session=True, preexec_fn=preexec)
    try:
        return _waited(child)
    except Interrupted as stop:
        forwarded = signal.SIGINT if stop.signum == signal.SIGINT else signal.SIGTERM
        with interrupts.recorded():  # a second signal must not cut the wait short
            with contextlib.suppress(ProcessLookupError):  # (a group whose processes all ended meanwhile)
                os.killpg(child.pid, forwarded) if group else child.send_signal(forwarded)
            child.wait()
        raise


def _waited(child: subprocess.Popen) -> int:
    """`child`'s exit status, waited for in steps (`polled`). Where there are pidfds (Linux), a step ends
    as soon as the child does: a benchmark's wall time is not late by a poll's sleep."""
    try:
        ended = os.pidfd_open(child.pid)
    except (AttributeError, OSError):  # not Linux, or a kernel without them
        ended = None

    def step() -> int | None:
        if ended is not None:
            select.select([ended], [], [], POLL_SECONDS)
        try:
            return child.wait(timeout=0 if ended is not None else POLL_SECONDS)
        except subprocess.TimeoutExpired:
            return None
    try:
        return polled(step)
    finally:
        if ended is not None:
            os.close(ended)


POLL_SECONDS = 0.5
"""The longest step of a script's wait for its workers or a command (`polled`): how late a signal may be seen."""

Value = TypeVar("Value")


def polled(step: Callable[[], Value | None]) -> Value:
    """What `step`, a wait of at most POLL_SECONDS, gives once it gives something other than None. A signal
    is only recorded within a step and raised between steps: raised inside a wait on a thread's lock (a
    pool's result, `Popen.wait`'s own lock), it could leave that lock released twice or held for good,
    and the script's clean-up then failed or waited forever; and one that another thread took, which does
    not wake the main thread's wait, is seen at the next step."""
    while True:
        with interrupts.deferred():
            value = step()
        if value is not None:
            return value


def die_saying(stop: Interrupted, line: str) -> NoReturn:
    """End a script that `stop` (Ctrl-C, SIGTERM, a hang-up) interrupted: `line` on stderr, then die of the
    signal, as a shell's loop over scripts expects. A second signal meanwhile is let pass (GNU timeout
    signals the script, then its group: it cut the line short with a traceback), a third ends it at once
    (a line that hangs on a stalled terminal)."""
    interrupts.die_of_signal_at_exit(stop.signum)
    interrupts.seal_status(128 + stop.signum, let_pass=1)
    try:  # a hang-up may have taken the terminal with it
        print(line, file=sys.stderr)
        sys.stdout.flush()
    except (OSError, StdoutFailed):
        pass
    die_of(stop.signum)
    sys.exit(128 + stop.signum)  # (Windows: no status for a signal)


def run_script(main, interrupted: str | None = None) -> None:
    """Run a script's `main` as the package's commands end: Ctrl-C, SIGTERM or a hang-up with one line (its
    temporary files removed, a command it runs stopped), dying of the signal (a shell's loop stops); a
    reader gone early (`| head`) quietly with 141; standard output that cannot be written (a full disk)
    with one line and 1; so too a file that cannot be written once the work is done (a full disk: what
    it replaces is left whole). Each was a traceback, or (SIGTERM, a hang-up) left them behind.
    `interrupted`: the line a signal ends it with, if the script has more to say than that."""
    name = Path(sys.argv[0]).name
    if sys.stdout is None:
        sys.exit(f"{name}: standard output is closed")
    take_stdout()  # its write errors are standard output's, and no partial write is lost unsaid
    try:
        try:
            with interrupts.unwrapped():
                interrupts.ready()  # one that came while the script loaded stops it here
                status = main()
                interrupts.check()  # and one that a wait only recorded, if nothing looked since
        finally:
            sys.stdout.flush()
    except Interrupted as stop:
        die_saying(stop, interrupted or f"{name}: interrupted" + (f" by {signal.Signals(stop.signum).name}"
                                                                  if stop.signum != signal.SIGINT else ""))
    except StdoutFailed as error:
        if error.errno != errno.EPIPE:
            print(f"{name}: cannot write to standard output: {error}", file=sys.stderr)
        discard_stdout()
        sys.exit(EXIT_BROKEN_PIPE if error.errno == errno.EPIPE else 1)
    except OSError as error:
        sys.exit(f"{name}: {error.strerror or error}" + (f": {os.fsdecode(error.filename)}"
                                                         if error.filename is not None else ""))
    sys.exit(status)


def script_worker() -> None:
    """A worker process's initializer: Ctrl-C and a hang-up reach the whole process group, and the script
    that started the worker ends it (`interrupts.leave_ctrl_c_to_parent`: a KeyboardInterrupt of the
    worker's own would be a traceback); SIGTERM kills it; and it dies with the script
    (`interrupts.exit_with_parent`, as a run's workers do): a script killed outright (kill -9) left its
    workers solving on, holding its output pipes open."""
    _testhooks.pause("script-worker-start")
    interrupts.leave_ctrl_c_to_parent()
    interrupts.exit_with_parent()


def _each(function: Callable, items: list) -> list:
    return [function(item) for item in items]


def pool_map(function: Callable, items, workers: int, chunksize: int = 1) -> list:
    """`[function(item) for item in items]`, computed by `workers` worker processes (`script_worker`) in
    chunks of `chunksize`, waited for in steps (`polled`). A signal, or an exception, stops the workers at
    once (their work is lost); so does a signal while they shut down; a worker that dies ends the script
    in one line. Not multiprocessing's Pool: a SIGTERM to the script's process group (GNU timeout, a
    service manager) killed a worker that waited for work holding the pool's lock, and the pool's clean-up
    then waited for that lock forever."""
    items, pool, stopped = list(items), None, False
    chunks = [items[i:i + chunksize] for i in range(0, len(items), chunksize)]
    others = set(multiprocessing.active_children())
    try:
        with interrupts.starting_workers():  # a signal meanwhile would leave a worker half started
            pool = futures.ProcessPoolExecutor(max(1, min(workers, len(chunks))),  # (none idle from the start)
                                               mp_context=multiprocessing.get_context(), initializer=script_worker)
            pending = [pool.submit(_each, function, chunk) for chunk in chunks]  # (forking, the first starts all)
        polled(lambda: None if futures.wait(pending, timeout=POLL_SECONDS).not_done else True)
        results = [value for chunk in pending for value in chunk.result()]
    except futures.process.BrokenProcessPool:  # (multiprocessing's Pool started another and waited forever)
        interrupts.check()  # (a SIGTERM to the group kills the workers too: the script stops for the signal)
        sys.exit(f"{Path(sys.argv[0]).name}: a worker process died (killed, or out of memory?)")
    except BaseException:
        stopped = True
        raise
    finally:
        # After a signal or an exception the workers are killed, not waited for (the shutdown waited for
        # every chunk running); a signal while they shut down is raised once they have (only recorded there,
        # the script went on, wrote its files and exited 0).
        if pool is not None:
            with interrupts.deferred():
                if stopped or interrupts.received() is not None:
                    from blackhole_stats.runner import kill_workers  # (only when stopping: runner loads pyarrow)
                    kill_workers(set(multiprocessing.active_children()) - others)
                _testhooks.pause("pool-shutdown")
                pool.shutdown(cancel_futures=True)
    return results


class CompileFailed(Exception):
    """A compiler refused `_core.c`; the exception's text is what it said."""


def compiled(command: list[str], folder: Path) -> None:
    """Run a C compiler's `command` to its end (CompileFailed if it fails), its output kept in `folder`. A
    signal reaches the compiler's whole process group (`run_command`): to its driver alone, the driver
    died and its cc1 compiled on, orphaned."""
    said = folder / "compiler.log"
    with said.open("w") as log:
        status = run_command(command, stdout=log, stderr=subprocess.STDOUT, group=True)
    if status:
        raise CompileFailed(said.read_text(errors="replace"))


def built_core(compiler: list[str], flags: list[str], source: Path, folder: Path):
    """The solver's core compiled from `source` into `folder` and loaded as a module of its own, beside
    the installed one (scripts that compare builds)."""
    target = folder / f"_core{sysconfig.get_config_var('EXT_SUFFIX')}"
    compiled([*compiler, *flags, "-fPIC", "-shared", f"-I{sysconfig.get_paths()['include']}", "-o", str(target),
              str(source)], folder)
    loader = importlib.machinery.ExtensionFileLoader("blackhole_stats._core", str(target))
    module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(
        "blackhole_stats._core", target, loader=loader))
    loader.exec_module(module)
    return module


def load_average() -> float | None:
    """The 1-minute load average as the measurement starts (None where the platform has none)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def shown_load(load: float | None) -> str:
    return f"load average {load:.1f} at the start" if load is not None else "load average unknown"


def spread(values: list[float]) -> dict[str, float]:
    """A measurement's median and range, as a summary keeps it."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def write_summary(path: Path | None, script: str, options: list[str], load: float | None, **figures) -> None:
    """Write the figures (if --summary asked) with the command that reproduces them, the load they met and the
    machine they were measured on (this project's machines have changed under it: AMD, then Intel)."""
    if path is None:
        return
    from blackhole_stats.runner import machine  # here: pyarrow and the rest of a run are no other script's cost

    command = " ".join(["python", f"scripts/{script}", *options])
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_text(path, json.dumps({"command": command, "load_average": load, "machine": machine(), **figures},
                                  indent=2) + "\n")
    print(f"summary written to {path}")
