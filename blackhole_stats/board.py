"""Boards (a layout or any position part-way through a game) and moves.

The canonical text form is the one black-hole-solve reads::

    Talon: 8H 2C JH ...  <- only in games with a talon (Golf); the next card first;
                            PySolFC leaves the line out once the talon is empty
    Foundations: AS      <- '-' when empty (All in a Row before its first card)
    JD KS TH             <- pile 0, bottom card first, the last card is playable
    ...                  <- up to the game's number of pile lines

Cards missing from a board count as already played, so a position in the
middle of a game is a board too. A board belongs to a game (`games.py`,
Black Hole unless told), which says how many piles, how deep, whether there
is a talon and what may be played on what.
"""
from __future__ import annotations

import operator
import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import BinaryIO, Iterable, Iterator, Mapping, Sequence, TextIO

from .arguments import check_instance, is_int_value
from .cards import DECK, NUM_RANKS, RED_SUITS, Card, CardParseError
from .games import BLACK_HOLE, EMPTY_FOUNDATION, Game, get_game
from .quoting import QUOTE_LIMIT, counted, quoted

NUM_PILES = BLACK_HOLE.piles
PILE_SIZE = BLACK_HOLE.pile_size
NUM_CARDS = BLACK_HOLE.layout_cards
"""Black Hole's layout: what its datasets and `verify` count."""
FOUNDATION_PREFIX = "Foundations: "
EMPTY_MARK = "-"
"""The foundation line's word for an empty foundation."""
TALON_PREFIX = "Talon:"
BYTE_ORDER_MARK = "\ufeff"
TALON_MOVE = 255
"""The pile byte of a talon turn in a line of play (what the compiled core uses)."""
EMPTY_FOUNDATION_ID = len(DECK)
"""The foundation's 'card id' when it is empty, as the compiled core reads it."""
SVG_CARD_WIDTH, SVG_CARD_HEIGHT = 54, 72
SVG_FAN_STEP = 36
"""How much of a covered card shows: room for '10♥' in the picture's font."""
SVG_PILE_GAP, SVG_MARGIN = 18, 14

MAX_LINE = 4096
"""Longest board line read (characters): a valid one has at most 15 cards, but the peer reads any
number of spaces between them and at the end; longer is refused unread (the peer's whole board
fits in 4092 bytes)."""
MAX_LINES = 1000
"""Lines read before a board is refused: a board has at most 19, and blank lines around it are skipped."""

# bytes.translate table: PySolFC card id (suit * 13 + rank) -> rank.
RANK_OF_ID = bytes(i % NUM_RANKS if i < 52 else 0 for i in range(256))


class BoardParseError(ValueError):
    """Board text that is not a valid position; names the line and the token."""


class IllegalMove(ValueError):
    """A move that the rules do not allow in the position it is played in."""


@dataclass(frozen=True)
class Move:
    """Play the top card of pile `pile` (0-based, board order) to the foundation,
    or (`pile` None) turn the next talon card onto it.

    In a line of play the card names the move (see `Solution`): its pile
    follows from the board, and a talon turn is written `talon:8H`.
    """

    pile: int | None
    card: Card

    @property
    def is_talon(self) -> bool:
        return self.pile is None

    @property
    def text(self) -> str:
        """The move in a solution's text form: `2H`, or `talon:8H` for a talon turn."""
        return f"talon:{self.card.text}" if self.pile is None else self.card.text

    def __repr__(self) -> str:
        """`Move(3, Card.from_text('2H'))`; a Move made of anything else shows it (no `.text` to fail)."""
        return f"Move({self.pile!r}, {self.card!r})"


_CARDS = frozenset(DECK)


