"""Solution: one text form that round-trips, a replay that trusts nothing, and the ways it is shown;
dataset rows (as pandas, numpy, pyarrow, polars and DuckDB hand them back) to their board and solution."""
from __future__ import annotations

import re
import io
import warnings
from decimal import Decimal

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackhole_stats import Board, Card, GameNumber, Solver, board_of, deal, report, solution_of, solve
from blackhole_stats.dataset import DatasetError
from blackhole_stats.deals import DealSet
from blackhole_stats.runner import run
from blackhole_stats.games import GAMES
from blackhole_stats.solution import Solution, SolutionError, line_text
from conftest import RANKS, assert_plays_out, cli, reference_board

POSITION = "Foundations: 5H\n6C\n7D 4S\n5S\n"
"""A win in four: 4S 5S 6C 7D (pile 1, pile 2, pile 0, pile 1)."""


def test_text_round_trips_and_names_the_piles():
    board = Board.from_text(POSITION)
    solution = Solution.from_text(board, "4S 5S 6C 7D")
    assert str(solution) == solution.text == "4S 5S 6C 7D"
    assert [(move.pile, str(move.card)) for move in solution] == [(1, "4S"), (2, "5S"), (0, "6C"), (1, "7D")]
    assert solution.to_json() == [{"pile": 1, "card": "4S"}, {"pile": 2, "card": "5S"},
                                  {"pile": 0, "card": "6C"}, {"pile": 1, "card": "7D"}]
    assert Solution.from_piles(board, [1, 2, 0, 1]) == solution == Solution(board, b"\x01\x02\x00\x01")
    assert Solution.from_piles(board, np.array([1, 2, 0, 1])) == solution  # numpy integers are piles too
    assert Solution.from_text(board, solution.text) == solution
    assert [card.text for card in solution.cards] == ["4S", "5S", "6C", "7D"]


def test_a_reference_deal_solution_plays_out_on_the_reference_text():
    """From the text form alone, checked on the board text without the package."""
    board = deal(2)
    solution = Solution.from_text(board, solve(board).solution.text)
    assert len(solution) == 51
    assert_plays_out(reference_board("2"), [(item["pile"], item["card"]) for item in solution.to_json()])


@pytest.mark.parametrize("text, words", [
    ("4S 5S 6C", "leaves 1 card in"),       # legal but not a win
    ("", "leaves 4 cards"),
    ("4S 5S 8D", "move 3: 8D is not in a pile"),  # a card that is not there
    ("5S 4S 6C 7D", "5S does not fit on 5H"),  # each card needs a rank one away
    ("4S 5S 7D 6C", "move 3: 7D does not fit on 5S"),
    ("4S 7D 5S 6C", "move 2: 7D does not fit on 4S"),
    ("4S XX", "'XX' is not a card"),
    ("4S 5S 6C 6C", "move 4: 6C is not on top of pile 0"),  # played already
    ("4S 5S 6C 7D 7D", "move 5: the piles are already empty"),  # a win, then one more
    ("4S 5S 6C 7D 8D", "move 5: the piles are already empty"),
])
def test_bad_lines_are_refused_naming_the_move(text, words):
    with pytest.raises(SolutionError, match=words):
        Solution.from_text(Board.from_text(POSITION), text)


def test_a_card_named_out_of_its_piles_order_is_refused():
    """The ranks alone would play (5, 4, 5 from one pile): the named cards must be the ones on top."""
    board = Board.from_text("Foundations: 4C\n5S 4D 5H\n")
    assert Solution.from_text(board, "5H 4D 5S").piles == b"\x00\x00\x00"
    with pytest.raises(SolutionError, match="move 1: 5S is not on top of pile 0"):
        Solution.from_text(board, "5S 4D 5H")


def test_piles_that_do_not_fit_are_refused():
    board = Board.from_text(POSITION)
    with pytest.raises(SolutionError, match="move 1: 5S does not fit on 5H"):
        Solution.from_piles(board, [2, 1, 0, 1])
    with pytest.raises(SolutionError, match="move 1: pile 17 has no card"):
        Solution.from_piles(board, [17])
    with pytest.raises(SolutionError, match="move 2: pile 300 has no card"):
        Solution.from_piles(board, [1, 300])
    with pytest.raises(SolutionError, match="move 3: pile 2 has no card"):
        Solution(board, bytes([1, 2, 2]))
    with pytest.raises(SolutionError, match="leaves 3 cards"):
        Solution(board, b"\x01")


