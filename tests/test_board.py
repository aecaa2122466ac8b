"""Board text: round trips, partial positions, parse errors, fuzzing."""
from __future__ import annotations

import codecs
import contextlib
import io
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from blackhole_stats import (Board, BoardParseError, Card, CardParseError, GameNumber, IllegalMove, Move, Solution,
                             deal, get_game)
from blackhole_stats.dealing import dealt_card_ids

from conftest import reference_board, reference_boards, require_reference

RANKS, SUITS = "A23456789TJQK", "CSHD"
ALL_CARDS = [r + s for s in SUITS for r in RANKS]
DEAL_1 = deal(1).to_text()


def board_text(foundation: str, piles: list[list[str]]) -> str:
    """Canonical text written by the test itself (17 pile lines)."""
    piles = piles + [[] for _ in range(17 - len(piles))]
    return "\n".join([f"Foundations: {foundation}"] + [" ".join(p) for p in piles]) + "\n"


def replace_line(text: str, index: int, new: str) -> str:
    lines = text.split("\n")
    lines[index] = new
    return "\n".join(lines)


# ------------------------------------------------------------------ round trips
def test_reference_boards_round_trip():
    require_reference("pysolfc_boards.txt")
    texts = [text for *_, text in reference_boards()]
    assert len(texts) == 129
    for text in texts:
        board = Board.from_text(text)
        assert board.to_text() == text
        assert str(board) == text
        assert Board.from_text(board.to_text()) == board


def test_parse_meaning():
    """Line p + 2 is pile p, bottom card first; cards map to rank/suit as in DEALING.md."""
    board = Board.from_text(DEAL_1)
    lines = DEAL_1.splitlines()
    assert board.foundation == Card.from_text("AS") and board.foundation.id == 13
    for p, line in enumerate(lines[1:]):
        assert [card.text for card in board.piles[p]] == line.split(" ")
        for card, token in zip(board.piles[p], line.split(" ")):
            assert (card.rank, card.suit) == (RANKS.index(token[0]), SUITS.index(token[1]))
            assert card.id == SUITS.index(token[1]) * 13 + RANKS.index(token[0])
    ranks, heights, foundation = board.solver_input()
    assert foundation == 0 and heights == bytes([3] * 17)
    assert list(ranks) == [RANKS.index(tok[0]) for line in lines[1:] for tok in line.split(" ")]
    assert [m.pile for m in board.legal_moves()] == [p for p, line in enumerate(lines[1:])
                                                     if line[-2] in "2K"]


@settings(max_examples=100, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(0, 51))
def test_partial_positions(rng, keep):
    """Any subset of cards, any foundation card, short piles and missing lines parse and round-trip."""
    cards = ALL_CARDS[:]
    rng.shuffle(cards)
    foundation, rest = cards[0], cards[1:keep + 1]
    piles: list[list[str]] = [[] for _ in range(17)]
    for card in rest:
        choices = [p for p in range(17) if len(piles[p]) < 3]
        piles[rng.choice(choices)].append(card)
    text = board_text(foundation, piles)
    board = Board.from_text(text)
    assert board.to_text() == text
    assert board.foundation.text == foundation and board.cards_left == len(rest)
    assert [[c.text for c in pile] for pile in board.piles] == piles
    while piles and not piles[-1]:
        piles.pop()
    short = "\n".join([f"Foundations: {foundation}"] + [" ".join(p) for p in piles])
    assert Board.from_text(short) == board
    assert Board.from_text(short + "\n") == board


def test_empty_and_minimal_positions():
    board = Board.from_text("Foundations: 7H\n")
    assert board.cards_left == 0 and board.piles == ((),) * 17 and board.legal_moves() == []
    assert board.to_text() == "Foundations: 7H\n" + "\n" * 17
    assert Board.from_text(board.to_text()) == board
    assert Board.from_text("Foundations: KD\n\n\nAS\n").piles[2] == (Card.from_text("AS"),)