@dataclass(frozen=True)
class Board:
    """A position of a game: the foundation's top card (None: empty), the piles
    (bottom first) and the talon (the next card to turn first). `game`: a Game, or
    its key, PySolFC id or name (`get_game`)."""

    foundation: Card | None
    piles: tuple[tuple[Card, ...], ...]
    name: str | None = field(default=None, compare=False)
    """The game number it was dealt from (e.g. "42", "ms42"); None for positions read or played."""
    talon: tuple[Card, ...] = ()
    game: Game = BLACK_HOLE

    def __post_init__(self) -> None:
        if not isinstance(self.game, Game):
            object.__setattr__(self, "game", get_game(self.game))
        game = self.game
        if type(self.piles) is not tuple or not all(type(pile) is tuple for pile in self.piles):
            object.__setattr__(self, "piles", tuple(map(_cards, self.piles)))  # lists: equal, hashable
        if type(self.talon) is not tuple:
            object.__setattr__(self, "talon", _cards(self.talon))
        if len(self.piles) != game.piles:
            raise ValueError(f"{game.name} has {game.piles} piles, not {len(self.piles)}")
        if len(self.talon) > game.talon_size:
            raise ValueError(f"{game.name}'s talon holds at most {game.talon_size} cards, not {len(self.talon)}")
        cards = list(self.talon)
        if self.foundation is not None:
            cards.append(self.foundation)
        for index, pile in enumerate(self.piles):
            if len(pile) > game.pile_size:
                raise ValueError(f"pile {index} holds {len(pile)} cards; at most {game.pile_size}")
            cards += pile
        unique = set(cards)  # set operations, not a loop: every position played or parsed comes here
        if not unique <= _CARDS:
            raise ValueError(f"{next(card for card in cards if card not in _CARDS)!r} is not a Card")
        if len(unique) != len(cards):
            seen = set()
            twice = next(card for card in cards if card in seen or seen.add(card))
            raise ValueError(f"card {twice} appears twice")
        if self.foundation is None:
            if game.foundation_start != "empty":
                raise ValueError(f"the foundation of {game.name} is never empty")
            if len(cards) != len(DECK):
                raise ValueError(f"an empty foundation means no card has been played, "
                                 f"but {len(DECK) - len(cards)} of the 52 are missing")

    # ----------------------------------------------------------------- text
    @classmethod
    def from_text(cls, text: str, game: Game | str | int = BLACK_HOLE) -> Board:
        """Parse black-hole-solve board text of `game` (a Game, key, id or name); raises BoardParseError
        naming line and token."""
        if not isinstance(text, str):  # (bytes said "a bytes-like object is required, not 'str'")
            raise TypeError(f"board text is a str, not {type(text).__name__}: decode bytes first, or use Board.read")
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()  # the final newline
        return cls.from_lines(lines, game)

    @classmethod
    def read(cls, source: BinaryIO | TextIO | os.PathLike, game: Game | str | int = BLACK_HOLE,
             every_pile: bool = False) -> Board:
        """Parse board text from an open file or a path (`pathlib.Path`), reading no further than the
        first bad line.

        A huge file or a pipe that never ends costs a line's worth of memory
        before it is refused, never its whole size. A file opened as text
        (`open(path, encoding=...)`) is read in its encoding from where it
        stands; a bare '\\r' line end (which its reading turns into '\\n') is
        refused, as every other way of reading refuses it. A str is refused: it
        could be a path or board text (`Board.from_text`).
        """
        if isinstance(source, os.PathLike):
            with open(source, "rb") as stream:
                return cls.from_lines(_stream_lines(stream), game, every_pile)
        if not callable(getattr(source, "readline", None)):
            hint = ": board text goes to Board.from_text, a path to Board.read(Path(...))" \
                if isinstance(source, (str, bytes)) else ""
            raise TypeError(f"Board.read takes an open file or a path, not {type(source).__name__}{hint}")
        return cls.from_lines(_stream_lines(source), game, every_pile)

    @classmethod
    def from_lines(cls, lines: Iterable[str], game: Game | str | int = BLACK_HOLE, every_pile: bool = False) -> Board:
        """Parse board lines (without their '\\n'); stops at the first bad one, even in an endless iterable.

        Piles missing after the last line are empty, unless `every_pile` (the peer's reading, which the
        drop-in keeps): then a board cut short is refused, as text that ends early is more often a
        truncated file than a position whose last piles are empty (PySolFC writes each as an empty line).

        A line may end in '\\r' (CRLF text: Windows editors, and PySolFC's text-mode pipe to the solver
        there); a '\\r' anywhere else is refused. The first line may start with a byte-order mark
        (Notepad's "UTF-8 with BOM"), which is no card.
        """
        game = get_game(game)
        numbered = _numbered(_without_byte_order_mark(lines))
        seen: dict[Card, str] = {}

        def take(token: str, number: int, where: str) -> Card:
            card = _parse_card(token, number)
            if card in seen:
                raise BoardParseError(f"line {number}: card {token} is also {seen[card]}")
            seen[card] = where
            return card

        def read_talon(line: str, number: int, after_foundation: bool) -> list[Card]:
            """The talon's cards; PySolFC writes its line first, the peer also reads it right after the foundation's."""
            if not game.has_talon:
                raise BoardParseError(f"line {number}: {game.name} has no talon ({quoted(line)})")
            if talon is not None:
                raise BoardParseError(f"line {number}: a second Talon line ({quoted(line)})")
            if not after_foundation:
                raise BoardParseError(f"line {number}: the Talon line must be the first line or come right after "
                                      f"the Foundations line ({quoted(line)})")
            rest = line[len(TALON_PREFIX):]
            if rest and not rest.startswith(" "):
                raise BoardParseError(f"line {number}: expected '{TALON_PREFIX} <cards>', got {quoted(line)}")
            tokens = _cards_of(rest)  # read card by card, as the peer reads: a bad card is named before the count
            cards = [take(token, number, "in the talon") for token in tokens[:game.talon_size]]
            if len(tokens) > game.talon_size:
                raise BoardParseError(f"line {number}: more than {game.talon_size} cards in the talon "
                                      f"({quoted(line)})")
            return cards

        talon: list[Card] | None = None
        number, line = 0, ""
        for number, line in numbered:  # blank lines before the board: the peer skips them too
            if line:
                break
        else:
            raise BoardParseError("no board: the input is empty" if not number else
                                  f"no board: the input is {counted(number, 'blank line')}")
        _check_line(line, number)
        if line.startswith(TALON_PREFIX):
            talon = read_talon(line, number, after_foundation=True)
            number, line = next(numbered, (number + 1, ""))
            _check_line(line, number)
        if not line.startswith(FOUNDATION_PREFIX):
            expected = f"'{TALON_PREFIX} <cards>' or " if game.has_talon and talon is None else ""
            raise BoardParseError(f"line {number}: expected {expected}'Foundations: <card>', got {quoted(line)}")
        foundation_tokens = _cards_of(line[len(FOUNDATION_PREFIX):])
        if len(foundation_tokens) != 1:
            raise BoardParseError(f"line {number}: expected one foundation card, got {quoted(line)}")
        foundation_line = number
        if foundation_tokens[0] == EMPTY_MARK:
            if game.foundation_start != "empty":
                raise BoardParseError(f"line {number}: the foundation of {game.name} is never empty "
                                      f"({quoted(line)})")
            foundation = None
        else:
            foundation = take(foundation_tokens[0], number, "on the foundation")
        piles = []
        first_pile = number + 1
        for number, line in numbered:
            _check_line(line, number)
            if line.startswith(TALON_PREFIX):
                talon = read_talon(line, number, after_foundation=number == foundation_line + 1)
                first_pile += 1
                continue
            if line.startswith(FOUNDATION_PREFIX.rstrip()):
                raise BoardParseError(f"line {number}: a second Foundations line ({quoted(line)})")
            if number >= first_pile + game.piles:
                if not line:
                    continue  # blank lines after the last pile, which the peer never reads
                raise BoardParseError(f"line {number}: more than {game.piles} piles ({quoted(line)})")
            if line.startswith(" "):
                raise BoardParseError(f"line {number}: starts with a space (a pile's line starts with its bottom "
                                      f"card; an empty pile is an empty line): {quoted(line)}")
            tokens = _cards_of(line)  # as the talon's: `: QD JC TC` (a --display-boards line) names the ':'
            piles.append(tuple(take(token, number, f"on line {number}") for token in tokens[:game.pile_size]))
            if len(tokens) > game.pile_size:
                raise BoardParseError(f"line {number}: more than {game.pile_size} cards in a pile ({quoted(line)})")
        if every_pile and len(piles) < game.piles:
            raise BoardParseError(f"line {number + 1}: the board ends after {len(piles)} of the {game.piles} "
                                  "piles (an empty pile is an empty line)")
        piles.extend(() for _ in range(game.piles - len(piles)))
        if foundation is None and len(seen) != len(DECK):
            raise BoardParseError(f"line {foundation_line}: an empty foundation means no card has been played, "
                                  f"but the board holds {len(seen)} of the 52 cards")
        return cls(foundation, tuple(piles), talon=tuple(talon or ()), game=game)

    def to_text(self) -> str:
        lines = []
        if self.game.has_talon:
            lines.append(" ".join([TALON_PREFIX, *(card.text for card in self.talon)]))
        lines.append(FOUNDATION_PREFIX + (EMPTY_MARK if self.foundation is None else self.foundation.text))
        lines += [" ".join(card.text for card in pile) for pile in self.piles]
        return "\n".join(lines) + "\n"

    def pretty(self) -> str:
        """Suit symbols, piles numbered in board order, the playable card last."""
        lines = []
        if self.game.has_talon:
            lines.append("Talon: " + (" ".join(card.pretty for card in self.talon) or "(empty)"))
        lines.append(f"Foundation: {'(empty)' if self.foundation is None else self.foundation.pretty}")
        for index, pile in enumerate(self.piles):
            cards = " ".join(f"{card.pretty:>3}" for card in pile) or "(empty)"
            lines.append(f"{index:>2}: {cards}")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        name = f" {self.name}" if self.name else ""
        game = "" if self.game is BLACK_HOLE else f"{self.game.name} "
        talon = f", {len(self.talon)} in the talon" if self.game.has_talon else ""
        left = f"{counted(self.cards_left, 'card')} left"
        return f"<{game}Board{name}: foundation {self.foundation or 'empty'}, {left}{talon}>"

    def _repr_svg_(self) -> str:
        return self.svg()

    def svg(self, title: str | None = None, play_order: Mapping[Card, int] | None = None) -> str:
        """The board as SVG, in PySolFC's rows of fans, piles numbered as the CLI numbers them.

        Fans are spread wide enough that every covered card shows its rank and
        suit. The foundation sits in a free place at the end of a row (a row of
        its own, with the talon fanned beside it, when there is none or the game
        has a talon); an empty foundation is an empty outline. `play_order`
        (card -> move number) writes each card's move on it, which turns a
        solution into one picture.
        """
        from html import escape

        game = self.game
        title = title or (f"{game.name if game is not BLACK_HOLE else 'Deal'} {self.name}".strip()
                          if self.name else "Position")
        rows, start = [], 0
        for size in game.svg_rows:
            rows.append(range(start, start + size))
            start += size
        columns = max(game.svg_rows)
        pile_width = SVG_CARD_WIDTH + (game.pile_size - 1) * SVG_FAN_STEP
        free_row = next((index for index, row in enumerate(rows) if len(row) < columns), None)
        own_row = game.has_talon or free_row is None
        talon_width = SVG_CARD_WIDTH + 24 + SVG_CARD_WIDTH + max(0, game.talon_size - 1) * SVG_FAN_STEP
        width = SVG_MARGIN * 2 + max(columns * pile_width + (columns - 1) * SVG_PILE_GAP, talon_width)
        row_height = SVG_CARD_HEIGHT + 26
        top = 64
        height = top + (len(rows) + own_row) * row_height
        if play_order:
            title += " (#n: the n-th card played)"
        parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                 f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
                 f'<rect width="{width}" height="{height}" fill="#2e7d4f"/>',
                 f'<text class="title" x="{SVG_MARGIN}" y="30" font-size="20" font-weight="bold" '
                 f'fill="#fff">{escape(title)}</text>']

        def corner(row_index: int, column: int) -> tuple[int, int]:
            return SVG_MARGIN + column * (pile_width + SVG_PILE_GAP), top + (row_index + own_row) * row_height

        def label(x: int, y: int, text: str, css: str = "") -> str:
            css = f' class="{css}"' if css else ""
            return f'<text{css} x="{x}" y="{y - 6}" font-size="12" fill="#d8f0e0">{text}</text>'

        if own_row:
            x, y = SVG_MARGIN, top
        else:
            x, y = corner(free_row, columns - 1)
        parts.append(label(x, y, "foundation"))
        parts.append(_svg_empty(x, y) if self.foundation is None else _svg_card(self.foundation, x, y, None))
        if game.has_talon:
            x += SVG_CARD_WIDTH + 24
            parts.append(label(x, y, f"talon ({len(self.talon)}, the next at the right)", "talon"))
            if not self.talon:
                parts.append(_svg_empty(x, y))
            for depth, card in enumerate(reversed(self.talon)):  # fanned as a pile: the next card on top
                order = play_order.get(card) if play_order else None
                parts.append(_svg_card(card, x + depth * SVG_FAN_STEP, y, order))
        for row_index, row in enumerate(rows):
            for column, pile_index in enumerate(row):
                x, y = corner(row_index, column)
                parts.append(label(x, y, f"pile {pile_index}", "pile-number"))
                for depth, card in enumerate(self.piles[pile_index]):
                    order = play_order.get(card) if play_order else None
                    parts.append(_svg_card(card, x + depth * SVG_FAN_STEP, y, order))
        parts.append("</svg>")
        return "".join(parts)

    # ----------------------------------------------------------------- play
    @classmethod
    def from_card_ids(cls, ids: Sequence[int], name: str | None = None, game: Game | str | int = BLACK_HOLE
                      ) -> Board:
        """A fresh deal from the 52 card ids in the order `dealing` hands them over: the piles'
        cards (pile p position i at pile_size * p + i), then the foundation card unless the
        game starts it empty, then the talon (the next card first).

        Checked as ids (52 distinct bytes), not as Card objects: `deal()` builds
        a Board for every row `verify` reads, and hashing 52 cards would double its cost.
        """
        wrong = f"a fresh deal is all {len(DECK)} card ids 0..{len(DECK) - 1}, each once"
        game = get_game(game)
        try:  # a numpy array by its values, not its memory (bytes() of int64 ids reads 8 bytes an id)
            ids = bytes(ids if isinstance(ids, (bytes, bytearray)) else list(ids))
        except (TypeError, ValueError):  # text, or ids outside 0..255
            raise ValueError(wrong) from None
        if len(ids) != len(DECK) or len(set(ids)) != len(DECK) or max(ids) >= len(DECK):
            raise ValueError(wrong)
        layout = dealt_layout(ids, game)
        size = game.pile_size
        cards = [DECK[card_id] for card_id in layout[0]]
        piles = tuple(tuple(cards[size * p:size * p + size]) for p in range(game.piles))
        foundation = layout[2]
        board = object.__new__(cls)  # what __init__ does, without checking the cards again
        for attribute, value in (("foundation", DECK[foundation] if foundation < len(DECK) else None),
                                 ("piles", piles), ("name", name), ("talon", tuple(DECK[i] for i in layout[3])),
                                 ("game", game), ("layout", layout)):
            object.__setattr__(board, attribute, value)
        return board

    @cached_property
    def layout(self) -> tuple[bytes, bytes, int, bytes]:
        """Card ids (pile p position i at pile_size * p + i, 0 past a pile's top), heights (a
        byte a pile), the foundation's card id (52 when empty), the talon's card ids (the next
        first): the board as the compiled core reads it."""
        size = self.game.pile_size
        ids = bytearray(self.game.layout_cards)
        for p, pile in enumerate(self.piles):
            ids[size * p:size * p + len(pile)] = bytes(card.id for card in pile)
        foundation = EMPTY_FOUNDATION_ID if self.foundation is None else self.foundation.id
        return bytes(ids), bytes(len(pile) for pile in self.piles), foundation, bytes(c.id for c in self.talon)

    @property
    def cards_left(self) -> int:
        """Cards in the piles (what a win must play)."""
        return sum(len(pile) for pile in self.piles)

    def _fits(self, card: Card) -> bool:
        foundation = EMPTY_FOUNDATION if self.foundation is None else self.foundation.rank
        return self.game.fits(card.rank, foundation)

    def legal_moves(self) -> list[Move]:
        """Every pile whose top card fits, in pile order, then turning the talon if it has a card."""
        moves = [Move(index, pile[-1]) for index, pile in enumerate(self.piles) if pile and self._fits(pile[-1])]
        if self.talon:
            moves.append(Move(None, self.talon[0]))
        return moves

    def play(self, pile: int | Move | None) -> tuple[Move, Board]:
        """Play the top card of `pile`, or (None) turn the next talon card; a Move (from
        `legal_moves()`) plays its pile, and must name the card there. Raises IllegalMove if the
        rules forbid it."""
        if isinstance(pile, Move):  # this board's only if its card is the one there (else as its pile)
            move, pile = pile, pile.pile
            if not isinstance(move.card, Card):
                raise TypeError(f"a Move's card is a Card (Card.from_text('KS')), not {move.card!r}")
            ours = pile is None or is_int_value(pile) and 0 <= pile < len(self.piles)
            shown = (self.talon[:1] if pile is None else self.piles[pile][-1:]) if ours else ()
            if shown and shown[0] != move.card:
                where = "the talon" if pile is None else f"pile {pile}"
                raise IllegalMove(f"{move} is not this board's: {where} shows {shown[0].text}")
        if not (pile is None or is_int_value(pile)):
            raise TypeError(f"a move plays a pile number (or None, the talon), not {pile!r}")
        if pile is not None:
            pile = operator.index(pile)  # a numpy integer, a 0-d array: the Move holds the int
        if pile is None:
            if not self.talon:
                raise IllegalMove("the talon is empty" if self.game.has_talon else f"{self.game.name} has no talon")
            card = self.talon[0]
            return Move(None, card), Board(card, self.piles, talon=self.talon[1:], game=self.game)
        if not 0 <= pile < self.game.piles:
            raise IllegalMove(f"there is no pile {pile}")
        cards = self.piles[pile]
        if not cards:
            raise IllegalMove(f"pile {pile} is empty")
        card = cards[-1]
        if not self._fits(card):
            raise IllegalMove(f"{card} from pile {pile} does not fit on {self.foundation}")
        piles = self.piles[:pile] + (cards[:-1],) + self.piles[pile + 1:]
        return Move(pile, card), Board(card, piles, talon=self.talon, game=self.game)

    def solver_input(self) -> tuple[bytes, bytes, int]:
        """Ranks (pile_size bytes a pile), heights (a byte a pile), foundation rank (13 when
        empty): the position as `Solver.solve_raw` reads it, with `solver_rules()`."""
        return solver_input(self.layout)

    def solver_rules(self) -> dict:
        """The rest of the solver's input: the talon's ranks and the game's rules."""
        return solver_rules(self.layout, self.game)


