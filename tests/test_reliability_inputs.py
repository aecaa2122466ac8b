"""Inputs a hostile or careless user gives the real `blackhole-stats` script.

What this proves, each through the installed script in a subprocess:

* `--range` and `--deals` store exactly the deals they name (read back from
  the Parquet files with pandas): `1-5` is five deals, and a token PySolFC's
  one-number dialog would collapse (`1 5`, `1.5`, `1_000`) is refused, never
  read as deal 15; `deal`/`solve` keep PySolFC's spelling and name the number
  they dealt.
* `--deals` files: comments, blank lines, CRLF, a UTF-8 BOM, UTF-16/UTF-32 with
  a BOM are read; binary files, NUL bytes and invalid UTF-8 are refused with
  one line naming the file, tokens shown escaped and shortened.
* Standard streams: stdin closed, stdout closed or full end in one line and
  exit 1; a reader that stops early (`| head`) ends quietly with exit 141;
  a Ctrl-C ends in "interrupted", then the process dies of it (a shell shows 130).
* `deal -1` is a bad game number (exit 1), not an unknown option.
* A 100 MB `--board` file or stdin stream is refused at its first bad line
  with the memory of a small board, not the size of the file.
* Game numbers that datasets and numpy hand back (Decimal, numpy integers,
  integral floats) deal the right board; other values are refused.
"""
from __future__ import annotations

import codecs
import io
import json
import os
import re
import signal
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackhole_stats import DealNumberError, GameNumber, deal
from blackhole_stats.deals import DealSet, DealSpecError

from conftest import SCRIPT, assert_one_line_failure, cli, pause_env, reference_board, signal_at_pause, wait_for_pause

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason=f"console script not installed at {SCRIPT}")


def stored_deals(out: Path) -> set[tuple[bool, int]]:
    """(ms, deal) of every row of the dataset, as pandas reads the directory."""
    frame = pd.read_parquet(out)
    assert not frame.duplicated(["ms", "deal"]).any()
    return {(bool(ms), int(number)) for ms, number in zip(frame["ms"], frame["deal"])}


def plain(*numbers: int) -> set[tuple[bool, int]]:
    return {(False, n) for n in numbers}


def run_ok(*args) -> subprocess.CompletedProcess:
    result = cli("run", *args, "--workers", "1")
    assert result.returncode == 0, result.stderr.decode()
    return result


# ------------------------------------------------------- ranges and lists: the deals they name
@pytest.mark.parametrize("lines, expected", [
    (["1-5"], plain(1, 2, 3, 4, 5)),  # PySolFC's spelling made this deal 15
    (["# deals to redo", "", "  3 - 4 , 9", "ms2-ms3", "   # indented comment", "7"],
     plain(3, 4, 7, 9) | {(True, 2), (True, 3)}),
    (["10\r", "1-2\r", "# Windows line endings\r"], plain(1, 2, 10)),
], ids=["1-5", "comments-lists-ms", "crlf"])
def test_deals_file_lines_store_exactly_their_deals(tmp_path, lines, expected):
    listing = tmp_path / "deals.txt"
    listing.write_bytes("\n".join(lines).encode() + b"\n")
    run_ok("--deals", listing, "--out", tmp_path / "run")
    assert stored_deals(tmp_path / "run") == expected


def test_ranges_store_exactly_their_deals(tmp_path):
    run_ok("--range", "1-3, 7", "--range", "ms1 - ms2", "--range", "0012", "--out", tmp_path / "run")
    assert stored_deals(tmp_path / "run") == plain(1, 2, 3, 7, 12) | {(True, 1), (True, 2)}


COLLAPSING = ["1 5", "1.5", "1_000", "#5", "12,345.0", "5L", "ms 5", "1-2-3", "1--5", "1-5,", "-5", "１２"]
"""Tokens that PySolFC's dialog would read as one other number, or that are no range at all."""


