"""`blackhole-stats report`, checked against computations that share no code with it.

Datasets are built here the way others would build them: pyarrow with the
documented schema, plain pandas as in a notebook, the peer solver's CSV. Every
number the report prints is recomputed with Python's `statistics` module, a
Counter, or the Wilson formula written out in another algebraic form.
"""
from __future__ import annotations

import csv
import json
import math
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from blackhole_stats import Solver, board_of, deal, report
from blackhole_stats.dataset import DatasetError, read_manifest
from blackhole_stats.plots import PlotsUnavailable, write_plots
from conftest import (assert_one_line_failure, cli, fill_up, require_reference, signal_at_pause, tmpfs,
                      unprivileged)

CLI = Path(sys.executable).parent / "blackhole-stats"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
OUTCOMES = ("solved", "unsolved", "intractable")
SCHEMA = pa.schema([
    ("game", pa.dictionary(pa.int8(), pa.string())),
    ("deal", pa.int64()),
    ("ms", pa.bool_()),
    ("outcome", pa.dictionary(pa.int8(), pa.string())),
    ("iterations", pa.int64()),
    ("cards_played", pa.int8()),
    ("solution", pa.string()),
    ("seconds", pa.float64()),
    ("deal_exact", pa.string()),
])
"""Results format 2 as README documents it, written out here independently of the package."""
FORMAT_1 = pa.schema([("deal", pa.decimal128(38, 0)), *(field for field in SCHEMA
                                                        if field.name not in ("game", "deal", "deal_exact"))])
"""What blackhole-stats 0.1.0 wrote."""
BIG_DEALS = [2**64, 2**64 + 1, 26464608654870335080, 10**30]
SHOWN = ("search", "max_iters", "deals", "results_format", "iterations_revision", "version", "started", "finished",
         "elapsed_seconds", "machine", "sessions")
"""The settings a report shows; the rest of a manifest is bookkeeping."""


def manifest_for(rows: list[dict], version: str = "0.1.0") -> dict:
    """A manifest laid out as blackhole-stats 0.1.0 wrote it, asking for exactly these rows' deals."""
    deals = [name(row) for row in rows]
    return {"tool": "blackhole-stats", "version": version, "search": "fast", "max_iters": 1000000,
            "deals": deals, "total_deals": len(deals), "started": "2026-11-29T13:29:25Z",
            "finished": "2026-11-29T13:36:47Z", "workers": 2, "scheduler": None,
            "machine": {"cpu": "test", "cores": 2}, "chunk_size": 1000, "elapsed_seconds": 12.5,
            "unrelated": "hidden"}


def make_rows(count: int = 240, seed: int = 7) -> list[dict]:
    """Random deals: plain ones (some past 2^64), ms twins of a few, all three outcomes."""
    rng = random.Random(seed)
    numbers = rng.sample(range(1, 10**6), count) + BIG_DEALS
    keys = [(number, False) for number in numbers] + [(number, True) for number in numbers[:6]]
    rows = []
    for number, ms in keys:
        outcome = rng.choices(OUTCOMES, weights=(80, 17, 3))[0]
        rows.append({"deal": number, "ms": ms, "outcome": outcome,
                     "iterations": rng.randrange(1, 10**7),
                     "cards_played": 51 if outcome == "solved" else rng.choice([0, 0, 1, 3, 12, 47, 50]),
                     "solution": "AS 2H 3C" if outcome == "solved" else None,
                     "seconds": rng.random()})
    return rows


def name(row: dict) -> str:
    return f"ms{row['deal']}" if row["ms"] else str(row["deal"])


def write_arrow(directory: Path, rows: list[dict], parts: int = 3, manifest: dict | None = None,
                results_format: int = 2) -> Path:
    """A dataset as `run` documents it: interleaved part files, so the report must sort.

    Format 2 keeps its manifest beside the directory (`DIR.run/manifest.json`);
    format 1 as 0.1.0 did, in `DIR/_manifest.json`.
    """
    directory.mkdir(parents=True, exist_ok=True)
    for part in range(parts):
        chunk = rows[part::parts]
        if results_format == 2:
            chunk = [{**row, "game": "black_hole", "deal": row["deal"] if row["deal"] < 2**63 else None,
                      "deal_exact": None if row["deal"] < 2**63 else str(row["deal"])} for row in chunk]
        else:
            chunk = [{**row, "deal": Decimal(row["deal"])} for row in chunk]
        schema = SCHEMA if results_format == 2 else FORMAT_1
        pq.write_table(pa.Table.from_pylist(chunk, schema=schema), directory / f"part-{part:05d}.parquet")
    if manifest is not None:
        where = (directory.with_name(directory.name + ".run") / "manifest.json" if results_format == 2
                 else directory / "_manifest.json")
        where.parent.mkdir(exist_ok=True)
        where.write_text(json.dumps(manifest), encoding="utf-8")
    return directory


def wilson(successes: int, trials: int) -> tuple[float, float]:
    z = statistics.NormalDist().inv_cdf(0.975)
    p = successes / trials
    centre = (successes + z * z / 2) / (trials + z * z)
    half = z * math.sqrt(trials) / (trials + z * z) * math.sqrt(p * (1 - p) + z * z / (4 * trials))
    return centre - half, centre + half


def check_report(result: report.Report, rows: list[dict]) -> None:
    """Every number in `result` against the same rows, computed independently."""
    counts = Counter(row["outcome"] for row in rows)
    assert result.deals == len(rows)
    assert result.ms_deals == sum(row["ms"] for row in rows)
    assert result.outcomes == {outcome: counts[outcome] for outcome in OUTCOMES}
    ordered = sorted(rows, key=lambda row: (row["ms"], row["deal"]))
    assert (result.first_deal, result.last_deal) == (name(ordered[0]), name(ordered[-1]))

    decided = counts["solved"] + counts["unsolved"]
    low, high = wilson(counts["solved"], decided)
    assert result.solvable.fraction == pytest.approx(counts["solved"] / decided, rel=1e-12)
    assert (result.solvable.low, result.solvable.high) == (pytest.approx(low, rel=1e-12),
                                                           pytest.approx(high, rel=1e-12))

    assert list(result.iterations) == [outcome for outcome in OUTCOMES if counts[outcome]]
    for outcome, stats in result.iterations.items():
        values = [row["iterations"] for row in rows if row["outcome"] == outcome]
        quartiles = statistics.quantiles(values, n=4, method="inclusive")
        assert (stats.count, stats.min, stats.max) == (len(values), min(values), max(values))
        assert stats.mean == pytest.approx(statistics.fmean(values), rel=1e-12)
        assert stats.median == pytest.approx(statistics.median(values), rel=1e-12)
        assert [stats.q1, stats.q3] == pytest.approx([quartiles[0], quartiles[2]], rel=1e-12)
        assert stats.p99 == pytest.approx(statistics.quantiles(values, n=100, method="inclusive")[98], rel=1e-12)
        if len(values) > 1:
            assert stats.std == pytest.approx(statistics.stdev(values), rel=1e-9)

    unsolved_cards = Counter(row["cards_played"] for row in rows if row["outcome"] == "unsolved")
    assert result.cards_played == dict(sorted(unsolved_cards.items()))
    assert result.no_first_move == unsolved_cards[0]

    hardest = sorted(rows, key=lambda row: (-row["iterations"], row["ms"], row["deal"]))[:10]
    assert [(row["deal"], row["outcome"], row["iterations"]) for row in result.hardest] == \
        [(name(row), row["outcome"], row["iterations"]) for row in hardest]
    assert result.solve_seconds == pytest.approx(sum(row["seconds"] for row in rows))


def run_cli(*args, command: str = "report") -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), command, *map(str, args)], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return make_rows()


@pytest.fixture(scope="module")
def dataset(rows, tmp_path_factory) -> Path:
    return write_arrow(tmp_path_factory.mktemp("format2") / "run", rows, manifest=manifest_for(rows))


@pytest.fixture(scope="module")
def dataset_v1(rows, tmp_path_factory) -> Path:
    return write_arrow(tmp_path_factory.mktemp("format1") / "run", rows, manifest=manifest_for(rows),
                       results_format=1)


@pytest.mark.parametrize("results_format", [2, 1])
def test_report_numbers_match_independent_computation(dataset, dataset_v1, rows, results_format):
    folder = dataset if results_format == 2 else dataset_v1
    data = report.load(folder)
    assert data["deal"].map(type).eq(int).all()  # exact game numbers, also past 2^64
    assert data["deal"].tolist() == sorted(row["deal"] for row in rows if not row["ms"]) + \
        sorted(row["deal"] for row in rows if row["ms"])
    result = report.build_report(data, str(folder), read_manifest(str(folder)))
    check_report(result, rows)
    assert result.duplicates == 0
    assert result.manifest == {key: value for key, value in manifest_for(rows).items() if key in SHOWN}
    assert result.against_manifest.matches


def test_both_formats_report_the_same(dataset, dataset_v1):
    by_format = [json.loads(run_cli(folder, "--format", "json").stdout) for folder in (dataset, dataset_v1)]
    assert {**by_format[0], "source": None} == {**by_format[1], "source": None}


def test_ordinary_deals_load_as_int64(tmp_path, rows):
    """Without numbers past int64 the loaded column is int64 (numpy speed), from either format."""
    rows = [row for row in rows if row["deal"] < 2**63]
    for results_format in (2, 1):
        data = report.load(write_arrow(tmp_path / f"f{results_format}", rows, results_format=results_format))
        assert data["deal"].dtype == "int64"
        check_report(report.build_report(data, "ordinary"), rows)


def test_single_part_file_is_a_dataset(tmp_path, rows):
    write_arrow(tmp_path, rows, parts=1)
    check_report(report.build_report(report.load(tmp_path / "part-00000.parquet"), "one file"), rows)


@pytest.mark.parametrize("deal_column", ["int64", "decimal objects"])
def test_dataset_built_in_a_notebook_with_plain_pandas(tmp_path, deal_column):
    rows = make_rows(count=120, seed=3)
    frame = pd.DataFrame(rows).drop(columns=["solution"])
    if deal_column == "int64":  # no ms column, small numbers: the simplest notebook dataset
        rows = [{**row, "ms": False} for row in rows if not row["ms"] and row["deal"] < 2**63]
        frame = pd.DataFrame(rows).drop(columns=["solution", "ms"])
        assert frame["deal"].dtype == "int64"
    else:
        frame["deal"] = [Decimal(number) for number in frame["deal"]]
    assert frame["outcome"].map(type).eq(str).all()  # plain strings, not a dictionary column
    frame.to_parquet(tmp_path / "notebook.parquet")
    check_report(report.build_report(report.load(tmp_path), "notebook"), rows)