def _cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """A pile or talon as a tuple; TypeError for text or one card, where a sequence of Cards belongs."""
    if not isinstance(cards, (str, Card)):  # ("2H" went by as the cards '2' and 'H')
        try:
            return tuple(cards)
        except TypeError:  # None: "'NoneType' object is not iterable"
            pass
    raise TypeError(f"a pile or talon is a sequence of Cards (Card.from_text('2H')), not {type(cards).__name__}")


def check_board(board: object, taker: str) -> None:
    """TypeError unless `board` is a Board; `taker` (e.g. "solve") names what wanted one."""
    check_instance(board, Board, taker, "a Board (deal(n) or Board.from_text make one)")


def dealt_layout(ids: bytes, game: Game) -> tuple[bytes, bytes, int, bytes]:
    """`Board.layout` of a fresh deal from the 52 card ids as `dealing` hands them over, unchecked:
    what a run solves, without the Card objects a Board is made of."""
    in_piles = game.layout_cards
    if game.foundation_start == "empty":
        return ids[:in_piles], game.fresh_heights, EMPTY_FOUNDATION_ID, ids[in_piles:]
    return ids[:in_piles], game.fresh_heights, ids[in_piles], ids[in_piles + 1:]


def solver_input(layout: tuple[bytes, bytes, int, bytes]) -> tuple[bytes, bytes, int]:
    """What `Board.solver_input` returns, from a `Board.layout`."""
    ids, heights, foundation, _ = layout
    return ids.translate(RANK_OF_ID), heights, foundation % NUM_RANKS if foundation < len(DECK) else EMPTY_FOUNDATION


