"""The difficulty score and its tags: a hand-counted position, determinism, the scale's boundaries."""
from __future__ import annotations

import math
import subprocess
import sys

import pytest

from blackhole_stats import Board, deal
from blackhole_stats.difficulty import (DEPTH_STEP, SCALES, TAGS, DifficultyError, difficulty, parse_tag,
                                        scale, score_of_traps)
from blackhole_stats.solver import Solver
from conftest import REPO

PUBLISHED_BLACK_HOLE_1 = (1.9971, 2.0632, 2.1223, 2.1995)
"""Scale black_hole/1 as README publishes it: editing it would change what every stored tag means."""

# Foundation 5; four piles 4, 6, 7, 5. The only win is 4 5 6 7: playing 6 first
# is a trap (from 6, the walk cannot reach both 4 and 7), after which at most
# two more cards (5, then 4) can be played. Every other step offers one move.
ONE_TRAP = "Foundations: 5S\n4H\n6H\n7H\n5D\n"


def test_a_position_with_one_trap_of_depth_two_scores_as_counted_by_hand():
    board = Board.from_text(ONE_TRAP)
    walks = Solver().trap_walks(board, 8, 32, 1, 10**6)
    assert [list(walk) for walk in walks] == [[2]] * 8
    assert difficulty(board) == pytest.approx(math.log10(1 + 2 ** (2 / DEPTH_STEP)))


def test_a_position_without_choices_scores_zero_and_an_unwinnable_one_none():
    assert difficulty(Board.from_text("Foundations: 5S\n4H\n7H\n")) is None  # 4, then 7 never fits
    assert difficulty(Board.from_text("Foundations: 5S\n4H\n3H\n")) == 0.0  # 4, 3: one move at a time
    assert difficulty(deal(1)) is None  # PySolFC deal 1 cannot be won


def test_the_score_of_a_deal_never_depends_on_what_was_scored_before():
    first = difficulty(deal(2), Solver())
    solver = Solver()
    for number in (3, 4, 5, 1):
        difficulty(deal(number), solver)
    assert difficulty(deal(2), solver) == first


def test_score_of_traps_is_log10_of_one_plus_the_mean_weight_of_the_walks():
    assert score_of_traps([b"", b""]) == 0.0
    # weights: 2^0 = 1 for the first walk; 2^1 + 2^2 = 6 for the second; mean 3.5
    assert score_of_traps([bytes([0]), bytes([8, 16])]) == pytest.approx(math.log10(1 + 3.5))


def test_tags_follow_the_thresholds_a_threshold_itself_opening_the_harder_tag():
    current = scale()
    low, *_, high = current.thresholds
    assert list(current.thresholds) == sorted(current.thresholds)
    assert current.tag(low - 1e-9) == "very easy" and current.tag(low) == "easy"
    assert current.tag(high - 1e-9) == "hard" and current.tag(high) == "very hard"
    assert [current.tag(t) for t in current.thresholds] == list(TAGS[1:])


def test_every_scale_keeps_its_name_and_thresholds():
    """A tag must never change meaning: a scale, once published, is never edited (add a new one)."""
    assert SCALES["black_hole/1"].thresholds == PUBLISHED_BLACK_HOLE_1


def test_tags_are_read_as_users_type_them_and_unknown_ones_are_refused():
    assert parse_tag("Very-Hard") == parse_tag("very_hard") == parse_tag(" very  hard ") == "very hard"
    with pytest.raises(DifficultyError, match="unknown tag 'wild'"):
        parse_tag("wild")
    with pytest.raises(DifficultyError, match="unknown difficulty scale"):
        scale("black_hole/0")


@pytest.mark.skipif(not (REPO / "scripts").is_dir(), reason="scripts/ is in the repository, not the sdist")
def test_bounded_planners_win_fewer_of_the_hard_tags_on_deals_the_scale_never_saw(tmp_path):
    """The validation script on a small sample: the easier two tags' deals are won more often than the
    harder two's by each planner (the full fall over five tags needs the committed 2,000-deal run)."""
    result = subprocess.run([sys.executable, str(REPO / "scripts" / "validate_difficulty.py"), "--range",
                             "1002001-1002150", "--results", str(tmp_path), "--budgets", "3000,30000",
                             "--coarse", "--workers", "1"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "**yes**" in (tmp_path / "VALIDATION.md").read_text()
    assert (tmp_path / "validation.png").stat().st_size > 10_000


@pytest.mark.parametrize("game", ["all_in_a_row", "golf", "dead_king_golf", "relaxed_golf"])
def test_the_other_games_are_refused_rather_than_scored_by_black_holes_rules(game):
    from blackhole_stats import _core
    from blackhole_stats.games import get_game
    from blackhole_stats.solver import DifficultyUndefined
    board = deal(1, get_game(game))
    with pytest.raises(DifficultyUndefined, match="defined for Black Hole only so far"):
        difficulty(board)
    with pytest.raises(ValueError, match="defined for Black Hole only so far"):
        Solver()._core.trap_walks(*board.solver_input(), 4, 4, 1, 10**6)
    with pytest.raises(ValueError, match="defined for Black Hole only so far"):
        _core.plan(*board.solver_input(), 100, 0, 1)
