"""`blackhole-solve`, the drop-in for black-hole-solve, read the way its callers read it.

The installed script runs as a subprocess; its output is parsed with the
regular expressions PySolFC's hint code uses (pysollib/hint.py), and every
move list is replayed on the board text by the rules as FAMILY.md states them
(independent of the package). Verdicts are compared with the peer's CSVs, and
mid-game positions (written as PySolFC writes them: no Talon line once the
talon is empty, empty piles as empty lines) with a brute-force search here.
"""
from __future__ import annotations

import csv
import functools
import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from blackhole_stats import Board, Solver, interrupts
from blackhole_stats.dropin import POSITIONS_PER_STATE
from blackhole_stats.games import get_game

from conftest import (assert_one_line_failure, fill_up, pause_env, release_pause, require_reference, signal_at_pause,
                      tmpfs, unprivileged, wait_for_pause)

SOLVE = Path(sys.executable).parent / "blackhole-solve"
RANKS = "A23456789TJQK"
SUITS = "CSHD"

PEER_FLAGS = {  # FAMILY.md, "The peer solver's options per game"
    "black_hole": ["--game", "black_hole"],
    "all_in_a_row": ["--game", "all_in_a_row"],
    "golf": ["--game", "golf", "--queens-on-kings"],
    "dead_king_golf": ["--game", "golf"],
    "relaxed_golf": ["--game", "golf", "--wrap-ranks"],
}
RULES = {  # FAMILY.md, "The games": (Ace and King adjacent, nothing may go on a King)
    "black_hole": (True, False),
    "all_in_a_row": (True, False),
    "golf": (False, False),
    "dead_king_golf": (False, True),
    "relaxed_golf": (True, False),
}
EXIT = {"Solved": 0, "Unsolved": 255, "Intractable": 254}
SOLVER = Solver()


def solve(*args: str, stdin: bytes = b"", env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(SOLVE), *args], input=stdin, capture_output=True, timeout=120,
                          env={**os.environ, **(env or {})})


def parse_like_pysolfc(stdout: bytes) -> tuple[str, list[int | None], int | None, int | None]:
    """(verdict, moves (a stack, or None for 'Deal talon'), states checked, states generated),
    read line by line with the regular expressions of PySolFC's BlackHoleSolver_Hint."""
    lines = iter(stdout.decode("utf-8").splitlines(keepends=True))
    verdict = None
    for line in lines:
        found = re.search("^(Intractable|Unsolved|Solved)!", line.rstrip())
        if found:
            verdict = found.group(1)
            break
    moves, checked, generated = [], None, None
    for line in lines:
        if line.strip() == "Deal talon":
            moves.append(None)
            continue
        found = re.match("Total number of states checked is ([0-9]+)\\.", line)
        if found:
            checked = int(found.group(1))
            continue
        found = re.match("This scan generated ([0-9]+) states\\.", line)
        if found:
            generated = int(found.group(1))
            continue
        found = re.match("Move a card from stack ([0-9]+) to the foundations", line)
        if found:
            moves.append(int(found.group(1)))
    return verdict, moves, checked, generated


