"""blackhole-stats: deal, solve and study PySolFC's Black Hole solitaire and its family.

The public vocabulary: `Card`, `Board` (a layout or a position part-way
through a game), `Move`, `Game` / `GAMES` / `get_game()` (Black Hole, All in
a Row, Golf, Dead King Golf, Relaxed Golf, each described once), `GameNumber`
and `deal()` for PySolFC deals,
`Solver` / `solve()` for exact verdicts, `Solution` (a replayed win, with
one text form: `"2H 3S ..."`), and `board_of(row)` / `solution_of(row)` to
take a dataset row back to its board and solution.
"""
from importlib.metadata import PackageNotFoundError, version

from .board import Board, BoardParseError, IllegalMove, Move
from .cards import Card, CardParseError
from .dealing import DealNumberError, GameNumber, deal
from .games import GAMES, Game, UnknownGameError, get_game
from .solution import Solution, SolutionError, board_of, solution_of
from .solver import OUTCOMES, SEARCHES, SolveResult, Solver, solve

try:
    __version__ = version("blackhole-stats")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0+unknown"

__all__ = [
    "Board", "BoardParseError", "Card", "CardParseError", "DealNumberError", "GAMES", "Game", "GameNumber",
    "IllegalMove", "Move", "OUTCOMES", "SEARCHES", "Solution", "SolutionError", "SolveResult", "Solver",
    "UnknownGameError", "board_of", "deal", "get_game", "solution_of", "solve",
]
