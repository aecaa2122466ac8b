"""PySolFC game numbers and the boards they deal.

Plain `N` is what today's PySolFC deals: the Microsoft LCG below 32000 and
CPython's Mersenne Twister (`random.Random(N)`) from 32000 up, to MAX_DIGITS
digits. `msN` is always the LCG (1 <= N <= 2^33 - 1). The one trap is 32000:
older dealers (pysol-cards, the 2010 study) use the LCG for it, i.e. their
"32000" is PySolFC's `ms32000`. Every game of the family shuffles alike and
then lays the cards out as its `Game` says. The shuffle itself runs in C (`_core`).
"""
from __future__ import annotations

import numbers
import operator
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import total_ordering

from . import _core
from .arguments import is_int_value, is_truth_value
from .board import Board
from .games import BLACK_HOLE, Game, get_game
from .quoting import quoted

LCG_LIMIT = 32000
"""Plain numbers below this use the Microsoft LCG; from here up, MT19937."""
MS_MAX = 2**33 - 1
"""Largest `msN` (FreeCell Pro's extension of the LCG)."""
MAX_DIGITS = 4000
"""Longest number accepted (CPython refuses to convert much longer ones)."""
_TOO_LONG = 10**MAX_DIGITS
FLOAT_EXACT = 2**53
"""Floats hold every whole number below here; from here up one may be a rounded neighbour of the
number meant (2^53 + 1 reads back as 2^53; 26464608654870335080 as ...488)."""

_FLOAT_EXACT_OF_SIZE = {2: 2**11, 4: 2**24}
"""The same bound for numpy's narrower floats, by their size in bytes (float16, float32)."""


def float_exact_below(itemsize: int = 8) -> int:
    """The bound for floats of `itemsize` bytes (FLOAT_EXACT for Python's and numpy's float64)."""
    return _FLOAT_EXACT_OF_SIZE.get(itemsize, FLOAT_EXACT)


def rounded_float(limit: int) -> str:
    """Why a whole float from `limit` (float_exact_below) up is refused, for messages."""
    return f"from 2^{limit.bit_length() - 1} up a float may be a neighbour of the number written, rounded"

_SEPARATORS = re.compile(r"[\s#\-_.,]")
_DECIMAL = re.compile(r"[0-9][0-9,_]*\.[0-9]*|\.[0-9]+")
"""Text that is a decimal number as a CSV writes one (with or without thousands separators)."""


class DealNumberError(ValueError):
    """Text that is not a PySolFC game number."""


