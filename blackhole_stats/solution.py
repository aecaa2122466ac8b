"""Solutions: a winning line of play from a board, with one text form.

The text form is the cards in play order, `"2H 3S 2D ..."`: each card's pile
follows from the board, so the text is all a dataset stores, and
`Solution.from_text(board, text)` gives the moves back. Every way of making
a Solution replays it against the rules and checks that it empties the
board, so a Solution object is always a legal win.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

from .board import NUM_PILES, Board, IllegalMove, Move
from .cards import CARD_BY_TEXT, Card

PREVIEW_MOVES = 5
"""Moves named in a Solution's repr."""


class SolutionError(IllegalMove):
    """A line that is not a legal win from its board; the message names the move."""


@dataclass(frozen=True)
class Solution:
    """The moves of a win from `board`, in play order; `str(solution)` is its text form."""

    board: Board
    moves: tuple[Move, ...]

    @classmethod
    def from_text(cls, board: Board, text: str) -> Solution:
        """Parse `"2H 3S ..."` (what a dataset's `solution` column holds) and replay it."""
        cards = []
        for step, token in enumerate(text.split(), 1):
            card = CARD_BY_TEXT.get(token)
            if card is None:
                raise SolutionError(f"move {step}: {token[:20]!r} is not a card")
            cards.append(card)
        home = {card: pile for pile, cards_of_pile in enumerate(board.piles) for card in cards_of_pile}
        for step, card in enumerate(cards, 1):
            if card not in home:
                raise SolutionError(f"move {step}: {card} is not in a pile of the board")
        return cls._replayed(board, (home[card] for card in cards), cards)

    @classmethod
    def from_piles(cls, board: Board, piles: Iterable[int]) -> Solution:
        """From the pile of each move (what the compiled search returns), replayed."""
        return cls._replayed(board, piles)

    @classmethod
    def _replayed(cls, board: Board, piles: Iterable[int], cards: list[Card] | None = None) -> Solution:
        """Play the piles in order on a scratch copy; the named cards, if given, must be the ones on top."""
        stacks = [list(pile) for pile in board.piles]
        foundation = board.foundation
        moves = []
        for step, pile in enumerate(piles, 1):
            card = stacks[pile][-1] if 0 <= pile < NUM_PILES and stacks[pile] else None
            if cards is not None and cards[step - 1] != card:
                raise SolutionError(f"move {step}: {cards[step - 1]} is not on top of pile {pile}")
            if card is None:
                raise SolutionError(f"move {step}: pile {pile} has no card to play")
            if not card.fits_on(foundation):
                raise SolutionError(f"move {step}: {card} does not fit on {foundation}")
            stacks[pile].pop()
            foundation = card
            moves.append(Move(pile, card))
        left = sum(map(len, stacks))
        if left:
            raise SolutionError(f"the line leaves {left} card{'' if left == 1 else 's'} in the piles")
        return cls(board, tuple(moves))

    @property
    def text(self) -> str:
        return " ".join(move.card.text for move in self.moves)

    def to_json(self) -> list[dict]:
        """`[{"pile": 16, "card": "2D"}, ...]`, piles 0-based in board order (`solve --json`)."""
        return [{"pile": move.pile, "card": move.card.text} for move in self.moves]

    def boards(self) -> Iterator[Board]:
        """Every position along the way, the start first and the empty board last."""
        board = self.board
        yield board
        for move in self.moves:
            board = board.play(move.pile)[1]
            yield board

    def svg(self) -> str:
        """The starting board with each card's move number on it."""
        order = {move.card: step for step, move in enumerate(self.moves, 1)}
        title = f"Deal {self.board.name}" if self.board.name else "Position"
        return self.board.svg(title, play_order=order)

    def _repr_svg_(self) -> str:
        return self.svg()

    def __len__(self) -> int:
        return len(self.moves)

    def __iter__(self) -> Iterator[Move]:
        return iter(self.moves)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        start = f" from deal {self.board.name}" if self.board.name else ""
        preview = " ".join(move.card.text for move in self.moves[:PREVIEW_MOVES])
        more = " ..." if len(self.moves) > PREVIEW_MOVES else ""
        return f"<Solution{start}: {len(self.moves)} moves, {preview}{more}>"