@pytest.mark.parametrize("token", COLLAPSING)
def test_range_tokens_that_would_collapse_are_refused(tmp_path, token):
    err = assert_one_line_failure(cli("run", "--range", token, "--out", tmp_path / "run"))
    assert "bad deal range" in err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("token", [token for token in COLLAPSING if token != "#5"])  # '#5': a comment
def test_deals_file_tokens_that_would_collapse_are_refused(tmp_path, token):
    listing = tmp_path / "deals.txt"
    listing.write_text(f"1\n{token}\n", encoding="utf-8")
    err = assert_one_line_failure(cli("run", "--deals", listing, "--out", tmp_path / "run"))
    assert "deals.txt line 2: bad deal range" in err
    assert not (tmp_path / "run").exists()


def test_deals_file_of_only_comments_is_refused(tmp_path):
    listing = tmp_path / "deals.txt"
    listing.write_text("# nothing yet\n\n", encoding="utf-8")
    err = assert_one_line_failure(cli("run", "--deals", listing, "--out", tmp_path / "run"))
    assert "lists no deals" in err and not (tmp_path / "run").exists()


def test_deal_and_solve_keep_pysolfc_spelling_and_name_the_number_dealt():
    assert cli("deal", "#12,345").stdout == cli("deal", "12345").stdout
    assert cli("deal", "1-5").stdout.decode() == reference_board("15")
    dealt = cli("deal", "1.0")  # the board does not name its deal: stderr does, where the spelling differs
    assert dealt.stdout.decode() == reference_board("10")
    assert dealt.stderr.decode() == "dealt game 10 ('1.0' as PySolFC's dialog reads it)\n"
    assert cli("deal", "10").stderr == b""
    result = cli("solve", "1-5", "--json")
    assert json.loads(result.stdout)["deal"] == "15"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789 -,._#msL\t", max_size=20))
def test_ranges_never_invent_numbers(text):
    """Whatever a range spec reads as, each end is a number written in it, never digits glued together."""
    try:
        deals = DealSet.parse([text])
    except DealSpecError:
        return
    written = {int(digits) for digits in re.findall(r"[0-9]+", text)}
    assert {end for _, first, last in deals.runs for end in (first, last)} <= written
    assert not re.search(r"[0-9][ \t._#L]+[0-9]|[._#L]", text.replace("ms", ""))


# ------------------------------------------------------- --deals file encodings
ENCODED = {
    "utf-8 BOM": codecs.BOM_UTF8 + b"3\n1-2\n",
    "utf-16 BOM (Windows Notepad)": "3\r\n1-2\r\n".encode("utf-16"),
    "utf-16-be BOM": codecs.BOM_UTF16_BE + "3\n1-2\n".encode("utf-16-be"),
    "utf-32 BOM": "3\n1-2\n".encode("utf-32"),
}


@pytest.mark.parametrize("name", ENCODED)
def test_deals_files_with_a_bom_are_read(tmp_path, name):
    listing = tmp_path / "deals.txt"
    listing.write_bytes(ENCODED[name])
    run_ok("--deals", listing, "--out", tmp_path / "run")
    assert stored_deals(tmp_path / "run") == plain(1, 2, 3)


LINE_ENDS = {"LF": "\n", "CRLF (Windows)": "\r\n", "CR (old Macs)": "\r"}


@pytest.mark.parametrize("end", LINE_ENDS.values(), ids=list(LINE_ENDS))
def test_deals_files_end_lines_as_any_editor_does(end):
    """Every line ending is a line break, also where a CRLF straddles the reader's 64 KiB blocks."""
    body = end.join(["", "12", "ms3", "7-9", "", "# done", ""]).encode()
    for comment in range(65530, 65545):  # a first line that puts the next line end across a block boundary
        data = b"#" * comment + body
        assert DealSet.read(io.BytesIO(data), "deals.txt") == DealSet.parse(["7-9", "12", "ms3"]), comment
    assert DealSet.read(io.BytesIO(f"5{end}6".encode()), "deals.txt") == DealSet.parse(["5-6"])


