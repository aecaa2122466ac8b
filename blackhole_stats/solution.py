"""Solutions: a winning line of play from a board, with one text form.

The text form is the cards in play order, `"2H 3S 2D ..."`: each card's pile
follows from the board, so the text is all a dataset stores, and
`Solution.from_text(board, text)` gives the moves back. Turning the next
talon card (Golf) is written `talon:8H`, so that a line reads as played. Making a Solution, in
any way, replays its line against the rules and checks that it empties the
board, so a Solution object is always a legal win. The replay runs in the
compiled core: `verify` checks a million stored solutions, and `Solver.solve`
every solution it returns, for about a microsecond each.

`board_of(row)` and `solution_of(row)` take a dataset row (from pandas,
pyarrow, polars, DuckDB or `Solver.solve_deal`) back to its board and solution.
"""
from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterable, Iterator

from . import _core
from .arguments import is_int_value
from .board import TALON_MOVE, Board, IllegalMove, Move, check_board
from .cards import DECK, Card
from .games import BLACK_HOLE, Game, get_game
from .quoting import counted

PREVIEW_MOVES = 5
"""Moves named in a Solution's repr."""

# What _core.play_line finds wrong with a line (0: a win).
_NOT_IN_LAYOUT, _NOT_ON_TOP, _NO_CARD, _DOES_NOT_FIT, _LEAVES_CARDS, _NOT_NEXT_IN_TALON, _AFTER_WIN = range(1, 8)
TALON_TEXT = "talon:"
"""How the text form writes a talon turn: `talon:8H`."""
_TALON_CARD = 64
"""play_line's by-card code for a talon turn: 64 + card id."""
_TOKEN_CODES = {**{card.text: card.id for card in DECK},
                **{TALON_TEXT + card.text: _TALON_CARD + card.id for card in DECK}}
_CARD_TEXT = tuple(card.text for card in DECK)
"""The text form's token of each card id (a pile move)."""


class SolutionError(IllegalMove):
    """A line that is not a legal win from its board; the message names the move."""


@dataclass(frozen=True, repr=False)
class Solution:
    """A win from `board`: `piles` holds the pile of each move (255 a talon turn), in play order.

    `str(solution)` is the text form; `moves`, `cards` and `to_json()` spell it out.
    """

    board: Board
    piles: bytes

    def __post_init__(self) -> None:
        if not isinstance(self.piles, bytes):
            object.__setattr__(self, "piles", _as_bytes(self.piles))
        _, cards = _play(self.board, self.piles, by_card=False)
        object.__setattr__(self, "_card_ids", cards)

    @classmethod
    def from_text(cls, board: Board, text: str) -> Solution:
        """Parse `"2H 3S talon:8H ..."` (what a dataset's `solution` column holds) and replay it."""
        if not isinstance(text, str):
            raise TypeError(f"a solution's text is a str, not {type(text).__name__}")
        tokens = text.split()
        try:
            line = bytes([_TOKEN_CODES[token] for token in tokens])
        except KeyError:
            step, token = next((step, token) for step, token in enumerate(tokens, 1) if token not in _TOKEN_CODES)
            raise SolutionError(f"move {step}: {token[:20]!r} is not a card "
                                f"(or '{TALON_TEXT}' and a card, for a talon turn)") from None
        piles, _ = _play(board, line, by_card=True)
        return cls(board, piles)

    @classmethod
    def from_piles(cls, board: Board, piles: Iterable[int | None]) -> Solution:
        """From the pile of each move (0-based, board order; None turns the talon), replayed. A pandas
        column of them holds NaN or NA for None, and floats for the piles then: taken as meant."""
        return cls(board, _as_bytes(map(_move_pile, piles)))

    @property
    def cards(self) -> tuple[Card, ...]:
        """The cards in play order."""
        return tuple([DECK[card_id] for card_id in self._card_ids])

    @cached_property
    def moves(self) -> tuple[Move, ...]:
        return tuple([Move(None if pile == TALON_MOVE else pile, DECK[card_id])
                      for pile, card_id in zip(self.piles, self._card_ids)])

    @property
    def text(self) -> str:
        """The text form: the cards in play order, `"2H 3S 2D ..."`, a talon turn `talon:8H`."""
        return _text(self.piles, self._card_ids)

    def to_json(self) -> list[dict]:
        """`[{"pile": 16, "card": "2D"}, {"talon": true, "card": "8H"}, ...]`, piles 0-based in
        board order, a talon turn named as such (`solve --json`)."""
        return [{"talon": True, "card": move.card.text} if move.is_talon else {"pile": move.pile, "card": move.card.text}
                for move in self.moves]

    def boards(self) -> Iterator[Board]:
        """Every position along the way, the start first and the board with empty piles last."""
        board = self.board
        yield board
        for pile in self.piles:
            board = board.play(None if pile == TALON_MOVE else pile)[1]
            yield board

    def svg(self) -> str:
        """The starting board with each card's move number on it."""
        order = {move.card: step for step, move in enumerate(self.moves, 1)}
        return self.board.svg(play_order=order)

    def _repr_svg_(self) -> str:
        return self.svg()

    def __len__(self) -> int:
        return len(self.piles)

    def __iter__(self) -> Iterator[Move]:
        return iter(self.moves)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        start = f" from deal {self.board.name}" if self.board.name else ""
        game = "" if self.board.game is BLACK_HOLE else f"{self.board.game.name} "
        preview = " ".join(card.text for card in self.cards[:PREVIEW_MOVES])
        more = " ..." if len(self) > PREVIEW_MOVES else ""
        return f"<{game}Solution{start}: {counted(len(self), 'move')}, {preview}{more}>"