def test_dataset_saved_from_a_pyarrow_backed_frame(tmp_path, rows):
    """README reads with dtype_backend="pyarrow"; such a frame saved back carries pandas metadata naming
    types like dictionary<...>[pyarrow], which pandas cannot rebuild: the columns alone are the dataset."""
    write_arrow(tmp_path / "run", rows)
    pd.read_parquet(tmp_path / "run", dtype_backend="pyarrow").to_parquet(tmp_path / "frame.parquet")
    check_report(report.build_report(report.load(tmp_path / "frame.parquet"), "pyarrow frame"), rows)


def test_duplicate_rows_are_counted_and_each_deal_once(tmp_path, rows):
    """A dataset listing every deal twice (a notebook's concat of one frame with itself) holds the same
    deals: its figures are the single copy's, the solvable share's interval no narrower, and it warns."""
    write_arrow(tmp_path / "a", rows, parts=1)
    (tmp_path / "a" / "part-00000.parquet").rename(tmp_path / "a" / "first.parquet")
    write_arrow(tmp_path / "a", rows, parts=1)
    twice = report.build_report(report.load(tmp_path / "a"), "twice")
    assert twice.duplicates == len(rows)
    check_report(twice, rows)


def test_wilson_interval_edge_cases():
    assert report.Proportion.of(0, 0) is None
    none_solved = report.Proportion.of(0, 10)
    z = statistics.NormalDist().inv_cdf(0.975)
    assert none_solved.low == pytest.approx(0, abs=1e-15)
    assert none_solved.high == pytest.approx(z * z / (10 + z * z))
    assert report.Z95 == pytest.approx(z, rel=1e-15)


def test_peer_reference_counts(tmp_path):
    """The peer solver's 1..1000 verdicts, made into a dataset: counts must be the CSV's own."""
    with require_reference("peer_1_1000.csv").open(newline="") as handle:
        peer = list(csv.DictReader(handle))
    rows = [{"deal": int(row["deal"]), "ms": False, "outcome": row["outcome"],
             "iterations": int(row["iterations"]), "cards_played": int(row["max_played"]),
             "solution": None, "seconds": 0.0} for row in peer]
    write_arrow(tmp_path, rows, parts=2)
    result = report.build_report(report.load(tmp_path), "peer")
    assert result.outcomes == {"solved": 1000 - 123, "unsolved": 123, "intractable": 0}
    assert result.outcomes == {outcome: sum(row["outcome"] == outcome for row in peer) for outcome in OUTCOMES}
    assert result.no_first_move == sum(row["max_played"] == "0" for row in peer)
    check_report(result, rows)

    the_csv = report.load(require_reference("peer_1_1000.csv"), required=report.VERDICTS)
    same = report.compare(report.load(tmp_path), the_csv, result, report.build_report(the_csv, "csv"))
    assert (same.common, same.verdicts_differ, same.cards_played_differ) == (1000, [], [])


def test_cli_text_format(dataset, rows):
    done = run_cli(dataset)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert max(map(len, text.splitlines())) <= 80  # a standard terminal, notes wrapped between words
    flat = " ".join(text.split())
    assert f"{len(rows):,} deals" in text
    assert "95% Wilson score interval" in flat and "linear interpolation" in flat
    table = text.split("Cards played by unsolvable deals")[1].split("\n\n")[0]
    binned = [line.split() for line in table.splitlines() if re.match(r"^\d+(-\d+)?\s", line)]
    assert sum(int(row[1].replace(",", "")) for row in binned) == sum(row["outcome"] == "unsolved" for row in rows)
    assert "Hardest deals" in text and "Cards played by unsolvable deals" in text
    for setting in (r"search\s+fast", r"version\s+0\.1\.0", r"machine\s+cpu=test, cores=2"):
        assert re.search(f"^{setting}$", text, re.MULTILINE), setting
    assert "hidden" not in text and "warning" not in text


def test_cli_json_format(dataset, rows):
    done = run_cli(dataset, "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["outcomes"] == {outcome: sum(row["outcome"] == outcome for row in rows) for outcome in OUTCOMES}
    assert data["last_deal"] == "ms" + str(max(row["deal"] for row in rows if row["ms"]))
    assert data["iterations"]["solved"]["count"] == data["outcomes"]["solved"]
    assert data["manifest"]["search"] == "fast"


def test_cli_markdown_and_plots(dataset, tmp_path):
    image = pytest.importorskip("matplotlib.image", reason="plots need the 'plots' extra")
    done = run_cli(dataset, "--format", "markdown", "--plots", tmp_path / "plots")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("# Black Hole report")
    assert "| outcome | deals | percent |" in lines and "|:---|---:|---:|" in lines
    pngs = sorted((tmp_path / "plots").glob("*.png"))
    assert [png.name for png in pngs] == ["cards_played.png", "iterations.png", "solvable_fraction.png"]
    for png in pngs:
        assert png.read_bytes().startswith(PNG_SIGNATURE)
        height, width, _ = image.imread(png).shape
        assert height > 100 and width > 100
        assert f"wrote {png}" in done.stderr


def test_plots_of_a_dataset_listing_each_deal_twice_are_the_single_copys(rows, tmp_path):
    pytest.importorskip("matplotlib", reason="plots need the 'plots' extra")
    for name, listed in (("once", rows), ("twice", rows + rows)):
        done = run_cli(write_arrow(tmp_path / name, listed), "--plots", tmp_path / f"{name}-plots")
        assert done.returncode == 0, done.stderr
    for png in (tmp_path / "once-plots").glob("*.png"):
        assert png.read_bytes() == (tmp_path / "twice-plots" / png.name).read_bytes(), png.name


def test_plots_skip_charts_without_data(tmp_path):
    pytest.importorskip("matplotlib", reason="plots need the 'plots' extra")
    rows = [row for row in make_rows(count=50) if row["outcome"] == "solved"]
    write_arrow(tmp_path / "run", rows, parts=1)
    written, removed = write_plots(report.load(tmp_path / "run"), tmp_path / "plots")
    assert [path.name for path in written] == ["iterations.png", "solvable_fraction.png"] and removed == []


def test_plots_without_matplotlib_say_how_to_install(monkeypatch, tmp_path, dataset):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(PlotsUnavailable, match=r"pip install 'blackhole-stats\[plots\]'"):
        write_plots(report.load(dataset), tmp_path / "plots")
    assert not (tmp_path / "plots").exists()


def test_plots_with_a_backend_matplotlib_refuses_are_one_line(dataset, tmp_path):
    """An unknown MPLBACKEND made matplotlib's import raise ValueError: a traceback, and no report."""
    pytest.importorskip("matplotlib", reason="plots need the 'plots' extra")
    result = cli("report", dataset, "--plots", tmp_path / "plots", env={"MPLBACKEND": "no-such-backend"})
    line = assert_one_line_failure(result, 1)
    assert line == "Error: matplotlib cannot start: Key backend: 'no-such-backend' is not a valid value for backend\n"
    assert not (tmp_path / "plots").exists()


def test_plots_refused_by_a_full_disk_leave_no_empty_folder(dataset, tmp_path):
    """A plots folder the command made is taken away again when not one chart fit in it."""
    pytest.importorskip("matplotlib", reason="plots need the 'plots' extra")
    with tmpfs(tmp_path / "mnt", size="64k") as mount:
        fill_up(mount)
        done = run_cli(dataset, "--plots", mount / "plots")
        assert (done.returncode, done.stdout) == (1, "")
        assert done.stderr == f"Error: cannot write the plots to {mount / 'plots'}: No space left on device\n"
        assert sorted(path.name for path in mount.iterdir()) == ["filler"]


def test_plots_replace_the_old_charts_all_at_once_or_not_at_all(dataset, rows, tmp_path):
    """The disk filled after the first chart of a new report was drawn: the folder held that chart beside
    the old report's others, a mix of two datasets' charts (exit 1). Now every chart stays the old one."""
    pytest.importorskip("matplotlib", reason="plots need the 'plots' extra")
    other = write_arrow(tmp_path / "other", [row for row in rows if row["outcome"] != "intractable"][:60], parts=1)
    with tmpfs(tmp_path / "mnt", size="2m") as mount:
        plots = mount / "plots"
        assert run_cli(dataset, "--plots", plots).returncode == 0
        before = {path.name: path.read_bytes() for path in plots.iterdir()}
        assert len(before) == 3
        done = signal_at_pause(tmp_path, [CLI, "report", other, "--plots", plots], "plot-drawn",
                               lambda pid: None, inspect=lambda pid: fill_up(mount), release=True)
        assert (done.returncode, done.stdout) == (1, "")
        assert done.stderr == f"Error: cannot write the plots to {plots}: No space left on device\n"
        assert {path.name: path.read_bytes() for path in plots.iterdir()} == before
        assert sorted(path.name for path in mount.iterdir()) == ["filler", "plots"]


def test_ctrl_c_while_the_charts_are_renamed_says_they_were_replaced(dataset, rows, tmp_path):
    """Ctrl-C during the renames waits for them to finish (no mix of two reports' charts), and then said
    only "interrupted", as if the old charts still stood: it says the charts are the new report's."""
    pytest.importorskip("matplotlib", reason="plots need the 'plots' extra")
    plots, fresh = tmp_path / "plots", tmp_path / "fresh"
    other = write_arrow(tmp_path / "other", [row for row in rows if row["outcome"] != "intractable"][:60], parts=1)
    assert run_cli(dataset, "--plots", plots).returncode == 0
    assert run_cli(other, "--plots", fresh).returncode == 0
    done = signal_at_pause(tmp_path, [CLI, "report", other, "--plots", plots], "plots-replacing",
                           lambda pid: os.killpg(pid, signal.SIGINT), release=True)
    assert (done.returncode, done.stdout) == (-signal.SIGINT, "")  # it dies of the signal, as the shell shows
    assert done.stderr == f"interrupted after the charts in {plots} were replaced\n"
    assert {path.name: path.read_bytes() for path in plots.iterdir()} == \
        {path.name: path.read_bytes() for path in fresh.iterdir()}


def test_the_private_folder_of_a_report_killed_outright_goes_with_a_later_report(dataset, tmp_path):
    """kill -9 while a chart was drawn left its hidden `.NAME.*.partial` folder, which every later report
    left there too: a writer of that chart removes it once it has lain a day untouched; not a fresh one (a
    writer may be at work), not one holding an old folder set aside, not one of a name it never makes."""
    pytest.importorskip("matplotlib", reason="plots need the 'plots' extra")
    plots = tmp_path / "plots"
    killed = signal_at_pause(tmp_path, [CLI, "report", dataset, "--plots", plots], "plot-drawn",
                             lambda pid: os.kill(pid, signal.SIGKILL))
    assert killed.returncode == -signal.SIGKILL
    left = list(plots.glob(".iterations.png.*.partial"))
    assert len(left) == 1
    kept = {name: plots / f".iterations.png.{name}.partial" for name in ("fresh001", "aside001", "my-notes")}
    for folder in kept.values():
        folder.mkdir()
    (kept["aside001"] / "previous").mkdir()
    a_day_ago = time.time() - 24 * 3600 - 60
    for folder in [*left, kept["aside001"], kept["my-notes"]]:
        os.utime(folder, (a_day_ago, a_day_ago))
    assert run_cli(dataset, "--plots", plots).returncode == 0
    assert sorted(plots.glob(".*.partial")) == sorted(kept.values())


def test_plots_refuse_a_folder_named_as_a_chart_before_replacing_any(dataset, rows, tmp_path):
    """A folder where a chart goes failed that chart's rename once the others were in: a mix, exit 1."""
    pytest.importorskip("matplotlib", reason="plots need the 'plots' extra")
    plots = tmp_path / "plots"
    assert run_cli(dataset, "--plots", plots).returncode == 0
    (plots / "iterations.png").unlink()
    (plots / "iterations.png").mkdir()
    before = {path.name: path.read_bytes() for path in plots.iterdir() if path.is_file()}
    other = write_arrow(tmp_path / "other", [row for row in rows if row["outcome"] != "intractable"][:60], parts=1)
    done = run_cli(other, "--plots", plots)
    assert (done.returncode, done.stderr) == (
        1, f"Error: cannot write the plots to {plots}: a chart's name is taken by a folder\n")
    assert {path.name: path.read_bytes() for path in plots.iterdir() if path.is_file()} == before


def test_plots_refuse_a_chart_name_that_links_elsewhere(dataset, rows, tmp_path):
    """A chart named by a link to a run's part file: the chart was written through the link, and the run's
    dataset lost that part (a hostile tester); the `--plots DIR` inside a dataset check did not see it."""
    pytest.importorskip("matplotlib", reason="plots need the 'plots' extra")
    part = sorted(dataset.glob("*.parquet"))[0]
    kept = part.read_bytes()
    plots = tmp_path / "plots"
    plots.mkdir()
    (plots / "iterations.png").symlink_to(part)
    done = run_cli(dataset, "--plots", plots)
    assert (done.returncode, done.stderr) == (
        1, f"Error: cannot write the plots to {plots}: iterations.png there is a link (to {part}), which a chart "
           "would be written through: remove it\n")
    assert part.read_bytes() == kept and sorted(path.name for path in plots.iterdir()) == ["iterations.png"]


def test_plots_remove_an_earlier_reports_chart_this_data_has_nothing_for(dataset, rows, tmp_path):
    """A dataset with no unsolvable deal draws no cards-played chart: the one an earlier report of other
    data left in the folder stayed, beside this dataset's two, read as this dataset's."""
    pytest.importorskip("matplotlib", reason="plots need the 'plots' extra")
    solved = write_arrow(tmp_path / "solved", [row for row in rows if row["outcome"] == "solved"][:40], parts=1)
    assert run_cli(dataset, "--plots", tmp_path / "plots").returncode == 0
    (tmp_path / "plots" / "notes.txt").write_text("mine")
    done = run_cli(solved, "--plots", tmp_path / "plots")
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in (tmp_path / "plots").iterdir()) == [
        "iterations.png", "notes.txt", "solvable_fraction.png"]
    assert done.stderr.splitlines()[-1] == (f"removed {tmp_path / 'plots' / 'cards_played.png'}: this dataset has "
                                            "nothing for it to show")


