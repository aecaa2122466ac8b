"""Runs, verification, reports and lists of every game of the family, through the real CLI.

What it proves, each against data this package did not produce (the peer solver's CSVs of deals
1..1000 for each game, in ../shared/reference/family/) or against files it did not write:
* `run --game G` (by key, PySolFC id or name) stores the peer's verdicts, and its most cards
  played for unsolvable deals, for all four new games; the game is in the manifest and in a
  `game` column of every part, which pandas, polars and DuckDB read back so that two games'
  datasets concatenate without losing which row is which; `verify` passes on each;
* resuming a run with another `--game` is refused in one line and changes nothing, also after
  a Ctrl-C in the middle of the run; resuming without `--game` goes on with the run's own game;
  `--search classic` on a game without it is a usage error that writes nothing;
* a manifest or a column naming a game this version does not know, a manifest whose game is
  not its rows', a run directory holding a part of another game, and a dataset that mixes games:
  `run`, `verify`, `report` and `export` each say so in one line (verify lists it) and never
  report or extend them as one game;
* `verify` judges rows by the run's game: a solution that is legal only in Relaxed Golf,
  stored in a Golf run, is an illegal move; cards played outside what the game allows is named;
* datasets from before the family (format 1 of 0.1.0, format 2 without a manifest `game`, and
  a compact study file without a `game` column, with a note that its game is assumed) read as
  Black Hole, and the runs take no other game;
* `report --compare` across two games of the same deals counts the deals one wins and the other
  does not (as the peer's CSVs count them), and refuses two datasets that share no deal;
* `export --game` is checked against the dataset's game;
* a CSV that names no game (the peer's) is never reported as another game in silence: `report`
  notes on stderr the game it assumed, `--game`/`--compare-game` name it, and `export --game`
  takes it at its word; our own JSON/CSV lists carry the game, so they read back as their game.
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import signal
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from conftest import (REPO, SCRIPT, assert_one_line_failure, cli, ctrl_c_at_pause, make_0_1_0_run, require_reference,
                      signal_at_pause)

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason=f"console script not installed at {SCRIPT}")

NEW_GAMES = ("all_in_a_row", "golf", "dead_king_golf", "relaxed_golf")
DEALS = 24
"""Deals 1..DEALS of each game: a few seconds of solving, solvable and unsolvable ones in each."""


def peer(game: str) -> dict[int, dict]:
    """The peer solver's rows for deals 1..1000 of `game`, by deal number."""
    with require_reference(f"family/peer_{game}_1_1000.csv").open(newline="") as handle:
        return {int(row["deal"]): row for row in csv.DictReader(handle)}


def manifest(out: Path) -> dict:
    return json.loads(Path(f"{out}.run", "manifest.json").read_text(encoding="utf-8"))


def write_manifest(out: Path, content: dict) -> None:
    Path(f"{out}.run", "manifest.json").write_text(json.dumps(content), encoding="utf-8")


def rows(out: Path) -> list[dict]:
    return sorted(pq.read_table(out).to_pylist(), key=lambda row: row["deal"])


def snapshot(out: Path) -> dict:
    """Every file of the run and its side folder, with its bytes."""
    return {path: path.read_bytes() for folder in (out, Path(f"{out}.run")) if folder.is_dir()
            for path in sorted(folder.iterdir()) if path.is_file()}