def test_play():
    board = Board.from_text(board_text("5C", [["6D"], ["KH", "4S"], [], ["9C", "5H"]]))
    assert [(m.pile, m.card.text) for m in board.legal_moves()] == [(0, "6D"), (1, "4S")]
    after, moves = board, []
    for pile in (1, 3, 0):
        move, after = after.play(pile)
        moves.append(move)
    assert [(m.pile, m.card.text) for m in moves] == [(1, "4S"), (3, "5H"), (0, "6D")]
    assert after.foundation.text == "6D" and after.cards_left == 2
    assert after == Board.from_text(board_text("6D", [[], ["KH"], [], ["9C"]]))
    for bad in (2, 17, -1, 3):  # empty, no such pile (twice), 5 on 5
        with pytest.raises(IllegalMove):
            board.play(bad)
    with pytest.raises(IllegalMove, match="pile 0 is empty"):
        board.play(0)[1].play(0)
    king = Board.from_text(board_text("AC", [["KD"], ["2S"]]))
    assert [m.pile for m in king.legal_moves()] == [0, 1]  # K-A wraps


def test_a_move_from_legal_moves_plays_and_one_of_another_board_is_refused():
    """`board.play(board.legal_moves()[0])` was a TypeError (play took only a pile number): a Move plays
    its pile, and one whose card is not the one there (another board's) is refused, not played blind."""
    board = Board.from_text(board_text("5C", [["6D"], ["KH", "4S"], [], ["9C", "5H"]]))
    assert [board.play(move) for move in board.legal_moves()] == [board.play(0), board.play(1)]
    other = Board.from_text(board_text("5C", [["6D"], ["4H", "4S"], [], ["9C", "6H"]]))
    with pytest.raises(IllegalMove, match=r"is not this board's: pile 3 shows 5H"):
        board.play(other.legal_moves()[-1])
    golf = deal(5, "golf")
    assert golf.play(golf.legal_moves()[-1]) == golf.play(None)  # the talon turn
    with pytest.raises(IllegalMove, match=r"the talon shows"):
        deal(6, "golf").play(golf.legal_moves()[-1])


# --------------------------------------------------------------- parse errors
ERROR_CASES = {
    "unknown card": (replace_line(DEAL_1, 3, "9H QD XX"), 4, "XX"),
    "lower-case card": (replace_line(DEAL_1, 5, "5D ah 7D"), 6, "ah"),
    "ten as 10": (replace_line(DEAL_1, 2, "2D 10D 8H"), 3, "10D"),
    "unknown foundation": (replace_line(DEAL_1, 0, "Foundations: 1S"), 1, "1S"),
    "no foundation line": ("JD KS TH\n", 1, "JD KS TH"),
    "two foundation cards": (replace_line(DEAL_1, 0, "Foundations: AS 2S"), 1, "2S"),
    "duplicate card": (replace_line(DEAL_1, 9, "KD TS JD"), 10, "JD"),
    "foundation card in a pile": (replace_line(DEAL_1, 7, "AS 4C 8S"), 8, "AS"),
    "18 piles": (DEAL_1 + "QQ\n", 19, "QQ"),
    "4 cards in a pile": (replace_line(DEAL_1, 4, "JC JS JH 5C"), 5, "5C"),
    "carriage return inside line 1": (DEAL_1.replace("Foundations: ", "Foundations:\r ", 1), 1, "\\r"),
    "carriage return inside line 6": (replace_line(DEAL_1, 5, "5D AH\r7D"), 6, "\\r"),
    "CR line ends (old Macs)": (DEAL_1.replace("\n", "\r"), 1, "\\r"),
    "trailing junk line": (DEAL_1 + "end\n", 19, "end"),
    "junk after blank lines after the piles": (DEAL_1 + "\n\nend\n", 21, "end"),
    "leading space in pile": (replace_line(DEAL_1, 12, " " + DEAL_1.split("\n")[12]), 13, "starts with a space"),
    "line of spaces": (replace_line(DEAL_1, 12, "  "), 13, "starts with a space"),
    "second foundation line": (replace_line(DEAL_1, 12, "Foundations: AS"), 13, "a second Foundations line"),
    "talon line in Black Hole": (replace_line(DEAL_1, 1, "Talon: 2S"), 2, "Black Hole has no talon"),
    "junk after pile": (replace_line(DEAL_1, 12, "AD 4D TC ;"), 13, ";"),
    "tab separator": (replace_line(DEAL_1, 2, "2D\t9D 8H"), 3, "2D\\t9D"),
}