def _plots_of_solved_deals_over_an_earlier_report(dataset, rows, tmp_path) -> tuple[Path, Path, dict]:
    """A dataset with no unsolvable deal (no cards-played chart), and a plots folder an earlier report
    of all three charts left, with its charts' bytes."""
    solved = write_arrow(tmp_path / "solved", [row for row in rows if row["outcome"] == "solved"][:40], parts=1)
    plots = tmp_path / "plots"
    assert run_cli(dataset, "--plots", plots).returncode == 0
    return solved, plots, {path.name: path.read_bytes() for path in plots.iterdir()}


def test_plots_refuse_a_read_only_chart_by_name_before_changing_any(dataset, rows, tmp_path):
    """A read-only chart this dataset has nothing for was removed (while a read-only chart it draws was
    refused, without its name: 'Permission denied')."""
    pytest.importorskip("matplotlib", reason="plots need the 'plots' extra")
    solved, plots, before = _plots_of_solved_deals_over_an_earlier_report(dataset, rows, tmp_path)
    (plots / "cards_played.png").chmod(0o444)
    done = subprocess.run([*unprivileged(), CLI, "report", solved, "--plots", plots], capture_output=True,
                          timeout=120)
    assert assert_one_line_failure(done) == (f"Error: cannot write the plots to {plots}: cards_played.png there is "
                                             "read-only: make it writable, or remove it\n")
    assert {path.name: path.read_bytes() for path in plots.iterdir()} == before


def test_plots_name_the_chart_they_cannot_remove_and_leave_the_earlier_ones(dataset, rows, tmp_path):
    """In a sticky folder (as /tmp) another user's chart cannot be removed: the error said only
    'Operation not permitted', after this dataset's charts had replaced the others beside it."""
    pytest.importorskip("matplotlib", reason="plots need the 'plots' extra")
    if os.geteuid() != 0:
        pytest.skip("needs root to give the folder and the chart to another user")
    solved, plots, before = _plots_of_solved_deals_over_an_earlier_report(dataset, rows, tmp_path)
    os.chown(plots / "cards_played.png", 65534, 65534)
    (plots / "cards_played.png").chmod(0o666)  # writable by all, so removable but for the sticky bit
    os.chown(plots, 65534, 65534)
    plots.chmod(0o1777)
    done = subprocess.run([*unprivileged(), CLI, "report", solved, "--plots", plots], capture_output=True,
                          timeout=120)
    assert (done.returncode, done.stderr.decode()) == (1, (
        f"Error: cannot write the plots to {plots}: cards_played.png there, which this dataset has nothing for, "
        "cannot be removed (Operation not permitted)\n"))
    assert {path.name: path.read_bytes() for path in plots.iterdir()} == before


