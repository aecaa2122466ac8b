"""Exact verdicts for positions of every game of the Black Hole family.

Two searches, same verdicts:

* ``fast`` (default): depth-first search over canonical positions (suits and
  pile order ignored) with a sound dead-end test, a proved dominance rule,
  move ordering and restarts; see `_core.c` for the soundness arguments.
  Where the foundation starts empty (All in a Row), it searches the layout
  upside down in turn: a win read backwards wins the other, so the two are
  won or lost together, and the cheaper one answers.
  Where piles are few and short (the Golf games), a deal a short first try
  does not win goes to the heights search, exhaustive over pile heights,
  which also finds the most cards played.
* ``classic``: the established peer's plain search (black-hole-solver 1.14's
  default mode), kept so that iteration counts are comparable with its
  "states checked"; Black Hole only.

`iterations` counts positions expanded by the verdict search (both ways, where
it searches upside down too; and those the heights search reached, where it
decides). For positions
that cannot be finished, `cards_played` is the exact most cards any line of
play puts on the foundation (a separate branch-and-bound search in `fast`
mode; free in `classic`, which visits everything anyway). `max_iters` bounds
the whole solve: the most-cards-played search gets what the verdict search
left, and if that runs out `cards_played` is None (not determined), never a
smaller number.

A Solver's tables serve one search at a time: a second thread calling it
while it searches gets a RuntimeError. The module-level `solve()` keeps a
Solver per thread, so it is safe (and deterministic) from any thread.
Searches look for signals every few milliseconds, so Ctrl-C stops them.
"""
from __future__ import annotations

import numbers
import os
import threading
import time
import weakref
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

from . import _core, _testhooks
from .arguments import is_truth_value, whole_number
from .board import Board, check_board, dealt_layout, solver_input, solver_rules
from .games import Game, UnknownGameError, get_game
from .quoting import counted
from .solution import Solution, line_text

if TYPE_CHECKING:  # annotations only: `dealing` is loaded when a deal is solved
    from .dealing import GameNumber

OUTCOMES = ("solved", "unsolved", "intractable")
_SOLVED = OUTCOMES.index("solved")
SEARCHES = ("fast", "classic")
MAX_ITERS = 2**63 - 1
"""The largest iteration budget: what the dataset's int64 `iterations` column holds
(and, at ~10^7 positions a second, longer than anyone waits)."""
ITERATIONS_REVISIONS = {("fast", "all_in_a_row"): 2, ("fast", "relaxed_golf"): 2}
"""How a search counts a game's `iterations`, for the pairs whose counting changed once runs kept it
(every other pair: 1). All in a Row's fast search, 2: it asks the layout upside down too, and both
count. Relaxed Golf's, 2: restricted heights passes come before the full one (and may find another
winning line, of another length). A run records its revision, so that resuming it never mixes two
countings in one dataset."""
DEFAULT_TABLE_BITS = 22
"""Most slots in each of the fast search's two tables, as a power of two (32 MiB each).

Each search starts in a 2^17-slot window that doubles as the search grows. A smaller table keeps
fewer refutations: `iterations` may grow, verdicts and cards played stay the same."""


@dataclass(frozen=True)
class SolveResult:
    """What a search found: a verdict, with a Solution (a replayed, legal win) when solved.

    `cards_played` counts the cards played from the position solved (of a
    position part-way through a game, not those already off the board);
    it is None for an unsolved position whose most-cards-played
    search did not finish within `max_iters` (or was not asked for). Two
    results are equal when they found the same: `seconds` is left out.
    """

    outcome: str
    iterations: int
    cards_played: int | None
    solution: Solution | None = None
    seconds: float = field(default=0.0, compare=False)

    @property
    def solved(self) -> bool:
        return self.outcome == "solved"

    def to_dict(self) -> dict:
        """What `solve --json` prints (besides `deal`); `solution` is [] unless solved."""
        return {
            "outcome": self.outcome,
            "iterations": self.iterations,
            "cards_played": self.cards_played,
            "solution": self.solution.to_json() if self.solution is not None else [],
            "seconds": self.seconds,
        }

    def __repr__(self) -> str:
        played = ("" if self.solved else ", most cards played unknown" if self.cards_played is None
                  else f", {counted(self.cards_played, 'card')} played")
        moves = "" if self.solution is None else f", {counted(len(self.solution), 'move')}"
        effort = counted(self.iterations, "iteration")
        return f"<SolveResult {self.outcome}: {effort}{played}{moves}, {self.seconds:.3f} s>"

    def _repr_html_(self) -> str | None:
        """A notebook shows a solved result as its repr over its solution's picture (None: the repr alone)."""
        if self.solution is None:
            return None
        from html import escape  # here: `blackhole-solve` starts without it

        return f"<pre>{escape(repr(self))}</pre>{self.solution._repr_svg_()}"