NOT_TEXT = {
    "png": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "line 1"),
    "nul byte": (b"1\n2\n3\x004\n", "line 3"),
    "invalid utf-8": (b"1\n2\xff\n", "line 2"),
    "utf-16 without BOM": ("1\n2\n".encode("utf-16-le"), "line 1"),
    "cut utf-16": (codecs.BOM_UTF16_LE + "1\n".encode("utf-16-le") + b"2", "line 2"),
}


@pytest.mark.parametrize("name", NOT_TEXT)
def test_deals_files_that_are_not_text_are_refused(tmp_path, name):
    data, where = NOT_TEXT[name]
    listing = tmp_path / "deals.bin"
    listing.write_bytes(data)
    err = assert_one_line_failure(cli("run", "--deals", listing, "--out", tmp_path / "run"))
    assert f"deals.bin {where}: " in err
    assert err[:-1].isprintable(), err  # escaped: no raw control characters
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("token", ["1\x1b[2J5", "7" * 5000 + "x", "x" * 100_000])
def test_bad_tokens_are_shown_escaped_and_short(tmp_path, token):
    listing = tmp_path / "deals.txt"
    listing.write_text(f"{token}\n", encoding="utf-8")
    for args in (["--deals", listing], ["--range", token]):
        err = assert_one_line_failure(cli("run", *args, "--out", tmp_path / "run"))
        assert err[:-1].isprintable() and len(err) < 400, err


@pytest.mark.parametrize("source, words", [("/dev/zero", "line 1: a NUL character"),
                                           ("long line", "line 2: longer than 1,000,000 characters")])
def test_endless_deals_input_is_refused_early(tmp_path, source, words):
    """An endless or huge stream is refused from its first blocks (the timeout is only a safety net)."""
    if source == "long line":
        source = tmp_path / "long.txt"
        source.write_bytes(b"1\n" + b"12," * 2_000_000)
    err = assert_one_line_failure(cli("run", "--deals", source, "--out", tmp_path / "run", timeout=60))
    assert words in err and not (tmp_path / "run").exists()


def test_deals_from_stdin(tmp_path):
    result = cli("run", "--deals", "-", "--out", tmp_path / "run", "--workers", "1",
                 stdin="# from a pipe\n4-6\n".encode("utf-16"))
    assert result.returncode == 0, result.stderr
    assert stored_deals(tmp_path / "run") == plain(4, 5, 6)


# ------------------------------------------------------- standard streams
def run_script(*args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, close=(), env=None,
               ) -> subprocess.CompletedProcess:
    """The script with real file descriptors: `close` lists fds closed before it starts."""
    result = subprocess.run([str(SCRIPT), *map(str, args)], stdin=stdin, stdout=stdout,
                            stderr=subprocess.PIPE, timeout=120, env={**os.environ, **(env or {})},
                            preexec_fn=(lambda: [os.close(fd) for fd in close]) if close else None)
    if result.stdout is None:  # stdout went elsewhere: nothing reached our pipe
        result.stdout = b""
    return result


@pytest.mark.parametrize("args", [["solve", "-"], ["solve", "--board", "-"]])
def test_stdin_closed_is_one_line(args):
    err = assert_one_line_failure(run_script(*args, close=[0]))
    assert "standard input is closed" in err


@pytest.mark.parametrize("command", ["solve", "run"])
def test_stdin_that_cannot_be_read_is_one_line(tmp_path, command):
    args = ["solve", "-"] if command == "solve" else ["run", "--deals", "-", "--out", tmp_path / "run"]
    write_only = os.open(tmp_path / "sink", os.O_WRONLY | os.O_CREAT)
    try:
        err = assert_one_line_failure(run_script(*args, stdin=write_only))
    finally:
        os.close(write_only)
    assert "cannot read standard input: Bad file descriptor" in err
    assert not (tmp_path / "run").exists()


