"""The family of five games: each described once, dealt as PySolFC deals it, read, played,
drawn and solved exactly.

Oracles: the reference boards and the peer solver's verdicts in
shared/reference/family/ (pysol-cards and black-hole-solver 1.14), pysol-cards
itself over generator boundaries, and a brute-force solver written here from
the rules in FAMILY.md (its own rules table, not the package's).
"""
from __future__ import annotations

import csv
import json
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blackhole_stats import Board, BoardParseError, IllegalMove, Solution, SolutionError, Solver, deal
from blackhole_stats.dealing import GameNumber
from blackhole_stats.games import GAMES, UnknownGameError, get_game

from conftest import assert_one_line_failure, cli, require_reference

RANKS, SUITS = "A23456789TJQK", "CSHD"
ALL_CARDS = [r + s for s in SUITS for r in RANKS]
FAMILY = ("all_in_a_row", "golf", "dead_king_golf", "relaxed_golf")
BOARD_FILE = {"all_in_a_row": "all_in_a_row", "golf": "golf", "dead_king_golf": "golf", "relaxed_golf": "golf"}
# The rules as FAMILY.md states them: (Ace and King adjacent, anything may go on a King).
RULES = {"black_hole": (True, True), "all_in_a_row": (True, True), "golf": (False, True),
         "dead_king_golf": (False, False), "relaxed_golf": (True, True)}
SOLVER = Solver()


def reference_boards(game: str) -> dict[int, str]:
    path = require_reference(f"family/{BOARD_FILE[game]}_boards.txt")
    parts = re.split(r"^# deal=(\d+) game=\w+\n", path.read_text(), flags=re.M)[1:]
    return {int(number): text for number, text in zip(parts[::2], parts[1::2])}


def peer_rows(game: str) -> dict[int, dict]:
    path = require_reference(f"family/peer_{game}_1_1000.csv")
    with path.open(newline="") as handle:
        return {int(row["deal"]): row for row in csv.DictReader(handle)}


# ------------------------------------------------------------------ the games
@pytest.mark.parametrize("spelling, key", [
    ("golf", "golf"), ("36", "golf"), (36, "golf"), ("GOLF", "golf"), ("All in a Row", "all_in_a_row"),
    ("all in a row", "all_in_a_row"), ("405", "all_in_a_row"), ("Dead King Golf", "dead_king_golf"),
    ("dead-king-golf", "dead_king_golf"), ("259", "dead_king_golf"), ("relaxed_golf", "relaxed_golf"),
    ("260", "relaxed_golf"), ("Black Hole", "black_hole"), ("98", "black_hole"), (None, "black_hole")])
def test_game_lookup(spelling, key):
    assert get_game(spelling).key == key


@pytest.mark.parametrize("spelling", ["golfs", "37", "", "black", "Klondike"])
def test_unknown_game_lists_the_choices(spelling):
    with pytest.raises(UnknownGameError) as error:
        get_game(spelling)
    for game in GAMES:
        assert game.key in str(error.value) and str(game.pysol_id) in str(error.value)


def test_descriptions_match_family_md():
    """Layouts and rules as FAMILY.md's table gives them."""
    layout = {game.key: (game.piles, game.pile_size, game.talon_size, game.foundation_start) for game in GAMES}
    assert layout == {"black_hole": (17, 3, 0, "ace_of_spades"), "all_in_a_row": (13, 4, 0, "empty"),
                      "golf": (7, 5, 16, "next_card"), "dead_king_golf": (7, 5, 16, "next_card"),
                      "relaxed_golf": (7, 5, 16, "next_card")}
    for game in GAMES:
        wrap, on_king = RULES[game.key]
        for f in range(13):
            for r in range(13):
                expected = (abs(r - f) == 1 or (wrap and abs(r - f) == 12)) and (on_king or f != 12)
                assert game.fits(r, f) == expected, (game.key, r, f)