def parse_board(text: str) -> tuple[list[str], str | None, list[list[str]]]:
    """(talon, foundation or None, piles) of board text, without the package."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    talon = []
    if lines[0].startswith("Talon:"):
        talon = lines.pop(0).split()[1:]
    foundation = lines.pop(0).removeprefix("Foundations: ")
    return talon, None if foundation == "-" else foundation, [line.split() for line in lines]


def fits(card: str, foundation: str | None, game: str) -> bool:
    wrap, dead_king = RULES[game]
    if foundation is None:
        return True
    if dead_king and foundation[0] == "K":
        return False
    step = abs(RANKS.index(card[0]) - RANKS.index(foundation[0]))
    return step == 1 or (wrap and step == 12)


def replay(board_text: str, moves: list[int | None], game: str, piles_count: int) -> list[str]:
    """Play the moves on the board by FAMILY.md's rules; asserts each is legal and that the piles
    end empty. Returns the cards moved, in order."""
    talon, foundation, piles = parse_board(board_text)
    piles += [[] for _ in range(piles_count - len(piles))]
    moved = []
    for step, pile in enumerate(moves, 1):
        if pile is None:
            assert talon, f"move {step}: the talon is empty"
            foundation = talon.pop(0)  # a talon card goes on whatever the foundation shows
        else:
            assert piles[pile], f"move {step}: stack {pile} is empty"
            card = piles[pile][-1]
            assert fits(card, foundation, game), f"move {step}: {card} does not go on {foundation}"
            foundation = piles[pile].pop()
        moved.append(foundation)
    assert not any(piles), "the line leaves cards in the piles"
    return moved


PILES = {"black_hole": 17, "all_in_a_row": 13, "golf": 7, "dead_king_golf": 7, "relaxed_golf": 7}


def reference_boards(game: str) -> dict[int, str]:
    """Deals 1..1000 as pysol-cards deals them (FAMILY.md's files; Black Hole's from pysolfc_boards.txt)."""
    if game == "black_hole":
        path, header = require_reference("pysolfc_boards.txt"), re.compile(r"# deal=(\d+) gen=\S+ oracle=pysol_cards")
    else:
        shape = "all_in_a_row" if game == "all_in_a_row" else "golf"
        path, header = require_reference(f"family/{shape}_boards.txt"), re.compile(r"# deal=(\d+) game=")
    boards, current = {}, None
    for line in path.read_text().splitlines(keepends=True):
        if line.startswith("#"):
            found = header.match(line)
            current = int(found.group(1)) if found else None
            if current is not None:
                boards[current] = ""
        elif current is not None:
            boards[current] += line
    return {deal: text for deal, text in boards.items() if deal <= 1000}


def peer_rows(game: str) -> dict[int, dict[str, str]]:
    path = require_reference("peer_1_1000.csv" if game == "black_hole" else f"family/peer_{game}_1_1000.csv")
    with path.open(newline="") as handle:
        return {int(row["deal"]): row for row in csv.DictReader(handle)}


def peer_verdicts(game: str) -> dict[int, str]:
    return {deal: row["outcome"] for deal, row in peer_rows(game).items()}


@pytest.mark.parametrize("game", PEER_FLAGS)
def test_verdicts_and_moves_as_pysolfc_reads_them(game):
    """A sample of deals 1..1000: the verdict the peer gave, the exit code that goes with it, totals
    PySolFC can read, and for every solved deal a move list that plays legally to a win."""
    boards, verdicts = reference_boards(game), peer_verdicts(game)
    sample = sorted(deal for deal in boards if deal in verdicts)[::9][:14]
    solved = 0
    for deal in sample:
        result = solve(*PEER_FLAGS[game], "--rank-reach-prune", "--max-iters", "100000000", "-",
                       stdin=boards[deal].encode())
        verdict, moves, checked, generated = parse_like_pysolfc(result.stdout)
        assert verdict == {"solved": "Solved", "unsolved": "Unsolved"}[verdicts[deal]], (game, deal)
        assert result.returncode == EXIT[verdict] and result.stderr == b""
        assert checked is not None and checked >= 1 and generated is not None
        if verdict == "Solved":
            solved += 1
            cards = replay(boards[deal], moves, game, PILES[game])
            named = re.findall(r"^Info: Card moved is (\S\S)$", result.stdout.decode(), re.M)
            assert named == cards
        else:
            assert moves == []
    assert 0 < solved < len(sample) or game == "relaxed_golf"  # the sample holds both verdicts


def pysolfc_board(talon: list[str], foundation: str | None, piles: list[list[str]]) -> str:
    """Board text exactly as PySolFC's calcBoardString writes it."""
    text = " ".join(["Talon:", *talon]) + "\n" if talon else ""
    text += "Foundations: " + (foundation or "-") + "\n"
    return text + "".join(" ".join(pile).strip() + "\n" for pile in piles)


def brute_force(game: str, talon: tuple, foundation: str | None, piles: tuple) -> bool:
    """Can the piles be emptied? Every line of play, remembered (small positions only)."""

    @functools.lru_cache(maxsize=None)
    def search(turned: int, top: str | None, heights: tuple) -> bool:
        if not any(heights):
            return True
        for index, height in enumerate(heights):
            if height and fits(piles[index][height - 1], top, game):
                if search(turned, piles[index][height - 1], heights[:index] + (height - 1,) + heights[index + 1:]):
                    return True
        return turned < len(talon) and search(turned + 1, talon[turned], heights)

    return search(0, foundation, tuple(len(pile) for pile in piles))


