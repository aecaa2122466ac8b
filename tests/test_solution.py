"""Solution: one text form that round-trips, a replay that trusts nothing, and the ways it is shown."""
from __future__ import annotations

import pytest

from blackhole_stats import Board, deal
from blackhole_stats.solution import Solution, SolutionError
from conftest import assert_plays_out, reference_board

POSITION = "Foundations: 5H\n6C\n7D 4S\n5S\n"
"""A win in four: 4S 5S 6C 7D (pile 1, pile 2, pile 0, pile 1)."""


def test_text_round_trips_and_names_the_piles():
    board = Board.from_text(POSITION)
    solution = Solution.from_text(board, "4S 5S 6C 7D")
    assert str(solution) == solution.text == "4S 5S 6C 7D"
    assert [(move.pile, str(move.card)) for move in solution] == [(1, "4S"), (2, "5S"), (0, "6C"), (1, "7D")]
    assert solution.to_json() == [{"pile": 1, "card": "4S"}, {"pile": 2, "card": "5S"},
                                  {"pile": 0, "card": "6C"}, {"pile": 1, "card": "7D"}]
    assert Solution.from_piles(board, [1, 2, 0, 1]) == solution
    assert Solution.from_text(board, solution.text) == solution


def test_a_reference_deal_solution_plays_out_on_the_reference_text():
    """From the text form alone, checked on the board text without the package."""
    from blackhole_stats import solve

    board = deal(2)
    text = str(Solution.from_piles(board, [move.pile for move in solve(board).moves]))
    solution = Solution.from_text(board, text)
    assert len(solution) == 51
    assert_plays_out(reference_board("2"), [(item["pile"], item["card"]) for item in solution.to_json()])


@pytest.mark.parametrize("text, words", [
    ("4S 5S 6C", "leaves 1 card"),          # legal but not a win
    ("4S 5S 6C 7D 8D", "not in a pile"),    # a card that is not there
    ("5S 4S 6C 7D", "5S does not fit on 5H"),  # each card needs a rank one away
    ("4S 5S 7D 6C", "move 3: 7D does not fit on 5S"),
    ("4S 7D 5S 6C", "move 2: 7D does not fit on 4S"),
    ("4S XX", "'XX' is not a card"),
    ("4S 5S 6C 6C", "move 4: 6C is not on top of pile 0"),  # played already
])
def test_bad_lines_are_refused_naming_the_move(text, words):
    with pytest.raises(SolutionError, match=words):
        Solution.from_text(Board.from_text(POSITION), text)


def test_piles_that_do_not_fit_are_refused():
    board = Board.from_text(POSITION)
    with pytest.raises(SolutionError, match="move 1: 5S does not fit on 5H"):
        Solution.from_piles(board, [2, 1, 0, 1])
    with pytest.raises(SolutionError, match="pile 17 has no card"):
        Solution.from_piles(board, [17])


def test_boards_walk_from_the_start_to_an_empty_board():
    solution = Solution.from_text(Board.from_text(POSITION), "4S 5S 6C 7D")
    boards = list(solution.boards())
    assert boards[0] == solution.board and len(boards) == 5
    assert [board.cards_left for board in boards] == [4, 3, 2, 1, 0]
    assert [str(board.foundation) for board in boards] == ["5H", "4S", "5S", "6C", "7D"]


def test_repr_is_short_and_the_picture_numbers_the_moves():
    solution = Solution.from_text(Board.from_text(POSITION), "4S 5S 6C 7D")
    assert repr(solution) == "<Solution: 4 moves, 4S 5S 6C 7D>"
    svg = solution._repr_svg_()
    assert all(f">#{n}<" in svg for n in range(1, 5)) and "#5" not in svg