@pytest.mark.parametrize("line, fault", [(": QD JC TC", "unknown card ':'"), ("QD JC TC 4S", "more than 3 cards"),
                                         (": QD JC", "unknown card ':'")])
def test_a_bad_card_is_named_before_the_pile_is_counted(line, fault):
    """A `--display-boards` pile line (`: QD JC TC`) was refused as "more than 3 cards in a pile", naming the
    count where the fault is the ':' (a shorter line named the ':'); cards are read one by one, as the peer
    reads them, and the count is the fault only past the last card a pile may hold."""
    with pytest.raises(BoardParseError, match=f"^line 2: {re.escape(fault)}"):
        Board.from_text(replace_line(DEAL_1, 1, line))
    with pytest.raises(BoardParseError, match=r"^line 1: unknown card ':'"):  # before its 16 cards: 17 tokens
        Board.from_text(deal(1, "golf").to_text().replace("Talon: ", "Talon: : ", 1), "golf")


SPACED = {  # spaces the peer (black-hole-solver 1.14) reads past: between cards, after a label, at a line's end
    "two spaces between cards": lambda line: line.replace(" ", "  ", 1),
    "spaces at the end": lambda line: line + "   ",
}


@pytest.mark.parametrize("spacing", SPACED)
def test_extra_spaces_between_and_after_cards_read_as_the_peer_reads_them(spacing):
    lines = DEAL_1.split("\n")
    spaced = [SPACED[spacing](line) if line else line for line in lines]
    assert Board.from_text("\n".join(spaced)) == Board.from_text(DEAL_1)
    assert Board.from_text(DEAL_1.replace("Foundations: ", "Foundations:    ")) == Board.from_text(DEAL_1)


@pytest.mark.parametrize("text, message", [("", "no board: the input is empty"),
                                           ("\n", "no board: the input is 1 blank line"),
                                           ("\n\r\n\n", "no board: the input is 3 blank lines")])
def test_no_board_at_all_is_said_so(text, message):
    """Blank lines only were refused at a line after the last, which no editor shows."""
    with pytest.raises(BoardParseError, match=f"^{message}$"):
        Board.from_text(text)


@pytest.mark.parametrize("case", ERROR_CASES)
def test_parse_error_names_line_and_token(case):
    text, line, token = ERROR_CASES[case]
    with pytest.raises(BoardParseError) as info:
        Board.from_text(text)
    message = str(info.value)
    assert f"line {line}" in message, message
    assert token in message, message
    assert "\n" not in message
    assert isinstance(info.value, ValueError)


# ----------------------------------------------------------------- fuzzing
VALID_TEXTS = [deal(n).to_text() for n in (1, 2, 32000, 10**18)] + [
    board_text("7H", [["6D"], [], ["KH", "4S", "2C"]]),
    "Foundations: QD\n",
]
ALPHABET = st.sampled_from(list("AKQJT98765432CSHD \n\r\t#:X") + ["Foundations: ", "AS", "10", "\x00", "é"])


@st.composite
def mutated_texts(draw):
    text = draw(st.sampled_from(VALID_TEXTS))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["insert", "delete", "replace", "swap-lines"]))
        at = draw(st.integers(0, len(text)))
        if kind == "insert":
            text = text[:at] + draw(ALPHABET) + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 6)):]
        elif kind == "replace":
            text = text[:at] + draw(ALPHABET) + text[at + 1:]
        else:
            lines = text.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
    return text


