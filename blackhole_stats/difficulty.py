"""How hard a winnable deal is for a person: the trap score and its five tags.

A person wins these games by looking ahead and undoing. What costs them time
is a *trap*: a move after which the deal can no longer be won, yet play goes
on for a while before the dead end shows, and all of that has to be undone.
The score counts the traps along the way, weighted by how deep they are:

* play the deal WALKS times from the start, each time choosing at random
  among the moves that still win (seeded, so a deal's score never changes);
  a move is a player's: a pile card that fits, or turning the talon;
* every move on offer that would lose is a trap; its depth is how many more
  cards can be played after it (from the piles or the talon) before getting
  stuck (the best of PROBES random continuations);
* a trap weighs 2 ** (depth / DEPTH_STEP): a trap that lets you play 8 more
  cards costs twice one that stops you at once; a walk's weight is the sum
  over the traps it passed;
* score = log10(1 + the mean weight of the walks).

The same definition serves every game of the family (the compiled core reads
the game's rules and talon from the position); only the scale is per game.
Why this score and not another (README, "Difficulty"): on sample deals it
predicted the bounded planners' effort best among the candidates measured
(our solver's iterations, trap counts, the random player's odds, exact trap
depths, fewer walks), for 9 to 36 ms of CPU per winnable deal, so `run`
computes it only with `--difficulty`.

Tags come from a SCALE: four thresholds fixed once from the quintiles of the
score over a sample of one game's PySolFC deals 1..1,000,000, and never
changed afterwards; a new scale gets a new name, and a run records the scale
it used. CURRENT says which scale `run --difficulty` uses for each game.
"""
from __future__ import annotations

import re

import math
from dataclasses import dataclass

from .arguments import check_instance
from .board import Board, check_board
from .dealing import python_value
from .games import Game, get_game
from .solver import Solver

WALKS = 16
PROBES = 32
DEPTH_STEP = 8
SEED = 1
MAX_ITERS = 10**7
"""Positions one move's verdict may take; past it the score is left out (never seen on 20,000 deals)."""

TAGS = ("very easy", "easy", "medium", "hard", "very hard")


class DifficultyError(ValueError):
    """A tag or scale name that does not exist, or a scale of another game; the message names it."""


class DifficultyUndefined(DifficultyError):
    """Tags asked for a game that has no scale yet; the message names the game."""


@dataclass(frozen=True)
class Scale:
    """Four thresholds: a score below thresholds[0] is very easy, at or above thresholds[3] very hard."""

    name: str
    game: str
    """The key of the game whose deals it tags."""
    thresholds: tuple[float, float, float, float]
    basis: str
    """Where the thresholds come from (the sample and its quantiles)."""

    def tag(self, score: float) -> str:
        """The score's tag on this scale; ValueError for no score (null, NaN: what an unsolved deal has) or
        a score no deal has (negative, infinite), which would have read as the easiest tag."""
        score = python_value(score)  # a pyarrow scalar
        try:
            scored = not isinstance(score, bool) and 0 <= score < math.inf
        except (TypeError, ArithmeticError):  # None, pandas' NA, text; a Decimal NaN
            scored = False
        if not scored:
            raise ValueError(f"{score!r} is no difficulty score (unsolved deals have none: in pandas, "
                             "Series.map(scale.tag, na_action='ignore') leaves them out)")
        return TAGS[sum(score >= threshold for threshold in self.thresholds)]

    def tags(self, scores):
        """`tag` of many scores at once (a numpy array of them, each a score `tag` takes), for a dataset's
        column: a score on a threshold takes the harder tag, as there."""
        import numpy as np  # here: a run's workers tag one deal at a time

        scores = np.asarray(scores, dtype=float)
        if not np.all((scores >= 0) & (scores < math.inf)):  # NaN too: what `tag` refuses
            raise ValueError("a score that is no difficulty score (null, NaN, negative, infinite) among them")
        return np.array(TAGS, dtype=object)[np.searchsorted(self.thresholds, scores, side="right")]