def solver_rules(layout: tuple[bytes, bytes, int, bytes], game: Game) -> dict:
    """What `Board.solver_rules` returns, from a `Board.layout`."""
    return {"talon": layout[3].translate(RANK_OF_ID), "rules": game.rules_bytes}


def _svg_card(card: Card, x: int, y: int, order: int | None) -> str:
    """One card: rank and suit in the strip that stays visible when the next card covers it."""
    from html import escape

    colour = "#c00" if card.suit in RED_SUITS else "#000"
    move = ("" if order is None else
            f'<text class="move" x="{x + 4}" y="{y + SVG_CARD_HEIGHT - 8}" font-size="12" '
            f'font-weight="bold" fill="#1a4fb0">#{order}</text>')
    return (f'<g class="card" data-card="{card.text}">'
            f'<rect x="{x}" y="{y}" width="{SVG_CARD_WIDTH}" height="{SVG_CARD_HEIGHT}" rx="5" '
            f'fill="#fff" stroke="#333"/>'
            f'<text class="label" x="{x + 3}" y="{y + 17}" font-size="15" font-weight="bold" '
            f'fill="{colour}">{escape(card.pretty)}</text>{move}</g>')


def _svg_empty(x: int, y: int) -> str:
    """An empty place: an outline where a card would be."""
    return (f'<rect class="empty" x="{x}" y="{y}" width="{SVG_CARD_WIDTH}" height="{SVG_CARD_HEIGHT}" rx="5" '
            f'fill="none" stroke="#d8f0e0" stroke-dasharray="4 3"/>')


