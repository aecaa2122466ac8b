"""The solver core under hostile use: threads, Ctrl-C, huge budgets, memory, a misbuilt Solver.

What it proves, against facts that do not come from the code under test (the
peer's iteration counts and most cards played, the counts recorded in issue 7)
or against the same search run alone in one thread:

* threads: several threads solving the same hard deals at once with the
  module-level `solve()` get exactly the single-threaded results; one Solver
  called from a second thread while it searches raises RuntimeError instead of
  corrupting its tables, and still works afterwards;
* interrupts: a signal that arrives during a long search (fast, classic, or the
  most-cards-played search) stops it from inside the compiled loop, and the
  CLI turns Ctrl-C into one line, then dies of it, long before the search would end;
* budgets: a --max-iters beyond 2^63-1 is refused by `solve`, `run` and the
  Python API instead of wrapping around; the whole solve, the most-cards-played
  search included, stays within the budget; an unsolvable deal whose
  most-cards-played search ran out has cards_played None (JSON and Parquet
  null), never a smaller number, and `verify` accepts null only there;
* memory: a classic search whose visited set outgrew 32 MiB gives it back;
* a Solver whose __init__ was skipped or run twice raises instead of crashing.
"""
from __future__ import annotations

import copy
import csv
import json
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from blackhole_stats import Solver, deal, solve
from blackhole_stats.verify import verify

from conftest import SCRIPT, cli, pause_env, require_reference, wait_for_pause

MAX_ITERS = 2**63 - 1
WRAPS_TO_1 = 2**64 + 1
"""Read modulo 2^64 (the old bug), this budget is 1 iteration."""
SLOW_CLASSIC = 17600
"""67,434,075 classic iterations: 10 s or more of search, so an interrupt that lands is visible."""
FAST_HARD = {909150: ("unsolved", 3_585_916, 50)}
"""Issue 7 saw 17,867,065 iterations instead of 3,594,086 (the search of then) when threads shared a Solver."""
LONG_MOST_PLAYED = 115768
"""Fast verdict in 14,348 positions, then about 257,000 for the most cards played (49)."""
CLASSIC_MEMORY_DEAL = 790
"""Unsolvable, 2,533,901 classic iterations: a visited set of 2^23 slots (64 MiB)."""


def peer() -> dict[int, tuple[str, int, int]]:
    """The peer solver's (outcome, states checked, most cards played) of deals 1..1000."""
    with require_reference("peer_1_1000.csv").open(newline="") as handle:
        return {int(row["deal"]): (row["outcome"], int(row["iterations"]), int(row["max_played"]))
                for row in csv.DictReader(handle)}


def summary(result) -> tuple:
    return result.outcome, result.iterations, result.cards_played, result.solution


def wait_until(condition, timeout: float = 60) -> None:
    """A safety net only: the conditions waited for become true in milliseconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition never became true"
        time.sleep(0.001)


def rss_bytes() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# ---------------------------------------------------------------- threads
def test_threads_get_the_single_threaded_results():
    """4 threads, the same hard deals in different orders, all at once: nothing changes."""
    peer_counts = peer()
    expected = {(909150, "fast"): FAST_HARD[909150], (354, "classic"): peer_counts[354]}
    cases = [(909150, "fast"), (LONG_MOST_PLAYED, "fast"), (354, "classic"), (2, "classic")]
    alone = {case: summary(Solver().solve(deal(case[0]), search=case[1])) for case in cases
             if case not in expected}  # the other two take long alone; their counts are known
    assert alone[2, "classic"][:3] == peer_counts[2]
    threads, start = 4, threading.Barrier(4)
    results: dict[int, list] = {index: [] for index in range(threads)}

    def work(index: int) -> None:
        start.wait()
        for case in cases[index:] + cases[:index]:
            results[index].append((case, summary(solve(deal(case[0]), search=case[1]))))

    workers = [threading.Thread(target=work, args=(index,)) for index in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sum(map(len, results.values())) == threads * len(cases)
    for found in results.values():
        for case, got in found:
            assert got == alone[case] if case in alone else got[:3] == expected[case], case


FIRST_USE_WHILE_TYPING_LOADS = """
import importlib.machinery, sys, threading, time
half, go = threading.Event(), threading.Event()
assert "typing" not in sys.modules

