"""Boards (a layout or any position part-way through a game) and moves.

The canonical text form is the one black-hole-solve reads::

    Foundations: AS
    JD KS TH        <- pile 0, bottom card first, the last card is playable
    ...             <- up to 17 pile lines

Cards missing from a board count as already played, so a position in the
middle of a game is a board too.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from html import escape
from typing import BinaryIO, Iterable, Iterator, Mapping, Sequence

from .cards import ACE_OF_SPADES, DECK, NUM_RANKS, RED_SUITS, Card, CardParseError
from .quoting import quoted

NUM_PILES = 17
PILE_SIZE = 3
NUM_CARDS = NUM_PILES * PILE_SIZE
FOUNDATION_PREFIX = "Foundations: "

SVG_ROWS = (range(0, 5), range(5, 9), range(9, 13), range(13, 17))
"""Piles per row of the picture, as PySolFC lays out Black Hole."""
SVG_CARD_WIDTH, SVG_CARD_HEIGHT = 54, 72
SVG_FAN_STEP = 36
"""How much of a covered card shows: room for '10♥' in the picture's font."""
SVG_PILE_GAP, SVG_MARGIN = 18, 14

MAX_LINE = 64
"""Longest board line read (characters; a valid one has at most 15): longer is refused unread."""

FULL_HEIGHTS = bytes([PILE_SIZE] * NUM_PILES)
# bytes.translate table: PySolFC card id (suit * 13 + rank) -> rank.
RANK_OF_ID = bytes(i % NUM_RANKS if i < 52 else 0 for i in range(256))


class BoardParseError(ValueError):
    """Board text that is not a valid position; names the line and the token."""


class IllegalMove(ValueError):
    """A move that the rules do not allow in the position it is played in."""


@dataclass(frozen=True)
class Move:
    """Play the top card of pile `pile` (0-based, board order) to the foundation.

    A move has no text form of its own: in a line of play, the card names the
    move (see `Solution`), and its pile follows from the board.
    """

    pile: int
    card: Card

    def __repr__(self) -> str:
        return f"Move({self.pile}, Card.from_text({self.card.text!r}))"