def line_text(layout: tuple[bytes, bytes, int, bytes], game: Game, piles: bytes) -> str | None:
    """The text form of a winning line (its piles) from a fresh deal's `Board.layout`, replayed
    against the rules in C as every Solution is; None if it is not a legal win (then
    `Solution(board, piles)` says why). What a run stores, without a Board or a Solution."""
    ids, heights, foundation, talon = layout
    problem, _, _, cards = _core.play_line(ids, heights, foundation, piles, False, talon, game.rules_bytes)
    return None if problem else _text(piles, cards)


def _text(piles: bytes, cards: bytes) -> str:
    if TALON_MOVE not in piles:
        return " ".join([_CARD_TEXT[card_id] for card_id in cards])
    return " ".join([TALON_TEXT + _CARD_TEXT[card_id] if pile == TALON_MOVE else _CARD_TEXT[card_id]
                     for pile, card_id in zip(piles, cards)])


def board_of(row: Any) -> Board:
    """The board a dataset row was dealt from, in the row's `game` (without one: Black Hole's, with a
    warning, since every row this version writes names its game, and Golf's deal N is another board).

    `row` is anything with `deal` and `ms` by key or attribute: a pandas row
    (`df.iloc[i]`, `itertuples()`, `to_records()[i]`), a dict from pyarrow's
    `to_pylist()`, polars' `rows(named=True)`, a CSV read as text, or
    `Solver.solve_deal`; a whole table is refused (ValueError). The
    number may be any integral value a reader hands back (numpy integers,
    Decimal, float, digits); `deal_exact`, where a row has it and `deal` is
    null, is the exact number. Values are read as `report` reads a file's
    (`report.row_game_number`): `"1.0"` is deal 1 and an `ms` of `"False"`
    no ms deal, and what is neither a game number nor a truth value (a
    null `ms` among them; no `ms` field is an ordinary deal, with a warning
    from 32000 up, where msN is another board), or a row that
    says two things (both `deal` and `deal_exact`, `ms5` with a false `ms`),
    is refused (ValueError), never taken for another deal.
    """
    return _board_of(row)


WHY_NO_GAME = ("pandas drops the game column when it reads one game=... folder, and a selection of columns may "
               "leave it out")
"""Why a row of a dataset this version wrote may come without its game."""