def test_stdin_closed_for_deals_is_one_line(tmp_path):
    err = assert_one_line_failure(run_script("run", "--deals", "-", "--out", tmp_path / "run", close=[0]))
    assert "standard input is closed" in err and not (tmp_path / "run").exists()


@pytest.mark.parametrize("args", [["solve", "2"], ["deal", "2"], ["deal", "--help"]])
def test_stdout_closed_is_one_line(args):
    err = assert_one_line_failure(run_script(*args, stdout=None, close=[1]))
    assert "standard output is closed" in err


@pytest.mark.parametrize("args", [["deal", "2"], ["solve", "2", "--json"], ["solve", "1"], ["--help"]])
def test_stdout_full_is_one_line(args):
    with open("/dev/full", "wb") as full:
        err = assert_one_line_failure(run_script(*args, stdout=full))
    assert "cannot write to standard output: No space left on device" in err


def test_a_complete_run_whose_summary_cannot_be_written_says_it_is_complete(tmp_path):
    """`run ... > /dev/full` solved every deal, then said only "cannot write to standard output": a script
    took the complete run for a failed one."""
    with open("/dev/full", "wb") as full:
        err = assert_one_line_failure(run_script("run", "--range", "1-5", "--out", tmp_path / "run",
                                                 "--workers", "1", stdout=full))
    assert (f"the run is complete (5 deals in {tmp_path / 'run'}), but its summary could not be written to "
            "standard output: No space left on device") in err, err
    assert len(pd.read_parquet(tmp_path / "run")) == 5
    named = tmp_path / "运行"  # a folder the output's encoding cannot write, in the summary
    err = assert_one_line_failure(run_script("run", "--range", "1-5", "--out", named, "--workers", "1",
                                             env={"PYTHONIOENCODING": "cp1252"}))
    assert "the run is complete (5 deals in " in err, err
    assert "summary could not be written to standard output: the output's encoding, cp1252, cannot write '\\u8fd0'" \
        in err, err
    assert len(pd.read_parquet(named)) == 5


def test_a_signal_as_a_complete_run_exits_leaves_its_status(tmp_path):
    """SIGTERM after the summary, as the interpreter shut down: exit 143 and not a word, for a complete
    run (a script counted it as failed). It still ends the process there (held at the pause, which it
    would otherwise sleep through for two minutes): a shut-down that hangs can be stopped."""
    done = signal_at_pause(tmp_path, [SCRIPT, "run", "--range", "1-5", "--out", tmp_path / "run", "--workers", "1"],
                           "command-ending", lambda pid: os.kill(pid, signal.SIGTERM), timeout=30)
    assert done.returncode == 0, done.stderr
    assert "4 solved, 1 unsolved, 0 intractable" in done.stdout and "interrupted" not in done.stderr, done