@contextmanager
def _saying_what_grew(message: str) -> Iterator[None]:
    """The compiled core's MemoryError says nothing: `message` says what grew (a run's failed chunk shows it)."""
    try:
        yield
    except MemoryError:
        raise MemoryError(message) from None


_solvers: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
"""Every Solver of this process, by id (a subclass that defines __eq__ has no hash), for `_after_fork_in_child`."""


def _after_fork_in_child() -> None:
    """A Solver another thread was solving with when the process forked (a notebook's background thread
    and a fork-started Pool) stayed busy in the child, where no thread solves: every solve there raised
    "already solving". It gets new tables (its own hold a copy of a half-done search)."""
    for solver in list(_solvers.values()):
        if solver._core.busy:
            solver._core = _core.Solver(solver._table_bits)


if hasattr(os, "register_at_fork"):  # (not on Windows, which has no fork)
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _new_solver(kind: type, table_bits: int) -> Solver:
    """A Solver of class `kind` with tables of its own (`Solver.__reduce__`): a subclass's own __init__ is
    not called (it may take other arguments, or size the tables otherwise); its attributes come back after."""
    solver = kind.__new__(kind)
    Solver.__init__(solver, table_bits)
    return solver


class Solver:
    """Owns the search tables (sized once, reused for every deal it solves)."""

    def __init__(self, table_bits: int = DEFAULT_TABLE_BITS) -> None:
        table_bits = whole_number("table_bits", table_bits, 8, 30)  # (the C type's own range, said here)
        self._table_bits = table_bits
        try:
            self._core = _core.Solver(table_bits)
        except MemoryError:
            raise MemoryError(f"a solver's tables (table_bits={table_bits}) do not fit in the memory this "
                              "process may use") from None
        _solvers[id(self)] = self

    def __reduce__(self):
        """A copy, deep copy or unpickled Solver (one sent to a spawned worker) is a new one of the same size
        (and class, and attributes a subclass added): tables shared with the original would make the two
        refuse to solve at once (one per thread)."""
        return _new_solver, (type(self), self._table_bits), {name: value for name, value in vars(self).items()
                                                             if name not in ("_core", "_table_bits")}

    def __repr__(self) -> str:
        if "_core" not in vars(self):  # its __init__ failed (or a subclass's skipped it): no tables
            return f"<{type(self).__name__} without tables>"
        return (f"<{type(self).__name__} table_bits={self._table_bits}, {self.memory_bytes / 2**20:,.0f} MiB, "
                f"{'busy' if self.busy else 'idle'}>")

    @property
    def memory_bytes(self) -> int:
        """Bytes held by the tables now (the classic visited set grows with the search,
        and is given back after a search that took more than 32 MiB)."""
        return self._core.memory_bytes

    @property
    def busy(self) -> bool:
        """True while a search runs in this Solver (from any thread)."""
        return self._core.busy

    def solve_raw(self, ranks: bytes, heights: bytes, foundation_rank: int, search: str = "fast",
                  max_iters: int | None = None, most_played: bool = True, talon: bytes = b"",
                  rules: bytes | None = None) -> tuple[int, int, int | None, bytes]:
        """The compiled search on solver input (`Board.solver_input()`, and `solver_rules()` for
        the talon and rules): (outcome index, iterations, cards played, piles; 255 a talon turn)."""
        if search not in SEARCHES:
            raise ValueError(f"unknown search {search!r}; choose from {', '.join(SEARCHES)}")
        check_max_iters(max_iters)
        if not is_truth_value(most_played):  # "no" was taken as True
            raise TypeError(f"most_played is True or False, not {most_played!r}")
        _testhooks.pause("solve-search")
        with _saying_what_grew(f"the {search} search's tables outgrew the memory this process may use "
                               "(--max-iters bounds them)"):
            return self._core.solve(ranks, heights, foundation_rank, SEARCHES.index(search),
                                    max_iters or 0, most_played, talon, rules)

    def solve(self, board: Board, search: str = "fast", max_iters: int | None = None,
              most_played: bool = True) -> SolveResult:
        """Decide `board` exactly; `intractable` only if `max_iters` ran out.

        `seconds` is the search's time. A solution is replayed from the board
        (in C, ~1 microsecond) before it is returned: SolutionError if the
        search were ever wrong.
        """
        check_board(board, "solve")
        check_search(search, board.game)
        started = time.perf_counter()
        outcome, iterations, played, piles = self.solve_raw(*board.solver_input(), search=search,
                                                            max_iters=max_iters, most_played=most_played,
                                                            **board.solver_rules())
        seconds = time.perf_counter() - started
        solution = Solution(board, piles) if outcome == _SOLVED else None
        return SolveResult(OUTCOMES[outcome], iterations, played, solution, seconds)

    def trap_walks(self, board: Board, walks: int, probes: int, seed: int, max_iters: int) -> list[bytes] | None:
        """The measurements of the difficulty score (see `difficulty`): per walk, its traps' depths;
        None if the board cannot be won (or a verdict needed more than max_iters positions)."""
        check_board(board, "trap_walks")
        _testhooks.pause("trap-walks")
        with _saying_what_grew("the difficulty score's searches outgrew the memory this process may use"):
            return self._core.trap_walks(*board.solver_input(), walks, probes, seed, max_iters,
                                         **board.solver_rules())

    def solve_deal(self, number: GameNumber | str | numbers.Number, search: str = "fast",
                   max_iters: int | None = None, game: Game | str | int | None = None) -> dict:
        """Deal a game number of `game` (Black Hole by default) and solve it: the row a run
        stores for it, as a dict.

        Keys: `game` (its key), `deal` (the number, a Python int: from 2^63 up no int64 holds it,
        and a run's dataset spells it in `deal_exact`), `ms`, `outcome` (a name), `iterations`,
        `cards_played`, `solution` (the text form, None unless solved), `seconds`.
        `pandas.DataFrame([solver.solve_deal(n) for n in range(1, 101)])` is a
        small dataset; `run` calls exactly this for every deal.
        """
        from .dealing import GameNumber, deal, dealt_card_ids  # here: `blackhole-solve` starts without dealing

        number = GameNumber.of(number)
        game = get_game(game)
        check_search(search, game)
        # What `self.solve(deal(number, game))` does, without the Board and Solution objects
        # (a third of a run's time beside the search): the same input, the same replay.
        layout = dealt_layout(dealt_card_ids(number, game), game)
        started = time.perf_counter()
        outcome, iterations, played, piles = self.solve_raw(*solver_input(layout), search=search,
                                                            max_iters=max_iters, **solver_rules(layout, game))
        seconds = time.perf_counter() - started
        text = None
        if outcome == _SOLVED:
            text = line_text(layout, game, piles)
            if text is None:
                Solution(deal(number, game), piles)  # raises SolutionError naming the move
        return {"game": game.key, "deal": number.number, "ms": number.ms, "outcome": OUTCOMES[outcome],
                "iterations": iterations, "cards_played": played, "solution": text, "seconds": seconds}