@pytest.mark.parametrize("game", PEER_FLAGS)
def test_mid_game_boards_as_pysolfc_writes_them(game):
    """Positions part-way through a game, in PySolFC's text (the Talon line gone once the talon is
    empty, empty piles as empty lines): the verdict of a brute-force search, and a legal win."""
    rng = random.Random(f"dropin-{game}")
    deck = [rank + suit for suit in SUITS for rank in RANKS]
    has_talon = PILES[game] == 7
    verdicts = set()
    heights = [0] * (PILES[game] // 4) + [1, 2]  # about 8 cards left in the piles
    for trial in range(16):
        cards = rng.sample(deck, 50)
        foundation = cards.pop()
        talon = [cards.pop() for _ in range(rng.choice([0, 0, 1, 3]))] if has_talon else []
        if trial % 2:
            piles = [[cards.pop() for _ in range(rng.choice(heights))] for _ in range(PILES[game])]
        else:  # a chain of fitting cards, buried so that it can be played: winnable (the search agrees)
            piles = [[] for _ in range(PILES[game])]
            top = foundation
            for card in sorted(cards, key=lambda _: rng.random())[:8]:
                if fits(card, top, game):
                    rng.choice([pile for pile in piles if len(pile) < 2]).insert(0, card)
                    top = card
        text = pysolfc_board(talon, foundation, piles)
        if has_talon and not talon:
            assert text.startswith("Foundations: ")
        expected = brute_force(game, tuple(talon), foundation, tuple(tuple(pile) for pile in piles))
        result = solve(*PEER_FLAGS[game], stdin=text.encode())
        verdict, moves, _, _ = parse_like_pysolfc(result.stdout)
        assert (verdict, result.returncode) == (("Solved", 0) if expected else ("Unsolved", 255)), text
        if expected:
            replay(text, moves, game, PILES[game])
        verdicts.add(verdict)
    assert verdicts == {"Solved", "Unsolved"}


def test_all_in_a_row_starts_on_an_empty_foundation():
    board = reference_boards("all_in_a_row")[1]
    assert "Foundations: -\n" in board
    result = solve("--game", "all_in_a_row", stdin=board.encode())
    verdict, moves, _, _ = parse_like_pysolfc(result.stdout)
    assert verdict == {"solved": "Solved", "unsolved": "Unsolved"}[peer_verdicts("all_in_a_row")[1]]
    if verdict == "Solved":
        replay(board, moves, "all_in_a_row", 13)


def test_file_and_stdin_give_the_same_output(tmp_path):
    board = reference_boards("golf")[2]
    path = tmp_path / "board.txt"
    path.write_text(board)
    from_file = solve("--game", "golf", "--queens-on-kings", str(path))
    assert from_file.returncode == 0
    assert solve("--game", "golf", "--queens-on-kings", "-", stdin=board.encode()).stdout == from_file.stdout
    assert solve("--game", "golf", "--queens-on-kings", stdin=board.encode()).stdout == from_file.stdout
    out = tmp_path / "out.txt"
    written = solve("--game", "golf", "--queens-on-kings", "--output", str(out), str(path))
    assert (written.returncode, written.stdout) == (0, b"") and out.read_bytes() == from_file.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="F_SETPIPE_SZ and FIONREAD on a pipe are Linux's")
def test_a_reader_gone_while_the_output_waits_for_room_is_a_broken_pipe(tmp_path):
    """A 4 KiB pipe, 13 KB of --display-boards, the reader gone once the pipe is full: the interpreter's
    own stdout took the partial write and returned, and the solve exited 0 with its output cut short."""
    import fcntl
    import struct
    import termios
    import time

    (tmp_path / "board.txt").write_text(reference_boards("black_hole")[2])
    read, write = os.pipe()
    fcntl.fcntl(write, 1031, 4096)  # F_SETPIPE_SZ: the pipe holds one page
    process = subprocess.Popen([str(SOLVE), "--game", "black_hole", "--display-boards", str(tmp_path / "board.txt")],
                               stdout=write, stderr=subprocess.PIPE)
    os.close(write)
    waiting = time.monotonic() + 60
    while struct.unpack("i", fcntl.ioctl(read, termios.FIONREAD, b"\0" * 4))[0] < 4096:  # full: the rest waits
        assert process.poll() is None and time.monotonic() < waiting, "the output fit, or the solve never wrote"
        time.sleep(0.01)
    os.close(read)
    assert (process.wait(timeout=60), process.stderr.read()) == (141, b"")


def test_output_to_a_full_disk_leaves_the_old_file_whole(tmp_path):
    """--output replaces the file whole: a disk too full for the solution keeps the old one, not a cut
    one, and says so in one line. (Written in place, emptying the old file frees a page, and a won
    deal's moves with their boards, 11 kB, fill it and stop part-way.)"""
    board = tmp_path / "board.txt"
    board.write_text(next(text for text in reference_boards("black_hole").values()
                          if solve("--game", "black_hole", "-", stdin=text.encode()).stdout.startswith(b"Solved!")))
    with tmpfs(tmp_path / "mnt", size="64k") as mount:
        out = mount / "out.txt"
        out.write_text("the previous answer\n")
        fill_up(mount)
        written = solve("--game", "black_hole", "--display-boards", "--output", str(out), str(board))
        assert assert_one_line_failure(written, 253) == \
            f"Cannot write '{out}'! (No space left on device)\n"
        assert out.read_text() == "the previous answer\n" and sorted(os.listdir(mount)) == ["filler", "out.txt"]


