"""Parallel, resumable runs: chunks of deals solved in worker processes or on a Dask cluster.

Each worker deals, solves and writes a whole chunk itself (`solve_chunk`), so
only a few numbers per chunk cross a process boundary. The parent hands out a
few chunks at a time, shows progress and keeps the manifest; on SIGINT or
SIGTERM it stops the workers and keeps every finished chunk, and running the
same command again solves only what is missing. Workers die with the parent
(so that a `kill -9` of it leaves no orphan holding the directory lock), and a
full disk ends the run with OSError, logging failures never print anything.
Workers never write the log: a chunk's log records come back with it, and
the run writes them, so local workers may be forked, spawned or started by a
fork server (the platform's default), and Dask workers may run anywhere.
"""
from __future__ import annotations

import contextlib
import dataclasses
import errno
import functools
import logging
import multiprocessing
import os
import platform
import signal
import socket
import stat
import sys
import threading
import time
import uuid
from concurrent import futures
from contextlib import closing, contextmanager
from dataclasses import dataclass
from logging.handlers import QueueHandler
from types import SimpleNamespace
from typing import Callable, Iterator

import pyarrow as pa
from tqdm import tqdm

from . import _testhooks, dataset, difficulty, interrupts
from ._version import __version__
from .arguments import seconds, whole_number
from .dealing import GameNumber, deal
from .deals import DealSet
from .games import DEFAULT_GAME, Game, game_by_key, get_game
from .solver import OUTCOMES, Solver, check_max_iters, check_search, iterations_revision

log = logging.getLogger(__name__)

DEFAULT_CHUNK_SIZE = 1000
"""Deals per task and per Parquet file: a few seconds of work, so little is lost to a kill."""
MIN_CHUNKS_PER_WORKER = 4
"""Without --chunk-size, chunks shrink so that a small run still gives every worker this many."""
DEFAULT_FILES = 1000
"""Without --chunk-size, chunks grow so that a run of more than a million deals writes about this
many files: each file costs every reader 0.4-2 ms to open (scripts/simulate_scale.py)."""
MAX_DEFAULT_CHUNK_SIZE = 100_000
"""The largest chunk chosen for a user: about a minute of one core, the most a kill loses per worker."""
SLOW_DEAL_SECONDS = 10.0
"""Deals that take longer are named in the log."""
CHUNKS_PER_WORKER = 2
"""Chunks handed out ahead per worker: enough to keep workers busy, few to lose or wait for."""
MAX_WORKERS = 2 * (os.cpu_count() or 1)
"""More worker processes than this only cost memory (each Solver holds 69 MiB): --workers is capped."""
WAIT_FOR_WORKERS_SECONDS = 60.0
"""How long a run waits for a first worker to join a Dask cluster that has none."""
POLL_SECONDS = 1.0
"""How often waits look up: the run for a swallowed signal, workers for their parent or a stop."""
SCHEDULER_SECONDS = 10.0
"""How long a Dask scheduler has to answer, and a Client to connect to it."""
STOP_SECONDS = 30.0
"""How long a stopped run waits for the chunks running on a Dask cluster to stop (each stops at its next
deal; one still running after it is dropped once a resume begins: `ChunkTask.run_mark`)."""
SILENT_WORKER_SECONDS = 30.0
"""How long a Dask worker may go unheard (no heartbeat reaching the scheduler, every few seconds at most)
before a stalled run names it: the scheduler itself waits minutes (its worker-ttl) before giving up on it."""
KILLED_WORKER_SECONDS = 10.0
"""How long a run waits for a worker it killed to be gone (a moment; a safety net for one stuck in the kernel)."""

_worker = threading.local()  # a Solver per thread: Dask runs several threads per process


@dataclass(frozen=True)
class ChunkTask:
    """What a worker needs to solve and write one chunk."""

    deals: DealSet
    out: str
    search: str
    max_iters: int | None
    difficulty_scale: str | None = None
    """The scale of `run --difficulty` (then each solved deal gets its score and tag), or None."""
    game: str = DEFAULT_GAME.key
    """The key of the game dealt (a plain string crosses process and machine boundaries as itself)."""
    folders: dataset.Folders = ()
    """The run's folders as it locked them, the only ones its chunks may go into (`dataset.write_part`);
    empty where workers may run on other machines (Dask), whose devices differ."""
    iterations_revision: int = 1
    """How the run's rows count iterations: a worker of a version that counts otherwise (another
    machine's install) refuses the chunk rather than mix two countings in one dataset."""
    run_mark: tuple[str | None, int] | None = None
    """The manifest's `run_mark` as the run that handed the chunk out left it, on a Dask cluster: a worker
    that outlives its run (cut off from a lost scheduler, or left running by a kill -9) drops the chunk
    once a later run of DIR has begun, which may solve its deals again (`dataset.run_mark_now`). (A local
    worker dies with its run.)"""


@dataclass(frozen=True)
class ChunkResult:
    """What comes back: a few numbers and the chunk's log lines; the rows are already on disk."""

    file: str
    outcomes: tuple[int, ...]  # how many deals were solved / unsolved / intractable
    solver_seconds: float
    log_records: tuple[logging.LogRecord, ...] = ()  # see _solve_logged


@dataclass(frozen=True)
class RunSummary:
    """One session of a run: what it asked for, found done, and solved."""

    out: str
    requested: int
    already_done: int
    outcomes: tuple[int, ...]  # deals solved now, per outcome
    seconds: float
    solver_seconds: float
    workers: int

    @property
    def solved_now(self) -> int:
        return sum(self.outcomes)


class DealError(RuntimeError):
    """Solving one deal raised; the message names the deal."""


class RunError(Exception):
    """A run that cannot start or did not finish; the message says why."""


class RunStopped(RunError):
    """Interrupted (`signum` set) or a chunk failed; finished chunks are kept, rerunning resumes.

    `done` and `total` are None when the run stopped before it knew them.
    """

    def __init__(self, reason: str, done: int | None = None, total: int | None = None,
                 signum: int | None = None) -> None:
        super().__init__(reason if total is None else f"{reason}: {done:,} of {total:,} deals done")
        self.reason, self.done, self.total, self.signum = reason, done, total, signum