def make_run(out: Path, game: str | None, deals: str = f"1-{DEALS}", *extra) -> None:
    chosen = () if game is None else ("--game", game)
    result = cli("run", "--range", deals, *chosen, "--out", out, "--workers", 1, "--chunk-size", 12, *extra)
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Deals 1..DEALS of Black Hole and of each new game, each game named differently on purpose."""
    base = tmp_path_factory.mktemp("family")
    spelt = {"black_hole": None, "all_in_a_row": "All in a Row", "golf": "golf", "dead_king_golf": "259",
             "relaxed_golf": "relaxed golf"}
    made = {}
    for game, name in spelt.items():
        made[game] = base / game
        make_run(made[game], name)
    return made


# ------------------------------------------------------------------ what a run stores, per game
@pytest.mark.parametrize("game", NEW_GAMES)
def test_a_run_of_each_game_stores_the_peers_verdicts_and_verifies(runs, game):
    expected = peer(game)
    stored = rows(runs[game])
    assert [row["deal"] for row in stored] == list(range(1, DEALS + 1))
    for row in stored:
        theirs = expected[row["deal"]]
        assert (row["game"], row["outcome"]) == (game, theirs["outcome"]), row["deal"]
        if row["outcome"] == "unsolved":
            assert row["cards_played"] == int(theirs["max_played"]), row["deal"]
        else:  # a win plays its solution's moves: the pile cards and the talon cards turned on the way
            assert row["cards_played"] == len(row["solution"].split()), row["deal"]
    assert {row["outcome"] for row in stored} == {"solved", "unsolved"}
    assert manifest(runs[game])["game"] == game
    schema = pq.read_schema(next(runs[game].glob("part-*.parquet")))
    assert schema.field("game").type == pa.dictionary(pa.int8(), pa.string())
    result = cli("verify", runs[game])
    assert result.returncode == 0 and result.stdout.startswith(f"ok: {DEALS} rows".encode()), result


def test_the_game_column_keeps_each_rows_game_when_readers_concatenate_datasets(runs):
    pandas = pytest.importorskip("pandas")
    polars = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    golf, black_hole = runs["golf"], runs["black_hole"]
    together = pandas.concat([pandas.read_parquet(black_hole), pandas.read_parquet(golf)], ignore_index=True)
    assert isinstance(together["game"].dtype, pandas.CategoricalDtype)  # the same five categories in every part
    assert together.groupby("game", observed=True).size().to_dict() == {"black_hole": DEALS, "golf": DEALS}
    both = polars.concat([polars.read_parquet(black_hole), polars.read_parquet(golf)])
    assert dict(both.group_by("game").len().iter_rows()) == {"black_hole": DEALS, "golf": DEALS}
    counted = duckdb.sql(f"select game, count(*) from read_parquet(['{black_hole}/*.parquet', '{golf}/*.parquet']) "
                         "group by game").fetchall()
    assert dict(counted) == {"black_hole": DEALS, "golf": DEALS}


# ------------------------------------------------------------------ resuming keeps the game
def test_resuming_with_another_game_is_refused_even_after_a_ctrl_c(tmp_path):
    out = tmp_path / "golf"
    status, err = ctrl_c_at_pause(tmp_path, ["run", "--range", "1-30", "--game", "36", "--out", out,
                                             "--workers", 1, "--chunk-size", 10], "deal-25")
    assert status == -signal.SIGINT and "resume with:" in err, err
    done = snapshot(out)
    assert {row["game"] for row in rows(out)} == {"golf"} and len(rows(out)) == 20
    for other in ("black_hole", "Relaxed Golf"):
        error = assert_one_line_failure(cli("run", "--range", "1-30", "--game", other, "--out", out))
        assert "holds a run of golf (Golf)" in error and "--game golf" in error, error
        assert snapshot(out) == done
    result = cli("run", "--out", out, "--workers", 1)  # no --game: the run's own
    assert result.returncode == 0, result.stderr
    assert b"20 of the run's 30 deals were already done" in result.stdout
    expected = peer("golf")
    assert [(row["deal"], row["game"], row["outcome"]) for row in rows(out)] == [
        (deal, "golf", expected[deal]["outcome"]) for deal in range(1, 31)]
    assert cli("verify", out).returncode == 0


def test_a_run_whose_iterations_were_counted_another_way_takes_no_new_deals(tmp_path, runs):
    """All in a Row's counting changed (ITERATIONS_REVISIONS): a run of an earlier version, whose
    manifest records no revision, is refused more deals; one with nothing left to solve resumes."""
    out = tmp_path / "earlier"
    shutil.copytree(runs["all_in_a_row"], out)
    shutil.copytree(f"{runs['all_in_a_row']}.run", f"{out}.run")
    assert manifest(out)["iterations_revision"] == 2
    write_manifest(out, {key: value for key, value in manifest(out).items() if key != "iterations_revision"})
    for part in out.glob("part-*.parquet"):  # as an earlier version wrote them: no run settings recorded
        pq.write_table(pq.read_table(part).replace_schema_metadata(None), part, compression="zstd",
                       write_page_checksum=True)
    before = snapshot(out)
    error = assert_one_line_failure(cli("run", "--range", f"1-{DEALS + 1}", "--out", out))
    assert "whose iterations an earlier version counted another way (revision 1; this version's is 2)" in error
    assert snapshot(out) == before
    assert cli("run", "--out", out).returncode == 0 and cli("verify", out).returncode == 0
    compared = " ".join(cli("report", out, "--compare", runs["all_in_a_row"]).stdout.decode().split())
    assert "note: A and B count iterations differently (iterations_revision 1 and 2)" in compared, compared
    assert "iterations differently" not in cli("report", runs["all_in_a_row"], "--compare",
                                                runs["all_in_a_row"]).stdout.decode()
    write_manifest(out, {**manifest(out), "iterations_revision": 3})  # a later version's run
    assert "whose iterations a later version counted another way (revision 3; this version's is 2)" in \
        assert_one_line_failure(cli("run", "--range", f"1-{DEALS + 1}", "--out", out))
    old_black_hole = tmp_path / "black_hole"  # its counting never changed: it takes more deals
    shutil.copytree(runs["black_hole"], old_black_hole)
    shutil.copytree(f"{runs['black_hole']}.run", f"{old_black_hole}.run")
    write_manifest(old_black_hole, {key: value for key, value in manifest(old_black_hole).items()
                                    if key != "iterations_revision"})
    assert cli("run", "--range", f"1-{DEALS + 1}", "--out", old_black_hole, "--workers", 1).returncode == 0
    assert manifest(old_black_hole)["total_deals"] == DEALS + 1 and manifest(old_black_hole)["iterations_revision"] == 1


@pytest.mark.parametrize("options, words", [
    (("--game", "all_in_a_row", "--search", "classic"), "--search classic: the classic search"),
    (("--game", "spider"), "unknown game 'spider'; choose from black_hole (98, 'Black Hole'), all_in_a_row"),
])
def test_settings_a_game_does_not_have_are_usage_errors_that_write_nothing(tmp_path, options, words):
    out = tmp_path / "run"
    assert words in assert_one_line_failure(cli("run", "--range", "1-5", *options, "--out", out), 2)
    assert not out.exists() and not Path(f"{out}.run").exists()


def test_resuming_a_golf_run_with_the_classic_search_is_a_usage_error_as_starting_one_is(tmp_path, runs):
    """Without --game the run's own game decides (it was checked against Black Hole, then a traceback);
    a manifest saying classic for a Golf run is damaged for every command."""
    out = tmp_path / "run"
    shutil.copytree(runs["golf"], out)
    shutil.copytree(f"{runs['golf']}.run", f"{out}.run")
    before = snapshot(out)
    words = "the classic search reproduces black-hole-solver's Black Hole counts only; Golf is solved"
    assert words in assert_one_line_failure(cli("run", "--out", out, "--search", "classic"), 2)
    assert snapshot(out) == before
    write_manifest(out, {**manifest(out), "search": "classic"})
    for command in (("run", "--out", out), ("verify", out), ("report", out)):
        error = assert_one_line_failure(cli(*command))
        assert "manifest.json is damaged: search is 'classic': " + words in error, error


# ------------------------------------------------------------------ games this version does not know
def test_a_manifest_naming_an_unknown_game_is_refused_by_every_command(tmp_path, runs):
    out = tmp_path / "run"
    shutil.copytree(runs["golf"], out)
    shutil.copytree(f"{runs['golf']}.run", f"{out}.run")
    write_manifest(out, {**manifest(out), "game": "klondike"})
    before = snapshot(out)
    for command in (("run", "--range", "1-30", "--out", out), ("verify", out), ("report", out),
                    ("export", out, "--solvable")):
        error = assert_one_line_failure(cli(*command))
        assert "names game 'klondike', which this version" in error and "golf, dead_king_golf" in error, error
    write_manifest(out, {**manifest(out), "game": 36})  # stored games are keys, never ids
    assert "game must be a game's key, not 36" in assert_one_line_failure(cli("verify", out))
    write_manifest(out, json.loads(before[Path(f"{out}.run", "manifest.json")]))
    assert snapshot(out) == before


def test_a_manifest_whose_game_is_not_its_rows_is_refused_by_every_command(tmp_path, runs):
    out = tmp_path / "run"
    shutil.copytree(runs["golf"], out)
    shutil.copytree(f"{runs['golf']}.run", f"{out}.run")
    write_manifest(out, {**manifest(out), "game": "relaxed_golf"})
    problems = cli("verify", out).stdout.decode().splitlines()
    assert problems == [f"{part.name}: holds deals of 'golf', and the run plays relaxed_golf: its rows are not "
                        "checked against the run's rules" for part in sorted(out.glob("part-*.parquet"))]
    for command in (("report", out), ("export", out)):
        assert "its rows are golf deals, but its run's manifest says relaxed_golf" in \
            assert_one_line_failure(cli(*command))
    assert "and the run plays relaxed_golf" in assert_one_line_failure(cli("run", "--out", out))


def test_a_column_naming_an_unknown_game_is_named_and_never_reported(tmp_path, runs):
    out = tmp_path / "run"
    shutil.copytree(runs["golf"], out)
    shutil.copytree(f"{runs['golf']}.run", f"{out}.run")
    part = next(out.glob("part-1-*.parquet"))
    table = pq.read_table(part)
    field = table.schema.field("game")
    keys = pa.array(["golf"] * (table.num_rows - 1) + ["pyramid"]).dictionary_encode().cast(field.type)
    pq.write_table(table.set_column(0, field, keys), part)
    result = cli("verify", out)
    assert result.returncode == 1 and f"{part.name}: game 'pyramid' is not one this version knows".encode() \
        in result.stdout, result.stdout
    assert "column game has 'pyramid', which is no game this version knows" in \
        assert_one_line_failure(cli("report", out))
    error = assert_one_line_failure(cli("run", "--out", out))
    assert part.name in error and "holds deals of game 'pyramid', and the run plays golf" in error, error


def test_a_part_of_another_game_in_a_run_is_refused_and_not_judged_by_the_wrong_rules(tmp_path, runs):
    out = tmp_path / "run"
    shutil.copytree(runs["black_hole"], out)
    shutil.copytree(f"{runs['black_hole']}.run", f"{out}.run")
    name = "part-13-24-12.parquet"
    shutil.copy(runs["golf"] / name, out / name)  # the same deals, of Golf
    result = cli("verify", out)
    assert result.returncode == 1
    assert result.stdout.decode().splitlines() == [
        f"{name}: holds deals of 'golf', and the run plays black_hole: its rows are not checked against the "
        "run's rules"]
    error = assert_one_line_failure(cli("report", out))
    assert "mixes games (black_hole: 12 rows, golf: 12 rows)" in error, error
    error = assert_one_line_failure(cli("run", "--range", "1-30", "--out", out))
    assert name in error and "holds deals of game 'golf', and the run plays black_hole" in error, error
    refused = assert_one_line_failure(cli("export", out, "--solvable"))  # (no --compare of its own)
    assert "mixes games" in refused and ("take one game at a time (select its rows by the game column; report A "
                                         "--compare B sets two side by side)") in refused


def test_a_notebooks_file_mixing_two_games_is_refused_and_each_game_alone_is_reported(tmp_path, runs):
    mixed = tmp_path / "both.parquet"
    pq.write_table(pa.concat_tables([pq.read_table(runs["golf"]), pq.read_table(runs["relaxed_golf"])]), mixed)
    for command in (("report", mixed), ("export", mixed), ("report", runs["golf"], "--compare", mixed)):
        error = assert_one_line_failure(cli(*command))
        assert f"mixes games (golf: {DEALS} rows, relaxed_golf: {DEALS} rows)" in error, error
    table = pq.read_table(mixed)
    alone = tmp_path / "relaxed.parquet"
    pq.write_table(table.filter(pc.equal(table["game"].cast(pa.string()), "relaxed_golf")), alone)
    result = cli("report", alone, "--format", "json")
    assert result.returncode == 0 and json.loads(result.stdout)["game"] == "relaxed_golf"


# ------------------------------------------------------------------ verify knows each game's rules
def replace_cell(part: Path, deal: int, **values) -> None:
    table = pq.read_table(part)
    row = table["deal"].to_pylist().index(deal)
    for column, value in values.items():
        cells = table[column].to_pylist()
        cells[row] = value
        field = table.schema.field(column)
        table = table.set_column(table.schema.get_field_index(column), field, pa.array(cells, field.type))
    pq.write_table(table, part)


def holding(out: Path, deal: int) -> Path:
    return next(path for path in out.glob("part-*.parquet") if deal in pq.read_table(path)["deal"].to_pylist())


def test_verify_replays_by_the_runs_game_and_bounds_its_cards_played(tmp_path, runs):
    golf, relaxed = peer("golf"), peer("relaxed_golf")
    # A deal Relaxed Golf wins and Golf does not: its Relaxed Golf line cannot be legal in Golf.
    deal = next(n for n in range(1, DEALS + 1)
                if relaxed[n]["outcome"] == "solved" and golf[n]["outcome"] == "unsolved")
    line = next(row["solution"] for row in rows(runs["relaxed_golf"]) if row["deal"] == deal)
    out = tmp_path / "run"
    shutil.copytree(runs["golf"], out)
    shutil.copytree(f"{runs['golf']}.run", f"{out}.run")
    unsolved = next(row for row in rows(out) if row["outcome"] == "unsolved")
    solved = next(row for row in rows(out) if row["outcome"] == "solved")
    wrong = 51 if solved["cards_played"] != 51 else 50
    for number, values, words in (
            (deal, {"outcome": "solved", "solution": line, "cards_played": len(line.split())}, "move "),
            (unsolved["deal"], {"cards_played": 15}, "unsolved, but cards_played is 15 (Golf: 16 to 50)"),
            (solved["deal"], {"cards_played": wrong},
             f"solved, but cards_played is {wrong}, and the solution plays {solved['cards_played']}")):
        part = holding(out, number)
        original = part.read_bytes()
        replace_cell(part, number, **values)
        problems = cli("verify", out).stdout.decode().splitlines()
        assert len(problems) == 1 and problems[0].startswith(f"deal {number}: {words}"), problems
        part.write_bytes(original)
    assert cli("verify", out).returncode == 0


# ------------------------------------------------------------------ datasets from before the family
def test_datasets_from_before_the_family_are_black_hole_and_take_no_other_game(tmp_path, runs):
    old = tmp_path / "old"  # results format 1, as 0.1.0 left it
    shutil.copytree(runs["black_hole"], old)
    shutil.copytree(f"{runs['black_hole']}.run", f"{old}.run")
    make_0_1_0_run(old)
    before = snapshot(old)
    assert "holds a run of black_hole" in assert_one_line_failure(cli("run", "--game", "golf", "--out", old))
    assert snapshot(old) == before
    result = cli("report", old, "--format", "json")  # a run of 0.1.0: its manifest makes it Black Hole's
    assert result.returncode == 0 and json.loads(result.stdout)["game"] == "black_hole", result.stderr
    assert result.stderr == b""
    assert "holds black_hole deals (Black Hole), not golf" in \
        assert_one_line_failure(cli("export", old, "--game", "golf", "--solvable"))
    compact = tmp_path / "compact.parquet"  # a study's compact rows as written before the family: no game
    pq.write_table(pq.read_table(REPO / "results" / "deals.parquet").drop_columns(["game"]), compact)
    result = cli("report", compact, "--format", "json")
    assert result.returncode == 0 and json.loads(result.stdout)["game"] == "black_hole"
    assert b"does not say which game its deals are of; read as Black Hole (--game names it)" in result.stderr
    assert cli("run", "--out", old).returncode == 0  # brought up to date: a Black Hole run of format 2
    assert manifest(old)["game"] == "black_hole" and cli("verify", old).returncode == 0

    pre = tmp_path / "pre"  # format 2 as written before the family: no manifest game, a one-game dictionary
    shutil.copytree(runs["black_hole"], pre)
    shutil.copytree(f"{runs['black_hole']}.run", f"{pre}.run")
    write_manifest(pre, {key: value for key, value in manifest(pre).items() if key != "game"})
    for part in pre.glob("part-*.parquet"):
        table = pq.read_table(part)
        pq.write_table(table.set_column(0, table.schema.field("game"), pa.DictionaryArray.from_arrays(
            pa.array([0] * table.num_rows, pa.int8()), pa.array(["black_hole"]))), part)
    assert cli("verify", pre).returncode == 0
    assert "holds a run of black_hole" in assert_one_line_failure(cli("run", "--game", "golf", "--out", pre))
    result = cli("run", "--range", f"1-{DEALS + 6}", "--out", pre, "--workers", 1)
    assert result.returncode == 0, result.stderr
    assert manifest(pre)["game"] == "black_hole" and cli("verify", pre).returncode == 0
    assert {row["game"] for row in rows(pre)} == {"black_hole"}


# ------------------------------------------------------------------ comparing games, exporting lists
def test_compare_across_games_counts_what_each_wins_as_the_peer_does(runs):
    result = cli("report", runs["golf"], "--compare", runs["relaxed_golf"], "--format", "json")
    assert result.returncode == 0, result.stderr
    comparison = json.loads(result.stdout)
    golf, relaxed = peer("golf"), peer("relaxed_golf")
    deals = range(1, DEALS + 1)
    assert (comparison["a"]["game"], comparison["b"]["game"], comparison["common"]) == ("golf", "relaxed_golf", DEALS)
    assert comparison["contradictions"] is None
    assert comparison["won_only_a"] == sum(golf[n]["outcome"] == "solved" != relaxed[n]["outcome"] for n in deals)
    assert comparison["won_only_b"] == sum(relaxed[n]["outcome"] == "solved" != golf[n]["outcome"] for n in deals)
    assert comparison["won_only_b"] > 0
    assert {row["deal"] for row in comparison["verdicts_differ"]} == {
        str(n) for n in deals if golf[n]["outcome"] != relaxed[n]["outcome"]}
    text = cli("report", runs["golf"], "--compare", runs["relaxed_golf"])
    assert "two games on the same deals: " in " ".join(text.stdout.decode().split())
    assert "won in Golf (A) and proved unwinnable in Relaxed Golf (B)" in " ".join(text.stdout.decode().split())
    text = cli("report", runs["black_hole"], "--compare", runs["golf"])  # deal N is another layout in each
    assert "two games dealt differently under the same numbers" in " ".join(text.stdout.decode().split())


def test_compare_with_the_peers_csv_takes_it_to_be_of_the_datasets_game(runs):
    csv_path = require_reference("family/peer_dead_king_golf_1_1000.csv")
    for named in ((), ("--compare-game", "dead_king_golf")):
        result = cli("report", runs["dead_king_golf"], "--compare", csv_path, "--format", "json", *named)
        assert result.returncode == 0, result.stderr
        comparison = json.loads(result.stdout)
        assert (comparison["b"]["game"], comparison["common"], comparison["contradictions"]) == (
            "dead_king_golf", DEALS, 0)
        assert comparison["verdicts_differ"] == [] and comparison["cards_played_differ"] == []
        assert (b"does not say which game" in result.stderr) == (not named), result.stderr
    assert "holds dead_king_golf deals (Dead King Golf), not golf" in assert_one_line_failure(
        cli("report", runs["golf"], "--compare", runs["dead_king_golf"], "--compare-game", "golf"))


def test_a_csv_that_names_no_game_is_never_silently_another_game(runs, tmp_path):
    csv_path = require_reference("family/peer_golf_1_1000.csv")
    expected = peer("golf")
    solvable = [str(n) for n in sorted(expected) if expected[n]["outcome"] == "solved"]
    assumed = assert_one_line_failure(cli("report", csv_path, "--format", "json"))  # Golf wins play 35 to 51
    assert "is solved with cards_played" in assumed and "but Black Hole allows only 51" in assumed
    assert "read as Black Hole (--game names it)" in assumed
    named = cli("report", csv_path, "--game", "golf", "--format", "json")
    assert named.returncode == 0 and named.stderr == b"", named.stderr
    report = json.loads(named.stdout)
    assert report["game"] == "golf" and report["outcomes"]["solved"] == len(solvable)
    exported = cli("export", csv_path, "--solvable", "--game", "golf")
    assert exported.returncode == 0 and exported.stdout.decode().split() == solvable, exported.stderr
    assert "holds golf deals (Golf), not relaxed_golf" in assert_one_line_failure(
        cli("report", runs["golf"], "--game", "relaxed_golf"))
    listing = tmp_path / "golf.csv"  # our own list says its game: it reads back as Golf, with no note
    listing.write_bytes(cli("export", runs["golf"], "--format", "csv").stdout)
    again = cli("report", listing, "--format", "json")
    assert again.returncode == 0 and again.stderr == b"" and json.loads(again.stdout)["game"] == "golf"
    assert json.loads(again.stdout)["difficulty"] is None  # the list's empty tag columns are no tags
    records = json.loads(cli("export", runs["golf"], "--format", "json").stdout)
    assert {record["game"] for record in records} == {"golf"} and len(records) == DEALS
    listed = assert_one_line_failure(cli("export", csv_path, "--solvable", "--format", "csv"))  # as report
    assert "but Black Hole allows only 51" in listed and "read as Black Hole (--game names it)" in listed
    table = tmp_path / "peer_golf.parquet"  # made in a notebook: no game column, no manifest
    frame = pd.read_csv(csv_path).rename(columns={"max_played": "cards_played"})
    frame.to_parquet(table)
    compared = cli("report", runs["golf"], "--compare", table, "--format", "json")
    assert compared.returncode == 0 and json.loads(compared.stdout)["b"]["game"] == "golf"
    assert json.loads(compared.stdout)["contradictions"] == 0
    assert b"read as Golf (--compare-game names it)" in compared.stderr
    assert json.loads(cli("report", table, "--game", "golf", "--format", "json").stdout)["game"] == "golf"
    assert "give --compare too" in assert_one_line_failure(
        cli("report", runs["golf"], "--compare-game", "golf"), 2)
    selection = tmp_path / "none_kept.parquet"  # a game column, but no row to read it from
    pd.read_parquet(runs["golf"]).query("deal < 0").to_parquet(selection)
    empty = cli("report", selection, "--format", "json")
    assert empty.returncode == 0 and b"does not say which game its deals are of" in empty.stderr, empty.stderr
    assert json.loads(cli("report", selection, "--game", "golf", "--format", "json").stdout)["game"] == "golf"


def test_compare_of_datasets_that_share_no_deal_is_refused(tmp_path, runs):
    later = tmp_path / "later"
    make_run(later, "golf", "101-105")
    error = assert_one_line_failure(cli("report", runs["relaxed_golf"], "--compare", later))
    assert "share no deal: nothing to compare (1 .. 24 against 101 .. 105)" in error, error
    pd.read_parquet(later).iloc[:0].to_parquet(tmp_path / "empty.parquet")
    error = assert_one_line_failure(cli("report", later, "--compare", tmp_path / "empty.parquet"))
    assert error.endswith("share no deal: nothing to compare (101 .. 105 against no deals)\n"), error


def test_export_lists_a_games_winnable_deals_and_refuses_another_game(runs):
    expected = peer("all_in_a_row")
    result = cli("export", runs["all_in_a_row"], "--solvable", "--game", "405")
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().split() == [str(n) for n in range(1, DEALS + 1)
                                              if expected[n]["outcome"] == "solved"]
    error = assert_one_line_failure(cli("export", runs["all_in_a_row"], "--game", "golf"))
    assert "holds all_in_a_row deals (All in a Row), not golf" in error


def test_a_signal_while_the_run_records_its_session_waits_for_the_record(tmp_path):
    """SIGTERM when every chunk is done but the session is not yet recorded (the run re-reads its
    parts first): the record is made, then the run stops as interrupted; before, the session was left
    without its deals and time, and a study lost its timing."""
    out = tmp_path / "run"
    done = signal_at_pause(tmp_path, [SCRIPT, "run", "--range", "1-40", "--game", "relaxed_golf", "--out", out],
                           "session-ending", lambda pid: os.killpg(pid, signal.SIGTERM), release=True)
    assert done.returncode == -signal.SIGTERM, done.stderr
    session = json.loads((tmp_path / "run.run" / "manifest.json").read_text())["sessions"][-1]
    assert session["deals_solved"] == 40 and session["elapsed_seconds"] > 0