def check_search(search: str, game: Game) -> None:
    """Refuse a search that is none of SEARCHES, and the classic search on a game it does not play."""
    if not isinstance(search, str) or search not in SEARCHES:
        hint = ""
        if search is not None:  # (get_game takes None for the default game)
            try:  # `solve_deal(5, "golf")`: the game given in the search's place
                get_game(search)
                hint = f" ({search!r} is a game, not a search)"
            except UnknownGameError:
                pass
        raise ValueError(f"search must be one of {', '.join(map(repr, SEARCHES))}, not {search!r}{hint}")
    if search == "classic" and not game.classic_search:
        raise ValueError(f"the classic search reproduces black-hole-solver's Black Hole counts only; "
                         f"{game.name} is solved with the fast search")


def iterations_revision(search: str, game: Game) -> int:
    """See ITERATIONS_REVISIONS."""
    return ITERATIONS_REVISIONS.get((search, game.key), 1)


def check_max_iters(max_iters: int | None) -> int | None:
    """A budget as an int in 1..MAX_ITERS (None: no limit), refused otherwise instead of wrapped
    around; True is no budget of 1 (as `deal(True)` is no deal 1)."""
    return None if max_iters is None else whole_number("max_iters", max_iters, 1, MAX_ITERS)


_per_thread = threading.local()


def solve(board: Board, search: str = "fast", max_iters: int | None = None,
          most_played: bool = True) -> SolveResult:
    """Solve with this thread's Solver (created on first use), so any thread can call it."""
    solver = getattr(_per_thread, "solver", None)
    if solver is None:
        solver = _per_thread.solver = Solver()
    return solver.solve(board, search, max_iters, most_played)