# ------------------------------------------------------------------ dealing
@pytest.mark.parametrize("game", FAMILY)
def test_every_reference_board_is_dealt(game):
    boards = reference_boards(game)
    assert len(boards) == 1000
    bad = [number for number, text in boards.items() if deal(number, game).to_text() != text]
    assert not bad, f"{len(bad)} boards differ, e.g. {bad[:5]}"


def pysol_cards_text(game: str, number: int, ms: bool) -> str:
    from pysol_cards.cards import CardRenderer
    from pysol_cards.deal_game import Game
    from pysol_cards.random_base import RandomBase

    which = RandomBase.DEALS_MS if ms else RandomBase.DEALS_PYSOLFC
    return Game(game, number, which, 13).calc_deal_string(number, CardRenderer(True))


_rng = random.Random(99)
NUMBERS = sorted({1, 2, 31999, 32001, 32002, 2**31 - 1, 2**31, 2**31 + 1, 2**32 - 1, 2**32, 2**32 + 1,
                  2**33, 10**12, 10**16, 26464608654870335080, 10**20 - 1, 10**20, 2**64 - 1, 2**64, 2**64 + 1,
                  *(_rng.randint(1, 31999) for _ in range(40)), *(_rng.randint(32001, 10**20) for _ in range(80)),
                  *(_rng.randint(10**16, 10**20) for _ in range(40))})
MS_NUMBERS = sorted({1, 32000, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**33 - 1,
                     *(_rng.randint(1, 2**33 - 1) for _ in range(40))})


@pytest.mark.parametrize("oracle_game", ["all_in_a_row", "golf"])  # the two deal shapes of the family
def test_pysol_cards_deals_the_same(oracle_game):
    pytest.importorskip("pysol_cards")
    bad = [n for n in NUMBERS if deal(GameNumber(n), oracle_game).to_text() != pysol_cards_text(oracle_game, n, False)]
    bad += [f"ms{n}" for n in MS_NUMBERS
            if deal(GameNumber(n, True), oracle_game).to_text() != pysol_cards_text(oracle_game, n, True)]
    assert not bad, f"{len(bad)} deals differ from pysol-cards, e.g. {bad[:5]}"


def test_golf_games_share_a_deal_and_32000_is_pysolfc_s():
    assert deal(5, "golf").to_text() == deal(5, "dead_king_golf").to_text() == deal(5, "relaxed_golf").to_text()
    assert deal("32000", "golf").to_text() != deal("ms32000", "golf").to_text()
    assert deal(1, "all_in_a_row").piles[12][-1].text == "AS"  # the shuffle hook deals it last


# ------------------------------------------------------------------ boards
def golf_position() -> str:
    """Golf deal 2 after 'AC from pile 2' and turning 3S: a position part-way through."""
    return ("Talon: TS 9H 2H 3H AD 7H 3D 5H 8D KH 7D AS 5S TH JH\nFoundations: 3S\n"
            "QD 5C 2D 4S 6S\nQC 4D 9C 5D 4H\nKC JD TD QH\n3C JS JC 7S 8H\n4C 6H 8C 9D AH\n"
            "2C QS 6C KS 9S\nKD 6D 8S 7C TC\n")


def test_board_text_round_trips_part_way():
    board = Board.from_text(golf_position(), get_game("golf"))
    assert board.to_text() == golf_position()
    assert len(board.talon) == 15 and board.foundation.text == "3S" and board.cards_left == 34
    after = deal(2, "golf").play(2)[1].play(None)[1]
    assert after == board
    empty = Board.from_text("Talon:\nFoundations: 3S\n" + "\n" * 7, get_game("golf"))
    assert empty.to_text() == "Talon:\nFoundations: 3S\n" + "\n" * 7 and empty.legal_moves() == []