def _board_of(row: Any) -> Board:
    """`board_of`, for it and `solution_of`: its warning points at their caller's line (stacklevel 3)."""
    from .dealing import LCG_LIMIT, MS_MAX, GameNumber, deal  # here: `blackhole-solve` starts without dealing

    if len(getattr(row, "shape", ())) == 2:  # a frame's missing column raises what its library likes (polars)
        raise ValueError("a table, not a row: pass one row (df.iloc[i], polars' rows(named=True)[i])")
    fields = {name: _field(row, name, _NO_FIELD) for name in ("deal", "ms", "deal_exact")}
    if fields["deal"] is _NO_FIELD and fields["deal_exact"] is _NO_FIELD:
        raise ValueError("the row has no field 'deal': pass one row with named fields (df.iloc[i], a dict of "
                         "to_pylist(), polars' rows(named=True), DuckDB's .df().iloc[i])")
    number, ms, exact = (None if value is _NO_FIELD else value for value in fields.values())
    for name, value in (("deal", number), ("ms", ms), ("deal_exact", exact)):
        _one_value(name, value)
    spelt_ms = isinstance(number, str) and number.strip().lower().startswith("ms")  # the flag adds nothing
    if fields["ms"] is not _NO_FIELD and _missing(ms) and not isinstance(ms, str) and not spelt_ms:  # "": CSV's
        raise ValueError("the row's ms is null: an ms flag is True or False, and which deal the row is would be a "
                         "guess (report refuses a null in a typed ms column too; pandas reads a CSV's empty cell as "
                         "NaN: fillna(False), or read_csv(..., keep_default_na=False) as report reads it)")
    game = _field(row, "game", absent=_NO_FIELD)
    if game is _NO_FIELD:  # report notes such a file too
        warnings.warn(f"the row has no game field: dealt as Black Hole's (every row this version writes names its "
                      f"game; {WHY_NO_GAME}; df.assign(game=...) names it)", stacklevel=3)
        game = BLACK_HOLE
    if _missing(game):
        raise ValueError("the row's game is empty: which game it was dealt for is no guess to make")
    game = get_game(game)
    plain = isinstance(number, numbers.Real) and not isinstance(number, bool) and not _missing(number) and \
        _missing(exact)  # else row_game_number refuses the pair
    if plain and (_missing(ms) or type(ms).__name__ in ("bool", "bool_")):  # a reader's numbers: no text to read
        # (GameNumber takes a whole float below 2^53 only, as the column readers do)
        chosen = GameNumber(number, not _missing(ms) and bool(ms))
    else:
        from .report import row_game_number

        chosen = row_game_number(*(None if _missing(value) else value for value in (number, ms, exact)))
    if (fields["ms"] is _NO_FIELD and not isinstance(number, str) and not chosen.ms  # text says ms (export's CSV)
            and LCG_LIMIT <= chosen.number <= MS_MAX):  # elsewhere N and msN are one board, or there is no msN
        warnings.warn(f"the row has no ms field: dealt as deal {chosen}, PySolFC's Mersenne Twister deal, another "
                      f"board than ms{chosen}'s (a selection of columns may leave ms out; runs hold both)",
                      stacklevel=3)
    return deal(chosen, game)


def solution_of(row: Any) -> Solution | None:
    """A row's stored solution, replayed from its deal; None if the row has none (not solved).

    The row is read first, as `board_of` reads it: a plain tuple (DuckDB's
    `fetchall()`, polars' `row(i)`) or a one-row table has no solution
    field to read, and "none" would call a solved deal unsolved; so would a
    null solution on a row whose outcome says solved (both ValueError)."""
    board = _board_of(row)
    text = _field(row, "solution", _NO_FIELD)
    if text is _NO_FIELD:
        raise ValueError("the row has no field 'solution' (not solved is a null there): pass one row with named "
                         "fields and the column")
    _one_value("solution", text)
    if _missing(text):
        if str(_field(row, "outcome")) == "solved":  # None would call it unsolved (str: pandas' NA has no truth)
            raise ValueError("the row is solved but its solution is null: a damaged row, or one whose solution "
                             "was dropped (the deal's line: solve(board_of(row)).solution)")
        return None
    if not isinstance(text, str):
        raise ValueError(f"the row's solution is {text!r}, not a line of play in text form")
    try:
        return Solution.from_text(board, text)
    except ValueError as error:
        tokens = text.split()  # a Black Hole line plays 51 cards and turns no talon card
        if _field(row, "game", _NO_FIELD) is not _NO_FIELD or (len(tokens) == 51 and TALON_TEXT not in text):
            raise
        raise type(error)(f"{error} (the row has no game, so it was dealt as Black Hole's: a row of another "
                          f"game needs its game field; {WHY_NO_GAME})") from None


