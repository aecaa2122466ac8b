"""`blackhole-stats verify`: a good run passes; a doctored copy fails, naming the deal."""
from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from blackhole_stats.dataset import DatasetError
from blackhole_stats.deals import DealSet
from blackhole_stats.runner import run
from blackhole_stats.verify import verify

from conftest import cli, require_reference

SCRIPT = Path(sys.executable).parent / "blackhole-stats"
pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason=f"console script not installed at {SCRIPT}")


def cli_verify(out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(SCRIPT), "verify", str(out)], capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def good_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("good") / "run"
    run(str(out), DealSet.parse(["1-60", "ms1-ms20"]), workers=2, chunk_size=20)
    return out


@pytest.fixture
def copy(good_run, tmp_path) -> Path:
    shutil.copytree(f"{good_run}.run", tmp_path / "copy.run")
    return Path(shutil.copytree(good_run, tmp_path / "copy"))


def manifest_file(run: Path) -> Path:
    return Path(f"{run}.run", "manifest.json")


def rewrite(part: Path, row: int, **values) -> None:
    """Change one row of a chunk file, keeping its schema (a null makes its column nullable)."""
    table = pq.read_table(part)
    for name, value in values.items():
        column = table[name].to_pylist()
        column[row] = value
        field = table.schema.field(name)
        table = table.set_column(table.schema.get_field_index(name), field.with_nullable(field.nullable or value is None),
                                 pa.array(column, field.type))
    pq.write_table(table, part)


def test_a_good_run_passes(good_run):
    checked = verify(str(good_run))
    assert (checked.rows, checked.problems) == (80, ())
    result = cli_verify(good_run)
    assert result.returncode == 0 and result.stdout.startswith("ok: 80 rows")
    every = subprocess.run([str(SCRIPT), "verify", str(good_run), "--solve-again"], capture_output=True, text=True,
                           timeout=60)
    assert every.returncode == 0 and every.stdout.splitlines()[-1] == \
        "deals solved again as the run solved them: 80 of 80", every


def peer_row(deal: int) -> dict:
    """The established solver's verdict and most cards played for Black Hole deal `deal` (1..1000)."""
    with require_reference("peer_1_1000.csv").open(newline="") as handle:
        return next(row for row in csv.DictReader(handle) if int(row["deal"]) == deal)


def test_an_unsolvable_deal_s_wrong_cards_played_is_found_by_solving_it_again(copy):
    """An unsolved row has no line to replay: a wrong cards_played within the game's range passed (helper
    131). The first such deal of each file is solved again as the run solved it; deal 1 is that of part
    1-20, and the peer says how many cards its best line plays."""
    part = copy / "part-1-20-20.parquet"
    truth = peer_row(1)
    table = pq.read_table(part)
    assert truth["outcome"] == "unsolved" and table["deal"][0].as_py() == 1
    iterations = table["iterations"][0].as_py()
    rewrite(part, 0, cards_played=int(truth["max_played"]) + 1)
    result = cli_verify(copy)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"deal 1: stored unsolved, {iterations:,} iterations, {int(truth['max_played']) + 1} cards played; solved "
        f"again: unsolved, {iterations:,} iterations, {truth['max_played']} cards played"]