@dataclass(frozen=True)
class Board:
    """A Black Hole position: the foundation's top card and 17 piles (bottom first)."""

    foundation: Card
    piles: tuple[tuple[Card, ...], ...]
    name: str | None = field(default=None, compare=False)
    """The game number it was dealt from (e.g. "42", "ms42"); None for positions read or played."""

    def __post_init__(self) -> None:
        if len(self.piles) != NUM_PILES:
            raise ValueError(f"a board has {NUM_PILES} piles, not {len(self.piles)}")
        cards = [self.foundation]
        for index, pile in enumerate(self.piles):
            if len(pile) > PILE_SIZE:
                raise ValueError(f"pile {index} holds {len(pile)} cards; at most {PILE_SIZE}")
            cards += pile
        if len(set(cards)) != len(cards):  # one set, not a loop: deal() builds a Board per dataset row
            seen = set()
            twice = next(card for card in cards if card in seen or seen.add(card))
            raise ValueError(f"card {twice} appears twice")

    # ----------------------------------------------------------------- text
    @classmethod
    def from_text(cls, text: str) -> Board:
        """Parse black-hole-solve board text; raises BoardParseError naming line and token."""
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()  # the final newline
        return cls.from_lines(lines)

    @classmethod
    def read(cls, stream: BinaryIO) -> Board:
        """Parse board text from a binary stream, reading no further than the first bad line.

        A huge file or a pipe that never ends costs a line's worth of memory
        before it is refused, never its whole size.
        """
        return cls.from_lines(_stream_lines(stream))

    @classmethod
    def from_lines(cls, lines: Iterable[str]) -> Board:
        """Parse board lines (without their '\\n'); stops at the first bad one, even in an endless iterable."""
        numbered = enumerate(lines, 1)
        _, first = next(numbered, (1, ""))
        _check_line(first, 1)
        if not first.startswith(FOUNDATION_PREFIX):
            raise BoardParseError(f"line 1: expected 'Foundations: <card>', got {quoted(first)}")
        foundation_tokens = first[len(FOUNDATION_PREFIX):].split(" ")
        if len(foundation_tokens) != 1:
            raise BoardParseError(f"line 1: expected one foundation card, got {quoted(first)}")
        foundation = _parse_card(foundation_tokens[0], 1)
        seen = {foundation: 1}
        piles = []
        for number, line in numbered:
            if number > NUM_PILES + 1:
                raise BoardParseError(f"line {number}: more than {NUM_PILES} piles ({quoted(line)})")
            _check_line(line, number)
            tokens = line.split(" ") if line else []
            if len(tokens) > PILE_SIZE:
                raise BoardParseError(f"line {number}: more than {PILE_SIZE} cards in a pile ({quoted(line)})")
            pile = []
            for token in tokens:
                card = _parse_card(token, number)
                if card in seen:
                    where = "the foundation" if seen[card] == 1 else f"line {seen[card]}"
                    raise BoardParseError(f"line {number}: card {token} is also on {where}")
                seen[card] = number
                pile.append(card)
            piles.append(tuple(pile))
        piles.extend(() for _ in range(NUM_PILES - len(piles)))
        return cls(foundation, tuple(piles))

    def to_text(self) -> str:
        lines = [FOUNDATION_PREFIX + self.foundation.text]
        lines += [" ".join(card.text for card in pile) for pile in self.piles]
        return "\n".join(lines) + "\n"

    def pretty(self) -> str:
        """Suit symbols, piles numbered in board order, the playable card last."""
        lines = [f"Foundation: {self.foundation.pretty}"]
        for index, pile in enumerate(self.piles):
            cards = " ".join(f"{card.pretty:>3}" for card in pile) or "(empty)"
            lines.append(f"{index:>2}: {cards}")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        name = f" {self.name}" if self.name else ""
        return f"<Board{name}: foundation {self.foundation}, {self.cards_left} cards left>"

    def _repr_svg_(self) -> str:
        return self.svg()

    def svg(self, title: str | None = None, play_order: Mapping[Card, int] | None = None) -> str:
        """The board as SVG, in PySolFC's 5-4-4-4 rows of fans, piles numbered as the CLI numbers them.

        Fans are spread wide enough that every covered card shows its rank and
        suit. `play_order` (card -> move number) writes each card's move on it,
        which turns a solution into one picture.
        """
        title = title or (f"Deal {self.name}" if self.name else "Position")
        columns = max(len(row) for row in SVG_ROWS)
        pile_width = SVG_CARD_WIDTH + (PILE_SIZE - 1) * SVG_FAN_STEP
        width = SVG_MARGIN * 2 + columns * pile_width + (columns - 1) * SVG_PILE_GAP
        row_height = SVG_CARD_HEIGHT + 26
        top = 64
        height = top + len(SVG_ROWS) * row_height
        if play_order:
            title += " (#n: the n-th card played)"
        parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                 f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
                 f'<rect width="{width}" height="{height}" fill="#2e7d4f"/>',
                 f'<text class="title" x="{SVG_MARGIN}" y="30" font-size="20" font-weight="bold" '
                 f'fill="#fff">{escape(title)}</text>']

        def corner(row_index: int, column: int) -> tuple[int, int]:
            return SVG_MARGIN + column * (pile_width + SVG_PILE_GAP), top + row_index * row_height

        x, y = corner(1, columns - 1)  # the second row leaves the last column free
        parts.append(f'<text x="{x}" y="{y - 6}" font-size="12" fill="#d8f0e0">foundation</text>')
        parts.append(_svg_card(self.foundation, x, y, None))
        for row_index, row in enumerate(SVG_ROWS):
            for column, pile_index in enumerate(row):
                x, y = corner(row_index, column)
                parts.append(f'<text class="pile-number" x="{x}" y="{y - 6}" font-size="12" '
                             f'fill="#d8f0e0">pile {pile_index}</text>')
                for depth, card in enumerate(self.piles[pile_index]):
                    order = play_order.get(card) if play_order else None
                    parts.append(_svg_card(card, x + depth * SVG_FAN_STEP, y, order))
        parts.append("</svg>")
        return "".join(parts)

    # ----------------------------------------------------------------- play
    @classmethod
    def from_card_ids(cls, ids: Sequence[int], name: str | None = None) -> Board:
        """A fresh deal: 51 PySolFC card ids, pile p position i at 3 * p + i.

        Checked as ids (51 distinct bytes), not as Card objects: `deal()` builds
        a Board for every row `verify` reads, and hashing 52 cards would double its cost.
        """
        ids = bytes(ids)
        if len(ids) != NUM_CARDS or len(set(ids)) != NUM_CARDS or max(ids) >= len(DECK) or ACE_OF_SPADES.id in ids:
            raise ValueError(f"a fresh deal is {NUM_CARDS} distinct card ids 0..{len(DECK) - 1} "
                             f"without the Ace of Spades ({ACE_OF_SPADES.id})")
        cards = iter([DECK[card_id] for card_id in ids])
        board = object.__new__(cls)  # what __init__ does, without checking the cards again
        for attribute, value in (("foundation", ACE_OF_SPADES), ("piles", tuple(zip(cards, cards, cards))),
                                 ("name", name), ("layout", (ids, FULL_HEIGHTS, ACE_OF_SPADES.id))):
            object.__setattr__(board, attribute, value)
        return board

    @cached_property
    def layout(self) -> tuple[bytes, bytes, int]:
        """Card ids (51 bytes, pile p position i at 3 * p + i, 0 past a pile's top), heights
        (17 bytes), the foundation's card id: the board as the compiled core reads it."""
        ids = bytearray(NUM_CARDS)
        for p, pile in enumerate(self.piles):
            ids[PILE_SIZE * p:PILE_SIZE * p + len(pile)] = bytes(card.id for card in pile)
        return bytes(ids), bytes(len(pile) for pile in self.piles), self.foundation.id

    @property
    def cards_left(self) -> int:
        return sum(len(pile) for pile in self.piles)

    def legal_moves(self) -> list[Move]:
        return [Move(index, pile[-1]) for index, pile in enumerate(self.piles)
                if pile and pile[-1].fits_on(self.foundation)]

    def play(self, pile: int) -> tuple[Move, Board]:
        """Play the top card of `pile`; raises IllegalMove if the rules forbid it."""
        if not 0 <= pile < NUM_PILES:
            raise IllegalMove(f"there is no pile {pile}")
        cards = self.piles[pile]
        if not cards:
            raise IllegalMove(f"pile {pile} is empty")
        card = cards[-1]
        if not card.fits_on(self.foundation):
            raise IllegalMove(f"{card} from pile {pile} does not fit on {self.foundation}")
        piles = self.piles[:pile] + (cards[:-1],) + self.piles[pile + 1:]
        return Move(pile, card), Board(card, piles)

    def solver_input(self) -> tuple[bytes, bytes, int]:
        """Ranks (51 bytes, 3 per pile), heights (17 bytes), foundation rank."""
        ids, heights, foundation = self.layout
        return ids.translate(RANK_OF_ID), heights, foundation % NUM_RANKS


