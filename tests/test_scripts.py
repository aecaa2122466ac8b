"""The measuring scripts still run and measure what they say: the figures in README come from them."""
from __future__ import annotations

import contextlib
import csv
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import (REPO, SCRIPT, fill_up, pause_env, release_pause, require_reference, signal_at_pause, state,
                      tmpfs, until, wait_for_pause)

pytestmark = pytest.mark.skipif(not (REPO / "scripts").is_dir(), reason="scripts/ is in the repository, not the sdist")


def script(name: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "scripts" / name), *args], capture_output=True,
                          text=True, timeout=600)


def test_bench_solver_times_three_ways_and_agrees_with_the_peer(tmp_path):
    with require_reference("peer_1_1000.csv").open(newline="") as handle:
        solved = sum(row["outcome"] == "solved" for row in csv.DictReader(handle) if int(row["deal"]) <= 60)
    result = script("bench_solver.py", "--deals", "1-60", "--summary", str(tmp_path / "bench" / "solver.json"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    written = json.loads((tmp_path / "bench" / "solver.json").read_text())["searches"]["fast"]
    for name, measure in zip(("raw C search (_core.Solver.solve)", "Solver.solve(board) (the API)",
                              "Solver.solve_deal(n) (what runs do)"), written["measures"], strict=True):
        [line] = [line for line in lines if name in line]
        median, low, high = map(float, re.search(r"([\d.]+) \[([\d.]+)\.\.([\d.]+)\]", line).groups())
        assert 0 < low <= median <= high
        assert measure["name"] == name and (median, low, high) == tuple(
            round(measure[key], 3) for key in ("median", "min", "max"))  # the summary is what was printed
    assert written["solved"] == solved
    assert f"solved {solved}/60" in result.stdout and "median of 5 repeats" in result.stdout


def test_bench_scripts_refuse_fewer_than_five_repeats():
    for name in ("bench_solver.py", "bench_run.py", "bench_difficulty.py"):
        result = script(name, "--repeats", "4")
        assert result.returncode == 2 and "at least 5" in result.stderr


@pytest.mark.parametrize("name", ["bench_builds.py", "bench_difficulty.py", "bench_readers.py", "bench_run.py",
                                  "bench_solver.py", "bench_startup.py", "check_compilers.py", "check_deal_hash.py",
                                  "check_peer.py", "check_results.py", "difficulty_research.py",
                                  "difficulty_scale.py", "simulate_scale.py", "study.py", "ten_million.py",
                                  "validate_difficulty.py", "winnable_bitmap.py"])
def test_a_script_s_usage_error_is_one_line(name):
    """argparse printed its usage line (two or three for a long one) above the error (benchlib.Parser)."""
    result = script(name, "--bogus")  # (or the arguments a few require are missing, said first)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert re.fullmatch(rf"{name}: error: (unrecognized arguments: --bogus|the following arguments are required: "
                        r"[-\w, ]+)\n", result.stderr), result.stderr


@pytest.mark.parametrize("name", ["check_results.py", "check_peer.py", "difficulty_scale.py", "validate_difficulty.py",
                                  "bench_solver.py", "bench_run.py", "bench_builds.py", "bench_difficulty.py",
                                  "bench_startup.py", "bench_readers.py"])
def test_scripts_say_in_one_line_that_standard_output_is_full(name):
    """`--help > /dev/full`: the interpreter's last flush failed, "Exception ignored" and its traceback."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, str(REPO / "scripts" / name), "--help"], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (1, f"{name}: cannot write to standard output: No space left on device\n")


@pytest.mark.parametrize("name, args, message", [
    ("difficulty_scale.py", ["--step", "0"], "argument --step: 0 is less than 1"),  # were tracebacks
    ("difficulty_scale.py", ["--last", "500", "--step", "1000"], "--last 500 is below --step 1000"),
    ("difficulty_scale.py", ["--game", "nonsense"], "unknown game 'nonsense'"),
    ("difficulty_scale.py", ["--last", "2000000"],  # was taken: a scale fixed on the deals that validate it
     "--last 2,000,000: the scale's deals end at 1,000,000; those above are validate_difficulty.py's"),
    ("validate_difficulty.py", ["--range", "abc"], "--range must be FIRST-LAST, not 'abc'"),
    ("validate_difficulty.py", ["--range", "5-1"], "--range 5-1 holds no deal"),  # was an empty VALIDATION.md
    ("validate_difficulty.py", ["--budgets", "0,-1"], "argument --budgets: 0 is less than 1"),
    ("validate_difficulty.py", ["--budgets", "10,10"], "--budgets 10,10: give them rising, each once"),
    ("check_peer.py", ["--csv", "/dev/null"], "/dev/null has no column deal, iterations, max_played, outcome"),
    ("check_peer.py", ["--csv", "nonexistent.csv"], "cannot read nonexistent.csv: No such file or directory"),
    ("check_peer.py", ["--game", "nope"], "unknown game 'nope'"),
    ("check_peer.py", ["--csv", str(REPO / "tests" / "conftest.py")], "has no column deal, iterations, max_played"),
    ("study.py", ["--game", "golf", "--classic", "1-500"],  # were taken and ignored
     "--classic: Golf's study has no classic run (the classic search plays Black Hole only)"),
    ("study.py", ["--family", "--deals", "1-5"], "--deals is not used with --family, which writes from what"),
    ("study.py", ["--family", "--game", "golf"], "--game is not used with --family"),
    ("study.py", ["--comparisons", "--runs", "elsewhere"], "--runs is not used with --comparisons"),
    ("study.py", ["--deals", ""], "--deals: bad deal range ''"),  # (was the whole million for a moment)
])
def test_study_scripts_refuse_bad_options_in_one_line(tmp_path, name, args, message):
    result = script(name, *args, *(["--results", str(tmp_path / "results")] if name != "check_peer.py" else []))
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"{name}: error: ") and message in result.stderr, result.stderr
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("name, args, message", [
    ("bench_solver.py", ["--deals", "x"], "--deals must be FIRST-LAST, not 'x'"),  # were tracebacks
    ("bench_solver.py", ["--deals", "0-10"], "--deals 0-10: game numbers start at 1"),
    ("bench_solver.py", ["--deals", "3-"], "--deals must be FIRST-LAST, not '3-'"),  # was deal 3 alone
    ("bench_run.py", ["--range", "x"], "--range: bad deal range 'x': expected N, A-B, msN or msA-msB (digits only, "
                                       "',' between items)"),  # a DealSpecError traceback
    ("bench_difficulty.py", ["--deals", "5-1"], "--deals 5-1 holds no deal"),
    ("bench_builds.py", ["--base", "HEAD", "--deals", "50-1"], "--deals 50-1 holds no deal"),  # ZeroDivisionError
    ("bench_run.py", ["--chunk-size", "0"], "argument --chunk-size: 0 is less than 1"),  # was dropped, unsaid
    ("bench_solver.py", ["--summary", "/dev/null"], "--summary /dev/null: no file can be written there"),  # once timed
    ("bench_run.py", ["--range", "1-3", "--baseline", "/"], "--baseline /: Permission denied"),  # tracebacks once
    ("bench_run.py", ["--range", "1-3", "--baseline", "/bin/false"],                      # timing had started
     "--baseline /bin/false: `/bin/false --version` exited with status 1"),
    ("bench_difficulty.py", ["--deals", "1-3", "--baseline", "/nonexistent"],
     "--baseline /nonexistent: No such file or directory"),
    ("bench_startup.py", ["--deal", "0"], "argument --deal: invalid game number 0: numbers start at 1"),  # tracebacks
    ("bench_readers.py", ["--results", "/etc"], "--results /etc: no deals.parquet in it (the study's compact rows)"),
    ("check_deal_hash.py", ["--pysol-cards", "0"], "argument --pysol-cards: 0 is less than 1"),  # ignored
    ("check_results.py", ["--max-iters", str(10**23)],  # a ValueError traceback from each worker
     f"argument --max-iters: {10**23} is more than {2**63 - 1} (2^63-1)"),
])
def test_bench_scripts_refuse_bad_options_before_measuring(name, args, message):
    result = script(name, *args)
    assert result.returncode == 2 and result.stderr == f"{name}: error: {message}\n", result.stderr


@pytest.mark.skipif(not shutil.which(os.environ.get("CC", "cc").split()[0]), reason="no C compiler (cc or $CC)")
def test_bench_builds_times_two_builds_and_names_one_that_answers_differently(tmp_path):
    """The script README's comparisons of two builds come from: the same source twice agrees; one whose
    first try is longer (other iterations, other lines) is caught, exit 1."""
    source = REPO / "blackhole_stats" / "_core.c"
    same = script("bench_builds.py", "--base", str(source), "--other", str(source), "--game", "golf",
                  "--deals", "1-20", "--repeats", "5", "--summary", str(tmp_path / "same.json"))
    assert same.returncode == 0, same.stderr
    assert "deals answered differently: 0" in same.stdout
    summary = json.loads((tmp_path / "same.json").read_text())
    assert summary["differing"] == 0 and summary["seconds"]["base"]["median"] > 0
    longer = tmp_path / "longer.c"
    text = source.read_text()
    assert "#define FIRST_LOOK 1000\n" in text
    longer.write_text(text.replace("#define FIRST_LOOK 1000\n", "#define FIRST_LOOK 5000\n"))
    other = script("bench_builds.py", "--base", str(source), "--other", str(longer), "--game", "golf",
                   "--deals", "1-20", "--repeats", "5")
    answered = re.search(r"deals answered differently: (\d+)", other.stdout)
    assert other.returncode == 1 and answered and int(answered[1]) > 0, (other.stdout, other.stderr)
    heights = script("bench_builds.py", "--base", str(source), "--other", str(source), "--deals", "1-3",
                     "--search", "heights")  # Black Hole's 17 piles of 3: a ValueError traceback once timing
    assert (heights.returncode, heights.stderr) == (2, "bench_builds.py: error: --search heights: the base build "
                                                       "refuses it for Black Hole: the heights search covers layouts "
                                                       "of at most 2^20 pile-height vectors\n")


def test_bench_difficulty_times_the_score_of_each_winnable_deal_against_a_baseline(tmp_path):
    with require_reference("peer_1_1000.csv").open(newline="") as handle:
        solved = sum(row["outcome"] == "solved" for row in csv.DictReader(handle) if int(row["deal"]) <= 12)
    result = script("bench_difficulty.py", "--deals", "1-12", "--baseline", sys.executable,
                    "--summary", str(tmp_path / "difficulty.json"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Black Hole, deals 1-12: {solved} winnable;")
    assert "scores bit-identical" in result.stdout
    written = json.loads((tmp_path / "difficulty.json").read_text())
    assert written["winnable"] == solved and written["command"].endswith(f"--baseline {sys.executable}")
    for name in ("this build", "baseline"):
        [line] = [line for line in result.stdout.splitlines() if line.strip().startswith(name)]
        median, low, high = map(float, re.search(r"([\d.]+)  \(([\d.]+)\.\.([\d.]+)\)", line).groups())
        figure = written["score_cpu_ms_per_winnable_deal"][name]
        assert 0 < low <= median <= high and median == round(figure["median"], 2)


def test_bench_difficulty_fails_when_the_baseline_scores_differently(tmp_path):
    """A baseline whose score walks 8 times instead of 16 (as another definition would): exit 1, named."""
    other = tmp_path / "other-python"
    other.write_text(f"""#!/bin/sh
exec {sys.executable} -c 'import os, runpy, sys
import blackhole_stats.difficulty as scoring
scoring.WALKS = 8
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(sys.argv[0]))
runpy.run_path(sys.argv[0], run_name="__main__")' "$@"
""")
    other.chmod(0o755)
    result = script("bench_difficulty.py", "--deals", "2-6", "--baseline", str(other))
    assert result.returncode == 1 and "scores differ from the baseline's" in result.stderr, result.stderr
    assert "DIFFER" in result.stdout


def test_check_peer_finds_no_mismatch_with_the_fast_search():
    peer = require_reference("peer_1_1000.csv")
    result = script("check_peer.py", "--csv", str(peer), "--skip-classic")
    assert result.returncode == 0 and result.stdout.startswith("fast: 1000 deals, 0 mismatches"), result.stdout


def test_bench_solver_times_a_game_of_the_family_against_the_peer_s_seconds():
    with require_reference("family/peer_relaxed_golf_1_1000.csv").open(newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if int(row["deal"]) <= 20]
    peer = sum(float(row["cpu_seconds"]) for row in rows)
    solved = sum(row["outcome"] == "solved" for row in rows)
    result = script("bench_solver.py", "--game", "260", "--deals", "1-20")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("PySolFC Relaxed Golf deals 1..20")
    assert f"the peer's: {peer:.1f}" in result.stdout and f"solved {solved}/20" in result.stdout
    assert "peer/this" in result.stdout
    refused = script("bench_solver.py", "--game", "golf", "--classic")
    assert refused.returncode == 2 and "only the fast search" in refused.stderr


def test_bench_solver_by_outcome_sums_each_class_of_the_peer_s_deals():
    """--by-outcome: where the time goes, class by class of the peer's outcome and most cards played, each
    class's deals and the peer's seconds as its CSV has them."""
    with require_reference("family/peer_all_in_a_row_1_1000.csv").open(newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if int(row["deal"]) <= 40]
    result = script("bench_solver.py", "--game", "all_in_a_row", "--deals", "1-40", "--by-outcome")
    assert result.returncode == 0, result.stderr
    table = result.stdout.split("raw C search by the peer's outcome", 1)[1].splitlines()[2:]
    shown = {line[:36].strip(): line[36:].split() for line in table if line.strip()}
    assert int(shown["all"][0]) == 40 and float(shown["all"][1]) == pytest.approx(
        sum(float(row["cpu_seconds"]) for row in rows), abs=1e-3)
    solved = [row for row in rows if row["outcome"] == "solved"]
    assert int(shown["solved"][0]) == len(solved)
    assert float(shown["solved"][1]) == pytest.approx(sum(float(row["cpu_seconds"]) for row in solved), abs=1e-3)
    most = max(int(row["max_played"]) for row in rows if row["outcome"] != "solved")
    assert int(shown[f"unsolved, at most {most} played"][0]) == \
        sum(row["outcome"] != "solved" and int(row["max_played"]) == most for row in rows)
    assert sum(int(counts[0]) for name, counts in shown.items() if name != "all") == 40
    refused = script("bench_solver.py", "--by-outcome")  # Black Hole: the peer's CSV has no seconds
    assert refused.returncode == 2 and "--by-outcome needs the peer's seconds" in refused.stderr


def test_check_peer_checks_a_game_of_the_family():
    require_reference("family/peer_all_in_a_row_1_1000.csv")
    result = script("check_peer.py", "--game", "All in a Row")
    assert result.returncode == 0 and result.stdout.startswith("fast: 1000 deals, 0 mismatches"), result.stdout


def test_committed_scale_report_is_what_its_measurements_render():
    """results/SCALE.md's figures come from results/scale.json through the script, not from a hand."""
    committed = (REPO / "results" / "SCALE.md").read_text()
    rendered = subprocess.run([sys.executable, str(REPO / "scripts" / "simulate_scale.py"),
                               "--render", str(REPO / "results" / "scale.json")],
                              capture_output=True, text=True, check=True).stdout
    assert rendered == committed