@total_ordering
@dataclass(frozen=True)
class GameNumber:
    """A PySolFC game number: `GameNumber.parse("ms123")`, `str(...) == "ms123"`. Sorted as `export`
    and `report` list deals: ordinary numbers, then ms ones."""

    number: int
    ms: bool = False

    def __post_init__(self) -> None:
        if type(self.number) is not int:  # numpy integers, Decimal, float; a bool is refused
            object.__setattr__(self, "number", _whole_number(self.number))
        if type(self.ms) is not bool:  # numpy's bool, 0 or 1; "False" is refused, not dealt as ms
            object.__setattr__(self, "ms", _truth_value(self.ms))
        if abs(self.number) >= _TOO_LONG:  # too long for str() too
            raise DealNumberError(f"invalid game number: more than {MAX_DIGITS} digits")
        if self.number < 1:
            raise DealNumberError(f"invalid game number {self}: numbers start at 1")
        if self.ms and self.number > MS_MAX:
            raise DealNumberError(f"invalid game number {self}: ms numbers go up to {MS_MAX}")

    @classmethod
    def parse(cls, value: str | numbers.Number) -> GameNumber:
        """Read text as PySolFC's game-number dialog does, or take a number's integral value.

        Text: `12345`, `#12,345`, `ms12345` (ms is case-sensitive, and digits
        alone follow it); PySolFC drops spaces, '#', '-', '_', '.' and ','
        from a plain number, so `"12.5"` is 125.
        Numbers: what a dataset, numpy or pyarrow hands back, `5`, `np.int64(5)`,
        `Decimal("5")`, `5.0`, `pa.scalar(5)` (a pyarrow text cell is text); `5.5`, NaN and bools are refused.
        """
        value = _text_cell(value)
        if not isinstance(value, str):
            return cls(value)
        text = value
        body = text.strip()
        ms = body.startswith("ms")
        if ms:
            body = body[2:]
            if not (body.isascii() and body.isdigit()):  # PySolFC takes ms and digits alone (ms([0-9]+)\n?)
                raise DealNumberError(f"invalid game number {quoted(text)}: 'ms' is followed by digits only")
        if re.sub(r"[\s#_.,]", "", body).startswith("-"):
            raise DealNumberError(f"invalid game number {quoted(text)}: negative")
        digits = _SEPARATORS.sub("", body)
        if digits.endswith("L"):
            digits = digits[:-1]
        if not digits or not digits.isascii() or not digits.isdigit():
            raise DealNumberError(f"invalid game number {quoted(text)}: expected digits, optionally after 'ms'")
        if len(digits) > MAX_DIGITS:
            raise DealNumberError(f"invalid game number {quoted(text)}: more than {MAX_DIGITS} digits")
        return cls(int(digits), ms)

    @classmethod
    def of(cls, value: GameNumber | str | numbers.Number) -> GameNumber:
        """What the Python API (`deal`, `Solver.solve_deal`) takes: `parse`, but text that is also a
        decimal of another value (`"1.0"`, `"1,000.5"`: a float column of a CSV read as text, as
        `board_of` reads it) is refused, since the dialog drops the '.' (10, 10005)."""
        if isinstance(value, cls):
            return value
        value = _text_cell(value)
        number = cls.parse(value)
        text = value.strip() if isinstance(value, str) and not number.ms else ""  # ms: digits alone (parse)
        if decimal := _DECIMAL.fullmatch(re.sub(r"[\s#]", "", text).removesuffix("L")):  # the dialog's
            # decorations aside ('#', spaces, a final L): a decimal ("1,0" stays the dialog's 10, as "12,345")
            if Decimal(re.sub(r"[,_]", "", decimal[0])) != number.number:
                raise DealNumberError(f"ambiguous game number {quoted(value)}: PySolFC's dialog reads it as "
                                      f"{number}, a column of numbers as {decimal[0]}; pass an int (or the "
                                      "digits as text)")
        return number

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, GameNumber):
            return NotImplemented
        return (self.ms, self.number) < (other.ms, other.number)

    @property
    def uses_lcg(self) -> bool:
        return self.ms or self.number < LCG_LIMIT

    @property
    def generator(self) -> str:
        return "ms-lcg" if self.uses_lcg else "mt19937"

    def __str__(self) -> str:
        return game_name(self.number, self.ms)


def game_name(number: object, ms: object = False) -> str:
    """A game number as PySolFC writes it, `123` or `ms123`: the one spelling, for `GameNumber` and reports.

    Lenient on purpose: a report names whatever a dataset row holds (a numpy
    integer, a Python int past int64, even a 0 or a negative from a CSV that
    `GameNumber` would refuse), so the number is only spelled, never checked.
    """
    return f"ms{number}" if ms else str(number)


def _arrow_scalar(value: object) -> bool:
    """Whether `value` is a pyarrow scalar (`table["deal"][i]`), told without importing pyarrow: the
    drop-in solver starts without it."""
    return type(value).__module__.startswith("pyarrow") and hasattr(value, "as_py")


def _text_cell(value: object) -> object:
    """A pyarrow text scalar (a text column's cell) as its text, read as text is; anything else as it is."""
    return value.as_py() if _arrow_scalar(value) and isinstance(value.as_py(), str) else value


