"""The games of the Black Hole family, each described once, as data.

Dealing, boards (text, checks, pictures), the compiled solver's rules,
solutions and the command line all read a `Game`; none of them asks which
game it is. Adding a game means adding one `Game` here (and its tests).
The facts are PySolFC's (pysollib/games/golf.py) and black-hole-solver's,
as gathered in the reference notes beside the project (family/FAMILY.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .cards import NUM_RANKS

FOUNDATION_STARTS = ("ace_of_spades", "empty", "next_card")
"""What starts the foundation: the Ace of Spades (dealt to it by the shuffle hook),
nothing (any card may be played first), or the first card dealt after the piles."""
ON_KING = ("adjacent", "nothing")
"""What may go on a King: what adjacency allows (a Queen, and an Ace when ranks
wrap), or nothing at all (Dead King Golf)."""
WIN_CONDITIONS = ("all_cards", "piles_empty")
"""Won when every card is on the foundation, or when the piles are empty (talon cards may remain)."""
KING = NUM_RANKS - 1
EMPTY_FOUNDATION = NUM_RANKS
"""The foundation 'rank' of an empty foundation, as the compiled core reads it."""


class UnknownGameError(ValueError):
    """A name, key or PySolFC id that is none of the games; the message lists them."""


@dataclass(frozen=True)
class Game:
    """One game of the family: its layout, rules and the names it goes by."""

    key: str
    """Our name: `black_hole`; also the peer solver's `--game` for the first two."""
    pysol_id: int
    name: str
    piles: int
    pile_size: int
    foundation_start: str
    ace_of_spades_last: bool
    """PySolFC's shuffle hook moves the Ace of Spades to be dealt last."""
    talon_size: int
    wrap: bool
    """Ace and King are adjacent."""
    on_king: str
    win: str
    peer_options: tuple[str, ...]
    """black-hole-solve's options for this game."""
    svg_rows: tuple[int, ...]
    """Piles per row of the picture, as PySolFC lays them out."""
    classic_search: bool = False
    """The `classic` search (the peer's plain search, for its iteration counts) plays it."""

    def __reduce_ex__(self, protocol):
        """A copy or an unpickled game is the registered game itself, so `game is GOLF` holds for it."""
        if self in GAMES:
            return get_game, (self.key,)
        return super().__reduce_ex__(protocol)

    def __post_init__(self) -> None:
        assert self.foundation_start in FOUNDATION_STARTS and self.on_king in ON_KING
        assert self.win in WIN_CONDITIONS and sum(self.svg_rows) == self.piles
        assert self.piles * self.pile_size + (self.foundation_start != "empty") + self.talon_size == 52
        # The solver wins by emptying the piles: that is every card exactly when there is no talon.
        assert (self.win == "all_cards") == (self.talon_size == 0)

    @property
    def layout_cards(self) -> int:
        return self.piles * self.pile_size

    @property
    def dealing(self) -> tuple[int, int, bool]:
        """What the shuffle's cards are laid out by: games alike in it deal the same cards for a number
        (Golf's three games), others different deals under the same numbers."""
        return self.piles, self.pile_size, self.ace_of_spades_last

    @cached_property
    def fresh_heights(self) -> bytes:
        """The pile heights of a fresh deal, a byte a pile (as the compiled core reads them)."""
        return bytes([self.pile_size] * self.piles)

    @property
    def has_talon(self) -> bool:
        return self.talon_size > 0

    @property
    def playable_cards(self) -> int:
        """The most cards a line can put on the foundation: every pile card and every talon card
        (an unsolvable deal's `cards_played` is below it; a win plays the piles and part of the talon)."""
        return self.layout_cards + self.talon_size

    @property
    def fewest_cards_played(self) -> int:
        """What every line of a deal plays: the whole talon (one card a turn, whatever the foundation
        shows), and a first card where the foundation starts empty (any card starts it)."""
        return self.talon_size + (self.foundation_start == "empty")

    def cards_played_range(self, outcome: str) -> range:
        """The `cards_played` a deal's row with `outcome` can hold: a win plays every pile card and
        the talon cards turned on the way; an unsolvable deal's best line plays at least what every
        line does and not every card; an intractable deal's best line found, not every card, counts
        the talon left as played (any line can turn it)."""
        if outcome == "solved":
            return range(self.layout_cards, self.playable_cards + 1)
        return range(self.fewest_cards_played if outcome == "unsolved" else self.talon_size, self.playable_cards)

    def fits(self, card_rank: int, foundation_rank: int) -> bool:
        """May a card of `card_rank` be played from a pile onto `foundation_rank`
        (EMPTY_FOUNDATION: an empty foundation)?"""
        return bool(self.fits_masks[foundation_rank] >> card_rank & 1)

    @cached_property
    def fits_masks(self) -> tuple[int, ...]:
        """For each foundation rank (and EMPTY_FOUNDATION last), the 13-bit mask of ranks
        that may be played onto it: the rules as the compiled core reads them."""
        masks = []
        for foundation in range(NUM_RANKS):
            mask = 0
            for rank in range(NUM_RANKS):
                step = abs(rank - foundation)
                if step == 1 or (self.wrap and step == NUM_RANKS - 1):
                    mask |= 1 << rank
            if foundation == KING and self.on_king == "nothing":
                mask = 0
            masks.append(mask)
        masks.append((1 << NUM_RANKS) - 1)
        return tuple(masks)

    @cached_property
    def rules_bytes(self) -> bytes:
        """`fits_masks` as 14 little-endian 16-bit words (the core's `rules` argument)."""
        return b"".join(mask.to_bytes(2, "little") for mask in self.fits_masks)

    def describe_rules(self) -> str:
        """One line: what may be played on what, for messages and --help."""
        adjacency = "ranks one apart, " + ("Ace and King adjacent" if self.wrap else "Ace and King not adjacent")
        king = "; nothing may go on a King" if self.on_king == "nothing" else ""
        return adjacency + king

    def __str__(self) -> str:
        return self.key