@st.composite
def lines(draw):
    """A deal and a line of piles: mostly legal moves, sometimes any pile, of any length."""
    board = deal(draw(st.integers(1, 10**12)))
    piles, position = [], board
    for _ in range(draw(st.integers(0, 55))):
        legal = [move.pile for move in position.legal_moves()]
        pile = draw(st.sampled_from(legal)) if legal and draw(st.integers(0, 9)) else draw(st.integers(0, 16))
        piles.append(pile)
        if pile in legal:
            position = position.play(pile)[1]
    return board, piles


def wins(board_text: str, piles: list[int]) -> bool:
    """The rules on the board's text, without the package: legal moves that play every card."""
    lines_ = board_text.rstrip("\n").split("\n")
    foundation = RANKS.index(lines_[0].removeprefix("Foundations: ")[0])
    stacks = [line.split() for line in lines_[1:]]
    for pile in piles:
        if not stacks[pile] or (RANKS.index(stacks[pile][-1][0]) - foundation) % 13 not in (1, 12):
            return False
        foundation = RANKS.index(stacks[pile].pop()[0])
    return not any(stacks)


def test_a_pandas_column_of_piles_with_talon_turns_replays():
    """A column of piles with None for talon turns comes back from pandas as floats with NaN (or Int64 with
    NA): those were "pile nan has no card to play"."""
    board = deal(2, "relaxed_golf")
    won = solve(board).solution
    piles = [move.pile for move in won.moves]
    assert None in piles
    for column in (pd.Series(piles, dtype="float64"), pd.Series(piles, dtype="Int64"), pd.Series(piles),
                   pa.array(piles)):  # an Arrow array's scalars were "pile <pyarrow.Int64Scalar: 2>"
        assert Solution.from_piles(board, column) == won
    with pytest.raises(SolutionError, match="move 1: pile 'True'"):  # a truth value is no pile 1
        Solution.from_piles(board, [True])
    with pytest.raises(SolutionError, match="pile 2.5 has no card to play"):
        Solution.from_piles(board, [2.5])
    with pytest.raises(SolutionError, match="pile Decimal"):  # a signalling NaN is no null (it raised)
        Solution.from_piles(board, [Decimal("sNaN")])


@pytest.mark.parametrize("null", [None, float("nan"), pd.NA])
def test_a_row_with_a_null_ms_flag_is_refused_as_report_refuses_its_file(null):
    with pytest.raises(ValueError, match="the row's ms is null"):
        board_of({"deal": 5, "ms": null})
    assert board_of({"deal": 5, "ms": ""}).name == board_of({"deal": 5}).name == "5"  # a CSV's empty cell


@settings(max_examples=400, deadline=None)
@given(lines())
def test_the_compiled_replay_agrees_with_the_rules(line):
    """Random lines (winning ones come from the solver below) are accepted exactly when they win."""
    board, piles = line
    try:
        Solution.from_piles(board, piles)
        accepted = True
    except SolutionError:
        accepted = False
    assert accepted == wins(board.to_text(), piles)


def test_every_solution_the_solver_returns_wins_on_the_board_text():
    for number in range(1, 60):
        board = deal(number)
        result = solve(board)
        assert (result.solution is not None) == result.solved
        if result.solved:
            assert wins(board.to_text(), list(result.solution.piles))


def test_a_solution_of_no_board_is_a_type_error_that_says_so():
    """Solution(None, b"") was an AttributeError ('NoneType' object has no attribute 'layout')."""
    for make in (lambda: Solution(None, b""), lambda: Solution.from_text("2H", "3S"),
                 lambda: Solution.from_piles(deal(2).to_text(), [0])):
        with pytest.raises(TypeError, match="a Solution takes a Board .*, not (NoneType|str)"):
            make()


def test_boards_walk_from_the_start_to_an_empty_board():
    solution = Solution.from_text(Board.from_text(POSITION), "4S 5S 6C 7D")
    boards = list(solution.boards())
    assert boards[0] == solution.board and len(boards) == 5
    assert [board.cards_left for board in boards] == [4, 3, 2, 1, 0]
    assert [str(board.foundation) for board in boards] == ["5H", "4S", "5S", "6C", "7D"]


