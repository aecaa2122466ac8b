"""`blackhole-stats run` for real: worker processes, signals, kills, resumes, a Dask cluster.

Iteration counts are compared only for `--search classic`: the fast search's
restart noise carries over between the deals one Solver solves, so its
counts depend on which deals a worker saw before.
"""
from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest

from blackhole_stats import runner
from blackhole_stats.dataset import log_path, read_manifest
from blackhole_stats.deals import DealSet
from blackhole_stats.cli import _summary
from blackhole_stats.runner import RunStopped, RunSummary, run
from blackhole_stats.verify import verify
from conftest import pause_env, require_reference, wait_for_pause

SCRIPT = Path(sys.executable).parent / "blackhole-stats"
pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason=f"console script not installed at {SCRIPT}")
CLASSIC_CHEAP = 50_000
"""Deals the peer decides in fewer iterations make a classic run of about a second."""


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=120)


def start(*args: str, env: dict | None = None) -> subprocess.Popen:
    """A run in its own process group, as a shell would start it."""
    return subprocess.Popen([str(SCRIPT), *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, env={**os.environ, **(env or {})})


def wait_for_part(out: Path, process: subprocess.Popen) -> None:
    """Until the first chunk file is there, so that a kill lands mid-run."""
    deadline = time.monotonic() + 60
    while not list(out.glob("part-*.parquet")):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.01)


def verdicts(out: Path) -> pd.DataFrame:
    """The rows by (ms, deal) as plain Python values; every deal exactly once."""
    frame = pd.read_parquet(out, columns=["deal", "ms", "outcome", "iterations", "cards_played"])
    frame["deal"] = frame["deal"].map(int)
    frame["outcome"] = frame["outcome"].astype(str)
    frame = frame.set_index(["ms", "deal"]).sort_index()
    assert frame.index.is_unique
    return frame


@pytest.fixture(scope="module")
def peer() -> pd.DataFrame:
    frame = pd.read_csv(require_reference("peer_1_1000.csv"))
    frame.index = pd.MultiIndex.from_arrays([[False] * len(frame), frame["deal"]], names=["ms", "deal"])
    return frame


@pytest.fixture(scope="module")
def cheap_deals(peer, tmp_path_factory) -> Path:
    """A --deals file: the deals of 1..1000 that classic decides quickly."""
    path = tmp_path_factory.mktemp("deals") / "cheap.txt"
    path.write_text("\n".join(map(str, peer.loc[peer["iterations"] < CLASSIC_CHEAP, "deal"])) + "\n")
    return path


@pytest.fixture(scope="module")
def classic_baseline(cheap_deals, tmp_path_factory) -> pd.DataFrame:
    """An uninterrupted classic run of the cheap deals."""
    out = tmp_path_factory.mktemp("baseline") / "run"
    result = cli("run", "--deals", cheap_deals, "--search", "classic", "--out", out, "--chunk-size", "10")
    assert result.returncode == 0, result.stderr
    return verdicts(out)


def test_classic_matches_the_peer(classic_baseline, peer):
    expected = peer.loc[classic_baseline.index]
    assert len(classic_baseline) > 400
    assert (classic_baseline["outcome"] == expected["outcome"]).all()
    assert (classic_baseline["iterations"] == expected["iterations"]).all()
    assert (classic_baseline["cards_played"] == expected["max_played"]).all()


def test_fast_matches_the_peer_on_1_to_1000(tmp_path, peer):
    out = tmp_path / "run"
    result = cli("run", "--range", "1-1000", "--out", out, "--workers", "2", "--chunk-size", "100")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no progress bar: stderr is not a terminal
    assert result.stdout.splitlines()[1] == "877 solved, 123 unsolved, 0 intractable"
    found = verdicts(out)
    assert (found["outcome"] == peer["outcome"]).all()
    assert (found["cards_played"] == peer["max_played"]).all()
    assert read_manifest(str(out))["workers"] == 2
    assert not verify(str(out)).problems