def test_output_refuses_a_file_its_user_may_not_write(tmp_path):
    """As the peer's fopen would: a read-only FILE is not renamed over because its folder is writable.
    (Root may write anything: the command runs without that privilege here.)"""
    board = tmp_path / "board.txt"
    board.write_text(reference_boards("black_hole")[1])
    out = tmp_path / "kept.txt"
    out.write_text("the previous answer\n")
    out.chmod(0o444)
    written = subprocess.run([*unprivileged(), str(SOLVE), "--game", "black_hole", "--output", str(out), str(board)],
                             capture_output=True, timeout=120)
    assert assert_one_line_failure(written, 253) == f"Cannot write '{out}'! (Permission denied)\n"
    assert out.read_text() == "the previous answer\n" and sorted(os.listdir(tmp_path)) == ["board.txt", "kept.txt"]


def test_the_output_format_line_by_line():
    """The peer's layout: verdict, per move a line, a blank line, Info, two blank lines, 20 '=', a
    blank line; then a blank line, 20 '-' and the two totals."""
    board = reference_boards("golf")[2]
    out = solve("--game", "golf", "--queens-on-kings", stdin=board.encode()).stdout.decode()
    assert out.startswith("Solved!\n")
    block = (r"(Move a card from stack \d to the foundations|Deal talon)\n\nInfo: Card moved is \S\S\n\n\n"
             "={20}\n\n")
    assert re.fullmatch(rf"Solved!\n({block})+\n\n-{{20}}\nTotal number of states checked is \d+\.\n"
                        r"This scan generated \d+ states\.\n", out)
    assert "Deal talon" in out  # Golf deal 2 turns talon cards
    quiet = solve("--game", "golf", "--queens-on-kings", "--quiet", stdin=board.encode())
    assert quiet.returncode == 0
    assert re.fullmatch(r"Solved!\n\n\n-{20}\nTotal number of states checked is \d+\.\nThis scan generated \d+ "
                        r"states\.\n", quiet.stdout.decode())


def as_the_peer_shows(talon: list[str] | None, foundation: str | None, piles: list[list[str]]) -> str:
    """A position as black-hole-solver's --display-boards prints it (c-solver/lib.c,
    black_hole_solver_get_current_solution_board): the foundation, the talon left where the game began
    with one (None: it did not), each pile after a colon."""
    lines = [f"Foundations: {foundation or '-'}"]
    if talon is not None:
        lines.append("Talon:" + "".join(f" {card}" for card in talon))
    return "\n".join(lines + [":" + "".join(f" {card}" for card in pile) for pile in piles]) + "\n"


@pytest.mark.parametrize("game, deal", [("black_hole", 2), ("golf", 2)])
def test_display_boards_shows_each_position_as_the_peer_does(game, deal):
    """The blocks were our input form (talon first, bare pile lines), which a script parsing the peer's misreads."""
    board = reference_boards(game)[deal]
    result = solve(*PEER_FLAGS[game], "--display-boards", stdin=board.encode())
    out = result.stdout.decode()
    _, moves, _, _ = parse_like_pysolfc(result.stdout)
    blocks = re.findall(r"\n\[START BOARD\]\n(.*?)\[END BOARD\]\n\n\n", out, re.S)
    talon, foundation, piles = parse_board(board)
    shown_talon = talon if talon else None
    assert len(blocks) == len(moves) + 1 and blocks[0] == as_the_peer_shows(shown_talon, foundation, piles)
    for step, (pile, shown) in enumerate(zip(moves, blocks[1:]), 1):
        if pile is None:
            foundation = talon.pop(0)
        else:
            foundation = piles[pile].pop()
        assert shown == as_the_peer_shows(shown_talon, foundation, piles), step
    assert parse_like_pysolfc(result.stdout)[0] == "Solved"
    assert game == "black_hole" or None in moves  # Golf deal 2 turns talon cards