def solve_chunk(task: ChunkTask, stopped: Callable[[], bool] | None = None) -> ChunkResult | None:
    """Deal, solve and write one chunk: the unit of work of both backends.

    Returns None, having written nothing, if `stopped()` says so before a deal, or if a later run of DIR
    has begun by the time the chunk starts or is written (`ChunkTask.run_mark`).
    """
    solver = getattr(_worker, "solver", None)
    if solver is None:
        solver = _worker.solver = Solver()
        log.info("solver tables: %.0f MiB, reused for every deal", solver.memory_bytes / 2**20)
    log.info("chunk %s: started", task.deals)
    scale = None if task.difficulty_scale is None else difficulty.scale(task.difficulty_scale)
    kind = game_by_key(task.game)
    counted = iterations_revision(task.search, kind)
    if counted != task.iterations_revision:
        raise RunError(f"this worker's blackhole-stats ({__version__}) counts {kind.name}'s iterations as revision "
                       f"{counted}, the run's rows as revision {task.iterations_revision}: give every worker the "
                       "version that started the run")
    if _superseded(task):  # (and DatasetError before anything is solved or made, for a worker without DIR.run)
        log.warning("chunk %s: dropped, a later run of %s has begun", task.deals, task.out)
        return None
    rows = []
    for ms, first, last in task.deals.runs:
        for number in range(first, last + 1):
            if stopped is not None and stopped():
                log.info("chunk %s: dropped, the run was stopped (or a later run of %s began)", task.deals, task.out)
                return None
            game = GameNumber(number, ms)
            _testhooks.pause(f"deal-{game}")
            try:
                row = solver.solve_deal(game, task.search, task.max_iters, kind)
                if scale is not None:
                    row["difficulty"] = score = (difficulty.difficulty(deal(game, kind), solver)
                                                 if row["outcome"] == "solved" else None)
                    row["tag"] = None if score is None else difficulty.TAGS.index(scale.tag(score))
            except Exception as error:
                raise DealError(f"deal {game}: {type(error).__name__}: {error}") from error
            if row["seconds"] > SLOW_DEAL_SECONDS:
                log.info("deal %s: slow, %.1f s, %s", game, row["seconds"], row["outcome"])
            rows.append(row)
    fields = dataset.ROW_FIELDS + (("difficulty", "tag") if scale is not None else ())
    columns = {name: [row[name] for row in rows] for name in fields}
    columns["outcome"] = [OUTCOMES.index(outcome) for outcome in columns["outcome"]]
    settings = dataset.run_settings(task.game, task.search, task.max_iters, task.iterations_revision,
                                    task.difficulty_scale)
    name = dataset.write_part(task.out, task.deals, columns, kind, task.folders, settings,
                              lambda: not _superseded(task))
    if name is None:
        log.warning("chunk %s: dropped, a later run of %s has begun", task.deals, task.out)
        return None
    outcomes = tuple(columns["outcome"].count(index) for index in range(len(OUTCOMES)))
    return ChunkResult(name, outcomes, sum(columns["seconds"]))


def _superseded(task: ChunkTask) -> bool:
    """Whether a later run of DIR has begun since the one that handed out `task` (`ChunkTask.run_mark`)."""
    return task.run_mark is not None and dataset.run_mark_now(task.out) != task.run_mark


WORKER_LOG = "worker_log"
"""The attribute of an exception from `_solve_logged` that holds its chunk's log records."""


def _solve_logged(task: ChunkTask, stopped: Callable[[], bool] | None = None,
                  worker: str | None = None) -> ChunkResult | None:
    """`solve_chunk` in a worker; its log records travel back with its result or its exception.

    The run writes them to DIR.run/run.log (`_write_worker_log`): no worker opens
    the log, so this works however workers start (fork, spawn, forkserver) or
    wherever they run (Dask). `worker` names the worker in the records when
    the process name does not tell workers apart.
    """
    with _chunk_log(worker) as records:
        try:
            result = solve_chunk(task, stopped)
        except Exception as error:
            setattr(error, WORKER_LOG, records)
            raise
    return None if result is None else dataclasses.replace(result, log_records=tuple(records))


@contextmanager
def _chunk_log(worker: str | None) -> Iterator[list[logging.LogRecord]]:
    """The records this thread logs within, as plain text (a Dask worker runs chunks in threads)."""
    records: list[logging.LogRecord] = []
    handler = QueueHandler(SimpleNamespace(put_nowait=records.append))  # prepare(): message, traceback as text
    thread = threading.get_ident()

    def this_thread(record: logging.LogRecord) -> bool:
        if record.thread != thread:
            return False
        if worker is not None:
            record.processName = worker
        return True

    handler.addFilter(this_thread)
    log.setLevel(logging.INFO)  # for good: resetting it could silence another thread's chunk
    log.addHandler(handler)
    try:
        yield records
    finally:
        log.removeHandler(handler)


def _write_worker_log(records) -> None:
    """A chunk's log records, to the run's handlers (DIR.run/run.log; warnings also to stderr)."""
    for record in records:
        log.handle(record)


_one_run = threading.Lock()
"""Held by the run going on in this process, if any."""


def _session(run_function: Callable[..., RunSummary]) -> Callable[..., RunSummary]:
    """What surrounds a whole run: one at a time in a process, signals raise from its first instant,
    warnings reach stderr, and a signal always ends it with RunStopped, even one whose exception some
    code swallowed."""
    @functools.wraps(run_function)
    def run_session(*args, **kwargs) -> RunSummary:
        if not _one_run.acquire(blocking=False):  # (two runs' aborts killed each other's workers)
            raise RunError("another run is going on in this process: a run's log and worker processes are "
                           "its process's, so start this one in another process, or when that one ends")
        try:
            return _run_session(*args, **kwargs)
        finally:
            _one_run.release()

    def _run_session(*args, **kwargs) -> RunSummary:
        with interrupts.raised(), _warnings_to_stderr():
            try:
                summary = run_function(*args, **kwargs)
            except interrupts.Interrupted as interrupt:
                raise RunStopped("interrupted", signum=interrupt.signum) from None
            signum = interrupts.received()
            if signum is not None:
                raise RunStopped("interrupted", summary.already_done + summary.solved_now,
                                 summary.requested, signum)
            return summary
    return run_session


