"""Exact verdicts for Black Hole positions.

Two searches, same verdicts:

* ``fast`` (default): depth-first search over canonical positions (suits and
  pile order ignored) with a sound dead-end test, a proved dominance rule,
  move ordering and restarts; see `_core.c` for the soundness arguments.
* ``classic``: the established peer's plain search (black-hole-solver 1.14's
  default mode), kept so that iteration counts are comparable with its
  "states checked".

`iterations` counts positions expanded by the verdict search. For positions
that cannot be finished, `cards_played` is the exact most cards any line of
play puts on the foundation (a separate branch-and-bound search in `fast`
mode; free in `classic`, which visits everything anyway).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from . import _core
from .board import Board, Move

OUTCOMES = ("solved", "unsolved", "intractable")
SEARCHES = ("fast", "classic")
DEFAULT_TABLE_BITS = 22
"""Most slots in each of the fast search's two tables, as a power of two (32 MiB each).

Each search starts in a 2^17-slot window that doubles as the search grows."""


@dataclass(frozen=True)
class SolveResult:
    """What a search found. `moves` replays legally from the board when solved."""

    outcome: str
    iterations: int
    cards_played: int
    moves: tuple[Move, ...] = field(default=())
    seconds: float = 0.0

    @property
    def solved(self) -> bool:
        return self.outcome == "solved"

    def to_dict(self) -> dict:
        return {
            "outcome": self.outcome,
            "iterations": self.iterations,
            "cards_played": self.cards_played,
            "solution": [move.to_dict() for move in self.moves],
            "seconds": self.seconds,
        }


class Solver:
    """Owns the search tables (sized once, reused for every deal it solves)."""

    def __init__(self, table_bits: int = DEFAULT_TABLE_BITS) -> None:
        self._core = _core.Solver(table_bits)

    @property
    def memory_bytes(self) -> int:
        """Bytes held by the tables now (the classic visited set grows with the search)."""
        return self._core.memory_bytes

    def solve_raw(self, ranks: bytes, heights: bytes, foundation_rank: int, search: str = "fast",
                  max_iters: int | None = None, most_played: bool = True) -> tuple[int, int, int, bytes]:
        """The compiled search on solver input: (outcome index, iterations, cards played, piles)."""
        if search not in SEARCHES:
            raise ValueError(f"unknown search {search!r}; choose from {', '.join(SEARCHES)}")
        if max_iters is not None and max_iters < 1:
            raise ValueError("max_iters must be at least 1")
        return self._core.solve(ranks, heights, foundation_rank, SEARCHES.index(search),
                                max_iters or 0, most_played)

    def solve(self, board: Board, search: str = "fast", max_iters: int | None = None,
              most_played: bool = True) -> SolveResult:
        """Decide `board` exactly; `intractable` only if `max_iters` ran out."""
        started = time.perf_counter()
        outcome, iterations, played, piles = self.solve_raw(*board.solver_input(), search=search,
                                                            max_iters=max_iters, most_played=most_played)
        seconds = time.perf_counter() - started
        moves, _ = board.replay(piles)  # raises IllegalMove if the search were ever wrong
        return SolveResult(OUTCOMES[outcome], iterations, played, tuple(moves), seconds)


_default_solver: Solver | None = None


def solve(board: Board, search: str = "fast", max_iters: int | None = None,
          most_played: bool = True) -> SolveResult:
    """Solve with a process-wide Solver (created on first use)."""
    global _default_solver
    if _default_solver is None:
        _default_solver = Solver()
    return _default_solver.solve(board, search, max_iters, most_played)