@pytest.mark.parametrize("game", ["golf", "all_in_a_row"])
def test_show_max_reached_depth_is_the_most_cards_played(game):
    """The peer's line after the totals: for unsolved deals the most cards any line plays (the reference's
    max_played), for a win its moves. It was accepted and printed nothing."""
    boards, rows = reference_boards(game), peer_rows(game)
    unsolved = [deal for deal in sorted(rows) if rows[deal]["outcome"] == "unsolved"][:4]
    solved = next(deal for deal in sorted(rows) if rows[deal]["outcome"] == "solved")
    for deal in [*unsolved, solved]:
        result = solve(*PEER_FLAGS[game], "--show-max-reached-depth", stdin=boards[deal].encode())
        verdict, moves, _, _ = parse_like_pysolfc(result.stdout)
        depth = re.findall(r"^Reached a maximal depth of (\d+)\.$", result.stdout.decode(), re.M)
        expected = len(moves) if verdict == "Solved" else int(rows[deal]["max_played"])
        assert verdict.lower() == rows[deal]["outcome"] and depth == [str(expected)], deal


def test_show_max_reached_depth_is_printed_whatever_the_budget():
    """The peer prints the line whatever happened. A budget that decided the verdict but ran out in the
    most-cards-played search printed nothing; an intractable position gets the most a line found."""
    rows, board = peer_rows("dead_king_golf"), reference_boards("golf")[1].encode()
    assert rows[1]["outcome"] == "unsolved"
    for budget, verdict in (("200", "Unsolved"), ("30", "Intractable")):  # 20,000 and 3,000 of ours
        result = solve("--game", "golf", "--quiet", "--max-iters", budget, "--show-max-reached-depth", stdin=board)
        depth = re.findall(r"^Reached a maximal depth of (\d+)\.$", result.stdout.decode(), re.M)
        assert parse_like_pysolfc(result.stdout)[0] == verdict and len(depth) == 1, result.stdout
        if verdict == "Unsolved":
            assert depth == [rows[1]["max_played"]]
        else:
            assert int(depth[0]) <= int(rows[1]["max_played"])


def test_max_iters_gives_intractable():
    board = reference_boards("golf")[1]  # unsolved, after thousands of positions
    result = solve("--game", "golf", "--queens-on-kings", "--max-iters", "10", stdin=board.encode())
    verdict, moves, checked, _ = parse_like_pysolfc(result.stdout)
    assert (verdict, result.returncode, moves) == ("Intractable", 254, [])
    assert checked <= 10 * POSITIONS_PER_STATE
    assert parse_like_pysolfc(solve("--game", "golf", "--queens-on-kings", stdin=board.encode()).stdout)[0] == "Unsolved"


@pytest.mark.parametrize("game", PEER_FLAGS)
def test_what_the_peer_decides_within_a_budget_is_decided_within_it(game):
    """PySolFC's hints pass --max-iters 10,000: a deal the peer decided within that many states came
    back "Intractable!" (no hint) where our count of the same budget ran out first (a hostile tester).
    The budget N allows 100 N of our positions; every deal of 1..1000 the peer decides within N states
    (its CSV; for Black Hole with --rank-reach-prune, which PySolFC passes) is decided within that."""
    boards, rows = reference_boards(game), peer_rows(game)
    states = "iterations_rank_reach_prune" if game == "black_hole" else "iterations"
    for budget in (1000, 10_000, 100_000):
        decided = [deal for deal, row in rows.items() if int(row[states]) <= budget and deal in boards]
        for deal in decided:
            result = SOLVER.solve(Board.from_text(boards[deal], get_game(game)), max_iters=budget * POSITIONS_PER_STATE,
                                  most_played=False)
            assert result.outcome == rows[deal]["outcome"], (game, budget, deal, result.outcome)


def test_pysolfc_s_budget_gives_the_hints_the_peer_gives():
    """The tester's deals, through the command as PySolFC calls it (its flags and budget)."""
    for game, deal in (("golf", 932), ("relaxed_golf", 384), ("dead_king_golf", 376), ("all_in_a_row", 600),
                       ("black_hole", 10)):
        result = solve(*PEER_FLAGS[game], "--rank-reach-prune", "--max-iters", "10000", "-",
                       stdin=reference_boards(game)[deal].encode())
        verdict = parse_like_pysolfc(result.stdout)[0]
        assert verdict.lower() == peer_verdicts(game)[deal] and result.returncode == EXIT[verdict], (game, deal)


def test_flag_order_follows_the_peer():
    """`--game golf` switches wrapping off: `--wrap-ranks` before it is undone (Dead King Golf),
    after it makes Relaxed Golf; the last of a pair wins."""
    boards = reference_boards("golf")
    verdicts = {game: peer_verdicts(game) for game in ("dead_king_golf", "relaxed_golf")}
    deal = next(deal for deal in sorted(boards)
                if (verdicts["dead_king_golf"][deal], verdicts["relaxed_golf"][deal]) == ("unsolved", "solved"))
    text = boards[deal].encode()
    assert solve("--wrap-ranks", "--game", "golf", stdin=text).returncode == 255
    assert solve("--game", "golf", "--wrap-ranks", stdin=text).returncode == 0
    assert solve("--game", "golf", "--wrap-ranks", "--no-wrap-ranks", stdin=text).returncode == 255
    assert solve("--game", "golf", "--queens-on-kings", "--wrap-ranks", stdin=text).returncode == 0


