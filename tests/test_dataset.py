"""Deal sets, and the run directory as other tools read it: pandas, pyarrow, DuckDB, polars."""
from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

import blackhole_stats
from blackhole_stats import GameNumber, Solver, deal
from blackhole_stats import dataset
from blackhole_stats.dataset import DatasetError
from blackhole_stats.deals import DealSet, DealSpecError
from blackhole_stats.difficulty import TAGS
from blackhole_stats.runner import run
from conftest import assert_one_line_failure, assert_plays_out, cli, reference_board, unprivileged

SCRIPT = Path(sys.executable).parent / "blackhole-stats"
BIG = [2**63 - 1, 2**63, 10**19 + 1, 26464608654870335080, 99999999999999999999, 10**20]
"""int64's last number, and past it up to PySolFC's 10^20: the dataset must hold them exactly."""


# ------------------------------------------------------------------ deal sets
def test_parse_merges_overlaps_and_duplicates():
    deals = DealSet.parse(["5-10,1-3", "4", "ms2-ms3,ms1", "8-12", "7"])
    assert deals.runs == ((False, 1, 12), (True, 1, 3))
    assert deals.count == 15
    assert deals.specs() == ["1-12", "ms1-ms3"]
    assert DealSet.parse(deals.specs()) == deals


def test_parse_reads_ranges_strictly_and_huge_numbers():
    """PySolFC's dialog drops separators from one number; in a range they are never dropped."""
    assert DealSet.parse([" 1000 - 1200 , ms7 "]).runs == ((False, 1000, 1200), (True, 7, 7))
    assert DealSet.parse(["0007"]).runs == ((False, 7, 7),)
    assert DealSet.parse("15").runs == ((False, 15, 15),)  # one spec, not the specs "1" and "5"
    assert DealSet.parse([f"{10**38 - 1}"]).count == 1
    for collapsing in ("#1_000-1 200", "1 5", "1.5", "1_000", "12,345.0", "#5", "5L", "ms 5", "MS5"):
        with pytest.raises(DealSpecError, match="digits only"):
            DealSet.parse([collapsing])


@pytest.mark.parametrize("spec, words", [
    ("10-1", "reversed"), ("0-5", "start at 1"), ("1-x", "digits only"), ("", "expected N"),
    ("1-2-3", "expected N"), ("1-ms5", "both ends"), ("ms1-ms9999999999", "ms numbers go up to"),
    (f"1-{10**38}", "below 10^38"), ("-5", "digits only"), ("1\n5", "digits only"),
])
def test_bad_ranges_name_the_item(spec, words):
    with pytest.raises(DealSpecError, match=re.escape(words)) as caught:
        DealSet.parse([spec])
    assert repr(spec) in str(caught.value)


@pytest.mark.parametrize("spec", ["1,000", "1-1,000,000", "1,000-2,000", "ms1,000", "1,001", "1, 050",
                                  "1-1,500", "1-2,500", "12,345", "ms5,678", "1,234-2,000", "7-999,999"])
def test_a_number_written_with_thousands_separators_is_said_so(spec):
    """`--range 1,000` was refused as "invalid game number 0" (its items are 1 and 000), which does not say
    why; `--range 1,001` was deal 1 alone (1 and 001), `1-1,500` deals 1 and 500, and a --deals file's
    pasted `12,345` deals 12 and 345, silently (a hostile tester)."""
    with pytest.raises(DealSpecError, match=re.escape(f"bad deal range {spec!r}: a number with a thousands "
                                                      "separator (',' separates items): write 1000, not 1,000; to "
                                                      "list two items, put a space after the comma")):
        DealSet.parse([spec])
    assert [str(DealSet.parse([other])) for other in ("1,0005", "7,12", "1-1, 500", "1000,500", "1,2,3", "5,1000",
                                                      "ms12, 345", "1-3 ,500")] == \
        ["1,5", "7,12", "1,500", "500,1000", "1-3", "5,1000", "345,ms12", "1-3,500"]
    with pytest.raises(DealSpecError, match=r"x\.txt line 2: bad deal range '12,345': a number with a thousands"):
        DealSet.read_list(["5\n", "12,345\n"], "x.txt")