SCALES = {
    scale.name: scale for scale in (
        Scale("black_hole/1", "black_hole", (1.9971, 2.0632, 2.1223, 2.1995),
              "quintiles of the score of the 8,673 winnable deals among PySolFC deals 100, 200, ..., "
              "1,000,000 (scripts/difficulty_scale.py --step 100), rounded to 4 decimals"),
        Scale("all_in_a_row/1", "all_in_a_row", (2.0459, 2.1209, 2.1899, 2.2780),
              "quintiles of the score of the 3,328 winnable deals among PySolFC deals 200, 400, ..., "
              "1,000,000 (scripts/difficulty_scale.py --game all_in_a_row --step 200), rounded to 4 decimals"),
        Scale("golf/1", "golf", (2.2728, 2.3549, 2.4335, 2.5099),
              "quintiles of the score of the 2,260 winnable deals among PySolFC deals 200, 400, ..., "
              "1,000,000 (scripts/difficulty_scale.py --game golf --step 200), rounded to 4 decimals"),
        Scale("dead_king_golf/1", "dead_king_golf", (2.3011, 2.3765, 2.4454, 2.5083),
              "quintiles of the score of the 1,335 winnable deals among PySolFC deals 200, 400, ..., "
              "1,000,000 (scripts/difficulty_scale.py --game dead_king_golf --step 200), rounded to 4 decimals"),
        Scale("relaxed_golf/1", "relaxed_golf", (2.1385, 2.2193, 2.2992, 2.3904),
              "quintiles of the score of the 4,618 winnable deals among PySolFC deals 200, 400, ..., "
              "1,000,000 (scripts/difficulty_scale.py --game relaxed_golf --step 200), rounded to 4 decimals"),
    )
}
CURRENT = {"black_hole": "black_hole/1", "all_in_a_row": "all_in_a_row/1", "golf": "golf/1",
           "dead_king_golf": "dead_king_golf/1", "relaxed_golf": "relaxed_golf/1"}
"""Game key -> the scale `run --difficulty` uses for it today (a run records it in its manifest as
`difficulty_scale`); a game missing here has no tags yet."""


def score_of_traps(walks: list[bytes]) -> float:
    """The score from each walk's trap depths (what `Solver.trap_walks` gives)."""
    weights = [sum(2 ** (depth / DEPTH_STEP) for depth in walk) for walk in walks]
    return math.log10(1 + sum(weights) / len(weights))


def difficulty(board: Board, solver: Solver | None = None) -> float | None:
    """The trap score of a winnable position; None if it cannot be won (or a verdict ran past MAX_ITERS)."""
    check_board(board, "difficulty")
    if solver is None:
        solver = Solver()
    check_instance(solver, Solver, "difficulty(solver=...)", "a Solver (or None: a new one)")
    walks = solver.trap_walks(board, WALKS, PROBES, SEED, MAX_ITERS)
    return None if walks is None else score_of_traps(walks)


def scale(name: str) -> Scale:
    try:
        return SCALES[name]
    except KeyError:
        raise DifficultyError(f"unknown difficulty scale {name!r}; known: {', '.join(SCALES)}") from None


def current_scale(game: Game | str | int | None = None) -> Scale:
    """The scale `run --difficulty` uses for `game` (None: Black Hole); DifficultyUndefined if it has none."""
    game = get_game(game)
    if game.key not in CURRENT:
        raise DifficultyUndefined(f"difficulty has no scale for {game.name} yet; games with one: "
                                  + ", ".join(get_game(key).name for key in CURRENT))
    return SCALES[CURRENT[game.key]]


def scale_for(name: str, game: Game | str | int | None = None) -> Scale:
    """Scale `name`, which must tag `game`'s deals (None: Black Hole); DifficultyError otherwise."""
    found, game = scale(name), get_game(game)
    if found.game != game.key:
        raise DifficultyError(f"difficulty scale {name!r} tags {get_game(found.game).name} deals, not {game.name}")
    return found


def parse_tag(text: str) -> str:
    """A tag as a user may type it (`hard`, `very-hard`, `Very_Hard`, ` very hard`); DifficultyError otherwise.

    One separator per gap, whichever: `very--hard` and `very  hard` are the same typo, refused alike."""
    if not isinstance(text, str):
        raise TypeError(f"a tag is text (e.g. 'very hard'), not {type(text).__name__}")
    tag = " ".join(re.split(r"[-_ ]", text.strip().lower()))  # '-hard' is no tag
    if tag not in TAGS:
        raise DifficultyError(f"unknown tag {text!r}; choose from {', '.join(TAGS)} "
                              "(one space, '-' or '_' between words)")
    return tag