def _stream_lines(stream: BinaryIO | TextIO) -> Iterator[str]:
    """Lines of a binary stream, decoded, or of a text stream. A line too long in bytes to hold MAX_LINE
    characters is refused after reading no more than that (its cut end is no bad UTF-8); _check_line
    refuses the lines between, by characters."""
    number = 1
    most = 4 * MAX_LINE + 2  # bytes: MAX_LINE characters of UTF-8 and a CRLF
    while True:
        try:
            raw = stream.readline(most + 1)
        except UnicodeDecodeError as error:  # a text file decodes ahead of its lines: no line number to give
            raise BoardParseError(f"not text in the file's encoding ({error.encoding}): {error.reason}") from None
        if not raw:
            return
        text = isinstance(raw, str)
        if text and "\r" in _line_ends_seen(stream):  # what a text file's reading turned into '\n'
            raise _stray_return(number)
        if len(raw) > most:
            start = raw[:QUOTE_LIMIT] if text else raw[:QUOTE_LIMIT].decode("utf-8", "replace")  # the rest unread
            raise BoardParseError(f"line {number}: longer than {MAX_LINE:,} characters (it starts "
                                  f"{quoted(start, start_only=True)})")
        if text:
            yield raw.removesuffix("\n")
        else:
            try:
                yield raw.removesuffix(b"\n").decode("utf-8")
            except UnicodeDecodeError:
                raise BoardParseError(f"line {number}: not UTF-8 text ({quoted(raw)})") from None
        number += 1