@_session
def run(out: str, deals: DealSet | None = None, *, search: str = "fast", max_iters: int | None = None,
        difficulty_scale: str | None = None, game: Game | str | int | None = None,
        workers: int | None = None, chunk_size: int | None = None,
        scheduler: str | None = None, progress: bool = False, wait_for_workers: float | None = None,
        forget_missing: bool = False) -> RunSummary:
    """Solve every deal of the run in `out`, `deals` added to it (None: none), that it does not hold yet.

    Deals an earlier, interrupted session asked for are solved too, whatever
    `deals` says: a finished run is one that holds every deal it asks for.

    `difficulty_scale` (a name in `difficulty.SCALES`, or None) adds each solved deal's
    difficulty and tag; a run keeps the setting it was made with.
    `game` (a Game, key, PySolFC id or name; None: the run's own, Black Hole for a new run)
    is the game dealt and solved; a run keeps the game it was made with.
    `deals`: a DealSet, or text that `DealSet.parse` reads ("1-1000,ms5").
    `chunk_size` None: `default_chunk_size`. `workers` (None: one a core) is capped at MAX_WORKERS.
    `wait_for_workers`: seconds to wait for a Dask cluster that has no worker yet
    (None: WAIT_FOR_WORKERS_SECONDS). `forget_missing`: the run no longer asks for the deals it
    does not hold yet, only for `deals` besides (a mistyped range). One run at a time in a process: its
    log and workers are the process's.
    Raises TypeError or ValueError for arguments of the wrong kind or out of range (a max_iters outside
    1..MAX_ITERS, a chunk_size or workers below 1, an unknown search, scale or game, a scale of
    another game than the run's (DifficultyError), the classic search of a game it does not
    play), all before anything is written; DatasetError for a
    directory that does not fit (RunMoved: its folders were moved or deleted meanwhile), RunError if the Dask scheduler is unusable, RunStopped after SIGINT/SIGTERM (at any moment)
    or a failed chunk, and OSError with an errno in dataset.DISK_FULL or READ_ONLY when the disk is
    full or read-only (finished chunks are kept in every case; the same call resumes).
    """
    max_iters = check_max_iters(max_iters)  # an int (numpy's is no JSON for the manifest); 2^63 would wrap
    workers, chunk_size = (None if value is None else whole_number(name, value, 1)
                           for name, value in (("workers", workers), ("chunk_size", chunk_size)))
    wait_for_workers = None if wait_for_workers is None else seconds("wait_for_workers", wait_for_workers)
    if isinstance(deals, str):
        deals = DealSet.parse(deals)
    elif deals is not None and not isinstance(deals, DealSet):
        raise TypeError(f"deals must be a DealSet, text such as '1-1000', or None, not {type(deals).__name__}")
    if not scheduler and multiprocessing.current_process().daemon:
        raise RunError("run starts worker processes, which a daemonic process (a multiprocessing pool's "
                       "worker) may not: call it from a main process, or give a Dask scheduler")
    game = None if game is None else get_game(game)
    check_search(search, game or DEFAULT_GAME)  # before anything is written (resuming: open_run checks search)
    out = dataset.locate(out)
    if difficulty_scale is not None:  # unknown, or another game's: DifficultyError before anything is written
        difficulty.scale_for(difficulty_scale, game or dataset.game_of_run(out))
    backend = _Cluster(scheduler, wait_for_workers) if scheduler else _Processes(workers or os.cpu_count() or 1)
    with closing(backend), dataset.open_run(out, deals, search, max_iters, difficulty_scale, game,
                                            forget_missing) as session:
        requested, game = session.requested, session.game
        started = time.monotonic()
        with _logging_to(out):
            if session.forgotten:
                log.warning("the run no longer asks for the %s deal(s) it did not hold: %s (--forget-missing)",
                            f"{session.forgotten.count:,}", session.forgotten.abbreviated())
            removed = dataset.remove_temp_files(out)
            todo = requested - session.done
            if chunk_size is None:
                chunk_size = default_chunk_size(todo.count, backend.workers)
            if todo:  # a session that solves nothing leaves the record of the ones that did
                session.begin_solving(workers=backend.workers, scheduler=scheduler, machine=machine(),
                                      chunk_size=chunk_size)
            log.info("run started: %s deals of %s asked, %s to solve, workers=%s, search=%s, max_iters=%s; "
                     "%s unfinished files removed", requested.count, game.key, todo.count, backend.workers, search,
                     max_iters, removed)
            folders = session.folders if isinstance(backend, _Processes) else ()
            counted = dataset.manifest_iterations_revision(session.manifest)
            mark = None if isinstance(backend, _Processes) else dataset.run_mark(session.manifest)
            tasks = (ChunkTask(chunk, out, search, max_iters, difficulty_scale, game.key, folders, counted, mark)
                     for chunk in todo.chunks(chunk_size))
            with tqdm(total=requested.count, initial=requested.count - todo.count, unit="deal",
                      disable=not progress or sys.stderr is None, file=_BarStream(sys.stderr),
                      dynamic_ncols=True) as bar:
                tally = _Tally(bar, out, session.manifest)
                try:
                    signum = _solve(backend, tasks, tally)
                except Exception as error:
                    if not (isinstance(backend, _Cluster) and backend.lost()):
                        raise
                    log.error("lost the Dask scheduler at %s: %s: %s", scheduler, type(error).__name__,
                              dataset.first_line(error), extra=_LOG_FILE_ONLY)
                    raise RunStopped(f"{backend.lost_reason()}; the finished chunks are kept") from None
                except interrupts.Interrupted as interrupt:  # a second signal cut _solve's clean-up short: stop
                    signum = interrupts.first_signal(interrupt.signum)  # the workers it may have left running (they
                    with interrupts.recorded():  # went on writing chunks as the session was recorded), then record it
                        backend.abort([])

            elapsed = time.monotonic() - started
            try:
                with interrupts.deferred():  # a signal now would lose the session's record: it waits for it
                    _testhooks.pause("session-ending")
                    done = session.read_done()
                    if todo:
                        session.end_solving(elapsed, done, workers=backend.workers_used)
            except interrupts.Interrupted as interrupt:  # raised as the block ends: the first signal, as above
                signum = interrupt.signum
            except dataset.RunMoved as moved:  # nowhere to record the session; a signal, even one the block
                signum = interrupts.first_signal(signum)  # deferred, still decides, and says so
                if signum is None:
                    raise
                raise RunStopped(f"interrupted; {moved}", signum=signum) from None
            except dataset.DatasetError as error:  # what DIR holds now (a part copied in that repeats deals)
                log.error("reading %s back as the run ended: %s", out, error, extra=_LOG_FILE_ONLY)
                if todo:  # its record, unfinished: the deals its chunks solved
                    with interrupts.deferred():
                        session.end_solving(elapsed, None, solved=sum(tally.outcomes), workers=backend.workers_used)
                signum = interrupts.first_signal(signum)  # one the block deferred still decides, as above
                raise RunStopped(f"interrupted; {error}" if signum else str(error), signum=signum) from None
            done_count = requested.count - (requested - done).count
            if signum is not None:  # (the log said so only for one that came while chunks were solved)
                log.info("run interrupted by %s: %s of %s deals done", signal.Signals(signum).name, done_count,
                         requested.count)
                raise RunStopped("interrupted", done_count, requested.count, signum)
            if tally.failed_chunks:
                raise RunStopped(f"{tally.failed_chunks} failed chunk(s) ({tally.failures_text()})",
                                 done_count, requested.count)
            if requested - done:  # every chunk landed, yet DIR lacks some: not a finished run
                vanished = (f"deals {requested - done} are not in {out}, though the run wrote them: their chunk "
                            "files were deleted or moved away meanwhile")
                log.error("%s", vanished, extra=_LOG_FILE_ONLY)
                raise RunStopped(vanished, done_count, requested.count)
            strays = dataset.list_run(out).strays  # put there while it wrote: readers count them
            if strays:
                problem = dataset.strays_problem(out, strays)
                log.error("%s", problem, extra=_LOG_FILE_ONLY)
                raise RunError(f"the run is complete, but {problem}")
            log.info("run finished: %s deals solved in %.1f s", sum(tally.outcomes), elapsed)
    return RunSummary(out, requested.count, requested.count - todo.count, tuple(tally.outcomes),
                      elapsed, tally.solver_seconds, backend.workers_used)


