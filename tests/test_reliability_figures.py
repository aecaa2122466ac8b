"""A hostile tester's findings, each driven through the real commands: what was misleading and is now right.

* `export --format json/csv` gives every column for every dataset (null where
  not computed), so a notebook reads one schema whether or not the run had
  --difficulty; our CSV of an untagged run still refuses `--tag`;
* an option given without its value names the command's own --help;
* a reader gone before any output arrives ends `export` the same way in every
  format: quiet, status 141, as every command (a pipe, not a race with `head`);
* Golf board text as the peer reads it: spaces after the talon's last card or
  after `Foundations:`, and the `Talon:` line right after the foundation's,
  solve to the peer's verdict; a misplaced Talon line is named as such;
* `blackhole-solve --game golf ... --game black_hole` is refused saying why:
  as in the peer, the later --game leaves rank wrapping off.
"""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SCRIPT, assert_one_line_failure, cli, require_reference

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason=f"console script not installed at {SCRIPT}")
SOLVE = Path(sys.executable).parent / "blackhole-solve"
EXIT_BROKEN_PIPE = 141


@pytest.fixture(scope="module")
def untagged(tmp_path_factory):
    """A run made without --difficulty: it has no difficulty or tag columns."""
    out = tmp_path_factory.mktemp("figures") / "run"
    result = cli("run", "--range", "1-30", "--out", out, "--workers", "1")
    assert result.returncode == 0, result.stderr
    return out


def peer(name: str) -> dict[int, dict[str, str]]:
    with require_reference(name).open(newline="") as handle:
        return {int(row["deal"]): row for row in csv.DictReader(handle)}


# ------------------------------------------------------------------ export
def test_export_json_and_csv_give_every_column_null_where_the_run_computed_none(untagged, tmp_path):
    expected = peer("peer_1_1000.csv")
    records = json.loads(cli("export", untagged, "--format", "json").stdout)
    assert [set(record) for record in records] == [
        {"game", "deal", "outcome", "iterations", "cards_played", "difficulty", "tag"}] * 30
    assert [record["outcome"] for record in records] == [expected[n]["outcome"] for n in range(1, 31)]
    assert all(record["difficulty"] is None and record["tag"] is None for record in records)
    listing = tmp_path / "deals.csv"
    listing.write_bytes(cli("export", untagged, "--format", "csv").stdout)
    with listing.open(newline="") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert reader.fieldnames == ["game", "deal", "outcome", "iterations", "cards_played", "difficulty", "tag"]
    assert all(row["difficulty"] == row["tag"] == "" for row in rows) and len(rows) == 30
    # read back, its empty tag column is no tag: --tag is refused, not answered with an empty list
    assert "has no difficulty tags" in assert_one_line_failure(cli("export", listing, "--tag", "hard"))


@pytest.mark.parametrize("command", [("export", "DIR", "--tag"), ("run", "--range"), ("solve", "--max-iters")])
def test_an_option_without_its_value_points_to_its_own_command_s_help(command):
    line = assert_one_line_failure(cli(*command), 2)
    assert f"requires an argument. (see 'blackhole-stats {command[0]} --help')" in line


@pytest.mark.parametrize("fmt", ["text", "json", "csv"])
def test_a_reader_gone_before_the_output_ends_every_export_format_quietly_with_141(untagged, fmt):
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte: no race with how much a pipe buffers
    try:
        result = subprocess.run([str(SCRIPT), "export", str(untagged), "--format", fmt], stdout=write,
                                stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write)
    assert (result.returncode, result.stderr) == (EXIT_BROKEN_PIPE, b"")


@pytest.mark.parametrize("command", ["report", "export"])
def test_a_reader_gone_is_quiet_also_where_a_note_on_the_game_is_due(tmp_path, command):
    """A CSV that names no game gets its note on stderr: that came before the output, so a reader gone
    early got exit 141 with the note, not quietly."""
    (tmp_path / "rows.csv").write_text("deal,outcome,iterations,cards_played\n1,unsolved,9,3\n2,solved,9,51\n")
    read, write = os.pipe()
    os.close(read)
    try:
        result = subprocess.run([str(SCRIPT), command, str(tmp_path / "rows.csv")], stdout=write,
                                stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write)
    assert (result.returncode, result.stderr) == (EXIT_BROKEN_PIPE, b"")
    shown = subprocess.run([str(SCRIPT), command, str(tmp_path / "rows.csv")], capture_output=True, timeout=120)
    assert shown.returncode == 0 and shown.stderr.startswith(b"note: ") and shown.stdout  # said once it is out


@pytest.mark.parametrize("command", ["report", "export"])
def test_a_reader_of_both_streams_gone_before_the_note_is_quiet_too(tmp_path, command):
    """`report FILE 2>&1 | head -1`: the output reached the pipe before `head` left, the note after it did
    not; click took that for an error, exit 1 (a `set -o pipefail` script read it as bad input). Here the
    output goes to a file and the note to a pipe whose reader is gone: no race."""
    (tmp_path / "rows.csv").write_text("deal,outcome,iterations,cards_played\n1,unsolved,9,3\n2,solved,9,51\n")
    read, write = os.pipe()
    os.close(read)
    try:
        with open(tmp_path / "out.txt", "wb") as output:
            result = subprocess.run([str(SCRIPT), command, str(tmp_path / "rows.csv")], stdout=output,
                                    stderr=write, timeout=120)
    finally:
        os.close(write)
    shown = subprocess.run([str(SCRIPT), command, str(tmp_path / "rows.csv")], capture_output=True, timeout=120)
    assert result.returncode == EXIT_BROKEN_PIPE and (tmp_path / "out.txt").read_bytes() == shown.stdout != b""


