"""blackhole-stats: deal, solve and study PySolFC's Black Hole solitaire and its family.

The public vocabulary: `Card`, `Board` (a layout or a position part-way
through a game), `Move`, `Game` / `GAMES` / `get_game()` (Black Hole, All in
a Row, Golf, Dead King Golf, Relaxed Golf, each described once), `GameNumber`
and `deal()` for PySolFC deals,
`Solver` / `solve()` for exact verdicts, `Solution` (a replayed win, with
one text form: `"2H 3S ..."`), and `board_of(row)` / `solution_of(row)` to
take a dataset row back to its board and solution.

Each name loads its module when first used (PEP 562), so that importing the
package, which every command does first, loads nothing slow (`typing` alone,
whole before any thread can use the package): the console script must catch
Ctrl-C before anything slow is imported (see `console`).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING  # now, whole: a thread's dataclass saw another's half-imported `typing`

from ._version import __version__

_HOMES = {
    "Board": "board", "BoardParseError": "board", "IllegalMove": "board", "Move": "board",
    "Card": "cards", "CardParseError": "cards",
    "DealNumberError": "dealing", "GameNumber": "dealing", "deal": "dealing",
    "GAMES": "games", "Game": "games", "UnknownGameError": "games", "get_game": "games",
    "Solution": "solution", "SolutionError": "solution", "board_of": "solution", "solution_of": "solution",
    "OUTCOMES": "solver", "SEARCHES": "solver", "SolveResult": "solver", "Solver": "solver", "solve": "solver",
}
"""Each public name and the module that defines it."""

__all__ = sorted(_HOMES)

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time `__getattr__` loads the same names
    from .board import Board, BoardParseError, IllegalMove, Move
    from .cards import Card, CardParseError
    from .dealing import DealNumberError, GameNumber, deal
    from .games import GAMES, Game, UnknownGameError, get_game
    from .solution import Solution, SolutionError, board_of, solution_of
    from .solver import OUTCOMES, SEARCHES, SolveResult, Solver, solve


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value  # the next use is an ordinary lookup
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