def card_tokens(text: str) -> list[str]:
    return sorted(text.replace("Foundations: ", "").split())


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(mutated_texts(), st.text(max_size=80), st.lists(ALPHABET, max_size=40).map("".join)))
@example(DEAL_1.replace("TH", "TH AS"))
@example(DEAL_1[:-1])
@example("Foundations: AS\n" * 2)
@example(DEAL_1.replace("\n", "\r\n", 1))
def test_fuzz_from_text(text):
    """Only BoardParseError escapes; whatever parses keeps every card and round-trips."""
    try:
        board = Board.from_text(text)
    except BoardParseError:
        return
    canonical = board.to_text()
    assert Board.from_text(canonical) == board
    assert Board.from_text(canonical).to_text() == canonical
    assert card_tokens(canonical) == card_tokens(text)
    assert all(len(pile) <= 3 for pile in board.piles) and len(board.piles) == 17
    assert "\r" not in text.replace("\r\n", "\n")  # CRLF line ends are read; a stray \r never


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(mutated_texts(), st.text(max_size=80), st.lists(ALPHABET, max_size=40).map("".join)))
@example(DEAL_1 + "QQ\n" * 1000)
@example("Foundations: AS\n" + "2C" * 1000)
def test_reading_a_stream_agrees_with_from_text(text):
    """Board.read (line by line from bytes, for files and stdin) accepts and refuses what from_text does."""
    data = text.encode("utf-8", "surrogatepass")
    try:
        expected = Board.from_text(text)
    except BoardParseError:
        with pytest.raises(BoardParseError):
            Board.read(io.BytesIO(data))
        return
    assert Board.read(io.BytesIO(data)) == expected


def test_reading_stops_at_the_first_bad_line():
    stream = io.BytesIO(DEAL_1.encode() + b"QQ\n" + b"more junk\n" * 1000)
    with pytest.raises(BoardParseError, match="line 19: more than 17 piles"):
        Board.read(stream)
    assert stream.tell() == len(DEAL_1) + 3  # nothing after line 19 was read
    endless = io.BytesIO(b"Foundations: AS\n" + b"2C" * 10**6)
    with pytest.raises(BoardParseError, match="line 2: longer than 4,096 characters"):
        Board.read(endless)
    assert endless.tell() < 20_000
    blank = io.BytesIO(b"\n" * 10**6)
    with pytest.raises(BoardParseError, match="line 1001: more than 1,000 lines: not a board"):
        Board.read(blank)
    assert blank.tell() == 1001


def test_a_text_file_and_a_path_read_as_its_bytes_do(tmp_path):
    """`Board.read(open(path))`, what a Python user writes first, was a TypeError from inside the parser
    (removesuffix() of bytes), and a path an AttributeError; a str is refused by name (a path or board
    text? from_text takes text)."""
    text = deal(2, "golf").to_text()
    (tmp_path / "board.txt").write_text(text, encoding="utf-8")
    with open(tmp_path / "board.txt", encoding="utf-8") as stream:
        assert Board.read(stream, "golf") == deal(2, "golf")
    assert Board.read(tmp_path / "board.txt", "golf") == deal(2, "golf")
    for source in (str(tmp_path / "board.txt"), text.encode(), 5):
        with pytest.raises(TypeError, match=f"Board.read takes an open file or a path, not {type(source).__name__}"):
            Board.read(source, "golf")
    with pytest.raises(BoardParseError, match="line 2: longer than 4,096 characters"):
        Board.read(io.StringIO("Foundations: AS\n" + "2C" * 10**6))
    # a text file in its own encoding, from where it stands; a bare '\r' line end, which its reading turns
    # into '\n', refused as every other way of reading refuses it
    (tmp_path / "utf16.txt").write_text("# the board of deal 1\n" + deal(1).to_text(), encoding="utf-16")
    with open(tmp_path / "utf16.txt", encoding="utf-16") as stream:
        assert stream.readline() == "# the board of deal 1\n" and Board.read(stream) == deal(1)
    (tmp_path / "mac.txt").write_text(deal(1).to_text().replace("\n", "\r"), newline="")
    for source in (open(tmp_path / "mac.txt", encoding="utf-8"), open(tmp_path / "mac.txt", newline=""),
                   open(tmp_path / "mac.txt", "rb"), tmp_path / "mac.txt"):
        with source if not isinstance(source, Path) else contextlib.nullcontext(), \
                pytest.raises(BoardParseError, match=re.escape("line 1: stray '\\r'")):
            Board.read(source)
    (tmp_path / "latin.txt").write_bytes((deal(1).to_text() + "KH \xe9\n").encode("latin-1"))
    with open(tmp_path / "latin.txt", encoding="utf-8") as stream, \
            pytest.raises(BoardParseError, match=re.escape("not text in the file's encoding (utf-8)")):
        Board.read(stream)
    with pytest.raises(BoardParseError, match="line 19: not UTF-8 text"):  # bytes: the line is known
        Board.read(tmp_path / "latin.txt")