def assert_says_where_its_plots_are(stderr: str, plots: Path) -> None:
    """A study's "wrote" lines name its plots where they are once it is done: they named the temporary folder
    the report wrote them into, which was gone by then."""
    wrote = [line for line in stderr.splitlines() if line.startswith("wrote ")]
    assert wrote and all(Path(line[len("wrote "):]).parent == plots and Path(line[len("wrote "):]).is_file()
                         for line in wrote), stderr


def test_study_of_a_family_game_makes_its_results_and_the_side_by_side_table(tmp_path):
    """`study.py --game G` on a small range: the run, its files under RESULTS/G/, and FAMILY.md (the peer's
    verdicts for deals 1..40 of Relaxed Golf are the reference)."""
    with require_reference("family/peer_relaxed_golf_1_1000.csv").open(newline="") as handle:
        outcomes = [row["outcome"] for row in csv.DictReader(handle) if int(row["deal"]) <= 40]
    results = tmp_path / "results"
    for deals in ("1-25", "1-40"):  # a study resumed with more deals: its timings add up
        result = script("study.py", "--game", "260", "--deals", deals, "--runs", str(tmp_path / "runs"),
                        "--results", str(results))
        assert result.returncode == 0, result.stderr
        assert_says_where_its_plots_are(result.stderr, results / "relaxed_golf" / "plots")
    folder = results / "relaxed_golf"
    assert sorted(path.name for path in folder.iterdir()) == [
        "COMPARE_peer_1_1000.md", "REPORT.md", "deals.parquet", "plots", "relaxed_golf_1_40.bits", "study.json"]
    facts = json.loads((folder / "study.json").read_text())
    assert (facts["fast"]["solved"], facts["fast"]["unsolved"]) == (outcomes.count("solved"), outcomes.count("unsolved"))
    assert facts["vs_peer"] == {"deals": 40, "verdicts_differ": 0, "unsolved_cards_played_differ": 0}
    assert [session["deals_solved"] for session in facts["sessions"]] == [25, 15]
    assert (facts["timing"]["deals_solved"], facts["timing"]["sessions"]) == (40, 2)
    bits = (folder / "relaxed_golf_1_40.bits").read_bytes()
    assert [bits[k // 8] >> (k % 8) & 1 for k in range(40)] == [outcome == "solved" for outcome in outcomes]
    assert (folder / "REPORT.md").read_text().startswith("# Relaxed Golf report: ")
    family = (results / "FAMILY.md").read_text()
    assert "| Relaxed Golf (`relaxed_golf`) | 1..40 | " in family and "Not studied yet: Black Hole" in family
    comparison = folder / "COMPARE_peer_1_1000.md"  # made again from the compact rows alone, nothing run
    made, run_record = comparison.read_bytes(), (tmp_path / "runs" / "relaxed_golf.run" / "manifest.json").read_bytes()
    comparison.write_text("stale\n")
    again = script("study.py", "--game", "relaxed_golf", "--comparisons", "--results", str(results))
    assert (again.returncode, comparison.read_bytes()) == (0, made), again.stderr
    assert (tmp_path / "runs" / "relaxed_golf.run" / "manifest.json").read_bytes() == run_record  # no run
    elsewhere = tmp_path / "elsewhere.csv"  # a peer's CSV of other deals: the comparison was removed, exit 0
    elsewhere.write_text("deal,outcome,iterations,max_played\n2000001,solved,10,51\n")
    kept = script("study.py", "--game", "relaxed_golf", "--comparisons", "--peer", str(elsewhere),
                  "--results", str(results))
    assert (kept.returncode, kept.stderr, comparison.read_bytes()) == (
        1, f"study --comparisons: {folder / 'deals.parquet'} and {elsewhere} share no deal: nothing to compare\n",
        made)
    (results / "damaged" / "relaxed_golf").mkdir(parents=True)  # cut short: a DatasetError traceback
    (results / "damaged" / "relaxed_golf" / "deals.parquet").write_bytes((folder / "deals.parquet").read_bytes()[:900])
    damaged = script("study.py", "--game", "relaxed_golf", "--comparisons", "--results", str(results / "damaged"))
    assert damaged.returncode == 1 and damaged.stderr.count("\n") == 1 and damaged.stderr.startswith(
        f"study --comparisons: {results / 'damaged' / 'relaxed_golf' / 'deals.parquet'}"), damaged.stderr
    missing = script("study.py", "--game", "golf", "--comparisons", "--results", str(results))
    assert (missing.returncode, missing.stderr) == (
        1, f"study --comparisons: no {results / 'golf' / 'deals.parquet'}: the study of Golf writes it\n")


def test_a_study_of_deals_the_peer_never_solved_goes_without_its_comparison(tmp_path):
    """`study.py --game G --deals 2001-2010` failed on the peer comparison (the two share no deal), and
    again on every rerun; `--family` with a --results folder that does not exist was a traceback."""
    result = script("study.py", "--game", "relaxed_golf", "--deals", "2001-2010", "--runs", str(tmp_path / "runs"),
                    "--results", str(tmp_path / "results"))
    assert result.returncode == 0, result.stderr
    assert "shares no deal with" in result.stderr and "no peer comparison" in result.stderr, result.stderr
    folder = tmp_path / "results" / "relaxed_golf"
    assert sorted(path.name for path in folder.iterdir()) == ["REPORT.md", "deals.parquet", "plots", "study.json"]
    facts = json.loads((folder / "study.json").read_text())
    assert "vs_peer" not in facts and facts["fast"]["deals"] == 10
    refused = script("study.py", "--family", "--results", str(tmp_path / "none"))
    assert refused.returncode == 2 and ": no folder (" in refused.stderr and "Traceback" not in refused.stderr


def test_a_study_refuses_a_run_of_another_game_or_of_other_deals_before_writing_anything(tmp_path):
    """A Golf run as RUNS/million was resumed as it was, and its report, compact rows and a comparison of
    Black Hole's classic run with Golf's fast one were written as Black Hole's results; a run holding more
    deals than --deals gave the figures of all of them. FAMILY.md named ms deals and gaps 'first..last'."""
    runs, results = tmp_path / "runs", tmp_path / "results"
    made = subprocess.run([str(SCRIPT), "run", "--range", "1-12", "--game", "golf", "--out", str(runs / "million"),
                           "--workers", "1"], capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr
    (runs / "million").rename(runs / "golf")
    (runs / "million.run").rename(runs / "golf.run")
    (runs / "million").symlink_to(runs / "golf")
    (runs / "million.run").symlink_to(runs / "golf.run")
    held = sorted((runs / "golf").iterdir())
    for args, words in ((["--deals", "1-12"], "runs/million is a run of Golf, not Black Hole: give another --runs"),
                        (["--game", "golf", "--deals", "1-10"], "runs/golf asks for deals 11-12 beyond --deals 1-10")):
        refused = script("study.py", *args, "--runs", str(runs), "--results", str(results))
        assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
        assert refused.stderr.startswith("study stopped before writing anything: ") and words in refused.stderr
    assert not results.exists() and sorted((runs / "golf").iterdir()) == held
    done = script("study.py", "--game", "golf", "--deals", "1-12,ms3-ms5", "--runs", str(runs), "--results", str(results))
    assert done.returncode == 0, done.stderr
    assert "| Golf (`golf`) | 1..12, ms3..ms5 | " in (results / "FAMILY.md").read_text()
    manifest = runs / "golf.run" / "manifest.json"  # damaged: one line, not a traceback
    manifest.write_text(manifest.read_text().replace('"1-12"', '"1-12x"'))
    refused = script("study.py", "--game", "golf", "--deals", "1-12", "--runs", str(runs), "--results", str(results))
    assert refused.returncode == 1 and "Traceback" not in refused.stderr, refused.stderr
    assert refused.stderr.startswith("study stopped: ") and "manifest" in refused.stderr, refused.stderr


@pytest.mark.parametrize("game, folder, options", [("relaxed_golf", "relaxed_golf", ["--max-iters", "100"]),
                                                   ("black_hole", "million", ["--search", "classic"])])
def test_a_study_refuses_a_run_of_other_settings_before_writing_anything(tmp_path, game, folder, options):
    """A run made with --max-iters was resumed as it was (a ten-million study grew one to 280,500 deals
    that no bitmap can hold, intractable ones among them), and a classic run taken for the fast one."""
    runs, results = tmp_path / "runs", tmp_path / "results"
    made = subprocess.run([str(SCRIPT), "run", "--range", "1-12", *options, "--out", str(runs / folder),
                           "--game", game, "--workers", "1"], capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr
    refused = script("study.py", *(["--game", game] if game != "black_hole" else []), "--deals", "1-12",
                     "--runs", str(runs), "--results", str(results))
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
    assert refused.stderr.startswith("study stopped before writing anything: ") and \
        "is a run made with --search" in refused.stderr and not results.exists(), refused.stderr


def test_a_study_whose_results_cannot_be_written_stops_before_it_runs(tmp_path):
    """A read-only --results: the study solved every deal, then died in a traceback writing study.json, its
    runs' timings lost, so that every rerun refused for want of them until the runs were solved again."""
    with tmpfs(tmp_path / "mnt", size="1m") as mount:
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        refused = script("study.py", "--game", "relaxed_golf", "--deals", "1-10", "--runs", str(tmp_path / "runs"),
                         "--results", str(mount / "results"))
    assert refused.returncode == 1 and "Traceback" not in refused.stderr, refused.stderr
    assert refused.stderr.splitlines()[-1] == (f"study stopped before writing anything: --results {mount / 'results'}"
                                               "/relaxed_golf: Read-only file system"), refused.stderr
    assert not (tmp_path / "runs").exists()  # nothing solved for results it could not write


def test_a_study_reads_a_run_where_0_1_0_kept_its_manifest_and_needs_its_timings(tmp_path):
    """check_run looked beside RUN only: a 0.1.0 run (its manifest inside) of deals 1..14 was resumed and
    reported for --deals 1-12. Complete runs and a new --results (no study.json with their times) ended
    in a traceback after most results were written."""
    from conftest import make_0_1_0_run

    runs = tmp_path / "runs"
    made = subprocess.run([str(SCRIPT), "run", "--range", "1-14", "--out", str(runs / "million"), "--workers", "1"],
                          capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr
    make_0_1_0_run(runs / "million")
    refused = script("study.py", "--deals", "1-12", "--classic", "1-12", "--runs", str(runs), "--results",
                     str(tmp_path / "results"))
    assert refused.returncode == 1 and "asks for deals 13-14 beyond --deals 1-12" in refused.stderr, refused.stderr
    first = script("study.py", "--deals", "1-14", "--classic", "1-14", "--runs", str(runs), "--results",
                   str(tmp_path / "results"))
    assert first.returncode == 1 and "timing" not in first.stderr, first.stderr  # the upgraded fast run: no time
    assert first.stderr.splitlines()[-1].startswith("study stopped before writing its results: the fast run had "
                                                    "nothing left to solve"), first.stderr
    assert not (tmp_path / "results" / "REPORT.md").exists()


def test_the_ten_million_study_refuses_a_run_it_did_not_make_before_writing_anything(tmp_path):
    """A Golf run (or a short Black Hole one) given as --run: `--skip-run` packed its 300 verdicts over the
    ten-million bitmap, then died of a traceback; without it, the Golf run was extended to ten million
    Golf deals. A --million that is not there was a traceback after the bitmap was written."""
    results = tmp_path / "results"
    results.mkdir()
    (results / "black_hole_1_10000000.bits").write_bytes(b"committed")
    million = REPO / "results" / "winnable" / "black_hole_1_1000000.bits"
    for game, flags in (("golf", []), ("black_hole", []), ("scored", ["--difficulty"])):
        made = subprocess.run([str(SCRIPT), "run", "--range", "1-12", "--game", game.replace("scored", "black_hole"),
                               "--out", str(tmp_path / game), "--workers", "1", *flags],
                              capture_output=True, text=True, timeout=600)
        assert made.returncode == 0, made.stderr
    for args, code, words in (  # (the last would start ten million Golf deals if the others did not stop first)
            (["--run", str(tmp_path / "golf"), "--skip-run"], 1, "is a run of Golf, not Black Hole: give another --run"),
            (["--run", str(tmp_path / "black_hole"), "--skip-run"], 2, "is no run of deals 1-10000000"),
            (["--run", str(tmp_path / "scored"), "--skip-run"], 2, "is no run of deals 1-10000000"),  # (nothing solved)
            (["--run", str(tmp_path / "black_hole"), "--million", str(tmp_path / "none")], 2, "no such file"),
            # a sample run was taken over, asked for ten million deals (helper 149), a scored one scored them all
            (["--run", str(tmp_path / "black_hole")], 1, "asks for deals 1-12, not the study's 1-10000000: the study "
                                                         "would ask it for all of them; give another --run"),
            (["--run", str(tmp_path / "scored")], 1, "scored asks for deals 1-12, not the study's 1-10000000"),
            (["--run", str(tmp_path / "golf")], 1, "is a run of Golf")):
        refused = script("ten_million.py", *args, *([] if "--million" in args else ["--million", str(million)]),
                         "--results", str(results))
        assert refused.returncode == code and "Traceback" not in refused.stderr, refused.stderr
        assert words in refused.stderr.splitlines()[-1], refused.stderr
    assert sorted(path.name for path in results.iterdir()) == ["black_hole_1_10000000.bits"]
    fresh = tmp_path / "fresh"  # refused with --skip-run: no results folder made for nothing (helper 153)
    assert script("ten_million.py", "--run", str(tmp_path / "scored"), "--skip-run", "--million", str(million),
                  "--results", str(fresh)).returncode == 2 and not fresh.exists()
    assert (results / "black_hole_1_10000000.bits").read_bytes() == b"committed"
    for game in ("golf", "black_hole", "scored"):
        assert json.loads((tmp_path / f"{game}.run" / "manifest.json").read_text())["deals"] == ["1-12"]


def test_a_small_black_hole_study_runs_a_classic_run_as_small(tmp_path):
    """`study.py --deals 1-10` went on to the default classic run of deals 1..10,000 (17 minutes here); a
    classic run too small for a spread of each outcome is one line (deals 1..20 hold one unsolved deal).
    Its README's command to reproduce it named no --deals: it would have run the million."""
    require_reference("peer_1_1000.csv")
    folders = ["--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results")]
    small = script("study.py", "--deals", "1-20", *folders)
    assert small.returncode == 1 and "Traceback" not in small.stderr, small.stderr
    assert small.stderr.splitlines()[-1].startswith("study stopped before writing its results: the classic run "
                                                    "(1-20) holds 19 solved and 1 unsolved deals"), small.stderr
    assert not (tmp_path / "results" / "REPORT.md").exists()  # no results of a study that cannot finish
    result = script("study.py", "--deals", "1-30", *folders)  # goes on from there
    assert result.returncode == 0, result.stderr
    facts = json.loads((tmp_path / "results" / "study.json").read_text())
    assert (facts["fast"]["deals"], facts["classic"]["deals"]) == (30, 30)
    assert facts["classic_vs_fast"]["verdicts_differ"] == 0
    readme = (tmp_path / "results" / "README.md").read_text()  # its command ran the million, without --deals
    assert "\npython scripts/study.py --runs runs --results results --deals 1-30 --classic 1-30\n" in readme, readme
    assert "`python scripts/study.py --deals 1-30 --classic 1-60000` (or any longer prefix)" in readme


def test_a_black_hole_study_stopped_in_its_classic_run_keeps_the_fast_run_s_time_and_goes_on(tmp_path):
    """The fast run's time went into study.json only once the classic run had finished too: Ctrl-C in the
    classic run lost it, and the rerun (finding the fast run done, with no time) could not go on."""
    require_reference("peer_1_1000.csv")
    args = [sys.executable, REPO / "scripts" / "study.py", "--deals", "16-40", "--classic", "1-30", "--runs",
            tmp_path / "runs", "--results", tmp_path / "results"]
    stopped = signal_at_pause(tmp_path, args, "deal-15", lambda pid: os.killpg(pid, signal.SIGINT))  # classic only
    assert stopped.returncode == -signal.SIGINT, stopped.stderr
    assert json.loads((tmp_path / "results" / "study.json").read_text())["timings"]["fast"]["deals_solved"] == 25
    again = script("study.py", *map(str, args[2:]))
    assert again.returncode == 0, again.stderr
    assert json.loads((tmp_path / "results" / "study.json").read_text())["fast"]["deals"] == 25


def test_a_black_hole_study_stopped_in_its_fast_run_times_every_session_of_it(tmp_path):
    """The interrupted session's time was dropped and the finishing session's taken for the whole run: its
    README gave every deal over one session's time ("10,526 deals per second", at most half that)."""
    require_reference("peer_1_1000.csv")
    args = [sys.executable, REPO / "scripts" / "study.py", "--deals", "1-40", "--classic", "1-30", "--runs",
            tmp_path / "runs", "--results", tmp_path / "results"]
    stopped = signal_at_pause(tmp_path, args, "deal-30", lambda pid: os.killpg(pid, signal.SIGINT))  # the fast run
    assert stopped.returncode == -signal.SIGINT, stopped.stderr
    again = script("study.py", *map(str, args[2:]))
    assert again.returncode == 0, again.stderr
    assert_says_where_its_plots_are(again.stderr, tmp_path / "results" / "plots")
    assert "does not say which game" not in again.stderr  # (its own compact rows, compared with the peer's)
    facts = json.loads((tmp_path / "results" / "study.json").read_text())
    fast = facts["timings"]["fast"]
    sessions = facts["runs"]["fast"]["sessions"]
    assert fast["deals_solved"] == sum(session["deals_solved"] for session in sessions) == 40
    assert fast["wall_seconds"] == pytest.approx(sum(session["wall_seconds"] for session in sessions), abs=0.11)
    readme = " ".join((tmp_path / "results" / "README.md").read_text().split())
    assert f"({40:,} deals): {fast['wall_seconds']:,} s of wall time" in readme
    assert f"{40 / fast['wall_seconds']:,.0f} deals per second" in readme


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_study_killed_outright_stops_its_run(tmp_path):
    """kill -9 of the study (or the OOM killer) left its run, in a session of its own, solving on every core
    for nobody (ten_million's: an hour and a half); now the kernel sends the run SIGTERM, and it stops as
    it does on its own, recording what it solved."""
    args = [sys.executable, str(REPO / "scripts" / "study.py"), "--game", "relaxed_golf", "--deals", "1-40",
            "--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results")]
    study = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                             env={**os.environ, **pause_env(tmp_path, **{"deal-15": 120})})
    try:
        wait_for_pause(tmp_path, "deal-15", study)
        [run] = map(int, Path(f"/proc/{study.pid}/task/{study.pid}/children").read_text().split())
        study.kill()
        study.wait()

        until(lambda: state(run) is None, "the run outlived its study", timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(study.pid, signal.SIGKILL)
    log = (tmp_path / "runs" / "relaxed_golf.run" / "run.log").read_text()
    assert "interrupted by SIGTERM" in log, log[-2000:]


@pytest.mark.parametrize("name", ["check_results.py", "winnable_bitmap.py", "bench_run.py", "study.py"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_script_signalled_while_it_loads_stops_in_one_line(tmp_path, name, signum):
    """A script takes a while to import pandas and pyarrow: a Ctrl-C meanwhile was a KeyboardInterrupt
    traceback (study.py said so in its own words), SIGTERM killed it without a word."""
    done = signal_at_pause(tmp_path, [sys.executable, REPO / "scripts" / name, "--help"], "script-loading",
                           lambda pid: os.killpg(pid, signum), release=True, timeout=60)
    said = (f"{name}: interrupted" + ("" if signum == signal.SIGINT else " by SIGTERM") if name != "study.py" else
            "study interrupted: what its runs solved and their timings are kept; run the same command to go on")
    assert (done.returncode, done.stderr, done.stdout) == (-signum, f"{said}\n", ""), done


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.machine() != "x86_64",
                    reason="reads the script's system call in /proc (x86-64's numbers)")
def test_a_second_sigterm_while_the_script_says_it_stopped_lets_it_finish_its_line(tmp_path):
    """GNU timeout signals the script, then its group: a second SIGTERM while the line waited on a stalled
    standard error (a full pipe here) cut it with a traceback, exit 1, not the first signal's death."""
    read, write = os.pipe()
    os.set_blocking(write, False)
    with contextlib.suppress(BlockingIOError):  # the pipe full: the script's line will wait
        while True:
            os.write(write, b"x" * 4096)
    os.set_blocking(write, True)
    process = subprocess.Popen([sys.executable, REPO / "scripts" / "check_results.py", "--help"], stderr=write,
                               stdout=subprocess.DEVNULL, start_new_session=True,
                               env={**os.environ, **pause_env(tmp_path, **{"script-loading": 120})})
    os.close(write)
    try:
        wait_for_pause(tmp_path, "script-loading", process)
        os.kill(process.pid, signal.SIGTERM)
        release_pause(tmp_path, "script-loading")
        until(lambda: Path(f"/proc/{process.pid}/syscall").read_text().split()[0] == "1", "the line's write")
        os.killpg(process.pid, signal.SIGTERM)  # the second, as timeout sends it to the group
        with os.fdopen(read, "rb") as pipe:
            said = pipe.read().lstrip(b"x")
        process.wait(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert (process.returncode, said) == (-signal.SIGTERM, b"check_results.py: interrupted by SIGTERM\n")


def test_a_script_run_through_a_link_takes_signals_too(tmp_path):
    """A link to a script (its target's folder on sys.path, the link's name in __main__): it took no
    signals the scripts' way, and Ctrl-C was a KeyboardInterrupt traceback from inside a pool's wait."""
    link = tmp_path / "check.py"
    link.symlink_to(REPO / "scripts" / "check_results.py")
    done = signal_at_pause(tmp_path, [sys.executable, link, "--limit", "5"], "script-loading",
                           lambda pid: os.killpg(pid, signal.SIGINT), release=True, timeout=60)
    assert (done.returncode, done.stderr, done.stdout) == (-signal.SIGINT, "check.py: interrupted\n", ""), done


def forked_workers(script: int) -> list[int]:
    """The worker processes a script forked (its own command line: not multiprocessing's resource tracker,
    which ignores Ctrl-C and SIGTERM)."""
    children = Path(f"/proc/{script}/task/{script}/children").read_text().split()
    command = Path(f"/proc/{script}/cmdline").read_bytes()  # read each time: empty while its exec completes
    return [int(child) for child in children if Path(f"/proc/{child}/cmdline").read_bytes() == command != b""]


def test_check_results_ends_in_one_line_on_ctrl_c_a_full_disk_and_a_reader_gone(tmp_path):
    """Each was a traceback: Ctrl-C (one from each worker too), standard output on a full disk; a reader
    gone before the first line is quiet (141), as for the package's commands."""
    check = [sys.executable, str(REPO / "scripts" / "check_results.py"), "--limit", "200000", "--jobs", "2"]
    for send, signum, said in ((os.killpg, signal.SIGINT, "interrupted"),  # Ctrl-C: the whole group
                               (os.kill, signal.SIGTERM, "interrupted by SIGTERM")):  # the script alone: it died
        process = subprocess.Popen(check, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                                   text=True)  # (its workers kept solving; they would print Terminated's traceback)
        try:
            def workers_ignoring_ctrl_c() -> int:  # as their initializer set them: from then on only the script stops
                masks = [line.split()[1] for worker in forked_workers(process.pid) for line in
                         Path(f"/proc/{worker}/status").read_text().splitlines() if line.startswith("SigIgn:")]
                return sum(int(mask, 16) >> (signal.SIGINT - 1) & 1 for mask in masks)

            until(lambda: workers_ignoring_ctrl_c() >= 2 or process.poll() is not None, "the workers", timeout=120)
            assert process.poll() is None, process.communicate()
            send(process.pid, signum)
            out, err = process.communicate(timeout=120)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        assert (process.returncode, err, out) == (-signum, f"check_results.py: {said}\n", "")
    with open("/dev/full", "w") as full:
        done = subprocess.run([*check[:2], "--limit", "10"], stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=120)
    assert (done.returncode, done.stderr) == (1, "check_results.py: cannot write to standard output: "
                                                 "No space left on device\n")
    read, write = os.pipe()
    os.close(read)
    try:
        gone = subprocess.run([*check[:2], "--limit", "10"], stdout=write, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write)
    assert (gone.returncode, gone.stderr) == (141, b"")
    closed = subprocess.run([*check[:2], "--limit", "10"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, timeout=120, preexec_fn=lambda: os.close(1))  # `>&-`
    assert (closed.returncode, closed.stderr) == (1, "check_results.py: standard output is closed\n")


def test_a_difficulty_scale_of_fewer_winnable_deals_than_tags_is_refused(tmp_path):
    """Deals 250,000, 500,000, 750,000 and 1,000,000 (four: fewer than the five tags) made a scale whose four
    thresholds were the few scores repeated (one winnable deal: four equal ones), exit 0."""
    result = script("difficulty_scale.py", "--step", "250000", "--workers", "1", "--results", str(tmp_path))
    assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
    assert re.fullmatch(r"difficulty_scale stopped: [0-4] of the 4 deals of the sample (is|are) winnable; five "
                        r"quintiles need 5 or more: give a smaller --step\n", result.stderr), result.stderr
    assert not (tmp_path / "black_hole" / "scale.json").exists()


def test_check_results_says_which_game_it_assumed_and_refuses_repeated_deals(tmp_path):
    """A Golf CSV without a game column was solved as Black Hole without a word: its "mismatches" pointed at
    the solver; a deal listed twice was counted as two (a hostile tester). The peer's unsolvable Golf deals
    are the reference (its count for a won deal is its search's, not a line's)."""
    lines = require_reference("family/peer_golf_1_1000.csv").read_text().splitlines()
    rows = lines[:1] + [line for line in lines[1:] if ",unsolved," in line][:5]
    (tmp_path / "golf.csv").write_text("\n".join(rows).replace("max_played", "cards_played") + "\n")
    assumed = script("check_results.py", str(tmp_path / "golf.csv"))
    assert assumed.stderr == (f"note: {tmp_path / 'golf.csv'} does not say which game its deals are of; solved as "
                              "Black Hole (--game names it)\n"), assumed.stderr
    named = script("check_results.py", str(tmp_path / "golf.csv"), "--game", "golf")
    assert named.returncode == 0 and "5 deals, 0 mismatches" in named.stdout, named.stdout + named.stderr
    (tmp_path / "twice.csv").write_text("\n".join([*rows, rows[1]]).replace("max_played", "cards_played") + "\n")
    twice = script("check_results.py", str(tmp_path / "twice.csv"), "--game", "golf")
    assert (twice.returncode, twice.stderr) == (2, f"check_results.py: error: {tmp_path / 'twice.csv'}: deal "
                                                   f"{rows[1].split(',')[0]} is listed more than once: check one "
                                                   "copy of each deal\n")


def test_check_results_refuses_a_dataset_with_no_deal(tmp_path):
    """A CSV of its header alone passed: "0 deals, 0 mismatches", exit 0, a check of nothing."""
    empty = tmp_path / "empty.csv"
    empty.write_text("deal,outcome,iterations,cards_played\n")
    result = script("check_results.py", str(empty))
    assert (result.returncode, result.stdout, result.stderr) == (
        2, "", f"check_results.py: error: {empty} holds no deal: nothing to check\n"), result.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.machine() != "x86_64",
                    reason="reads a worker's system call in /proc (x86-64's numbers)")
def test_check_results_stops_on_a_sigterm_to_its_whole_group_while_a_worker_waits_for_work(tmp_path):
    """GNU timeout and service managers signal the whole process group, and the workers die at once: one
    that waited for work died holding multiprocessing's Pool lock, which the pool's clean-up then waited
    for forever (the script hung, its workers gone)."""
    check = [sys.executable, str(REPO / "scripts" / "check_results.py"), "--limit", "10001", "--jobs", "2"]
    process = subprocess.Popen(check, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                               env={**os.environ, **pause_env(tmp_path, **{"deal-1": 300})})  # the first block's
    try:
        [busy] = wait_for_pause(tmp_path, "deal-1", process)

        def waiting_for_work() -> bool:  # the other worker, in read(2) on the pool's queue: blocks 2 and 3 done
            others = [worker for worker in forked_workers(process.pid) if worker != busy]
            return any(Path(f"/proc/{worker}/syscall").read_text().split()[0] == "0" for worker in others)

        until(waiting_for_work, "the other worker waiting for work", timeout=120)
        os.killpg(process.pid, signal.SIGTERM)
        out, err = process.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert (process.returncode, err, out) == (-signal.SIGTERM, "check_results.py: interrupted by SIGTERM\n", "")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_check_results_signalled_while_its_workers_shut_down_stops(tmp_path, signum):
    """The signal was only recorded there, and nothing looked at the record again: the script printed its
    verdict and exited 0 (validate_difficulty and difficulty_scale went on to write their files)."""
    check = [sys.executable, REPO / "scripts" / "check_results.py", "--limit", "20", "--jobs", "2"]
    done = signal_at_pause(tmp_path, check, "pool-shutdown", lambda pid: os.killpg(pid, signum), release=True,
                           timeout=60)
    said = "interrupted" + ("" if signum == signal.SIGINT else " by SIGTERM")
    assert (done.returncode, done.stderr, done.stdout) == (-signum, f"check_results.py: {said}\n", ""), done


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_check_results_starts_no_more_workers_than_it_has_blocks(tmp_path):
    """--jobs 4 for one deal (one block) forked four workers, three of them idle from the start ("1 deals")."""
    check = [sys.executable, str(REPO / "scripts" / "check_results.py"), "--limit", "1", "--jobs", "4"]
    process = subprocess.Popen(check, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                               env={**os.environ, **pause_env(tmp_path, **{"deal-1": 300})})
    try:
        wait_for_pause(tmp_path, "deal-1", process)
        workers = forked_workers(process.pid)
        release_pause(tmp_path, "deal-1")
        out, err = process.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert len(workers) == 1 and (process.returncode, err) == (0, ""), (workers, err)
    assert out.startswith(f"{REPO / 'results' / 'deals.parquet'}: 1 deal, 0 mismatches"), out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_check_results_ends_in_one_line_when_a_worker_is_killed(tmp_path):
    """The out-of-memory killer, or a kill -9 of one worker: multiprocessing's Pool started another and
    waited forever for the block the dead one held."""
    check = [sys.executable, str(REPO / "scripts" / "check_results.py"), "--limit", "10000", "--jobs", "2"]
    process = subprocess.Popen(check, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                               env={**os.environ, **pause_env(tmp_path, **{"deal-1": 300})})
    try:
        [paused] = wait_for_pause(tmp_path, "deal-1", process)
        workers = forked_workers(process.pid)
        os.kill(paused, signal.SIGKILL)
        out, err = process.communicate(timeout=60)
        until(lambda: all(state(worker) is None for worker in workers), "a worker outlived the script", timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert (process.returncode, err, out) == (1, "check_results.py: a worker process died (killed, or out of "
                                                 "memory?)\n", "")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc are Linux's")
def test_a_black_hole_study_killed_outright_in_its_classic_run_goes_on_when_run_again(tmp_path):
    """The fast run's time went into study.json only in a `finally` or at the end: kill -9 (or the OOM
    killer) during the classic run lost it, and every rerun refused for want of it."""
    require_reference("peer_1_1000.csv")
    args = [sys.executable, str(REPO / "scripts" / "study.py"), "--deals", "16-40", "--classic", "1-30",
            "--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results")]
    study = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                             env={**os.environ, **pause_env(tmp_path, **{"deal-15": 120})})  # the classic run's
    try:
        wait_for_pause(tmp_path, "deal-15", study)
        [run] = map(int, Path(f"/proc/{study.pid}/task/{study.pid}/children").read_text().split())
        study.kill()
        study.wait()
        until(lambda: state(run) is None, "the classic run outlived its study", timeout=60)  # before the rerun
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(study.pid, signal.SIGKILL)
    again = script("study.py", *args[2:])
    assert again.returncode == 0, again.stderr
    facts = json.loads((tmp_path / "results" / "study.json").read_text())
    assert facts["timings"]["fast"]["deals_solved"] == 25 and facts["classic"]["deals"] == 30


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc are Linux's")
def test_check_results_killed_outright_takes_its_workers_with_it():
    """They went on solving their blocks for seconds (minutes with classic), orphaned, holding the script's
    pipes open: a Ctrl-C that caught the script still starting its pool left them so too."""
    check = [sys.executable, str(REPO / "scripts" / "check_results.py"), str(REPO / "results" / "classic_deals.parquet"),
             "--limit", "10000", "--jobs", "2"]  # classic (the file says): minutes a block, so an orphaned worker
    # outlives the wait below
    process = subprocess.Popen(check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        until(lambda: len(forked_workers(process.pid)) >= 2 or process.poll() is not None, "the workers", timeout=120)
        workers = forked_workers(process.pid)
        assert process.poll() is None and len(workers) == 2, process.returncode
        process.kill()
        process.wait()
        until(lambda: all(state(worker) is None for worker in workers), "the workers outlived the script",
              timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_script_killed_before_its_workers_took_its_pid_takes_them_with_it_all_the_same(tmp_path):
    """A worker read its parent's pid first thing: killed before that, the script's pid was already the
    orphan's new parent's (1, or a subreaper), so the death signal was asked of the wrong parent and the
    worker went on solving (a CI run found it: test_check_results_killed_outright_takes_its_workers_with_it)."""
    check = [sys.executable, str(REPO / "scripts" / "check_results.py"), str(REPO / "results" / "classic_deals.parquet"),
             "--limit", "10000", "--jobs", "2"]
    process = subprocess.Popen(check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                               env={**os.environ, **pause_env(tmp_path, **{"script-worker-start": 120})})
    try:
        workers = wait_for_pause(tmp_path, "script-worker-start", process)
        process.kill()
        process.wait()
        release_pause(tmp_path, "script-worker-start")
        until(lambda: all(state(worker) is None for worker in workers), "the workers outlived the script",
              timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def test_check_results_solves_again_with_the_run_s_own_budget(tmp_path):
    """A run made with --max-iters was checked without a limit: every intractable deal a "mismatch"."""
    out = tmp_path / "run"
    made = subprocess.run([str(SCRIPT), "run", "--range", "1-60", "--game", "golf", "--max-iters", "2000",
                           "--out", str(out), "--workers", "1"], capture_output=True, text=True, timeout=600)
    assert made.returncode == 0 and ", 0 intractable" not in made.stdout, made.stdout
    result = script("check_results.py", str(out))
    assert result.returncode == 0, result.stdout
    assert result.stdout.startswith(f"{out}: 60 deals, 0 mismatches in outcome or cards_played; iterations differ "
                                    "on 0 deals") and "fast search, max_iters 2000" in result.stdout, result.stdout
    listed = tmp_path / "listed.csv"  # export's CSV records no settings: the options say them
    listed.write_bytes(subprocess.run([str(SCRIPT), "export", str(out), "--format", "csv"], capture_output=True,
                                      check=True, timeout=120).stdout)
    unbounded = script("check_results.py", str(listed))
    assert unbounded.returncode == 1 and "max_iters no limit" in unbounded.stdout, unbounded.stdout
    bounded = script("check_results.py", str(listed), "--max-iters", "2000")
    assert bounded.returncode == 0 and ": 60 deals, 0 mismatches" in bounded.stdout, bounded.stdout
    for bad in (["--limit", "0"], ["--jobs", "0"], [str(tmp_path / "none")], [str(out), "--max-iters", "2000"],
                [str(listed), "--search", "classic"]):  # (Golf has no classic search: a traceback per worker)
        refused = script("check_results.py", *bad)
        assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr


def test_a_study_stopped_while_it_reports_leaves_the_last_report_and_plots_whole(tmp_path):
    """SIGTERM while the report of a resumed study is drawing its first chart: REPORT.md, the plots and
    study.json stay those of the study before, byte for byte, and no partial file is left beside them."""
    args = [sys.executable, str(REPO / "scripts" / "study.py"), "--game", "relaxed_golf",
            "--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results")]
    first = subprocess.run([*args, "--deals", "1-20"], capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    folder = tmp_path / "results" / "relaxed_golf"
    before = {path.relative_to(folder): path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    assert any(path.suffix == ".png" for path in before)

    def drawing_into_partials(pid: int) -> None:
        assert [path.name for path in folder.glob(".plots.*.partial/plots")] == ["plots"]
        assert [path.name for path in folder.glob(".REPORT.md.*.partial/REPORT.md")] == ["REPORT.md"]

    done = signal_at_pause(tmp_path, [*args, "--deals", "1-30"], "plot-drawn",
                           lambda pid: os.kill(pid, signal.SIGTERM), inspect=drawing_into_partials)
    assert done.returncode == -signal.SIGTERM, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.splitlines()[-1].startswith("study interrupted:")
    after = {path.relative_to(folder): path.read_bytes() for path in folder.rglob("*")
             if path.is_file() and path.name != "study.json"}
    assert after == {name: data for name, data in before.items() if name.name != "study.json"}
    assert not [path for path in folder.rglob("*") if "partial" in path.name]
    facts = json.loads((folder / "study.json").read_text())  # the resumed run's session is recorded
    assert [session["deals_solved"] for session in facts["sessions"]] == [20, 10]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_study_stopped_by_sigterm_or_a_hang_up_keeps_its_runs_timing_and_goes_on(tmp_path, signum):
    """SIGTERM to the study alone (not its process group) while its run is held at the end of its
    chunks: the run gets it once, records what it solved, the study records that session's timing
    and says so in one line; run again, it finishes with every deal's timing counted. A hang-up (the
    study's terminal closed: the run, in a session of its own, would not get it) stops it the same way;
    it ended the study alone, and the run went on unseen."""
    args = [sys.executable, str(REPO / "scripts" / "study.py"), "--game", "relaxed_golf", "--deals", "1-40",
            "--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results")]
    study = signal_at_pause(tmp_path, args, "chunks-done", lambda pid: os.kill(pid, signum))
    assert study.returncode == -signum, study.stderr
    assert "Traceback" not in study.stderr and study.stderr.splitlines()[-1].startswith("study interrupted:")
    facts = json.loads((tmp_path / "results" / "relaxed_golf" / "study.json").read_text())
    assert [session["deals_solved"] for session in facts["sessions"]] == [40]
    release_pause(tmp_path, "chunks-done")
    again = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    facts = json.loads((tmp_path / "results" / "relaxed_golf" / "study.json").read_text())
    assert (facts["timing"]["deals_solved"], facts["timing"]["sessions"]) == (40, 1)
    assert facts["fast"]["deals"] == 40



def test_scripts_refuse_a_read_only_place_for_their_results_before_working(tmp_path):
    """A read-only --summary folder was accepted, and so was a --results whose game folder is read-only:
    each failed in a traceback once the timing or the measuring was done."""
    results = tmp_path / "results"
    results.mkdir()
    with tmpfs(results / "relaxed_golf") as mount:
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        summary = script("bench_solver.py", "--game", "relaxed_golf", "--deals", "1-5", "--summary",
                         str(mount / "bench" / "solver.json"))
        scale = script("difficulty_scale.py", "--game", "relaxed_golf", "--step", "100000", "--results", str(results),
                       "--workers", "1")
        validation = script("validate_difficulty.py", "--game", "relaxed_golf", "--range", "1000001-1000005",
                            "--budgets", "10,100", "--results", str(results), "--workers", "1")
    assert (summary.returncode, summary.stdout, summary.stderr) == (
        2, "", f"bench_solver.py: error: --summary {mount / 'bench' / 'solver.json'}: Read-only file system\n")
    for name, done in (("difficulty_scale.py", scale), ("validate_difficulty.py", validation)):
        assert (done.returncode, done.stderr) == (2, f"{name}: error: --results {results}: cannot write in "
                                                     f"{mount}: Read-only file system\n"), done.stderr
    assert sorted(results.iterdir()) == [mount]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_bench_run_stopped_by_sigterm_or_a_hang_up_stops_its_run_and_removes_its_folder(tmp_path, monkeypatch,
                                                                                         signum):
    """SIGTERM (or a hang-up) to bench_run alone while its `blackhole-stats run` solved: the script died,
    and the run went on, its temporary folder left behind. Now the run gets the signal, stops, and the
    script removes the folder and dies of the signal, in one line (the run's own lines, shown above it,
    said to resume a run in the folder the script removes)."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    held = []

    def its_run(pid: int) -> None:
        [run] = map(int, Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
        held.extend([run, *map(int, Path(f"/proc/{run}/task/{run}/children").read_text().split())])
        assert list(scratch.iterdir())

    done = signal_at_pause(tmp_path, [sys.executable, REPO / "scripts" / "bench_run.py", "--range", "1-30"],
                           "deal-15", lambda pid: os.kill(pid, signum), inspect=its_run)
    assert (done.returncode, done.stderr) == (-signum, f"bench_run.py: interrupted by {signum.name}\n")
    assert len(held) >= 2 and all(state(pid) is None for pid in held)  # the run and its worker
    assert not list(scratch.iterdir())


@pytest.mark.parametrize("game, text, problem", [
    ("relaxed_golf", '{"sessions": [', "Expecting value: line 1 column 15 (char 14)"),  # a JSONDecodeError traceback
    ("relaxed_golf", '{"sessions": [{"deals_solved": 5}]}', "a session without 'command'"),  # a KeyError once run
    ("black_hole", "[]", "'list' object has no attribute 'get'")])
def test_a_study_whose_study_json_is_damaged_stops_in_one_line_before_it_runs(tmp_path, game, text, problem):
    """The study.json that keeps the runs' timings, damaged (a hand's edit, a merge): a traceback, before
    the run or once it was done; now one line naming it and what to do, and nothing run."""
    results = tmp_path / "results"
    facts = results / ("" if game == "black_hole" else game) / "study.json"
    facts.parent.mkdir(parents=True)
    facts.write_text(text)
    refused = script("study.py", "--game", game, "--deals", "1-5", "--runs", str(tmp_path / "runs"),
                     "--results", str(results))
    assert (refused.returncode, refused.stderr) == (1, f"study stopped before writing anything: {facts} is damaged "
                                                       f"({problem}): restore it (it holds the timings of the runs "
                                                       "it names), or move it aside and give new --runs\n")
    assert not (tmp_path / "runs").exists() and facts.read_text() == text


def test_validation_of_a_range_without_a_winnable_deal_says_there_is_nothing_to_validate(tmp_path):
    """Deal 1 of Black Hole cannot be won: VALIDATION.md gave every win rate as "nan% (nan-nan)", exit 0."""
    result = script("validate_difficulty.py", "--range", "1-1", "--budgets", "10,100", "--workers", "1",
                    "--results", str(tmp_path))
    kept = tmp_path / "black_hole" / "validation_deals.csv"
    assert (result.returncode, result.stdout, result.stderr) == (
        1, "", f"validate_difficulty: Black Hole deals 1-1 hold no winnable deal: nothing to validate (their "
               f"measurements are kept in {kept})\n")
    assert not (tmp_path / "VALIDATION.md").exists() and kept.read_text().startswith("deal,score,")
    one = script("validate_difficulty.py", "--range", "5-5", "--budgets", "10,100", "--workers", "1", "--coarse",
                 "--results", str(tmp_path))  # one winnable deal: every other tag was "nan%", each a RuntimeWarning
    assert "| no deal | 0.0% (0.0-79.3) | no deal |" in one.stdout and "nan%" not in one.stdout, one.stdout
    assert one.stderr == "", one.stderr


def test_bench_run_gives_no_rate_for_a_range_it_cannot_time_beyond_the_fixed_cost(tmp_path):
    """The rate per deal is (whole - fixed) / deals of medians: --range ms1-ms5 gave -264 deals/s (its five easy
    deals add less than the noise), --range 1 (the fixed-cost run itself) a ZeroDivisionError traceback."""
    result = script("bench_run.py", "--range", "1", "--summary", str(tmp_path / "run.json"))
    assert result.returncode == 1 and "deals/s" not in result.stdout, result.stdout
    assert result.stderr == ("bench_run.py: --range 1 (1 deal) took no longer than --range 1 in some repeat: too few "
                             "deals to measure beyond the fixed cost; give a longer range\n"), result.stderr
    assert not (tmp_path / "run.json").exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc are Linux's")
def test_a_study_killed_outright_leaves_partials_that_its_rerun_removes_and_a_second_study_waits(tmp_path):
    """kill -9 while the report drew its plots left `.plots.*.partial` and `.REPORT.md.*.partial` in the results,
    which no later study removed. A study now holds its results folder: a second one there is refused in one
    line (and leaves the first one's partials alone), and the next one removes what a killed one left."""
    args = [sys.executable, str(REPO / "scripts" / "study.py"), "--game", "relaxed_golf", "--runs",
            str(tmp_path / "runs"), "--results", str(tmp_path / "results")]
    first = subprocess.run([*args, "--deals", "1-20"], capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    folder = tmp_path / "results" / "relaxed_golf"
    children = []

    def a_second_study_is_refused(pid: int) -> None:
        children.extend(map(int, Path(f"/proc/{pid}/task/{pid}/children").read_text().split()))
        second = subprocess.run([*args, "--deals", "1-30"], capture_output=True, text=True, timeout=600)
        assert (second.returncode, second.stderr) == (1, "study stopped before writing anything: another study is "
                                                         f"writing to --results {folder}\n"), second.stderr
        assert len(list(folder.glob(".*.partial"))) == 2

    killed = signal_at_pause(tmp_path, [*args, "--deals", "1-30"], "plot-drawn",
                             lambda pid: os.kill(pid, signal.SIGKILL), inspect=a_second_study_is_refused)
    assert killed.returncode == -signal.SIGKILL
    until(lambda: all(state(pid) is None for pid in children), "the report outlived its study", timeout=60)
    assert sorted(path.name.split(".")[1] for path in folder.glob(".*.partial")) == ["REPORT", "plots"]
    again = subprocess.run([*args, "--deals", "1-30"], capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert not [path for path in folder.rglob("*") if "partial" in path.name]


@pytest.mark.parametrize("peer, game, problem", [
    ("none.csv", "black_hole", "none.csv: no such file or directory"),
    ("/etc/passwd", "black_hole", "/etc/passwd: not a readable Parquet file"),
    ("short.csv", "black_hole", "short.csv: missing column iterations, cards_played"),
    ("peer_1_1000.csv", "relaxed_golf", "peer_1_1000.csv: deal 1 is unsolved with cards_played 3, but Relaxed Golf")])
def test_a_study_refuses_a_peer_csv_it_cannot_compare_with_before_running_anything(tmp_path, peer, game, problem):
    """--peer missing, not a dataset, or without the columns: a DatasetError traceback once the runs were
    solved and REPORT.md, deals.parquet and study.json replaced, README.md and the comparison left the old."""
    reference = require_reference("peer_1_1000.csv")
    (tmp_path / "short.csv").write_text("deal,outcome\n1,solved\n")
    given = {"none.csv": tmp_path / "none.csv", "short.csv": tmp_path / "short.csv",
             "peer_1_1000.csv": reference}.get(peer, Path(peer))
    refused = script("study.py", "--game", game, "--deals", "1-30", *(["--classic", "1-30"] if game == "black_hole"
                                                                        else []), "--runs",
                     str(tmp_path / "runs"), "--results", str(tmp_path / "results"), "--peer", str(given))
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert refused.stderr.startswith("study.py: error: --peer ") and problem in refused.stderr, refused.stderr
    assert not (tmp_path / "runs").exists() and not (tmp_path / "results").exists()


@pytest.mark.parametrize("name, args, written", [
    ("check_deal_hash.py", ["--count", "100", "--summary", "{mount}/hash.json"], "hash.json"),  # write_summary's
    ("simulate_scale.py", ["--render", str(REPO / "results" / "scale.json"), "--json", "{mount}/scale.json"],
     "scale.json"),
    ("difficulty_scale.py", ["--game", "relaxed_golf", "--step", "100000", "--workers", "1", "--results", "{mount}"],
     "relaxed_golf/scale_sample.parquet"),
    ("validate_difficulty.py", ["--game", "relaxed_golf", "--range", "1000001-1000005", "--budgets", "10,100",
                                "--workers", "1", "--results", "{mount}"], "relaxed_golf/validation_deals.csv"),
    ("study.py", ["--game", "relaxed_golf", "--deals", "1-5", "--runs", "{runs}", "--results", "{mount}"],
     "relaxed_golf/study.json")])
def test_scripts_say_in_one_line_that_a_full_disk_kept_them_from_writing_their_results(tmp_path, name, args, written):
    """A full disk once the work was done: an OSError traceback (the file it replaces was left whole)."""
    with tmpfs(tmp_path / "mnt") as mount:
        (mount / written).parent.mkdir(parents=True, exist_ok=True)
        old = "deal,score,left to right,right to left,tallest pile first,budget\n" if written.endswith(".csv") else "{}\n"
        (mount / written).write_text(old)
        fill_up(mount)
        done = script(name, *(arg.format(mount=mount, runs=tmp_path / "runs") for arg in args))
        assert (done.returncode, done.stderr.splitlines()[-1:]) == (
            1, [f"{name}: No space left on device: {mount / written}"]), done.stderr
        assert "Traceback" not in done.stderr and (mount / written).read_text() == old


def test_scripts_say_in_one_line_that_their_standard_output_or_compiler_failed(tmp_path):
    """`study.py > /dev/full` (its print of each command) and bench_builds with a $CC that is not there: a
    traceback each."""
    with open("/dev/full", "w") as full:
        study = subprocess.run([sys.executable, str(REPO / "scripts" / "study.py"), "--game", "relaxed_golf",
                                "--deals", "1-5", "--runs", str(tmp_path / "runs"), "--results",
                                str(tmp_path / "results")], stdout=full, stderr=subprocess.PIPE, text=True, timeout=600)
    assert (study.returncode, study.stderr) == (1, "study.py: cannot write to standard output: No space left on "
                                                   "device\n")
    compiler = subprocess.run([sys.executable, str(REPO / "scripts" / "bench_builds.py"), "--base", "HEAD",
                               "--deals", "1-3"], capture_output=True, text=True, timeout=600,
                              env={**os.environ, "CC": str(tmp_path / "none" / "cc")})
    assert (compiler.returncode, compiler.stderr) == (
        1, f"bench_builds.py: No such file or directory: {tmp_path / 'none' / 'cc'}\n"), compiler.stderr


def test_check_deal_hash_ends_as_every_script_does_when_its_output_fails():
    """It ended by itself, not through benchlib.run_script: `| head -1` was a BrokenPipeError traceback,
    `> /dev/full` an OSError traceback, and a closed standard output exit 0, the hash lost."""
    check = [sys.executable, str(REPO / "scripts" / "check_deal_hash.py"), "--count", "100"]
    with open("/dev/full", "w") as full:
        done = subprocess.run(check, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (1, "check_deal_hash.py: cannot write to standard output: "
                                                 "No space left on device\n")
    read, write = os.pipe()
    os.close(read)
    try:
        gone = subprocess.run(check, stdout=write, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write)
    assert (gone.returncode, gone.stderr) == (141, b"")
    closed = subprocess.run(check, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120,
                            preexec_fn=lambda: os.close(1))  # `>&-`
    assert (closed.returncode, closed.stderr) == (1, "check_deal_hash.py: standard output is closed\n")


VALIDATION_HEADER = "deal,score,left to right,right to left,tallest pile first,budget\n"


@pytest.mark.parametrize("text, problem", [
    ("", "it is empty"),
    (VALIDATION_HEADER + "abc,2.0,5,,7,100\n", "line 2: deal 'abc' where it must be a game number, 1 or more"),
    (VALIDATION_HEADER.replace("score", "scor") + "1000001,2.0,5,,7,100\n", "its columns are deal, scor, left to"),
    (VALIDATION_HEADER + "1000001,banana,5,,7,100\n", "line 2: score 'banana' where it must be empty, or a score"),
    (b"\x89PNG\r\n\x1a\n\xd0\xff\x00", "cannot be read ('utf-8' codec can't decode"),
    (None, "cannot be read (Is a directory)"),
    (VALIDATION_HEADER + "1000001,2.0,5,,7,100\n" * 2, "line 3: deal 1000001 is listed twice"),  # counted twice
    (VALIDATION_HEADER + "1000001,2.0,-5,,7,100\n", "line 2: left to right '-5' where it must be empty, or the "
                                                     "positions the planner needed"),  # were taken as they stood
    (VALIDATION_HEADER + "1000001,2.0,5,,1e300,100\n", "line 2: tallest pile first '1e300' where it must be"),
    (VALIDATION_HEADER + "1000001,2.0,5\n", "line 2 has 3 fields, not 6")])
def test_validation_refuses_a_damaged_measurements_file_in_one_line(tmp_path, text, problem):
    """An empty or binary validation_deals.csv, a folder in its place, a deal 'abc', a renamed column, a score
    'banana': tracebacks; a row twice was counted twice in VALIDATION.md, a count of -5 positions as a win."""
    kept = tmp_path / "black_hole" / "validation_deals.csv"
    kept.parent.mkdir()
    if text is None:
        kept.mkdir()
    else:
        kept.write_bytes(text if isinstance(text, bytes) else text.encode())
    refused = script("validate_difficulty.py", "--range", "1000001-1000003", "--budgets", "10,100", "--workers", "1",
                     "--coarse", "--results", str(tmp_path))
    assert (refused.returncode, refused.stdout, refused.stderr) == (
        1, "", f"validate_difficulty: {kept} is damaged: {refused.stderr.split(': ', 2)[-1]}"), refused.stderr
    assert problem in refused.stderr and refused.stderr.endswith("; move it aside (its deals are then measured "
                                                                 "again)\n"), refused.stderr
    assert not (tmp_path / "VALIDATION.md").exists() and (text is None or kept.read_bytes() == (
        text if isinstance(text, bytes) else text.encode()))


@pytest.mark.parametrize("row, problem", [
    ("abc,solved,5,51", "deal 'abc' is no game number (1, 2, ...)"),  # tracebacks, each
    ("2.0,solved,5,51", "deal '2.0' is no game number (1, 2, ...)"),
    ("0,solved,5,51", "deal '0' is no game number (1, 2, ...)"),
    ("-2,solved,5,51", "deal '-2' is no game number (1, 2, ...)"),
    ("1,unsolved,5,xx", "max_played 'xx' is no count (0, 1, ...)"),
    ("1,unsolved", "fewer fields than the header's 4"),
    ("1,banana,5,3", "outcome 'banana' is neither solved nor unsolved")])  # was a mismatch of ours, exit 1
def test_check_peer_refuses_a_row_that_is_no_verdict_in_one_line(tmp_path, row, problem):
    given = tmp_path / "peer.csv"
    given.write_text(f"deal,outcome,iterations,max_played\n2,solved,5,51\n{row}\n")
    refused = script("check_peer.py", "--skip-classic", "--csv", str(given))
    assert (refused.returncode, refused.stdout, refused.stderr) == (
        2, "", f"check_peer.py: error: {given}, line 3: {problem}\n")


def test_the_family_table_refuses_a_game_s_rows_it_cannot_trust_in_one_line(tmp_path):
    """`study.py --family` with a cut-short RESULTS/G/deals.parquet: a DatasetError traceback; with a deal
    there twice, its rows counted as they stood (FAMILY.md's percentage changed); with Black Hole's
    deals.parquet copied there, Black Hole's figures under the game's name."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    results = tmp_path / "results"
    made = script("study.py", "--game", "relaxed_golf", "--deals", "1-10", "--runs", str(tmp_path / "runs"),
                  "--results", str(results))
    assert made.returncode == 0, made.stderr
    family, compact = (results / "FAMILY.md").read_text(), results / "relaxed_golf" / "deals.parquet"
    table = pq.read_table(compact)
    for damage, problem in ((lambda: compact.write_bytes(compact.read_bytes()[:300]), "not a readable Parquet file"),
                            (lambda: pq.write_table(pa.concat_tables([table, table.slice(0, 5)]), compact),
                             f"{compact} holds deal 1 more than once"),
                            (lambda: shutil.copyfile(REPO / "results" / "deals.parquet", compact),
                             f"{compact} holds black_hole deals (Black Hole), not relaxed_golf"),
                            (lambda: pq.write_table(pq.read_table(REPO / "results" / "deals.parquet").drop_columns(
                                ["game"]), compact),
                             f"{compact}: deal 1 is unsolved with cards_played 3, but Relaxed Golf allows"),
                            (lambda: pq.write_table(table.drop_columns(["game"]), compact),
                             f"{compact} names no game: a study's compact rows of Relaxed Golf have a game column")):
        damage()
        refused = script("study.py", "--family", "--results", str(results))
        assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
        assert refused.stderr.startswith("study stopped before writing FAMILY.md: ") and problem in refused.stderr
        assert (results / "FAMILY.md").read_text() == family


def test_two_validations_at_once_on_one_results_folder_are_one_too_many(tmp_path):
    """Two validate_difficulty.py on the same --results (other --range) both exited 0, and the measurements
    file kept only one's deals: a second one is refused in one line while the first holds the folder."""
    command = [sys.executable, str(REPO / "scripts" / "validate_difficulty.py"), "--budgets", "10,100", "--workers",
               "1", "--coarse", "--results", str(tmp_path / "results")]
    first = subprocess.Popen([*command, "--range", "1000001-1000003"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env={**os.environ, **pause_env(tmp_path, **{"trap-walks": 120})})
    try:
        wait_for_pause(tmp_path, "trap-walks", first)
        second = subprocess.run([*command, "--range", "1000004-1000005"], capture_output=True, text=True, timeout=600)
        assert (second.returncode, second.stdout, second.stderr) == (
            1, "", "validate_difficulty stopped before measuring anything: another validate_difficulty is writing "
                   f"to --results {tmp_path / 'results'}\n")
        release_pause(tmp_path, "trap-walks")
        out, err = first.communicate(timeout=600)
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate()
    assert first.returncode in (0, 1) and "Traceback" not in err, err
    kept = (tmp_path / "results" / "black_hole" / "validation_deals.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in kept[1:]] == ["1000001", "1000002", "1000003"]


def test_bench_difficulty_refuses_deals_without_a_winnable_one(tmp_path):
    """Deal 1 of Black Hole cannot be won: "0.00 CPU ms per winnable deal" was printed and saved, exit 0."""
    result = script("bench_difficulty.py", "--deals", "1", "--summary", str(tmp_path / "difficulty.json"))
    assert (result.returncode, result.stdout, result.stderr) == (
        1, "", "bench_difficulty: Black Hole deals 1 hold no winnable deal: nothing to time; give more --deals\n")
    assert not (tmp_path / "difficulty.json").exists()


@pytest.mark.skipif(not shutil.which(os.environ.get("CC", "cc").split()[0]), reason="no C compiler (cc or $CC)")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("name, args", [
    ("bench_builds.py", ["--base", str(REPO / "blackhole_stats" / "_core.c"), "--deals", "1-3"]),
    pytest.param("check_compilers.py", ["--deals", "1"], marks=pytest.mark.skipif(
        not (shutil.which("gcc") or shutil.which("clang")), reason="check_compilers builds with gcc or clang")),
])
def test_a_script_stopped_while_compiling_stops_its_compiler(tmp_path, monkeypatch, signum, name, args):
    """SIGTERM (or a hang-up) to a script while it compiled the core: the compiler's driver was killed, and its
    cc1 compiled on, orphaned, its `cc*.s` left in $TMPDIR (check_compilers.py: it was not even stopped)."""
    from conftest import hang_up_as_a_shell_leaves_it

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    process = subprocess.Popen([sys.executable, str(REPO / "scripts" / name), *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=hang_up_as_a_shell_leaves_it)

    def below(pid: int) -> list[int]:
        try:
            children = [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except FileNotFoundError:
            return []
        return [pid for child in children for pid in (child, *below(child))]

    try:
        until(lambda: len(below(process.pid)) >= 2 or process.poll() is not None, "the compiler's own process",
              timeout=120)  # the driver, and what it runs (cc1)
        compiling = below(process.pid)
        os.kill(process.pid, signum)
        out, err = process.communicate(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert (process.returncode, err) == (-signum, f"{name}: interrupted by {signum.name}\n"), err
    assert len(compiling) >= 2
    until(lambda: all(state(pid) is None for pid in compiling), "the compiler outlived the script", timeout=30)
    assert not list(scratch.iterdir())


def test_a_study_refuses_a_scored_run_only_where_it_would_solve_and_says_the_true_reason(tmp_path):
    """A complete --difficulty run holding deals beyond --deals was refused as one that 'would score every
    winnable deal' (helper 153): nothing would be solved; the reason is the deals beyond. One with deals
    left to solve is refused for the scoring."""
    runs, results = tmp_path / "runs", tmp_path / "results"
    made = subprocess.run([str(SCRIPT), "run", "--range", "1-12", "--game", "golf", "--difficulty",
                           "--out", str(runs / "golf"), "--workers", "1"], capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr
    for deals, words in (("1-10", "runs/golf asks for deals 11-12 beyond --deals 1-10"),
                         ("1-14", "runs/golf is a run made with --difficulty, which would score every winnable "
                                  "deal it solves (hours more): give another --runs")):
        refused = script("study.py", "--game", "golf", "--deals", deals, "--runs", str(runs), "--results", str(results))
        assert refused.returncode == 1 and words in refused.stderr, refused.stderr
    assert not results.exists()