@pytest.mark.parametrize("game, text, message", [
    ("golf", "Talon: 8H\nFoundations: TH\n" + "AS\n" * 0 + "\n" * 7 + "2C\n", "line 10: more than 7 piles"),
    ("golf", "8H\nFoundations: TH\n", "line 1: expected 'Talon: <cards>'"),
    ("golf", "Talon: 8H\nFoundations: -\n", "line 2: the foundation of Golf is never empty"),
    ("golf", "Talon: 8H 8H\nFoundations: TH\n", "line 1: card 8H is also in the talon"),
    ("golf", "Talon: 8H\nFoundations: TH\n2C 8H\n", "line 3: card 8H is also in the talon"),
    ("golf", "Talon: " + " ".join(ALL_CARDS[:17]) + "\nFoundations: TH\n", "more than 16 cards in the talon"),
    ("golf", "Talon: 8H\nFoundations: TH\n2C 3C 4C 5C 6C 7C\n", "line 3: more than 5 cards in a pile"),
    ("all_in_a_row", "Talon: 8H\nFoundations: TH\n", "line 1: All in a Row has no talon"),
    ("all_in_a_row", "Foundations: -\n2C\n", "line 1: an empty foundation means no card has been played, "
                                            "but the board holds 1 of the 52 cards"),
    ("all_in_a_row", "Foundations: TH\n" + "\n" * 13 + "2C\n", "line 15: more than 13 piles"),
    ("black_hole", "Foundations: -\n", "line 1: the foundation of Black Hole is never empty"),
    ("dead_king_golf", "Talon: 8X\nFoundations: TH\n", "line 1: unknown card '8X'"),
])
def test_malformed_boards_name_line_and_token(game, text, message):
    with pytest.raises(BoardParseError) as error:
        Board.from_text(text, get_game(game))
    assert message in str(error.value)


def position(game: str, foundation: str, piles: list[str], talon: str = "") -> Board:
    """A Golf-shaped position from its parts, through the board text."""
    lines = [f"Talon: {talon}".rstrip(" "), f"Foundations: {foundation}", *piles]
    return Board.from_text("\n".join(lines + [""] * (7 - len(piles))) + "\n", get_game(game))


def test_moves_follow_each_game_s_rules():
    def on_king(game: str) -> list[str]:
        return [move.text for move in position(game, "KH", ["AC", "QC"], "2D").legal_moves()]

    assert on_king("golf") == ["QC", "talon:2D"]
    assert on_king("dead_king_golf") == ["talon:2D"]
    assert on_king("relaxed_golf") == ["AC", "QC", "talon:2D"]
    board = position("dead_king_golf", "KH", ["AC"], "2D")
    with pytest.raises(IllegalMove, match="does not fit"):
        board.play(0)
    move, after = board.play(None)
    assert move.is_talon and move.text == "talon:2D" and after.foundation.text == "2D" and after.talon == ()
    with pytest.raises(IllegalMove, match="talon is empty"):
        after.play(None)
    assert [m.pile for m in after.legal_moves()] == [0]
    with pytest.raises(IllegalMove, match="has no talon"):
        deal(1).play(None)
    assert len(deal(1, "all_in_a_row").legal_moves()) == 13  # anything starts the empty foundation


def test_svg_shows_talon_and_empty_foundation():
    golf = deal(2, "golf").svg()
    assert "talon (16, the next at the right)" in golf and golf.count('class="card"') == 52
    assert golf.index('data-card="JH"') < golf.index('data-card="3S"')  # the next card drawn last, on top
    row = deal(1, "all_in_a_row").svg()
    assert 'class="empty"' in row and row.count('class="card"') == 52 and "pile 12" in row
    assert 'class="empty"' not in deal(1).svg()


# ------------------------------------------------------------------ solutions
def test_talon_turns_have_their_own_text_and_json():
    board = deal(2, "golf")
    result = SOLVER.solve(board)
    assert result.solved and any(move.is_talon for move in result.solution)
    text = result.solution.text
    assert "talon:3S" in text.split()
    assert Solution.from_text(board, text) == result.solution
    items = result.solution.to_json()
    assert {"talon": True, "card": "3S"} in items and all(set(item) in ({"pile", "card"}, {"talon", "card"})
                                                          for item in items)
    assert [b.cards_left for b in result.solution.boards()][-1] == 0
    with pytest.raises(SolutionError, match="move 2: 3S is in the talon"):
        Solution.from_text(board, "AC 3S")
    with pytest.raises(SolutionError, match="move 1: talon:TS, but the talon's next card is 3S"):
        Solution.from_text(board, "talon:TS")
    with pytest.raises(SolutionError, match="is not a card"):
        Solution.from_text(board, "talon:")
    with pytest.raises(SolutionError, match="leaves 35 cards"):
        Solution.from_piles(board, [None])