def test_compare_two_datasets_finds_exactly_the_changed_deals(dataset, rows, tmp_path):
    other = [dict(row) for row in rows]
    del other[5]  # only in A
    other.append({**other[0], "deal": 999_999_999, "ms": False})  # only in B
    by_outcome = {outcome: [row for row in other if row["outcome"] == outcome] for outcome in OUTCOMES}
    changes = {
        name(by_outcome["solved"][0]): "unsolved",    # contradiction
        name(by_outcome["unsolved"][0]): "solved",    # contradiction
        name(by_outcome["solved"][1]): "intractable",  # undecided, not a contradiction
    }
    played_as = {"solved": 51, "unsolved": 50, "intractable": 50}  # what each outcome can have played
    for row in other:
        if name(row) in changes:
            row["outcome"] = changes[name(row)]
            row["cards_played"] = played_as[row["outcome"]]
    closer = by_outcome["unsolved"][1]
    closer["cards_played"] = 49 if closer["cards_played"] != 49 else 48
    write_arrow(tmp_path / "other", other, parts=2)

    done = run_cli(dataset, "--compare", tmp_path / "other", "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert {row["deal"]: row["b"] for row in result["verdicts_differ"]} == changes
    assert result["contradictions"] == 2
    assert [row["deal"] for row in result["cards_played_differ"]] == [name(closer)]
    assert (result["only_a"], result["only_b"], result["common"]) == (1, 1, len(rows) - 1)
    text = run_cli(dataset, "--compare", tmp_path / "other").stdout  # a tester read the columns as the
    assert (f"each column is over its whole dataset ({len(rows):,} and {len(rows):,} deals), not over the "  # common
            f"{len(rows) - 1:,} both hold" in " ".join(text.split()))                                          # deals'


def test_compare_says_how_many_unsolved_deals_it_could_not_compare_cards_played_for(dataset, rows, tmp_path):
    """A budgeted run leaves some unsolvable deals' most cards played unknown (null): "different cards
    played: 0" left them out without a word (helper 147: 30 of 338 such deals)."""
    unsolved = [name(row) for row in rows if row["outcome"] == "unsolved"]
    unknown = set(unsolved[:3])
    other = [{**row, "cards_played": None} if name(row) in unknown else row for row in rows]
    done = run_cli(dataset, "--compare", write_arrow(tmp_path / "budgeted", other), "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["cards_played_not_compared"], result["cards_played_differ"]) == (3, [])
    text = " ".join(run_cli(dataset, "--compare", tmp_path / "budgeted").stdout.split())
    assert ("not compared: 3 deals both call unsolved, for which one side (or both) holds no cards played (null: "
            "a run's most-played search ran out of --max-iters)") in text, text
    assert "not compared" not in run_cli(dataset, "--compare", dataset).stdout
    assert json.loads(run_cli(dataset, "--compare", dataset, "--format", "json").stdout)[
        "cards_played_not_compared"] == 0


def test_compare_notes_runs_of_different_budgets(rows, tmp_path):
    """Effort side by side misleads where the budgets differ: a budget leaves deals undecided, and in the
    Golf games decides whether the heights search runs (helper 147: solved median 3,541 against 158,596
    iterations, with no note)."""
    asked = manifest_for(rows)
    sides = {budget: write_arrow(tmp_path / str(budget), rows, manifest={**asked, "max_iters": budget})
             for budget in (1_000_000, 3_000_000, None)}
    note = ("note: A and B ran under different budgets (max_iters {}): a budget can leave deals undecided, and in "
            "the Golf games it decides which search runs (README, The heights search): compare their verdicts, not "
            "their effort")
    for a, b, shown in ((1_000_000, 3_000_000, "1,000,000 and 3,000,000"), (None, 1_000_000, "none and 1,000,000")):
        text = " ".join(run_cli(sides[a], "--compare", sides[b]).stdout.split())
        assert note.format(shown) in text, text
    assert "budgets" not in run_cli(sides[None], "--compare", write_arrow(
        tmp_path / "same", rows, manifest={**asked, "max_iters": None})).stdout


def test_compare_with_another_solvers_csv(dataset, rows, tmp_path):
    """A CSV shaped like peer_1_1000.csv: plain deals only, max_played for cards played."""
    plain = [row for row in rows if not row["ms"]]
    flipped = {name(row) for row in plain if row["outcome"] != "intractable"}
    flipped = set(sorted(flipped)[:4])
    csv_path = tmp_path / "peer.csv"
    with csv_path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["deal", "outcome", "iterations", "states_generated", "iterations_rank_reach_prune",
                         "max_played"])
        for row in plain:
            outcome, played = row["outcome"], row["cards_played"]
            if name(row) in flipped:  # with the cards that verdict plays
                outcome, played = ("unsolved", 50) if outcome == "solved" else ("solved", 51)
            writer.writerow([row["deal"], outcome, row["iterations"] * 2, 0, 0, played])

    done = run_cli(dataset, "--compare", csv_path, "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert {row["deal"] for row in result["verdicts_differ"]} == flipped
    assert result["contradictions"] == len(flipped)
    assert result["cards_played_differ"] == []
    assert (result["common"], result["only_a"], result["only_b"]) == (len(plain), len(rows) - len(plain), 0)
    with csv_path.open(newline="") as handle:
        assert result["b"]["outcomes"] == {outcome: 0 for outcome in OUTCOMES} | Counter(
            row["outcome"] for row in csv.DictReader(handle))

    text = report.render(report.compare(
        report.load(dataset), report.load(csv_path, required=report.VERDICTS),
        report.build_report(report.load(dataset), "A"),
        report.build_report(report.load(csv_path, required=report.VERDICTS), "B")))
    assert f"Deals whose verdicts differ: {len(flipped)}" in text
    assert all(deal in text for deal in flipped)


def test_bad_values_are_named(tmp_path):
    frame = pd.DataFrame({"deal": [1, 2], "outcome": ["solved", "maybe"], "iterations": [1, 2],
                          "cards_played": [51, 3]})
    frame.to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(DatasetError, match="column outcome has 'maybe'"):
        report.load(tmp_path)


@pytest.mark.parametrize("column, values, shown", [
    ("iterations", pd.Series([9_300_000_000_000_000_000, 10], dtype="uint64"), "9300000000000000000"),  # past int64
    ("iterations", pd.Series([2**64 - 1, 10], dtype="uint64"), "18446744073709551615"),  # would wrap to -1
    ("iterations", [5.5, 5.0], "5.5"),  # would be cut to 5
    ("iterations", [-5, 5], "-5"),
    ("cards_played", [-3, 50], "-3"),
    ("cards_played", [53.0, 50.0], "53.0"),  # more than a deck
    ("seconds", [-1.0, 0.5], "-1.0"),
    ("seconds", [float("inf"), 0.5], "inf"),
])
def test_numbers_no_deal_can_have_are_named_not_wrapped_or_cut(tmp_path, column, values, shown):
    """Stored as int64, 2^63 and up would wrap around (the mean goes negative) and 5.5 would be cut to 5."""
    frame = pd.DataFrame({"deal": [1, 2], "outcome": ["unsolved", "unsolved"], "iterations": [7, 8],
                          "cards_played": [40, 41], "seconds": [0.1, 0.2]})
    frame[column] = values
    frame.to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(DatasetError, match=f"column {column} has {re.escape(shown)}; it must hold"):
        report.load(tmp_path)


@pytest.mark.parametrize("deal, deal_exact, digits", [("9" * 5000, "", "5,000"), ("9" * 4001 + ".0", "", "4,001"),
                                                      ("", "9" * 4500, "4,500")])
def test_game_numbers_longer_than_any_deal_are_named_not_a_traceback(tmp_path, deal, deal_exact, digits):
    """From 4,300 digits CPython refuses to convert text to int: report and export ended in a traceback,
    and below that they listed deals of more digits than `deal` takes."""
    (tmp_path / "long.csv").write_text("deal,deal_exact,outcome,iterations,cards_played\n5,,solved,1,51\n"
                                       f"{deal},{deal_exact},unsolved,3,2\n")
    for command in ("report", "export"):
        failed = run_cli(tmp_path / "long.csv", command=command)
        assert failed.returncode == 1 and failed.stderr.count("\n") == 1, failed.stderr
        assert f"row 2 has a game number of {digits} digits: more than 4000" in failed.stderr, failed.stderr
    (tmp_path / "long.csv").write_text("deal,outcome,iterations,cards_played\n5,solved,1,51\n"
                                       f"{'0' * 5000}7,unsolved,3,2\n")  # leading zeros spell deal 7
    assert sorted(report.load(tmp_path / "long.csv")["deal"]) == [5, 7]
    for spelt in ("-" + "9" * 5000, "9" * 5000 + "e0", "9" * 5000 + ".5"):  # no number: named, cut short
        (tmp_path / "long.csv").write_text(f"deal,outcome,iterations,cards_played\n{spelt},unsolved,3,2\n")
        failed = run_cli(tmp_path / "long.csv")
        assert failed.returncode == 1 and len(failed.stderr) < 400 and "characters), not a whole game number" \
            in failed.stderr, failed.stderr[:300]


@pytest.mark.parametrize("game, outcome, played, allowed", [
    ("black_hole", "unsolved", 51, "0 to 50"),   # a line that plays every card wins
    ("black_hole", "solved", 50, "only 51"),
    ("black_hole", "solved", None, "only 51"),  # a win has its line
    ("golf", "unsolved", 10, "16 to 50"),       # every line turns the 16 talon cards
    ("golf", "solved", 34, "35 to 51"),         # a win empties the 35 pile cards
    ("golf", "intractable", 10, "16 to 50"),    # the best line found counts the talon left
    ("all_in_a_row", "intractable", 52, "0 to 51"),
])
def test_cards_played_the_outcome_cannot_have_in_the_game_is_named(tmp_path, game, outcome, played, allowed):
    """By report and export alike: a list of them would be as wrong as a table."""
    frame = pd.DataFrame({"deal": [1, 2], "game": [game, game], "outcome": ["unsolved", outcome],
                          "iterations": [7, 8], "cards_played": [report.get_game(game).fewest_cards_played, played]})
    frame.to_csv(tmp_path / "bad.csv", index=False)
    shown = "no cards_played" if played is None else f"cards_played {played}"
    for command in ("report", "export"):
        failed = run_cli(tmp_path / "bad.csv", command=command)
        assert failed.returncode == 1 and failed.stderr.count("\n") == 1, failed.stderr
        assert f"deal 2 is {outcome} with {shown}, but {report.get_game(game).name} allows {allowed}" \
            in failed.stderr


@pytest.mark.parametrize("column, values, message", [
    ("ms", [2, 0], "column ms holds '2', not true or false"),
    ("ms", [0.5, 0.0], "column ms holds '0.5', not true or false"),
    ("seconds", [True, False], "column seconds is bool, not numbers"),  # no solve took 1 s
    ("seconds", pd.to_timedelta([1.5, 2.0], unit="s"), "column seconds is timedelta64"),  # not 1.5e9 s
    ("iterations", [True, False], "column iterations is bool, not numbers"),
    ("cards_played", pd.Series([True, None], dtype=object), "column cards_played is object, not numbers"),  # gaps
    ("iterations", [2.0**53, 7.0], "column iterations has 9007199254740992.0 as a float: from 2^53 up"),
    ("iterations", [1e30, 7.0], "column iterations has 1e+30 as a float"),
    ("iterations", np.array([2.0**24, 7.0], dtype="float32"), "as a float: from 2^24 up"),
])
def test_columns_of_the_wrong_kind_are_named_not_read_as_numbers(tmp_path, column, values, message):
    frame = pd.DataFrame({"deal": [1, 2], "ms": [False, False], "outcome": ["unsolved", "unsolved"],
                          "iterations": [7, 8], "cards_played": [40, 41], "seconds": [0.1, 0.2]})
    frame[column] = values
    frame.to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(DatasetError, match=re.escape(message)):
        report.load(tmp_path)


@pytest.mark.parametrize("column, value, message", [
    ("tag", "impossible", "column tag has 'impossible'; the tags are very easy, easy, medium, hard, very hard"),
    ("tag", "Hard", "column tag has 'Hard'"),
    ("difficulty", "abc", "column difficulty has non-numeric values"),
    ("difficulty", "-7", "column difficulty has -7.0; it must hold numbers from 0 to 100"),
    ("difficulty", "inf", "column difficulty has inf"),
    ("difficulty", "1e308", "column difficulty has 1e+308; it must hold numbers from 0 to 100"),
])
def test_difficulty_and_tags_no_deal_can_have_are_named_not_dropped(tmp_path, column, value, message):
    """An unknown tag or a score that is no number would otherwise become a silent gap in the tag table."""
    cells = {"difficulty": "1.5", "tag": "hard", column: value}
    (tmp_path / "tags.csv").write_text("deal,outcome,iterations,cards_played,difficulty,tag\n"
                                       f"1,solved,9,51,{cells['difficulty']},{cells['tag']}\n2,unsolved,9,40,,\n")
    with pytest.raises(DatasetError, match=re.escape(message)):
        report.load(tmp_path / "tags.csv")
    (tmp_path / "good.csv").write_text("deal,outcome,iterations,cards_played,difficulty,tag\n"
                                       "1,solved,9,51,1.5,hard\n2,unsolved,9,40,,\n")
    assert report.load(tmp_path / "good.csv")["tag"].tolist()[0] == "hard"


def test_deals_listed_both_as_n_and_as_ms_n_are_one_game_counted_once(tmp_path):
    """`--range 1-1000000,ms1-ms1000000` holds deals 1..31,999 twice, one game under two names (DEALING.md:
    PySolFC deals N below 32000 with the LCG and shows it as msN): the report counted them as two games
    without a word (a hostile tester), then with a warning (helper 138: "5 solved" beside "ms5 unsolved"
    made 50% solvable). Deal 32000 and up are other games than ms32000 and up."""
    made = run_cli("--range", "31997-32001,ms31998-ms32001,ms7", "--out", tmp_path / "run", "--workers", "1",
                   command="run")
    assert made.returncode == 0, made.stderr
    built = json.loads(run_cli(tmp_path / "run", "--format", "json").stdout)
    assert (built["deals"], built["duplicates"], built["same_game_twice"]) == (8, 2, 2)
    text = " ".join(run_cli(tmp_path / "run").stdout.split())
    assert ("warning: 2 deals are listed both as N and as msN, below 32000 one game (PySolFC deals both with the "
            "same generator and shows N as msN): counted once") in text
    assert "repeats a deal already listed" not in text  # the same rows, warned of twice (helper 140)
    assert [deal(n).layout for n in (31998, 31999)] == [deal(f"ms{n}").layout for n in (31998, 31999)]
    assert deal(32000).layout != deal("ms32000").layout


def test_n_and_ms_n_below_32000_are_one_deal_to_compare_and_to_contradict(tmp_path):
    """A run of ms1..ms40 "shared no deal" with the peer's CSV of 1..1000, and a deal solved as 5 in A and
    unsolved as ms5 in B was no difference but "only in B"; one file's "5 solved" beside "ms5 unsolved"
    was counted, 50% solvable, where "5" twice with two verdicts is refused (helper 138)."""
    peer = require_reference("peer_1_1000.csv")
    made = run_cli("--range", "ms1-ms40", "--out", tmp_path / "run", "--workers", "1", command="run")
    assert made.returncode == 0, made.stderr
    with peer.open(newline="") as handle:
        verdicts = {row["deal"]: row["outcome"] for row in csv.DictReader(handle)}
    done = json.loads(run_cli(tmp_path / "run", "--compare", peer, "--format", "json").stdout)
    assert (done["common"], done["only_a"], done["only_b"], done["verdicts_differ"]) == (40, 0, 960, [])
    assert done["a"]["outcomes"]["solved"] == sum(verdicts[str(n)] == "solved" for n in range(1, 41))

    (tmp_path / "a.csv").write_text("deal,outcome,iterations,cards_played\n5,solved,9,51\n6,unsolved,9,3\n")
    (tmp_path / "b.csv").write_text("deal,outcome,iterations,cards_played\nms5,unsolved,7,40\n"
                                    "ms32000,unsolved,7,3\n")
    done = json.loads(run_cli(tmp_path / "a.csv", "--compare", tmp_path / "b.csv", "--format", "json").stdout)
    assert (done["common"], done["only_a"], done["only_b"], done["contradictions"]) == (1, 1, 1, 1)
    assert done["verdicts_differ"] == [{"deal": "5", "a": "solved", "b": "unsolved", "a_iterations": 9,
                                        "b_iterations": 7}]
    (tmp_path / "both.csv").write_text("deal,outcome,iterations,cards_played\n5,solved,9,51\nms5,unsolved,7,40\n")
    line = assert_one_line_failure(cli("report", tmp_path / "both.csv"))
    assert "deal 5 (or ms5: one game) is listed more than once, with different results" in line, line
    (tmp_path / "plain.csv").write_text("deal,outcome,iterations,cards_played\n5,solved,9,51\n5,unsolved,7,40\n")
    line = assert_one_line_failure(cli("report", tmp_path / "plain.csv"))  # no ms5 in it (helper 140)
    assert "deal 5 is listed more than once, with different results" in line, line


def test_one_game_listed_twice_with_two_difficulty_tags_is_refused(tmp_path):
    """5 tagged "very easy" beside ms5 tagged "easy": report kept one by the rows' order, export listed the
    game under either tag (helper 140). A row without a tag beside a tagged one (runs made without and with
    --difficulty) stands: the tagged row is counted."""
    header = "deal,outcome,iterations,cards_played,difficulty,tag\n"
    (tmp_path / "two.csv").write_text(header + "5,solved,9,51,1.0,very easy\nms5,solved,9,51,2.0,easy\n")
    for command in (("report",), ("export", "--tag", "easy")):
        line = assert_one_line_failure(cli(command[0], tmp_path / "two.csv", *command[1:]))
        assert "deal 5 (or ms5: one game) is listed more than once, with different results (outcome, cards_played or "\
            "difficulty tag)" in line, line
    (tmp_path / "one.csv").write_text(header + "5,solved,9,51,,\n5,solved,9,51,1.0,very easy\n")
    assert report.build_report(report.load(tmp_path / "one.csv"), "one").difficulty["very easy"]["deals"] == 1


def test_a_game_listed_as_n_and_as_ms_n_is_counted_as_n_whichever_row_has_the_tag(tmp_path):
    """5 beside ms5 (one game), one of them tagged: the report kept the tagged row, so its ms deals and its
    first and last deal followed the tag ("1 of them ms deals, 7 .. ms5" with ms5 tagged, "0, 5 .. 7" with 5);
    the game is named 5 and keeps its tag either way."""
    header = "deal,outcome,iterations,cards_played,difficulty,tag\n"
    figures = {}
    for tagged in ("5", "ms5"):
        rows = [f"{name},solved,9,51," + ("1.0,very easy" if name == tagged else ",") for name in ("5", "ms5")]
        (tmp_path / f"{tagged}.csv").write_text(header + "\n".join([*rows, "7,unsolved,9,3,,"]) + "\n")
        done = run_cli(tmp_path / f"{tagged}.csv", "--format", "json")
        assert done.returncode == 0, done.stderr
        built = json.loads(done.stdout)
        figures[tagged] = (built["deals"], built["ms_deals"], built["first_deal"], built["last_deal"],
                           [row["deal"] for row in built["hardest"]], built["difficulty"]["very easy"]["deals"])
    assert figures["5"] == figures["ms5"] == (2, 0, "5", "7", ["5", "7"], 1), figures
    for tagged in ("5", "ms5"):  # a notebook's selection in another order (helper 144): the same
        data = report.load(tmp_path / f"{tagged}.csv")
        built = report.build_report(data.iloc[::-1], "reversed")
        assert (built.deals, built.ms_deals, built.first_deal, built.last_deal) == (2, 0, "5", "7"), built


def test_a_manifest_s_negative_zero_seconds_are_zero(tmp_path):
    """elapsed_seconds -0.0 (a hand edit, another tool's arithmetic) passes as a length of time, and the
    report showed "-0.0", for the run and for its session, in every format."""
    made = run_cli("--range", "1-3", "--out", tmp_path / "run", "--workers", "1", command="run")
    assert made.returncode == 0, made.stderr
    manifest_path = tmp_path / "run.run" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["elapsed_seconds"] = manifest["sessions"][0]["elapsed_seconds"] = -0.0
    manifest_path.write_text(json.dumps(manifest))
    for fmt in ("text", "markdown", "json"):
        shown = run_cli(tmp_path / "run", "--format", fmt).stdout
        assert "-0.0" not in shown and re.search(r"elapsed_seconds\W+0\.0", shown), shown
    built = json.loads(run_cli(tmp_path / "run", "--format", "json").stdout)["manifest"]
    assert [math.copysign(1, seconds) for seconds in (built["elapsed_seconds"],
                                                        built["sessions"][0]["elapsed_seconds"])] == [1, 1]


def test_a_difficulty_table_without_solvable_deals_shows_no_share(tmp_path):
    """Each tag held "0.0%" of no solvable deals (0 of 0), where the solvable fraction says there is none
    (Black Hole deals 324 and 325 cannot be won: ../shared/reference/peer_1_1000.csv)."""
    made = run_cli("--range", "324-325", "--difficulty", "--out", tmp_path / "run", "--workers", "1", command="run")
    assert made.returncode == 0, made.stderr
    built = json.loads(run_cli(tmp_path / "run", "--format", "json").stdout)
    assert built["outcomes"]["solved"] == 0 and built["difficulty"]
    assert {row["deals"] for row in built["difficulty"].values()} == {0}
    assert {row["percent"] for row in built["difficulty"].values()} == {None}
    table = run_cli(tmp_path / "run").stdout.split("Difficulty of the solvable deals", 1)[1]
    assert "0.0%" not in table and re.search(r"very hard +0 +- ", table), table


def test_a_deal_listed_with_and_without_its_tag_keeps_the_tag(tmp_path):
    """The files of a Golf run of deals 1..100 and of one of 1..20 with --difficulty, copied into one folder:
    a deal's first row by file name (`part-1-25-25` before `part-1-5-5`) was kept, and the difficulty table
    listed every deal of 1..20 under "no score"; the tagged run alone has each deal's tag."""
    for name, extra in (("plain", ["--range", "1-100"]), ("tagged", ["--range", "1-20", "--difficulty"])):
        made = run_cli(*extra, "--game", "golf", "--out", tmp_path / name, "--workers", "1", command="run")
        assert made.returncode == 0, made.stderr
    (tmp_path / "both").mkdir()
    for part in [*(tmp_path / "plain").glob("*.parquet"), *(tmp_path / "tagged").glob("*.parquet")]:
        (tmp_path / "both" / part.name).write_bytes(part.read_bytes())
    tagged = pd.read_parquet(tmp_path / "tagged")
    expected = tagged["tag"].astype(str)[tagged["tag"].notna()].value_counts()
    assert expected.sum() >= 5  # (Golf deals 1..20: nine can be won)
    built = json.loads(run_cli(tmp_path / "both", "--format", "json").stdout)
    plain = pd.read_parquet(tmp_path / "plain")
    assert built["outcomes"]["solved"] == int((plain["outcome"].astype(str) == "solved").sum())
    assert {tag: row["deals"] for tag, row in built["difficulty"].items() if row["deals"]} == {
        **expected.to_dict(), "no score": built["outcomes"]["solved"] - int(expected.sum())}


def test_readme_s_recipes_read_runs_of_one_folder_with_and_without_difficulty_as_one_table(tmp_path, monkeypatch):
    """README's recipes for several runs in one folder: DuckDB's glob refused a run made with --difficulty
    beside one made without (or, the tagged run's file second, dropped its two columns), polars' concat
    refused the mix."""
    import duckdb
    import polars as pl

    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8").split())
    query = re.search(r"in DuckDB `(read_parquet\('runs/\*/\*\.parquet'[^`]*)`", readme)[1]
    how = re.search(r'in polars `pl\.concat\(\[\.\.\.\], how="(\w+)"\)`', readme)[1]
    monkeypatch.chdir(tmp_path)
    for name, extra in (("a_tagged", ["--game", "all_in_a_row", "--difficulty"]), ("b_plain", [])):
        made = run_cli("--range", "1-12", *extra, "--out", f"runs/{name}", "--workers", "1", command="run")
        assert made.returncode == 0, made.stderr
    frames = [pd.read_parquet(f"runs/{name}") for name in ("a_tagged", "b_plain")]
    expected = pd.concat(frames).groupby("game", observed=True)["difficulty"].count().to_dict()
    assert expected == {"all_in_a_row": int((frames[0]["outcome"] == "solved").sum()), "black_hole": 0} \
        and expected["all_in_a_row"] > 0
    counted = duckdb.sql(f"select game, count(*), count(difficulty) from {query} group by 1").fetchall()
    assert {game: (rows, scored) for game, rows, scored in counted} == {
        game: (12, scored) for game, scored in expected.items()}
    together = pl.concat([pl.read_parquet(f"runs/{name}") for name in ("b_plain", "a_tagged")], how=how)
    assert together.height == 24 and together["difficulty"].count() == expected["all_in_a_row"]


@pytest.mark.parametrize("rows, message", [
    ("1,solved,9,51,1.5,hard\n2,unsolved,9,40,0.0,\n", "deal 2 is unsolved, but has a difficulty score or tag"),
    ("1,solved,9,51,1.5,hard\n2,unsolved,9,40,,very hard\n", "deal 2 is unsolved, but has a difficulty score or tag"),
    ("1,solved,9,51,1.5,\n2,unsolved,9,40,,\n", "deal 1 is solved, with a difficulty score but no tag"),
    ("1,solved,9,51,NaN,hard\n2,unsolved,9,40,,\n", "deal 1 is solved, with a tag but no difficulty score (null, or "
                                                    "NaN)"),  # said "a score or a tag but not both" (helper 138)
])
def test_scores_and_tags_the_run_never_writes_are_refused(tmp_path, rows, message):
    """A run scores solved deals only, score and tag together: a tag on an unsolved deal was counted by
    pandas' groupby and not by report's table, a score alone was listed under "no score"."""
    (tmp_path / "tags.csv").write_text("deal,outcome,iterations,cards_played,difficulty,tag\n" + rows)
    with pytest.raises(DatasetError, match=re.escape(message)):
        report.load(tmp_path / "tags.csv")


def test_a_negative_zero_is_zero(tmp_path):
    """-0.0 seconds were shown as "-0.000", and an ms flag of -0.0 was "not true or false" where 0.0 is false
    (helper 138)."""
    (tmp_path / "z.csv").write_text("deal,ms,outcome,iterations,cards_played,seconds\n5,-0.0,solved,63,51,-0.0\n"
                                    "6,-0,solved,157,51,0.1\n7,false,solved,63,51,0.1\n")
    loaded = report.load(tmp_path / "z.csv")
    assert loaded["ms"].tolist() == [False] * 3 and math.copysign(1, loaded["seconds"].iloc[0]) == 1
    assert "-0.000" not in run_cli(tmp_path / "z.csv").stdout
    assert report.row_game_number(5, -0.0) == report.row_game_number(5, False)


def test_a_null_ms_flag_is_refused_not_read_as_an_ordinary_deal(tmp_path):
    frame = pd.DataFrame({"deal": [1, 2], "ms": pd.array([False, None], dtype="boolean"),
                          "outcome": ["unsolved", "unsolved"], "iterations": [7, 8], "cards_played": [40, 41]})
    frame.to_parquet(tmp_path / "na.parquet")
    for command in ("report", "export"):
        line = assert_one_line_failure(cli(command, tmp_path / "na.parquet"))
        assert "deal 2 has a null ms flag; it must be true or false" in line, line
    spelt = frame.assign(deal=["ms5", "2"])  # deals as export spells them, read through another path
    spelt.to_parquet(tmp_path / "spelt.parquet")
    line = assert_one_line_failure(cli("report", tmp_path / "spelt.parquet"))
    assert "deal 2 has a null ms flag; it must be true or false" in line, line
    (tmp_path / "blank.csv").write_text("deal,ms,outcome,iterations,cards_played\n1,,unsolved,7,40\n")
    assert report.load(tmp_path / "blank.csv")["ms"].tolist() == [False]  # an empty cell: an ordinary deal
    (tmp_path / "mixed").mkdir()  # a file without the column beside one with it: ordinary deals, not nulls
    frame.drop(columns="ms").to_parquet(tmp_path / "mixed" / "a.parquet")
    frame.assign(deal=[3, 4], ms=[False, True]).to_parquet(tmp_path / "mixed" / "b.parquet")
    assert report.load(tmp_path / "mixed")["ms"].tolist() == [False, False, False, True]


def test_a_run_s_chunk_file_whose_ms_flag_became_text_is_read_as_any_file_s(tmp_path):
    """A chunk file's `ms` rewritten as text (a pandas or CSV round trip): its name was checked with any
    text read as true, so "False" made deals 1-20 "ms1-ms20" (refused), and let ms32000-ms32019 through as
    ordinary deals 32000-32019, other boards, which export listed as winnable (helper 138)."""
    from blackhole_stats.runner import run

    for deals, ordinary in (("1-20", True), ("ms32000-ms32019", False)):
        out = tmp_path / deals
        run(str(out), deals, workers=1, chunk_size=20)
        (part,) = out.glob("part-*.parquet")
        table = pq.read_table(part)
        flags = pa.array(["False"] * table.num_rows)
        pq.write_table(table.set_column(table.schema.get_field_index("ms"), "ms", flags), part)
        for command in ("report", "export"):
            result = cli(command, out)
            if ordinary:
                assert result.returncode == 0, result.stderr
            else:
                line = assert_one_line_failure(result)
                assert f"{part} holds deals 32000-32019, not what its name says" in line, line
    assert report.load(tmp_path / "1-20")["ms"].tolist() == [False] * 20


@pytest.mark.parametrize("name, kind", [("list.json", "a JSON file"), ("rows.csv.gz", "a compressed file")])
def test_files_of_a_kind_no_dataset_is_read_from_are_named(tmp_path, name, kind):
    """export's JSON fed back to report was "not a readable Parquet file (magic bytes not found)"."""
    (tmp_path / name).write_bytes(b'[{"deal": "1"}]')
    line = assert_one_line_failure(cli("report", tmp_path / name))
    assert f"{name}: {kind}; datasets are read from Parquet or CSV files" in line, line


def test_ms_numbers_past_the_last_ms_deal_are_no_game_numbers(tmp_path):
    (tmp_path / "ms.csv").write_text("deal,outcome,iterations,cards_played\nms8589934592,unsolved,9,3\n")
    for command in ("report", "export"):
        failed = run_cli(tmp_path / "ms.csv", command=command)
        assert "invalid game number ms8589934592: ms numbers go up to 8589934591" in failed.stderr
        assert failed.returncode == 1 and failed.stderr.count("\n") == 1, failed.stderr


def test_the_last_values_a_deal_can_have_are_read(tmp_path):
    """The bounds are inclusive: the last ms deal, int64's last count, a win's 51 cards."""
    (tmp_path / "edge.csv").write_text("deal,outcome,iterations,cards_played,seconds\n"
                                       f"ms8589934591,unsolved,{2**63 - 1},50,0\n2,solved,0,51,0.5\n")
    data = report.load(tmp_path / "edge.csv")
    assert data["iterations"].max() == 2**63 - 1 and data["deal"].max() == 8589934591
    assert report.build_report(data, "edge").deals == 2


def test_counts_near_int64s_end_give_their_true_mean(tmp_path):
    """int64's sum wrapped around: a mean of -0.333 (the counts are floats past 2^53, so the nearest float)."""
    counts = [2**62, 2**62, 2**63 - 1]
    (tmp_path / "big.csv").write_text("deal,outcome,iterations,cards_played\n"
                                      + "".join(f"{n},solved,{count},51\n" for n, count in enumerate(counts, 1)))
    solved = report.build_report(report.load(tmp_path / "big.csv"), "big").iterations["solved"]
    assert solved.mean == sum(counts) / len(counts) and (solved.min, solved.max) == (2**62, 2**63 - 1)


def test_report_and_export_take_game_for_a_file_that_names_none_beside_files_that_do(tmp_path):
    """README: `--game G` names a file without a game column; beside a file that names golf, such a file was
    read as Black Hole's, and the folder refused as one that "mixes games (golf: 3 rows, black_hole: 2 rows)"."""
    rows = pd.DataFrame([Solver().solve_deal(n, game="golf") for n in range(1, 6)])
    (tmp_path / "mixed").mkdir()
    rows.iloc[:3].to_parquet(tmp_path / "mixed" / "named.parquet")
    rows.iloc[3:].drop(columns="game").to_parquet(tmp_path / "mixed" / "unnamed.parquet")
    for command in ("report", "export"):
        done = run_cli(tmp_path / "mixed", "--game", "golf", "--format", "json", command=command)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        listed = json.loads(done.stdout)
        deals = listed["deals"] if command == "report" else len(listed)
        assert deals == 5 and (listed["game"] if command == "report" else {row["game"] for row in listed}) in (
            "golf", {"golf"})
    refused = run_cli(tmp_path / "mixed")  # said nothing: the file without its game is Black Hole's
    assert "mixes games (golf: 3 rows, black_hole: 2 rows)" in refused.stderr and refused.returncode == 1
    (tmp_path / "golf").mkdir()  # as the --compare side, without --compare-game, it is of A's game
    rows.to_parquet(tmp_path / "golf" / "all.parquet")
    compared = run_cli(tmp_path / "golf", "--compare", tmp_path / "mixed", "--format", "json")
    assert compared.returncode == 0 and compared.stderr == "", compared.stderr


def test_the_first_bad_row_is_named_whatever_its_outcome(tmp_path):
    (tmp_path / "two.csv").write_text("deal,outcome,iterations,cards_played\n"
                                      "1,unsolved,9,51\n2,solved,9,51\n5,solved,9,40\n")
    with pytest.raises(DatasetError, match="deal 1 is unsolved with cards_played 51, but Black Hole allows 0 to 50"):
        report.build_report(report.load(tmp_path / "two.csv"), "two")
    with pytest.raises(DatasetError, match="deal 5 is solved with cards_played 40, but Black Hole allows only 51"):
        report.build_report(report.load(tmp_path / "two.csv").iloc[1:], "two")


def test_a_report_of_a_game_given_checks_the_rows_against_it():
    """Black Hole rows told to be Golf's: unsolvable deals that played fewer than Golf's 16 talon cards."""
    peer = report.load(require_reference("peer_1_1000.csv"), required=report.VERDICTS)
    with pytest.raises(DatasetError, match="but Golf allows 16 to 50"):
        report.build_report(peer, "peer", None, report.get_game("golf"))


def _bad_inputs(root: Path) -> dict[str, list]:
    good = write_arrow(root / "good", make_rows(count=20), parts=1)
    no_iterations = root / "no_iterations"
    no_iterations.mkdir()
    pq.write_table(pa.table({"deal": [1], "outcome": ["solved"], "cards_played": [51]}),
                   no_iterations / "part.parquet")
    (root / "empty").mkdir()
    (root / "corrupt").mkdir()
    (root / "corrupt" / "part.parquet").write_bytes(b"not parquet at all")
    (root / "binary.csv").write_bytes(b"\xff\xfe\x00garbage\x00\xff")
    bad_manifest = write_arrow(root / "bad_manifest", make_rows(count=20), parts=1, manifest={})
    (root / "bad_manifest.run" / "manifest.json").write_text("{not json", encoding="utf-8")
    bad_old_manifest = write_arrow(root / "bad_old", make_rows(count=20), parts=1, manifest={}, results_format=1)
    (bad_old_manifest / "_manifest.json").write_text("[]", encoding="utf-8")
    return {
        "missing": [root / "nowhere"],
        "no parquet files": [root / "empty"],
        "missing column": [no_iterations],
        "corrupt parquet": [root / "corrupt"],
        "unreadable csv": [good, "--compare", root / "binary.csv"],
        "bad manifest": [bad_manifest],
        "bad manifest of 0.1.0": [bad_old_manifest],
        "plots inside the dataset": [good, "--plots", good / "plots"],
        "plots where no directory can be": [good, "--plots", root / "binary.csv" / "plots"],
    }


def test_bad_input_is_one_line_and_fails(tmp_path):
    for case, args in _bad_inputs(tmp_path).items():
        done = run_cli(*args)
        assert done.returncode != 0, case
        assert done.stdout == "", case
        assert len(done.stderr.strip().splitlines()) == 1, (case, done.stderr)
        assert done.stderr.startswith("Error: ") and "Errno" not in done.stderr, (case, done.stderr)


def test_report_says_when_the_dataset_is_not_what_its_manifest_asks_for(tmp_path, rows):
    """Fewer deals (one asked for, never written), more (a row not asked for), repeated (a copy)."""
    asked = manifest_for(rows)
    asked["deals"], asked["total_deals"] = asked["deals"] + ["999999999"], asked["total_deals"] + 1
    held = rows + [{**rows[0], "deal": 123456789, "ms": False}, rows[1]]
    folder = write_arrow(tmp_path / "run", held, manifest=asked)
    done = run_cli(folder, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["against_manifest"] == {
        "asked": len(rows) + 1, "rows": len(rows) + 2, "missing": 1, "not_asked_for": 1, "repeated": 1,
        "strays": [], "other_settings": [], "being_written": False, "unfinished": [], "mistagged": 0}
    text = " ".join(run_cli(folder).stdout.split())  # one warning, wrapped to 80 columns
    assert (f"warning: the manifest asks for {len(rows) + 1:,} deals, the dataset has {len(rows) + 2:,} rows: "
            "1 missing, 1 not asked for, 1 repeated") in text
    markdown = run_cli(folder, "--format", "markdown").stdout
    assert "- warning: the manifest asks for" in markdown


def test_a_deal_listed_twice_with_different_results_is_refused(tmp_path, rows):
    """Which of the two stands is no guess to make: a report, and a comparison (which matched one of
    them and said nothing differed), refuse it in one line; a repeat that agrees is only warned of."""
    flipped = {**rows[1], "outcome": "unsolved" if rows[1]["outcome"] == "solved" else "solved"}
    flipped["cards_played"] = 3 if flipped["outcome"] == "unsolved" else 51  # a Black Hole win plays 51
    torn = write_arrow(tmp_path / "torn", rows + [flipped])
    whole = write_arrow(tmp_path / "whole", rows)
    for args in ((torn,), (whole, "--compare", torn), (torn, "--compare", whole)):
        done = run_cli(*args)
        assert done.returncode == 1 and done.stdout == "", done.stdout
        assert done.stderr == (f"Error: {torn}: deal {rows[1]['deal']} is listed more than once, with different "
                               "results (outcome, cards_played or difficulty tag)\n"), done.stderr
    agreeing = run_cli(write_arrow(tmp_path / "twice", rows + [rows[1]]), "--compare", whole)
    assert agreeing.returncode == 0 and "1 row repeats a deal already listed (counted once)\n" in agreeing.stdout


def test_a_repeat_with_other_iterations_is_counted_once_and_said_so(tmp_path, rows):
    """The same verdict with another count (a run of other settings, a copy edited): the effort figures are
    the row counted's alone, under a warning that said only "counted once"."""
    costlier = write_arrow(tmp_path / "costlier", rows + [{**rows[1], "iterations": rows[1]["iterations"] * 1000}])
    result = report.build_report(report.load(costlier), "costlier")
    assert (result.duplicates, result.duplicates_of_other_effort) == (1, 1)
    outcome = rows[1]["outcome"]  # the figures are the rows' own, the repeat's count in none of them
    assert result.iterations[outcome].mean == pytest.approx(
        statistics.mean(row["iterations"] for row in rows if row["outcome"] == outcome), rel=1e-12)
    text = " ".join(run_cli(costlier).stdout.split())
    assert ("warning: 1 row repeats a deal already listed (counted once; it has other iterations than the row "
            "counted: the first listed, in the file whose name sorts first)") in text


@pytest.mark.parametrize("short_side", ["A", "B"])
def test_a_comparison_warns_for_each_side_that_is_not_what_its_manifest_asks_for(tmp_path, rows, short_side):
    """The warning of a plain report, on whichever side of --compare falls short, and only there."""
    asked = manifest_for(rows)
    short = write_arrow(tmp_path / "short", rows, manifest={**asked, "deals": asked["deals"] + ["999999999"],
                                                                "total_deals": asked["total_deals"] + 1})
    whole = write_arrow(tmp_path / "whole", rows, manifest=asked)
    sides = (short, whole) if short_side == "A" else (whole, short)
    for fmt in ("text", "markdown"):
        done = run_cli(sides[0], "--compare", sides[1], "--format", fmt)
        assert done.returncode == 0, done.stderr
        text = " ".join(done.stdout.split())
        assert (f"{short_side}: warning: the manifest asks for {len(rows) + 1:,} deals, the dataset has "
                f"{len(rows):,} rows: 1 missing, 0 not asked for, 0 repeated") in text, text
        assert text.count("warning") == 1, text


def test_no_manifest_no_comparison(tmp_path, rows):
    done = run_cli(write_arrow(tmp_path / "plain", rows), "--format", "json")
    assert json.loads(done.stdout)["against_manifest"] is None
    assert "warning" not in run_cli(tmp_path / "plain").stdout


def test_file_urls_read_like_paths(dataset):
    by_url, by_path = (run_cli(source, "--format", "json") for source in (f"file://{dataset}", dataset))
    assert by_url.returncode == 0, by_url.stderr
    assert {**json.loads(by_url.stdout), "source": None} == {**json.loads(by_path.stdout), "source": None}


@pytest.mark.parametrize("name, solved, unsolved", [
    ("deals.parquet", 869_413, 130_587),  # the 2010 study's counts, quoted in results/README.md
    ("classic_deals.parquet", 8_679, 1_321),  # deals 1..10,000 (fast gives the same verdicts)
])
def test_committed_results_stay_readable(name, solved, unsolved):
    done = run_cli(Path(__file__).parents[1] / "results" / name, "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["outcomes"] == {"solved": solved, "unsolved": unsolved, "intractable": 0}
    assert (data["first_deal"], data["last_deal"], data["duplicates"]) == ("1", str(solved + unsolved), 0)


def test_compare_a_dataset_with_numbers_past_int64_and_an_ordinary_one(dataset, rows, tmp_path):
    """int64 deals on one side, Python ints on the other: the deals still match by number."""
    ordinary = [row for row in rows if row["deal"] < 2**63]
    other = write_arrow(tmp_path / "ordinary", ordinary, parts=2)
    assert report.load(other)["deal"].dtype == "int64" and report.load(dataset)["deal"].dtype == object
    done = run_cli(dataset, "--compare", other, "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["common"], result["only_a"], result["only_b"]) == (len(ordinary), len(rows) - len(ordinary), 0)
    assert result["verdicts_differ"] == []


def test_unsolved_deals_whose_cards_played_was_not_determined(tmp_path):
    """`run --max-iters 50` proves deal 34 unsolvable without finding its best line: counted, not refused."""
    out = tmp_path / "run"
    made = cli("run", "--range", "30-40", "--max-iters", "50", "--out", out, "--workers", "1")
    assert made.returncode == 0, made.stderr.decode()
    table = pq.read_table(out).to_pylist()  # what the run wrote, read without the package
    unknown = sum(row["outcome"] == "unsolved" and row["cards_played"] is None for row in table)
    assert any(row["deal"] == 34 and row["cards_played"] is None for row in table)
    data = json.loads(run_cli(out, "--format", "json").stdout)
    assert data["cards_played_unknown"] == unknown
    assert sum(data["cards_played"].values()) + unknown == data["outcomes"]["unsolved"]
    assert data["cards_played"] == {str(cards): n for cards, n in sorted(Counter(
        row["cards_played"] for row in table if row["outcome"] == "unsolved" and row["cards_played"] is not None
    ).items())}
    text = run_cli(out).stdout
    assert re.search(rf"^not determined\s+{unknown}\s+", text, re.MULTILINE), text


@pytest.mark.parametrize("name", ["deals.parquet", "classic_deals.parquet"])
def test_committed_results_in_format_1_report_the_same(name, tmp_path):
    """results/ (format 2) with `deal` as 0.1.0 stored it, decimal128(38, 0): the same report, number for number."""
    source = Path(__file__).parents[1] / "results" / name
    table = pq.read_table(source)
    assert table.schema.field("deal").type == pa.int64()
    old_type = pa.decimal128(38, 0)
    index = table.schema.get_field_index("deal")
    pq.write_table(table.set_column(index, pa.field("deal", old_type), table["deal"].cast(old_type)).drop_columns(
        ["game"]), tmp_path / name)  # (0.1.0 wrote no game column)
    old, new = (json.loads(run_cli(path, "--format", "json").stdout) for path in (tmp_path / name, source))
    assert {**old, "source": None} == {**new, "source": None}


def test_tables_spell_ms_and_deals_as_they_will_and_are_read_exactly(tmp_path):
    """What notebooks and databases write: psql's t/f for ms, pandas' empty deal with deal_exact,
    export's 'ms5' kept as text in Parquet; text that is no flag or no decimal number is refused."""
    spelt = tmp_path / "spelt.csv"
    spelt.write_text("deal,ms,outcome\n5,f,solved\n6,t,solved\n7,,unsolved\n8, No ,solved\n")
    data = report.load(spelt, required=report.VERDICTS)
    assert list(zip(data["deal"].tolist(), data["ms"].tolist())) == [(5, False), (7, False), (8, False), (6, True)]
    wide = tmp_path / "wide.csv"  # pd.read_parquet(run).to_csv(): deal empty where deal_exact holds it
    pd.DataFrame({"deal": [5.0, None], "deal_exact": [None, "100000000000000000000"],
                  "outcome": ["solved", "unsolved"]}).to_csv(wide, index=False)
    assert report.load(wide, required=report.VERDICTS)["deal"].tolist() == [5, 10**20]
    text = tmp_path / "text.parquet"  # export's CSV read by pandas and written back as Parquet
    pd.DataFrame({"deal": ["ms5", "6"], "outcome": ["solved", "unsolved"]}).to_parquet(text)
    data = report.load(text, required=report.VERDICTS)
    assert list(zip(data["deal"].tolist(), data["ms"].tolist())) == [(6, False), (5, True)]
    named = tmp_path / "named.csv"  # game cells as a person types them: whatever --game takes
    named.write_text("game,deal,outcome\nGolf,1,solved\n 36 ,2,unsolved\n")
    assert report.load(named, required=report.VERDICTS)["game"].tolist() == ["golf", "golf"]
    pd.read_csv(named).to_parquet(tmp_path / "named.parquet")  # the same rule in a Parquet file (was refused)
    assert report.load(tmp_path / "named.parquet", required=report.VERDICTS)["game"].tolist() == ["golf", "golf"]
    for name, content, words in (("flag.csv", "deal,ms,outcome\n5,maybe,solved\n", "column ms holds 'maybe'"),
                                 ("blank.csv", "game,deal,outcome\ngolf,1,solved\n ,2,solved\n",
                                  "row 2 has no game"),
                                 ("hex.csv", "deal,outcome\n0x10,solved\n", "holds '0x10'")):
        (tmp_path / name).write_text(content)
        done = cli("export", tmp_path / name)
        error = done.stderr.decode()
        assert done.returncode == 1 and words in error and error.count("\n") == 1 and not done.stdout, error


def test_an_ms_deal_that_is_no_game_number_is_quoted_as_written(tmp_path):
    """`ms5L` in a table was refused as "column deal holds '5L'", a deal no row spells (an earlier tester)."""
    for written in ("ms5L", "MS12x"):
        (tmp_path / "bad.csv").write_text(f"deal,outcome,iterations,cards_played\n6,unsolved,9,3\n{written},solved,9,51\n")
        for command in ("report", "export"):
            line = assert_one_line_failure(cli(command, tmp_path / "bad.csv"))
            assert f"column deal holds {written!r}, not a whole game number" in line, line
        with pytest.raises(DatasetError, match=f"column deal holds {written!r}"):
            board_of({"game": "black_hole", "deal": written, "ms": None})


def test_at_least_counts_deals_not_determined_where_every_line_gets(tmp_path):
    """With cards_played null for some unsolvable deals (--max-iters), the first row said 'at least 33.33%'
    where every Golf line plays the 16 talon cards: 100%; and the chart's title counted the known deals only."""
    frame = pd.DataFrame({"game": ["golf"] * 4, "deal": [1, 2, 3, 4], "ms": [False] * 4,
                          "outcome": ["unsolved", "unsolved", "unsolved", "solved"], "iterations": [10, 20, 30, 40],
                          "cards_played": pd.array([30, None, None, 40], "Int64")})
    frame.to_parquet(tmp_path / "few.parquet")
    text = cli("report", tmp_path / "few.parquet").stdout.decode()
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines() if re.match(r"\d+(-\d+)?\s+\d+\s", line)}
    assert rows["16"] == ["0", "0.00%", "100.00%"] and rows["17"] == ["0", "0.00%", "33.33%"]
    assert rows["30"] == ["1", "33.33%", "33.33%"]
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from blackhole_stats import get_game, plots

    figure = Figure()
    assert plots._cards_played(figure, frame, get_game("golf"))
    assert figure.axes[0].get_title().startswith("Golf: how close the 3 unsolvable deals got")


def test_a_mix_of_games_counts_one_row_as_a_row(tmp_path):
    """The refusal said "relaxed_golf: 1 rows"."""
    (tmp_path / "mixed").mkdir()
    for game, deals in (("golf", (1, 2)), ("relaxed_golf", (3,))):
        rows = pd.DataFrame([Solver().solve_deal(n, game=game) for n in deals])
        rows.to_parquet(tmp_path / "mixed" / f"{game}.parquet")
    for command in ("report", "export"):
        line = assert_one_line_failure(cli(command, tmp_path / "mixed"))
        assert "mixes games (golf: 2 rows, relaxed_golf: 1 row)" in line, line


def test_a_dataset_split_into_folders_by_game_is_read_as_pandas_reads_it(tmp_path):
    """pandas' to_parquet(partition_cols=["game"]) keeps the game in folder names (game=golf/) only: report
    and export read the files as one game (--game named it) and mixed Relaxed Golf wins into a Golf list."""
    golf, relaxed = tmp_path / "golf", tmp_path / "relaxed"
    assert cli("run", "--game", "golf", "--range", "1-20", "--out", golf).returncode == 0
    assert cli("run", "--game", "relaxed_golf", "--range", "21-40", "--out", relaxed).returncode == 0
    both = pd.concat([pd.read_parquet(golf), pd.read_parquet(relaxed)]).astype({"game": str})
    both.to_parquet(tmp_path / "split", partition_cols=["game"])
    assert sorted(path.name for path in (tmp_path / "split").iterdir()) == ["game=golf", "game=relaxed_golf"]
    assert pd.read_parquet(tmp_path / "split")["game"].value_counts().to_dict() == {"golf": 20, "relaxed_golf": 20}
    for command in (["report", tmp_path / "split", "--game", "relaxed_golf"],
                    ["export", tmp_path / "split", "--game", "golf"]):
        line = assert_one_line_failure(cli(*command))
        assert "mixes games (golf: 20 rows, relaxed_golf: 20 rows)" in line, line
    both[both.game == "golf"].to_parquet(tmp_path / "one", partition_cols=["game"])
    assert cli("report", tmp_path / "one").stdout.decode().startswith("Golf report")
    for column in ("seconds", "outcome"):  # outcome: required, was "missing column outcome"
        both[both.game == "golf"].to_parquet(tmp_path / column, partition_cols=[column])
        line = assert_one_line_failure(cli("report", tmp_path / column))
        assert f"holds the column {column}, which is read from the files" in line, line
    (tmp_path / "lie" / "game=golf").mkdir(parents=True)  # a folder that contradicts its files' game column
    pd.read_parquet(relaxed).to_parquet(tmp_path / "lie" / "game=golf" / "part.parquet")
    for given in ("lie", "lie/game=golf", "lie/game=golf/part.parquet"):  # the folder given, or the file
        line = assert_one_line_failure(cli("report", tmp_path / given))
        assert "its game column has 'relaxed_golf', but a folder above it says game=golf" in line, line
    for given in ("split/game=golf", *(str(path.relative_to(tmp_path)) for path in (tmp_path / "split").glob("*/*"))):
        text = cli("report", tmp_path / given).stdout.decode()  # was read as Black Hole: "allows only 51"
        assert text.startswith(("Golf report", "Relaxed Golf report")), (given, text[:200])
    nameless = both.assign(game=[None] * 20 + ["golf"] * 20)
    nameless.to_parquet(tmp_path / "nameless", partition_cols=["game"])  # pandas: game=__HIVE_DEFAULT_PARTITION__
    assert "names no game this version knows" in assert_one_line_failure(cli("export", tmp_path / "nameless"))


def test_a_budgeted_run_bounds_the_solvable_share_of_all_its_deals(tmp_path):
    """A small budget decides the easy deals, mostly won: Golf deals 1..300 under --max-iters 2000 showed
    "solvable fraction of decided deals: 85.71% [75.03%, 92.30%]" without a word, where the game's is about
    45% (helper 150). The bounds hold the peer's share of the same deals; without a budget there are none."""
    peer = list(csv.DictReader(require_reference("family/peer_golf_1_1000.csv").open()))[:200]
    truth = sum(row["outcome"] == "solved" for row in peer) / len(peer)
    budgeted, plain = tmp_path / "budgeted", tmp_path / "plain"
    for out, flags in ((budgeted, ["--max-iters", "2000"]), (plain, [])):
        assert cli("run", "--range", "1-200", "--game", "golf", "--out", out, "--workers", "1", *flags).returncode == 0
    result = json.loads(run_cli(budgeted, "--format", "json").stdout)
    outcomes = result["outcomes"]
    assert outcomes["intractable"] > 50  # the case at hand
    least, most = result["solvable_bounds"]
    assert (least, most) == (outcomes["solved"] / 200, (outcomes["solved"] + outcomes["intractable"]) / 200)
    assert least <= truth <= most and result["solvable"]["fraction"] > truth + 0.2  # the decided ones: biased
    text = " ".join(run_cli(budgeted).stdout.split())
    assert (f"with {outcomes['intractable']:,} deals intractable (--max-iters), the solvable share of all the deals "
            f"lies between {least:.2%} and {most:.2%}: a budget decides the easy deals first, so the decided ones "
            "may be no fair sample") in text, text
    assert json.loads(run_cli(plain, "--format", "json").stdout)["solvable_bounds"] is None
    side_by_side = run_cli(budgeted, "--compare", plain).stdout  # (where the two fractions stand side by side)
    assert re.search(rf"solvable of all deals \(bounds\) +{re.escape(f'{least:.2%} .. {most:.2%}')} +-\n",
                     side_by_side), side_by_side
    assert "intractable (--max-iters)" not in run_cli(plain).stdout