@pytest.mark.parametrize("args, stdin, code, message", [
    ([], b"", 2, "Must specify game type using --game"),
    (["--game"], b"", 2, "--game requires an argument"),
    (["--game", "freecell"], b"", 2, "Unknown game 'freecell'"),
    (["--game", "golf", "--max-iters", "lots"], b"", 2, "--max-iters takes a whole number (0 or less: no limit), "),
    (["--game", "golf", "--max-iters", "10abc"], b"", 2, "whole number"),  # the peer's atol() reads 10
    (["--game", "golf", "--max-iters", "-board.txt"], b"", 2, "whole number"),
    (["--game", "golf", "--max-iters", "\u00b2"], b"", 2, "whole number"),  # isdigit, but no int(): a traceback
    (["--game", "golf", "--iters-display-step", "\u2460"], b"", 2, "whole number"),
    (["--game", "black_hole"], b"Foundations: AS\n", 253, "the board ends after 0 of the 17 piles"),
    (["--game", "golf"], b"Talon: 8H\nFoundations: TH\nAS 2S\n", 253, "the board ends after 1 of the 7 piles"),
    (["--game", "golf", "--iters-display-step", "board.txt"], b"", 2,
     "--iters-display-step takes a whole number, not 'board.txt'"),  # no limit of a display step
    (["--game", "golf", "--frobnicate"], b"", 2, "Unknown option '--frobnicate'"),
    (["--game", "black_hole", "--no-wrap-ranks"], b"", 2, "plays none of the games"),
    (["--game", "all_in_a_row", "--no-wrap-ranks"], b"", 2, "plays none of the games"),
    (["--game", "golf", "/no/such/board"], b"", 253, "Cannot open '/no/such/board' for reading!"),
    (["--game", "black_hole"], b"Talon: 8H\nFoundations: AS\n", 253, "Black Hole has no talon"),
    (["--game", "golf"], b"Foundations: -\n", 253, "never empty"),
    (["--game", "golf"], b"Talon: 8H\rFoundations: TH\n", 253, "stray '\\r'"),
    (["--game", "black_hole"], b"Foundations: AS\nAS 2C\n", 253, "card AS is also"),
    (["--game", "black_hole"], b"\xff\xfe", 253, "not UTF-8"),
    (["--game", "golf", "a", "b"], b"", 2, "One board file only"),
    (["--game", "golf", "new\nline"], b"", 253, "Cannot open 'new\\nline' for reading!"),  # one pair of quotes
    (["--game", "golf", "--output", "", "-"], b"Talon: 8H\nFoundations: TH\nAS\n2S\n3S\n4S\n5S\n6S\n7S\n", 253,
     "Cannot write ''! (an empty name is no file)"),  # it said '(Is a directory)'
    (["--game", "golf", "--output", "new/", "-"], b"Talon: 8H\nFoundations: TH\nAS\n2S\n3S\n4S\n5S\n6S\n7S\n", 253,
     "Cannot write 'new/'! (Is a directory)"),  # it wrote a file 'new'
])
def test_bad_usage_and_input_are_one_line(args, stdin, code, message):
    err = assert_one_line_failure(solve(*args, stdin=stdin), code)
    assert message in err


def test_budgets_the_peer_reads_as_no_limit_are_no_limit():
    """The peer's count of states never meets 0, a negative N (its limit is unsigned) or its own default
    (ULONG_MAX): scripts pass them for no limit, and they were refused (exit 2)."""
    board = reference_boards("golf")[1].encode()
    assert solve("--game", "golf", "--queens-on-kings", "--max-iters", "1", stdin=board).returncode == 254
    unbounded = solve("--game", "golf", "--queens-on-kings", stdin=board)
    assert unbounded.returncode in (0, 255)
    for budget in ("0", "-1", "+0", "", "18446744073709551615", "9" * 5000, "0" * 5000):  # (int(): 4,300 digits)
        result = solve("--game", "golf", "--queens-on-kings", "--max-iters", budget, stdin=board)
        assert (result.returncode, result.stdout) == (unbounded.returncode, unbounded.stdout), budget[:30]
    ten = solve("--game", "golf", "--queens-on-kings", "--max-iters", "10", stdin=board)
    for spelt in (" 10", "10\r", "+10"):  # BSD wc's padding, a CRLF file's line: atol() reads 10
        result = solve("--game", "golf", "--queens-on-kings", "--max-iters", spelt, stdin=board)
        assert (result.returncode, result.stdout) == (ten.returncode, ten.stdout), spelt