def test_card_ids_in_a_numpy_array_are_taken_by_value():
    """bytes() of an int64 array read its memory, 8 bytes an id: refused as "not all 52 ids"."""
    import numpy as np

    ids = dealt_card_ids(GameNumber(7))
    for array in (np.frombuffer(ids, dtype=np.uint8).astype(np.int64), np.frombuffer(ids, dtype=np.uint8)):
        assert Board.from_card_ids(array, "7") == deal(7)
    with pytest.raises(ValueError, match="a fresh deal is all 52 card ids"):
        Board.from_card_ids(np.arange(52) + 1)


def test_a_move_made_of_anything_shows_itself_and_plays_only_a_pile():
    """Move("x", "y")'s repr failed with an AttributeError; a numpy pile or a 0-d array plays as its int."""
    import numpy as np

    assert repr(Move("x", "y")) == "Move('x', 'y')"
    assert repr(Move(None, Card.from_text("AC"))) == "Move(None, Card.from_text('AC'))"
    with pytest.raises(TypeError, match="a move plays a pile number"):
        deal(2).play(Move("x", Card.from_text("AC")))
    with pytest.raises(TypeError, match="a Move's card is a Card"):  # (it said "pile 1 shows KS", as if not)
        deal(5).play(Move(1, "KS"))
    move = deal(2).legal_moves()[0]
    played = deal(2).play(np.array(move.pile))
    assert deal(2).play(Move(np.int64(move.pile), move.card)) == played == deal(2).play(move)
    assert type(played[0].pile) is int and hash(played[0]) == hash(move)  # an int, not the array it came as
    assert Card(np.array(3), np.array(1)) == Card.from_text("4S")  # as an index is taken


def test_blank_lines_around_a_board_are_skipped_as_the_peer_skips_them():
    """black-hole-solver's black_hole_solver_read_board (c-solver/lib.c) skips newlines before the first
    line and reads exactly the game's pile lines, nothing after them."""
    for game, text in (("black_hole", DEAL_1), ("golf", deal(2, "golf").to_text())):
        kind = get_game(game)
        assert Board.from_text("\n\n" + text + "\n\n", kind) == Board.from_text(text, kind)
        assert Board.read(io.BytesIO(("\r\n" + text + "\r\n").encode()), kind) == Board.from_text(text, kind)


def test_line_numbers_count_the_blank_lines_skipped():
    with pytest.raises(BoardParseError, match="line 3: expected 'Foundations: <card>'"):
        Board.from_text("\n\nFoundation: AS\n")
    with pytest.raises(BoardParseError, match="line 4: unknown card 'ZZ'"):
        Board.read(io.BytesIO(b"\r\n\nFoundations: AS\nZZ\n"))