BLACK_HOLE = Game(
    key="black_hole", pysol_id=98, name="Black Hole", piles=17, pile_size=3,
    foundation_start="ace_of_spades", ace_of_spades_last=True, talon_size=0, wrap=True,
    on_king="adjacent", win="all_cards", peer_options=("--game", "black_hole"), svg_rows=(5, 4, 4, 4),
    classic_search=True)
ALL_IN_A_ROW = Game(
    key="all_in_a_row", pysol_id=405, name="All in a Row", piles=13, pile_size=4,
    foundation_start="empty", ace_of_spades_last=True, talon_size=0, wrap=True,
    on_king="adjacent", win="all_cards", peer_options=("--game", "all_in_a_row"), svg_rows=(7, 6))
GOLF = Game(
    key="golf", pysol_id=36, name="Golf", piles=7, pile_size=5,
    foundation_start="next_card", ace_of_spades_last=False, talon_size=16, wrap=False,
    on_king="adjacent", win="piles_empty", peer_options=("--game", "golf", "--queens-on-kings"),
    svg_rows=(7,))
DEAD_KING_GOLF = Game(
    key="dead_king_golf", pysol_id=259, name="Dead King Golf", piles=7, pile_size=5,
    foundation_start="next_card", ace_of_spades_last=False, talon_size=16, wrap=False,
    on_king="nothing", win="piles_empty", peer_options=("--game", "golf"), svg_rows=(7,))
RELAXED_GOLF = Game(
    key="relaxed_golf", pysol_id=260, name="Relaxed Golf", piles=7, pile_size=5,
    foundation_start="next_card", ace_of_spades_last=False, talon_size=16, wrap=True,
    on_king="adjacent", win="piles_empty", peer_options=("--game", "golf", "--wrap-ranks"),
    svg_rows=(7,))

GAMES = (BLACK_HOLE, ALL_IN_A_ROW, GOLF, DEAD_KING_GOLF, RELAXED_GOLF)
DEFAULT_GAME = BLACK_HOLE


def game_choices() -> str:
    """The accepted spellings, for error messages and --help."""
    return ", ".join(f"{game.key} ({game.pysol_id}, {game.name!r})" for game in GAMES)


def game_by_key(key: str) -> Game:
    """A game by its key exactly, as datasets and manifests store it; UnknownGameError otherwise
    (a name or id that `get_game` would accept is no key: stored data is never guessed at)."""
    for game in GAMES:
        if key == game.key:
            return game
    raise UnknownGameError(f"unknown game {str(key)[:40]!r}; this version knows {', '.join(g.key for g in GAMES)}")


def get_game(which: Game | str | int | None = None) -> Game:
    """A game by key (`golf`), PySolFC id (`36`, `"36"`) or name (`"All in a Row"`, any case);
    None is Black Hole. Anything else raises UnknownGameError listing the choices."""
    if which is None:
        return DEFAULT_GAME
    if isinstance(which, Game):
        return which
    text = str(which).strip()
    wanted = text.casefold().replace("-", " ").replace("_", " ")
    for game in GAMES:
        if wanted in (game.key.replace("_", " "), game.name.casefold(), str(game.pysol_id)):
            return game
    raise UnknownGameError(f"unknown game {text[:40]!r}; choose from {game_choices()}")