def test_crlf_boards_read_as_the_peer_reads_them_on_windows():
    """PySolFC on Windows writes the board through a text-mode pipe: every line ends in CRLF."""
    for game in ("black_hole", "golf"):
        board = reference_boards(game)[2]
        plain, windows = (solve(*PEER_FLAGS[game], stdin=text)
                          for text in (board.encode(), board.replace("\n", "\r\n").encode()))
        assert plain.returncode in (0, 255) and plain.stdout.startswith((b"Solved!", b"Unsolved!")), plain.stderr
        assert (windows.returncode, windows.stdout, windows.stderr) == (plain.returncode, plain.stdout, b"")


def test_blank_lines_around_a_board_change_nothing_as_for_the_peer():
    """black-hole-solver (c-solver/lib.c, black_hole_solver_read_board) skips newlines before the board
    and reads exactly the game's pile lines: padded, a board gives the same output as bare."""
    for game in ("black_hole", "golf"):
        board = reference_boards(game)[2]
        plain, padded = (solve(*PEER_FLAGS[game], stdin=text.encode()) for text in (board, "\n\n" + board + "\n\n"))
        assert plain.returncode in (0, 255) and plain.stdout.startswith((b"Solved!", b"Unsolved!")), plain.stderr
        assert (padded.returncode, padded.stdout, padded.stderr) == (plain.returncode, plain.stdout, b"")


def test_help_and_version():
    shown = solve("--help")
    assert shown.returncode == 0 and shown.stderr == b""
    text = shown.stdout.decode()
    for flag in ("--rank-reach-prune", "--iters-display-step"):
        assert flag in text.split("Accepted and ignored")[1]
    assert "differ from the peer's" in text
    version = solve("--version")
    assert version.returncode == 0 and re.match(r"blackhole-solve version \S+", version.stdout.decode())


def test_ignored_flags_are_accepted():
    board = reference_boards("black_hole")[2].encode()
    plain = solve("--game", "black_hole", stdin=board)
    for step in ("1000", "0"):  # 0: the peer's default
        tuned = solve("--game", "black_hole", "--rank-reach-prune", "--iters-display-step", step, stdin=board)
        assert tuned.returncode == plain.returncode == 0 and tuned.stdout == plain.stdout


def test_a_solving_process_imports_no_heavy_library():
    """What a caller starts per position loads neither click nor numpy, pandas or pyarrow
    (the interpreter's own import log, not a timing)."""
    heavy = {"click", "numpy", "pandas", "pyarrow", "blackhole_stats.cli", "blackhole_stats.dealing"}
    board = reference_boards("golf")[2].encode()
    for args in (["--version"], ["--game", "golf", "--queens-on-kings"]):
        result = solve(*args, stdin=board, env={"PYTHONPROFILEIMPORTTIME": "1"})
        assert result.returncode == 0
        loaded = {line.split("|")[-1].strip() for line in result.stderr.decode().splitlines()
                  if line.startswith("import time:")}
        assert "blackhole_stats.dropin" in loaded
        assert not {name for name in loaded if name.split(".")[0] in heavy or name in heavy}, args
    assert "blackhole_stats.solver" in loaded  # the solve's log is the whole log


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmSize from /proc")
def test_memory_too_tight_for_the_tables_is_one_line(tmp_path):
    """Under a memory limit the solver's tables (some 70 MiB) do not fit: a MemoryError traceback and
    status 1 (PySolFC's "not installed"), now one line and 253. The child imports what a solve needs,
    then allows itself 30 MiB more than it holds."""
    board = tmp_path / "board.txt"
    board.write_text(reference_boards("black_hole")[2])
    limited = ("import resource, sys\nfrom blackhole_stats import board, dropin, games, solver\n"
               "size = next(int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmSize:'))\n"
               "resource.setrlimit(resource.RLIMIT_AS, (size * 1024 + 30 * 2**20, resource.RLIM_INFINITY))\n"
               f"dropin.main(['--game', 'black_hole', {str(board)!r}])")
    result = subprocess.run([sys.executable, "-c", limited], capture_output=True, timeout=120)
    assert assert_one_line_failure(result, 253) == "Error! Out of memory (is the memory this process may use limited?)\n"


def test_with_stderr_closed_an_error_goes_nowhere_not_to_stdout():
    """A caller parses stdout: an error line there would read as part of an answer."""
    result = subprocess.run(f"exec 2>&-; '{SOLVE}' --game golf /no/such/board", shell=True, capture_output=True)
    assert (result.returncode, result.stdout) == (253, b"")