def _play(board: Board, line: bytes, by_card: bool) -> tuple[bytes, bytes]:
    """Replay a line (piles, or card codes) from `board`: its piles and cards, or SolutionError."""
    check_board(board, "a Solution")
    ids, heights, foundation, talon = board.layout
    problem, step, piles, cards = _core.play_line(ids, heights, foundation, line, by_card, talon,
                                                  board.game.rules_bytes)
    if not problem:
        return piles, cards
    if problem == _LEAVES_CARDS:
        left = board.cards_left - sum(pile != TALON_MOVE for pile in piles)
        raise SolutionError(f"the line leaves {counted(left, 'card')} in the piles")
    where = f"move {step + 1}"
    if problem == _AFTER_WIN:
        raise SolutionError(f"{where}: the piles are already empty (the game is won: nothing more is played)")
    turned = piles.count(TALON_MOVE)
    next_card = board.talon[turned] if turned < len(board.talon) else None
    if problem == _NOT_NEXT_IN_TALON:
        named = DECK[line[step] - _TALON_CARD]
        if next_card is None:
            raise SolutionError(f"{where}: {TALON_TEXT}{named}, but the talon is empty")
        raise SolutionError(f"{where}: {TALON_TEXT}{named}, but the talon's next card is {next_card}")
    if by_card:
        card = DECK[line[step]]
        if problem == _NOT_IN_LAYOUT:
            if card in board.talon:
                raise SolutionError(f"{where}: {card} is in the talon (a talon turn is written {TALON_TEXT}{card})")
            raise SolutionError(f"{where}: {card} is not in a pile of the board")
        if problem == _NOT_ON_TOP:
            home = next(index for index, pile in enumerate(board.piles) if card in pile)
            raise SolutionError(f"{where}: {card} is not on top of pile {home}")
    else:
        if problem == _NO_CARD:
            if line[step] == TALON_MOVE:
                raise SolutionError(f"{where}: the talon has no card to turn")
            raise SolutionError(f"{where}: pile {line[step]} has no card to play")
        pile = board.piles[line[step]]
        card = pile[len(pile) - 1 - piles.count(line[step])]
    on = DECK[cards[-1]] if cards else board.foundation
    raise SolutionError(f"{where}: {card} does not fit on {on}")


def _move_pile(pile: object) -> object:
    """A move's pile as from_piles takes it: a null (None, NaN, pandas' NA) turns the talon, a whole
    float is its int; anything else (text too) is left to _as_bytes."""
    from .dealing import python_value  # here: `blackhole-solve` starts without dealing

    pile = python_value(pile)  # a pyarrow array's scalars
    if not isinstance(pile, str) and _missing(pile):
        return TALON_MOVE
    if type(pile).__name__ in ("bool", "bool_"):
        return repr(pile)  # no pile number: _as_bytes names it
    if isinstance(pile, numbers.Real) and not isinstance(pile, numbers.Integral) and float(pile).is_integer():
        return int(pile)
    return pile


def _as_bytes(piles: Iterable[int]) -> bytes:
    """Pile numbers as bytes; a number that cannot be a pile is refused naming its move."""
    piles = list(piles)
    try:
        return bytes(piles)
    except (TypeError, ValueError):
        step, pile = next((step, pile) for step, pile in enumerate(piles, 1)
                          if not is_int_value(pile) or not 0 <= pile < 256)
        raise SolutionError(f"move {step}: pile {pile!r} has no card to play") from None


_NO_FIELD = object()


def _field(row: Any, name: str, absent: Any = None) -> Any:
    """`row[name]` or `row.name` (pandas' itertuples gives namedtuples), a pyarrow scalar as its Python
    value; `absent` if it has neither."""
    from .dealing import python_value  # here: `blackhole-solve` starts without dealing

    try:
        value = row[name]
    except (KeyError, IndexError, TypeError, ValueError):  # ValueError: a numpy record's for a field it lacks
        value = getattr(row, name, absent)
    return python_value(value)


def _one_value(name: str, value: Any) -> None:
    """Refuse a field that holds a column (a dict of lists; tables are refused as a whole by `board_of`)."""
    if hasattr(value, "__len__") and not isinstance(value, (str, bytes)) and getattr(value, "ndim", 1) != 0:
        raise ValueError(f"the row's {name} is a column of values: pass one row (df.iloc[i]), not a table")


def _missing(value: Any) -> bool:
    """None, NaN, pandas' NA or blank text: what readers hand back for a null (a CSV read with
    `keep_default_na=False` gives empty cells as '')."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return True
    try:
        return bool(value != value)
    except TypeError:  # pandas.NA refuses to be a truth value
        return True
    except ArithmeticError:  # a signalling Decimal NaN: no null, and no game number either
        return False