class Slow:  # a finder and loader of typing's first import, held half-done in the thread that makes it
    def find_spec(self, name, path, target=None):
        if name != "typing":
            return None
        sys.meta_path.remove(self)
        self.real = importlib.machinery.PathFinder.find_spec(name, path)
        return importlib.machinery.ModuleSpec(name, self)
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        half.set()
        go.wait()
        self.real.loader.exec_module(module)

def waits_for_an_import(ident):
    frame = sys._current_frames().get(ident)
    while frame is not None and frame.f_code.co_name != "_lock_unlock_module":
        frame = frame.f_back
    return frame is not None

def release_once_the_package_waits(ident):  # (or once it is done: go is set below)
    while not go.is_set():
        if waits_for_an_import(ident):
            go.set()
        time.sleep(0.001)

sys.meta_path.insert(0, Slow())
loader = threading.Thread(target=lambda: __import__("typing"))  # as pandas would, in another thread
loader.start()
half.wait()
threading.Thread(target=release_once_the_package_waits, args=(threading.get_ident(),), daemon=True).start()
try:
    import blackhole_stats
    print(blackhole_stats.solve(blackhole_stats.deal(5)).outcome)
finally:
    go.set()
    loader.join()
"""


def test_a_first_use_while_another_thread_imports_typing():
    """A script's threads using the package for the first time while another imported `typing` (pandas,
    say): a dataclass of ours saw `typing` half-imported ("partially initialized module 'typing' has no
    attribute 'ClassVar'"). Here that import is held half-done on purpose, and let go only once the
    package waits for it (or is done without waiting, as it was)."""
    done = subprocess.run([sys.executable, "-c", FIRST_USE_WHILE_TYPING_LOADS], capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "solved\n", "")


class Stop(Exception):
    """Raised by the test's signal handler."""


def interrupt_while_busy(solver: Solver, board, search: str, meanwhile=None, in_handler=None) -> list[bool]:
    """Solve in the main thread; another thread waits until the compiled search runs, does
    `meanwhile()` if given, then sends SIGUSR1, whose handler does `in_handler()` if given and raises
    Stop. Returns what the handler saw of `solver.busy`: True means it ran inside the search, not after it."""
    seen: list[bool] = []

    def handler(signum, frame):
        seen.append(solver.busy)
        if in_handler is not None:
            in_handler()
        raise Stop

    def poke():
        wait_until(lambda: solver.busy)
        if meanwhile is not None:
            meanwhile()
        os.kill(os.getpid(), signal.SIGUSR1)

    previous = signal.signal(signal.SIGUSR1, handler)
    helper = threading.Thread(target=poke)
    helper.start()
    try:
        with pytest.raises(Stop):
            solver.solve(board, search=search)
    finally:
        helper.join()
        signal.signal(signal.SIGUSR1, previous)
    return seen


def test_a_solver_called_again_by_a_signal_handler_during_its_solve_refuses_saying_so():
    """The same thread, re-entered from a signal handler, was told the Solver was busy "in another thread"."""
    solver, refused = Solver(), []

    def solve_again():
        try:
            solver.solve(deal(3))
        except RuntimeError as error:
            refused.append(str(error))

    assert interrupt_while_busy(solver, deal(SLOW_CLASSIC), "classic", in_handler=solve_again) == [True]
    assert len(refused) == 1 and "a signal handler called it during its own solve" in refused[0]
    assert not solver.busy and solver.solve(deal(3)).outcome == summary(Solver().solve(deal(3)))[0]


def test_a_solver_busy_in_another_thread_refuses():
    solver, refused = Solver(), []

    def second_caller():
        try:
            solver.solve(deal(2))
        except RuntimeError as error:
            refused.append(str(error))

    seen = interrupt_while_busy(solver, deal(SLOW_CLASSIC), "classic", meanwhile=second_caller)
    assert seen == [True]
    assert len(refused) == 1 and "this Solver is already solving (in another thread" in refused[0]
    assert not solver.busy
    outcome, iterations, played = peer()[2]
    assert summary(solver.solve(deal(2), search="classic"))[:3] == (outcome, iterations, played)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_solver_busy_when_the_process_forks_solves_in_the_child():
    """Forked while another thread (here a signal handler's interrupted search) was solving with it, a
    Solver stayed busy in the child, where no thread solves: every solve there raised "already solving"
    (a notebook's background thread and a Pool that forks). Here of a subclass without a hash (it defines
    __eq__, as a dataclass does), which the fork's registry of Solvers must take too."""
    solver, children = ComparedSolver(), []

    def fork_and_solve_in_the_child():
        reading, writing = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: answer through the pipe, and never return into the test
            try:
                os.write(writing, json.dumps(summary(solver.solve(deal(3)))[:3]).encode())
            except BaseException as error:
                os.write(writing, json.dumps(repr(error)).encode())
            finally:
                os._exit(0)
        os.close(writing)
        with os.fdopen(reading) as answer:
            children.append(json.loads(answer.read()))
        os.waitpid(pid, 0)

    assert interrupt_while_busy(solver, deal(SLOW_CLASSIC), "classic", in_handler=fork_and_solve_in_the_child) == [True]
    assert children == [list(summary(Solver().solve(deal(3)))[:3])]
    assert not solver.busy


@pytest.mark.parametrize("make", [copy.copy, copy.deepcopy, lambda solver: pickle.loads(pickle.dumps(solver))],
                         ids=["copy", "deepcopy", "pickle"])
def test_a_copy_of_a_solver_has_tables_of_its_own(make):
    """copy.copy shared the original's tables: the copy, made as "one Solver per thread", refused to
    solve while the original solved; deepcopy and pickle (a Solver sent to a spawned worker) raised."""
    solver = Solver(table_bits=12)
    other, results = make(solver), []
    seen = interrupt_while_busy(solver, deal(SLOW_CLASSIC), "classic",
                                meanwhile=lambda: results.append(summary(other.solve(deal(2), search="classic"))))
    assert seen == [True] and other._core is not solver._core and other._table_bits == 12
    assert results[0][:3] == peer()[2]
    labelled = LabelledSolver("mine", table_bits=10)
    copied = make(labelled)
    assert type(copied) is LabelledSolver and copied.label == "mine" and copied._core is not labelled._core
    assert copied.memory_bytes == labelled.memory_bytes  # 10 bits, not its __init__'s default


class ComparedSolver(Solver):
    """A subclass that defines __eq__, so has no hash."""

    def __eq__(self, other) -> bool:
        return self is other


class LabelledSolver(Solver):
    """A notebook's subclass with an __init__ of its own: its copies keep their class, size and label."""

    def __init__(self, label: str, *, table_bits: int = 16) -> None:
        super().__init__(table_bits)
        self.label = label


# ------------------------------------------------------------- interrupts
@pytest.mark.parametrize("number, search, in_most_played", [
    (909150, "fast", False),           # 3.6 M positions of verdict search
    (SLOW_CLASSIC, "classic", False),
    (LONG_MOST_PLAYED, "fast", True),  # the first check comes after the verdict search is done
], ids=["fast", "classic", "most-played"])
def test_a_signal_stops_the_search_from_inside(number, search, in_most_played):
    solver = Solver()
    assert interrupt_while_busy(solver, deal(number), search) == [True]
    assert (solver._core.most_played_nodes > 0) == in_most_played
    assert not solver.busy
    for number in (1, 2):  # an interrupted search leaves nothing behind in the tables
        assert summary(solver.solve(deal(number), search=search)) == \
            summary(Solver().solve(deal(number), search=search))


def test_ctrl_c_in_solve_is_one_line_then_the_process_ends_of_it(tmp_path):
    """The pause hook marks the moment before the compiled search; SIGINT comes after it."""
    env = pause_env(tmp_path, **{"solve-search": 0})
    process = subprocess.Popen([str(SCRIPT), "solve", str(SLOW_CLASSIC), "--search", "classic"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **env})
    try:
        wait_for_pause(tmp_path, "solve-search", process)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
        waited = time.monotonic() - sent
    finally:
        process.kill()
        process.wait()
    assert process.returncode == -signal.SIGINT, stderr
    assert stdout == b"" and stderr == b"interrupted\n"
    assert waited < 5, f"{waited:.1f} s: the search ignored Ctrl-C"  # alone it takes 10 s or more


# ---------------------------------------------------------------- budgets
@pytest.mark.parametrize("budget", [WRAPS_TO_1, MAX_ITERS + 1, 10**40])
def test_out_of_range_budgets_are_refused_everywhere(budget, tmp_path):
    for args in (["solve", "2", "--json"], ["run", "--range", "1-10", "--out", tmp_path / "run"]):
        result = cli(*args, "--max-iters", budget)
        err = result.stderr.decode()
        assert result.returncode == 2 and result.stdout == b"" and "Traceback" not in err, err
        [line] = [line for line in err.splitlines() if line.startswith("Error:")]
        assert "--max-iters" in line and str(MAX_ITERS) in line and str(budget) in line
    assert not (tmp_path / "run").exists()
    with pytest.raises(ValueError, match=f"max_iters must be a whole number from 1 to {MAX_ITERS}"):
        Solver().solve(deal(2), max_iters=budget)
    with pytest.raises(ValueError, match="max_iters"):
        solve(deal(2), max_iters=budget)
    board = deal(2)
    with pytest.raises(ValueError, match="max_iters"):  # the compiled core does not wrap either
        Solver()._core.solve(*board.solver_input(), 0, budget)
    with pytest.raises(ValueError, match="max_iters"):
        Solver()._core.solve(*board.solver_input(), 0, -1)


def test_the_largest_budget_is_no_limit():
    peer_counts = peer()
    result = cli("solve", "2", "--search", "classic", "--max-iters", MAX_ITERS, "--json")
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert (data["outcome"], data["iterations"], data["cards_played"]) == peer_counts[2]
    for search in ("fast", "classic"):
        assert summary(Solver().solve(deal(1), search=search, max_iters=MAX_ITERS)) == \
            summary(Solver().solve(deal(1), search=search))


@pytest.mark.parametrize("number", [1, 25, 29, 34, LONG_MOST_PLAYED])
def test_the_budget_bounds_the_most_played_search(number):
    """With exactly the positions both searches need, the figure is exact (the peer's, where it
    has one); one fewer, and it is None, while the verdict and its count stay the same."""
    solver = Solver()
    full = solver.solve(deal(number))
    needed = full.iterations + solver._core.most_played_nodes
    assert full.outcome == "unsolved" and solver._core.most_played_nodes > 1
    if number in peer():
        assert full.cards_played == peer()[number][2]
    exact = solver.solve(deal(number), max_iters=needed)
    assert summary(exact) == summary(full)
    for budget in (needed - 1, full.iterations + 1, full.iterations):
        short = solver.solve(deal(number), max_iters=budget)
        assert (short.outcome, short.iterations, short.cards_played) == ("unsolved", full.iterations, None)
        assert short.iterations + solver._core.most_played_nodes <= budget


def test_an_undetermined_cards_played_is_null_in_json_text_and_parquet(tmp_path):
    solver = Solver()
    full = solver.solve(deal(34))  # unsolvable; 30 positions of verdict search, 21 for the most played
    budget = full.iterations + solver._core.most_played_nodes - 1
    result = cli("solve", "34", "--max-iters", budget, "--json")
    assert result.returncode == 3
    data = json.loads(result.stdout)
    assert (data["outcome"], data["iterations"], data["cards_played"]) == ("unsolved", full.iterations, None)
    text = cli("solve", "34", "--max-iters", budget).stdout.decode()
    assert "most cards any line of play gets onto the foundation: not determined within --max-iters" in text
    out = tmp_path / "run"
    result = cli("run", "--range", "34", "--out", out, "--max-iters", budget, "--workers", 1)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().startswith("1 deal solved now in ")  # (was "1 deals")
    table = pq.read_table(out)
    assert table.column("cards_played").to_pylist() == [None]
    assert table.column("outcome").to_pylist() == ["unsolved"]
    assert verify(str(out)).problems == ()


def test_verify_accepts_a_null_cards_played_only_for_unsolved_rows_of_budgeted_runs(tmp_path):
    """A row may say "cards played unknown" only if it is unsolved and the run had a budget (deal 34 above
    passes so). Here the null is put in by hand, and deal 1, the file's first row without a line, is
    solved again as the run solved it, which knows its cards played (the peer's 3)."""
    for budget in (None, 10**6):
        out = tmp_path / f"run-{budget}"
        bounded = ("--max-iters", budget) if budget else ()
        assert cli("run", "--range", "1-2", "--out", out, "--workers", 1, "--chunk-size", 2, *bounded).returncode == 0
        part = out / "part-1-2-2.parquet"
        table = pq.read_table(part)
        assert table.column("outcome").to_pylist() == ["unsolved", "solved"]  # deals 1 and 2
        nulls = table.set_column(table.schema.get_field_index("cards_played"),
                                 pa.field("cards_played", pa.int8()), pa.array([None, None], pa.int8()))
        pq.write_table(nulls, part)
        iterations = table.column("iterations")[0].as_py()
        first = "deal 1: unsolved, but no cards_played" if budget is None else \
            f"deal 1: stored unsolved, {iterations:,} iterations, cards played unknown; solved again: unsolved, " \
            f"{iterations:,} iterations, {peer()[1][2]} cards played"
        assert verify(str(out)).problems == (
            first, "deal 2: solved, but cards_played is None, and the solution plays 51")


# ----------------------------------------------------------------- memory
def test_an_oversized_classic_search_gives_its_memory_back():
    solver = Solver()
    idle_bytes = solver.memory_bytes
    before = rss_bytes()
    result = solver.solve(deal(CLASSIC_MEMORY_DEAL), search="classic")
    assert (result.outcome, result.iterations, result.cards_played) == peer()[CLASSIC_MEMORY_DEAL]
    assert solver.memory_bytes == idle_bytes
    assert rss_bytes() - before < 16 * 2**20  # the search itself needed a 64 MiB visited set
    again = solver.solve(deal(CLASSIC_MEMORY_DEAL), search="classic")
    assert summary(again) == summary(result)


# ------------------------------------------------------- a misbuilt Solver
def test_a_solver_without_init_or_with_two_raises():
    """In a child process: the old core crashed the interpreter here."""
    code = """if True:
        from blackhole_stats import _core, deal
        board = deal(2).solver_input()
        bare = _core.Solver.__new__(_core.Solver)
        try:
            bare.solve(*board)
        except RuntimeError as error:
            print("bare:", error)
        print("bare memory:", bare.memory_bytes)
        solver = _core.Solver(table_bits=10)
        try:
            solver.__init__(table_bits=20)
        except RuntimeError as error:
            print("twice:", error)
        print("still works:", solver.solve(*board, 1)[:3])  # classic
    """
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "bare: Solver.__init__ was not called",
        "bare memory: 0",
        "twice: Solver.__init__ called twice: create a new Solver instead",
        "still works: (0, 158848, 51)",  # the peer's count for deal 2
    ]