def test_nothing_is_played_once_the_piles_are_empty():
    """A Golf game is won, and over, when its piles are empty (PySolFC turns no talon card after the
    win): a line that turns one then is no solution, read by piles or as text (as `verify` reads a run)."""
    board = position("golf", "2S", ["AH"], "3S 4S")
    assert len(Solution.from_piles(board, [0])) == 1
    with pytest.raises(SolutionError, match="move 2: the piles are already empty"):
        Solution.from_piles(board, [0, None])
    with pytest.raises(SolutionError, match="move 2: the piles are already empty"):
        Solution.from_text(board, "AH talon:3S")
    finished = position("golf", "2S", [], "3S")
    assert len(Solution.from_piles(finished, [])) == 0
    with pytest.raises(SolutionError, match="move 1: the piles are already empty"):
        Solution.from_piles(finished, [None])


# ------------------------------------------------------------------ verdicts
@pytest.mark.parametrize("game", FAMILY)
def test_verdicts_and_most_played_match_the_peer(game):
    """Every 7th deal of 1..1000 (scripts/check_peer.py --game checks them all)."""
    rows = peer_rows(game)
    bad = []
    for number in range(1, 1001, 7):
        result = SOLVER.solve(deal(number, game))
        peer = rows[number]
        ours = (result.outcome, result.cards_played if result.outcome == "unsolved" else None)
        theirs = (peer["outcome"], int(peer["max_played"]) if peer["outcome"] == "unsolved" else None)
        if ours != theirs:
            bad.append((number, ours, theirs))
    assert not bad, bad[:5]


def heights_search(board: Board) -> tuple[str, int | None, Solution | None]:
    """The exhaustive heights search alone (what the fast search hands Golf's deals to after a short
    first try), on the compiled core: (outcome, cards played, the win replayed from the board)."""
    outcome, _, played, piles = SOLVER._core.solve(*board.solver_input(), 2, **board.solver_rules())
    verdict = ("solved", "unsolved", "intractable")[outcome]
    return verdict, played, Solution(board, piles) if verdict == "solved" else None


@pytest.mark.parametrize("game", [game for game in FAMILY if get_game(game).has_talon])
def test_the_heights_search_alone_matches_the_peer(game):
    """Every 13th deal of 1..1000: verdicts, most cards played, and every win replays (a line read
    back from the search's rows, often 51 moves long)."""
    rows = peer_rows(game)
    bad = []
    for number in range(1, 1001, 13):
        board = deal(number, game)
        outcome, played, solution = heights_search(board)
        peer = rows[number]
        if (outcome, played if outcome == "unsolved" else None) != (
                peer["outcome"], int(peer["max_played"]) if peer["outcome"] == "unsolved" else None):
            bad.append(number)
        if solution is not None:
            assert solution.board == board and played == len(solution)
    assert not bad, bad[:5]


@pytest.mark.parametrize("game", ["golf", "dead_king_golf"])
def test_the_first_try_goes_on_past_1000_positions_only_near_a_win(game):
    """README: a deal the heights search covers goes to it after 1,000 positions of the first try,
    or after 10,000 while the deepest line leaves at most 6 pile cards. The first try's share of
    `iterations` is the whole search's less the pass's alone; its deepest line after 1,000
    positions is what a budget of 1,000 (too small to hand over) reports as cards played."""
    shares = {}
    for number in range(1, 41):
        board = deal(number, game)
        whole = SOLVER._core.solve(*board.solver_input(), 0, **board.solver_rules())
        if whole[0] == 0 and whole[1] <= 10_000:
            continue  # won within the first try: no pass
        share = whole[1] - SOLVER._core.solve(*board.solver_input(), 2, **board.solver_rules())[1]
        played = SOLVER.solve(board, max_iters=1000, most_played=False).cards_played
        near = played is not None and played >= get_game(game).playable_cards - 6
        assert share <= (10_000 if near else 1000), (number, share, played)  # less: refuted first
        shares[number] = share
    assert sum(share == 1000 for share in shares.values()) > len(shares) / 2
    assert 10_000 in shares.values()


