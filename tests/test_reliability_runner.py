"""Faults a run survives, driven through the real CLI, with the slow parts made slow on purpose.

What it proves, each time ending with a resume that writes every deal exactly
once and a `verify` that passes:
* `kill -9` of the main process alone (the OOM killer) takes its workers with
  it at once (also the portable fallback alone), so the resume is not locked out;
* SIGINT to the process group or SIGTERM to the parent at any moment (before
  anything is imported, while workers start, mid-chunk, after the last chunk)
  dies of the signal (a shell shows 130/143) after the resume command, never swallowed, no traceback;
* both of these, and the workers' lines in DIR/_run.log, hold whether local
  workers are forked, spawned or started by a fork server (macOS and Windows
  spawn, Python 3.14 uses a fork server on Linux), and on a Dask cluster of
  separate processes every worker's lines reach DIR/_run.log too;
* a disk that fills up mid-run: one line with the resume command, exit 1, the
  finished parts intact; after freeing space the same command resumes;
* Dask: a cluster without workers is waited for a bounded time, and a worker
  that joins is used (and is the one the run reports); Ctrl-C during that wait
  or mid-run stops at once: queued chunks are cancelled, nothing lands after
  the run has ended; a lost worker is logged;
* `--workers 1000` starts twice the cores, with one line saying so.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pandas as pd
import pytest

from blackhole_stats import runner
from blackhole_stats.dataset import being_written, log_path, read_manifest
from blackhole_stats.report import LIVE_WARNING as LIVE
from conftest import (SCRIPT, as_nobody, assert_one_line_failure, cli, hang_up_as_a_shell_leaves_it, pause_env, release_pause,
                      require_reference, signal_at_pause, state, tmpfs, until, wait_for_pause)

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason=f"console script not installed at {SCRIPT}")

START_METHODS = [None, "spawn", "forkserver"]
"""None: the platform's default (fork on Linux before Python 3.14), the way the installed script runs."""
PROCESS_NAMES = {"fork": "ForkProcess", "spawn": "SpawnProcess", "forkserver": "ForkServerProcess"}
"""What multiprocessing names a worker started each way: the run log shows it."""
WITH_START_METHOD = ("import multiprocessing, sys; multiprocessing.set_start_method(sys.argv.pop(1)); "
                     "from blackhole_stats.console import main; main()")
"""The console script, with workers started another way than the platform's default."""


def command(method: str | None, *args) -> list[str]:
    """`blackhole-stats ARGS` as a real process, its workers started by `method` (None: the default)."""
    start = [str(SCRIPT)] if method is None else [sys.executable, "-c", WITH_START_METHOD, method]
    return [*start, *map(str, args)]


STOPPED = re.compile(r"interrupted(?:: ([\d,]+) of ([\d,]+) deals done)?; resume with: (blackhole-stats .+)")
"""The last stderr line of an interrupted run."""


