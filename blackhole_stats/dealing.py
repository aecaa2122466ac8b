"""PySolFC game numbers and the boards they deal.

Plain `N` is what today's PySolFC deals: the Microsoft LCG below 32000 and
CPython's Mersenne Twister (`random.Random(N)`) from 32000 up, with no upper
bound. `msN` is always the LCG (1 <= N <= 2^33 - 1). The one trap is 32000:
older dealers (pysol-cards, the 2010 study) use the LCG for it, i.e. their
"32000" is PySolFC's `ms32000`. The shuffle itself runs in C (`_core`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from . import _core
from .board import Board

LCG_LIMIT = 32000
"""Plain numbers below this use the Microsoft LCG; from here up, MT19937."""
MS_MAX = 2**33 - 1
"""Largest `msN` (FreeCell Pro's extension of the LCG)."""
MAX_DIGITS = 4000
"""Longest number accepted (CPython refuses to convert much longer ones)."""

_SEPARATORS = re.compile(r"[\s#\-_.,]")


class DealNumberError(ValueError):
    """Text that is not a PySolFC game number."""


@dataclass(frozen=True, order=True)
class GameNumber:
    """A PySolFC game number: `GameNumber.parse("ms123")`, `str(...) == "ms123"`."""

    number: int
    ms: bool = False

    def __post_init__(self) -> None:
        if self.number < 1:
            raise DealNumberError(f"invalid game number {self}: numbers start at 1")
        if self.ms and self.number > MS_MAX:
            raise DealNumberError(f"invalid game number {self}: ms numbers go up to {MS_MAX}")

    @classmethod
    def parse(cls, text: str | int) -> GameNumber:
        """Read a number as PySolFC does: `12345`, `#12,345`, `ms12345` (ms is case-sensitive)."""
        if isinstance(text, int) and not isinstance(text, bool):
            return cls(text)
        if not isinstance(text, str):
            raise DealNumberError(f"invalid game number {text!r}")
        body = text.strip()
        ms = body.startswith("ms")
        if ms:
            body = body[2:]
        if re.sub(r"[\s#_.,]", "", body).startswith("-"):
            raise DealNumberError(f"invalid game number {text!r}: negative")
        digits = _SEPARATORS.sub("", body)
        if digits.endswith("L"):
            digits = digits[:-1]
        if not digits or not digits.isascii() or not digits.isdigit():
            raise DealNumberError(f"invalid game number {text!r}: expected digits, optionally after 'ms'")
        if len(digits) > MAX_DIGITS:
            raise DealNumberError(f"invalid game number {text[:20]!r}...: more than {MAX_DIGITS} digits")
        return cls(int(digits), ms)

    @property
    def uses_lcg(self) -> bool:
        return self.ms or self.number < LCG_LIMIT

    @property
    def generator(self) -> str:
        return "ms-lcg" if self.uses_lcg else "mt19937"

    def __str__(self) -> str:
        return f"ms{self.number}" if self.ms else str(self.number)


def deal_card_ids(game: GameNumber) -> bytes:
    """The 51 dealt card ids (pile p position i at 3 * p + i); the fast path."""
    if game.uses_lcg:
        return _core.deal_ms(game.number)
    words = max(1, (game.number.bit_length() + 31) // 32)
    return _core.deal_mt(game.number.to_bytes(4 * words, "little"))


def deal(game: GameNumber | str | int) -> Board:
    """The board PySolFC deals for a game number."""
    if not isinstance(game, GameNumber):
        game = GameNumber.parse(game)
    return Board.from_card_ids(deal_card_ids(game), str(game))
