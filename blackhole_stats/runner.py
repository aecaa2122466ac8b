"""Parallel, resumable runs: chunks of deals solved in worker processes or on a Dask cluster.

Each worker deals, solves and writes a whole chunk itself (`solve_chunk`), so
only a few numbers per chunk cross a process boundary. The parent hands out a
few chunks at a time, shows progress and keeps the manifest; on SIGINT or
SIGTERM it stops the workers and keeps every finished chunk, and running the
same command again solves only what is missing.
"""
from __future__ import annotations

import logging
import multiprocessing
import os
import platform
import signal
import socket
import sys
import threading
import time
from concurrent import futures
from contextlib import closing, contextmanager
from dataclasses import dataclass
from typing import Iterator

import multiprocessing_logging
from tqdm import tqdm

from . import dataset
from .board import NUM_PILES, PILE_SIZE, RANK_OF_ID
from .cards import Card
from .dealing import GameNumber, deal_card_ids
from .deals import DealSet
from .solver import OUTCOMES, Solver

log = logging.getLogger(__name__)

DEFAULT_CHUNK_SIZE = 1000
"""Deals per task and per Parquet file: a few seconds of work, so little is lost to a kill."""
MIN_CHUNKS_PER_WORKER = 4
"""Without --chunk-size, chunks shrink so that a small run still gives every worker this many."""
SLOW_DEAL_SECONDS = 10.0
"""Deals that take longer are named in the log."""
CHUNKS_PER_WORKER = 2
"""Chunks handed out ahead per worker: enough to keep workers busy, few to lose or wait for."""

_FRESH_HEIGHTS = bytes([PILE_SIZE] * NUM_PILES)
_CODE_OF_ID = tuple(Card.from_id(card_id).text for card_id in range(52))
_worker = threading.local()  # a Solver per thread: Dask runs several threads per process


@dataclass(frozen=True)
class ChunkTask:
    """What a worker needs to solve and write one chunk."""

    deals: DealSet
    out: str
    search: str
    max_iters: int | None


@dataclass(frozen=True)
class ChunkResult:
    """What comes back: a few numbers, the rows are already on disk."""

    file: str
    outcomes: tuple[int, ...]  # how many deals were solved / unsolved / intractable
    solver_seconds: float


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
    """Interrupted (`signum` set) or a chunk failed; finished chunks are kept, rerunning resumes."""

    def __init__(self, reason: str, done: int, total: int, signum: int | None = None) -> None:
        super().__init__(f"{reason}: {done:,} of {total:,} deals done")
        self.reason, self.done, self.total, self.signum = reason, done, total, signum


class _Interrupted(BaseException):
    """A signal, raised wherever the main thread is; not an Exception, so nothing swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def solve_chunk(task: ChunkTask) -> ChunkResult:
    """Deal, solve and write one chunk: the unit of work of both backends."""
    solver = getattr(_worker, "solver", None)
    if solver is None:
        solver = _worker.solver = Solver()
        log.info("solver tables: %.0f MiB, reused for every deal", solver.memory_bytes / 2**20)
    log.info("chunk %s: started", task.deals)
    rows = []
    for ms, first, last in task.deals.runs:
        for number in range(first, last + 1):
            try:
                ids = deal_card_ids(GameNumber(number, ms))
                started = time.perf_counter()
                outcome, iterations, played, piles = solver.solve_raw(
                    ids.translate(RANK_OF_ID), _FRESH_HEIGHTS, 0, task.search, task.max_iters)
                seconds = time.perf_counter() - started
            except Exception as error:
                raise DealError(f"deal {GameNumber(number, ms)}: {type(error).__name__}: {error}") from error
            if seconds > SLOW_DEAL_SECONDS:
                log.info("deal %s: slow, %.1f s, %s", GameNumber(number, ms), seconds, OUTCOMES[outcome])
            solution = _play_order(ids, piles) if piles else None
            rows.append((number, ms, outcome, iterations, played, solution, seconds))
    columns = dict(zip(dataset.SCHEMA.names, zip(*rows)))  # rows are in SCHEMA's column order
    name = dataset.write_part(task.out, task.deals, columns)
    outcomes = tuple(columns["outcome"].count(index) for index in range(len(OUTCOMES)))
    return ChunkResult(name, outcomes, sum(columns["seconds"]))


def _play_order(ids: bytes, piles: bytes) -> str:
    """The solver's pile indexes as card codes: the top of pile p is ids[3p + height - 1]."""
    heights = [PILE_SIZE] * NUM_PILES
    codes = []
    for pile in piles:
        heights[pile] -= 1
        codes.append(_CODE_OF_ID[ids[PILE_SIZE * pile + heights[pile]]])
    return " ".join(codes)