@contextmanager
def started(*args, env: dict | None = None, method: str | None = None, stdin: Path | bytes | None = None,
            ignoring: tuple = ()) -> Iterator[subprocess.Popen]:
    """`blackhole-stats ARGS < stdin` (a file, or bytes through a pipe) in its own process group, as a
    shell starts it, with the signals `ignoring` ignored (as `trap ''` leaves them); killed if a test fails."""

    def as_a_shell_leaves_it():
        hang_up_as_a_shell_leaves_it()
        for signum in ignoring:
            signal.signal(signum, signal.SIG_IGN)

    if isinstance(stdin, bytes):
        read_end, write_end = os.pipe()
        os.write(write_end, stdin)
        os.close(write_end)
    with open(read_end, "rb") if isinstance(stdin, bytes) else open(stdin or os.devnull, "rb") as given:
        process = subprocess.Popen(command(method, *args), stdin=given, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, start_new_session=True,
                                   env={**os.environ, **(env or {})}, preexec_fn=as_a_shell_leaves_it)
    try:
        yield process
    finally:
        if alive_in_group(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()


def alive_in_group(group: int) -> list[int]:
    """The live processes of a process group."""
    pids = [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]
    return [pid for pid in pids if (found := state(pid)) is not None and found[1] == group]


def wait_for_first_chunk(out: Path) -> None:
    """Until the run has counted chunk 1-10 (its log says so): held at deal 15, a run on a loaded machine may
    still be reading that chunk's file back for its settings, which a test moving files then races."""
    until(lambda: "chunk 1-10: wrote" in Path(log_path(str(out))).read_text(), "the run counted chunk 1-10")


def pause_folders(tmp_path: Path, *names: str) -> list[Path]:
    """A folder of pause markers for each of several processes paused apart (see `pause_env`)."""
    folders = [tmp_path / name for name in names]
    for folder in folders:
        folder.mkdir()
    return folders


def deals_in(out: Path) -> list[int]:
    """The deal numbers stored, with repeats, read by pandas (no package code)."""
    if not list(out.glob("part-*.parquet")):
        return []
    return sorted(map(int, pd.read_parquet(out, columns=["deal"])["deal"]))


def assert_complete(out: Path, count: int) -> None:
    """Deals 1..count exactly once, and `verify` agrees."""
    assert deals_in(out) == list(range(1, count + 1))
    checked = cli("verify", out)
    assert checked.returncode == 0 and checked.stdout.startswith(b"ok: "), checked


def stop_line(err: str) -> tuple[int | None, int | None, list[str]]:
    """(done, total, resume arguments) from an interrupted run's last stderr line."""
    assert "Traceback" not in err and "Aborted" not in err, err
    match = STOPPED.fullmatch(err.splitlines()[-1])
    assert match, err
    done, total = (None if group is None else int(group.replace(",", "")) for group in match.group(1, 2))
    return done, total, shlex.split(match[3])[1:]


def resume(arguments: list[str], count: int, out: Path) -> subprocess.CompletedProcess:
    result = cli(*arguments)
    assert result.returncode == 0, result.stderr
    assert_complete(out, count)
    return result


# kill -9 of the main process alone


@pytest.mark.parametrize("method", START_METHODS)
def test_kill_9_of_the_main_process_alone_takes_the_workers_with_it(tmp_path, method):
    """Two workers stop on deals 35 and 45 (fourth and fifth chunks: 1-30 are done by then).

    Under forkserver the workers' parent is the fork server, which lives as long
    as they do: they must notice the run's death themselves. Nothing of the run
    may be left (fork server and resource tracker included).
    """
    out = tmp_path / "run"
    arguments = ["run", "--range", "1-100", "--out", out, "--workers", "2", "--chunk-size", "10"]
    with started(*arguments, env=pause_env(tmp_path, **{"deal-35": 120, "deal-45": 120}),
                 method=method) as process:
        workers = wait_for_pause(tmp_path, "deal-35", process) + wait_for_pause(tmp_path, "deal-45", process)
        assert len(set(workers)) == 2 and all(state(pid)[1] == process.pid for pid in workers)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        until(lambda: not any(state(pid) for pid in workers), "the workers outlived their parent", timeout=10)
        until(lambda: not alive_in_group(process.pid), "a process of the run outlived it", timeout=10)
    resumed = cli(*arguments, timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    assert b"70 deals solved now" in resumed.stdout and b"30 of the run's 100 deals were already done" in resumed.stdout
    assert_complete(out, 100)


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_without_the_kernels_help_workers_still_notice_their_parent_is_gone(tmp_path, method):
    """The portable fallback alone: two children watching the run's pipe exit when it is killed.

    Two, because forked siblings hold copies of each other's pipe.
    """
    script = textwrap.dedent("""
        import multiprocessing, sys, time
        from blackhole_stats.interrupts import watch_parent
        if __name__ == "__main__":
            context = multiprocessing.get_context(sys.argv[1])
            children = [context.Process(target=watch_parent) for _ in range(2)]
            for child in children:
                child.start()
            print(*(child.pid for child in children), flush=True)
            time.sleep(120)
    """)
    process = subprocess.Popen([sys.executable, "-c", script, method], stdout=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        children = [int(pid) for pid in process.stdout.readline().split()]
        assert len(children) == 2 and all(state(pid) for pid in children)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        until(lambda: not any(state(pid) for pid in children), "an orphan kept running", timeout=10)
    finally:
        for pid in alive_in_group(process.pid):
            os.kill(pid, signal.SIGKILL)


# interrupts at every moment


MOMENTS = [
    ("run-command", signal.SIGINT, True),    # before anything is imported, read or started
    ("worker-start", signal.SIGINT, True),   # workers started but not set up (a spawned one has imported)
    ("worker-start", signal.SIGTERM, False),
    ("deal-15", signal.SIGINT, True),        # mid-chunk
    ("deal-15", signal.SIGTERM, False),
    ("chunks-done", signal.SIGINT, True),    # every chunk written, the manifest not yet finished
    ("deal-15", signal.SIGHUP, True),        # the terminal closed: it ended the run as kill -9 did, silently
]


@pytest.mark.parametrize("method, hook, signum, whole_group", [
    *((None, *moment) for moment in MOMENTS),
    *((method, *moment) for method in START_METHODS[1:] for moment in (*MOMENTS[1:4], MOMENTS[-1])),
])
def test_an_interrupt_at_any_moment_exits_with_the_resume_command(tmp_path, method, hook, signum, whole_group):
    """Ctrl-C reaches the whole process group, `kill PID` the parent only."""
    out = tmp_path / "run"
    with started("run", "--range", "1-40", "--out", out, "--workers", "2", "--chunk-size", "10",
                 env=pause_env(tmp_path, **{hook: 120}), method=method) as process:
        paused = wait_for_pause(tmp_path, hook, process)
        (os.killpg if whole_group else os.kill)(process.pid, signum)
        _, err = process.communicate(timeout=60)  # well before the pause ends: nothing waits for it
        assert process.returncode == -signum, err
        assert not any(state(pid) for pid in paused), "a worker outlived the run"
        until(lambda: not alive_in_group(process.pid), "a process of the run outlived it", timeout=10)
    done, total, arguments = stop_line(err)
    if hook == "run-command":
        assert done is None and not list(out.glob("part-*"))
    else:
        assert total == 40 and done == len(deals_in(out))
        assert done == {"worker-start": 0, "chunks-done": 40}.get(hook, done)
    resume(arguments, 40, out)


def test_a_second_signal_that_cuts_the_clean_up_short_neither_waits_for_the_workers_nor_changes_the_status(
        tmp_path):
    """Ctrl-C, then SIGTERM before the workers are stopped (held at "workers-stopping"): the pool's
    shutdown waited for the chunk in flight to finish (here its worker is held for two minutes), the
    run then died of the second signal, though the log and its first line said Ctrl-C, and the session
    and the counts were lost. It stops the workers, records the session, and dies of the first; the
    same command resumes it."""
    out = tmp_path / "run"
    with started("run", "--range", "1-40", "--out", out, "--workers", "1", "--chunk-size", "10",
                 env=pause_env(tmp_path, **{"deal-15": 120, "workers-stopping": 120, "session-ending": 120})
                 ) as process:
        paused = wait_for_pause(tmp_path, "deal-15", process)
        os.killpg(process.pid, signal.SIGINT)
        wait_for_pause(tmp_path, "workers-stopping", process)
        os.kill(process.pid, signal.SIGTERM)
        wait_for_pause(tmp_path, "session-ending", process)  # the session is recorded only once no worker
        assert not any(state(pid) for pid in paused), "a worker went on as the session was recorded"  # writes
        release_pause(tmp_path, "session-ending")
        _, err = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGINT and "interrupted by SIGINT" in err, err
    assert not any(state(pid) for pid in paused), "a worker outlived the run"
    done, total, arguments = stop_line(err)  # the counts, and the session, as after one signal
    assert (done, total) == (len(deals_in(out)), 40) and done >= 10
    assert [session["deals_solved"] for session in read_manifest(str(out))["sessions"]] == [done]
    assert "run interrupted by SIGINT: " in (tmp_path / "run.run" / "run.log").read_text()
    resume(arguments, 40, out)


def test_an_interrupt_as_the_session_is_recorded_is_in_the_run_s_log(tmp_path):
    """The log said a run was interrupted only for a signal that came while chunks were solved."""
    out = tmp_path / "run"
    done = signal_at_pause(tmp_path, [SCRIPT, "run", "--range", "1-20", "--out", out, "--workers", "1"],
                           "session-ending", lambda pid: os.kill(pid, signal.SIGTERM), release=True)
    assert done.returncode == -signal.SIGTERM, done.stderr
    assert "run interrupted by SIGTERM: 20 of 20 deals done" in (tmp_path / "run.run" / "run.log").read_text()


def test_a_chunk_that_lands_as_a_signal_stops_the_run_counts_in_its_session(tmp_path):
    """The session's deals_solved counted the results the run had collected: a chunk whose file landed
    just before SIGTERM, its result not yet counted (held here at the run's tally), was in the run's
    line and the dataset but not in the session (0 of 10; a study's timing lost it). It counts the files."""
    out = tmp_path / "run"
    done = signal_at_pause(tmp_path, [SCRIPT, "run", "--range", "1-40", "--out", out, "--workers", "1",
                                      "--chunk-size", "10"], "chunk-tally", lambda pid: os.kill(pid, signal.SIGTERM))
    assert done.returncode == -signal.SIGTERM, done.stderr
    landed, total, _ = stop_line(done.stderr)
    assert total == 40 and landed == len(deals_in(out)) >= 10
    assert [session["deals_solved"] for session in read_manifest(str(out))["sessions"]] == [landed]


def test_a_chunk_file_a_worker_wrote_without_the_run_s_settings_is_deleted_and_stops_the_run(tmp_path):
    """A Dask worker of an older build (its own install) writes chunk files that record no settings, as
    files of earlier versions do, so they were taken: its rows counted iterations otherwise (Golf before
    its counting changed), verify passed and report said nothing. Such a file is made here as the run is
    about to count its chunk: the run deletes it, stops naming it, and the next session solves it again."""
    import pyarrow.parquet as pq

    out = tmp_path / "run"

    def as_an_older_worker_writes(pid: int) -> None:
        for part in out.glob("part-*.parquet"):
            pq.write_table(pq.read_table(part).replace_schema_metadata(None), part)

    done = signal_at_pause(tmp_path, [SCRIPT, "run", "--range", "1-40", "--out", out, "--workers", "1",
                                      "--chunk-size", "10"], "chunk-tally", as_an_older_worker_writes, release=True)
    assert done.returncode == 1, done.stderr
    assert "part-1-10-10.parquet, just written by a worker, records no run settings: deleted" in done.stderr
    assert not (out / "part-1-10-10.parquet").exists()
    assert subprocess.run([SCRIPT, "run", "--out", out], capture_output=True).returncode == 0
    assert subprocess.run([SCRIPT, "verify", out], capture_output=True).returncode == 0
    assert deals_in(out) == list(range(1, 41))


def test_a_chunk_file_that_cannot_be_read_back_for_its_check_is_kept(tmp_path):
    """The check of a new chunk file's settings deleted a file it could not read back (a storage blip): a
    good file lost, the run stopped blaming a version. A folder stands in the file's place as the run
    counts it here: the run warns, deletes nothing, and with the file back the run is whole."""
    out, away = tmp_path / "run", tmp_path / "away.parquet"

    def unreadable(pid: int) -> None:
        (out / "part-1-10-10.parquet").rename(away)
        (out / "part-1-10-10.parquet").mkdir()

    done = signal_at_pause(tmp_path, [SCRIPT, "run", "--range", "1-20", "--out", out, "--workers", "1",
                                      "--chunk-size", "10"], "chunk-tally", unreadable, release=True)
    assert "part-1-10-10.parquet could not be read back to check its settings" in done.stderr, done.stderr
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    (out / "part-1-10-10.parquet").rmdir()
    away.rename(out / "part-1-10-10.parquet")
    assert subprocess.run([SCRIPT, "run", "--out", out], capture_output=True).returncode == 0
    assert subprocess.run([SCRIPT, "verify", out], capture_output=True).returncode == 0
    assert deals_in(out) == list(range(1, 21))


def test_a_chunk_file_that_is_not_there_once_written_stops_the_run_at_once(tmp_path):
    """A Dask worker that sees another disk at the run's path wrote every chunk there: the run warned of
    each as not readable, solved the whole range, then blamed deletion. The first file the run cannot find
    stops it (moved away here, as the run counts it), naming the cause; the resume solves it again."""
    out = tmp_path / "run"

    def moved_away(pid: int) -> None:
        (out / "part-1-10-10.parquet").rename(tmp_path / "away.parquet")

    done = signal_at_pause(tmp_path, [SCRIPT, "run", "--range", "1-100", "--out", out, "--workers", "1",
                                      "--chunk-size", "10"], "chunk-tally", moved_away, release=True)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    line = done.stderr.splitlines()[-1]
    assert (f"deals 1-10: RunError: part-1-10-10.parquet, just written by a worker, is not in {out}: a Dask worker "
            "must see the run's folder at the same path on the same disk") in line, line
    assert len(deals_in(out)) <= 30  # the chunks already handed out, and no more
    assert subprocess.run([SCRIPT, "run", "--out", out], capture_output=True).returncode == 0
    assert subprocess.run([SCRIPT, "verify", out], capture_output=True).returncode == 0
    assert deals_in(out) == list(range(1, 101))


def test_ctrl_c_stops_a_shell_loop_over_runs(tmp_path):
    """`for game in ...; do blackhole-stats run ...; done`: Ctrl-C during the first run stopped that run,
    and the loop went on to start the next one, as bash does after a child that exits 130 (it chose to
    stop); it stops only for a child the signal killed. Now the run says how to resume, then dies of it."""
    runs = [tmp_path / name for name in ("golf", "relaxed_golf")]
    loop = (f"for game in golf relaxed_golf; do '{SCRIPT}' run --range 1-30 --game $game --out '{tmp_path}'/$game "
            "--workers 1 --chunk-size 10; echo \"after $game\"; done")
    done = signal_at_pause(tmp_path, ["bash", "-c", loop], "deal-15", lambda pid: os.killpg(pid, signal.SIGINT))
    assert done.returncode in (-signal.SIGINT, 128 + signal.SIGINT), done  # (bash itself dies of it, or exits 130)
    assert "after" not in done.stdout and not runs[1].exists(), done
    assert "resume with:" in done.stderr.splitlines()[-1] and "Traceback" not in done.stderr, done.stderr
    assert 0 < len(pd.read_parquet(runs[0])) < 30


def ignored_by(pid: int) -> int:
    """The signals a process ignores, as a bit mask (bit n - 1: signal n)."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:")), 16)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=lambda signum: signum.name)
def test_a_signal_ignored_when_the_run_starts_stays_ignored_in_it_and_its_workers(tmp_path, signum):
    """`trap '' TERM` (or a script's background job, which starts with Ctrl-C ignored): the run took the
    signal over, and, for SIGTERM, its workers died of it, 'a worker process died' and exit 1; a
    complete run's last steps took it over again too. Now the run does not hear it, and finishes."""
    out = tmp_path / "run"
    with started("run", "--range", "1-30", "--out", out, "--workers", "2", "--chunk-size", "5",
                 env=pause_env(tmp_path, **{"deal-12": 120, "command-ending": 120}), ignoring=(signum,)) as process:
        workers = wait_for_pause(tmp_path, "deal-12", process)
        assert all(ignored_by(pid) >> (signum - 1) & 1 for pid in [process.pid, *workers])
        os.killpg(process.pid, signum)
        release_pause(tmp_path, "deal-12")
        wait_for_pause(tmp_path, "command-ending", process)
        assert ignored_by(process.pid) >> (signum - 1) & 1  # (its last steps' handlers took it over)
        os.killpg(process.pid, signum)
        release_pause(tmp_path, "command-ending")
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0 and "interrupted" not in err, err
    assert len(pd.read_parquet(out)) == 30


def test_a_failure_that_a_second_signal_causes_in_the_clean_up_is_the_interrupt(tmp_path):
    """Two SIGTERMs close together (GNU timeout signals the run, then its group): the second can cut
    futures.wait's handling of the first in two, and the wait then fails in its own way (RuntimeError:
    release unlocked lock), once in some hundreds of tries. The test hook makes that wait fail every time.
    It was a traceback and exit 1; it is the interrupt: its line, 143, the session recorded."""
    out = tmp_path / "run"
    env = {**pause_env(tmp_path, **{"deal-15": 120}), "BLACKHOLE_STATS_TEST_FAIL": "pool-wait-cut"}
    with started("run", "--range", "1-40", "--out", out, "--workers", "1", "--chunk-size", "10",
                 env=env) as process:
        wait_for_pause(tmp_path, "deal-15", process)
        wait_for_first_chunk(out)  # and waits on the pool again
        time.sleep(0.2)  # from that line to the pool's wait, where it stays while deal 15 is held: a few steps
        os.kill(process.pid, signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGTERM, err
    done, total, arguments = stop_line(err)
    assert total == 40 and done == len(deals_in(out)) == 10
    assert [session["deals_solved"] for session in read_manifest(str(out))["sessions"]] == [10]
    assert ("interrupted by SIGTERM: stopping the workers (what it cut short failed: RuntimeError: test hook: "
            "pool-wait-cut failed)") in Path(log_path(str(out))).read_text()
    resume(arguments, 40, out)


def test_a_hang_up_that_nohup_ignores_is_ignored(tmp_path):
    """Under `nohup` a run must outlive its terminal: SIGHUP stays ignored, in the run and its workers."""
    out = tmp_path / "run"
    process = subprocess.Popen(["nohup", str(SCRIPT), "run", "--range", "1-40", "--out", str(out), "--workers", "2",
                                "--chunk-size", "10"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, env={**os.environ, **pause_env(tmp_path, **{"deal-15": 3})})
    try:
        wait_for_pause(tmp_path, "deal-15", process)
        os.killpg(process.pid, signal.SIGHUP)
        _, err = process.communicate(timeout=120)
    finally:
        if alive_in_group(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 0, err
    assert_complete(out, 40)


def test_a_mistyped_range_is_taken_back_with_forget_missing(tmp_path):
    """`--range 21-10000000000000` (for 21-100) stopped with Ctrl-C: every resume went on with it, the run
    never finished, and no command could take the range back (the manifest asks for what it was given).
    `--forget-missing` makes the run ask for what it holds, and the ranges given with it."""
    out = tmp_path / "run"
    assert cli("run", "--range", "1-20", "--out", out, "--workers", "1").returncode == 0
    stopped = signal_at_pause(tmp_path, [SCRIPT, "run", "--range", "21-10000000000000", "--out", out, "--workers", "1",
                                         "--chunk-size", "10"], "chunk-tally",
                              lambda pid: os.killpg(pid, signal.SIGINT))
    assert stopped.returncode == -signal.SIGINT, stopped.stderr
    assert read_manifest(str(out))["total_deals"] == 10**13
    held = deals_in(out)
    line = assert_one_line_failure(cli("run", "--out", tmp_path / "new", "--forget-missing"))
    assert "there is no run to resume" in line, line
    taken_back = cli("run", "--out", out, "--forget-missing", "--range", "31-100", "--workers", "1")
    assert taken_back.returncode == 0, taken_back.stderr
    forgotten = sorted(set(range(21, 10**13 + 1)[:200]) - set(held) - set(range(31, 101)))[:1]
    assert taken_back.stderr.decode().startswith(
        f"warning: the run no longer asks for the {10**13 - len(set(held) | set(range(1, 101))):,} deal(s) it did "
        f"not hold: {forgotten[0]}"), taken_back.stderr
    manifest = read_manifest(str(out))
    assert manifest["total_deals"] == len(set(held) | set(range(31, 101))) and manifest["finished"], manifest
    assert deals_in(out) == sorted(set(held) | set(range(31, 101)))
    assert cli("verify", out).returncode == 0

    (tmp_path / "pauses" / "chunk-tally").unlink()  # the first run's arrival
    (tmp_path / "more.txt").write_text("200-400\n")  # stopped, it said to resume with --forget-missing, which
    stopped = signal_at_pause(tmp_path, [SCRIPT, "run", "--out", out, "--forget-missing", "--deals",  # then forgot
                                         tmp_path / "more.txt", "--workers", "1", "--chunk-size", "10"],  # the list
                              "chunk-tally", lambda pid: os.killpg(pid, signal.SIGINT))  # (helper 140)
    assert stop_line(stopped.stderr)[2] == ["run", "--out", str(out), "--workers", "1", "--chunk-size", "10"]


@pytest.mark.parametrize("deals", [["--deals", "-"], ["--deals=-"], ["--deals", "/dev/stdin"], ["--deals", "FILE"]])
def test_a_run_of_standard_input_is_resumed_without_it(tmp_path, deals):
    """Its input is spent: the resume command leaves `--deals -` out (the manifest lists the deals; typed
    as it was, it would wait for a terminal's input, or find none and stop); likewise a pipe's path, and a
    file (which may be gone: here it is)."""
    out, listed = tmp_path / "run", tmp_path / "deals.txt"
    listed.write_text("1-20\n21-40\n")
    deals = [str(listed) if word == "FILE" else word for word in deals]
    with started("run", *deals, "--out", out, "--workers", "1", "--chunk-size", "10",
                 env=pause_env(tmp_path, **{"deal-15": 120}), stdin=listed.read_bytes()) as process:
        wait_for_pause(tmp_path, "deal-15", process)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    done, total, arguments = stop_line(err)
    assert total == 40 and done == len(deals_in(out))
    assert arguments == ["run", "--out", str(out), "--workers", "1", "--chunk-size", "10"]
    listed.unlink()
    resume(arguments, 40, out)


def test_a_run_whose_log_cannot_be_written_goes_on_and_says_so(tmp_path):
    """A folder where DIR.run/run.log belongs was a traceback, after the manifest had changed."""
    out = tmp_path / "run"
    assert cli("run", "--range", "1-10", "--out", out).returncode == 0
    log = tmp_path / "run.run" / "run.log"
    log.unlink()
    log.mkdir()
    result = cli("run", "--range", "1-20", "--out", out)
    assert result.returncode == 0 and b"Traceback" not in result.stderr, result.stderr
    assert b"warning: cannot write the run's log" in result.stderr, result.stderr
    assert_complete(out, 20)


@pytest.mark.parametrize("second_run", [False, True])
def test_a_run_whose_folders_are_moved_away_stops_and_writes_nothing_where_they_were(tmp_path, second_run):
    """DIR and DIR.run moved away under a live run: its chunks failed one by one ("Failed renaming"), and
    it made a new DIR.run at the old place; a second run begun there took the first one's later chunks."""
    out, side, moved = tmp_path / "run", tmp_path / "run.run", tmp_path / "moved"
    with started("run", "--range", "1-40", "--out", out, "--workers", "1", "--chunk-size", "10",
                 env=pause_env(tmp_path, **{"deal-15": 120})) as process:
        wait_for_pause(tmp_path, "deal-15", process)
        wait_for_first_chunk(out)
        out.rename(moved)
        side.rename(tmp_path / "moved.run")
        if second_run:
            assert cli("run", "--range", "1-3", "--out", out).returncode == 0
        release_pause(tmp_path, "deal-15")
        _, err = process.communicate(timeout=60)
    assert process.returncode == 1 and err == (
        f"Error: {out} or its side folder {side} was moved or deleted while the run wrote to it: stopped "
        "(what it wrote went with the folders)\n")
    if second_run:
        assert_complete(out, 3)  # the second run's deals alone
    else:
        assert not out.exists() and not side.exists()
    assert cli("run", "--out", moved).returncode == 0  # resumed where it went
    assert_complete(moved, 40)


@pytest.mark.parametrize("replacement", ["folder", "symlink"])
def test_a_chunk_finished_while_its_dir_is_replaced_lands_nowhere(tmp_path, replacement):
    """Checked before the chunk file was written, then renamed into DIR by its path: a DIR put in place
    meanwhile (an empty folder, a link to another run's dataset) got the chunk."""
    out, other = tmp_path / "run", tmp_path / "other"
    assert cli("run", "--range", "101-103", "--out", other).returncode == 0
    with started("run", "--range", "1-10", "--out", out, "--workers", "1",
                 env=pause_env(tmp_path, **{"chunk-written": 120})) as process:
        wait_for_pause(tmp_path, "chunk-written", process)
        out.rename(tmp_path / "moved")
        out.mkdir() if replacement == "folder" else out.symlink_to(other)
        release_pause(tmp_path, "chunk-written")
        _, err = process.communicate(timeout=60)
    assert process.returncode == 1 and "was moved or deleted while the run wrote to it" in err, err
    assert list(out.iterdir()) == [] if replacement == "folder" else deals_in(other) == [101, 102, 103]
    assert cli("verify", other).returncode == 0


def test_a_folder_made_under_a_chunk_files_name_while_the_run_writes_fails_that_chunk_in_one_line(tmp_path):
    """The rename onto it failed as a raw "IsADirectoryError: [Errno 21]" naming the run's temporary file, which
    stayed beside DIR."""
    out = tmp_path / "run"
    with started("run", "--range", "1-20", "--out", out, "--workers", "1", "--chunk-size", "10",
                 env=pause_env(tmp_path, **{"chunk-written": 120})) as process:
        wait_for_pause(tmp_path, "chunk-written", process)
        (out / "part-1-10-10.parquet").mkdir()
        release_pause(tmp_path, "chunk-written")
        _, err = process.communicate(timeout=120)
    assert process.returncode == 1, err
    assert f"chunk 1-10 failed: ChunkNameTaken: {out} holds part-1-10-10.parquet, which is not a file" in err, err
    assert "Errno" not in err and "Traceback" not in err, err
    assert sorted(path.name for path in (tmp_path / "run.run").iterdir()) == ["manifest.json", "run.log"]
    (out / "part-1-10-10.parquet").rmdir()
    assert cli("run", "--out", out, "--workers", "1").returncode == 0
    assert_complete(out, 20)


def test_a_run_made_under_a_link_s_name_is_guarded_by_its_real_name_while_it_writes(tmp_path):
    """Before its first chunk, the real folder was empty and nothing beside it named a run: `run --out
    real/sub` and `--plots real/p` went into it (DuckDB then counted 20 deals twice); after it, a report by
    the real name did not say that a run was writing."""
    other = tmp_path / "other"
    assert cli("run", "--range", "1-3", "--out", other).returncode == 0
    real, alias = tmp_path / "real", tmp_path / "alias"
    real.mkdir()
    alias.symlink_to(real)
    with started("run", "--range", "1-10", "--out", alias, "--workers", "1", "--chunk-size", "5",
                 env=pause_env(tmp_path, **{"deal-3": 120, "deal-8": 120})) as process:
        wait_for_pause(tmp_path, "deal-3", process)
        line = assert_one_line_failure(cli("run", "--range", "1-3", "--out", real / "sub"), 1)
        assert f"lies inside {real}, the dataset a run is writing now," in line, line
        line = assert_one_line_failure(cli("report", other, "--plots", real / "p"), 2)
        assert f"is inside {real}, the dataset a run is writing now," in line, line
        line = assert_one_line_failure(cli("report", real), 1)
        assert "a run is writing to it and has finished no chunk yet" in line, line
        release_pause(tmp_path, "deal-3")
        wait_for_pause(tmp_path, "deal-8", process)
        assert LIVE in " ".join(cli("report", real).stdout.decode().split())
        release_pause(tmp_path, "deal-8")
        _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert sorted(path.name for path in real.iterdir()) == ["part-1-5-5.parquet", "part-6-10-5.parquet"]
    assert_complete(alias, 10)


def test_a_file_put_into_dir_while_the_run_writes_fails_the_run_as_it_ends(tmp_path):
    """The run ended saying nothing of it, with exit 0, and readers of DIR counted the copy's deals twice."""
    out = tmp_path / "run"
    with started("run", "--range", "1-20", "--out", out, "--workers", "1", "--chunk-size", "10",
                 env=pause_env(tmp_path, **{"deal-15": 120})) as process:
        wait_for_pause(tmp_path, "deal-15", process)  # the first chunk is in DIR
        shutil.copy(out / "part-1-10-10.parquet", out / "part-1-10-10.parquet.bak")
        release_pause(tmp_path, "deal-15")
        written, err = process.communicate(timeout=120)
    assert process.returncode == 1 and written == "", (written, err)
    assert err == (  # one line: the log's copy stays in the log
        f"Error: the run is complete, but {out} holds part-1-10-10.parquet.bak, which is not a file of this run yet "
        "is read by pandas and pyarrow, polars: move it out of the run directory\n")
    assert read_manifest(str(out))["finished"] is not None


@pytest.fixture
def other_chunking(tmp_path):
    """A run of deals 1-20 in chunks of 5: its parts repeat deals of a run of the same settings in chunks of 10."""
    other = tmp_path / "other"
    assert cli("run", "--range", "1-20", "--out", other, "--workers", "1", "--chunk-size", "5").returncode == 0
    return other


@pytest.mark.parametrize("when", ["before the resume", "while the run writes"])
def test_a_part_that_repeats_deals_stops_the_run(tmp_path, other_chunking, when):
    """A copied part of the same settings whose deals the run holds in another file: the resume went on
    beside it, and a run it was copied into meanwhile ended with exit 0; readers counted its deals twice."""
    out, copied = tmp_path / "run", tmp_path / "run" / "part-1-5-5.parquet"
    if when == "before the resume":
        assert cli("run", "--range", "1-20", "--out", out, "--workers", "1", "--chunk-size", "10").returncode == 0
        shutil.copy(other_chunking / copied.name, copied)
        before = sorted(path.name for path in out.iterdir())
        err = assert_one_line_failure(cli("run", "--range", "1-30", "--out", out, "--workers", "1"))
        assert sorted(path.name for path in out.iterdir()) == before  # nothing solved beside it
    else:
        with started("run", "--range", "1-20", "--out", out, "--workers", "1", "--chunk-size", "10",
                     env=pause_env(tmp_path, **{"deal-15": 120})) as process:
            wait_for_pause(tmp_path, "deal-15", process)  # the first chunk is in DIR
            shutil.copy(other_chunking / copied.name, copied)
            release_pause(tmp_path, "deal-15")
            _, err = process.communicate(timeout=120)
        assert process.returncode == 1 and len(err.splitlines()) == 1, err
        [session] = read_manifest(str(out))["sessions"]  # recorded, unfinished
        assert session["deals_solved"] == 20 and session["elapsed_seconds"] is not None, session
    assert f"{out / 'part-1-10-10.parquet'} and {copied} both hold deals 1-5, which readers of {out} would count " \
        "twice: move one of them out of the run directory" in err.splitlines()[-1], err
    copied.unlink()
    assert cli("run", "--out", out).returncode == 0
    assert_complete(out, 20)  # (the refused 21-30 was not added)


def test_a_part_that_repeats_the_deals_of_several_names_itself_as_the_one_to_move(tmp_path, other_chunking):
    """A part of 1-10 copied among parts of 5 (as a killed run's Dask chunk landing among a resume's smaller
    ones): the line named it and the first part of 5 only, so a user who moved that part out met the next pair
    (helper 141). It names the part that overlaps both."""
    copied = other_chunking / "part-1-10-10.parquet"
    tens = cli("run", "--range", "1-10", "--out", tmp_path / "tens", "--workers", "1", "--chunk-size", "10")
    assert tens.returncode == 0
    shutil.copy(tmp_path / "tens" / copied.name, copied)
    err = assert_one_line_failure(cli("run", "--out", other_chunking, "--workers", "1"))
    assert err.startswith(f"Error: {copied} holds deals of 2 other files ({other_chunking / 'part-1-5-5.parquet'}, "
                          f"{other_chunking / 'part-6-10-5.parquet'}), which readers of {other_chunking} would count "
                          "twice: move it out of the run directory"), err
    copied.unlink()
    assert cli("run", "--out", other_chunking).returncode == 0
    assert_complete(other_chunking, 20)


def test_a_run_whose_parts_were_deleted_meanwhile_is_not_finished(tmp_path):
    """Exit 0 and "20 deals solved now", with 10 of the 20 deals gone from DIR."""
    out = tmp_path / "run"
    with started("run", "--range", "1-20", "--out", out, "--workers", "1", "--chunk-size", "10",
                 env=pause_env(tmp_path, **{"deal-15": 120})) as process:
        wait_for_pause(tmp_path, "deal-15", process)
        wait_for_first_chunk(out)
        (out / "part-1-10-10.parquet").unlink()
        release_pause(tmp_path, "deal-15")
        written, err = process.communicate(timeout=120)
    assert process.returncode == 1 and written == "" and len(err.splitlines()) == 1, (written, err)
    assert err.splitlines()[-1] == (
        f"Error: deals 1-10 are not in {out}, though the run wrote them: their chunk files were deleted or moved "
        f"away meanwhile: 10 of 20 deals done; details in the log; resume with: blackhole-stats run --range 1-20 "
        f"--out {out} --workers 1 --chunk-size 10")
    assert read_manifest(str(out))["finished"] is None
    assert cli("run", "--out", out).returncode == 0
    assert_complete(out, 20)


def test_a_side_folder_deleted_while_the_run_writes_is_named_and_its_chunk_files_stay(tmp_path):
    """The run said DIR or its side folder was moved "(what it wrote went with the folders)", with the chunk
    files still in DIR; the same command then called DIR "not empty" with no word of the files in it."""
    out = tmp_path / "run"
    with started("run", "--range", "1-20", "--out", out, "--workers", "1", "--chunk-size", "10",
                 env=pause_env(tmp_path, **{"deal-15": 120})) as process:
        wait_for_pause(tmp_path, "deal-15", process)
        shutil.rmtree(tmp_path / "run.run")
        release_pause(tmp_path, "deal-15")
        _, err = process.communicate(timeout=120)
    assert process.returncode == 1 and err.splitlines()[-1] == (
        f"Error: {out}.run, where the run keeps its manifest and log, was moved or deleted while the run wrote: "
        f"stopped; the chunk files in {out} stay, but no run goes on without its manifest: put the folder back and "
        "run again, or move them away"), err
    assert [path.name for path in out.iterdir()] == ["part-1-10-10.parquet"]
    for again in (cli("run", "--range", "1-20", "--out", out), cli("run", "--out", out)):  # (the second said
        assert assert_one_line_failure(again) == (  # "there is no run to resume: give --range", which the first refuses)
            f"Error: {out} holds chunk files but no run (no {out}.run/manifest.json: deleted? or the run was made "
            "under another name, a link to this folder: give that name), and a new run must not take rows it did "
            "not ask for: move them away, or choose a new or empty directory\n")


def test_a_run_starting_while_verify_looks_at_the_lock_waits_for_it(tmp_path):
    """verify and report take the run lock for a moment to see whether a run is writing; a run starting in
    that moment said another run was writing, and did nothing. Here the test holds the lock as the run
    starts, and lets go once the run has found it held."""
    fcntl = pytest.importorskip("fcntl")  # (Windows locks a file's byte instead)
    out = tmp_path / "run"
    assert cli("run", "--range", "1-3", "--out", out, "--workers", "1").returncode == 0
    held = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with started("run", "--range", "1-5", "--out", out, "--workers", "1",
                     env=pause_env(tmp_path, **{"lock-retry": 120})) as process:
            wait_for_pause(tmp_path, "lock-retry", process)
            os.close(held)
            held = None
            release_pause(tmp_path, "lock-retry")
            _, err = process.communicate(timeout=120)
    finally:
        if held is not None:
            os.close(held)
    assert process.returncode == 0, err
    assert_complete(out, 5)


def test_a_report_begun_while_a_run_writes_says_so_though_the_run_ends_before_it_does(tmp_path):
    """report asked whether a run was writing after it had read the rows: a run that ended meanwhile left
    them short, and the report called the deals missing, with no word of the run (36 of 97 such reports)."""
    out = tmp_path / "run"
    with started("run", "--range", "1-20", "--out", out, "--workers", "1", "--chunk-size", "10",
                 env=pause_env(tmp_path, **{"deal-15": 120})) as process:
        wait_for_pause(tmp_path, "deal-15", process)  # the first chunk is in DIR
        with started("report", out, "--format", "json", env=pause_env(tmp_path, **{"report-checks": 120})) as report:
            wait_for_pause(tmp_path, "report-checks", report)  # its rows are read
            release_pause(tmp_path, "deal-15")
            assert process.wait(timeout=120) == 0, process.communicate()
            release_pause(tmp_path, "report-checks")
            reported, err = report.communicate(timeout=120)
    figures = json.loads(reported)
    assert figures["deals"] == 10 and figures["against_manifest"]["being_written"] is True, (reported, err)


def test_a_signal_as_the_run_finds_a_repeated_part_at_its_end_is_the_interrupt(tmp_path, other_chunking):
    """A part that repeats deals, found as the run ended, stopped it with exit 1 and no word of the SIGTERM
    that came meanwhile: a shell loop over runs went on."""
    out = tmp_path / "run"

    def copy_in(pid: int) -> None:
        shutil.copy(other_chunking / "part-1-5-5.parquet", out / "part-1-5-5.parquet")

    done = signal_at_pause(tmp_path, [SCRIPT, "run", "--range", "1-20", "--out", out, "--workers", "1",
                                      "--chunk-size", "10"], "session-ending",
                           lambda pid: os.killpg(pid, signal.SIGTERM), inspect=copy_in, release=True)
    assert done.returncode == -signal.SIGTERM and done.stderr.splitlines()[-1].startswith("interrupted"), done


def test_a_look_at_the_lock_is_not_taken_for_a_run_by_another_look(tmp_path):
    """Two verify/report/export at once: each took the run lock exclusively for its look, and under load one
    saw the other's look as a run writing (5 in 8,000 looks, with the cores busy)."""
    fcntl = pytest.importorskip("fcntl")
    out = tmp_path / "run"
    assert cli("run", "--range", "1-3", "--out", out, "--workers", "1").returncode == 0
    looking = os.open(tmp_path / "run.run", os.O_RDONLY)  # as another process's look holds it
    try:
        fcntl.flock(looking, fcntl.LOCK_SH | fcntl.LOCK_NB)
        assert not being_written(str(out))
        fcntl.flock(looking, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a run holds it
        assert being_written(str(out))
    finally:
        os.close(looking)


def test_verify_and_report_while_a_run_writes_say_so(tmp_path):
    """verify called the live run's file being written "unfinished file of an interrupted run" and
    failed on the deals not solved yet; report's figures looked like an interrupted run's."""
    out = tmp_path / "run"
    with started("run", "--range", "1-20", "--out", out, "--workers", "1", "--chunk-size", "10",
                 env=pause_env(tmp_path, **{"chunk-written": 120, "deal-15": 120})) as process:
        wait_for_pause(tmp_path, "chunk-written", process)  # the first chunk's file, not in DIR yet
        verified, too_early = cli("verify", out), cli("report", out)
        release_pause(tmp_path, "chunk-written")
        wait_for_pause(tmp_path, "deal-15", process)  # the first chunk is in DIR
        reported, as_json = cli("report", out), cli("report", out, "--format", "json")
        release_pause(tmp_path, "deal-15")
        assert process.wait(timeout=120) == 0, process.communicate()
    assert assert_one_line_failure(verified) == (
        f"Error: a run is writing to {out} now (or its worker processes are still alive): verify it once that "
        "run has ended\n")
    assert assert_one_line_failure(too_early) == (
        f"Error: {out}: no *.parquet files in this directory: a run is writing to it and has finished no chunk "
        "yet\n")
    shown = " ".join(reported.stdout.decode().split())  # (wrapped to 80 columns)
    assert reported.returncode == 0 and "warning: a run is writing to this dataset now" in shown, shown
    assert "10 missing, 0 not asked for, 0 repeated" in shown and "verify names them" not in shown, shown  # it refuses
    figures = json.loads(as_json.stdout)
    assert figures["deals"] == 10 and figures["against_manifest"]["being_written"] is True
    after_verify, after_report = cli("verify", out), cli("report", out, "--format", "json")
    assert after_verify.returncode == 0, after_verify.stderr
    assert json.loads(after_report.stdout)["against_manifest"]["being_written"] is False


@pytest.mark.parametrize("pause", ["deal-15", "session-ending"])
def test_ctrl_c_after_the_folders_moved_is_still_an_interrupt(tmp_path, pause):
    """The session's record, with its folders gone, ended the run with exit 1 and not of Ctrl-C (also
    when the signal came while the record was being made, which holds signals back); the line says
    what happened to the folders."""
    out = tmp_path / "run"
    with started("run", "--range", "1-40", "--out", out, "--workers", "1", "--chunk-size", "10",
                 env=pause_env(tmp_path, **{pause: 120})) as process:
        wait_for_pause(tmp_path, pause, process)
        out.rename(tmp_path / "moved")
        (tmp_path / "run.run").rename(tmp_path / "moved.run")
        process.send_signal(signal.SIGINT)
        release_pause(tmp_path, pause)
        _, err = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGINT and "interrupted" in err.splitlines()[-1], err
    assert "was moved or deleted" in err.splitlines()[-1]


def test_a_run_whose_folders_move_while_it_opens_takes_no_others(tmp_path):
    """The folders' identities were taken after the run had read and written its manifest by path: moved
    then, with a second run begun in their place, the first took the second's folders for its own
    (its manifest renamed over the second's, its deals written there)."""
    out, moved = tmp_path / "run", tmp_path / "moved"
    assert cli("run", "--range", "1-20", "--out", out).returncode == 0
    first_pauses, second_pauses = pause_folders(tmp_path, "a", "b")
    with started("run", "--range", "1-40", "--out", out, "--workers", "1",
                 env=pause_env(first_pauses, **{"manifest-written": 120})) as first:
        wait_for_pause(first_pauses, "manifest-written", first)
        out.rename(moved)
        (tmp_path / "run.run").rename(tmp_path / "moved.run")
        with started("run", "--range", "101-110", "--out", out, "--workers", "1",
                     env=pause_env(second_pauses, **{"manifest-written": 120})) as second:
            wait_for_pause(second_pauses, "manifest-written", second)
            release_pause(first_pauses, "manifest-written")
            _, err = first.communicate(timeout=60)
            assert first.returncode == 1 and "was moved or deleted" in err, err
            release_pause(second_pauses, "manifest-written")
            _, err = second.communicate(timeout=60)
            assert second.returncode == 0, err
    assert deals_in(out) == list(range(101, 111)) and cli("verify", out).returncode == 0
    assert deals_in(moved) == list(range(1, 21)) and cli("verify", moved).returncode == 0  # its temp noted


@pytest.fixture
def folder_elsewhere(tmp_path) -> Iterator[Path]:
    """A folder on another file system than tmp_path (the test is skipped where there is none)."""
    import tempfile

    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("no second file system here to put DIR on")
    target = Path(tempfile.mkdtemp(dir=shm))
    yield target
    shutil.rmtree(target)


def test_a_run_into_a_folder_on_another_device_than_its_side_folder(tmp_path, folder_elsewhere):
    """DIR a link to another file system (or a mount point), DIR.run beside it on this one: every chunk
    failed ("Invalid cross-device link": a rename cannot cross), and no resume could ever finish."""
    (tmp_path / "run").symlink_to(folder_elsewhere)
    result = cli("run", "--range", "1-30", "--out", tmp_path / "run", "--chunk-size", "10", "--workers", "2")
    assert result.returncode == 0, result.stderr
    assert_complete(tmp_path / "run", 30)
    assert sorted(path.name for path in folder_elsewhere.iterdir()) == [
        path.name for path in sorted(folder_elsewhere.glob("part-*"))]


def test_a_file_where_the_side_folder_belongs_is_named(tmp_path):
    """A file named DIR.run was locked as if it were the side folder, then the run said "cannot list DIR"."""
    out, side = tmp_path / "run", tmp_path / "run.run"
    side.write_text("mine")
    refused = cli("run", "--range", "1-3", "--out", out)
    assert refused.returncode == 1 and refused.stderr.decode() == (
        f"Error: {side} is not a folder, and a run keeps its manifest and log there: "
        "move it away or choose another directory\n")
    assert side.read_text() == "mine" and not out.exists()


def test_a_run_inside_another_runs_dataset_is_refused(tmp_path):
    """`run --out D/sub` made D unreadable by pandas (sub.run/run.log among D's files) and stuck D's run."""
    out = tmp_path / "run"
    assert cli("run", "--range", "1-5", "--out", out).returncode == 0
    for inner in (out / "sub", out / "a" / "b"):
        refused = cli("run", "--range", "1-3", "--out", inner)
        assert refused.returncode == 1 and b"lies inside the dataset of the run" in refused.stderr, refused.stderr
    assert sorted(path.name for path in out.iterdir()) == [path.name for path in sorted(out.glob("part-*"))]
    assert_complete(out, 5)


def test_deals_given_twice_is_refused(tmp_path):
    """click kept the last --deals silently: the first list's deals were never asked for."""
    listed = tmp_path / "deals.txt"
    listed.write_text("1-5\n")
    refused = cli("run", "--deals", listed, "--deals", listed, "--out", tmp_path / "run")
    assert refused.returncode == 2 and b"--deals may be given only once" in refused.stderr, refused.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("existing", [False, True])
def test_a_run_of_standard_input_stopped_before_it_began_is_resumed_with_it(tmp_path, existing):
    """Stopped before it recorded its deals (a Ctrl-C while it waits on a terminal's input): only `--deals -`
    can give them again, to a new run or one that already exists (its manifest lacks them)."""
    out, listed = tmp_path / "run", tmp_path / "deals.txt"
    listed.write_text("1-20\n")
    if existing:
        assert cli("run", "--range", "30-35", "--out", out).returncode == 0
    with started("run", "--deals", "-", "--out", out, env=pause_env(tmp_path, **{"command-start": 120}),
                 stdin=listed) as process:
        wait_for_pause(tmp_path, "command-start", process)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert stop_line(err)[2] == ["run", "--deals", "-", "--out", str(out)]


def test_a_run_whose_data_folder_is_taken_away_under_it_still_holds_its_lock(tmp_path):
    """The lock was on DIR only: with DIR deleted, a second run resumed from the manifest beside it while
    the first still wrote (verify: deals more than once). The side folder holding the manifest is locked
    too; and the first run, its DIR gone, stops at its next write rather than write into the folder the
    refused run made."""
    out = tmp_path / "run"
    with started("run", "--range", "1-40", "--out", out, "--workers", "1", "--chunk-size", "10",
                 env=pause_env(tmp_path, **{"deal-15": 120})) as process:
        wait_for_pause(tmp_path, "deal-15", process)
        shutil.rmtree(out)
        second = cli("run", "--out", out, "--workers", "1")
        assert second.returncode == 1 and b"another run is writing to" in second.stderr, second.stderr
        assert out.is_dir()  # refused by the live run's lock: the folder it made stays (the path's folder now)
        (tmp_path / "pauses" / "deal-15.release").touch()
        _, err = process.communicate(timeout=60)
        assert process.returncode == 1 and "was moved or deleted while the run wrote to it" in err, err
    assert deals_in(out) == []
    resume(["run", "--out", str(out)], 40, out)  # every deal solved again in the new DIR, nothing twice


def test_a_run_refused_by_one_that_took_its_place_leaves_that_run_alone(tmp_path):
    """A new run paused with DIR locked; DIR deleted; a second run makes DIR anew and starts. The first,
    refused by the side folder's lock, wrote the manifest and took away the second's DIR before."""
    out, manifest = tmp_path / "run", tmp_path / "run.run" / "manifest.json"
    first_pauses, second_pauses = pause_folders(tmp_path, "a", "b")
    with started("run", "--range", "1-3", "--out", out, "--workers", "1",
                 env=pause_env(first_pauses, **{"run-locked": 120})) as first:
        wait_for_pause(first_pauses, "run-locked", first)
        shutil.rmtree(out)
        with started("run", "--range", "1-3", "--out", out, "--workers", "1",
                     env=pause_env(second_pauses, **{"worker-start": 120})) as second:
            wait_for_pause(second_pauses, "worker-start", second)
            written = manifest.read_bytes()
            (first_pauses / "pauses" / "run-locked.release").touch()
            _, err = first.communicate(timeout=60)
            assert first.returncode == 1 and "another run is writing to" in err, err
            assert out.is_dir() and manifest.read_bytes() == written
            (second_pauses / "pauses" / "worker-start.release").touch()
            _, err = second.communicate(timeout=60)
            assert second.returncode == 0, err
    assert_complete(out, 3)


THREADS_LIMITED = """
import resource, sys, threading
from blackhole_stats import cli, dataset, runner
import pyarrow.parquet, tqdm
tqdm.tqdm.monitor_interval = 0  # tqdm's own thread aside
threading.stack_size(2**30)  # a new thread maps 1 GiB: the limit below lets {threads} start
size = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmSize:")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + ({threads} * 2**30 + 300 * 2**20), resource.RLIM_INFINITY))
sys.argv = ["blackhole-stats", "run", "--range", "1-10", "--out", sys.argv[1], "--workers", "1"]
cli.main()
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmSize from /proc")
@pytest.mark.parametrize("threads, failed", [
    (0, "the run's worker pool could not start: can't start new thread"),  # in submit: a traceback
    (1, "the worker pool's thread failed: can't start new thread"),  # its queue's feeder: the run waited forever
])
def test_a_thread_that_cannot_start_fails_the_chunks_in_one_line(tmp_path, threads, failed):
    """Under a memory limit (ulimit -v) the worker pool's threads could not start: a traceback, or, once
    the pool's own thread died that way, a run that waited for its chunks forever."""
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-c", THREADS_LIMITED.format(threads=threads), str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith(f"Error: 2 failed chunk(s) (deals 1-6: RuntimeError: {failed} (are memory or threads "
                           "limited?)): 0 of 10 deals done"), last  # each cause once, for the chunks it failed
    assert not list(out.glob("part-*"))  # and it ended (within the timeout): no worker kept it waiting


def test_a_run_whose_data_folder_was_taken_away_resumes_from_its_manifest(tmp_path):
    """`verify DIR` reads such a run as one with every deal missing; `run --out DIR` solves them again.
    A new range there is refused: deleting DIR by hand and running anew silently brought the old run
    back, all its deals with the new ones."""
    out = tmp_path / "run"
    assert cli("run", "--range", "1-30", "--out", out, "--chunk-size", "10").returncode == 0
    next(out.glob("part-*")).unlink()  # a chunk solved twice: the sessions' sum said "40 deals"
    assert cli("run", "--out", out).returncode == 0
    shutil.rmtree(out)
    refused = cli("run", "--out", out, "--max-iters", "5")
    assert refused.returncode == 1 and b"max_iters" in refused.stderr, refused.stderr
    for again in (["--range", "31-33"], ["--range", "1-30"]):  # the run's own range alike
        line = assert_one_line_failure(cli("run", *again, "--out", out))
        assert f"{out} holds none of the deals its run's manifest ({out}.run) records as solved (it asks for 30 " \
               f"deals): if its files were deleted, delete {out}.run too" in line, line
    assert not out.exists()  # a refusal leaves no folder behind
    out.mkdir()  # emptied rather than deleted: the same
    assert "holds none of the deals" in assert_one_line_failure(cli("run", "--range", "31-33", "--out", out))
    assert out.is_dir() and not list(out.iterdir())
    out.rmdir()
    resume(["run", "--out", str(out)], 30, out)


@pytest.mark.parametrize("method", START_METHODS)
def test_a_ctrl_c_that_reaches_a_worker_still_starting_is_left_to_the_parent(tmp_path, method):
    """What makes a Ctrl-C while workers start safe: a worker ignores SIGINT from its first instant
    (a spawned one would otherwise die of KeyboardInterrupt with a traceback, breaking the pool).
    Here SIGINT reaches one starting worker alone: the run goes on as if nothing happened."""
    out = tmp_path / "run"
    with started("run", "--range", "1-40", "--out", out, "--workers", "2", "--chunk-size", "10",
                 env=pause_env(tmp_path, **{"worker-start": 120}), method=method) as process:
        worker = wait_for_pause(tmp_path, "worker-start", process)[0]
        os.kill(worker, signal.SIGINT)
        release_pause(tmp_path, "worker-start")
        output, err = process.communicate(timeout=120)
    assert process.returncode == 0 and err == "", err
    assert output.startswith("40 deals solved now")
    assert_complete(out, 40)


# a full disk


@pytest.fixture
def tiny_disk(tmp_path) -> Iterator[Path]:
    """A 2 MB tmpfs (needs root), unmounted afterwards."""
    with tmpfs(tmp_path / "disk", "2m") as mount:
        yield mount


def fill(path: Path) -> None:
    """Write zeros until the disk is full."""
    with open(path, "wb", buffering=0) as filler:
        try:
            while filler.write(bytes(65536)):
                pass
        except OSError as error:
            assert error.errno == errno.ENOSPC
        else:
            raise AssertionError("the disk never filled")


def test_a_full_disk_is_one_line_and_the_same_command_resumes(tiny_disk, tmp_path):
    """One worker stops on deal 55 (chunk 51-60) while the disk fills, so chunks 1-50 are written."""
    out = tiny_disk / "run"
    with started("run", "--range", "1-100", "--out", out, "--workers", "1", "--chunk-size", "10",
                 env=pause_env(tmp_path, **{"deal-55": 5})) as process:
        wait_for_pause(tmp_path, "deal-55", process)
        assert len(list(out.glob("part-*.parquet"))) == 5
        fill(tiny_disk / "filler")
        _, err = process.communicate(timeout=60)
    assert process.returncode == 1, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "Logging error" not in err, err
    match = re.fullmatch(rf"Error: cannot write to {re.escape(str(out))}: No space left on device; the finished "
                         r"chunks are kept: free some space, then resume with: (blackhole-stats .+)\n", err)
    assert match, err
    assert deals_in(out) == list(range(1, 51))
    (tiny_disk / "filler").unlink()
    resumed = resume(shlex.split(match[1])[1:], 100, out)
    assert b"50 deals solved now" in resumed.stdout


def test_a_disk_made_read_only_mid_run_is_one_line_and_the_same_command_resumes(tiny_disk, tmp_path):
    """A remount read-only while chunk 51-60 is solved: one 'error: chunk ... failed: OSError' line per chunk
    in flight and a summary that did not say why; now the full disk's one line, with what to do. DIR is the
    mount point itself (a file the run holds open there, its log, would keep the remount from happening)."""
    out = tiny_disk
    with started("run", "--range", "1-100", "--game", "golf", "--out", out, "--workers", "1", "--chunk-size", "10",
                 env=pause_env(tmp_path, **{"deal-55": 5})) as process:
        wait_for_pause(tmp_path, "deal-55", process)
        subprocess.run(["mount", "-o", "remount,ro", str(tiny_disk)], check=True)
        try:
            _, err = process.communicate(timeout=60)
        finally:
            subprocess.run(["mount", "-o", "remount,rw", str(tiny_disk)], check=True)
    assert process.returncode == 1, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    match = re.fullmatch(rf"Error: cannot write to {re.escape(str(out))}: Read-only file system; the finished "
                         r"chunks are kept: make it writable, then resume with: (blackhole-stats .+)\n", err)
    assert match, err
    assert deals_in(out) == list(range(1, 51))
    resume(shlex.split(match[1])[1:], 100, out)


# Dask


@pytest.fixture
def distributed():
    return pytest.importorskip("distributed")


def local_cluster(distributed, workers: int):
    return distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                    dashboard_address=None)


@pytest.mark.parametrize("address, problem", [("tcp://127.0.0.1", "missing port number"),
                                              ("not a url", "missing port number"),
                                              ("foo://x:1", "unknown address scheme 'foo'"),
                                              ("tcp://127.0.0.1:port", "port 'port' is not a number from 1 to 65535"),
                                              ("tcp://127.0.0.1:", "port '' is not a number from 1 to 65535"),
                                              ("tcp://::1", "ipv6 needs brackets"),
                                              ("tcp://[::1]", "missing port number"),
                                              ("tcp://127.0.0.1:99999", "port '99999' is not a number from 1 to 65535")])
def test_a_scheduler_address_dask_cannot_read_is_one_line(tmp_path, distributed, address, problem):
    """Refused before a Client is made: a half-made one prints a traceback at exit after 20 s."""
    result = cli("run", "--range", "1-5", "--out", tmp_path / "run", "--scheduler", address, timeout=60)
    err = assert_one_line_failure(result)
    assert err.startswith(f"Error: cannot use the Dask scheduler at {address}: ") and problem in err, err
    assert not (tmp_path / "run").exists()


@contextmanager
def listening(reply: bytes | None) -> Iterator[str]:
    """The address of a local TCP service that is no Dask scheduler: it sends `reply` to whoever
    connects, once they have written something (None: it accepts and says nothing)."""
    server = socket.create_server(("127.0.0.1", 0))
    held = []

    def serve():
        while True:
            try:
                connection, _ = server.accept()
            except OSError:  # closed: the test is over
                return
            held.append(connection)
            if reply is not None:
                connection.recv(1024)
                connection.sendall(reply)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.shutdown(socket.SHUT_RDWR)
        server.close()
        for connection in held:
            connection.close()


@pytest.mark.parametrize("reply, problem", [
    (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", "what answers there is not a Dask scheduler: what it sent is no Dask message"),
    (None, "no answer within 10 s")])
def test_a_service_on_the_port_that_is_no_scheduler_is_one_line(tmp_path, distributed, reply, problem):
    """An HTTP server there gave 'Error: out of memory: Unable to allocate 3.07 EiB' (Dask read a length
    out of its reply), then a traceback 20 s later; one that said nothing made the run wait forever."""
    with listening(reply) as address:
        result = cli("run", "--range", "1-5", "--out", tmp_path / "run", "--scheduler", address, timeout=60)
    err = assert_one_line_failure(result)
    assert err.startswith(f"Error: cannot use the Dask scheduler at {address}: {problem}"), err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("address, problem", [
    ("tls://127.0.0.1:1", "Dask cannot talk to it: TLS expects a `ssl_context` argument"),
    ("inproc://127.0.0.1/1/2", "Dask cannot talk to it: inproc address '127.0.0.1/1/2' does not match host")])
def test_an_address_dask_cannot_talk_to_is_one_line_at_once(tmp_path, distributed, address, problem):
    """Without the settings tls:// needs, or at another process's inproc:// address: Dask's own traceback,
    21 s later."""
    result = cli("run", "--range", "1-5", "--out", tmp_path / "run", "--scheduler", address, timeout=15)
    err = assert_one_line_failure(result)
    assert err.startswith(f"Error: cannot use the Dask scheduler at {address}: {problem}"), err


def test_a_dask_worker_s_address_is_no_scheduler_s(tmp_path, distributed):
    with local_cluster(distributed, 1) as cluster:
        worker = next(iter(cluster.scheduler_info["workers"]))
        result = cli("run", "--range", "1-5", "--out", tmp_path / "run", "--scheduler", worker, timeout=60)
    err = assert_one_line_failure(result)
    assert err == (f"Error: cannot use the Dask scheduler at {worker}: what answers there is not a Dask scheduler "
                   "(it says it is 'Worker')\n"), err


@pytest.mark.parametrize("args, words", [(["--scheduler", " "], "an empty address is no scheduler's"),
                                         (["--wait-for-workers", "3"], "--wait-for-workers is for --scheduler's"),
                                         *((["--scheduler", "tcp://127.0.0.1:1", "--wait-for-workers", value],
                                            f"Invalid value for '--wait-for-workers': {words}")
                                           for value, words in (
                                               *((text, f"{text!r} is not a number of seconds from 0 to 1,000,000,000")
                                                 for text in ("nan", "inf", "1e300", "-1", "1000000001", "1e400",
                                                              "1_0", "\uff11", "", "5s", "0x10")),))])
def test_an_empty_scheduler_or_a_wait_without_one_is_refused(tmp_path, args, words):
    """`--scheduler ''` ran on local processes as if it were not given; a wait without one did nothing.
    Seconds are written as --range's numbers are: float() took `1_0` as 10 and a full-width 1 as 1 (helper
    141), and click's words for '' were "not a valid float range"."""
    line = assert_one_line_failure(cli("run", "--range", "1-3", "--out", tmp_path / "run", *args), 2)
    assert words in line, line
    assert not (tmp_path / "run").exists()


def test_dask_without_workers_waits_a_bounded_time_stops_on_ctrl_c_and_uses_one_that_joins(
        tmp_path, distributed):
    out = tmp_path / "run"
    with local_cluster(distributed, 0) as cluster:
        address = cluster.scheduler_address
        command = ["run", "--range", "1-30", "--out", out, "--chunk-size", "5", "--scheduler", address]
        for wait, shown in (("0.5", "0.5"), ("-0", "0")):  # (-0 was shown as "-0 s": helper 141)
            given_up = cli(*command, "--wait-for-workers", wait, timeout=60)
            err = given_up.stderr.decode()
            assert given_up.returncode == 1 and "Traceback" not in err, err
            assert err.splitlines() == [
                f"warning: waiting up to {shown} s for a first worker to join {address}",
                f"Error: no worker joined the Dask cluster at {address} within {shown} s"]

        with started(*command, env=pause_env(tmp_path, **{"dask-waiting": 0})) as process:
            wait_for_pause(tmp_path, "dask-waiting", process)
            os.killpg(process.pid, signal.SIGINT)
            _, err = process.communicate(timeout=60)
        assert process.returncode == -signal.SIGINT, err
        _, _, arguments = stop_line(err)

        (tmp_path / "pauses" / "dask-waiting").unlink()
        with started(*arguments, env=pause_env(tmp_path, **{"dask-waiting": 0})) as process:
            wait_for_pause(tmp_path, "dask-waiting", process)
            cluster.scale(1)
            output, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
    assert ", 1 worker)\n" in output  # counted when it ran, not when the run connected (0)
    assert read_manifest(str(out))["workers"] == 1
    assert_complete(out, 30)


def test_dask_interrupt_cancels_queued_chunks_and_nothing_lands_afterwards(tmp_path, distributed, monkeypatch):
    """One worker thread stops 3 s on deal 1; the next chunk is queued behind it when Ctrl-C comes.

    Nothing may land once the run has ended, or the resume (other chunks: 8
    deals, local processes) would write deals twice: the run stops the running
    chunk and drops the queued one before it exits.
    """
    out = tmp_path / "run"
    for name, value in pause_env(tmp_path, **{"deal-1": 3}).items():
        monkeypatch.setenv(name, value)  # the cluster's worker processes read it when they start
    with local_cluster(distributed, 1) as cluster, distributed.Client(cluster) as client:
        with started("run", "--range", "1-40", "--out", out, "--chunk-size", "5", "--scheduler",
                     cluster.scheduler_address) as process:
            wait_for_pause(tmp_path, "deal-1", process)
            os.killpg(process.pid, signal.SIGINT)
            _, err = process.communicate(timeout=60)
        assert process.returncode == -signal.SIGINT, err
        assert stop_line(err)[:2] == (0, 40)
        until(lambda: not client.call_stack() and not any(client.processing().values()),
              "the cluster kept running chunks", timeout=60)
        assert deals_in(out) == []
    result = cli("run", "--out", out, "--chunk-size", "8", env={"BLACKHOLE_STATS_TEST_PAUSE": ""})
    assert result.returncode == 0, result.stderr
    assert_complete(out, 40)


def test_dask_lost_worker_is_logged_and_the_run_completes(tmp_path, distributed, monkeypatch):
    """The worker that reaches deal 3 is killed there; its chunk runs again on another one."""
    out = tmp_path / "run"
    for name, value in pause_env(tmp_path, **{"deal-3": 2}).items():
        monkeypatch.setenv(name, value)
    with local_cluster(distributed, 2) as cluster, distributed.Client(cluster) as client:
        address_of = {pid: address for address, pid in client.run(os.getpid).items()}
        with started("run", "--range", "1-40", "--out", out, "--chunk-size", "5", "--scheduler",
                     cluster.scheduler_address) as process:
            worker = wait_for_pause(tmp_path, "deal-3", process)[0]
            os.kill(worker, signal.SIGKILL)
            output, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
    lost = f"lost Dask worker {address_of[worker]}; its chunks run again"
    assert f"warning: {lost}" in err.splitlines()
    assert lost in Path(log_path(str(out))).read_text()
    assert_complete(out, 40)


# --workers


def test_a_dask_run_into_a_folder_on_another_device_than_its_side_folder(tmp_path, distributed, folder_elsewhere):
    """As for local workers: Dask's workers staged each chunk in DIR.run and every rename into DIR failed."""
    (tmp_path / "run").symlink_to(folder_elsewhere)
    with local_cluster(distributed, 2) as cluster:
        result = cli("run", "--range", "1-30", "--out", tmp_path / "run", "--chunk-size", "10", "--scheduler",
                     cluster.scheduler_address)
    assert result.returncode == 0, result.stderr
    assert_complete(tmp_path / "run", 30)
    assert sorted(path.name for path in folder_elsewhere.iterdir()) == [
        path.name for path in sorted(folder_elsewhere.glob("part-*"))]


def test_workers_are_capped_at_twice_the_cores(tmp_path):
    cap = 2 * os.cpu_count()
    out = tmp_path / "run"
    result = cli("run", "--range", "1-40", "--out", out, "--workers", "1000", "--chunk-size", "5",
                 env=pause_env(tmp_path, **{"worker-start": 0}))
    assert result.returncode == 0, result.stderr
    assert result.stderr.decode().splitlines() == [
        f"warning: --workers 1000: capped at {cap}, twice the cores (more only cost memory)"]
    assert len((tmp_path / "pauses" / "worker-start").read_text().split()) == cap  # processes started
    assert f", {cap} workers)\n".encode() in result.stdout and read_manifest(str(out))["workers"] == cap
    assert_complete(out, 40)


# the workers' log lines


def chunk_lines(log: str, what: str) -> dict[str, list[str]]:
    """{chunk: [the name of the process that logged it], ...} for the log lines "chunk A-B: <what>"."""
    found: dict[str, list[str]] = {}
    for process, chunk in re.findall(rf"^\S+Z (.+) INFO chunk (\S+): {what}$", log, re.MULTILINE):
        found.setdefault(chunk, []).append(process)
    return found


@pytest.mark.parametrize("method", START_METHODS)
def test_every_workers_lines_reach_the_run_log_however_workers_start(tmp_path, method):
    """Each chunk's "started" line once, from the worker process that solved it, never twice."""
    import multiprocessing

    out = tmp_path / "run"
    result = subprocess.run(command(method, "run", "--range", "1-100", "--out", out, "--workers", "2",
                                    "--chunk-size", "10"), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    log = Path(log_path(str(out))).read_text()
    started_by = chunk_lines(log, "started")
    assert sorted(started_by) == sorted(f"{first}-{first + 9}" for first in range(1, 100, 10)), log
    assert all(len(names) == 1 for names in started_by.values()), log
    name = PROCESS_NAMES[method or multiprocessing.get_start_method()]
    workers = {names[0] for names in started_by.values()}
    assert 1 <= len(workers) <= 2 and all(re.fullmatch(rf"{name}-\d+", worker) for worker in workers), log
    tables = re.findall(rf"^\S+Z ({name}-\d+) INFO solver tables: \d+ MiB", log, re.MULTILINE)
    assert sorted(tables) == sorted(workers), log  # once per worker process
    assert sorted(chunk_lines(log, r"wrote .*")) == sorted(started_by)
    assert_complete(out, 100)


def test_every_dask_workers_lines_reach_the_run_log(tmp_path, distributed):
    """Two worker processes, each deal named as slow (the threshold set to 0 s on the workers):
    the lines come from the worker that solved the chunk, with that deal's outcome (the peer's)."""
    peer = pd.read_csv(require_reference("peer_1_1000.csv"), index_col="deal")
    out = tmp_path / "run"
    with local_cluster(distributed, 2) as cluster, distributed.Client(cluster) as client:
        client.run(exec, "from blackhole_stats import runner; runner.SLOW_DEAL_SECONDS = 0.0", {})
        addresses = set(client.scheduler_info()["workers"])
        result = cli("run", "--range", "1-100", "--out", out, "--chunk-size", "10",
                     "--scheduler", cluster.scheduler_address)
        assert result.returncode == 0, result.stderr
    log = Path(log_path(str(out))).read_text()
    started_by = chunk_lines(log, "started")
    assert sorted(started_by) == sorted(f"{first}-{first + 9}" for first in range(1, 100, 10)), log
    assert all(len(names) == 1 for names in started_by.values()), log
    workers = {names[0] for names in started_by.values()}
    assert workers <= {f"Dask worker {address}" for address in addresses}, log
    tables = re.findall(r"^\S+Z (Dask worker \S+) INFO solver tables: \d+ MiB", log, re.MULTILINE)
    assert set(tables) == workers, log
    slow = re.findall(r"^\S+Z (Dask worker \S+) INFO deal (\d+): slow, [\d.]+ s, (\w+)$", log, re.MULTILINE)
    assert sorted(int(deal) for _, deal, _ in slow) == list(range(1, 101)), log
    assert all(outcome == peer.loc[int(deal), "outcome"] for _, deal, outcome in slow)
    chunk_of = {deal: chunk for chunk in started_by for deal in range(int(chunk.split("-")[0]),
                                                                       int(chunk.split("-")[1]) + 1)}
    assert all(worker == started_by[chunk_of[int(deal)]][0] for worker, deal, _ in slow)
    assert_complete(out, 100)


@contextmanager
def dask_processes(tmp_path: Path, pause: str, worker: bool = True,
                   **announced: float) -> Iterator[tuple[str, subprocess.Popen]]:
    """A `dask scheduler` and one `dask worker` process (as a cluster runs them, not in this process), the
    worker held at `pause(name)` (and at each of `announced` for its seconds): the scheduler's address and
    process; both killed at the end. No worker if not `worker`."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    dask = str(Path(sys.executable).with_name("dask"))
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                 **quiet)
    workers = [subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--no-nanny"], **quiet,
                                env={**os.environ, **pause_env(tmp_path, **{pause: 120, **announced})})] if worker else []
    try:
        yield address, scheduler
    finally:
        release_pause(tmp_path, pause)
        for child in (scheduler, *workers):
            child.kill()
            child.wait()


def test_a_dask_scheduler_killed_mid_run_is_one_line_and_the_run_resumes(tmp_path, distributed):
    """kill -9 of the scheduler (its own process, as `dask scheduler` runs) while a worker holds deal 23:
    stderr got the Dask client's tracebacks, then "cannot use DIR: Timed out trying to connect", which
    blamed the dataset. Now one line says the scheduler was lost; the finished chunks resume locally."""
    out = tmp_path / "run"
    with dask_processes(tmp_path, "deal-23") as (address, scheduler):
        with started("run", "--range", "1-60", "--out", out, "--chunk-size", "10", "--scheduler", address) as process:
            wait_for_pause(tmp_path, "deal-23", process)
            scheduler.kill()
            output, err = process.communicate(timeout=120)
    assert process.returncode == 1 and "Traceback" not in err, err
    assert err.splitlines()[-1].startswith(f"Error: {LOST_SCHEDULER.format(address)}; the finished chunks are kept; "
                                           "details in the log; resume with: ")
    assert f"ERROR lost the Dask scheduler at {address}" in Path(log_path(str(out))).read_text()
    assert cli("run", "--out", out, "--workers", "1").returncode == 0
    assert_complete(out, 60)


LOST_SCHEDULER = "lost the Dask scheduler at {} (killed, not answering, or its machine gone?)"


@pytest.mark.parametrize("stopped_by", [None, signal.SIGTERM])
def test_a_dask_scheduler_that_stops_answering_mid_run_ends_it_in_one_line(tmp_path, distributed, stopped_by):
    """SIGSTOP of the scheduler (a hung process, a machine paused) while a worker holds deal 23: the run
    waited forever, and no signal ended it, its clean-up waiting for the scheduler too (helper 137). A
    scheduler silent for SCHEDULER_SECONDS is lost; the finished chunks resume locally."""
    out = tmp_path / "run"
    with dask_processes(tmp_path, "deal-23") as (address, scheduler):
        with started("run", "--range", "1-60", "--out", out, "--chunk-size", "10", "--scheduler", address) as process:
            wait_for_pause(tmp_path, "deal-23", process)
            scheduler.send_signal(signal.SIGSTOP)
            if stopped_by:
                process.send_signal(stopped_by)
            output, err = process.communicate(timeout=90)
    assert "Traceback" not in err, err
    if stopped_by:
        assert process.returncode == -stopped_by and stop_line(err)[:2] == (20, 60), err
        assert "WARNING the Dask scheduler is gone" in Path(log_path(str(out))).read_text()
    else:
        assert process.returncode == 1 and err.splitlines()[-1].startswith(
            f"Error: {LOST_SCHEDULER.format(address)}; the finished chunks are kept"), err
    assert cli("run", "--out", out, "--workers", "1").returncode == 0
    assert_complete(out, 60)


def test_a_dask_scheduler_lost_while_the_run_waits_for_a_first_worker_is_one_line(tmp_path, distributed):
    """It said "cannot use DIR: Timed out trying to connect", blaming the dataset (helper 137)."""
    out = tmp_path / "run"
    with dask_processes(tmp_path, "deal-1", worker=False) as (address, scheduler):
        with started("run", "--range", "1-20", "--out", out, "--scheduler", address, "--wait-for-workers", "5",
                     env=pause_env(tmp_path, **{"dask-waiting": 120})) as process:
            wait_for_pause(tmp_path, "dask-waiting", process)
            scheduler.kill()
            scheduler.wait()
            release_pause(tmp_path, "dask-waiting")
            _, err = process.communicate(timeout=120)  # (its wait, 5 s, and the scheduler's 10 s at most)
    assert process.returncode == 1 and "Traceback" not in err, err
    assert err.splitlines()[-1].startswith(f"Error: {LOST_SCHEDULER.format(address)}: "), err
    assert not out.exists() or deals_in(out) == []


def test_a_dask_scheduler_frozen_while_the_run_waits_for_a_first_worker_is_lost_within_its_bound(
        tmp_path, distributed):
    """SIGSTOP of a scheduler with no worker while the run waits 600 s for one: it was noticed only once
    the whole wait was over, plus SCHEDULER_SECONDS (helper 139's s1b). It is lost after its 10 s."""
    out = tmp_path / "run"
    with dask_processes(tmp_path, "deal-1", worker=False) as (address, scheduler):
        with started("run", "--range", "1-20", "--out", out, "--scheduler", address, "--wait-for-workers", "600",
                     env=pause_env(tmp_path, **{"dask-waiting": 120})) as process:
            wait_for_pause(tmp_path, "dask-waiting", process)
            scheduler.send_signal(signal.SIGSTOP)
            release_pause(tmp_path, "dask-waiting")
            _, err = process.communicate(timeout=120)
    assert process.returncode == 1 and "Traceback" not in err, err
    assert err.splitlines()[-1].startswith(f"Error: {LOST_SCHEDULER.format(address)}: "), err


def test_sigterm_with_a_frozen_dask_worker_waits_a_bounded_time_and_nothing_lands_afterwards(tmp_path, distributed):
    """One SIGTERM (all a batch system sends) while the only worker is frozen (held at deal 23 here): the run
    waited forever for its chunk to stop (helper 137). It waits STOP_SECONDS, says so, and stops; the worker,
    woken, writes nothing, for it was told to stop."""
    out = tmp_path / "run"
    with dask_processes(tmp_path, "deal-23") as (address, _):
        with started("run", "--range", "1-60", "--out", out, "--chunk-size", "10", "--scheduler", address) as process:
            wait_for_pause(tmp_path, "deal-23", process)
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=120)
        assert process.returncode == -signal.SIGTERM and stop_line(err)[:2] == (20, 60), err
        assert "chunk(s) still running on the Dask cluster after 30 s (a worker frozen?): not waited for" in err, err
        release_pause(tmp_path, "deal-23")
        with distributed.Client(address, timeout=30) as client:
            until(lambda: not any(client.processing().values()), "the cluster kept running chunks", timeout=60)
    assert deals_in(out) == list(range(1, 21))
    assert cli("run", "--out", out, "--workers", "1").returncode == 0
    assert_complete(out, 60)


def test_a_dask_worker_gone_silent_is_named_and_the_run_goes_on_when_it_answers(tmp_path, distributed):
    """SIGSTOP of the only worker while it solves deal 23: the run sat there without a word for the
    scheduler's worker-ttl, 5 minutes (helper 139). After SILENT_WORKER_SECONDS it names the worker; woken,
    the worker finishes the run, which says so."""
    out = tmp_path / "run"
    with dask_processes(tmp_path, "deal-23") as (address, _):
        with started("run", "--range", "1-40", "--out", out, "--chunk-size", "10", "--scheduler", address) as process:
            worker = wait_for_pause(tmp_path, "deal-23", process)[0]
            os.kill(worker, signal.SIGSTOP)
            try:
                until(lambda: "has not been heard from" in Path(log_path(str(out))).read_text(),
                      "the run never named its silent worker", timeout=90)
            finally:
                os.kill(worker, signal.SIGCONT)
            release_pause(tmp_path, "deal-23")
            _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    silent = re.findall(r"^warning: Dask worker (\S+) has not been heard from for 30 s \(frozen, or its machine or "
                        r"network gone\?\): its chunks wait until it answers or the scheduler gives up on it", err,
                        re.MULTILINE)
    assert len(silent) == 1 and f"warning: Dask worker {silent[0]} answers again" in err, err
    assert_complete(out, 40)


def test_a_dask_run_whose_last_worker_is_gone_stops_in_one_line_and_resumes(tmp_path, distributed):
    """kill -9 of the cluster's only worker (or one that cannot import the package, which dies on its first
    chunk) left the run waiting forever (helper 137): after --wait-for-workers without a worker it stops."""
    out = tmp_path / "run"
    with dask_processes(tmp_path, "deal-23") as (address, _):
        with started("run", "--range", "1-60", "--out", out, "--chunk-size", "10", "--scheduler", address,
                     "--wait-for-workers", "2") as process:
            worker = wait_for_pause(tmp_path, "deal-23", process)[0]
            os.kill(worker, signal.SIGKILL)
            output, err = process.communicate(timeout=120)
    assert process.returncode == 1 and "Traceback" not in err, err
    assert err.splitlines()[-1].startswith(f"Error: no worker left in the Dask cluster at {address} for 2 s "
                                           "(--wait-for-workers); the finished chunks are kept"), err
    assert cli("run", "--out", out, "--workers", "1").returncode == 0
    assert_complete(out, 60)


@pytest.mark.parametrize("later", ["resume", "forget", "start over", "resume of an earlier build"])
def test_a_dask_worker_that_outlives_its_run_drops_its_chunk_once_a_later_run_began(tmp_path, distributed, later):
    """kill -9 of the run while its Dask worker solves chunk 21-30 (held at its last deal; a frozen scheduler's
    worker goes on the same way when it wakes); then a later run: a local resume in chunks of 7 finishes the
    run (the worker's file landed in it, deals counted twice by every reader: helper 139); `--forget-missing`
    no longer asks for deals 21-30, solving nothing (the file landed, deals not asked for: helper 141); DIR and
    DIR.run deleted and a new run of the same deals started over in chunks of 7 (the new run's first session
    looked like the old one's: helper 141); a resume by an earlier build, which adds a session but keeps
    opened_by as it was (made here by writing the killed run's back: helper 143). Then the worker goes on:
    it sees a later run and writes nothing."""
    out = tmp_path / "run"
    with dask_processes(tmp_path, "deal-30", **{"chunk-written": 0}) as (address, _):
        with started("run", "--range", "1-30", "--out", out, "--chunk-size", "10", "--scheduler", address) as process:
            wait_for_pause(tmp_path, "deal-30", process)
            process.kill()
            process.wait()
        (tmp_path / "pauses" / "chunk-written").unlink(missing_ok=True)  # chunks it finished before deal 30's
        if later.startswith("resume"):
            killed = read_manifest(str(out))["opened_by"]
            assert cli("run", "--out", out, "--workers", "1", "--chunk-size", "7").returncode == 0
            if later != "resume":
                manifest_path = Path(f"{out}.run", "manifest.json")
                manifest_path.write_text(json.dumps({**json.loads(manifest_path.read_text()), "opened_by": killed}))
            wanted = list(range(1, 31))
        elif later == "forget":
            assert cli("run", "--out", out, "--workers", "1", "--forget-missing").returncode == 0
            wanted = list(range(1, 21))
        else:
            shutil.rmtree(out)
            shutil.rmtree(f"{out}.run")
            assert cli("run", "--range", "1-30", "--out", out, "--workers", "1", "--chunk-size", "7").returncode == 0
            wanted = list(range(1, 31))
        release_pause(tmp_path, "deal-30")
        wait_for_pause(tmp_path, "chunk-written")  # its file written, then renamed into DIR or deleted:
        until(lambda: not list(Path(f"{out}.run").glob(".part-*")), "the dropped chunk's file was left behind")
    assert deals_in(out) == wanted
    assert cli("verify", out).returncode == 0


def test_a_dask_worker_that_outlives_its_run_stops_its_chunk_once_a_resume_began(tmp_path, distributed):
    """kill -9 of the run while its Dask worker (one thread) solves chunk 1-20, held at deal 5; a resume on
    the same cluster: the scheduler, which let go of the dead run's chunk, handed the resume's chunks to the
    worker, where they waited behind the whole of it (helper 141). It stops at its next deal: its chunk is
    never written, and the resume's two are."""
    out = tmp_path / "run"
    with dask_processes(tmp_path, "deal-5", **{"chunk-written": 0}) as (address, _):
        command = ["run", "--out", out, "--chunk-size", "20", "--scheduler", address]
        with started(*command, "--range", "1-40") as process:
            wait_for_pause(tmp_path, "deal-5", process)
            process.kill()
            process.wait()
        opened_by = read_manifest(str(out))["opened_by"]
        with started(*command) as resume:
            until(lambda: read_manifest(str(out))["opened_by"] != opened_by, "the resume never began")
            time.sleep(runner.POLL_SECONDS + 0.5)  # (a chunk looks at most every POLL_SECONDS: now, at deal 6)
            release_pause(tmp_path, "deal-5")
            _, err = resume.communicate(timeout=120)
        assert resume.returncode == 0, err
        assert len((tmp_path / "pauses" / "chunk-written").read_text().split()) == 2
    assert_complete(out, 40)


@pytest.mark.parametrize("held", ["deal-5", "chunk-written"])
def test_a_dask_worker_that_finds_no_manifest_fails_its_chunk_in_one_line(tmp_path, distributed, held):
    """DIR.run/manifest.json deleted while a Dask worker solves deal 5, or once it wrote its chunk's file (as
    for a worker that sees DIR but not DIR.run, on its own disk): the chunk was dropped as if a later run had
    begun, and the run ended in a traceback, AttributeError: 'NoneType' object has no attribute 'log_records'
    (helper 141). The chunk fails in one line, its file deleted (helper 144), the run writes its manifest
    back, and a resume finishes it."""
    out = tmp_path / "run"
    with dask_processes(tmp_path, held) as (address, _):
        with started("run", "--range", "1-20", "--out", out, "--chunk-size", "10", "--scheduler", address) as process:
            wait_for_pause(tmp_path, held, process)
            Path(f"{out}.run", "manifest.json").unlink()
            release_pause(tmp_path, held)
            _, err = process.communicate(timeout=120)
    assert process.returncode == 1 and "Traceback" not in err, err
    assert not list(Path(f"{out}.run").glob(".part-*")), "the failed chunk's file was left behind"
    assert f"{out}.run/manifest.json is not there for this worker (a Dask worker must see the run's side folder" in \
        err.splitlines()[-1], err
    assert cli("run", "--out", out, "--workers", "1").returncode == 0
    assert_complete(out, 20)


def test_a_dask_worker_that_does_not_see_the_run_s_folder_says_so_and_makes_nothing(tmp_path, distributed):
    """A worker on a machine without the run's folder failed its chunk with a bare "FileNotFoundError: Failed
    renaming ...", having made DIR.run there for its temporary file (helper 139). The folder is away here
    (as on that machine) when the worker writes."""
    out, away = tmp_path / "run", tmp_path / "away"
    with dask_processes(tmp_path, "deal-3") as (address, _):
        with started("run", "--range", "1-10", "--out", out, "--chunk-size", "10", "--scheduler", address) as process:
            wait_for_pause(tmp_path, "deal-3", process)
            out.rename(away)
            Path(f"{out}.run").rename(f"{away}.run")
            release_pause(tmp_path, "deal-3")
            _, err = process.communicate(timeout=120)
    assert process.returncode == 1 and "Traceback" not in err, err
    assert (f"{out} is not a folder where this worker runs (deleted? a Dask worker must see the run's folder at the "
            "same path on the same disk, a shared file system)") in err, err
    assert not Path(f"{out}.run").exists() or not list(Path(f"{out}.run").glob(".part-*"))


def test_a_dask_worker_lost_as_the_run_fetches_its_finished_chunk_stops_the_run_in_one_line(tmp_path, distributed):
    """The only worker killed after its chunk finished, before the run fetched the chunk's result from it:
    the fetch waited forever for the chunk to run again, with no worker left to run it."""
    out = tmp_path / "run"
    with dask_processes(tmp_path, "no-such-pause") as (address, _):
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(1, timeout=60)
            worker = next(iter(client.run(os.getpid).values()))
        with started("run", "--range", "1-20", "--out", out, "--chunk-size", "10", "--scheduler", address,
                     "--wait-for-workers", "2", env=pause_env(tmp_path, **{"chunk-fetch": 120})) as process:
            wait_for_pause(tmp_path, "chunk-fetch", process)
            os.kill(worker, signal.SIGKILL)
            release_pause(tmp_path, "chunk-fetch")
            _, err = process.communicate(timeout=90)
    assert process.returncode == 1 and "Traceback" not in err, err
    assert err.splitlines()[-1].startswith(f"Error: no worker left in the Dask cluster at {address} for 2 s "
                                           "(--wait-for-workers); the finished chunks are kept"), err
    assert cli("run", "--out", out, "--workers", "1").returncode == 0
    assert_complete(out, 20)


@pytest.mark.parametrize("backend", ["processes", "dask"])
def test_a_chunk_file_deleted_while_it_is_written_is_named_and_its_deals_are_solved_on_resume(tmp_path, backend):
    """The rename of the deleted file into DIR failed: the run said its folders were moved or deleted, with
    both in place; on a Dask cluster (which renames by path) the chunk failed as a bare FileNotFoundError."""
    out = tmp_path / "run"
    if backend == "dask":
        pytest.importorskip("distributed")
    with dask_processes(tmp_path, "chunk-written") if backend == "dask" else contextlib.nullcontext() as cluster:
        where = ["--scheduler", cluster[0]] if cluster else ["--workers", "1"]
        with started("run", "--range", "1-10", "--out", out, "--chunk-size", "10", *where,
                     env=pause_env(tmp_path, **{"chunk-written": 120})) as process:
            wait_for_pause(tmp_path, "chunk-written", process)
            [written] = (tmp_path / "run.run").glob(".part-*")
            written.unlink()
            release_pause(tmp_path, "chunk-written")
            _, err = process.communicate(timeout=120)
    assert process.returncode == 1 and (f"{written}, which the run was writing, was deleted before it could be "
                                        f"renamed to {out}/part-1-10-10.parquet") in err and "resume with: " in err, err
    assert "moved or deleted" not in err, err
    assert cli("run", "--out", out, "--workers", "1").returncode == 0
    assert_complete(out, 10)


def test_a_run_with_standard_error_closed_or_failing_still_runs(tmp_path):
    """`run ... 2>&-` (a cron line) did nothing and exited 1: sys.stderr is None, and its isatty() raised;
    with --progress, a bar that could not be drawn (2>/dev/full, a reader gone) stopped the run as if the
    disk were full. The bar is dropped, as unwritable log lines are."""
    closed = subprocess.run([str(SCRIPT), "run", "--range", "1-30", "--game", "golf", "--out", str(tmp_path / "a"),
                             "--chunk-size", "10"], stdout=subprocess.PIPE, preexec_fn=lambda: os.close(2),
                            timeout=120)
    assert closed.returncode == 0 and b"30 deals solved now" in closed.stdout
    assert_complete(tmp_path / "a", 30)
    with open("/dev/full", "w") as full:
        failing = subprocess.run([str(SCRIPT), "run", "--range", "1-30", "--game", "golf", "--out",
                                  str(tmp_path / "b"), "--chunk-size", "10", "--progress"],
                                 stdout=subprocess.PIPE, stderr=full, timeout=120)
    assert failing.returncode == 0 and b"30 deals solved now" in failing.stdout
    assert_complete(tmp_path / "b", 30)


def test_a_dev_shm_it_cannot_use_is_not_blamed_on_dir(tmp_path):
    """The worker pool's locks live in /dev/shm: read-only, the run said 'cannot write to DIR: Read-only
    file system' of a DIR it could write (a hostile tester)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None or subprocess.run(["unshare", "-m", "true"]).returncode:
        pytest.skip("needs root, unshare and CAP_SYS_ADMIN to mount another /dev/shm for one process")
    out = tmp_path / "run"
    command = ["run", "--range", "1-30", "--out", str(out), "--workers", "1"]
    done = subprocess.run(["unshare", "-m", "sh", "-c", 'mount -t tmpfs -o ro,size=1m tmpfs /dev/shm && exec "$@"',
                           "sh", str(SCRIPT), *command], capture_output=True, timeout=120)
    assert assert_one_line_failure(done) == ("Error: cannot start the worker processes: Read-only file system "
                                             "(their locks need a writable /dev/shm with room)\n")
    assert "30 deals solved now" in cli(*command).stdout.decode()  # the same command, /dev/shm as it was


def test_a_process_limit_is_named_as_a_limit_not_blamed_on_dir(tmp_path):
    """Under `ulimit -u` a worker could not be forked: 'cannot use DIR: [Errno 11] Resource temporarily
    unavailable', as if DIR were at fault (a hostile tester)."""
    nobody = as_nobody()
    home = tmp_path / "home"
    home.mkdir()
    os.chown(home, 65534, 65534)
    command = ["run", "--range", "1-30", "--chunk-size", "10", "--out", "r", "--workers", "1"]
    done = subprocess.run([*nobody, "bash", "-c", 'ulimit -u 3; exec "$@"', "bash", str(SCRIPT), *command],
                          capture_output=True, timeout=120, cwd=home, env={**os.environ, "HOME": str(home)})
    err = done.stderr.decode()
    assert done.returncode == 1 and "Traceback" not in err and "cannot use" not in err, (done.returncode, err)
    assert "limited?" in err.splitlines()[-1], err
    assert "30 deals solved now" in cli(*command, cwd=home).stdout.decode()  # without the limit: resumed