def python_value(value: object) -> object:
    """A pyarrow scalar as the Python value it holds; anything else as it is."""
    return value.as_py() if _arrow_scalar(value) else value


def _truth_value(value: object) -> bool:
    """`ms` as a bool: a numpy bool or the int 0 or 1 (what a dataset hands back); anything else (text,
    NaN, None) would have been taken as its truthiness, and text "False" dealt an ms deal."""
    value = python_value(value)
    if is_truth_value(value):
        return bool(value)
    raise DealNumberError(f"invalid ms flag {value!r}: expected True or False")


def _whole_number(value: object) -> int:
    """The int a number stands for: ints, numpy integers, and floats or Decimals with no fraction.

    Datasets hand deals back as numpy integers, Decimals (the decimal128
    column) or floats (a column with gaps, or DuckDB's decimals in pandas) below
    2^53 (2^24 for a numpy float32), from where a float may stand for a
    neighbouring number; a bool is not a game number.
    """
    itemsize = getattr(getattr(value, "dtype", None), "itemsize", 8)
    if _arrow_scalar(value):  # a pyarrow float32 scalar rounds as numpy's does
        try:
            itemsize = value.type.bit_width // 8
        except (AttributeError, ValueError):  # text has no fixed width
            pass
    value = python_value(value)
    if is_int_value(value):
        return operator.index(value)
    # An Integral that is no index is numpy's timedelta64: a length of time.
    if isinstance(value, (bool, numbers.Integral)) or not isinstance(value, numbers.Number):
        kind = "a truth value" if isinstance(value, bool) else type(value).__name__
        raise DealNumberError(f"invalid game number {value!r}: {kind}, not a number")
    # A Decimal is judged in decimal: as_integer_ratio spells out its digits in binary first, minutes for
    # Decimal("1e100000000") or a million trailing zeros.
    if isinstance(value, Decimal) and value.is_finite():
        if value and value.adjusted() >= MAX_DIGITS:
            raise DealNumberError(f"invalid game number: more than {MAX_DIGITS} digits")
        if value != value.to_integral_value():
            raise DealNumberError(f"invalid game number {value!r}: not a whole number")
        return int(value)
    try:
        numerator, denominator = value.as_integer_ratio()  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OverflowError):  # complex, NaN, infinity
        denominator = 0
    if denominator != 1:
        raise DealNumberError(f"invalid game number {value!r}: not a whole number")
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Rational):
        exact = float_exact_below(itemsize)
        if abs(numerator) >= exact:
            raise DealNumberError(f"invalid game number {value!r}: {rounded_float(exact)}; read the column as "
                                  "integers or text")
    return numerator


def dealt_card_ids(number: GameNumber, game: Game = BLACK_HOLE) -> bytes:
    """All 52 card ids as `game` deals them: the piles' cards (pile p position i at
    pile_size * p + i), then the foundation card (unless it starts empty), then the talon."""
    layout = game.dealing
    if number.uses_lcg:
        return _core.deal_ms(number.number, *layout)
    words = max(1, (number.number.bit_length() + 31) // 32)
    return _core.deal_mt(number.number.to_bytes(4 * words, "little"), *layout)


def deal_card_ids(number: GameNumber, game: Game = BLACK_HOLE) -> bytes:
    """The piles' card ids (pile p position i at pile_size * p + i): Black Hole's 51."""
    return dealt_card_ids(number, game)[:game.layout_cards]


def deal(number: GameNumber | str | numbers.Number, game: Game | str | int | None = None) -> Board:
    """The board PySolFC deals for a game number (text as PySolFC reads it, bar a decimal: see
    `GameNumber.of`; or an integral number) in `game` (a Game, key, PySolFC id or name; Black Hole
    by default)."""
    number = GameNumber.of(number)
    game = get_game(game)
    return Board.from_card_ids(dealt_card_ids(number, game), str(number), game)