def test_a_line_of_exactly_the_limit_is_read_and_one_more_is_not():
    for pad, fits in ((4096 - 2, True), (4097 - 2, False)):
        text = "Foundations: AS\n2C" + " " * pad + "\n"
        for parse in (Board.from_text, lambda t: Board.read(io.BytesIO(t.encode()))):
            if fits:
                assert parse(text).piles[0] == (Card.from_text("2C"),)
            else:
                with pytest.raises(BoardParseError, match="line 2: longer than 4,096 characters"):
                    parse(text)


def test_long_lines_of_spaces_read_as_the_peer_reads_them():
    """Any number of spaces between cards and at a line's end; a multi-byte character cut at the
    limit is a long line, not bad UTF-8."""
    lines = DEAL_1.split("\n")
    spread = "\n".join([lines[0].replace(" ", " " * 300), "   ".join(lines[1].split()) + " " * 3000, *lines[2:]])
    assert Board.from_text(spread) == Board.read(io.BytesIO(spread.encode())) == deal(1)
    with pytest.raises(BoardParseError, match="line 2: longer than 4,096 characters"):
        Board.read(io.BytesIO(("Foundations: AS\n" + "\u00e9" * 10_000 + "\n").encode()))


def test_fuzz_cases_are_not_all_rejected():
    """Guards the fuzz test: a fair share of small mutations must still parse."""
    rng = random.Random(7)
    accepted = 0
    for _ in range(200):
        text = rng.choice(VALID_TEXTS)
        at = rng.randrange(len(text))
        text = text[:at] + text[at + 3:]  # delete one card (or part of a line)
        try:
            Board.from_text(text)
            accepted += 1
        except BoardParseError:
            pass
    assert 10 < accepted < 200


SVG = "{http://www.w3.org/2000/svg}"


def svg_cards(svg_text: str) -> dict:
    """card code -> (label text, label x, card x, move badge or None), from the drawn SVG."""
    import xml.etree.ElementTree as ElementTree

    cards = {}
    for group in ElementTree.fromstring(svg_text).iter(f"{SVG}g"):
        label = group.find(f"{SVG}text[@class='label']")
        badge = group.find(f"{SVG}text[@class='move']")
        cards[group.get("data-card")] = (label.text, float(label.get("x")),
                                         float(group.find(f"{SVG}rect").get("x")),
                                         None if badge is None else badge.text)
    return cards


def test_svg_draws_every_card_legibly_with_numbered_piles_and_the_deal():
    """Each card's rank and suit sit in the strip the next card of its fan leaves visible."""
    import xml.etree.ElementTree as ElementTree

    from blackhole_stats import deal

    text = reference_board("1")
    svg = deal(1)._repr_svg_()
    cards = svg_cards(svg)
    tokens = [line.split() for line in text.splitlines()[1:]]
    assert set(cards) == {token for pile in tokens for token in pile} | {"AS"}
    for pile in tokens:
        for token, above in zip(pile, pile[1:]):
            label, label_x, _, _ = cards[token]
            assert label == token[0].replace("T", "10") + dict(zip("CSHD", "♣♠♥♦"))[token[1]]
            # at most ~0.7 em per glyph in a 15 px bold face: '10♥' needs 32 px
            assert label_x + 0.7 * 15 * len(label) <= cards[above][2], (token, above)
    root = ElementTree.fromstring(svg)
    texts = [element.text for element in root.iter(f"{SVG}text")]
    assert [t for t in texts if t.startswith("pile ")] == [f"pile {n}" for n in range(17)]
    assert root.find(f"{SVG}text[@class='title']").text == "Deal 1"
    assert "foundation" in texts