def _svg_card(card: Card, x: int, y: int, order: int | None) -> str:
    """One card: rank and suit in the strip that stays visible when the next card covers it."""
    colour = "#c00" if card.suit in RED_SUITS else "#000"
    move = ("" if order is None else
            f'<text class="move" x="{x + 4}" y="{y + SVG_CARD_HEIGHT - 8}" font-size="12" '
            f'font-weight="bold" fill="#1a4fb0">#{order}</text>')
    return (f'<g class="card" data-card="{card.text}">'
            f'<rect x="{x}" y="{y}" width="{SVG_CARD_WIDTH}" height="{SVG_CARD_HEIGHT}" rx="5" '
            f'fill="#fff" stroke="#333"/>'
            f'<text class="label" x="{x + 3}" y="{y + 17}" font-size="15" font-weight="bold" '
            f'fill="{colour}">{escape(card.pretty)}</text>{move}</g>')


def _stream_lines(stream: BinaryIO) -> Iterator[str]:
    """Decoded lines of a binary stream; a longer line than MAX_LINE arrives cut, to be refused."""
    number = 1
    while raw := stream.readline(MAX_LINE + 1):  # the line and its '\n'
        try:
            yield raw.removesuffix(b"\n").decode("utf-8")
        except UnicodeDecodeError:
            raise BoardParseError(f"line {number}: not UTF-8 text ({quoted(raw)})") from None
        number += 1


def _check_line(line: str, number: int) -> None:
    if "\r" in line:
        raise BoardParseError(f"line {number}: stray '\\r' (line endings must be '\\n')")
    if len(line) > MAX_LINE:
        raise BoardParseError(f"line {number}: longer than {MAX_LINE} characters ({quoted(line)})")


def _parse_card(token: str, line: int) -> Card:
    try:
        return Card.from_text(token)
    except CardParseError as error:
        raise BoardParseError(f"line {line}: {error}") from None