@pytest.mark.parametrize("args", [("deal", "5", "--format", "x"), (), ("report", "nowhere")])
def test_an_error_line_to_a_reader_gone_is_141_and_to_a_full_disk_keeps_its_status(args):
    """The error line itself, to a standard error whose reader is gone, was a BrokenPipeError out of the
    error handling (exit 1, where a usage error is 2); to a full one (`2>/dev/full`) an OSError made a
    finished report exit 1, where a closed standard error (`2>&-`) kept its status."""
    expected = subprocess.run([str(SCRIPT), *args], capture_output=True, timeout=120)
    assert expected.returncode in (1, 2) and expected.stderr.startswith(b"Error: ") or not args, expected
    read, write = os.pipe()
    os.close(read)
    try:
        gone = subprocess.run([str(SCRIPT), *args], stdout=subprocess.PIPE, stderr=write, timeout=120)
    finally:
        os.close(write)
    assert (gone.returncode, gone.stdout) == (EXIT_BROKEN_PIPE, b"")
    with open("/dev/full", "wb") as full:
        filled = subprocess.run([str(SCRIPT), *args], stdout=subprocess.PIPE, stderr=full, timeout=120)
    assert (filled.returncode, filled.stdout) == (expected.returncode, expected.stdout)


def test_a_note_to_a_full_standard_error_leaves_a_finished_report_as_it_is(tmp_path):
    (tmp_path / "rows.csv").write_text("deal,outcome,iterations,cards_played\n1,unsolved,9,3\n2,solved,9,51\n")
    with open("/dev/full", "wb") as full:
        filled = subprocess.run([str(SCRIPT), "report", str(tmp_path / "rows.csv")], stdout=subprocess.PIPE,
                                stderr=full, timeout=120)
    shown = subprocess.run([str(SCRIPT), "report", str(tmp_path / "rows.csv")], capture_output=True, timeout=120)
    assert shown.stderr.startswith(b"note: ") and (filled.returncode, filled.stdout) == (0, shown.stdout)


# ------------------------------------------------------------------ board text
def golf_board(number: int) -> str:
    """Deal `number` of Golf as pysol-cards wrote it (the reference, not our dealer)."""
    text = require_reference("family/golf_boards.txt").read_text()
    return text.split(f"# deal={number} game=golf\n", 1)[1].split("#", 1)[0]


def first_lines_swapped(text: str) -> str:
    talon, foundation, rest = text.split("\n", 2)
    return "\n".join([foundation, talon, rest])


SPACINGS = {
    "a space after the talon's last card": lambda text: text.replace("\n", " \n", 1),
    "spaces after 'Foundations:'": lambda text: text.replace("Foundations: ", "Foundations:   "),
    "Talon on the second line": first_lines_swapped,
}


@pytest.mark.parametrize("spacing", SPACINGS)
def test_golf_boards_the_peer_reads_solve_to_the_peer_s_verdict(tmp_path, spacing):
    verdicts = peer("family/peer_golf_1_1000.csv")
    for number in (1, 2):
        board = tmp_path / f"golf{number}.txt"
        board.write_text(SPACINGS[spacing](golf_board(number)))
        result = cli("solve", "--game", "golf", "--board", board)
        assert result.returncode == {"solved": 0, "unsolved": 3}[verdicts[number]["outcome"]], result.stderr


def test_a_talon_line_among_the_piles_is_named_as_misplaced(tmp_path):
    talon, foundation, first_pile, rest = golf_board(2).split("\n", 3)
    board = tmp_path / "golf.txt"
    board.write_text("\n".join([foundation, first_pile, talon, rest]))
    line = assert_one_line_failure(cli("solve", "--game", "golf", "--board", board))
    assert "line 3: the Talon line must be the first line or come right after the Foundations line" in line


# ------------------------------------------------------------------ drop-in flags
def test_a_later_game_flag_leaves_wrapping_off_as_in_the_peer_and_the_refusal_says_so(tmp_path):
    board = tmp_path / "deal2.txt"
    board.write_text(cli("deal", "2").stdout.decode())
    flags = ["--game", "golf", "--queens-on-kings", "--game", "black_hole"]
    refused = subprocess.run([str(SOLVE), *flags, str(board)], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and refused.stdout == ""
    assert "ranks do not wrap" in refused.stderr and "give --wrap-ranks after --game black_hole" in refused.stderr
    wrapped = subprocess.run([str(SOLVE), *flags, "--wrap-ranks", str(board)], capture_output=True, text=True)
    plain = subprocess.run([str(SOLVE), "--game", "black_hole", str(board)], capture_output=True, text=True)
    assert (wrapped.returncode, wrapped.stdout) == (plain.returncode, plain.stdout) == (0, plain.stdout)