@pytest.mark.parametrize("signum, whole_group", [(signal.SIGINT, True), (signal.SIGTERM, False)])
def test_interrupt_then_resume(cheap_deals, classic_baseline, tmp_path, signum, whole_group):
    """Ctrl-C reaches the whole process group; `kill PID` the parent only."""
    out = tmp_path / "run"
    process = start("run", "--deals", cheap_deals, "--search", "classic", "--out", out,
                    "--workers", "1", "--chunk-size", "10")
    wait_for_part(out, process)
    if whole_group:
        os.killpg(process.pid, signum)
    else:
        process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == -signum, err
    last = err.splitlines()[-1]
    match = re.fullmatch(r"interrupted: ([\d,]+) of ([\d,]+) deals done; resume with: (.+)", last)
    assert match, err
    done, total = (int(group.replace(",", "")) for group in match.group(1, 2))
    assert 0 < done < total == len(classic_baseline)
    assert len(verdicts(out)) == done
    assert read_manifest(str(out))["finished"] is None
    command = shlex.split(match[3])
    assert command[0] == "blackhole-stats"
    resumed = cli(*command[1:])
    assert resumed.returncode == 0, resumed.stderr
    assert f"{total - done:,} deals solved now" in resumed.stdout
    assert verdicts(out).equals(classic_baseline)
    assert read_manifest(str(out))["finished"] is not None


def test_kill_9_of_the_whole_run_then_resume(cheap_deals, classic_baseline, tmp_path):
    out = tmp_path / "run"
    command = ["run", "--deals", cheap_deals, "--search", "classic", "--out", out, "--chunk-size", "10"]
    process = start(*command, "--workers", "2")
    wait_for_part(out, process)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=60)
    assert 0 < len(verdicts(out)) < len(classic_baseline)
    resumed = cli(*command)
    assert resumed.returncode == 0, resumed.stderr
    assert not list(out.glob(".*"))
    assert verdicts(out).equals(classic_baseline)
    assert not verify(str(out)).problems
    shown = " ".join(cli("report", out).stdout.split())  # the killed session's time is not in the total
    assert ("note: elapsed_seconds adds up the sessions that recorded their time; 1 of 2 did not (still running, "
            "killed, or unable to write the manifest as it ended)") in shown, shown


def test_a_worker_that_dies_is_reported_and_the_run_resumes(tmp_path, peer):
    """The worker that reaches deal 60 (third chunk) stops there until it is killed."""
    out = tmp_path / "run"
    command = ["run", "--range", "1-1000", "--out", out, "--workers", "2", "--chunk-size", "25"]
    process = start(*command, env=pause_env(tmp_path, **{"deal-60": 120}))
    [worker] = wait_for_pause(tmp_path, "deal-60", process)
    assert str(worker) in Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    os.kill(worker, signal.SIGKILL)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 1, err
    died = r"a worker process died \(killed, or out of memory\?\): every chunk in flight failed with it"
    assert re.search(rf"^error: chunk \d+-\d+ failed: {died}$", err, re.MULTILINE), err
    assert re.search(rf"^Error: \d+ failed chunk\(s\) \(deals [\d,-]+: {died}\): .*; resume with: "
                     r"blackhole-stats run --range 1-1000", err, re.MULTILINE), err  # the chunks lost, one cause
    assert "BrokenProcessPool" in Path(log_path(str(out))).read_text()
    kept = len(verdicts(out))
    assert 0 < kept < 1000
    resumed = cli(*command)
    assert resumed.returncode == 0, resumed.stderr
    found = verdicts(out)
    assert (found["outcome"] == peer["outcome"]).all() and (found["cards_played"] == peer["max_played"]).all()


def test_a_deal_that_raises_is_named_and_the_rest_kept(tmp_path, monkeypatch):
    """The workers are forked from this process, so they solve with the patched method."""
    real = runner.Solver.solve_deal

    def failing(solver, game, *args):
        if game.number == 77:
            raise RuntimeError("no such luck")
        return real(solver, game, *args)

    monkeypatch.setattr(runner.Solver, "solve_deal", failing)
    out = tmp_path / "run"
    failed = r"1 failed chunk\(s\) \(deal 77: RuntimeError: no such luck\)"
    with pytest.raises(RunStopped, match=failed) as caught:
        run(str(out), DealSet.parse(["1-100"]), workers=2, chunk_size=10)
    assert (caught.value.done, caught.value.total, caught.value.signum) == (90, 100, None)
    log = Path(log_path(str(out))).read_text()
    assert "chunk 71-80 failed: deal 77: RuntimeError: no such luck" in log and "Traceback" in log
    assert re.search(r" ForkProcess-\d+ INFO chunk 71-80: started\n", log)  # a failed chunk's lines too
    assert [deal for _, deal in verdicts(out).index] == [*range(1, 71), *range(81, 101)]
    monkeypatch.undo()
    assert run(str(out), None, workers=2, chunk_size=10).solved_now == 10