@pytest.mark.parametrize("game", ["black_hole", "golf", "all_in_a_row"])
def test_no_card_covers_the_label_or_move_number_of_another(game):
    """Talon cards too: fanned with the next card on top at the left, each covered the left strip of the
    one after it, where its rank, suit and move number are (a Golf picture read "0♠", "#2")."""
    import xml.etree.ElementTree as ElementTree

    from blackhole_stats import deal, solve
    from blackhole_stats.board import SVG_CARD_WIDTH

    solution = solve(deal(4, game)).solution  # won in all three
    drawn = []  # (card x, y, the right end of its label and badge), in drawing order
    for group in ElementTree.fromstring(solution.svg()).iter(f"{SVG}g"):
        rect = group.find(f"{SVG}rect")
        x, y = float(rect.get("x")), float(rect.get("y"))
        texts = [text for text in group.iter(f"{SVG}text")]
        drawn.append((x, y, max(float(text.get("x")) + 0.7 * float(text.get("font-size")) * len(text.text)
                                for text in texts)))
    assert len(drawn) == 52 and len(solution.moves) > 10
    for index, (x, y, right) in enumerate(drawn):
        for later_x, later_y, _ in drawn[index + 1:]:
            if later_y == y and x - SVG_CARD_WIDTH < later_x < right:
                pytest.fail(f"a card at x={later_x} covers the text of the card at x={x}, y={y}")
    title = {"black_hole": "Deal 4", "golf": "Golf 4", "all_in_a_row": "All in a Row 4"}[game]  # as the board's
    assert ElementTree.fromstring(solution.svg()).find(f"{SVG}text[@class='title']").text.startswith(title + " (")


def test_svg_shows_a_solution_as_move_numbers():
    from blackhole_stats import deal, solve

    board = deal(2)
    moves = solve(board).solution.moves
    cards = svg_cards(board.svg(play_order={move.card: n for n, move in enumerate(moves, 1)}))
    assert {code: badge for code, (_, _, _, badge) in cards.items() if badge} == \
        {move.card.text: f"#{n}" for n, move in enumerate(moves, 1)}


def test_reprs_are_one_short_line():
    from blackhole_stats import deal

    assert repr(deal("ms42")) == "<Board ms42: foundation AS, 51 cards left>"
    assert repr(Board.from_text("Foundations: 5H\n6C\n7D 4S\n")) == "<Board: foundation 5H, 3 cards left>"
    assert repr(Board.from_text("Foundations: 5H\n6C\n")) == "<Board: foundation 5H, 1 card left>"


def test_a_board_of_the_wrong_shape_is_refused_in_the_games_words():
    """"a All in a Row board has 13 piles": the article was Black Hole's and Golf's alone."""
    aiar = deal(1, "all_in_a_row")
    with pytest.raises(ValueError, match=r"^All in a Row has 13 piles, not 12$"):
        Board(None, aiar.piles[:12], game="all_in_a_row")
    golf = deal(1, "golf")
    with pytest.raises(ValueError, match=r"^Golf's talon holds at most 16 cards, not 17$"):
        Board(golf.foundation, golf.piles, talon=[golf.talon[0]] * 17, game="golf")


def test_pretty_lists_piles_with_symbols():
    text = reference_board("1")
    lines = Board.from_text(text).pretty().splitlines()
    assert lines[0] == "Foundation: A♠" and len(lines) == 18
    assert lines[1].split() == ["0:", "J♦", "K♠", "10♥"]  # pile 0 of the reference board: JD KS TH


def test_crlf_text_is_the_same_board():
    """Windows editors, and PySolFC's text-mode pipe on Windows, end lines with CRLF."""
    crlf = DEAL_1.replace("\n", "\r\n")
    assert Board.from_text(crlf) == Board.from_text(DEAL_1) == deal(1)
    assert Board.read(io.BytesIO(crlf.encode())) == deal(1)


def test_a_byte_order_mark_before_the_first_line_is_no_card():
    """Notepad saves "UTF-8 with BOM"; a mark anywhere else is still a bad token."""
    for text in (DEAL_1, DEAL_1.replace("\n", "\r\n")):
        assert Board.from_text("\ufeff" + text) == deal(1)
        assert Board.read(io.BytesIO(codecs.BOM_UTF8 + text.encode())) == deal(1)
    lines = DEAL_1.splitlines(keepends=True)
    with pytest.raises(BoardParseError, match="line 2"):
        Board.from_text(lines[0] + "\ufeff" + "".join(lines[1:]))
    with pytest.raises(BoardParseError, match="line 1"):
        Board.from_text("\ufeff\ufeff" + DEAL_1)


