"""Deal sets, and the run directory as other tools read it: pandas, pyarrow, DuckDB, polars."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
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
from blackhole_stats.runner import run

SCRIPT = Path(sys.executable).parent / "blackhole-stats"
BIG = [10**19 + 1, 26464608654870335080, 99999999999999999999]
"""Past 2^64: the deal column must hold them exactly and sort them as numbers."""


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
@pytest.fixture(scope="module")
def big_run(tmp_path_factory) -> Path:
    """A CLI run over a --deals file with small, ms and past-2^64 numbers (and duplicates)."""
    folder = tmp_path_factory.mktemp("big")
    listing = folder / "deals.txt"
    lines = ["99999999999999999999", "1", *map(str, BIG), "ms3", "32000", "ms3", "2"]
    listing.write_text("\n".join(lines) + "\n")
    out = folder / "run"
    result = subprocess.run([str(SCRIPT), "run", "--deals", str(listing), "--range", "3-40,ms1-ms2",
                             "--out", str(out), "--workers", "2", "--chunk-size", "7"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "47 deals solved now" in result.stdout
    return out


EXPECTED = sorted([*range(1, 41), 32000, *BIG])


def test_pandas_reads_the_directory(big_run):
    frame = pd.read_parquet(big_run)
    assert list(frame.columns) == dataset.SCHEMA.names
    assert frame["ms"].dtype == bool and frame["iterations"].dtype == "int64"
    assert frame["cards_played"].dtype == "int8" and frame["seconds"].dtype == "float64"
    assert list(frame["outcome"].cat.categories) == ["solved", "unsolved", "intractable"]
    plain = frame[~frame["ms"]].sort_values("deal")
    assert [int(d) for d in plain["deal"]] == EXPECTED
    assert all(isinstance(d, Decimal) for d in plain["deal"])
    assert sorted(int(d) for d in frame[frame["ms"]]["deal"]) == [1, 2, 3]
    solved = frame["outcome"] == "solved"
    assert frame.loc[solved, "solution"].map(lambda s: len(s.split(" "))).eq(51).all()
    assert frame.loc[solved, "cards_played"].eq(51).all()
    assert frame.loc[~solved, "solution"].isna().all()
    assert frame.loc[~solved, "cards_played"].lt(51).all()


def test_pyarrow_dataset_schema(big_run):
    table = pads.dataset(big_run, format="parquet").to_table()
    assert table.schema.equals(dataset.SCHEMA)
    assert table.num_rows == 47
    assert table["outcome"].combine_chunks().dictionary.to_pylist() == ["solved", "unsolved", "intractable"]


def test_duckdb_sorts_deals_numerically(big_run):
    con = duckdb.connect()
    rows = con.sql(f"select deal, typeof(deal), typeof(outcome) from read_parquet('{big_run}/*.parquet') "
                   "where not ms order by deal").fetchall()
    assert [int(deal) for deal, _, _ in rows] == EXPECTED
    assert {tuple(types) for _, *types in rows} == {("DECIMAL(38,0)", "VARCHAR")}
    [(solved,)] = con.sql(f"select count(*) from read_parquet('{big_run}/*.parquet') where outcome = 'solved' "
                          "and cards_played = 51 and solution is not null").fetchall()
    assert solved > 0


def test_polars_sorts_deals_numerically(big_run):
    frame = pl.read_parquet(f"{big_run}/*.parquet").filter(~pl.col("ms")).sort("deal")
    assert frame.schema["deal"] == pl.Decimal(38, 0)
    assert [int(d) for d in frame["deal"]] == EXPECTED


def test_rows_match_the_solver(big_run):
    frame = pd.read_parquet(big_run)
    for number in (2, 26464608654870335080, 32000):
        row = frame[(frame["deal"] == Decimal(number)) & ~frame["ms"]].iloc[0]
        result = Solver().solve(deal(GameNumber(number)))
        assert (row["outcome"], row["cards_played"]) == (result.outcome, result.cards_played)
        if result.solved:  # the stored text replays from the deal to the solution found now
            assert blackhole_stats.Solution.from_text(deal(GameNumber(number)), row["solution"]) == result.solution


def test_manifest(big_run):
    manifest = json.loads((big_run / dataset.MANIFEST_NAME).read_text())
    assert manifest["tool"] == "blackhole-stats" and manifest["search"] == "fast"
    assert manifest["results_format"] == dataset.RESULTS_FORMAT and "version" not in manifest
    [session] = manifest["sessions"]
    assert (session["version"], session["deals_solved"]) == (blackhole_stats.__version__, 47)
    assert 0 < session["elapsed_seconds"] == manifest["elapsed_seconds"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", session["started"])
    assert manifest["max_iters"] is None and manifest["chunk_size"] == 7 and manifest["workers"] == 2
    assert manifest["deals"] == ["1-40", "32000", *map(str, BIG), "ms1-ms3"]
    assert manifest["total_deals"] == 47
    for key in ("started", "finished"):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", manifest[key])
    assert manifest["elapsed_seconds"] > 0
    assert set(manifest["machine"]) == {"hostname", "platform", "cpu", "cpu_count", "python"}


def test_chunk_files(big_run):
    names = sorted(path.name for path in big_run.iterdir())
    assert names[:2] == [dataset.MANIFEST_NAME, dataset.LOG_NAME]
    parts = names[2:]
    assert len(parts) == 7
    assert all(re.fullmatch(r"part-(ms)?\d+-(ms)?\d+-\d+\.parquet", name) for name in parts)
    assert "part-1-7-7.parquet" in parts and f"part-{BIG[1]}-ms3-5.parquet" in parts
    log = (big_run / dataset.LOG_NAME).read_text()
    assert log.count(": started") == 7 and log.count(": wrote part-") == 7


# ------------------------------------------------------------------ resuming, refusing
def small(tmp_path, specs=("1-30",), **options) -> Path:
    out = tmp_path / "run"
    run(str(out), DealSet.parse(specs), workers=1, chunk_size=10, **options)
    return out


def test_adding_deals_keeps_files_and_records_the_union(tmp_path):
    out = small(tmp_path)
    before = {path.name: path.stat().st_ino for path in out.glob("part-*")}
    (out / ".part-31-40-10.parquet.tmp").write_bytes(b"half a file")  # what a killed worker leaves
    assert len(pd.read_parquet(out)) == 30  # readers skip it
    assert duckdb.sql(f"select count(*) from read_parquet('{out}/*.parquet')").fetchall() == [(30,)]
    assert len(pl.read_parquet(f"{out}/*.parquet")) == 30
    summary = run(str(out), DealSet.parse(["25-45"]), workers=1, chunk_size=10)
    assert (summary.requested, summary.already_done, summary.solved_now) == (21, 6, 15)
    after = {path.name: path.stat().st_ino for path in out.glob("part-*")}
    assert before.items() <= after.items()
    assert not list(out.glob(".*"))
    assert dataset.read_manifest(str(out))["deals"] == ["1-45"]
    frame = pd.read_parquet(out)
    assert sorted(int(d) for d in frame["deal"]) == list(range(1, 46))
    finished = dataset.read_manifest(str(out))
    assert run(str(out), None, workers=1).solved_now == 0  # nothing left: nothing written
    assert dataset.read_manifest(str(out)) == finished  # ... and the record of the run stays


@pytest.mark.parametrize("change, words", [
    ({"search": "classic"}, "search='fast', not 'classic'"),
    ({"max_iters": 1000}, "max_iters=None, not 1000"),
])
def test_other_settings_are_refused(tmp_path, change, words):
    out = small(tmp_path, specs=("1-3",))
    with pytest.raises(DatasetError, match=re.escape(words)):
        run(str(out), DealSet.parse(["1-3"]), **change)


def test_refuses_a_directory_that_is_not_a_run(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(DatasetError, match="not empty and holds no run"):
        run(str(tmp_path), DealSet.parse(["1"]))
    with pytest.raises(DatasetError, match="is a file"):
        run(str(tmp_path / "notes.txt"), DealSet.parse(["1"]))
    with pytest.raises(DatasetError, match="no run to resume"):
        run(str(tmp_path / "new"), None)
    assert not (tmp_path / "new").exists()


def test_intractable_rows(tmp_path):
    out = small(tmp_path, specs=("2-4",), search="classic", max_iters=50)
    frame = pd.read_parquet(out).set_index("deal")
    assert frame.loc[Decimal(2), "outcome"] == "intractable"  # the peer needs 158,848 iterations
    assert pd.isna(frame.loc[Decimal(2), "solution"])


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
    (out / dataset.MANIFEST_NAME).write_text("{half")
    with pytest.raises(DatasetError, match="_manifest.json is damaged"):
        run(str(out), None)