@pytest.mark.parametrize("args, words", [
    (["--range", "10-1"], "reversed"),
    (["--range", "1-5,x"], "'x'"),
    (["--range", "0"], "start at 1"),
    (["--range", "ms1-ms9999999999"], "ms numbers go up to"),
    (["--range", f"1-{10**38}"], "below 10^38"),
])
def test_bad_ranges_are_one_line(tmp_path, args, words):
    result = cli("run", *args, "--out", tmp_path / "run")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and words in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "run").exists()


def test_the_run_log_is_timed_in_utc_as_the_manifest_is(tmp_path):
    """run.log's lines were in local time without a zone, the manifest's in UTC: a session run five hours
    west of the one before read as going backwards (POSIX TZ strings: no time-zone data needed)."""
    from datetime import datetime, timezone

    out = tmp_path / "run"
    for zone, deals in (("UTC0", "1-3"), ("XYZ+5", "1-6"), ("ABC-9", "1-9")):
        done = subprocess.run([str(SCRIPT), "run", "--range", deals, "--out", str(out), "--workers", "1"],
                              capture_output=True, text=True, timeout=120, env={**os.environ, "TZ": zone})
        assert done.returncode == 0, done.stderr
    lines = [line for line in Path(log_path(str(out))).read_text().splitlines() if " run started: " in line]
    logged = [datetime.strptime(line.split()[0], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
              for line in lines]
    started = [datetime.strptime(session["started"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
               for session in read_manifest(out)["sessions"]]
    assert len(logged) == len(started) == 3 and logged == sorted(logged)
    assert all(abs((one - other).total_seconds()) < 60 for one, other in zip(logged, started)), (logged, started)


def test_other_settings_and_bad_deal_files_are_one_line(tmp_path):
    out = tmp_path / "run"
    assert cli("run", "--range", "1-5", "--out", out).returncode == 0
    again = cli("run", "--range", "1-5", "--out", out)
    assert again.returncode == 0 and again.stdout.startswith("0 deals solved now")
    changed = cli("run", "--range", "1-5", "--out", out, "--max-iters", "10")
    assert changed.returncode == 1 and changed.stderr.count("\n") == 1
    assert "max_iters=no bound, not 10" in changed.stderr
    listing = tmp_path / "deals.txt"
    listing.write_text("12\n\nms3\nthirteen\n")
    bad = cli("run", "--deals", listing, "--out", tmp_path / "other")
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "deals.txt line 4" in bad.stderr


def test_progress_bar_on_request_counts_the_solved_deals_of_every_chunk_shown(tmp_path, peer):
    """One worker, chunks of 5, each held 0.3 s: every update draws the bar (tqdm
    redraws at most every 0.1 s), and each drawing's solved= must count the deals it says are done."""
    pauses = pause_env(tmp_path, **{f"deal-{first}": 0.3 for first in (1, 6, 11, 16)})
    result = subprocess.run([str(SCRIPT), "run", "--range", "1-20", "--out", str(tmp_path / "run"), "--progress",
                             "--chunk-size", "5", "--workers", "1"], capture_output=True, text=True, timeout=120,
                            env={**os.environ, **pauses})
    assert result.returncode == 0, result.stderr
    drawings = [line for line in re.split(r"[\r\n]", result.stderr) if line.strip()]
    shown = [(int(done), int(solved)) for line in drawings
             for done, solved in re.findall(r" (\d+)/20 .*deal/s, solved=(\d+)\]", line)]
    solvable = peer.loc[(False, slice(1, 20)), "outcome"].eq("solved").cumsum().tolist()
    assert shown[-1] == (20, solvable[19]) and drawings[-1].count("solved=") == 1
    assert {done for done, _ in shown} >= {5, 10, 15, 20}, drawings
    assert all(solved == solvable[done - 1] for done, solved in shown), drawings


# at 80 columns


def lines_wider_than_80(text: str) -> list[str]:
    return [line for line in text.splitlines() if len(line) > 80]


@pytest.mark.parametrize("command", [[], ["deal"], ["solve"], ["run"], ["report"], ["verify"], ["export"]])
def test_help_fits_80_columns(command):
    result = subprocess.run([str(SCRIPT), *command, "--help"], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "COLUMNS": "80"})
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert not lines_wider_than_80(result.stdout), result.stdout


def test_top_level_help_says_each_command_in_a_whole_sentence():
    """No description cut short with "...": each command's short help, one line ending with a period."""
    result = subprocess.run([str(SCRIPT), "--help"], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "COLUMNS": "80"})
    listing = result.stdout.split("\nCommands:\n", 1)[1].splitlines()
    assert [line.split()[0] for line in listing] == ["deal", "export", "report", "run", "solve", "verify"]
    assert all(line.endswith(".") and not line.endswith("...") for line in listing), listing


def test_readme_states_the_dask_waits_the_run_keeps():
    """README promises how long a run waits on a Dask cluster; the constants are what the run does."""
    text = " ".join((Path(__file__).parents[1] / "README.md").read_text().split())
    for promise in (f"--wait-for-workers` seconds (default {runner.WAIT_FOR_WORKERS_SECONDS:g})",
                    f"or silent for {runner.SCHEDULER_SECONDS:g} s",
                    f"a run waits up to {runner.STOP_SECONDS:g} s for the chunks running on the cluster to stop"):
        assert promise in text, promise


def test_readme_command_summary_names_every_option_and_each_help_has_examples():
    """README's summary of the command line left out run's --deals, --scheduler, --wait-for-workers and
    --progress and report's --compare-game, and `deal --help` had no examples though README says each has."""
    from blackhole_stats.cli import main

    block = (Path(__file__).parents[1] / "README.md").read_text().split("## The command line", 1)[1]
    block = block.split("```text", 1)[1].split("```", 1)[0]
    summary: dict[str, str] = {}
    for line in block.splitlines():  # a command's line, and the indented ones that go on with it
        named = re.match(r"blackhole-stats (\w+) ", line)
        if named:
            command = named[1]
            summary[command] = line
        elif line.startswith(" "):
            summary[command] += line
    assert sorted(summary) == sorted(main.commands)
    for name, command in main.commands.items():
        options = {option for param in command.params for option in (*param.opts, *param.secondary_opts)
                   if option.startswith("--")} - {"--help"}
        assert set(re.findall(r"--[a-z-]+", summary[name])) == options, name
        assert "Examples:" in command.help or "Example:" in command.help, name


def test_run_summary_fits_80_columns():
    """A short output path (the summary names it), with outcomes of all three kinds."""
    with tempfile.TemporaryDirectory(prefix="bh", dir="/tmp") as folder:
        out = Path(folder) / "run"
        result = cli("run", "--range", "1-40,20000-20010", "--max-iters", "300", "--out", out)
        assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.fullmatch(r"51 deals solved now in [\d,.]+ s \([\d,]+ deals/s, \d+ workers?\)", lines[0])
    counts = re.fullmatch(r"(\d+) solved, (\d+) unsolved, (\d+) intractable", lines[1])
    assert counts and all(int(count) > 0 for count in counts.groups()), lines[1]
    assert lines[2:] == [f"0 of the run's 51 deals were already done; dataset: {out}"]
    assert not lines_wider_than_80(result.stdout), result.stdout


def test_dask_cluster(tmp_path, peer):
    distributed = pytest.importorskip("distributed")
    out = tmp_path / "run"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        result = cli("run", "--range", "1-200", "--out", out.as_uri(), "--chunk-size", "25",
                     "--scheduler", cluster.scheduler_address)
        assert result.returncode == 0, result.stderr
        assert ", 2 workers)\n" in result.stdout
        assert read_manifest(str(out))["scheduler"] == cluster.scheduler_address
    found = verdicts(out)
    expected = peer.loc[found.index]
    assert len(found) == 200
    assert (found["outcome"] == expected["outcome"]).all()
    assert (found["cards_played"] == expected["max_played"]).all()
    assert not verify(out.as_uri()).problems



def test_run_summary_of_a_million_deals_fits_80_columns():
    """The widest numbers a million-deal session prints, each kind of outcome six digits wide."""
    summary = RunSummary("runs/million", 2_000_000, 1_000_000, (333_333, 333_333, 333_334), 123_456.7, 0.0, 128)
    assert _summary(summary).splitlines() == [
        "1,000,000 deals solved now in 123,456.7 s (8 deals/s, 128 workers)",
        "333,333 solved, 333,333 unsolved, 333,334 intractable",
        "1,000,000 of the run's 2,000,000 deals were already done; dataset: runs/million"]
    assert not lines_wider_than_80(_summary(summary))


@pytest.mark.parametrize("deals, workers", [(10**7, 2), (10**9, 64), (2 * 10**6, 8), (10**6, 2), (5000, 2), (7, 2)])
def test_default_chunk_size_bounds_the_files_and_feeds_every_worker(deals, workers):
    """Readers pay per file (results/SCALE.md): big runs get bigger chunks, small runs still feed every worker."""
    size = runner.default_chunk_size(deals, workers)
    files = -(-deals // size)
    assert 1 <= size <= runner.MAX_DEFAULT_CHUNK_SIZE
    assert files <= max(runner.DEFAULT_FILES, deals // runner.MAX_DEFAULT_CHUNK_SIZE + 1)
    assert files >= min(deals, runner.MIN_CHUNKS_PER_WORKER * workers)
    assert size <= runner.DEFAULT_CHUNK_SIZE or deals > runner.DEFAULT_CHUNK_SIZE * runner.DEFAULT_FILES


def test_a_worker_that_counts_iterations_otherwise_refuses_its_chunk(tmp_path):
    """A Dask worker runs its own machine's install: one whose search counts a game's iterations
    otherwise than the run's rows (runner.ChunkTask.iterations_revision) writes nothing."""
    out = tmp_path / "run"
    task = runner.ChunkTask(DealSet.parse(["1-3"]), str(out), "fast", None, game="all_in_a_row", iterations_revision=1)
    with pytest.raises(runner.RunError, match="counts All in a Row's iterations as revision 2, the run's rows as "
                                              "revision 1: give every worker the version that started the run"):
        runner.solve_chunk(task)
    assert not out.exists()
    out.mkdir()  # as the run makes it
    written = runner.solve_chunk(runner.ChunkTask(DealSet.parse(["1-3"]), str(out), "fast", None, game="all_in_a_row",
                                                  iterations_revision=2))
    assert written is not None and sum(written.outcomes) == 3


# ------------------------------------------------------------------ the Python API's arguments
@pytest.mark.parametrize("arguments, error, words", [
    ({"chunk_size": 0}, ValueError, "chunk_size must be a whole number of at least 1, not 0"),  # a worker spun forever on it
    ({"chunk_size": -5}, ValueError, "chunk_size must be a whole number of at least 1, not -5"),  # empty files named 101-95
    ({"chunk_size": 2.5}, ValueError, "chunk_size must be a whole number of at least 1, not 2.5"),
    ({"workers": 0}, ValueError, "workers must be a whole number of at least 1, not 0"),  # silently every core
    ({"workers": True}, ValueError, "workers must be a whole number of at least 1, not True"),
    ({"wait_for_workers": float("nan"), "scheduler": "tcp://127.0.0.1:1"}, ValueError,
     "wait_for_workers must be a number of seconds from 0 to 1,000,000,000, not nan"),
    ({"wait_for_workers": 1e300, "scheduler": "tcp://127.0.0.1:1"}, ValueError,  # overflowed a thread's wait
     "wait_for_workers must be a number of seconds from 0 to 1,000,000,000, not 1e+300"),
    ({"deals": [1, 2]}, TypeError, "deals must be a DealSet, text such as '1-1000', or None, not list"),
    ({"search": "Fast"}, ValueError, "search must be one of 'fast', 'classic', not 'Fast'"),  # 'holds a run with'
    ({"search": None}, ValueError, "search must be one of 'fast', 'classic', not None"),
    ({"out": b"run"}, TypeError, "a dataset path is text or a path object, not bytes"),
])
def test_run_refuses_arguments_of_the_wrong_kind_before_writing_anything(tmp_path, arguments, error, words):
    """Each was a hang, junk files, a manifest that no command could read again, or an AttributeError, most
    after the run's folders were made."""
    given = {"out": str(tmp_path / "run"), "deals": "1-5", "workers": 1, **arguments}
    with pytest.raises(error) as raised:
        run(given.pop("out"), given.pop("deals"), **given)
    assert str(raised.value) == words
    assert list(tmp_path.iterdir()) == []


def test_run_takes_numpy_counts_text_deals_paths_and_the_home_folder(tmp_path, monkeypatch):
    """numpy integers failed at the manifest (int64 is no JSON) after it was begun; `~` made a folder named
    `~` where pandas reads the home folder; a Path was a TypeError."""
    np = pytest.importorskip("numpy")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    summary = run("~/run", "1-6", workers=np.int64(1), chunk_size=np.int32(3), max_iters=np.int64(10**6))
    assert summary.out == str(tmp_path / "home" / "run") and summary.solved_now == 6
    assert read_manifest(str(tmp_path / "home" / "run"))["max_iters"] == 10**6
    assert len(pd.read_parquet("~/run")) == 6
    assert run(tmp_path / "home" / "run", DealSet.parse("7"), max_iters=10**6, workers=1).solved_now == 1
    assert verify(tmp_path / "home" / "run").rows == 7


RUN_IN_A_POOL = """
import multiprocessing, sys
from blackhole_stats.runner import run

def attempt(out):
    try:
        run(out, "1-3", workers=1)
    except Exception as error:
        return f"{type(error).__name__}: {error}"

if __name__ == "__main__":
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        print(pool.map(attempt, [sys.argv[1]])[0])
"""


def test_run_in_a_pool_s_worker_says_it_cannot_start_workers(tmp_path):
    """A bare 'AssertionError: daemonic processes are not allowed to have children', a session recorded."""
    script = tmp_path / "pooled.py"  # a file: spawned workers import the function from it
    script.write_text(RUN_IN_A_POOL)
    done = subprocess.run([sys.executable, script, str(tmp_path / "run")], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout == ("RunError: run starts worker processes, which a daemonic process (a multiprocessing "
                           "pool's worker) may not: call it from a main process, or give a Dask scheduler\n"), done
    assert not (tmp_path / "run").exists()


TWO_RUNS = """
import sys, threading
from blackhole_stats.runner import RunError, run

first = threading.Thread(target=run, args=(sys.argv[1], "1-8"), kwargs={"workers": 1, "chunk_size": 2})
first.start()
while not __import__("os").path.exists(sys.argv[3]):  # the first run's worker is at deal 5
    __import__("time").sleep(0.01)
try:
    run(sys.argv[2], "1-3", workers=1)
except RunError as error:
    print(error)
open(sys.argv[3] + ".release", "w").close()
first.join()
"""


def test_a_second_run_in_one_process_is_refused_and_the_first_goes_on(tmp_path):
    """Two runs in two threads of a notebook: one's stop killed the other's workers, and their lines went
    into each other's logs."""
    env = {**os.environ, **pause_env(tmp_path, **{"deal-5": 120})}
    done = subprocess.run([sys.executable, "-c", TWO_RUNS, str(tmp_path / "a"), str(tmp_path / "b"),
                           str(tmp_path / "pauses" / "deal-5")], capture_output=True, text=True, timeout=120, env=env)
    assert done.stdout == ("another run is going on in this process: a run's log and worker processes are its "
                           "process's, so start this one in another process, or when that one ends\n"), done
    assert not (tmp_path / "b").exists()
    assert len(pd.read_parquet(tmp_path / "a")) == 8 and not verify(str(tmp_path / "a")).problems


def test_a_dask_run_from_a_notebook_kernel(tmp_path):
    """Jupyter runs its cells in an event loop: asking the scheduler with asyncio.run failed there, every time
    ('asyncio.run() cannot be called from a running event loop')."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("distributed")
    out = tmp_path / "run"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import distributed\n"
        "from blackhole_stats.runner import run\n"
        "with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host='127.0.0.1',\n"
        "                              dashboard_address=None) as cluster:\n"
        f"    summary = run({str(out)!r}, '1-20', scheduler=cluster.scheduler_address)\n"
        "print('solved now:', summary.solved_now)")])
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    printed = "".join(output.get("text", "") for output in notebook.cells[0].outputs if output.output_type == "stream")
    assert "solved now: 20\n" in printed, printed
    assert not verify(str(out)).problems and len(pd.read_parquet(out)) == 20


def test_forget_missing_refuses_to_leave_a_run_that_asks_for_nothing(tmp_path):
    """A run that holds no deal yet, its range forgotten, would ask for none: refused, the run as it was."""
    from blackhole_stats import dataset

    out = str(tmp_path / "run")
    with dataset.open_run(out, DealSet.parse("1-5"), "fast", None):
        pass
    with pytest.raises(dataset.DatasetError, match="holds no deal yet, so with --forget-missing the run would ask for "
                                                   "none: give --range or --deals"):
        run(out, forget_missing=True, workers=1)
    assert read_manifest(out)["deals"] == ["1-5"]
    assert run(out, "7", forget_missing=True, workers=1).requested == 1
    assert read_manifest(out)["deals"] == ["7"]