def test_a_signal_once_the_answer_is_out_leaves_it_whole_and_ends_the_process_as_the_peer_s(tmp_path):
    """SIGTERM after the output is written and flushed (the process about to exit): it raised in the last
    flush, a traceback and status 1; then the answer's own status (0, 255) made a script's loop go on. Now
    the whole answer, and the process killed by the signal, as the peer (default actions) would be."""
    board = tmp_path / "board.txt"
    board.write_text(reference_boards("golf")[2])
    expected = solve("--game", "golf", "--queens-on-kings", str(board))
    done = signal_at_pause(tmp_path, [SOLVE, "--game", "golf", "--queens-on-kings", board], "dropin-exit",
                           lambda pid: os.kill(pid, signal.SIGTERM), release=True, text=False)
    assert (done.returncode, done.stdout, done.stderr) == (-signal.SIGTERM, expected.stdout, b"")


def test_ctrl_c_stops_a_script_s_loop_over_deals_and_an_ignored_one_is_ignored(tmp_path):
    """A range script: `for` goes on to the next deal after a child that exited 130, stops after one the
    signal killed. And a background job of a script ignores Ctrl-C, as the shell arranged."""
    board = tmp_path / "board.txt"
    board.write_text(reference_boards("golf")[2])
    loop = f"for deal in 1 2 3; do '{SOLVE}' --game golf --queens-on-kings '{board}' > /dev/null; echo \"round $deal\"; done"
    done = signal_at_pause(tmp_path, ["bash", "-c", loop], "dropin-exit", lambda pid: os.killpg(pid, signal.SIGINT),
                           release=True, text=True)
    assert done.stdout == "" and done.returncode in (-signal.SIGINT, 128 + signal.SIGINT), done  # no next round
    ignoring = subprocess.Popen([str(SOLVE), "--game", "golf", "--queens-on-kings", str(board)], stdout=subprocess.PIPE,
                                env={**os.environ, **pause_env(tmp_path, **{"solve-search": 60})},
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        wait_for_pause(tmp_path, "solve-search", ignoring)
        ignoring.send_signal(signal.SIGINT)
        release_pause(tmp_path, "solve-search")
        out, _ = ignoring.communicate(timeout=60)
    finally:
        ignoring.kill()
    assert ignoring.returncode == 0 and out.startswith(b"Solved!"), out


def test_an_interrupt_python_wraps_is_still_an_interrupt():
    """A signal while a module defines its classes (the drop-in imports the board and the games after
    start-up) raises in a `__set_name__`, which Python 3.11 wraps in a RuntimeError: it must end the
    command as an interrupt, not a traceback."""
    class Landing:
        def __set_name__(self, owner, name):
            raise interrupts.Interrupted(signal.SIGTERM)

    with pytest.raises(interrupts.Interrupted):
        with interrupts.unwrapped():
            type("Defined", (), {"field": Landing()})
    with pytest.raises(ZeroDivisionError):  # anything else passes as it was
        with interrupts.unwrapped():
            1 / 0


def test_a_failure_while_an_interrupt_is_handled_is_the_interrupt_unless_it_replaced_it():
    """A second signal cuts a library's handling of the first (futures.wait then releases a lock it does
    not hold): that failure is the interrupt's. One raised `from None`, as our own errors are, stands."""
    def failing_while_handling(replace: bool):
        try:
            raise interrupts.Interrupted(signal.SIGTERM)
        except interrupts.Interrupted:
            if replace:
                raise ValueError("a failure of its own") from None
            raise RuntimeError("release unlocked lock")

    with pytest.raises(interrupts.Interrupted) as raised:
        with interrupts.unwrapped():
            failing_while_handling(replace=False)
    assert raised.value.signum == signal.SIGTERM
    with pytest.raises(ValueError, match="a failure of its own"):
        with interrupts.unwrapped():
            failing_while_handling(replace=True)
    loop = RuntimeError("a chain that loops")
    loop.__context__ = ValueError("back")
    loop.__context__.__context__ = loop
    assert interrupts.cause(loop) is None


def test_ctrl_c_during_the_search_is_one_line(tmp_path):
    board = tmp_path / "board.txt"
    board.write_text(reference_boards("golf")[1])
    process = subprocess.Popen([str(SOLVE), "--game", "golf", str(board)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env={**os.environ, **pause_env(tmp_path, **{"solve-search": 60})})
    wait_for_pause(tmp_path, "solve-search", process)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, out, err) == (-signal.SIGINT, b"", b"interrupted\n")  # a shell's 130, killed by it