def run(out: str, deals: DealSet | None = None, *, search: str = "fast", max_iters: int | None = None,
        workers: int | None = None, chunk_size: int | None = None, scheduler: str | None = None,
        progress: bool = False) -> RunSummary:
    """Solve every deal of `deals` (None: the run's own) that `out` does not hold yet.

    `chunk_size` None: DEFAULT_CHUNK_SIZE, smaller when there are too few deals
    to give every worker several chunks.
    Raises DatasetError for a directory that does not fit, RunError if the
    Dask scheduler is unusable, and RunStopped after SIGINT/SIGTERM or a failed
    chunk (finished chunks are kept; the same call resumes).
    """
    out = dataset.locate(out)
    backend = _Cluster(scheduler) if scheduler else _Processes(workers or os.cpu_count() or 1)
    with closing(backend), dataset.open_run(out, deals, search, max_iters) as session:
        requested = session.requested
        started = time.monotonic()
        with _logging_to(out):
            removed = dataset.remove_temp_files(out)
            todo = requested - session.done
            if chunk_size is None:
                per_chunk = -(-todo.count // (MIN_CHUNKS_PER_WORKER * backend.workers))  # ceiling
                chunk_size = max(1, min(DEFAULT_CHUNK_SIZE, per_chunk))
            if todo:  # a session that solves nothing leaves the record of the ones that did
                session.begin_solving(workers=backend.workers, scheduler=scheduler, machine=_machine(),
                                      chunk_size=chunk_size)
            log.info("run started: %s deals asked, %s to solve, %s workers, search=%s, max_iters=%s; "
                     "%s unfinished files removed", requested.count, todo.count, backend.workers, search,
                     max_iters, removed)
            tasks = (ChunkTask(chunk, out, search, max_iters) for chunk in todo.chunks(chunk_size))
            with tqdm(total=requested.count, initial=requested.count - todo.count, unit="deal",
                      disable=not progress, file=sys.stderr, dynamic_ncols=True) as bar:
                tally = _Tally(bar)
                signum = _solve(backend, tasks, tally)

            elapsed = time.monotonic() - started
            done = dataset.read_done(out)
            if todo:
                session.end_solving(elapsed, sum(tally.outcomes), done)
            done_count = requested.count - (requested - done).count
            if signum is not None:
                raise RunStopped("interrupted", done_count, requested.count, signum)
            if tally.failures:
                raise RunStopped(f"{len(tally.failures)} failed chunk(s) ({'; '.join(tally.failures)})",
                                 done_count, requested.count)
            log.info("run finished: %s deals solved in %.1f s", sum(tally.outcomes), elapsed)
    return RunSummary(out, requested.count, requested.count - todo.count, tuple(tally.outcomes),
                      elapsed, tally.solver_seconds, backend.workers)


def _solve(backend: _Processes | _Cluster, tasks: Iterator[ChunkTask], tally: _Tally) -> int | None:
    """Run the tasks into `tally`; returns the signal that interrupted them, if one did."""
    pending: dict = {}
    try:
        with _signals_interrupt():
            _dispatch(backend, tasks, pending, tally)
    except _Interrupted as interrupt:
        log.warning("interrupted by %s: stopping the workers", signal.Signals(interrupt.signum).name)
        backend.abort(list(pending))
        return interrupt.signum
    return None


def _dispatch(backend: _Processes | _Cluster, tasks: Iterator[ChunkTask], pending: dict,
              tally: _Tally) -> None:
    """Keep a few chunks per worker in flight until all are done or a worker is lost."""
    window = CHUNKS_PER_WORKER * max(backend.workers, 1)
    healthy = True
    while True:
        while healthy and len(pending) < window and (task := next(tasks, None)) is not None:
            pending[backend.submit(task)] = task.deals
        if not pending:
            return
        for future in backend.wait(list(pending)):
            healthy &= tally.add(pending.pop(future), future)


class _Tally:
    """What the finished chunks of a session add up to, shown on the progress bar."""

    def __init__(self, bar: tqdm) -> None:
        self.bar = bar
        self.outcomes = [0] * len(OUTCOMES)
        self.solver_seconds = 0.0
        self.failures: list[str] = []

    def add(self, deals: DealSet, future) -> bool:
        """Count one finished chunk; False if it failed in a way that should stop the run."""
        try:
            result = future.result()
        except DealError as error:
            log.error("chunk %s failed: %s", deals, error, exc_info=error)
            self.failures.append(str(error))
            return True
        except Exception as error:  # a lost worker, an I/O error: the next chunk would fail too
            log.error("chunk %s failed: %s: %s", deals, type(error).__name__, error, exc_info=error)
            self.failures.append(f"deals {deals}: {type(error).__name__}")
            return False
        log.info("chunk %s: wrote %s (%s)", deals, result.file,
                 ", ".join(f"{count} {outcome}" for count, outcome in zip(result.outcomes, OUTCOMES)))
        self.outcomes = [total + new for total, new in zip(self.outcomes, result.outcomes)]
        self.solver_seconds += result.solver_seconds
        self.bar.update(sum(result.outcomes))
        self.bar.set_postfix(solved=self.outcomes[0], refresh=False)
        return True


class _Processes:
    """Local worker processes, forked so that multiprocessing-logging's queue reaches them."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._others = set(multiprocessing.active_children())
        self._pool = futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                                                 initializer=_worker_signals)

    def submit(self, task: ChunkTask) -> futures.Future:
        try:
            return self._pool.submit(solve_chunk, task)
        except futures.process.BrokenProcessPool as error:  # a worker died since the last wait
            future: futures.Future = futures.Future()
            future.set_exception(error)
            return future

    def wait(self, pending: list) -> set:
        return futures.wait(pending, return_when=futures.FIRST_COMPLETED).done

    def abort(self, pending: list) -> None:
        """Stop at once: chunks in flight are lost (their temporary files are removed on resume)."""
        for process in set(multiprocessing.active_children()) - self._others:
            process.terminate()

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)


class _Cluster:
    """An existing Dask cluster; its workers write the chunk files themselves."""

    def __init__(self, address: str) -> None:
        try:
            import distributed
        except ImportError:
            raise RunError("--scheduler needs Dask: pip install 'blackhole-stats[dask]'") from None
        self._distributed = distributed
        try:
            self._client = distributed.Client(address, timeout=10, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            raise RunError(f"cannot use the Dask scheduler at {address}: {error}") from None
        self.workers = sum(self._client.nthreads().values())

    def submit(self, task: ChunkTask):
        return self._client.submit(solve_chunk, task, pure=False)

    def wait(self, pending: list) -> set:
        with self._client.as_current():  # distributed.wait looks for the current client
            return self._distributed.wait(pending, return_when="FIRST_COMPLETED").done

    def abort(self, pending: list) -> None:
        """Running tasks cannot be stopped: let them land, or a resume would write them again."""
        log.warning("waiting for %d chunks in flight on the cluster", len(pending))
        with self._client.as_current():
            self._distributed.wait(pending)

    def close(self) -> None:
        self._client.close()


def _worker_signals() -> None:
    """Workers leave Ctrl-C to the parent, and die at once when it sends SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextmanager
def _signals_interrupt() -> Iterator[None]:
    """The first SIGINT or SIGTERM raises `_Interrupted` in the main thread, so that the run can
    clean up; a second one acts as usual (Ctrl-C twice: give up cleaning up)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        for number, handler in previous.items():
            signal.signal(number, handler)
        raise _Interrupted(signum)

    previous = {signum: signal.signal(signum, interrupt) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


class _StderrHandler(logging.Handler):
    """Warnings and errors as one line each above the progress bar; tracebacks go to the log file."""

    def emit(self, record: logging.LogRecord) -> None:
        tqdm.write(f"{record.levelname.lower()}: {record.getMessage()}", file=sys.stderr)


@contextmanager
def _logging_to(out: str) -> Iterator[None]:
    """This module's log (chunks, slow deals, errors) from every worker into DIR/_run.log."""
    handlers: list[logging.Handler] = [_StderrHandler(logging.WARNING)]
    path = dataset.local_path(out)
    if path is not None:  # remote runs log to stderr only
        to_file = logging.FileHandler(os.path.join(path, dataset.LOG_NAME), encoding="utf-8")
        to_file.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(levelname)s %(message)s"))
        handlers.append(to_file)
    level = log.level
    log.setLevel(logging.INFO)
    for handler in handlers:
        log.addHandler(handler)
    multiprocessing_logging.install_mp_handler(log)
    try:
        yield
    finally:
        for handler in list(log.handlers):
            log.removeHandler(handler)
            handler.close()  # waits for the workers' records to be written
        log.setLevel(level)


def _machine() -> dict:
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