def test_a_budget_too_small_for_the_heights_search_loses_no_verdict_the_search_reaches():
    """The heights search takes over only where the budget surely holds its whole pass: Golf deal 65
    is refuted at the first position and deal 12 won after 12,696, both within budgets far below
    the pass's, and every verdict a budget reaches is the peer's."""
    assert SOLVER.solve(deal(65, "golf"), max_iters=2000, most_played=False).outcome == "unsolved"
    assert SOLVER.solve(deal(12, "golf"), max_iters=100_000).outcome == "solved"
    rows = peer_rows("golf")
    outcomes = {number: SOLVER.solve(deal(number, "golf"), max_iters=100_000).outcome for number in range(1, 61)}
    assert all(outcome in ("intractable", rows[number]["outcome"]) for number, outcome in outcomes.items())
    assert sum(outcome != "intractable" for outcome in outcomes.values()) > len(outcomes) / 2


def test_the_heights_search_covers_small_layouts_only():
    with pytest.raises(ValueError, match="heights search covers layouts of at most 2"):
        heights_search(deal(1, "all_in_a_row"))  # 13 piles of 4: 5^13 pile-height vectors
    with pytest.raises(ValueError, match="search must be 0"):
        SOLVER._core.solve(*deal(1).solver_input(), 3)


def fits(game: str, card: int, f: int | None) -> bool:
    """Whether a card of rank `card` may go on foundation rank `f` (None: empty), by RULES."""
    wrap, on_king = RULES[game]
    if f is None:
        return True
    if f == 12 and not on_king:
        return False
    return abs(card - f) == 1 or (wrap and abs(card - f) == 12)


def brute_force(game: str, foundation: int | None, piles: list[list[int]], talon: list[int]) -> tuple[bool, int]:
    """(winnable, most moves of any line): every line of play, a win ending its line.
    Ranks only; the rules from RULES, not the package's."""
    memo: dict = {}

    def search(f, heights: tuple, t: int) -> tuple[bool, int]:
        key = (f, heights, t)
        if key not in memo:
            if not any(heights):
                memo[key] = (True, 0)
                return memo[key]
            won, best = False, 0
            for p, h in enumerate(heights):
                if h and fits(game, piles[p][h - 1], f):
                    w, more = search(piles[p][h - 1], heights[:p] + (h - 1,) + heights[p + 1:], t)
                    won, best = won or w, max(best, 1 + more)
            if t < len(talon):
                w, more = search(talon[t], heights, t + 1)
                won, best = won or w, max(best, 1 + more)
            memo[key] = (won, best)
        return memo[key]

    return search(foundation, tuple(map(len, piles)), 0)


@st.composite
def small_positions(draw, game_key: str):
    game = get_game(game_key)
    cards = draw(st.permutations(range(52)))
    size = draw(st.integers(0, 9))
    talon_size = draw(st.integers(0, min(4, game.talon_size)))
    return spread_over_piles(draw, game, cards, size, talon_size)


def spread_over_piles(draw, game, cards: list[int], size: int, talon_size: int):
    """The first `size` cards dealt onto random piles (the next pile where one is full), then the
    talon and the foundation card: a position of `game` for the brute-force comparisons."""
    piles: list[list[int]] = [[] for _ in range(game.piles)]
    for card in cards[:size]:
        target = draw(st.integers(0, game.piles - 1))
        while len(piles[target]) == game.pile_size:
            target = (target + 1) % game.piles
        piles[target].append(card)
    return piles, list(cards[size:size + talon_size]), cards[size + talon_size]