def test_an_option_given_twice_is_refused_before_anything_is_done(tmp_path):
    """click kept the last of two silently: `solve --board A --board B` answered for B under no name (Golf
    deal 2 can be won, 3 cannot), `run --out A --out B` wrote B alone, `--game` twice ran the second game,
    `--progress --no-progress` ran without. --help still wins, and shell completion still completes."""
    for number in (2, 3):
        (tmp_path / f"g{number}.txt").write_bytes(cli("deal", number, "--game", "golf").stdout)
    twice = [("--board", ("solve", "--game", "golf", "--board", tmp_path / "g2.txt", "--board", tmp_path / "g3.txt")),
             ("--out", ("run", "--range", "1-3", "--out", tmp_path / "a", f"--out={tmp_path / 'b'}")),
             ("--game", ("run", "--range", "1-3", "--game", "golf", "--game", "relaxed_golf", "--out", tmp_path / "c")),
             ("--format", ("deal", "2", "--format", "board", "--format", "board")),
             ("--deals", ("run", "--deals", tmp_path / "g2.txt", "--deals", tmp_path / "g3.txt", "--out", tmp_path / "d")),
             ("--progress/--no-progress", ("run", "--range", "1-3", "--progress", "--no-progress", "--out",
                                           tmp_path / "e"))]
    for repeated, args in twice:
        line = assert_one_line_failure(cli(*args), 2)
        assert line == f"Error: {repeated} may be given only once (see 'blackhole-stats {args[0]} --help')\n", line
    assert sorted(path.name for path in tmp_path.iterdir()) == ["g2.txt", "g3.txt"]
    helped = cli("solve", "--search", "fast", "--search", "classic", "--help")
    assert helped.returncode == 0 and helped.stdout.startswith(b"Usage: blackhole-stats solve"), helped.stderr
    for args in (("run", "--range", "1-3", "--out", tmp_path / "f", "--out", "-h"), ("solve", "--board", "-h", "--board",
                                                                                  tmp_path / "g2.txt")):
        line = assert_one_line_failure(cli(*args), 2)  # "-h" as a value is no help: the check stands
        assert line.startswith(f"Error: {args[-2]} may be given only once"), line
    line = assert_one_line_failure(cli("run", "--range", "1-3", "--no-progress", "--no-progress", "--out", tmp_path), 2)
    assert line.startswith("Error: --progress/--no-progress may be given only once"), line
    completed = cli(env={"_BLACKHOLE_STATS_COMPLETE": "bash_complete", "COMP_CWORD": "6",
                         "COMP_WORDS": "blackhole-stats solve --search fast --search fast --"})
    assert completed.returncode == 0 and b"--max-iters" in completed.stdout, completed
    flagged = cli("solve", "2", "--json", "--json")  # a flag may repeat: it says one thing
    assert flagged.returncode == 0 and json.loads(flagged.stdout)["outcome"] == "solved", flagged.stderr