@pytest.mark.parametrize("spec", ["1-3,", "1-3,,5", ",7", "1-3, "])
def test_an_empty_item_is_named_with_what_was_typed(spec):
    """A comma too many was "bad deal range '': expected N, ...", quoting nothing of what was typed (helper 138)."""
    with pytest.raises(DealSpecError, match=re.escape(f"bad deal range {spec!r}: an empty item (a comma too many?)")):
        DealSet.parse([spec])
    with pytest.raises(DealSpecError, match=re.escape(f"x.txt line 1: bad deal range {spec.strip()!r}: an empty item")):
        DealSet.read_list([spec + "\n"], "x.txt")


def test_a_long_set_of_deals_is_abbreviated_for_a_line():
    """--forget-missing and verify printed 3,750 scattered deals on one line of 28,000 characters."""
    scattered = DealSet.parse([",".join(str(n) for n in range(1, 40, 2))])
    assert scattered.abbreviated(3) == "1,3,5, ... (20 deals in all)"
    assert DealSet.parse(["1-5,ms7"]).abbreviated(3) == str(DealSet.parse(["1-5,ms7"])) == "1-5,ms7"


def test_read_list_names_file_and_line():
    assert DealSet.read_list(["3\n", "\n", "ms7\n", "3\n"], "x.txt").specs() == ["3", "ms7"]
    with pytest.raises(DealSpecError, match=r"x\.txt line 2: .*'seven'"):
        DealSet.read_list(["3", "seven"], "x.txt")


def test_read_list_takes_what_parse_takes_and_comments():
    lines = ["# deals to redo\n", "1-5\n", "  # indented comment\n", "\n", "ms2-ms3, 9\r\n", "7\n"]
    assert DealSet.read_list(lines, "x.txt").specs() == ["1-5", "7", "9", "ms2-ms3"]
    with pytest.raises(DealSpecError, match=r"x\.txt line 1: bad deal range '1 5'"):
        DealSet.read_list(["1 5"], "x.txt")


runs = st.lists(st.tuples(st.booleans(), st.integers(1, 60), st.integers(0, 8)), max_size=8)


def as_set(deals: DealSet) -> set:
    return {(game.ms, game.number) for game in deals.games()}


@given(runs, runs, st.integers(1, 7))
def test_set_algebra_matches_python_sets(a_runs, b_runs, size):
    a = DealSet.from_runs((ms, first, first + extra) for ms, first, extra in a_runs)
    b = DealSet.from_runs((ms, first, first + extra) for ms, first, extra in b_runs)
    assert as_set(a - b) == as_set(a) - as_set(b)
    assert as_set(a | b) == as_set(a) | as_set(b)
    assert (a - b).count == len(as_set(a) - as_set(b))
    chunks = list(a.chunks(size))
    assert all(0 < chunk.count <= size for chunk in chunks)
    games = list(a.games())
    assert [game for chunk in chunks for game in chunk.games()] == games
    assert games == sorted(games, key=lambda game: (game.ms, game.number))  # plain first, then ms


# ------------------------------------------------------------------ the dataset as others read it
COLUMNS = ["game", "deal", "ms", "outcome", "iterations", "cards_played", "solution", "seconds", "deal_exact"]
"""Results format 2, as README documents it."""