def test_reprs_are_short_and_the_picture_numbers_the_moves():
    solution = Solution.from_text(Board.from_text(POSITION), "4S 5S 6C 7D")
    assert repr(solution) == "<Solution: 4 moves, 4S 5S 6C 7D>"
    assert repr(solution.moves[0]) == "Move(1, Card.from_text('4S'))"
    assert repr(solve(deal(2)).solution).startswith("<Solution from deal 2: 51 moves, ")
    svg = solution._repr_svg_()
    assert all(f">#{n}<" in svg for n in range(1, 5)) and "#5" not in svg


def test_solve_result_repr_is_one_short_line():
    assert repr(Solver().solve(deal(1))).startswith("<SolveResult unsolved: 9 iterations, 3 cards played, ")
    unknown = Solver().solve(deal(1), most_played=False)  # its repr said "None cards played"
    assert unknown.cards_played is None and ", most cards played unknown, " in repr(unknown)
    solved = repr(Solver().solve(deal(2)))
    assert solved.startswith("<SolveResult solved: ") and ", 51 moves, " in solved
    assert len(solved) < 80 and "\n" not in solved and "Card" not in solved
    shown = Solver().solve(deal(2))._repr_html_()  # a notebook's: the verdict, then the picture
    assert shown.startswith("<pre>&lt;SolveResult solved: 176 iterations, 51 moves, ") and shown.endswith(
        solve(deal(2)).solution.svg())
    assert unknown._repr_html_() is None  # (no picture: its text)


def test_reprs_count_in_the_singular_and_name_the_game():
    """Helper 150: "1 iterations", "1 cards played", and a Relaxed Golf line shown as any Solution."""
    one_card = Board.from_text("Foundations: 5H\n4S\n" + "\n" * 15)
    result = Solver().solve(one_card)
    assert repr(result).startswith("<SolveResult solved: 2 iterations, 1 move, ") and str(result.solution) == "4S"
    assert repr(Solver().solve(Board.from_text("Foundations: 5H\n9C\n" + "\n" * 15))).startswith(
        "<SolveResult unsolved: 1 iteration, 0 cards played, ")
    assert repr(result.solution) == "<Solution: 1 move, 4S>"
    assert repr(Solver().solve(deal(2, "relaxed_golf")).solution).startswith("<Relaxed Golf Solution from deal 2: ")
    stuck = Solver().solve(Board.from_text("Foundations: 5H\n9C 4S\n" + "\n" * 15))
    assert repr(stuck).startswith("<SolveResult unsolved: 1 iteration, 1 card played, "), repr(stuck)


@pytest.mark.parametrize("call, message", [
    (lambda: solve(deal(2), most_played="no"), "most_played is True or False, not 'no'"),  # was taken as True
    (lambda: solve(deal(2), most_played=None), "most_played is True or False, not None"),
    (lambda: solve(deal(2), most_played=1.0), "most_played is True or False, not 1.0"),
    (lambda: solve(deal(2), most_played=pd.NA), "most_played is True or False, not <NA>"),
    (lambda: Card.from_text(None), "a card is text such as 'TD', not NoneType"),
    (lambda: Card.from_text(["AS"]), "a card is text such as 'TD', not list"),
    (lambda: Solver().trap_walks("x", 1, 1, 1, 1), "trap_walks takes a Board"),
    (lambda: Board(Card.from_text("AS"), [Card.from_text("2H"), *[()] * 16]),
     "a pile or talon is a sequence of Cards (Card.from_text('2H')), not Card"),
    (lambda: Board(Card.from_text("2H"), [()] * 7, talon="3H", game="golf"),
     "a pile or talon is a sequence of Cards (Card.from_text('2H')), not str"),
    (lambda: Board(Card.from_text("AS"), [None, *[()] * 16]),
     "a pile or talon is a sequence of Cards (Card.from_text('2H')), not NoneType"),
])
def test_api_arguments_of_the_wrong_kind_are_named(call, message):
    """Each said something of Python's insides (`'NoneType' object is not subscriptable`, `'2' is not a
    Card`), or was taken for another value (helper 150)."""
    with pytest.raises(TypeError) as caught:
        call()
    assert str(caught.value).startswith(message), caught.value


# ------------------------------------------------------------------ dataset rows
NAMES = {*map(str, range(1, 13)), "ms5", "32000", "26464608654870335080"}
"""LCG and MT deals, an ms deal, the 32000 trap, a number past 2^64."""


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("rows") / "run"
    run(str(out), DealSet.parse(sorted(NAMES)), workers=1)
    return out