def _stray_return(number: int) -> BoardParseError:
    return BoardParseError(f"line {number}: stray '\\r' (line endings must be '\\n' or '\\r\\n')")


def _line_ends_seen(stream: TextIO) -> tuple[str, ...]:
    """The kinds of line end a text file's reading has met so far (`newlines`: None, one, or a tuple)."""
    seen = getattr(stream, "newlines", None)
    return seen if isinstance(seen, tuple) else (seen,) if seen else ()


def _numbered(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(number, line) from 1, each without a CRLF's '\\r'; refuses the line after the MAX_LINES-th
    (endless blank lines, which the parser skips, would otherwise be read forever)."""
    for number, line in enumerate(lines, 1):
        if number > MAX_LINES:
            raise BoardParseError(f"line {number}: more than {MAX_LINES:,} lines: not a board")
        yield number, line.removesuffix("\r")


def _without_byte_order_mark(lines: Iterable[str]) -> Iterator[str]:
    """The lines, the first without a leading byte-order mark, still one line at a time."""
    lines = iter(lines)
    first = next(lines, None)
    if first is not None:
        yield first.removeprefix(BYTE_ORDER_MARK)
        yield from lines


def _check_line(line: str, number: int) -> None:
    if "\r" in line:
        raise _stray_return(number)
    if len(line) > MAX_LINE:
        raise BoardParseError(f"line {number}: longer than {MAX_LINE:,} characters ({quoted(line)})")


def _cards_of(text: str) -> list[str]:
    """The card tokens of a line: separated by one space or more, as the peer reads them; spaces at either end
    are no card."""
    return [token for token in text.split(" ") if token]


def _parse_card(token: str, line: int) -> Card:
    try:
        return Card.from_text(token)
    except CardParseError as error:
        raise BoardParseError(f"line {line}: {error}") from None