def test_a_winnable_deal_stored_as_unsolved_is_found_by_solve_again(copy):
    """Deal 2 is winnable (the peer says so); stored as unsolved after deal 1, the file's first deal
    without a line, only --solve-again solves it again: the plain verify says how many it did."""
    part = copy / "part-1-20-20.parquet"
    assert peer_row(2)["outcome"] == "solved" and pq.read_table(part)["deal"][1].as_py() == 2
    rewrite(part, 1, outcome="unsolved", solution=None, cards_played=49)
    spot = cli_verify(copy)
    assert spot.returncode == 0 and spot.stdout.splitlines()[-1] == \
        "deals without a winning line solved again: 4 of 9 (the first of each file; --solve-again: every deal)"
    result = subprocess.run([str(SCRIPT), "verify", str(copy), "--solve-again"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 1
    [line] = result.stdout.splitlines()
    assert re.fullmatch(r"deal 2: stored unsolved, ([\d,]+) iterations, 49 cards played; solved again: solved, "
                        r"[\d,]+ iterations, 51 cards played", line), line


def test_a_budget_run_s_rows_without_a_line_are_solved_again_within_its_budget(tmp_path):
    """With --max-iters a row may be intractable, or unsolved with its cards played unknown: solved again
    with the run's budget, each comes out the same, so a relabelled one is found (helper 132)."""
    out = tmp_path / "run"
    run(str(out), DealSet.parse(["1-20"]), max_iters=2_000, workers=1, chunk_size=20)
    checked = verify(str(out), solve_again=True)
    assert checked.problems == () and checked.solved_again == checked.rows == 20 and checked.unreplayed > 1
    (part,) = out.glob("part-*.parquet")
    table = pq.read_table(part)
    row = table["outcome"].to_pylist().index("intractable")
    assert peer_row(row + 1)["outcome"] == "solved"  # (the peer decides it: intractable only for the budget)
    rewrite(part, row, outcome="unsolved")
    problems = verify(str(out), solve_again=True).problems
    assert len(problems) == 1 and problems[0].startswith(f"deal {row + 1}: stored unsolved, ") \
        and "; solved again: intractable, 2,000 iterations, " in problems[0], problems


def test_a_solved_row_s_iterations_changed_by_hand_are_found_by_solve_again(copy):
    """A solved row's line replays whatever its iterations say: 1,000 times its count passed even
    --solve-again, which solved only the rows without a line (helper 135); it solves every deal now."""
    part = copy / "part-1-20-20.parquet"
    table = pq.read_table(part)
    assert table["outcome"][1].as_py() == "solved" and table["deal"][1].as_py() == 2
    iterations = table["iterations"][1].as_py()
    rewrite(part, 1, iterations=iterations * 1000)
    assert cli_verify(copy).returncode == 0  # the spot check solves rows without a line only
    result = subprocess.run([str(SCRIPT), "verify", str(copy), "--solve-again"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [f"deal 2: stored solved, {iterations * 1000:,} iterations, 51 cards played; "
                                          f"solved again: solved, {iterations:,} iterations, 51 cards played"]


def test_an_illegal_solution_is_named(copy):
    part = copy / "part-1-20-20.parquet"
    solution = pq.read_table(part)["solution"][1].as_py()  # deal 2, solved
    rewrite(part, 1, solution="5C " + solution.split(" ", 1)[1])  # a five never fits on the ace
    result = cli_verify(copy)
    assert result.returncode == 1
    [line] = result.stdout.splitlines()
    assert line.startswith("deal 2: move 1: 5C ")
    assert line.endswith("does not fit on AS") or "is not on top of pile" in line
    assert result.stderr == f"Error: verification failed: 1 problem(s) in {copy}\n"


@pytest.mark.parametrize("values, words", [
    ({"solution": None}, "deal 2: solved, but no solution"),
    ({"cards_played": 50}, "deal 2: solved, but cards_played is 50, and the solution plays 51"),
    ({"outcome": "unsolved"}, "deal 2: unsolved, but with a solution"),
    ({"outcome": "intractable", "solution": None, "cards_played": 30},
     "deal 2: intractable, but the run had no iteration limit"),
])
def test_rows_that_contradict_themselves(copy, values, words):
    rewrite(copy / "part-1-20-20.parquet", 1, **values)
    assert verify(str(copy)).problems == (words,)


def test_a_short_solution(copy):
    part = copy / "part-1-20-20.parquet"
    solution = pq.read_table(part)["solution"][1].as_py()
    rewrite(part, 1, solution=solution.rsplit(" ", 1)[0])
    assert verify(str(copy)).problems == ("deal 2: the line leaves 1 card in the piles",)


def test_duplicate_missing_and_extra_deals(copy):
    first_ten = pq.read_table(copy / "part-1-20-20.parquet").slice(0, 10)  # deals 1..10 again
    pq.write_table(first_ten, copy / "part-1-10-10.parquet")
    (copy / "part-21-40-20.parquet").unlink()
    manifest = json.loads(manifest_file(copy).read_text())
    manifest["deals"], manifest["total_deals"] = ["1-60", "ms1-ms10"], 70
    manifest_file(copy).write_text(json.dumps(manifest))
    result = cli_verify(copy)
    assert result.returncode == 1
    assert result.stdout.splitlines() == ["deals more than once: 1-10", "deals missing: 21-40",
                                          "deals not asked for by the manifest: ms11-ms20"]


def test_a_manifest_total_that_is_not_its_deals_count(copy):
    """total_deals 70 for a manifest of 60 deals passed verify; report and a resume take the deals as
    they are, and the resume writes the count again."""
    manifest = json.loads(manifest_file(copy).read_text())
    manifest_file(copy).write_text(json.dumps({**manifest, "total_deals": manifest["total_deals"] + 10}))
    result = cli_verify(copy)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [f"the manifest's total_deals is {manifest['total_deals'] + 10:,}, but its "
                                          f"deals hold {manifest['total_deals']:,} (the next run on this directory "
                                          "writes it again)"]
    assert cli("report", copy).returncode == 0
    assert cli("run", "--out", copy).returncode == 0
    assert json.loads(manifest_file(copy).read_text())["total_deals"] == manifest["total_deals"]
    assert cli_verify(copy).returncode == 0


def test_a_manifest_elapsed_time_that_is_not_its_sessions_sum(copy):
    """elapsed_seconds is the sum of the times its sessions recorded (README), each rounded to the
    millisecond as written: one 5 s off that sum passed verify (deals per second from it would be wrong)."""
    manifest = json.loads(manifest_file(copy).read_text())
    timed = manifest["sessions"][0]
    sessions = [{**timed, "elapsed_seconds": 0.1}, {**timed, "elapsed_seconds": None}, {**timed, "elapsed_seconds": 0.2}]
    manifest_file(copy).write_text(json.dumps({**manifest, "sessions": sessions, "elapsed_seconds": 0.3}))
    assert cli_verify(copy).returncode == 0  # 0.1 + 0.2 is 0.30000000000000004: no problem; a killed session counts none
    manifest_file(copy).write_text(json.dumps({**manifest, "sessions": sessions, "elapsed_seconds": 5.3}))
    result = cli_verify(copy)
    assert result.returncode == 1
    assert result.stdout.splitlines() == ["the manifest's elapsed_seconds is 5.300 s, but the sessions that recorded "
                                          "their time add up to 0.300 s"], result.stdout


def test_a_link_to_a_run_is_read_as_that_run(copy, tmp_path):
    """`latest -> copy` (a run made by its real name): verify said "there is no run in latest", and report and
    export read it as no run's, saying nothing of the deals its manifest asks for and it lacks (a hostile
    tester); they read the run beside the link's target. A run made under the link's name keeps its own."""
    (copy / "part-21-40-20.parquet").unlink()
    latest = tmp_path / "latest"
    latest.symlink_to(copy)
    result = cli_verify(latest)
    assert (result.returncode, result.stdout) == (1, "deals missing: 21-40\n"), result.stderr
    for command in (["report"], ["export", "--solvable"]):
        done = subprocess.run([str(SCRIPT), *command, str(latest)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and "the manifest asks for 80 deals, the dataset has 60 rows: 20 missing" in \
            " ".join((done.stdout + done.stderr).split()), done.stderr


def test_a_part_file_whose_name_lies(copy):
    (copy / "part-1-20-20.parquet").rename(copy / "part-1-19-20.parquet")
    assert verify(str(copy)).problems == ("part-1-19-20.parquet: holds deals 1-20, not what its name says",)


def test_files_of_another_schema_are_named(copy):
    pq.write_table(pa.table({"deal": [1, 2]}), copy / "part-1-20-20.parquet")
    assert verify(str(copy)).problems == (
        "part-1-20-20.parquet: its columns are deal, not game, deal, ms, outcome, iterations, cards_played, "
        "solution, seconds, deal_exact", "deals missing (or in the file above whose rows could not be read): 1-20")


def test_a_file_whose_deals_cannot_be_read_is_noted_beside_the_missing_deals(copy):
    part = copy / "part-1-20-20.parquet"
    table = pq.read_table(part)
    index = table.schema.get_field_index("deal")
    deals = [None, *table["deal"].to_pylist()[1:]]
    pq.write_table(table.set_column(index, table.schema.field(index), pa.array(deals, pa.int64())), part)
    problems = verify(str(copy)).problems
    assert problems[-1] == "deals missing (or in the file above whose rows could not be read): 1-20", problems


def test_not_a_run(tmp_path):
    result = cli_verify(tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == f"Error: there is no run in {tmp_path} (no {tmp_path}.run/manifest.json)\n"


def test_committed_results_are_not_runs():
    """results/*.parquet are compact copies without solutions or manifest: report reads them, verify says why not."""
    for name in ("deals.parquet", "classic_deals.parquet"):
        path = Path(__file__).parents[1] / "results" / name
        result = cli_verify(path)
        assert (result.returncode, result.stdout) == (1, "")
        assert result.stderr == f"Error: {path} is a file, not a run directory (report reads single files)\n"


def test_unfinished_files_are_named_and_only_ours_are_removed(copy):
    side = Path(f"{copy}.run")
    (copy / "._manifest.json.tmp").write_text("{")  # where 0.1.0 wrote them
    (side / ".manifest.json.tmp").write_text("{")
    (side / ".part-61-80-20.parquet.tmp").write_bytes(b"half a file")
    (copy / ".mine.tmp").write_text("someone's")
    (side / ".mine.tmp").write_text("someone's")
    unfinished = "unfinished file of an interrupted run (the next run on this directory removes it)"
    checked = verify(str(copy))
    assert checked.problems == (  # in DIR, polars would read them
        ".mine.tmp: not a file of this run, yet read by polars: move it out of the run directory",
        f"._manifest.json.tmp: {unfinished}")
    assert checked.notes == (f"copy.run/.manifest.json.tmp: {unfinished}",  # beside DIR: no reader sees them
                             f"copy.run/.part-61-80-20.parquet.tmp: {unfinished}")
    with pytest.raises(DatasetError, match=r"holds \.mine\.tmp, which is not a file of this run"):
        run(str(copy), None, workers=1)  # someone's file in DIR: readers would read it, so no rows beside it
    assert sorted(path.name for path in copy.glob(".*")) == ["._manifest.json.tmp", ".mine.tmp"]
    (copy / ".mine.tmp").rename(copy.parent / ".mine.tmp")
    assert run(str(copy), None, workers=1).solved_now == 0
    assert sorted(path.name for path in copy.glob(".*")) == []
    assert sorted(path.name for path in side.glob(".*")) == [".mine.tmp"]  # not read by any reader: kept


@pytest.mark.parametrize("values, words", [
    ({"deal_exact": "3"}, "1 row(s) with both deal and deal_exact set"),
    ({"deal": None, "deal_exact": "3"}, "deal_exact '3' is not a number past int64 in plain digits"),
    ({"deal": None, "deal_exact": None}, "row 3 has no game number (deal is null)"),
    ({"game": "klondike"}, "game 'klondike' is not one this version knows (black_hole, all_in_a_row, golf, "
                          "dead_king_golf, relaxed_golf)"),
])
def test_format_2_rows_that_break_its_rules(copy, values, words):
    rewrite(copy / "part-1-20-20.parquet", 2, **values)
    assert f"part-1-20-20.parquet: {words}" in verify(str(copy)).problems


@pytest.mark.parametrize("outcome, iterations, words", [
    ("intractable", 20, "intractable after 20 iterations, under the run's max_iters 1,000"),
    ("intractable", 10**12, "intractable after 1,000,000,000,000 iterations, over the run's max_iters 1,000"),
    ("unsolved", 1_001, "unsolved after 1,001 iterations, over the run's max_iters 1,000"),
])
def test_rows_must_fit_the_runs_budget(tmp_path, outcome, iterations, words):
    """A budgeted search stops exactly at its budget: fewer iterations cannot be intractable, more cannot be.

    Row 0 is deal 1, which the search refutes in 9 positions."""
    out = tmp_path / "run"
    run(str(out), DealSet.parse(["1-4"]), max_iters=1_000, workers=1, chunk_size=4)
    assert verify(str(out)).problems == ()
    (part,) = out.glob("part-*.parquet")
    rewrite(part, 0, iterations=iterations, outcome=outcome, solution=None, cards_played=0)
    assert any(words in problem for problem in verify(str(out)).problems), verify(str(out)).problems


def test_an_unfinished_file_beside_the_directory_is_a_note_not_a_failure(copy):
    """A chunk killed before its rename leaves a temporary file in DIR.run/: no reader of DIR sees it, and
    the deals it would have held are reported missing if the run never finished them, so the data passes."""
    (Path(f"{copy}.run") / ".part-ms1-ms20-20.parquet.tmp").write_bytes(b"half a file")
    result = cli_verify(copy)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "note: copy.run/.part-ms1-ms20-20.parquet.tmp: unfinished file of an interrupted run (the next run on this "
        "directory removes it)",
        "ok: 80 rows, every deal of the manifest exactly once, every solution replays legally, no other files "
        "for readers to pick up",
        "deals without a winning line solved again: 4 of 8 (the first of each file; --solve-again: every deal)"]
    (copy / "part-ms1-ms20-20.parquet").unlink()  # what such a kill really loses: that chunk's deals
    result = cli_verify(copy)
    assert result.returncode == 1 and "deals missing: ms1-ms20" in result.stdout


def test_a_null_ms_is_named_in_a_difficulty_run_too(tmp_path):
    """A file whose ms column was rewritten with a null (nullable now): verify named it in a plain run but
    gave a traceback in a --difficulty run, whose scores it checks first; before GameNumber refused a null
    ms it was read as no ms deal, silently."""
    out = tmp_path / "run"
    assert subprocess.run([str(SCRIPT), "run", "--range", "1-6", "--difficulty", "--out", str(out)],
                          capture_output=True, timeout=120).returncode == 0
    for part in out.glob("part-*.parquet"):
        table = pq.read_table(part)
        index = table.schema.get_field_index("ms")
        column = [None, *table["ms"].to_pylist()[1:]]
        pq.write_table(table.set_column(index, pa.field("ms", pa.bool_()), pa.array(column, pa.bool_())), part)
    result = cli_verify(out)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "invalid ms flag None" in result.stdout + result.stderr


def test_verify_says_how_many_difficulty_scores_it_computed_again(tmp_path):
    """A solved deal's score and tag changed together (2.06 easy to 2.4 very hard) passed `--solve-again`
    with "ok", nothing saying that only the first solved deal's score of each file is computed again
    (helper 138). The count is said; the first one's change is found."""
    out = tmp_path / "run"
    assert subprocess.run([str(SCRIPT), "run", "--range", "1-12", "--difficulty", "--chunk-size", "4", "--out",
                           str(out)], capture_output=True, timeout=120).returncode == 0
    parts = sorted(out.glob("part-*.parquet"))
    with_solved = [part for part in parts if "solved" in pq.read_table(part)["outcome"].to_pylist()]
    for command in (["verify", str(out)], ["verify", str(out), "--solve-again"]):
        result = subprocess.run([str(SCRIPT), *command], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0 and result.stdout.splitlines()[-1] == (
            f"difficulty scores computed again: {len(with_solved)}, the first solved deal's of each file; every "
            "other score is checked against its tag"), result.stdout
    table = pq.read_table(with_solved[0])
    first = table["outcome"].to_pylist().index("solved")
    rewrite(with_solved[0], first, difficulty=4.9, tag="very hard")
    result = cli_verify(out)
    assert result.returncode == 1 and "stored, " in result.stdout and "computed again" in result.stdout, result.stdout
    game = table["deal"][first]
    for values, lacking in (({"difficulty": None}, "a difficulty score"), ({"tag": None}, "a tag")):
        rewrite(with_solved[0], first, **{"difficulty": 4.9, "tag": "very hard", **values})
        result = cli_verify(out)  # was "without a difficulty and tag" either way (helper 140)
        assert f"deal {game}: solved, but without {lacking}\n" in result.stdout, result.stdout


@pytest.mark.parametrize("score", [float("nan"), -1.0])
def test_a_damaged_score_is_a_problem_not_a_traceback(tmp_path, score):
    """Once Scale.tag refused what is no score, verify's tag check raised on it (a ValueError traceback)."""
    out = tmp_path / "run"
    assert subprocess.run([str(SCRIPT), "run", "--range", "1-6", "--difficulty", "--out", str(out)],
                          capture_output=True, timeout=120).returncode == 0
    part = next(path for path in sorted(out.glob("part-*.parquet")) if "solved" in pq.read_table(path)["outcome"].to_pylist())
    table = pq.read_table(part)
    solved = table["outcome"].to_pylist().index("solved")
    scores = table["difficulty"].to_pylist()
    scores[solved] = score
    index = table.schema.get_field_index("difficulty")
    pq.write_table(table.set_column(index, table.schema.field(index), pa.array(scores, pa.float64())), part)
    result = cli_verify(out)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"column difficulty has {score}" in result.stdout, result.stdout


@pytest.mark.parametrize("column, value, words", [
    ("seconds", -1.0, "column seconds has -1.0; it must hold numbers from 0 to 1,000,000,000"),
    ("seconds", float("inf"), "column seconds has inf"),
    ("seconds", 1e308, "column seconds has 1e+308; it must hold numbers from 0 to 1,000,000,000"),  # (helper 135:
    # report --format json summed two to inf: a traceback)
    ("iterations", -5, "column iterations has -5; it must hold whole numbers from 0"),
    ("seconds", None, "column seconds has missing"),
    ("iterations", None, "column iterations has missing"),
])
def test_values_report_refuses_are_problems(copy, column, value, words):
    """verify said "ok" for a negative or infinite time and a negative count, which report and export refuse."""
    part = sorted(copy.glob("part-*"))[0]
    rewrite(part, 3, **{column: value})
    checked = verify(str(copy))
    assert [problem for problem in checked.problems if words in problem] == [
        problem for problem in checked.problems if problem.startswith(part.name)], checked.problems
    assert any(words in problem for problem in checked.problems)
    report_run = subprocess.run([str(SCRIPT), "report", str(copy)], capture_output=True, text=True, timeout=60)
    assert report_run.returncode == 1 and words in report_run.stderr


@pytest.mark.parametrize("max_iters", [None, 2_000])
def test_a_missing_iteration_count_is_named_without_a_traceback(tmp_path, max_iters):
    """A row whose iterations were nulled: the budget check compared None with max_iters, and solving the
    row again showed None as a count (tracebacks, helper review); the file's problem names it."""
    out = tmp_path / "run"
    run(str(out), DealSet.parse(["1-20"]), max_iters=max_iters, workers=1, chunk_size=20)
    (part,) = out.glob("part-*.parquet")
    outcomes = pq.read_table(part)["outcome"].to_pylist()
    for row in (0, outcomes.index("intractable")) if max_iters else (0,):  # deal 1: the file's first unsolved
        rewrite(part, row, iterations=None)
    result = cli_verify(out)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "part-1-20-20.parquet: column iterations has missing values" in result.stdout.splitlines()
    assert "deal 1: stored unsolved, iterations missing, 3 cards played; solved again: unsolved, " \
           in result.stdout, result.stdout


def test_a_later_version_s_search_is_named_not_solved_with(copy):
    """A manifest naming a search this version does not have: its files are named as of other settings,
    and the rows without a line are solved again without a budget, not with that search (a traceback)."""
    manifest = json.loads(manifest_file(copy).read_text())
    manifest["search"] = "quantum"
    manifest_file(copy).write_text(json.dumps(manifest))
    checked = verify(str(copy), solve_again=True)
    assert checked.solved_again == checked.unreplayed == 8
    assert len(checked.problems) == 4 and all("search=\"quantum\"" in problem for problem in checked.problems)