@pytest.fixture(scope="module")
def big_run(tmp_path_factory) -> Path:
    """A CLI run over a --deals file with small, ms and past-2^63 numbers (and duplicates)."""
    folder = tmp_path_factory.mktemp("big")
    listing = folder / "deals.txt"
    lines = ["99999999999999999999", "1", *map(str, BIG), "ms3", "32000", "ms3", "2"]
    listing.write_text("\n".join(lines) + "\n")
    out = folder / "run"
    result = subprocess.run([str(SCRIPT), "run", "--deals", str(listing), "--range", "3-40,ms1-ms2",
                             "--out", str(out), "--workers", "2", "--chunk-size", "7"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert f"{len(EXPECTED) + 3} deals solved now" in result.stdout
    return out


EXPECTED = sorted([*range(1, 41), 32000, *BIG])


def exact_numbers(frame) -> list[int]:
    """Each row's game number from the two columns: `deal`, or `deal_exact` where deal is null."""
    return [int(spelt) if isinstance(spelt, str) else int(number)
            for number, spelt in zip(frame["deal"], frame["deal_exact"])]


def test_pandas_reads_the_directory(big_run):
    """Numbers past 2^63 leave `deal` null: pandas' numpy backend would make that float64, so such a
    dataset is read with dtype_backend="pyarrow" (README says so), and every number is exact."""
    frame = pd.read_parquet(big_run, dtype_backend="pyarrow")
    assert list(frame.columns) == COLUMNS
    assert str(frame["deal"].dtype) == "int64[pyarrow]" and frame["ms"].dtype == "bool[pyarrow]"
    assert set(frame["game"].astype(str)) == {"black_hole"}
    plain = frame[~frame["ms"]]
    assert sorted(exact_numbers(plain)) == EXPECTED
    past = plain["deal_exact"].notna()
    assert sorted(map(int, plain.loc[past, "deal_exact"])) == [number for number in EXPECTED if number >= 2**63]
    assert plain.loc[past, "deal"].isna().all() and plain.loc[~past, "deal"].notna().all()
    assert sorted(frame.loc[frame["ms"], "deal"]) == [1, 2, 3]
    solved = frame["outcome"] == "solved"
    assert frame.loc[solved, "solution"].map(lambda s: len(s.split(" "))).eq(51).all()
    assert frame.loc[solved, "cards_played"].eq(51).all()
    assert frame.loc[~solved, "solution"].isna().all()
    assert frame.loc[~solved, "cards_played"].lt(51).all()
    assert pd.read_parquet(big_run)["deal"].dtype == "float64"  # the numpy backend's view of a nullable column


def test_pyarrow_dataset_schema(big_run):
    table = pads.dataset(big_run, format="parquet").to_table()
    assert table.schema.equals(dataset.SCHEMA)
    assert table.schema.names == COLUMNS and table.schema.field("deal").type == "int64"
    assert table.num_rows == len(EXPECTED) + 3
    assert table["outcome"].combine_chunks().dictionary.to_pylist() == ["solved", "unsolved", "intractable"]


def test_duckdb_sorts_deals_numerically(big_run):
    con = duckdb.connect()
    rows = con.sql(f"select coalesce(deal::hugeint, deal_exact::hugeint) as number, typeof(deal), "
                   f"typeof(outcome) from read_parquet('{big_run}') where not ms order by number").fetchall()
    assert [int(number) for number, _, _ in rows] == EXPECTED
    assert {tuple(types) for _, *types in rows} == {("BIGINT", "VARCHAR")}
    [(solved,)] = con.sql(f"select count(*) from read_parquet('{big_run}') where outcome = 'solved' "
                          "and cards_played = 51 and solution is not null").fetchall()
    assert solved > 0


def test_polars_sorts_deals_numerically(big_run):
    frame = pl.read_parquet(big_run).filter(~pl.col("ms"))
    assert frame.schema["deal"] == pl.Int64
    assert sorted(exact_numbers(frame)) == EXPECTED
    ordinary = frame.filter(pl.col("deal").is_not_null()).sort("deal")
    assert ordinary["deal"].to_list() == [number for number in EXPECTED if number < 2**63]


def test_rows_match_the_solver(big_run):
    frame = pd.read_parquet(big_run, dtype_backend="pyarrow")
    frame = frame[~frame["ms"]].assign(number=exact_numbers(frame[~frame["ms"]]))
    for number in (2, 2**63 - 1, 2**63, 26464608654870335080, 10**20, 32000):
        row = frame[frame["number"] == number].iloc[0]
        result = Solver().solve(deal(GameNumber(number)))
        assert (row["outcome"], row["cards_played"]) == (result.outcome, result.cards_played)
        if result.solved:  # the stored text replays from the deal to the solution found now
            assert blackhole_stats.Solution.from_text(deal(GameNumber(number)), row["solution"]) == result.solution


@pytest.mark.parametrize("number", [10**16, 26464608654870335080, 99999999999999999999, 10**20])
def test_pysolfc_seeds_reproduce_the_reference_boards(tmp_path, number):
    """PySolFC's random seeds from a --deals file: stored exactly, and the number read back (with
    pyarrow alone) deals the board that pysol-cards deals; the stored solution empties that board."""
    board = reference_board(str(number))
    listing = tmp_path / "games.txt"
    listing.write_text(f"# from my game log\n{number}\n")
    out = tmp_path / "run"
    made = cli("run", "--deals", listing, "--out", out, "--workers", "1")
    assert made.returncode == 0, made.stderr.decode()
    [row] = pq.read_table(out).to_pylist()
    assert (row["deal"], row["deal_exact"]) == ((number, None) if number < 2**63 else (None, str(number)))
    stored = row["deal"] if row["deal"] is not None else int(row["deal_exact"])
    assert cli("deal", stored).stdout.decode() == board
    if row["outcome"] == "solved":
        piles = [line.split() for line in board.splitlines()[1:]]
        plays = [(next(index for index, pile in enumerate(piles) if card in pile), card)
                 for card in row["solution"].split(" ")]
        assert_plays_out(board, plays)


def test_manifest(big_run):
    manifest = json.loads(Path(f"{big_run}.run", "manifest.json").read_text())
    assert manifest == dataset.read_manifest(str(big_run))
    assert manifest["tool"] == "blackhole-stats" and manifest["search"] == "fast"
    assert manifest["results_format"] == 2 and "version" not in manifest
    [session] = manifest["sessions"]
    assert (session["version"], session["deals_solved"]) == (blackhole_stats.__version__, len(EXPECTED) + 3)
    assert 0 < session["elapsed_seconds"] == manifest["elapsed_seconds"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", session["started"])
    assert manifest["max_iters"] is None and manifest["chunk_size"] == 7 and manifest["workers"] == 2
    assert manifest["deals"] == ["1-40", "32000", f"{2**63 - 1}-{2**63}", str(10**19 + 1), "26464608654870335080",
                                 f"{10**20 - 1}-{10**20}", "ms1-ms3"]  # neighbours merge into ranges
    assert manifest["total_deals"] == len(EXPECTED) + 3
    for key in ("started", "finished"):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", manifest[key])
    assert manifest["elapsed_seconds"] > 0
    assert set(manifest["machine"]) == {"hostname", "platform", "cpu", "cpu_count", "python"}


def test_chunk_files_alone_in_the_directory(big_run):
    """DIR holds the chunk files and nothing else; the manifest and the log are beside it, in DIR.run."""
    parts = sorted(path.name for path in big_run.iterdir())
    assert len(parts) == 8
    assert all(re.fullmatch(r"part-(ms)?\d+-(ms)?\d+-\d+\.parquet", name) for name in parts)
    assert "part-1-7-7.parquet" in parts and f"part-{2**63}-ms2-7.parquet" in parts
    assert sorted(path.name for path in Path(f"{big_run}.run").iterdir()) == ["manifest.json", "run.log"]
    log = Path(f"{big_run}.run", "run.log").read_text()
    assert log.count(": started") == 8 and log.count(": wrote part-") == 8


# ------------------------------------------------------------------ resuming, refusing
def small(tmp_path, specs=("1-30",), **options) -> Path:
    out = tmp_path / "run"
    run(str(out), DealSet.parse(specs), workers=1, chunk_size=10, **options)
    return out


def test_adding_deals_keeps_files_and_records_the_union(tmp_path):
    out = small(tmp_path)
    before = {path.name: path.stat().st_ino for path in out.glob("part-*")}
    side = Path(f"{out}.run")
    (side / ".part-31-40-10.parquet.tmp").write_bytes(b"half a file")  # what a killed worker leaves
    assert len(pd.read_parquet(out)) == 30  # beside DIR: no reader sees it
    assert duckdb.sql(f"select count(*) from read_parquet('{out}')").fetchall() == [(30,)]
    assert len(pl.read_parquet(out)) == 30
    summary = run(str(out), DealSet.parse(["25-45"]), workers=1, chunk_size=10)
    assert (summary.requested, summary.already_done, summary.solved_now) == (45, 30, 15)  # the whole run
    after = {path.name: path.stat().st_ino for path in out.glob("part-*")}
    assert before.items() <= after.items()
    assert not list(side.glob(".*"))
    assert dataset.read_manifest(str(out))["deals"] == ["1-45"]
    frame = pd.read_parquet(out)
    assert sorted(int(d) for d in frame["deal"]) == list(range(1, 46))
    finished = dataset.read_manifest(str(out))
    assert run(str(out), None, workers=1).solved_now == 0  # nothing left: nothing written
    assert dataset.read_manifest(str(out)) == finished  # ... and the record of the run stays


@pytest.mark.parametrize("change, words", [
    ({"search": "classic"}, "search='fast', not 'classic'"),
    ({"max_iters": 1000}, "max_iters=no bound, not 1000"),
])
def test_other_settings_are_refused(tmp_path, change, words):
    out = small(tmp_path, specs=("1-3",))
    with pytest.raises(DatasetError, match=re.escape(words)):
        run(str(out), DealSet.parse(["1-3"]), **change)


def test_refuses_a_directory_that_is_not_a_run(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(DatasetError, match="not empty and holds no run"):
        run(str(tmp_path), DealSet.parse(["1"]))
    assert not Path(f"{tmp_path}.run").exists()  # refused before anything was written
    with pytest.raises(DatasetError, match="is a file"):
        run(str(tmp_path / "notes.txt"), DealSet.parse(["1"]))
    with pytest.raises(DatasetError, match="no run to resume"):
        run(str(tmp_path / "new"), None)
    assert not (tmp_path / "new").exists()


def test_intractable_rows(tmp_path):
    out = small(tmp_path, specs=("2-4",), search="classic", max_iters=50)
    frame = pd.read_parquet(out).set_index("deal")
    assert frame.loc[2, "outcome"] == "intractable"  # the peer needs 158,848 iterations
    assert pd.isna(frame.loc[2, "solution"])


def test_fsspec_url():
    """Any fsspec URL works for the chunk files (memory:// lives in this process only)."""
    out = "memory://bench/run"
    deals = DealSet.parse(["5-6"])
    dataset.filesystem(out)[0].create_dir("/bench/run")
    columns = {"deal": [5, 6], "ms": [False, False], "outcome": [1, 2], "iterations": [3, 4],
               "cards_played": [7, 8], "solution": [None, None], "seconds": [0.5, 0.25]}
    name = dataset.write_part(out, deals, columns)
    assert name == "part-5-6-2.parquet"
    assert dataset.read_done(out) == deals
    assert dataset.remove_temp_files(out) == 0
    fs, root = dataset.filesystem(out)
    assert pq.read_table(f"{root}/{name}", filesystem=fs).schema.equals(dataset.SCHEMA)


def test_a_damaged_manifest_is_a_clear_error(tmp_path):
    out = small(tmp_path, specs=("1",))
    Path(f"{out}.run", "manifest.json").write_text("{half")
    with pytest.raises(DatasetError, match=re.escape(f"{out}.run/manifest.json is damaged")):
        run(str(out), None)


def test_a_chunk_file_its_user_may_not_read_is_named_unreadable_not_damaged(tmp_path):
    """A chunk file written 0600 by a Dask worker running as another user: run and verify called it damaged
    and said to delete it (its deals solved again), report and export "not a readable Parquet file"."""
    out = tmp_path / "run"
    assert cli("run", "--range", "1-6", "--chunk-size", "3", "--workers", "1", "--out", out).returncode == 0
    part = out / "part-1-3-3.parquet"
    part.chmod(0)
    for command in (["run", "--out", out], ["run", "--range", "1-9", "--out", out], ["verify", out], ["report", out],
                    ["export", out]):
        done = subprocess.run([*unprivileged(), str(SCRIPT), *map(str, command)], capture_output=True, timeout=120)
        line = assert_one_line_failure(done)
        assert line.startswith(f"Error: {part} is unreadable: permission denied") and "damaged (" not in line, line
    part.chmod(0o644)
    assert cli("verify", out).returncode == 0


# ------------------------------------------------------------------ game numbers, read back exactly
@pytest.mark.parametrize("column, numbers", [
    (pa.array([5, 9], pa.int8()), [5, 9]),
    (pa.array([2**64 - 1, 7], pa.uint64()), [2**64 - 1, 7]),
    (pa.array([Decimal(3), Decimal(10**30)], pa.decimal128(38, 0)), [3, 10**30]),
    (pa.array([Decimal("4.0"), Decimal(2**63 - 1)], pa.decimal128(25, 1)), [4, 2**63 - 1]),
    (pa.array([5.0, 2.0**53 - 1], pa.float64()), [5, 2**53 - 1]),
    (pa.array([5.0, 2.0**24 - 1], pa.float32()), [5, 2**24 - 1]),
    (pa.array(["12", " 26464608654870335080 "], pa.string()), [12, 26464608654870335080]),
    (pa.array(["3.0", "9007199254740991.00"], pa.string()), [3, 2**53 - 1]),  # pandas' floats in a CSV
])
def test_game_numbers_from_whatever_a_dataset_holds(column, numbers):
    read = dataset.game_numbers(column)
    assert read.tolist() == numbers and [type(number) for number in read.tolist()] == [int, int]
    assert read.dtype == ("int64" if max(numbers) < 2**63 else object)


@given(st.lists(st.tuples(st.booleans(), st.integers(1, 40)), max_size=30))
def test_deals_held_are_the_rows_deals(rows):
    """What a dataset's rows hold, as runs (numpy's sweep) and as a Python set of (ms, number)."""
    numbers = np.array([number for _, number in rows], dtype=np.int64)
    held = dataset.deals_held(numbers, np.array([ms for ms, _ in rows], dtype=bool))
    assert as_set(held) == set(rows)
    assert dataset.deals_held(numbers.astype(object), np.array([ms for ms, _ in rows], dtype=bool)) == held


def test_game_numbers_take_deal_exact_where_deal_is_null():
    read = dataset.game_numbers(pa.array([1, None, 3], pa.int64()),
                                pa.array([None, "100000000000000000000", None], pa.string()))
    assert read.tolist() == [1, 10**20, 3] and read.dtype == object


@pytest.mark.parametrize("column, exact, words", [
    (pa.array([1.5]), None, "holds 1.5, not a whole game number"),
    # past 2^53 a float may be a rounded neighbour of the deal meant: refused, never read as another deal
    (pa.array([5.0, 2.0**70]), None, "row 2 has game number 1.1805916207174113e+21 as a float"),
    (pa.array(["5", "9007199254740993.0"]), None, "row 2 has game number '9007199254740993.0' as a float"),
    (pa.array([2.0**53]), None, "from 2^53 up"),  # 2^53 + 1 written as a float reads back as 2^53
    (pa.array([1.0, 2.0**24], pa.float32()), None, "row 2 has game number 16777216.0 as a float: from 2^24 up"),
    (pa.array(["1e3"]), None, "holds '1e3'"),
    (pa.array(["12a"]), None, "holds '12a'"),
    (pa.array([True]), None, "column deal is bool"),
    (pa.array([1, None], pa.int64()), None, "row 2 has no game number"),
    (pa.array([None], pa.int64()), pa.array(["-5"]), "deal_exact is '-5'"),
])
def test_game_numbers_refuse_what_is_not_one(column, exact, words):
    with pytest.raises(DatasetError, match=re.escape(words)):
        dataset.game_numbers(column, exact)


def test_upgrade_table_keeps_every_number_and_column():
    """A compact format-1 table (results/deals.parquet's columns) in format 2's form."""
    old = pa.table({"deal": pa.array([Decimal(7), Decimal(2**63), Decimal(10**20)], pa.decimal128(38, 0)),
                    "ms": [False, False, True], "iterations": [1, 2, 3]})
    new = dataset.upgrade_table(old)
    assert new.column_names == ["game", "deal", "ms", "iterations", "deal_exact"]
    assert new["deal"].to_pylist() == [7, None, None]
    assert new["deal_exact"].to_pylist() == [None, str(2**63), str(10**20)]
    assert new["game"].to_pylist() == ["black_hole"] * 3 and new["iterations"].to_pylist() == [1, 2, 3]
    assert new.schema.field("deal").type == pa.int64()


# ------------------------------------------------------------------ an ordinary run, as a notebook reads it
@pytest.fixture(scope="module")
def ordinary_run(tmp_path_factory) -> Path:
    """Deals 1..2500 and ms1..ms5, then `report --plots` (outside DIR): what a user's directory holds."""
    folder = tmp_path_factory.mktemp("ordinary")
    out = folder / "run"
    made = cli("run", "--range", "1-2500,ms1-ms5", "--out", out, "--chunk-size", "500", "--workers", "2")
    assert made.returncode == 0, made.stderr.decode()
    reported = cli("report", out, "--plots", folder / "plots")
    assert reported.returncode == 0, reported.stderr.decode()
    return out


def test_every_reader_takes_the_bare_directory(ordinary_run):
    """README's four readers on DIR as `run` and `report --plots` left it: all rows, no error."""
    counts = {
        "pandas": len(pd.read_parquet(ordinary_run)),
        "pandas, pyarrow backend": len(pd.read_parquet(ordinary_run, dtype_backend="pyarrow")),
        "pyarrow": pads.dataset(ordinary_run).count_rows(),
        "DuckDB": duckdb.sql(f"select count(*) from read_parquet('{ordinary_run}')").fetchall()[0][0],
        "polars": len(pl.read_parquet(ordinary_run)),
    }
    assert counts == dict.fromkeys(counts, 2505)


def test_pandas_computes_with_deal_numbers_as_integers(ordinary_run):
    plain = list(range(1, 2501))
    for backend in ("numpy_default", "pyarrow"):
        frame = pd.read_parquet(ordinary_run, **({} if backend == "numpy_default" else {"dtype_backend": backend}))
        assert str(frame["deal"].dtype) == ("int64" if backend == "numpy_default" else "int64[pyarrow]")
        frame = frame[~frame["ms"]]
        assert frame["deal"].sort_values().tolist() == plain
        assert (frame["deal"] < 1000).sum() == 999
        groups = frame.groupby(frame["deal"] // 1000).size()
        assert groups.to_dict() == {0: 999, 1: 1000, 2: 501}  # Counter(n // 1000 for n in 1..2500)
        assert frame["deal"].quantile(0.5) == statistics.median(plain)
        assert frame["deal"].isin([7, 2500, 2501]).sum() == 2
        assert len(frame.merge(pd.DataFrame({"deal": [3, 1000, 4000]}), on="deal")) == 2
        assert "deal" in frame.describe().columns  # numeric, not categorical


def test_a_plot_against_deal_numbers_has_a_numeric_axis(ordinary_run):
    """Decimal objects gave a categorical axis (deals drawn evenly spaced, whatever their numbers)."""
    figure = pytest.importorskip("matplotlib.figure", reason="plots need the 'plots' extra").Figure()
    frame = pd.read_parquet(ordinary_run)
    frame = frame[~frame["ms"] & ((frame["deal"] < 100) | (frame["deal"] > 2400))]  # 199 deals, a gap of 2300
    ax = figure.subplots()
    ax.plot(frame["deal"], frame["iterations"], ".")
    low, high = ax.get_xlim()
    assert low < 100 and high > 2400  # positions are the numbers, not 0..198


def test_each_reader_orders_the_tags_as_readme_says(tmp_path):
    """The tags are an ordinal scale that polars and DuckDB sort as text and pandas refuses to compare:
    README's casts give each reader the scale's order, as does sorting by `difficulty`."""
    tags = list(TAGS)
    out = small(tmp_path, ("1-40",), difficulty_scale="black_hole/1")
    rank = pd.read_parquet(out).dropna(subset=["tag"]).astype({"tag": str}).sort_values("difficulty")
    assert rank["tag"].map(tags.index).is_monotonic_increasing and rank["tag"].nunique() == 5  # each a score range
    hard = int(rank["tag"].isin(["hard", "very hard"]).sum())
    frame = pd.read_parquet(out)
    assert frame["tag"].cat.categories.tolist() == tags and not frame["tag"].cat.ordered
    ordered = frame["tag"].astype(pd.CategoricalDtype(tags, ordered=True))
    assert (ordered >= "hard").sum() == hard and ordered.max() == "very hard"
    assert ordered.dropna().sort_values().map(tags.index).is_monotonic_increasing
    polars_tags = pl.read_parquet(out).with_columns(pl.col("tag").cast(pl.Enum(tags)))["tag"]
    assert polars_tags.drop_nulls().sort().unique(maintain_order=True).to_list() == tags
    assert int((polars_tags >= "hard").sum()) == hard
    assert pl.read_parquet(out)["tag"].drop_nulls().unique().sort().to_list() == sorted(tags)  # as text
    with duckdb.connect() as db:
        db.sql("create type tag_order as enum ('very easy', 'easy', 'medium', 'hard', 'very hard')")
        read = f"read_parquet('{out}')"
        assert [tag for (tag,) in db.sql(f"select distinct tag::tag_order from {read} where tag is not null "
                                         "order by 1").fetchall()] == tags
        [(typed,)] = db.sql(f"select count(*) from {read} where tag::tag_order >= 'hard'::tag_order").fetchall()
        [(as_text,)] = db.sql(f"select count(*) from {read} where tag::tag_order >= 'hard'").fetchall()
        assert typed == hard and as_text != hard


def test_polars_computes_with_deal_numbers_as_integers(ordinary_run):
    frame = pl.read_parquet(ordinary_run).filter(~pl.col("ms"))
    assert frame.schema["deal"] == pl.Int64
    grouped = frame.group_by(pl.col("deal") // 1000).len().sort("deal")
    assert grouped.schema["deal"] == pl.Int64 and grouped.rows() == [(0, 999), (1, 1000), (2, 501)]
    assert frame["deal"].quantile(0.5, "linear") == 1250.5


def test_duckdb_computes_with_deal_numbers_as_integers(ordinary_run):
    rows = duckdb.sql(f"select deal // 1000 as thousand, typeof(deal // 1000), typeof(deal), count(*) "
                      f"from read_parquet('{ordinary_run}') where not ms group by all order by 1").fetchall()
    assert rows == [(0, "BIGINT", "BIGINT", 999), (1, "BIGINT", "BIGINT", 1000), (2, "BIGINT", "BIGINT", 501)]
    [(median,)] = duckdb.sql(f"select quantile_cont(deal, 0.5) from read_parquet('{ordinary_run}') "
                             "where not ms").fetchall()
    assert median == 1250.5


def test_a_run_made_under_a_link_s_name_is_guarded_as_any_run(tmp_path):
    """`run --out S` with S a link to store/real keeps its manifest beside S: the nesting check looked
    beside store/real alone, so `report A --plots S/plots` and `run --out S/nested` wrote into S's dataset; the
    same by store/real's own name: its chunk files say it is a run's dataset."""
    (tmp_path / "store" / "real").mkdir(parents=True)
    (tmp_path / "S").symlink_to(tmp_path / "store" / "real")
    assert cli("run", "--range", "1-5", "--out", tmp_path / "S").returncode == 0
    assert cli("run", "--range", "6-8", "--out", tmp_path / "A").returncode == 0
    line = assert_one_line_failure(cli("report", tmp_path / "A", "--plots", tmp_path / "S" / "plots"), 2)
    assert f"is inside the dataset of the run {tmp_path / 'S'}," in line, line
    line = assert_one_line_failure(cli("run", "--range", "1-5", "--out", tmp_path / "S" / "nested"), 1)
    assert f"lies inside the dataset of the run {tmp_path / 'S'}," in line, line
    real = tmp_path / "store" / "real"  # by its real name, where nothing beside says it is a run: DuckDB's
    line = assert_one_line_failure(cli("run", "--range", "1-5", "--out", real / "nested"), 1)  # read of S counted
    assert f"lies inside {real}, a run's dataset by its files (part-1-1-1.parquet, ...)," in line, line
    line = assert_one_line_failure(cli("report", tmp_path / "A", "--plots", real / "plots"), 2)
    assert f"is inside {real}, a run's dataset by its files (part-1-1-1.parquet, ...)," in line, line
    assert all(path.name.startswith("part-") for path in real.iterdir())  # its own alone
    home = tmp_path / "home"  # a folder holding a copied chunk file among other files is no dataset
    home.mkdir()
    shutil.copy(min(real.glob("part-*.parquet")), home)
    (home / ".bashrc").write_text("mine")  # a hidden file is a file too, and beside it a copy is no dataset
    assert cli("run", "--range", "1-5", "--out", home / "runs" / "x").returncode == 0


def test_plots_inside_the_dataset_are_refused(ordinary_run, tmp_path):
    """report --help once suggested `--plots runs/first/plots`: PNGs in DIR broke pandas and polars."""
    before = sorted(path.name for path in ordinary_run.iterdir())
    for inside in (ordinary_run / "plots", ordinary_run):
        line = assert_one_line_failure(cli("report", ordinary_run, "--plots", inside), 2)
        assert f"--plots {inside} is inside the dataset {ordinary_run}" in line
    other = tmp_path / "other.parquet"  # `report B --plots A` wrote PNGs into the run A: verify, a resume,
    shutil.copy(min(ordinary_run.glob("part-*.parquet")), other)  # pandas and polars failed on it after
    for inside in (ordinary_run / "plots", ordinary_run):
        line = assert_one_line_failure(cli("report", other, "--plots", inside), 2)
        assert f"--plots {inside} is inside the dataset of the run {os.path.realpath(ordinary_run)}" in line, line
    assert sorted(path.name for path in ordinary_run.iterdir()) == before
    help_text = cli("report", "--help").stdout.decode()
    assert "--plots plots/first" in help_text and "runs/first/plots" not in help_text