def check_rows(rows) -> None:
    """Each row's board is its deal's, its solution the one the solver finds (it is deterministic)."""
    names = set()
    for row in rows:
        board = board_of(row)
        names.add(board.name)
        assert board == deal(board.name)
        found = solve(board).solution
        solution = solution_of(row)
        assert solution == found and (solution is None or solution.board.name == board.name)
    assert names == NAMES


def test_rows_of_every_reader_give_their_board_and_solution(small_run):
    check_rows(pq.read_table(small_run).to_pylist())  # pyarrow: dicts
    frame = pd.read_parquet(small_run)
    check_rows(row for _, row in frame.iterrows())  # pandas Series
    check_rows(frame.itertuples())  # namedtuples: attributes only
    check_rows(pl.read_parquet(small_run / "*.parquet").rows(named=True))  # polars
    query = duckdb.sql(f"select * from read_parquet('{small_run}/*.parquet')")
    check_rows(dict(zip(query.columns, values)) for values in query.fetchall())
    table = pq.read_table(small_run)
    check_rows({name: table[name][i] for name in table.column_names} for i in range(len(table)))  # pyarrow scalars


def test_a_row_without_named_fields_is_refused_never_called_unsolved(small_run):
    """A plain tuple (DuckDB's fetchall, polars' row(i)) or a one-row table has no solution field to read:
    solution_of said None, "not solved", for solved deals, where board_of refused the same row."""
    frame = pl.read_parquet(small_run / "*.parquet").filter(pl.col("outcome") == "solved")
    query = duckdb.sql(f"select * from read_parquet('{small_run}/*.parquet') where outcome = 'solved'")
    for row, refusal in ((frame.row(0), "no field 'deal'"), (query.fetchall()[0], "no field 'deal'"),
                         (frame[0], "a table, not a row")):
        for read in (board_of, solution_of):
            with pytest.raises(ValueError, match=refusal):
                read(row)
    with pytest.raises(ValueError, match="no field 'solution'"):
        solution_of(frame.drop("solution").row(0, named=True))
    solved = frame.row(0, named=True)
    with pytest.raises(ValueError, match="the row is solved but its solution is null"):  # was None: "unsolved"
        solution_of({**solved, "solution": None})
    assert solution_of({**solved, "solution": None, "outcome": pd.NA}) is None


@pytest.mark.parametrize("value", [np.int64(7), np.uint32(7), 7.0, np.float64(7.0), Decimal("7"), "7", 7])
def test_any_integral_deal_value_gives_the_board(value):
    """What `.astype(int)`, a column with gaps (floats) or decimal128 hand back."""
    row = {"deal": value, "ms": np.False_, "solution": None}
    assert board_of(row).to_text() == reference_board("7")
    assert solution_of(row) is None
    assert board_of({"deal": value, "ms": np.True_}).name == "ms7"
    assert board_of(pd.Series({"deal": value, "ms": False})).to_text() == reference_board("7")


def test_missing_solutions_are_none_and_deal_exact_fills_a_null_deal():
    for missing in (None, float("nan"), pd.NA, np.nan):
        assert solution_of({"deal": 2, "ms": False, "solution": missing}) is None
    big = 26464608654870335080
    assert board_of({"deal": None, "deal_exact": Decimal(big), "ms": False}).name == str(big)
    assert board_of({"deal": 5, "deal_exact": None, "ms": False}).name == "5"



def test_a_row_that_says_two_things_is_refused_as_report_refuses_its_file(tmp_path):
    """The deal column won over deal_exact, and an `ms5` over its ms flag `False`, without a word."""
    for row, words in (({"deal": "5", "deal_exact": "7", "ms": "false"}, "deal and deal_exact both hold a number"),
                       ({"deal": 5, "deal_exact": "7", "ms": False}, "deal and deal_exact both hold a number"),
                       ({"deal": "ms5", "ms": False}, "deal ms5 is spelt as an ms deal, but its ms flag says"),
                       ({"deal": " MS5 ", "ms": "no"}, "deal MS5 is spelt as an ms deal, but its ms flag says")):
        with pytest.raises(ValueError, match=words):
            board_of(row)
        pd.DataFrame([row]).assign(outcome="solved", iterations=1, cards_played=51).to_csv(tmp_path / "t.csv",
                                                                                         index=False)
        with pytest.raises(DatasetError, match=words):
            report.load(tmp_path / "t.csv")
    assert board_of({"deal": "ms5", "ms": ""}).name == board_of({"deal": "ms5", "ms": True}).name == "ms5"
    (tmp_path / "empty_ms.csv").write_text("deal,ms,outcome,iterations,cards_played\nms5,,solved,1,51\n")
    row = pd.read_csv(tmp_path / "empty_ms.csv").iloc[0]  # the empty cell as NaN: refused, where report reads
    assert board_of(row).name == "ms5" and report.load(tmp_path / "empty_ms.csv")["ms"].tolist() == [True]  # ms5