@st.composite
def dense_positions(draw, game_key: str):
    """Cards of five neighbouring ranks only, so that most cards fit on others: lines are long,
    the talon matters, and the pruning rules get to refute (and wrongly refute, if one is wrong)."""
    game = get_game(game_key)
    low = draw(st.integers(0, 8))
    cards = draw(st.permutations([suit * 13 + rank for suit in range(4) for rank in range(low, low + 5)]))
    size = draw(st.integers(0, min(13, game.piles * game.pile_size)))
    talon_size = draw(st.integers(0, min(6, game.talon_size)))
    return spread_over_piles(draw, game, cards, size, talon_size)


@st.composite
def near_miss_positions(draw, game_key: str):
    """Many cards of six neighbouring ranks and a talon of several: often unsolvable with the best line
    a few cards short, so the most-cards-played search runs long and meets a position again with more of
    the talon turned (where its talon dominance fires, and would give too small a figure if wrong)."""
    game = get_game(game_key)
    low = draw(st.integers(0, 7))
    cards = draw(st.permutations([suit * 13 + rank for suit in range(4) for rank in range(low, low + 6)]))
    size = draw(st.integers(12, 16))
    talon_size = draw(st.integers(3, 7))
    return spread_over_piles(draw, game, cards, size, talon_size)


@st.composite
def empty_start_positions(draw, game_key: str):
    """An empty foundation (where the game allows it) over up to 20 cards of five neighbouring ranks on
    five piles."""
    game = get_game(game_key)
    low = draw(st.integers(0, 12))
    cards = draw(st.permutations([suit * 13 + (rank % 13) for suit in range(4) for rank in range(low, low + 5)]))
    size = draw(st.integers(1, 5 * game.pile_size))
    piles: list[list[int]] = [[] for _ in range(game.piles)]
    used = draw(st.permutations(range(game.piles)))[:5]
    for card in cards[:size]:
        target = draw(st.sampled_from(used))
        while len(piles[target]) == game.pile_size:
            target = used[(used.index(target) + 1) % len(used)]
        piles[target].append(card)
    return piles, [], None