@pytest.mark.parametrize("args", [["deal", "2"], ["solve", "2"], ["deal", "--help"]])
def test_reader_gone_is_quiet(args):
    """`blackhole-stats deal 2 | head -c 10`: the pipe's reader left before we wrote."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = run_script(*args, stdout=write_end)
    finally:
        os.close(write_end)
    assert result.returncode == 141 and result.stderr == b"", result.stderr


def test_ctrl_c_is_one_line_then_the_process_ends_of_it(tmp_path):
    env = pause_env(tmp_path, **{"command-start": 60})
    process = subprocess.Popen([str(SCRIPT), "solve", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, **env})
    try:
        wait_for_pause(tmp_path, "command-start", process)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert_one_line_failure(subprocess.CompletedProcess(process.args, process.returncode, out, err), -signal.SIGINT)
    assert err == b"interrupted\n"


# ------------------------------------------------------- negative numbers are numbers
@pytest.mark.parametrize("args", [["deal", "-1"], ["solve", "-1"], ["deal", "-12x"], ["solve", "--json", "-5"],
                                  ["deal", "--format", "pretty", "-1"]], ids=" ".join)
def test_negative_game_numbers_are_bad_input(args):
    assert "negative" in assert_one_line_failure(cli(*args))


@pytest.mark.parametrize("args", [["deal", "--bogus"], ["deal", "-x"], ["solve", "--jsno", "2"]], ids=" ".join)
def test_mistyped_options_stay_usage_errors(args):
    result = cli(*args)
    assert result.returncode == 2 and b"No such option" in result.stderr and b"Traceback" not in result.stderr


# ------------------------------------------------------- huge boards: memory of a board, not of the file
def peak_rss_kib(args: list[str], stdin_path: Path | None = None) -> tuple[int, subprocess.CompletedProcess]:
    """Run the script from a fresh Python whose only child it is; its peak RSS (KiB) and result."""
    probe = ("import resource, subprocess, sys\n"
             "stdin = open(sys.argv[1], 'rb') if sys.argv[1] else subprocess.DEVNULL\n"
             "result = subprocess.run(sys.argv[2:], stdin=stdin, capture_output=True)\n"
             "sys.stderr.buffer.write(result.stderr)\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.exit(result.returncode)\n")
    result = subprocess.run([sys.executable, "-c", probe, str(stdin_path or ""), str(SCRIPT), *args],
                            capture_output=True, timeout=300)
    return int(result.stdout), subprocess.CompletedProcess(args, result.returncode, b"", result.stderr)


JUNK_MB = 100


@pytest.fixture(scope="module")
def huge_inputs(tmp_path_factory) -> dict[str, Path]:
    """A valid board, and 100 MB files that go wrong at line 19, in line 2, and at byte 0."""
    folder = tmp_path_factory.mktemp("huge")
    board = deal(2).to_text().encode()
    files = {"small": folder / "small.txt"}
    files["small"].write_bytes(board)
    makers = {"junk after the board": (board, b"XX\n"), "one endless line": (board[:16], b"2C" * 32),
              "zeros": (b"", b"\0" * 64)}
    block = 1 << 20
    for name, (head, unit) in makers.items():
        path = files[name] = folder / f"{name.replace(' ', '-')}.txt"
        with open(path, "wb") as stream:
            stream.write(head)
            chunk = unit * (block // len(unit))
            for _ in range(JUNK_MB):
                stream.write(chunk)
    return files


@pytest.fixture(scope="module")
def small_board_rss(huge_inputs) -> int:
    """Peak RSS (KiB) of solving a valid board file: the memory a board costs."""
    rss, result = peak_rss_kib(["solve", "--board", str(huge_inputs["small"])])
    assert result.returncode == 0, result.stderr
    return rss


@pytest.mark.parametrize("name, where", [("junk after the board", "line 19: more than 17 piles"),
                                         ("one endless line", "line 2: longer than 4,096 characters"),
                                         ("zeros", "line 1: ")])
@pytest.mark.parametrize("via", ["--board", "stdin"])
def test_huge_board_input_is_refused_with_small_memory(huge_inputs, small_board_rss, name, where, via):
    path = huge_inputs[name]
    assert path.stat().st_size > JUNK_MB * 10**6
    if via == "--board":
        rss, result = peak_rss_kib(["solve", "--board", str(path)])
    else:
        rss, result = peak_rss_kib(["solve", "-"], stdin_path=path)
    err = assert_one_line_failure(result)
    assert f"bad board: {where}" in err and err[:-1].isprintable()
    assert rss < small_board_rss + 16 * 1024, (rss, small_board_rss)  # reading 100 MB whole costs GBs


# ------------------------------------------------------- numbers from datasets and numpy
def test_deal_numbers_as_a_dataset_hands_them_back(tmp_path):
    """The notebook: `deal(row.deal)` over a dataset read with pandas deals each row's own board."""
    run_ok("--range", "1-3,32000", "--out", tmp_path / "run")
    frame = pd.read_parquet(tmp_path / "run")
    values = list(frame["deal"])
    assert frame["deal"].dtype == "int64"  # numpy integers, as results format 2 hands them back
    for value in values:
        assert deal(value) == deal(int(value)) == deal(np.int64(int(value))) == deal(float(value))
    assert deal(Decimal(15)).to_text() == reference_board("15")


@pytest.mark.parametrize("value, number", [
    (5, 5), (np.int64(5), 5), (np.uint64(7), 7), (np.int32(32000), 32000), (Decimal("5"), 5),
    (Decimal("5.000"), 5), (5.0, 5), (np.float64(9.0), 9), (2.0**53 - 1, 2**53 - 1), (np.float32(2**24 - 1), 2**24 - 1),
    (Decimal(10**20), 10**20), (pa.scalar(5), 5), (pa.scalar(Decimal(10**20)), 10**20),  # table["deal"][i]
], ids=repr)
def test_integral_values_are_game_numbers(value, number):
    game = GameNumber.parse(value)
    assert game == GameNumber(number) and type(game.number) is int and str(game) == str(number)