def test_rows_of_a_csv_read_back_as_text_give_their_board(small_run, tmp_path):
    """A frame whose deals went float (a gap), written to CSV and read back as text: `1.0` is deal 1,
    not the game-number dialog's 10, and an ms flag `False` is no ms deal, as `report` reads the file."""
    frame = pd.read_parquet(small_run)
    frame["deal"] = frame["deal"].astype("float64")  # the deal past 2^64 is null here, spelt in deal_exact
    frame.to_csv(tmp_path / "rows.csv", index=False)
    text = pd.read_csv(tmp_path / "rows.csv", dtype=str)
    assert set(text["deal"].dropna().str.endswith(".0")) == {True} and set(text["ms"]) == {"False", "True"}
    check_rows(row for _, row in text.iterrows())
    bare = pd.read_csv(tmp_path / "rows.csv", dtype=str, keep_default_na=False)  # empty cells as ''
    assert (bare["deal"] == "").any() and (bare["solution"] == "").any()
    check_rows(row for _, row in bare.iterrows())


@pytest.mark.parametrize("row, named", [({"deal": "12.5", "ms": False}, "12.5"), ({"deal": 5, "ms": "maybe"}, "maybe"),
                                        ({"deal": 7.5, "ms": False}, "7.5"), ({"deal": True}, "bool"),
                                        ({"deal": Decimal("sNaN"), "ms": False}, "sNaN"),
                                        ({"deal": 2, "ms": False, "game": float("nan")}, "game is empty"),
                                        ({"deal": 2, "ms": False, "game": " "}, "game is empty")])
def test_a_row_that_is_no_deal_is_refused_naming_the_value(row, named):
    """Never another deal: the dialog's reading of `12.5` (125) is for typed numbers, not table cells."""
    with pytest.raises(ValueError, match=named):
        board_of(row)


def test_a_solution_cell_that_is_no_text_is_refused():
    with pytest.raises(ValueError, match="solution is 5"):
        solution_of({"deal": 2, "ms": False, "solution": 5})


def test_a_bad_solution_is_refused_naming_the_move():
    with pytest.raises(SolutionError, match="move 1: 'XX' is not a card"):
        solution_of({"deal": 2, "ms": False, "solution": "XX"})


def test_solve_deal_is_the_row_a_run_stores(small_run):
    """Every column but the time, deal for deal."""
    solver = Solver()
    stored = pq.read_table(small_run).to_pylist()
    assert len(stored) == len(NAMES)
    for row in stored:
        name = board_of(row).name
        fresh = solver.solve_deal(name)
        assert str(GameNumber(fresh["deal"], fresh["ms"])) == name and type(fresh["deal"]) is int
        same = set(fresh) - {"deal", "seconds"}
        assert same <= set(row) and {key: fresh[key] for key in same} == {key: row[key] for key in same}
    check_rows([solver.solve_deal(name) for name in NAMES])


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.key)
def test_solve_deal_is_solve_on_the_dealt_board(game):
    """A run's rows skip the Board and Solution objects: the same verdicts, counts and solution
    text (talon turns included) as Solver.solve on the board `deal` gives, deal for deal."""
    solver = Solver()
    for number in [*range(1, 41), 32000, 10**19 + 7, "ms7"]:
        row = solver.solve_deal(number, game=game)
        result = solver.solve(deal(number, game))
        assert (row["outcome"], row["iterations"], row["cards_played"]) == \
            (result.outcome, result.iterations, result.cards_played)
        assert row["solution"] == (None if result.solution is None else result.solution.text)


def test_a_game_given_where_the_search_goes_is_named_as_a_game():
    """`solve_deal(5, "golf")` (the game is the fourth argument, as `deal(5, "golf")` has it second) said
    only that the search must be 'fast' or 'classic'; it says what was given instead."""
    for game in ("golf", 405, "All in a Row"):
        with pytest.raises(ValueError, match=re.escape(f"not {game!r} ({game!r} is a game, not a search)")):
            Solver().solve_deal(5, game)
    with pytest.raises(ValueError, match=r"not 'quick'$"):
        Solver().solve(deal(5), "quick")