def card_text(card_id: int) -> str:
    return RANKS[card_id % 13] + SUITS[card_id // 13]


@pytest.mark.parametrize("positions", [small_positions, dense_positions], ids=["random", "dense"])
@pytest.mark.parametrize("game_key", list(RULES))
def test_small_positions_against_brute_force(game_key, positions):
    check_against_brute_force(game_key, positions)


@pytest.mark.parametrize("game_key", [key for key in RULES if get_game(key).has_talon])
def test_near_misses_with_a_talon_against_brute_force(game_key):
    check_against_brute_force(game_key, near_miss_positions)


EMPTY_START = [key for key in RULES if get_game(key).foundation_start == "empty"]


def solve_from_empty(game_key: str, piles: list[list[int]]) -> tuple[int, int | None, bytes, int]:
    """The compiled core on ranks in piles (bottom first) and an empty foundation, which a Board never
    holds short of 52 cards: (outcome, cards played, the winning line replayed here by RULES, iterations)."""
    game = get_game(game_key)
    ranks = bytes(rank for pile in piles for rank in pile + [0] * (game.pile_size - len(pile)))
    outcome, iterations, most, line = SOLVER._core.solve(ranks, bytes(map(len, piles)), 13, 0,
                                                         rules=game.rules_bytes)
    if outcome == 0:
        left, foundation = [list(pile) for pile in piles], None
        for pile in line:
            card = left[pile].pop()
            assert fits(game_key, card, foundation), (piles, line)
            foundation = card
        assert not any(left) and most == len(line), (piles, line)
    return outcome, most, line, iterations


@pytest.mark.parametrize("game_key", EMPTY_START)
def test_empty_foundations_against_brute_force(game_key):
    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(empty_start_positions(game_key))
    def check(position):
        piles = [[card % 13 for card in pile] for pile in position[0]]
        outcome, most, _, _ = solve_from_empty(game_key, piles)
        won, brute_most = brute_force(game_key, None, piles, [])
        assert outcome == (0 if won else 1), piles
        assert most == (len(sum(piles, [])) if won else brute_most), piles

    check()


@pytest.mark.parametrize("game_key", EMPTY_START)
def test_layouts_that_outlast_the_first_restarts_against_brute_force(game_key):
    """Full layouts less cards taken from either end of random piles, down to 30 to 34 cards: those the
    search does not decide within its first run (100 positions), where it goes on to ask the layout
    upside down as well, and still small enough for the brute force."""
    game, shuffle, checked = get_game(game_key), random.Random(52), 0
    while checked < 25:
        cards = list(range(52))
        shuffle.shuffle(cards)
        piles = [[card % 13 for card in cards[k:k + game.pile_size]] for k in range(0, 52, game.pile_size)]
        size = shuffle.randint(30, 34)
        while sum(map(len, piles)) > size:
            pile = shuffle.choice([pile for pile in piles if pile])
            pile.pop(shuffle.choice((0, -1)))
        outcome, most, _, iterations = solve_from_empty(game_key, piles)
        if iterations <= 100:
            continue
        checked += 1
        won, brute_most = brute_force(game_key, None, piles, [])
        assert outcome == (0 if won else 1), piles
        assert most == (size if won else brute_most), piles


@pytest.mark.parametrize("game_key", EMPTY_START)
def test_a_layout_and_its_piles_upside_down_are_won_together(game_key):
    """Read backwards, a line that empties the piles from an empty foundation empties them turned upside
    down: the search asks both (All in a Row, past its first restarts), and a slip in turning the piles or
    the line back shows here on random full layouts (small ones are decided before the second is asked)."""
    game, shuffle = get_game(game_key), random.Random(405)
    for _ in range(150):
        cards = list(range(52))
        shuffle.shuffle(cards)
        piles = [[card % 13 for card in cards[k:k + game.pile_size]] for k in range(0, 52, game.pile_size)]
        upright = solve_from_empty(game_key, piles)[0]
        assert upright in (0, 1) and solve_from_empty(game_key, [pile[::-1] for pile in piles])[0] == upright


def check_against_brute_force(game_key, positions):
    game = get_game(game_key)

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(positions(game_key))
    def check(position):
        piles, talon, foundation = position
        lines = ([" ".join(["Talon:", *map(card_text, talon)])] if game.has_talon else [])
        lines += [f"Foundations: {card_text(foundation)}"] + [" ".join(map(card_text, pile)) for pile in piles]
        board = Board.from_text("\n".join(lines) + "\n", game)
        won, most = brute_force(game_key, foundation % 13, [[c % 13 for c in p] for p in piles],
                                [c % 13 for c in talon])
        result = SOLVER.solve(board)
        assert result.outcome == ("solved" if won else "unsolved"), board.to_text()
        if won:
            assert result.solution.board == board and result.cards_played == len(result.solution)
        else:
            assert result.cards_played == most, board.to_text()
        outcome, played, solution = heights_search(board)  # these layouts are all small enough
        assert outcome == result.outcome, board.to_text()
        if won:
            assert solution.board == board and played == len(solution)
        else:
            assert played == most, board.to_text()

    check()


@pytest.mark.parametrize("piles_count", [7, 12])
@pytest.mark.parametrize("game_key", [key for key in RULES if get_game(key).has_talon])
def test_the_heights_search_on_shapes_no_deal_has_against_brute_force(game_key, piles_count):
    """The heights search alone, on the compiled core, where no board takes it: more piles than its
    vector lanes hold (12: the plain loop) and a talon over an empty foundation (a card then has
    three foundation ranks to look up: the empty one and its two neighbours)."""
    game, rng = get_game(game_key), random.Random(piles_count)
    for _ in range(200):
        cards = [card % 13 for card in rng.sample(range(52), 24)]
        piles: list[list[int]] = [[] for _ in range(piles_count)]
        for card in cards[:rng.randint(1, 14)]:
            target = rng.randrange(piles_count)
            while len(piles[target]) == game.pile_size:
                target = (target + 1) % piles_count
            piles[target].append(card)
        talon = cards[14:14 + rng.randint(0, 6)]
        foundation = None if rng.random() < 0.5 else cards[23]
        ranks = bytes(rank for pile in piles for rank in pile + [0] * (game.pile_size - len(pile)))
        outcome, _, most, line = SOLVER._core.solve(ranks, bytes(map(len, piles)), 13 if foundation is None
                                                    else foundation, 2, talon=bytes(talon), rules=game.rules_bytes)
        won, brute_most = brute_force(game_key, foundation, piles, talon)
        assert outcome == (0 if won else 1), (piles, talon, foundation)
        if won:
            left, top, turned = [list(pile) for pile in piles], foundation, 0
            for move in line:
                if move == 255:
                    top, turned = talon[turned], turned + 1
                else:
                    assert fits(game_key, left[move][-1], top), (piles, talon, foundation, line)
                    top = left[move].pop()
            assert not any(left) and most == len(line), (piles, talon, foundation, line)
        else:
            assert most == brute_most, (piles, talon, foundation)


def test_classic_search_is_black_hole_s_only():
    with pytest.raises(ValueError, match="Black Hole counts only; Golf"):
        SOLVER.solve(deal(1, "golf"), search="classic")


# ------------------------------------------------------------------ command line
@pytest.mark.parametrize("spelling, game, number", [("405", "all_in_a_row", 7), ("All in a Row", "all_in_a_row", 1),
                                                    ("golf", "golf", 1000), ("Relaxed Golf", "relaxed_golf", 3)])
def test_cli_deal_prints_the_peer_s_board(spelling, game, number):
    result = cli("deal", str(number), "--game", spelling)
    assert result.returncode == 0 and result.stdout.decode() == reference_boards(game)[number]


def test_cli_solve_game_text_and_json(tmp_path):
    result = cli("solve", "2", "--game", "36", "--json")
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert data["game"] == "golf" and data["outcome"] == "solved" and {"talon": True, "card": "3S"} in data["solution"]
    board = tmp_path / "golf.txt"
    board.write_text(golf_position())
    text = cli("solve", "--board", str(board), "--game", "golf")
    assert text.returncode == 0 and text.stdout.startswith(b"Golf position: solvable")
    assert b"from the talon" in text.stdout
    unsolved = cli("solve", "1", "--game", "golf")
    assert unsolved.returncode == 3 and b"gets onto the foundation: 45" in unsolved.stdout


def test_cli_refuses_bad_games_and_boards(tmp_path):
    assert_one_line_failure(cli("deal", "1", "--game", "37"), 2)
    assert "choose from black_hole (98" in assert_one_line_failure(cli("solve", "1", "--game", "spider"), 2)
    assert_one_line_failure(cli("solve", "1", "--game", "golf", "--search", "classic"), 2)
    board = tmp_path / "bad.txt"
    board.write_text("Talon: 8H\nFoundations: TH\n" + "\n" * 7 + "2C\n")
    failure = assert_one_line_failure(cli("solve", "--board", str(board), "--game", "golf"), 1)
    assert "line 10: more than 7 piles" in failure


def test_cli_says_a_positions_cards_played_count_from_it(tmp_path):
    """A position part-way through a game counts only what is played from it (helper 150: deal 1 after its
    best line's three cards said "gets onto the foundation: 0", read as the deal's own figure, 3)."""
    board = tmp_path / "one.txt"
    board.write_bytes(cli("deal", "1").stdout)
    assert b"gets onto the foundation: 3\n" in cli("solve", "1").stdout
    assert b"most cards any line of play from this position gets onto the foundation: 3\n" in cli(
        "solve", "--board", board).stdout
    assert b"most cards played from this position by a line found before the budget ran out: " in cli(
        "solve", "--board", board, "--max-iters", "1").stdout