@pytest.mark.parametrize("named", ["golf", 36, "Golf", "36"])
def test_a_game_given_by_key_id_or_name_reads_as_the_game(named):
    """As `deal(n, game=...)` takes them: Board, from_text and read, never an AttributeError."""
    golf = get_game("golf")
    board = deal(3, golf)
    assert Board.from_text(board.to_text(), named) == board
    assert Board.read(io.BytesIO(board.to_text().encode()), named) == board
    assert Board(board.foundation, board.piles, talon=board.talon, game=named) == board
    assert Board.from_card_ids(dealt_card_ids(GameNumber(3), golf), game=named) == board


def test_copies_and_pickles_keep_the_game_itself():
    """`game is BLACK_HOLE` holds for a copied or unpickled board, so it draws and names itself alike."""
    import copy
    import pickle

    for board in (deal(2), deal(4, "relaxed_golf")):
        for twin in (copy.deepcopy(board), copy.copy(board), pickle.loads(pickle.dumps(board))):
            assert twin == board and twin.game is board.game
            assert repr(twin) == repr(board) and twin._repr_svg_() == board._repr_svg_()


@pytest.mark.parametrize("pile", [True, False, "3", 1.0])
def test_a_move_is_a_pile_number_or_none(pile):
    with pytest.raises(TypeError, match="pile number"):
        deal(2).play(pile)


@pytest.mark.parametrize("ids", ["abc", [-1] * 52, list(range(51)), [0] * 52])
def test_card_ids_that_are_no_deal_are_refused_in_the_projects_words(ids):
    with pytest.raises(ValueError, match="a fresh deal is all 52 card ids"):
        Board.from_card_ids(ids)


def test_a_board_built_from_lists_is_the_board_and_only_cards_go_in():
    """Board(f, [lists]) solved but equalled nothing and could not be hashed; Board("AS", ...) failed in
    solve() with an AttributeError; Card(-1, 0) showed as KC and Card(13, 0) failed when printed."""
    import numpy as np

    board, golf = deal(2), deal(2, "golf")
    listed = Board(board.foundation, [list(pile) for pile in board.piles])
    assert listed == board and hash(listed) == hash(board) and type(listed.piles[0]) is tuple
    assert Board(golf.foundation, list(golf.piles), talon=list(golf.talon), game="golf") == golf
    with pytest.raises(ValueError, match="'AS' is not a Card"):
        Board("AS", board.piles)
    with pytest.raises(ValueError, match="is not a Card"):
        Board(board.foundation, ((*board.piles[0][:2], "3C"), *board.piles[1:]))
    assert Card(np.int64(3), np.int8(1)) == Card.from_text("4S") and type(Card(np.int64(3), 1).rank) is int
    for rank, suit in ((-1, 0), (13, 0), (0, 4), (True, 0), (1.0, 0), ("1", 0)):
        with pytest.raises(CardParseError, match="no card has rank"):
            Card(rank, suit)


def test_text_of_the_wrong_type_is_named_as_such():
    """bytes said "a bytes-like object is required, not 'str'" (the types the other way round), None an
    AttributeError; card id True was the 2 of clubs."""
    for text in (b"Foundations: AS\n", None):
        with pytest.raises(TypeError, match=f"board text is a str, not {type(text).__name__}"):
            Board.from_text(text)
        with pytest.raises(TypeError, match=f"a solution's text is a str, not {type(text).__name__}"):
            Solution.from_text(deal(1), text)
    for card_id in (True, 1.0, 52):
        with pytest.raises(CardParseError, match="unknown card id"):
            Card.from_id(card_id)