def test_a_line_that_is_not_a_win_has_no_text_and_solve_deal_would_say_why():
    board = deal(2)
    piles = solve(board).solution.piles
    assert line_text(board.layout, board.game, piles) == solve(board).solution.text
    for broken in (piles[:-1], piles[1:], bytes([piles[1]]) + piles[1:]):
        assert line_text(board.layout, board.game, broken) is None
        with pytest.raises(SolutionError):
            Solution(board, broken)


def test_solve_deal_rows_say_their_game_so_a_frame_of_them_reports_as_that_game(tmp_path):
    rows = [Solver().solve_deal(n, game="golf") for n in range(1, 4)]
    assert {row["game"] for row in rows} == {"golf"}
    pd.DataFrame(rows).to_parquet(tmp_path / "golf.parquet")
    data = report.load(tmp_path / "golf.parquet")
    assert report.game_of(data, "golf.parquet").key == "golf" and not report.names_no_game(data, None)


def test_budgets_that_are_no_whole_number_are_refused_not_taken_for_one():
    """True would run as a budget of 1 position (as deal(True) would be deal 1): refused, as floats are."""
    for budget in (True, False, 5.0, "5"):
        with pytest.raises(ValueError, match=f"max_iters must be a whole number .* not {re.escape(repr(budget))}"):
            Solver().solve(deal(2), max_iters=budget)
    assert Solver().solve(deal(2), max_iters=np.int64(10**6)).outcome == "solved"


def test_solve_deal_rows_make_a_data_frame():
    frame = pd.DataFrame([Solver().solve_deal(n) for n in range(1, 6)])
    assert list(frame["outcome"]) == ["unsolved", "solved", "solved", "solved", "solved"]  # the peer's verdicts
    assert frame["deal"].dtype == np.int64 and frame.loc[0, "cards_played"] == 3


def test_board_of_a_row_without_names_or_of_a_whole_table_says_so(tmp_path):
    """A DuckDB or polars tuple, an iterrows() pair: "row 1 has no game number (deal is null)", though the
    row had no field at all; a frame or an Arrow table: pandas' "truth value of a Series is ambiguous" or
    "unknown game '[ -- dictionary ...'"."""
    frame = pd.DataFrame({"deal": [5, 6], "ms": [False, False]})
    frame.to_parquet(tmp_path / "rows.parquet")
    unnamed = [duckdb.sql(f"select * from read_parquet('{tmp_path / 'rows.parquet'}')").fetchall()[0],
               pl.read_parquet(tmp_path / "rows.parquet").row(0), next(frame.iterrows())]
    for row in unnamed:
        with pytest.raises(ValueError, match="the row has no field 'deal': pass one row with named fields"):
            board_of(row)
    relation = duckdb.sql(f"select * from read_parquet('{tmp_path / 'rows.parquet'}') limit 1")  # no deal_exact
    polars_frame = pl.read_parquet(tmp_path / "rows.parquet").head(1)  # nor this: polars raised its own error
    for table in (frame.head(1), pq.read_table(tmp_path / "rows.parquet").slice(0, 1), relation, polars_frame):
        for read in (board_of, solution_of):
            with pytest.raises(ValueError, match=r"a table, not a row: pass one row \(df\.iloc\[i\]"):
                read(table)
    record = frame.to_records(index=False)[0]  # numpy's records say ValueError for a field they lack
    assert board_of(record) == deal(5) and board_of(record) == board_of(frame.iloc[0])
    assert board_of(frame.iloc[0]) == board_of(pl.read_parquet(tmp_path / "rows.parquet").rows(named=True)[0]) \
        == board_of({"deal_exact": "5", "ms": False}) == deal(5)
    with pytest.raises(ValueError, match=r"column ms holds \"b'True'\", not true or false"):  # one value, not
        board_of({"deal": 5, "ms": b"True"})                                          # "a column of values"