# ------------------------------------------------------------------ memory running out
LIMITED = """
import resource, sys
size = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmSize:")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + 300 * 2**20, resource.RLIM_INFINITY))  # 300 MiB more than now
"""
"""Run first in a child that has imported what it needs: the limit is then what the search may grow by."""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmSize from /proc")
def test_memory_running_out_is_one_line_naming_what_grew(tmp_path):
    """`solve --search classic` on a deal whose visited set outgrows the memory allowed was a MemoryError
    traceback; a run's failed chunk said only "MemoryError:", for a search and for a Solver's first tables."""
    solve_cli = subprocess.run(
        [sys.executable, "-c", "from blackhole_stats import cli\n" + LIMITED
         + "sys.argv = ['blackhole-stats', 'solve', '10683', '--search', 'classic']\ncli.main()"],
        capture_output=True, text=True, timeout=300)
    assert solve_cli.returncode == 1 and solve_cli.stdout == "", solve_cli
    assert solve_cli.stderr.splitlines() == ["Error: out of memory: the classic search's tables outgrew the memory "
                                             "this process may use (--max-iters bounds them)"]
    tight = subprocess.run(  # 30 MiB more: `run` cannot even load pyarrow (MemoryError, or ImportError)
        [sys.executable, "-c", "from blackhole_stats import cli\n" + LIMITED.replace("300 * 2**20", "30 * 2**20")
         + "sys.argv = ['blackhole-stats', 'run', '--range', '1-5', '--out', sys.argv[1]]\ncli.main()",
         str(tmp_path / "run")], capture_output=True, text=True, timeout=300)
    assert tight.returncode == 1 and tight.stderr.startswith("Error: out of memory") and tight.stderr.endswith(
        "(is the memory this process may use limited?)\n") and tight.stderr.count("\n") == 1, tight.stderr
    tables = subprocess.run([sys.executable, "-c", "from blackhole_stats import Solver\n" + LIMITED
                             + "Solver(table_bits=30)"], capture_output=True, text=True, timeout=60)
    assert tables.returncode == 1 and tables.stderr.splitlines()[-1] == (
        "MemoryError: a solver's tables (table_bits=30) do not fit in the memory this process may use")
