"""The installed `blackhole-stats` console script, run as a subprocess."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import assert_one_line_failure, assert_plays_out, reference_board

SCRIPT = Path(sys.executable).parent / "blackhole-stats"
pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason=f"console script not installed at {SCRIPT}")


def run(*args: str, stdin: bytes = b"", env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(SCRIPT), *args], input=stdin, capture_output=True, timeout=60,
                          env={**os.environ, **(env or {})})


def test_deal_prints_reference_board():
    result = run("deal", "1")
    assert result.returncode == 0 and result.stderr == b""
    assert result.stdout.decode() == reference_board("1")
    assert run("deal", "1", "--format", "board").stdout == result.stdout


def test_deal_32000_variants():
    assert run("deal", "ms32000").stdout.decode() == reference_board("32000")  # pysol-cards' 32000
    assert run("deal", "32000").stdout != run("deal", "ms32000").stdout


def test_deal_pretty():
    result = run("deal", "1", "--format", "pretty", env={"PYTHONIOENCODING": "utf-8"})
    assert result.returncode == 0
    text = result.stdout.decode("utf-8")
    assert all(symbol in text for symbol in "♣♠♥♦")
    assert "10♥" in text and "J♦" in text  # deal 1's first pile is JD KS TH


@pytest.mark.parametrize("encoding, named", [("cp1252", "cp1252"), ("latin-1", "iso8859-1")])  # ascii: click writes UTF-8
def test_deal_pretty_where_the_suits_cannot_be_written_is_one_line(encoding, named):
    """A file or terminal in cp1252 (Windows' redirect) got a traceback, UnicodeEncodeError."""
    result = run("deal", "1", "--format", "pretty", env={"PYTHONIOENCODING": encoding})
    assert result.returncode == 1 and result.stdout == b""
    assert result.stderr.decode().splitlines() == [  # the foundation's A of spades comes first
        f"Error: the output's encoding, {named}, cannot write '\\u2660': set PYTHONIOENCODING=utf-8 (or, where "
        "there is one, choose an ASCII --format)"]


def test_solve_json_solution_replays():
    result = run("solve", "2", "--json")
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert set(data) == {"game", "deal", "outcome", "iterations", "cards_played", "solution", "seconds"}
    assert data["deal"] == "2" and data["outcome"] == "solved" and data["cards_played"] == 51
    assert isinstance(data["iterations"], int) and data["iterations"] > 0 and data["seconds"] >= 0
    assert all(set(item) == {"pile", "card"} and isinstance(item["pile"], int) and isinstance(item["card"], str)
               for item in data["solution"])
    assert_plays_out(reference_board("2"), [(item["pile"], item["card"]) for item in data["solution"]])


@pytest.mark.parametrize("args, code, outcome", [
    (["solve", "2"], 0, "solved"),
    (["solve", "1"], 3, "unsolved"),  # the peer: unsolved, at most 3 cards
    (["solve", "1", "--search", "classic"], 3, "unsolved"),
    (["solve", "2", "--search", "classic", "--max-iters", "10"], 4, "intractable"),
    (["solve", "2", "--max-iters", "10"], 4, "intractable"),
])
def test_solve_exit_codes(args, code, outcome):
    assert run(*args).returncode == code
    result = run(*args, "--json")
    assert result.returncode == code
    data = json.loads(result.stdout)
    assert data["outcome"] == outcome
    if outcome == "unsolved":
        assert data["cards_played"] == 3 and data["solution"] == []
    if outcome == "intractable":
        assert data["iterations"] <= 10


def test_solve_board_file(tmp_path):
    path = tmp_path / "deal2.txt"
    path.write_text(reference_board("2"), encoding="utf-8")
    result = run("solve", "--board", str(path), "--json")
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert data["deal"] is None and data["outcome"] == "solved"
    assert_plays_out(reference_board("2"), [(item["pile"], item["card"]) for item in data["solution"]])


def test_solve_stdin():
    assert run("solve", "-", stdin=reference_board("1").encode()).returncode == 3
    position = "Foundations: 5H\n6C\n7D 4S\n5S\n"  # win: 4S 5S 6C 7D
    result = run("solve", "-", "--json", stdin=position.encode())
    assert result.returncode == 0
    plays = [(item["pile"], item["card"]) for item in json.loads(result.stdout)["solution"]]
    assert_plays_out(position, plays)
    assert run("solve", "--board", "-", stdin=position.encode()).returncode == 0


def test_solve_text_output():
    """Each move spelled "2H from pile 5", in play order: the same moves as --json, a win on the board text."""
    result = run("solve", "2")
    lines = result.stdout.decode().splitlines()
    assert result.returncode == 0 and lines[0].startswith("deal 2: solvable (solved)")
    plays = []
    for number, line in enumerate(lines[2:], 1):
        match = re.fullmatch(r" *(\d+)\. (\w\w) from pile (\d+)", line)
        assert match and int(match[1]) == number, line
        plays.append((int(match[3]), match[2]))
    assert len(plays) == 51
    assert_plays_out(reference_board("2"), plays)
    assert plays == [(item["pile"], item["card"]) for item in json.loads(run("solve", "2", "--json").stdout)["solution"]]


BAD_BOARDS = {
    "unknown card": "Foundations: AS\nJD KS XX\n",
    "duplicate": "Foundations: AS\nJD KS\nJD\n",
    "18 piles": "Foundations: AS\n" + "\n" * 17 + "2C\n",
    "4 cards": "Foundations: AS\n2C 3C 4C 5C\n",
    "empty": "",
    "binary": "\udcff\udcfe",
}


@pytest.mark.parametrize("args", [
    ["solve", "abc"], ["solve", "0"], ["solve", "ms0"], ["solve", "ms8589934592"], ["solve", ""],
    ["solve", "12x"], ["deal", "abc"], ["deal", "0"], ["deal", "ms8589934592"], ["deal", ""],
], ids=" ".join)
def test_bad_game_number(args):
    assert_one_line_failure(run(*args))


def test_a_board_that_cannot_be_read_is_bad_input(tmp_path):
    """Exit 1, as every bad input (a missing file was a usage error, exit 2)."""
    for path, problem in ((tmp_path / "missing.txt", "No such file or directory"), (tmp_path, "Is a directory")):
        line = assert_one_line_failure(run("solve", "--board", str(path)), 1)
        assert line == f"Error: cannot read {path}: {problem}\n", line


@pytest.mark.parametrize("game", ["golf", "all_in_a_row"])
def test_another_game_s_board_read_as_black_hole_names_the_way_out(game, tmp_path):
    """Black Hole is the default: a Golf board's talon, or All in a Row's empty foundation, was refused
    for Black Hole's rules without a word about --game."""
    text = run("deal", "5", "--game", game).stdout
    line = assert_one_line_failure(run("solve", "-", stdin=text), 1)
    assert line.endswith(" (a board of another game? give --game all_in_a_row, golf, dead_king_golf or "
                         "relaxed_golf)\n"), line
    assert "--game" not in assert_one_line_failure(run("solve", "-", "--game", "black_hole", stdin=text), 1)
    assert run("solve", "-", "--game", game, stdin=text).returncode in (0, 3)


@pytest.mark.parametrize("name", BAD_BOARDS)
def test_bad_board(name, tmp_path):
    data = BAD_BOARDS[name].encode("utf-8", "surrogateescape")
    path = tmp_path / "board.txt"
    path.write_bytes(data)
    assert_one_line_failure(run("solve", "--board", str(path)))
    assert_one_line_failure(run("solve", "-", stdin=data))


@pytest.mark.parametrize("args", [
    ["solve"], ["solve", "1", "--board", "-"], ["solve", "1", "--max-iters", "0"],
    ["solve", "1", "--search", "bfs"], ["deal", "1", "--format", "html"], ["deal"],
    ["solve", "2", "--max-iters", str(2**64 + 1)], ["solve", "2", "--jsno"], ["bogus"],
])
def test_usage_errors(args):
    """One line that says what is wrong and where help is, not click's usage banner."""
    err = assert_one_line_failure(run(*args), 2)
    assert err.startswith("Error: ") and "--help')" in err


def test_a_quoted_home_folder_is_the_home_folder_for_every_command(tmp_path):
    """README: `--out '~/runs/x'` (the shell left `~` alone) is in the home folder, as pandas and polars read it."""
    from conftest import cli

    home = tmp_path / "home"
    home.mkdir()
    env, at = {"HOME": str(home)}, {"cwd": tmp_path}
    assert cli("run", "--range", "1-3", "--out", "~/runs/x", "--workers", "1", env=env, **at).returncode == 0
    assert len(list((home / "runs" / "x").glob("part-*.parquet"))) == 3  # chunks of one deal each
    assert not (tmp_path / "~").exists()
    assert cli("verify", "~/runs/x", env=env, **at).returncode == 0
    listed = cli("export", "~/runs/x", env=env, **at)
    assert listed.returncode == 0 and listed.stdout.split() == [b"1", b"2", b"3"]
    assert json.loads(cli("report", "~/runs/x", "--format", "json", env=env, **at).stdout)["deals"] == 3