def test_a_run_row_read_without_its_game_is_dealt_as_black_hole_with_a_warning(tmp_path):
    """pandas drops the partition key when it reads one `game=golf` folder: board_of dealt the row as
    Black Hole's without a word, where report notes a file without its game."""
    solver = Solver()
    rows = pd.DataFrame([{**solver.solve_deal(n, game="golf"), "deal_exact": None} for n in (4, 5)])
    rows.to_parquet(tmp_path / "by_game", partition_cols=["game"])
    row = pd.read_parquet(tmp_path / "by_game" / "game=golf").iloc[0]
    assert "game" not in row and "deal_exact" in row
    with pytest.warns(UserWarning, match=r"the row has no game field: dealt as Black Hole's \(every row this "
                                         r"version writes names its game; pandas drops the game column when it "
                                         r"reads one game=\.\.\. folder, and a selection of columns may leave it "
                                         r"out; df\.assign\(game=\.\.\.\) names it\)"):
        assert board_of(row) == deal(4)
    assert board_of(pd.concat([row, pd.Series({"game": "golf"})])) == deal(4, "golf")


def test_a_row_read_without_its_game_column_is_dealt_as_black_hole_with_a_warning(tmp_path):
    """A notebook reading a Golf dataset's columns deal, ms and outcome (no game, no deal_exact) got
    Black Hole's board of the number without a word: only a row with deal_exact was warned of."""
    solver = Solver()
    pd.DataFrame([solver.solve_deal(n, game="golf") for n in (4, 5)]).to_parquet(tmp_path / "golf.parquet")
    row = pd.read_parquet(tmp_path / "golf.parquet", columns=["deal", "ms", "outcome"]).iloc[0]
    with pytest.warns(UserWarning, match="the row has no game field: dealt as Black Hole's") as caught:
        assert board_of(row) == deal(4) != deal(4, "golf")
    with pytest.warns(UserWarning, match="the row has no game field") as through, pytest.raises(SolutionError):
        solution_of(pd.read_parquet(tmp_path / "golf.parquet", columns=["deal", "ms", "solution"]).iloc[1])
    assert [warning.filename for warning in (*caught, *through)] == [__file__] * 2  # the caller's line, not ours
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert board_of(pd.read_parquet(tmp_path / "golf.parquet", columns=["game", "deal", "ms"]).iloc[0]) == \
            deal(4, "golf")


def test_a_row_of_another_game_without_its_game_field_says_so():
    """pandas drops the partition key when it reads one `game=golf` folder: the row was dealt as Black Hole's
    and its solution failed on a card not on top, with nothing to say why."""
    solver = Solver()
    row = next(row for row in (solver.solve_deal(n, game="golf") for n in range(1, 50)) if row["solution"])
    assert solution_of(row).board.game.key == "golf"
    del row["game"]
    with pytest.raises(SolutionError, match=r"\(the row has no game, so it was dealt as Black Hole's: a row of "
                                            "another game needs its game field"):
        solution_of(row)


def test_a_row_read_without_its_ms_column_warns_where_ms_deals_differ(tmp_path):
    """A run's rows of ms32000 and 32000, read without the ms column: board_of dealt both as 32000 (the
    Mersenne Twister), another board than ms32000's, without a word (helper 150). Below 32000 N is msN's
    board, and above 2^33 - 1 there is no ms deal: no warning there."""
    out = tmp_path / "run"
    assert cli("run", "--deals", "-", "--game", "golf", "--out", out, "--workers", "1",
               stdin=b"31999\nms32000\n32000\n8589934592\n").returncode == 0
    rows = pd.read_parquet(out, columns=["game", "deal", "solution"]).sort_values("deal", kind="stable")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert board_of(rows.iloc[0]) == deal(31999, "golf") and board_of(rows.iloc[-1]) == deal(8589934592, "golf")
    for row in rows.iloc[1:3].itertuples():
        with pytest.warns(UserWarning, match=r"the row has no ms field: dealt as deal 32000, PySolFC's Mersenne "
                                             r"Twister deal, another board than ms32000's") as caught:
            assert board_of(row) == deal(32000, "golf") != deal("ms32000", "golf")
        assert [warning.filename for warning in caught] == [__file__]
    assert {board_of(row).name for row in pd.read_parquet(out).itertuples()} == {
        "31999", "ms32000", "32000", "8589934592"}
    listing = pd.read_csv(io.BytesIO(cli("export", out, "--format", "csv").stdout), dtype=str)  # as text: "ms32000"
    assert "ms" not in listing  # (export's CSV spells ms deals in deal)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert {board_of(row).name for row in listing.itertuples()} == {"31999", "ms32000", "32000", "8589934592"}