def test_game_numbers_sort_as_export_lists_them_ordinary_then_ms():
    numbers = [GameNumber(5, True), GameNumber(3), GameNumber(4, True), GameNumber(10**20)]
    assert [str(n) for n in sorted(numbers)] == ["3", "100000000000000000000", "ms4", "ms5"]
    assert GameNumber(9) < GameNumber(1, True) and GameNumber(1, True) >= GameNumber(9)
    with pytest.raises(TypeError):
        GameNumber(1) < 2


def test_an_arrow_tables_ms_flag_is_a_truth_value():
    assert GameNumber(5, pa.scalar(True)) == GameNumber(5, True) and GameNumber(5, pa.scalar(False)).ms is False
    with pytest.raises(DealNumberError, match="invalid ms flag None"):
        GameNumber(5, pa.scalar(None, pa.bool_()))


@pytest.mark.parametrize("value", [True, False, np.bool_(True), float("nan"), float("inf"), 5.5,
                                   Decimal("5.5"), Decimal("NaN"), Decimal("Infinity"), np.float64("nan"),
                                   -1, np.int64(-3), 0, 0.0, Decimal(0), 1 + 0j, None, b"5", [5],
                                   2.0**53, 2.0**53 + 2, np.float32(2**24), 1e20,
                                   float(26464608654870335080),  # floats that may be rounded
                                   pa.scalar(None, pa.int64()), pa.scalar(5.5), pa.scalar("five"),
                                   pa.array(np.array([2**24 + 2], np.float32))[0],  # float32's rounding, as numpy's
                                   pa.array(np.array([4100], np.float16))[0]],
                         ids=repr)
def test_other_values_are_refused(value):
    with pytest.raises(DealNumberError):
        GameNumber.parse(value)
    with pytest.raises(DealNumberError):
        deal(value)


def test_a_usage_error_quoting_a_line_break_stays_one_line():
    """click quotes a stray argument as typed; a newline in it must not split the error line (fuzz input 8572)."""
    result = cli("deal", "1", "#9 52\n")
    line = assert_one_line_failure(result, 2)
    assert "#9 52\\n" in line


def test_a_binary_board_is_quoted_short_where_its_escapes_are_long(tmp_path):
    """A file of NULs: each shows as four characters (`\\x00`), so cutting after 100 input characters still
    printed 400 of them; the quotation is now cut where what the reader sees would pass 100 (helper 131)."""
    board = tmp_path / "zeros"
    board.write_bytes(b"\0" * 300)
    solved = cli("solve", "--board", board)
    dropped_in = subprocess.run([str(SCRIPT.parent / "blackhole-solve"), "--game", "black_hole", str(board)],
                                capture_output=True, timeout=120)
    line = assert_one_line_failure(solved)
    assert dropped_in.returncode != 0 and dropped_in.stdout == b"", dropped_in
    for text in (line, dropped_in.stderr.decode()):
        assert len(text.splitlines()) == 1 and "(300 characters)" in text and len(text) < 220, text


@pytest.mark.parametrize("content, shown", [
    (b"Foundations: AS\n" + b"\0" * 4000 + b"\n", "unknown card '\\x00\\x00"),  # a card token of NULs
    (b"\t" * 20000 + b"\n", "longer than 4,096 characters (it starts '\\t\\t"),  # the start only: no count
], ids=["nul_card", "long_line_of_tabs"])
def test_every_quotation_of_a_board_stays_short(tmp_path, content, shown):
    """The quotation's cut reaches every place a board's text is quoted: an unknown card of 4,000 NULs gave
    16,098 characters, a long line of tabs its start with a count of 100 characters after 'longer than
    4,096' (helper 132)."""
    board = tmp_path / "board"
    board.write_bytes(content)
    line = assert_one_line_failure(cli("solve", "--board", board))
    assert shown in line and len(line) < 250 and "(100 characters)" not in line, line