def default_chunk_size(deals: int, workers: int) -> int:
    """DEFAULT_CHUNK_SIZE; larger for big runs (about DEFAULT_FILES files), smaller for small ones."""
    for_few_files = min(MAX_DEFAULT_CHUNK_SIZE, max(DEFAULT_CHUNK_SIZE, -(-deals // DEFAULT_FILES)))
    for_every_worker = -(-deals // (MIN_CHUNKS_PER_WORKER * workers))
    return max(1, min(for_few_files, for_every_worker))


def _solve(backend: _Processes | _Cluster, tasks: Iterator[ChunkTask], tally: _Tally) -> int | None:
    """Run the tasks into `tally`; returns the signal that interrupted them, if one did.

    Whatever stops them (a signal, a full disk), the chunks in flight are stopped
    too before this returns, so that none lands after the run has ended.
    """
    pending: dict = {}
    try:
        _dispatch(backend, tasks, pending, tally)
        _testhooks.pause("chunks-done")
    except BaseException as error:
        # A second signal can cut the library code handling the first in two, and that code then fails
        # in its own way ("release unlocked lock" from futures.wait): raised while handling one, it is the
        # signal's (and said in the log).
        interrupt = interrupts.cause(error)
        if interrupt is None:
            backend.abort(list(pending))
            raise
        failed = "" if error is interrupt else f" (what it cut short failed: {type(error).__name__}: {error})"
        log.warning("interrupted by %s: stopping the workers%s", signal.Signals(interrupt.signum).name, failed)
        _testhooks.pause("workers-stopping")
        backend.abort(list(pending))
        return interrupt.signum
    return None


def _dispatch(backend: _Processes | _Cluster, tasks: Iterator[ChunkTask], pending: dict,
              tally: _Tally) -> None:
    """Keep a few chunks per worker in flight until all are done or a worker is lost."""
    window = CHUNKS_PER_WORKER * max(backend.workers, 1)
    healthy = True
    while True:
        interrupts.check()  # a Ctrl-C that landed where it was swallowed (see interrupts) stops here
        while healthy and len(pending) < window and (task := next(tasks, None)) is not None:
            pending[backend.submit(task)] = task.deals
        if not pending:
            return
        for future, outcome in backend.wait(list(pending)).items():
            healthy &= tally.add(pending.pop(future), outcome)


class _Tally:
    """What the finished chunks of a session add up to, shown on the progress bar."""

    def __init__(self, bar: tqdm, out: str, manifest: dict) -> None:
        self.bar = bar
        self.out, self.manifest = out, manifest  # the run's: each chunk file written must record its settings
        self.outcomes = [0] * len(OUTCOMES)
        self.solver_seconds = 0.0
        self.failed_chunks = 0
        self.failures: list[str] = []  # a deal each, named by its error
        self.broken: dict[str, DealSet] = {}  # the chunks lost with their worker (or pool), by cause

    def failures_text(self) -> str:
        """What failed, each cause once (every chunk in flight fails alike when a worker or the pool is lost)."""
        return "; ".join([*self.failures, *(f"deals {deals}: {cause}" for cause, deals in self.broken.items())])

    def add(self, deals: DealSet, future) -> bool:
        """Count one finished chunk; False if it failed in a way that should stop the run.

        A full disk raises its OSError: the run stops at once and says so in one line.
        """
        _testhooks.pause("chunk-tally")
        try:
            result = future.result()
        except Exception as error:
            _write_worker_log(getattr(error, WORKER_LOG, ()))
            return self._failed(deals, error)
        if result is None:  # dropped by its worker: only another run of DIR meanwhile makes one do that
            return self._failed(deals, RunError(f"a worker dropped the chunk: another run of {self.out} began "
                                                "meanwhile (on another machine?), or the worker sees another "
                                                f"{self.out}.run at that path"))
        _write_worker_log(result.log_records)
        try:
            problem = dataset.check_new_part(self.out, result.file, self.manifest)
        except FileNotFoundError:  # every chunk would be solved onto a disk the run never reads
            return self._failed(deals, RunError(
                f"{result.file}, just written by a worker, is not in {self.out}: a Dask worker must see the run's "
                "folder at the same path on the same disk (a shared file system), or something moved it away"))
        except (OSError, pa.ArrowException) as error:  # the file stays: verify reads it later
            log.warning("chunk %s: %s could not be read back to check its settings (%s): not deleted", deals,
                        result.file, dataset.first_line(error))
            problem = None
        if problem is not None:  # a worker of another build: its rows would count otherwise
            return self._failed(deals, RunError(problem))
        log.info("chunk %s: wrote %s (%s)", deals, result.file,
                 ", ".join(f"{count} {outcome}" for count, outcome in zip(result.outcomes, OUTCOMES)))
        self.outcomes = [total + new for total, new in zip(self.outcomes, result.outcomes)]
        self.solver_seconds += result.solver_seconds
        self.bar.set_postfix(solved=self.outcomes[0], refresh=False)  # before update(), which may redraw
        self.bar.update(sum(result.outcomes))
        return True

    def _failed(self, deals: DealSet, error: Exception) -> bool:
        """Log a failed chunk; False if the next chunk would fail too. A full disk, or the run's
        folders moved away, raises."""
        if isinstance(error, DealError):
            log.error("chunk %s failed: %s", deals, error, exc_info=error)
            self.failed_chunks += 1
            self.failures.append(str(error))
            return True
        if isinstance(error, OSError) and error.errno in dataset.DISK_FULL | dataset.READ_ONLY or isinstance(
                error, dataset.RunMoved):
            log.error("chunk %s failed: %s", deals, error, extra=_LOG_FILE_ONLY)
            raise error
        # a lost worker, an I/O error: the next chunk would fail too
        if isinstance(error, futures.process.BrokenProcessPool):  # which chunk its worker held, it does not say
            cause = "a worker process died (killed, or out of memory?): every chunk in flight failed with it"
            log.error("chunk %s failed: %s", deals, cause, exc_info=error)
        else:
            log.error("chunk %s failed: %s: %s", deals, type(error).__name__, error, exc_info=error)
            said = isinstance(error, (MemoryError, RunError, dataset.DatasetError)) or isinstance(
                error, RuntimeError) and not isinstance(error, futures.BrokenExecutor)  # a broken pool's text is long
            cause = type(error).__name__ + (f": {error}" if said and str(error) else "")
        self.failed_chunks += 1
        self.broken[cause] = self.broken.get(cause, DealSet()) | deals
        return False


def kill_workers(workers: set) -> None:
    """Kill worker processes and return once they are gone (a kill takes a moment to land on a busy
    machine): not SIGTERM, which a worker just forked still handles with its parent's Python handler."""
    for process in workers:
        process.kill()
    for process in workers:
        process.join(KILLED_WORKER_SECONDS)


def _failed_future(error: BaseException) -> futures.Future:
    future: futures.Future = futures.Future()
    future.set_exception(error)
    return future


class _Processes:
    """Local worker processes, started the platform's default way (fork, spawn or forkserver)."""

    def __init__(self, workers: int) -> None:
        if workers > MAX_WORKERS:
            log.warning("--workers %d: capped at %d, twice the cores (more only cost memory)",
                        workers, MAX_WORKERS)
        self.workers = self.workers_used = min(workers, MAX_WORKERS)
        self._others = set(multiprocessing.active_children())
        self._thread_failure: RuntimeError | None = None
        try:
            with interrupts.starting_workers():  # its queues may start multiprocessing's resource tracker, which
                self._pool = futures.ProcessPoolExecutor(  # ignores Ctrl-C and SIGTERM but died of a hang-up
                    self.workers, mp_context=multiprocessing.get_context(), initializer=_worker_init)
        except OSError as error:  # its locks live in /dev/shm: read-only or full, it was blamed on DIR
            where = (" (their locks need a writable /dev/shm with room)"
                     if error.errno in (errno.EROFS, errno.ENOSPC, errno.EACCES) else "")
            raise RunError(f"cannot start the worker processes: {error.strerror or error}{where}") from None
        self._excepthook = threading.excepthook  # once the pool stands: close() puts it back
        threading.excepthook = self._thread_died

    def submit(self, task: ChunkTask) -> futures.Future:
        try:
            with interrupts.starting_workers():  # submit() starts the workers (all at once when forking)
                return self._pool.submit(_solve_logged, task)
        except futures.process.BrokenProcessPool as error:  # a worker died since the last wait
            return _failed_future(error)
        except RuntimeError as error:  # its manager thread could not start ("can't start new thread")
            self._thread_failure = RuntimeError(f"the run's worker pool could not start: {error} (are memory or "
                                                "threads limited?)")
            return _failed_future(self._thread_failure)
        except OSError as error:  # a worker could not be forked (`ulimit -u`): "cannot use DIR: [Errno 11] ..."
            self._thread_failure = RuntimeError(f"the run's worker processes could not start: "
                                                f"{error.strerror or error} (are memory or processes limited?)")
            return _failed_future(self._thread_failure)

    def _thread_died(self, args) -> None:
        """The pool's manager thread raised: it hands out no more results (its queue's feeder could not
        start, `can't start new thread` under a memory limit, and the run waited forever), nor completes
        a future again. Its traceback goes to the log; `wait` fails the chunks in flight. Any other
        thread (a notebook's own) goes to the hook there was before."""
        if args.thread is not getattr(self._pool, "_executor_manager_thread", None):
            self._excepthook(args)
            return
        log.error("the worker pool's thread failed: %s: %s", args.exc_type.__name__, args.exc_value,
                  exc_info=(args.exc_type, args.exc_value, args.exc_traceback), extra=_LOG_FILE_ONLY)
        self._thread_failure = RuntimeError(f"the worker pool's thread failed: {args.exc_value} (are memory or "
                                            "threads limited?)")

    def wait(self, pending: list) -> dict:
        """The chunks done by now, or none after POLL_SECONDS; all of them, failed, once a thread died.
        (Each maps to itself: see `_Cluster.wait`.)"""
        try:
            done = futures.wait(pending, timeout=POLL_SECONDS, return_when=futures.FIRST_COMPLETED).done
        except interrupts.Interrupted:  # a second signal here can leave the wait's lock released twice
            _testhooks.fail("pool-wait-cut")
            raise
        if self._thread_failure is None:
            return {future: future for future in done}
        for future in pending:  # the one thread that would complete them is gone
            try:
                future.set_exception(self._thread_failure)
            except futures.InvalidStateError:  # it finished before it died: its result stands
                pass
        return {future: future for future in pending}

    def abort(self, pending: list) -> None:
        """Stop at once: chunks in flight are lost (their temporary files are removed on resume). Returns
        once the workers are gone (a kill takes a moment to land on a busy machine), so that none writes
        while the run records its session."""
        kill_workers(set(multiprocessing.active_children()) - self._others)

    def close(self) -> None:
        """Shut the pool down; after a signal, stop its workers first: a second signal can cut the run's
        `abort` short, and the shutdown then waited for every chunk in flight to finish (a long deal's)."""
        try:
            if self._thread_failure is not None:  # shutdown would tell the workers through the thread that died
                self.abort([])  # (or never started: it raises), and they would wait for work, and the exit for them,
                return  # forever
            if interrupts.received() is not None:
                self.abort([])
            self._pool.shutdown(cancel_futures=True)
        finally:
            threading.excepthook = self._excepthook


class _NoAnswer(TimeoutError):
    """A call that `_within` gave up waiting for (not one that timed out on its own)."""


def _in_thread(call: Callable[[], object]) -> futures.Future:
    """`call` started in a thread of its own; the Future gets what it returns or raises. Waiting on the
    Future can be bounded where the call cannot be (a Dask client's call waits for a frozen scheduler
    forever, deaf to signals); the thread is left to finish, or to end with the process."""
    answered: futures.Future = futures.Future()

    def ask():
        try:
            answered.set_result(call())
        except BaseException as error:  # noqa: BLE001 - handed to the waiting thread
            answered.set_exception(error)

    threading.Thread(target=ask, name="ask-scheduler", daemon=True).start()
    return answered


def _within(seconds: float, call: Callable[[], object]):
    """What `call` returns or raises, or _NoAnswer if it has not returned within `seconds`. (In a thread
    of its own (`_in_thread`) also because a notebook's own event loop runs in this one.)"""
    answered = _in_thread(call)
    futures.wait([answered], timeout=seconds)
    if not answered.done():
        raise _NoAnswer(f"no answer within {seconds:g} s")
    return answered.result()


def _ask_scheduler(distributed, address: str) -> None:
    """Ask what answers at `address` what it is, within SCHEDULER_SECONDS; ValueError unless a Dask scheduler.

    A Client made where something else listens never gives up on a service that says nothing, and
    reads a length of exabytes out of an HTTP server's reply (an 'out of memory' error, then a
    traceback at exit 20 s later): the question goes first, over a connection of our own.
    """
    import asyncio

    async def identity():
        comm = await distributed.comm.connect(address, timeout=SCHEDULER_SECONDS,
                                              **distributed.Security().get_connection_args("client"))
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    try:  # (asyncio's TimeoutError is another class before Python 3.11)
        answer = _within(2 * SCHEDULER_SECONDS, lambda: asyncio.run(asyncio.wait_for(identity(), SCHEDULER_SECONDS)))
    except (TimeoutError, asyncio.TimeoutError) as error:  # connected, and nothing came back
        raise TimeoutError(str(error) or f"no answer within {SCHEDULER_SECONDS:g} s") from None
    except OSError:
        raise
    except MemoryError:  # a length of exabytes, read out of bytes that are no Dask message
        raise ValueError("what answers there is not a Dask scheduler: what it sent is no Dask message") from None
    except Exception as error:  # a tls:// address without its settings, ucx:// without its package, ...
        raise ValueError(f"Dask cannot talk to it: {dataset.first_line(error)} ({type(error).__name__})") from None
    kind = answer.get("type") if isinstance(answer, dict) else None
    if kind != "Scheduler":
        raise ValueError(f"what answers there is not a Dask scheduler (it says it is {kind!r})")


class _Cluster:
    """An existing Dask cluster; its workers write the chunk files themselves."""

    def __init__(self, address: str, wait_for_workers: float | None) -> None:
        if wait_for_workers is None:
            wait_for_workers = WAIT_FOR_WORKERS_SECONDS
        try:
            import distributed
        except ImportError:
            raise RunError("--scheduler needs Dask: pip install 'blackhole-stats[dask]'") from None
        self._distributed = distributed
        try:
            # An address Client cannot parse leaves a half-made Client whose clean-up at exit waits
            # 20 s and prints a traceback: such an address is refused before one is made.
            scheme, _ = distributed.comm.parse_address(address)
            distributed.comm.registry.get_backend(scheme)  # a scheme Dask does not know
            if scheme in ("tcp", "tls", "ws", "wss"):
                try:
                    _, port = distributed.comm.get_address_host_port(address)  # no port: its own words
                except ValueError as error:
                    if "invalid literal for int()" not in str(error):
                        raise
                    port = str(error).rsplit(": ", 1)[-1]  # the text it could not read, quoted
                if not isinstance(port, int) or not 0 < port < 65536:
                    raise ValueError(f"port {port if isinstance(port, str) else repr(str(port))} is not a number "
                                     "from 1 to 65535")
            _ask_scheduler(distributed, address)
            self._client = distributed.Client(address, timeout=SCHEDULER_SECONDS, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            raise RunError(f"cannot use the Dask scheduler at {address}: {error}") from None
        # its errors as it gives up on a scheduler that is gone are tracebacks on stderr: the run says it in one line
        self._client_log = logging.getLogger("distributed.client")
        self._client_log_level = self._client_log.level
        self._client_log.setLevel(logging.CRITICAL)
        self._address, self._gone = address, False
        try:
            self._client.subscribe_topic("all", _log_worker_event)
            if not self._ask(self._client.nthreads):
                log.warning("waiting up to %g s for a first worker to join %s", wait_for_workers, address)
                _testhooks.pause("dask-waiting")
                # asked every POLL_SECONDS, each answer within SCHEDULER_SECONDS: one long wait_for_workers
                # noticed a scheduler frozen meanwhile only once the whole wait was over
                deadline = time.monotonic() + wait_for_workers
                while not self._ask(self._client.nthreads):
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise RunError(f"no worker joined the Dask cluster at {address} "
                                       f"within {wait_for_workers:g} s")
                    time.sleep(min(POLL_SECONDS, left))
            self.workers = sum(self._ask(self._client.nthreads).values())
        except Exception as error:  # killed or frozen as the run began (TimeoutError is an OSError; a client
            if not isinstance(error, OSError) and not self.lost():  # that gave up on it raises its own errors)
                self.close()
                raise
            self.close()
            raise RunError(f"{self.lost_reason()}: {dataset.first_line(error)}") from None
        except BaseException:
            self.close()
            raise
        self._wait_for_workers, self._alone_since = wait_for_workers, None
        self._heard: dict[str, tuple[object, float]] = {}  # a worker's last heartbeat, and when it changed here
        self._silent: set[str] = set()  # the workers named as silent
        self._looked = 0.0  # when the workers were last looked at
        self._ran: set[str] = set()
        self._stop = f"blackhole-stats-stop-{uuid.uuid4().hex}"

    @property
    def workers_used(self) -> int:
        """The Dask workers that wrote a chunk: workers come and go during a run."""
        return len(self._ran)

    def lost(self) -> bool:
        """Whether the client lost its scheduler (killed, its machine gone, or silent for SCHEDULER_SECONDS):
        nothing more can be asked."""
        return self._gone or self._client.status != "running"

    def lost_reason(self) -> str:
        return f"lost the Dask scheduler at {self._address} (killed, not answering, or its machine gone?)"

    def _ask(self, question: Callable[[], object], seconds: float = SCHEDULER_SECONDS):
        """The answer to `question`, a call of the Client that waits for the scheduler; _NoAnswer, and the
        scheduler counts as lost, once it has not answered within `seconds`."""
        try:
            return _within(seconds, question)
        except _NoAnswer:
            self._gone = True
            raise

    def submit(self, task: ChunkTask):
        return self._client.submit(_solve_on_cluster, task, self._stop, pure=False)

    def wait(self, pending: list) -> dict:
        """The chunks done by now, each mapped to a Future that holds its result or error, or none after
        POLL_SECONDS."""
        with self._client.as_current():  # distributed.wait looks for the current client
            try:
                done = self._distributed.wait(pending, timeout=POLL_SECONDS, return_when="FIRST_COMPLETED").done
            except TimeoutError:
                done = set()
        # idle, or a worker named silent (until it answers), or every third of the silence allowed (one
        # worker frozen while others finish chunks was named only once the run went idle: helper 143)
        if not done or self._silent or time.monotonic() - self._looked >= SILENT_WORKER_SECONDS / 3:
            self._check_workers_left()
        if not done:
            return {}
        for holders in self._ask(lambda: self._client.who_has(list(done))).values():  # where it was made
            self._ran.update(holders)
        return {future: self._outcome(future) for future in done}

    def _outcome(self, chunk) -> futures.Future:
        """A finished chunk's result or error, fetched from the worker that holds it. Should that worker be
        lost first, the chunk runs again elsewhere, waited for as any chunk is (a bare `result()` waited
        forever for a cluster left with no worker)."""
        _testhooks.pause("chunk-fetch")
        fetched = _in_thread(chunk.result)  # (a timeout on result() leaves a task that prints a traceback)
        while not futures.wait([fetched], timeout=POLL_SECONDS).done:
            self._check_workers_left()
        return fetched

    def _check_workers_left(self) -> None:
        """RunStopped once the cluster has had no worker for the run's wait for workers while chunks wait:
        the run waited forever (a worker that cannot import blackhole_stats dies on its first chunk, and
        its nanny gives up; the last worker killed). A worker gone silent is named (`_name_silent`)."""
        workers = self._ask(lambda: self._client.scheduler_info(n_workers=-1))["workers"]
        self._looked = time.monotonic()
        self._name_silent(workers)
        if workers:
            self._alone_since = None
        elif self._alone_since is None:
            self._alone_since = time.monotonic()
        elif time.monotonic() - self._alone_since >= self._wait_for_workers:
            raise RunStopped(f"no worker left in the Dask cluster at {self._address} for {self._wait_for_workers:g} "
                             "s (--wait-for-workers); the finished chunks are kept")

    def _name_silent(self, workers: dict) -> None:
        """Warn of each worker the scheduler has not heard from for SILENT_WORKER_SECONDS while the run
        waits (frozen by SIGSTOP, a paused VM, a lost network): its chunks wait until the scheduler gives up
        on it, which the run would otherwise sit through without a word. Its heartbeat time is compared
        with itself, not with this machine's clock."""
        now = time.monotonic()
        for gone in set(self._heard) - set(workers):  # removed by the scheduler (its worker-ttl), or left
            self._heard.pop(gone)
            self._silent.discard(gone)
        for worker, info in workers.items():
            seen = info.get("last_seen")
            if seen is None:  # a Dask that does not say: nothing to tell
                continue
            if self._heard.get(worker, (None,))[0] != seen:
                self._heard[worker] = (seen, now)
                if worker in self._silent:
                    self._silent.discard(worker)
                    log.warning("Dask worker %s answers again", worker)
            elif worker not in self._silent and now - self._heard[worker][1] >= SILENT_WORKER_SECONDS:
                self._silent.add(worker)
                log.warning("Dask worker %s has not been heard from for %g s (frozen, or its machine or network "
                            "gone?): its chunks wait until it answers or the scheduler gives up on it (its "
                            "worker-ttl, 5 minutes by default)", worker, SILENT_WORKER_SECONDS)

    def abort(self, pending: list) -> None:
        """Cancel the chunks no worker has started; let the running ones stop or land first.

        Running tasks cannot be killed, and one that lands after the run has ended
        would be written again by the resume. So: set the stop event (a chunk that
        starts after it writes nothing, one that runs stops at its next deal), cancel
        what the scheduler has not handed to a worker, and wait for the rest, up to
        STOP_SECONDS (a frozen worker's chunk would be waited for forever; when it
        wakes it stops at its next deal, or is dropped once a resume has begun).
        """
        client = self._client
        try:
            if not self.lost():
                self._ask(self._distributed.Event(self._stop, client=client).set)
                handed_out = {key for keys in self._ask(client.processing).values() for key in keys}
                self._ask(lambda: client.cancel([future for future in pending if future.key not in handed_out]))
        except OSError:  # lost as it stopped (TimeoutError is an OSError)
            self._gone = True
        if self.lost():  # its workers, which lost it too, stop on their own
            log.warning("the Dask scheduler is gone: the chunks its workers were running are not waited for",
                        extra=_LOG_FILE_ONLY)
            return
        running = [future for future in pending if future.key in handed_out]
        if running:
            log.warning("waiting up to %g s for %d chunk(s) running on the Dask cluster to stop (a second Ctrl-C "
                        "stops waiting)", STOP_SECONDS, len(running))
            with client.as_current():
                try:
                    self._distributed.wait(running, timeout=STOP_SECONDS)
                except TimeoutError:
                    log.warning("%d chunk(s) still running on the Dask cluster after %g s (a worker frozen?): not "
                                "waited for; told to stop, each writes nothing once it reaches its next deal (one "
                                "past its last may still land, and the next resume counts it), and none lands once "
                                "the run is resumed", len(running), STOP_SECONDS)

    def close(self) -> None:
        try:  # else the scheduler logs a CRITICAL error as the client leaves
            self._client.unsubscribe_topic("all")
        except Exception:  # noqa: BLE001 - a client that lost its scheduler has nothing to unsubscribe from
            pass
        self._client.close()
        self._client_log.setLevel(self._client_log_level)


def _solve_on_cluster(task: ChunkTask, stop: str) -> ChunkResult | None:
    """`solve_chunk` on a Dask worker, writing nothing once the Dask event `stop` is set."""
    import distributed

    event = distributed.Event(stop)
    next_look, stamp = 0.0, dataset.manifest_stamp(task.out)

    def stopped() -> bool:  # a round trip to the scheduler and a stat: at most every POLL_SECONDS
        nonlocal next_look, stamp
        now = time.monotonic()
        if now < next_look:
            return False
        next_look = now + POLL_SECONDS
        if event.is_set():
            return True
        # A later run of DIR (an orphan held up a resume's chunks on its worker): the manifest is read only
        # once it changed, and a doubt goes on (the check before the rename decides)
        seen = dataset.manifest_stamp(task.out)
        if seen is None or seen == stamp:
            return False
        stamp = seen
        with contextlib.suppress(dataset.DatasetError):
            return _superseded(task)
        return False

    return _solve_logged(task, stopped, f"Dask worker {distributed.get_worker().address}")


def _log_worker_event(event: tuple) -> None:
    """Dask workers that join or leave during a run; a lost one's chunks run again elsewhere."""
    _, message = event
    if message.get("action") == "add-worker":
        log.info("Dask worker %s joined", message["worker"])
    elif message.get("action") == "remove-worker":
        if message.get("expected"):
            log.info("Dask worker %s left", message["worker"])
        else:
            log.warning("lost Dask worker %s; its chunks run again", message["worker"])


def _worker_init() -> None:
    """Workers leave Ctrl-C to the parent, die at once when it sends SIGTERM, and die with it.

    A forked worker also drops the handlers it inherited (the log file, stderr):
    its records go back to the parent with each chunk.
    """
    _testhooks.pause("worker-start")
    interrupts.leave_ctrl_c_to_parent()
    interrupts.exit_with_parent()
    for handler in list(log.handlers):
        log.removeHandler(handler)




_LOG_FILE_ONLY = {"file_only": True}
"""`extra=` for a record that the run's final message repeats on stderr anyway."""


class _Quiet:
    """For handlers: one that cannot write (a full disk, a closed stderr) never prints a traceback;
    it keeps the first failure instead. An interrupt goes on its way."""

    failure: Exception | None = None

    def handleError(self, record: logging.LogRecord | None) -> None:
        error = sys.exc_info()[1]
        if not isinstance(error, Exception):
            raise error
        if self.failure is None:
            self.failure = error


class _BarStream:
    """Standard error for the progress bar, which stops drawing, quietly, once a write fails (a reader
    that went away, a full disk): the run goes on, as it does when its log lines cannot be written."""

    def __init__(self, stream) -> None:
        self.stream, self.failed = stream, False

    def write(self, text: str) -> None:
        self._try(lambda: self.stream.write(text))

    def flush(self) -> None:
        self._try(self.stream.flush)

    def _try(self, call) -> None:
        if not self.failed:
            try:
                call()
            except (OSError, ValueError):  # ValueError: a closed file
                self.failed = True

    def __getattr__(self, name: str):
        return getattr(self.stream, name)

    def __eq__(self, other) -> bool:  # tqdm clears the bars drawn on sys.stderr before a warning line
        return self.stream == getattr(other, "stream", other)

    __hash__ = object.__hash__


class _StderrHandler(_Quiet, logging.Handler):
    """Warnings and errors as one line each above the progress bar; tracebacks go to the log file."""

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "file_only", False) or sys.stderr is None:  # (tqdm.write would pick stdout)
            return
        try:
            tqdm.write(f"{record.levelname.lower()}: {record.getMessage()}", file=sys.stderr)
        except Exception:
            self.handleError(record)


class _LogFile(_Quiet, logging.FileHandler):
    """DIR.run/run.log, written by the run alone: workers' records come back with their chunks, so
    no lock or queue joins the processes, and a worker killed at any moment holds nobody up."""

    def _open(self):
        """As FileHandler's, but a FIFO or device in the log's place is refused (OSError) rather than
        waited on: an open for writing waits for a FIFO's reader, past every signal."""
        try:
            kind = os.stat(self.baseFilename).st_mode
        except OSError:  # not there (it is made), or what the open itself will say
            kind = None
        if kind is not None and not stat.S_ISREG(kind) and not stat.S_ISDIR(kind):
            raise OSError(errno.EINVAL, "no file: a FIFO? a device?")
        return super()._open()

    def close(self) -> None:
        try:
            super().close()  # flushes: a full disk fails here too
        except OSError:
            self.handleError(None)


@contextmanager
def _warnings_to_stderr() -> Iterator[None]:
    handler = _StderrHandler(logging.WARNING)
    log.addHandler(handler)
    try:
        yield
    finally:
        log.removeHandler(handler)


_UTC_LINES = logging.Formatter("%(asctime)s.%(msecs)03dZ %(processName)s %(levelname)s %(message)s",
                               "%Y-%m-%dT%H:%M:%S")
"""A run log's lines, timed in UTC as the manifest is: sessions run in other time zones, or across a
change of summer time, never read as going backwards."""
_UTC_LINES.converter = time.gmtime


@contextmanager
def _logging_to(out: str) -> Iterator[None]:
    """This module's log (chunks, slow deals, errors), the workers' included, into DIR.run/run.log.

    Lines that cannot be written (a full disk) are lost, never the run; a run
    that ends well says so in one warning.
    """
    path = dataset.log_path(out)  # None: a remote run, whose warnings go to stderr only
    level = log.level
    log.setLevel(logging.INFO)
    try:
        to_file = None if path is None else _LogFile(path, encoding="utf-8")
    except OSError as error:  # a folder in its place, no permission: the run goes on, its warnings on stderr
        to_file = None
        log.warning("cannot write the run's log %s (%s): its lines are lost", path, error.strerror or error)
    if to_file is not None:
        to_file.setFormatter(_UTC_LINES)
        log.addHandler(to_file)
    try:
        yield
    finally:
        log.setLevel(level)
        if to_file is not None:
            log.removeHandler(to_file)
            to_file.close()
    if to_file is not None and to_file.failure is not None:
        log.warning("some lines of %s could not be written: %s", to_file.baseFilename, to_file.failure)


def machine() -> dict:
    """What a timing was measured on (a run's manifest, a benchmark's summary): its figures mean little without it."""
    return {"hostname": socket.gethostname(), "platform": platform.platform(), "cpu": _cpu_model(),
            "cpu_count": os.cpu_count(), "python": platform.python_version()}


def _cpu_model() -> str:
    """The processor's name where the OS tells it (Linux), else what `platform` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
