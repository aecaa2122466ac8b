"""Cards and their two-character codes (`AS`, `TD`, `KH`)."""
from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import cached_property

from .arguments import is_int_value
from .quoting import quoted

RANKS = "A23456789TJQK"
"""Rank letters, Ace = 0 ... King = 12 (Ace and King are adjacent)."""
SUITS = "CSHD"
"""Suit letters in PySolFC's order, so that card id = suit * 13 + rank."""
SUIT_SYMBOLS = "♣♠♥♦"
RED_SUITS = (SUITS.index("H"), SUITS.index("D"))
"""Hearts and diamonds: the suits drawn in red."""
NUM_RANKS = len(RANKS)


class CardParseError(ValueError):
    """A token that is not a card code; the message names the token."""


@dataclass(frozen=True, order=True)
class Card:
    """A playing card; `Card.from_text("TD").text == "TD"`."""

    rank: int  # 0 = Ace ... 12 = King
    suit: int  # index into SUITS

    def __post_init__(self) -> None:
        """Only the 52 cards: Card(-1, 0) printed as KC but equalled no card, Card(13, 0) failed when shown."""
        values = []
        for value, count in ((self.rank, NUM_RANKS), (self.suit, len(SUITS))):
            index = operator.index(value) if is_int_value(value) else -1  # ints, numpy integers
            if 0 <= index < count:
                values.append(index)
            else:
                raise CardParseError(f"no card has rank {self.rank!r} and suit {self.suit!r} "
                                     f"(ranks 0..{NUM_RANKS - 1}, suits 0..{len(SUITS) - 1})")
        object.__setattr__(self, "rank", values[0])
        object.__setattr__(self, "suit", values[1])

    @classmethod
    def from_text(cls, text: str) -> Card:
        if not isinstance(text, str):  # (None said "'NoneType' object is not subscriptable")
            raise TypeError(f"a card is text such as 'TD', not {type(text).__name__}")
        card = CARD_BY_TEXT.get(text)
        if card is None:
            raise CardParseError(f"unknown card {quoted(text)} (expected rank {RANKS} then suit {SUITS}, e.g. 'TD')")
        return card

    @classmethod
    def from_id(cls, card_id: int) -> Card:
        """From PySolFC's card id, suit * 13 + rank (a whole number: True was the 2 of clubs)."""
        if not is_int_value(card_id) or not 0 <= card_id < len(DECK):
            raise CardParseError(f"unknown card id {card_id!r} (expected 0..{len(DECK) - 1})")
        return DECK[card_id]

    @cached_property  # once per card object: DECK's 52 serve every deal, replays read them 10^7 times
    def id(self) -> int:
        return self.suit * NUM_RANKS + self.rank

    @cached_property
    def text(self) -> str:
        return RANKS[self.rank] + SUITS[self.suit]

    @property
    def pretty(self) -> str:
        """Rank and suit symbol, with '10' for ten: '10♦'."""
        rank = "10" if RANKS[self.rank] == "T" else RANKS[self.rank]
        return rank + SUIT_SYMBOLS[self.suit]

    def fits_on(self, other: Card) -> bool:
        """True if this card may be played on `other`: ranks one apart, K-A wrapping."""
        return (self.rank - other.rank) % NUM_RANKS in (1, NUM_RANKS - 1)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card.from_text({self.text!r})"


DECK = tuple(Card(card_id % NUM_RANKS, card_id // NUM_RANKS) for card_id in range(NUM_RANKS * len(SUITS)))
"""Every card, indexed by PySolFC's card id: `DECK[card_id]` without building a new object."""
CARD_BY_TEXT = {card.text: card for card in DECK}
"""Every card by its code: the one table that parses `"TD"`."""

ACE_OF_SPADES = CARD_BY_TEXT["AS"]
"""The card that starts on the foundation in every deal."""
