"""The run directory under hostile input and faults, through the real CLI.

What this proves, each with real subprocesses of `blackhole-stats`, real
Parquet files, real mounts (tmpfs, full or read-only) and real `kill -9`:

* `run --out`, `verify DIR` and `report DATASET` accept and refuse the same
  forms, with the same single line (bad URLs, in-process storage, names the
  OS refuses, paths under a file, devices); `file://` URLs work in all three.
* A read-only directory, a full disk at the very first write, a `kill -9`
  between writing the manifest and renaming it: one line, nothing lost, and
  the same command succeeds once the cause is gone (our unfinished files
  never block a run; other people's files are never deleted).
* A damaged `_manifest.json` is one line naming the file and the problem in
  run, verify and report, and is left as it was.
* A chunk-named file of another schema stops `run` with one line.
* `verify` fails on every file that pandas, pyarrow, DuckDB or polars would
  read from the bare directory besides the run's chunks (and the readers
  really do read them: measured here); `report` says when rows and manifest
  differ. A clean run directory is read whole by all four.
* Two runs on one directory: the second is refused before it reads the
  manifest, so it cannot pass its checks on a manifest that is about to change.
* A run started by another tool version with the same results format (and
  the same `iterations_revision`: test_reliability_famrun) is resumed and
  extended; so is an unfinished run of 0.1.0 (results format 1,
  its manifest and log inside DIR): `run` moves its side files beside DIR and
  rewrites its chunks in format 2, and a `kill -9` in the middle of that
  leaves a mix that report and verify read (verify names it) and that the
  next run finishes, the rows unchanged.
"""
from __future__ import annotations

import errno
import functools
import json
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

from blackhole_stats import __version__
from conftest import (SCRIPT, as_nobody, assert_one_line_failure, bind_mount, cli, fill_up, make_0_1_0_run, manifest_of_0_1_0,
                      pause_env, release_pause, tmpfs, wait_for_pause)


def manifest_file(run: Path) -> Path:
    """Where a run keeps its manifest: beside DIR, in DIR.run/."""
    return Path(f"{run}.run", "manifest.json")


def cli_all(calls: list[tuple], cwd: Path | None = None) -> list[subprocess.CompletedProcess]:
    """Several independent CLI calls at once (each is a second of interpreter start-up)."""
    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(lambda args: cli(*args, cwd=cwd), calls))


def assert_ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode()


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file of a run (under `folder` and beside it in `folder.run`) with its bytes: 'nothing was
    lost or changed' is equality of these."""
    return {str(path.relative_to(folder.parent)): path.read_bytes()
            for base in (folder, Path(f"{folder}.run")) for path in sorted(base.rglob("*")) if path.is_file()}


@pytest.fixture(scope="module")
def base_run(tmp_path_factory) -> Path:
    """Deals 1..6 in two chunk files, made by the CLI."""
    out = tmp_path_factory.mktemp("base") / "run"
    assert_ok(cli("run", "--range", "1-6", "--out", out, "--workers", "1", "--chunk-size", "3"))
    assert sorted(path.name for path in out.glob("part-*")) == ["part-1-3-3.parquet", "part-4-6-3.parquet"]
    return out


@pytest.fixture
def run_copy(base_run, tmp_path) -> Path:
    shutil.copytree(f"{base_run}.run", tmp_path / "run.run")
    return Path(shutil.copytree(base_run, tmp_path / "run"))


# ------------------------------------------------------------------ where a dataset may live
FORMS = {
    "under a file": (lambda tmp: str(tmp / "afile" / "x"), "afile is not a directory"),
    "a device": (lambda tmp: "/dev/null", "/dev/null is neither a directory nor a regular file"),
    "300-character name": (lambda tmp: "n" * 300, "File name too long"),
    "5000-character name": (lambda tmp: "n" * 5000, "characters): File name too long"),
    "unknown scheme": (lambda tmp: "foo://bar/x", "unknown URL scheme 'foo' in 'foo://bar/x'"),
    "scheme, no location": (lambda tmp: "a://", "the URL 'a://' names no location"),
    "no scheme": (lambda tmp: "://", "'://' is neither a path nor a URL"),
    "memory, no location": (lambda tmp: "memory://", "the URL 'memory://' names no location"),
    "memory": (lambda tmp: "memory://bench/run", "memory://bench/run lives in this process only"),
    # fsspec protocols that fail on their own terms (tracebacks: AttributeError, TypeError, ValueError)
    "fsspec's dir, no target": (lambda tmp: "dir:///x", "cannot use dir:///x: "),
    "fsspec's data, no data": (lambda tmp: "data:///tmp/x", "cannot use data:///tmp/x: "),
    # and fails again in its __del__: Python's "Exception ignored in" traceback followed the line
    "fsspec's ftp, no host": (lambda tmp: "ftp:///x", "cannot use ftp:///x: "),
    "not UTF-8": (lambda tmp: "run\udcff", "is not valid UTF-8"),
}


@pytest.mark.parametrize("form", FORMS)
def test_run_verify_and_report_refuse_the_same_forms(tmp_path, form):
    make, words = FORMS[form]
    (tmp_path / "afile").write_text("mine")
    out = make(tmp_path)
    before = sorted(os.listdir(tmp_path))
    results = cli_all([("run", "--range", "1-3", "--out", out, "--workers", "1"), ("verify", out),
                       ("report", out)], cwd=tmp_path)
    lines = {assert_one_line_failure(result, 1) for result in results}
    assert len(lines) == 1, lines  # the same line from all three
    assert max(map(len, lines)) < 300  # a long name is shortened, not repeated in full
    assert words in lines.pop()
    assert sorted(os.listdir(tmp_path)) == before  # no ./a: or ./: appeared


def test_a_relative_path_in_a_working_directory_named_in_no_utf_8_is_one_line_that_says_so(tmp_path):
    """The path as given was checked, not the one it names: run, verify and report said 'the output's
    encoding, utf-8, cannot write ...: set PYTHONIOENCODING=utf-8', which changes nothing (a hostile tester)."""
    where = os.fsencode(tmp_path) + b"/par\xff"
    os.mkdir(where)
    results = cli_all([("run", "--range", "1-3", "--out", "x", "--workers", "1"), ("verify", "x"), ("report", "x")],
                      cwd=where)
    lines = {assert_one_line_failure(result, 1) for result in results}
    assert lines == {f"Error: the working directory's name is not valid UTF-8, so neither is the dataset path "
                     f"{os.fsdecode(where + b'/x')!r}: run the command from another directory\n"}, lines
    assert os.listdir(where) == []


def test_a_link_to_a_run_whose_folder_is_named_in_no_utf_8_is_one_line_that_says_so(tmp_path):
    """A link by a UTF-8 name to such a run: verify read the link's target unchecked and said 'the output's
    encoding, utf-8, cannot write ...' (report and export named the path); all three name it now."""
    assert cli("run", "--range", "1-3", "--out", tmp_path / "run", "--workers", "1").returncode == 0
    real = os.fsencode(tmp_path) + b"/run\xff"
    os.rename(tmp_path / "run", real)
    os.rename(tmp_path / "run.run", real + b".run")
    (tmp_path / "latest").symlink_to(os.fsdecode(real))
    results = cli_all([("verify", tmp_path / "latest"), ("report", tmp_path / "latest"),
                       ("export", tmp_path / "latest")])
    assert {assert_one_line_failure(result, 1) for result in results} == \
        {f"Error: the dataset path {os.fsdecode(real)!r} is not valid UTF-8\n"}


def test_only_fsspecs_finalizer_errors_are_dropped_and_threads_leave_pythons_hook_in_place():
    """Dropping fsspec's `__del__` error (see "fsspec's ftp, no host") swapped a silent hook in around
    the construction: it dropped every other finalizer error meanwhile, and two threads in it at
    once left the silent hook in place for good."""
    import time

    from blackhole_stats.dataset import _finalizers_silenced

    class Failing:
        def __del__(self):
            raise RuntimeError("not fsspec's")

    def construct_slowly() -> None:
        with _finalizers_silenced():
            time.sleep(0.2)
            Failing()

    seen: list = []
    original = sys.unraisablehook
    sys.unraisablehook = ours = lambda unraisable: seen.append(str(unraisable.exc_value))
    try:
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda _: construct_slowly(), range(2)))
        assert sys.unraisablehook is ours and seen == ["not fsspec's"] * 2
    finally:
        sys.unraisablehook = original


def test_a_part_that_vanished_while_listed_is_not_called_damaged(tmp_path):
    """A resume whose folders were moved while it read the parts said "is damaged ...: delete it" of a
    good file."""
    from pyarrow import fs as pafs

    from blackhole_stats.dataset import DamagedPart, DatasetError, read_part

    with pytest.raises(DatasetError, match="vanished while it was read") as raised:
        read_part(pafs.LocalFileSystem(), str(tmp_path / "part-1-10-10.parquet"))
    assert not isinstance(raised.value, DamagedPart)


@pytest.mark.parametrize("refused", ["makedirs", "write"])
def test_a_url_whose_library_fails_on_its_own_terms_is_a_dataset_error(tmp_path, monkeypatch, refused):
    """fsspec passes on what its protocol's library raises (an FTP server refusing a folder or a file:
    ftplib.error_perm): `run` printed a traceback where pyarrow's own file systems raise OSError."""
    import ftplib

    from fsspec.implementations.local import LocalFileOpener, LocalFileSystem
    from fsspec.registry import _registry, known_implementations

    from blackhole_stats.dataset import DatasetError
    from blackhole_stats.deals import DealSet
    from blackhole_stats.runner import run

    class Refusing(LocalFileSystem):  # local files under a scheme pyarrow leaves to fsspec
        protocol = "refusing"

        @classmethod
        def _strip_protocol(cls, path):
            return super()._strip_protocol(str(path).removeprefix("refusing://"))

    def refuse(*args, **kwargs):
        raise ftplib.error_perm("550 denied")

    monkeypatch.setitem(known_implementations, "refusing", {"class": "unused"})
    monkeypatch.setitem(_registry, "refusing", Refusing)
    monkeypatch.setattr(Refusing if refused == "makedirs" else LocalFileOpener, refused, refuse)
    with pytest.raises(DatasetError, match="550 denied"):
        run(f"refusing://{tmp_path}/run", DealSet.parse("1-3"), workers=1)


HANGS_UP = """
import sys
from fsspec.implementations.local import LocalFileSystem
from fsspec.registry import _registry, known_implementations

class HangsUp(LocalFileSystem):  # local files under a scheme pyarrow leaves to fsspec
    protocol = "hangsup"

    @classmethod
    def _strip_protocol(cls, path):
        return super()._strip_protocol(str(path).removeprefix("hangsup://"))

    def info(self, path, **kwargs):
        if str(path).endswith(".run"):  # the side folder, looked at by no guarded call
            raise EOFError
        return super().info(path, **kwargs)

known_implementations["hangsup"] = {"class": "unused"}
_registry["hangsup"] = HangsUp
from blackhole_stats.console import main
sys.argv = ["blackhole-stats", *sys.argv[1:]]
main()
"""


def test_storage_that_fails_where_no_check_expects_it_is_one_line_of_run(tmp_path):
    """A server that hangs up (EOFError, an OSError once it comes through fsspec) at a call no check
    of the run guards was a traceback. (The command in a process of its own, as a user runs it: it
    sets the process's signal handlers.)"""
    url = f"hangsup://{tmp_path}/run"
    result = subprocess.run([sys.executable, "-c", HANGS_UP, "run", "--range", "1-3", "--workers", "1", "--out", url],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and result.stderr.startswith(f"Error: cannot use {url}: EOFError"), result.stderr
    assert result.stderr.count("\n") == 1


def test_an_fsspec_file_system_pickles_and_compares_as_fsspec_made_it():
    """Wrapping the file system itself (to turn its errors into OSError) broke pickling (endless
    recursion), equality and isinstance; only its calls are wrapped now."""
    import pickle

    import fsspec

    from blackhole_stats.dataset import filesystem

    fs, _ = filesystem("memory://bucket/x")
    assert pickle.loads(pickle.dumps(fs)) == fs == filesystem("memory://bucket/x")[0]
    assert isinstance(fs.handler.fs, fsspec.AbstractFileSystem)


def test_a_directory_that_cannot_be_created(tmp_path):
    results = cli_all([("run", "--range", "1-3", "--out", "/proc/x"), ("verify", "/proc/x"),
                       ("report", "/proc/x")])
    run, verify, report = (assert_one_line_failure(result, 1) for result in results)
    assert run == "Error: cannot create the run directory /proc/x: No such file or directory\n"
    assert verify == "Error: there is no run in /proc/x (no /proc/x.run/manifest.json)\n"
    assert report == "Error: /proc/x: no such file or directory\n"


def test_a_link_to_nothing_where_a_run_folder_belongs_is_named(tmp_path):
    """A dangling link as DIR or as DIR.run was "File exists", and named DIR for either."""
    for name in ("run", "run.run"):
        place = tmp_path / name
        place.symlink_to(tmp_path / "nowhere")
        line = assert_one_line_failure(cli("run", "--range", "1-3", "--out", tmp_path / "run"), 1)
        start = "cannot create the run directory" if name == "run" else "cannot write to"
        assert line == f"Error: {start} {tmp_path / 'run'}: {place} is a link to {tmp_path / 'nowhere'}, " \
                       "which does not exist\n"
        assert not (tmp_path / "nowhere").exists() and not any(tmp_path.glob("*.parquet"))
        place.unlink()
        shutil.rmtree(tmp_path / "run", ignore_errors=True)


def test_unreachable_google_cloud_storage_fails_within_seconds_in_one_line():
    """pyarrow's GCS client retried for minutes by default, and a command waiting on it ignored Ctrl-C and
    SIGTERM meanwhile (no network here, as on a laptop offline): the retries are bounded now."""
    import time

    started = time.monotonic()
    result = cli("report", "gs://blackhole-stats-no-such-bucket/run")
    line = assert_one_line_failure(result, 1)
    assert line.startswith("Error: cannot ") and time.monotonic() - started < 90, line


def test_file_urls_work_in_run_verify_and_report(tmp_path):
    url = f"file://{tmp_path}/run"
    assert "3 deals solved now" in assert_ok(cli("run", "--range", "1-3", "--out", url, "--workers", "1"))
    verified, reported = cli_all([("verify", url), ("report", url, "--format", "json")])
    assert assert_ok(verified).startswith("ok: 3 rows")
    assert json.loads(assert_ok(reported))["deals"] == 3
    assert len(pd.read_parquet(tmp_path / "run")) == 3


# ------------------------------------------------------------------ read-only, full, killed
def test_a_read_only_run_directory(tmp_path):
    with tmpfs(tmp_path / "mnt", size="4m") as mount:
        out = mount / "run"
        assert_ok(cli("run", "--range", "1-5", "--out", out, "--workers", "1"))
        before = snapshot(out)
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        nothing_left, new = cli_all([("run", "--out", out), ("run", "--range", "1-3", "--out", mount / "new")])
        more = cli("run", "--range", "1-10", "--out", out)
        for result in (nothing_left, more):
            line = assert_one_line_failure(result, 1)
            assert line.startswith(f"Error: cannot write to {out}: Read-only file system; the finished chunks are "
                                   f"kept: make it writable, then resume with: blackhole-stats run "), line
        assert assert_one_line_failure(new, 1) == \
            f"Error: cannot create the run directory {mount / 'new'}: Read-only file system\n"
        assert snapshot(out) == before
        verified, reported = cli_all([("verify", out), ("report", out)])  # reading needs no writing
        assert assert_ok(verified).startswith("ok: 5 rows")
        assert "5 deals" in assert_ok(reported)


@pytest.mark.parametrize("where", ["x\xff.parquet", "sub/z\xfe", "d\xff/", "..run/y\xfe"])
def test_a_name_that_is_not_utf_8_is_one_line(run_copy, where):
    """pyarrow raises UnicodeDecodeError for such a name when asked for it: a traceback in run, verify,
    report and export (a Latin-1 file name copied from an old system)."""
    folder, name = os.fsencode(run_copy), os.fsencode(where.encode("latin-1").decode("utf-8", "surrogateescape"))
    if name.startswith(b"..run/"):
        folder, name = folder + b".run", name[len(b"..run/"):]
    if name.endswith(b"/"):
        os.mkdir(os.path.join(folder, name))
    else:
        os.makedirs(os.path.dirname(os.path.join(folder, name)), exist_ok=True)
        open(os.path.join(folder, name), "wb").close()
    shown = repr(os.path.join(folder, name.rstrip(b"/")))
    commands = [("verify", run_copy), ("report", run_copy), ("export", run_copy),
                ("run", "--out", run_copy, "--range", "1-9")]
    for result in cli_all(commands):
        line = assert_one_line_failure(result, 1)
        assert "holds a name that is not UTF-8 text" in line and shown in line, line


@pytest.mark.parametrize("name", ["game=golf", "deal=1-30", "outcome=all", "tag=hard", "Game=golf2",
                                  "game=golf/run"])
def test_a_directory_named_like_a_hive_partition_of_a_column_is_refused(tmp_path, name):
    """DuckDB read `game=golf` as game golf for every row (Relaxed Golf rows), `deal=1-30` as the text
    '1-30' for every deal, whatever the case and wherever in the path; report and export refused the
    run's own dataset, about partition_cols."""
    line = assert_one_line_failure(cli("run", "--range", "1-3", "--out", tmp_path / name, "--game", "relaxed_golf"))
    folder = name.split("/")[0]
    column = folder.partition("=")[0]
    assert line == (f"Error: {tmp_path / name}: DuckDB reads a directory named {folder} as the column {column} of "
                    f"every row under it, whatever its files hold: choose a name without '{column}='\n"), line
    assert not (tmp_path / folder).exists()
    assert_ok(cli("run", "--range", "1-3", "--out", tmp_path / "label=golf", "--workers", "1"))  # not a column


@pytest.mark.parametrize("name, pattern", [("g[1]", "["), ("a*b", "*"), ("x?/run", "?")])
def test_a_directory_whose_name_readers_take_for_a_pattern_is_refused(tmp_path, name, pattern):
    """A run in `g[1]` beside one in `g1`: DuckDB's and polars' `read_parquet('g[1]/*.parquet')` (README's
    way to read a run's files) read g1's rows instead, without a word; pandas read the right ones."""
    assert_ok(cli("run", "--range", "1000-1009", "--out", tmp_path / "g1", "--workers", "1"))
    line = assert_one_line_failure(cli("run", "--range", "1-3", "--out", tmp_path / name), 1)
    folder = name.split("/")[0]
    assert line.startswith(f"Error: {tmp_path / name}: DuckDB and polars read {pattern!r} in a path as a pattern, "
                           f"so their reads of {folder}/*.parquet would take other folders' files"), line
    assert not (tmp_path / folder).exists()


def test_a_run_s_dataset_is_never_another_run_s_side_folder(tmp_path):
    """A run in X keeps its manifest and log in X.run: where X.run was a run's dataset, that dataset got
    them among its parts, and pandas, pyarrow and polars could read it no more."""
    other = tmp_path / "x.run"
    assert_ok(cli("run", "--range", "1-4", "--out", other, "--workers", "1"))
    before = snapshot(other)
    line = assert_one_line_failure(cli("run", "--range", "1-4", "--out", tmp_path / "x"), 1)
    assert line == (f"Error: {other}, where a run in {tmp_path / 'x'} keeps its manifest and log, holds the "
                    "dataset of another run: choose another directory\n"), line
    assert snapshot(other) == before and not (tmp_path / "x").exists()
    assert len(pd.read_parquet(other)) == 4
    for more in (["--range", "1-4"], []):
        line = assert_one_line_failure(cli("run", *more, "--out", f"{other}.run"), 1)
        assert line == f"Error: {other}.run is where the run {other} keeps its manifest and log: give --out {other}\n", \
            line


def test_a_run_s_side_folder_or_a_link_to_it_given_for_the_run_names_the_run(run_copy, tmp_path):
    """`verify X.run` said "no X.run.run/manifest.json", report and export "no *.parquet files"; `run --out
    LINK` (a link to a run made under its real name) blamed a run made under a link's name, the reverse."""
    side = f"{run_copy}.run"
    (tmp_path / "side_link").symlink_to(side)
    for given in (side, tmp_path / "side_link"):
        for command in ("verify", "report", "export"):
            line = assert_one_line_failure(cli(command, given), 1)
            assert line == f"Error: {given} is where the run {run_copy} keeps its manifest and log: give {run_copy}\n", \
                line
    (tmp_path / "latest").symlink_to(run_copy)
    before = snapshot(run_copy)
    for more in (["--range", "1-8"], []):
        line = assert_one_line_failure(cli("run", *more, "--out", tmp_path / "latest"), 1)
        assert line == (f"Error: {tmp_path / 'latest'} is a link to the run {run_copy}, which keeps its manifest "
                        f"beside that name: give --out {run_copy}\n"), line
    assert snapshot(run_copy) == before and not (tmp_path / "latest.run").exists()


def test_a_run_directory_bind_mounted_from_the_same_disk(tmp_path):
    """Same device as its side folder, yet another mount point: no rename crosses (EXDEV), and every
    chunk failed, run after run. Written in DIR as across devices; read-only, the one line that says so."""
    with bind_mount(tmp_path / "store", tmp_path / "run") as out:
        assert os.stat(out).st_dev == os.stat(tmp_path).st_dev
        assert "5 deals solved now" in assert_ok(cli("run", "--range", "1-5", "--out", out, "--workers", "1",
                                                     "--chunk-size", "2"))
        assert assert_ok(cli("verify", out)).startswith("ok: 5 rows")
        assert not list(Path(f"{out}.run").glob(".*tmp*"))
        before = {path.name: path.read_bytes() for path in out.iterdir()}
        subprocess.run(["mount", "-o", "remount,ro,bind", str(out)], check=True)
        line = assert_one_line_failure(cli("run", "--range", "1-9", "--out", out, "--workers", "1"), 1)
        assert line.startswith(f"Error: cannot write to {out}: Read-only file system; the finished chunks are "
                               "kept: make it writable, then resume with: blackhole-stats run "), line
        assert {path.name: path.read_bytes() for path in out.iterdir()} == before
        subprocess.run(["mount", "-o", "remount,rw,bind", str(out)], check=True)
        assert "4 deals solved now" in assert_ok(cli("run", "--out", out, "--workers", "1"))
        assert assert_ok(cli("verify", out)).startswith("ok: 9 rows")
        assert not list(Path(f"{out}.run").glob(".*tmp*"))


def test_a_read_only_side_folder_alone_is_named(tmp_path):
    """DIR writable, DIR.run read-only (a mount of its own): the line named DIR, which was writable."""
    if os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs root")
    out = tmp_path / "run"
    assert_ok(cli("run", "--range", "1-3", "--out", out, "--workers", "1"))
    side = Path(f"{out}.run")
    if subprocess.run(["mount", "--bind", str(side), str(side)], capture_output=True).returncode != 0:
        pytest.skip("a bind mount is not permitted here")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(side)], check=True)
        line = assert_one_line_failure(cli("run", "--range", "1-6", "--out", out, "--workers", "1"), 1)
        assert line.startswith(f"Error: cannot write to {side}: Read-only file system; the finished chunks are "
                               "kept: make it writable, then resume with: blackhole-stats run "), line
    finally:
        subprocess.run(["umount", "-l", str(side)], check=True)


def test_a_full_disk_at_the_first_write(tmp_path):
    with tmpfs(tmp_path / "mnt") as mount:
        out = mount / "run"
        filler = fill_up(mount)
        command = ("run", "--range", "1-5", "--out", out, "--workers", "1")
        line = assert_one_line_failure(cli(*command), 1)
        assert line == (f"Error: cannot write to {out}: No space left on device; no chunk had finished: "
                        f"free some space, then resume with: blackhole-stats {shlex.join(map(str, command))}\n")
        assert not manifest_file(out).exists()
        assert not out.exists() and not Path(f"{out}.run").exists()  # README: nothing left behind
        filler.unlink()
        assert "5 deals solved now" in assert_ok(cli(*command))
        assert assert_ok(cli("verify", out)).startswith("ok: 5 rows")


def test_kill_9_between_writing_and_renaming_the_manifest(tmp_path):
    out = tmp_path / "run"
    command = [str(SCRIPT), "run", "--range", "1-5", "--out", str(out), "--workers", "1"]
    victim = subprocess.Popen(command, env={**os.environ, **pause_env(tmp_path, **{"manifest-written": 60})},
                              start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_pause(tmp_path, "manifest-written", victim)
    finally:
        os.killpg(victim.pid, signal.SIGKILL)
        victim.wait()
    assert os.listdir(out) == [] and os.listdir(f"{out}.run") == [".manifest.json.tmp"]
    assert "5 deals solved now" in assert_ok(cli(*command[1:]))
    assert assert_ok(cli("verify", out)).startswith("ok: 5 rows")
    assert not list(Path(f"{out}.run").glob(".*"))


def test_only_our_unfinished_files_are_ignored(tmp_path):
    out = tmp_path / "run"
    side = tmp_path / "run.run"
    side.mkdir(parents=True)
    out.mkdir()
    (out / "._manifest.json.tmp").write_text("{half")  # where 0.1.0 wrote them
    (out / ".part-1-3-3.parquet.tmp").write_bytes(b"half a file")
    (side / ".manifest.json.tmp").write_text("{half")
    (side / ".part-1-3-3.parquet.tmp").write_bytes(b"half a file")
    assert "3 deals solved now" in assert_ok(cli("run", "--range", "1-3", "--out", out, "--workers", "1"))
    assert not list(out.glob(".*")) and not list(side.glob(".*"))
    other = tmp_path / "other"
    other.mkdir()
    (other / ".notes.tmp").write_text("someone's")
    line = assert_one_line_failure(cli("run", "--range", "1-3", "--out", other), 1)
    assert line == f"Error: {other} is not empty and holds no run: choose a new or empty directory\n"
    assert (other / ".notes.tmp").read_text() == "someone's"


# ------------------------------------------------------------------ damaged files
def _real_manifest(run: Path, **changes) -> bytes:
    manifest = json.loads(manifest_file(run).read_text())
    return json.dumps({**manifest, **changes}).encode()


DAMAGED = {
    "a list": (lambda run: b"[]", "expected a JSON object, found a list"),
    "a string": (lambda run: b'"hello"', "expected a JSON object, found a string"),
    "null": (lambda run: b"null", "expected a JSON object, found null"),
    "only deals, numbers": (lambda run: b'{"deals": [1, 2]}', 'deals must be a list of ranges like "1-1000", not [1, 2]'),
    "deals as numbers": (lambda run: _real_manifest(run, deals=[1, 2]), "deals must be a list of ranges"),
    "bad elapsed time": (lambda run: _real_manifest(run, elapsed_seconds="x"),
                         'elapsed_seconds must be a number of seconds, not "x"'),
    "an elapsed time of 10^300 s": (lambda run: _real_manifest(run, elapsed_seconds=1e300),  # printed in full
                                    "elapsed_seconds must be a number of seconds, not 1e+300"),
    "a null elapsed time": (lambda run: _real_manifest(run, elapsed_seconds=None),  # a resume's traceback at its end
                            "elapsed_seconds must be a number of seconds, not null"),
    "a session's bad time": (lambda run: _real_manifest(run, sessions=[{"elapsed_seconds": "x"}]),  # said [1]
                             'sessions[0].elapsed_seconds must be null or a number of seconds, not "x"'),
    "bad range": (lambda run: _real_manifest(run, deals=["5-1"]), "deals: bad deal range '5-1': reversed"),
    "a budget past 2^63-1": (lambda run: _real_manifest(run, max_iters=2**63),  # resuming: was a traceback
                             "max_iters must be null or a whole number from 1 to 2^63-1, not 9223372036854775808"),
    "truncated": (lambda run: manifest_file(run).read_bytes()[:40], "not valid JSON"),
    "not UTF-8": (lambda run: b'{"tool": "\xff"}', "not UTF-8 text (byte 0xff at offset 10)"),
    "nested deep": (lambda run: b"[" * 100_000 + b"]" * 100_000, "JSON nested too deep to read"),
}


@pytest.mark.parametrize("damage", DAMAGED)
def test_a_damaged_manifest_is_one_line_everywhere(run_copy, damage):
    make, words = DAMAGED[damage]
    manifest_file(run_copy).write_bytes(make(run_copy))
    before = snapshot(run_copy)
    results = cli_all([("run", "--out", run_copy), ("verify", run_copy), ("report", run_copy)])
    for result in results:
        line = assert_one_line_failure(result, 1)
        assert line.startswith(f"Error: {manifest_file(run_copy)} is damaged: "), line
        assert words in line
    assert snapshot(run_copy) == before


def test_a_chunk_file_of_another_schema(run_copy):
    part = run_copy / "part-4-6-3.parquet"
    pq.write_table(pa.table({"deal": [4, 5, 6], "verdict": ["?", "?", "?"]}), part)
    before = snapshot(run_copy)
    resumed, verified = cli("run", "--out", run_copy), cli("verify", run_copy)  # (verify refuses a live run)
    extended = cli("run", "--range", "1-9", "--out", run_copy)  # not beside the other run: the lock would refuse
    for result in (resumed, extended):
        assert assert_one_line_failure(result, 1) == (
            f"Error: {part} is named like a chunk file but its columns are deal, verdict, not game, deal, ms, "
            "outcome, iterations, cards_played, solution, seconds, deal_exact: move it out of the run directory\n")
    assert verified.returncode == 1
    assert verified.stdout.decode().splitlines() == [
        "part-4-6-3.parquet: its columns are deal, verdict, not game, deal, ms, outcome, iterations, "
        "cards_played, solution, seconds, deal_exact",
        "deals missing (or in the file above whose rows could not be read): 4-6"]
    assert {key: value for key, value in snapshot(run_copy).items() if key != "run.run/run.log"} == \
        {key: value for key, value in before.items() if key != "run.run/run.log"}


# ------------------------------------------------------------------ what readers read
def reader_rows(folder: Path) -> dict[str, int | str]:
    """Rows each reader gets from the bare directory, as README tells users to read it (or its error)."""
    readers = {
        "pandas": lambda: len(pd.read_parquet(folder)),
        "pyarrow": lambda: pads.dataset(folder).count_rows(),
        "DuckDB": lambda: duckdb.sql(f"select count(*) from read_parquet('{folder}')").fetchall()[0][0],
        "polars": lambda: len(pl.read_parquet(folder)),
    }
    rows = {}
    for name, read in readers.items():
        try:
            rows[name] = read()
        except Exception as error:  # what the reader does with the file is the measurement
            rows[name] = type(error).__name__
    return rows


def test_readers_and_verify_agree_on_a_clean_run(run_copy):
    assert reader_rows(run_copy) == dict.fromkeys(["pandas", "pyarrow", "DuckDB", "polars"], 6)
    assert assert_ok(cli("verify", run_copy)).startswith("ok: 6 rows")


def test_files_no_reader_reads_are_no_problem(run_copy):
    """An empty `_SUCCESS` (what Spark leaves) and an empty folder: no reader reads them, verify passes."""
    (run_copy / "_SUCCESS").touch()
    (run_copy / "_empty").mkdir()
    assert reader_rows(run_copy) == dict.fromkeys(["pandas", "pyarrow", "DuckDB", "polars"], 6)
    assert assert_ok(cli("verify", run_copy)).startswith("ok: 6 rows")


def test_a_folder_named_as_a_missing_chunk_file_is_refused_before_anything_is_solved(tmp_path):
    """No reader reads an empty folder `part-3-3-1.parquet`, but the run's rename of chunk 3 onto it failed
    at every resume, after solving it: "chunk 3 failed: IsADirectoryError" and a resume command that failed too."""
    out = tmp_path / "run"
    assert cli("run", "--range", "1-3", "--chunk-size", "1", "--workers", "1", "--out", out).returncode == 0
    (out / "part-3-3-1.parquet").unlink()
    (out / "part-3-3-1.parquet").mkdir()
    line = assert_one_line_failure(cli("run", "--out", out, "--workers", "1"))
    assert f"{out} holds part-3-3-1.parquet, which is not a file but has a chunk file's name" in line
    (out / "part-3-3-1.parquet").rmdir()
    assert cli("run", "--out", out, "--workers", "1").returncode == 0 and len(pd.read_parquet(out)) == 3


STRAYS = {
    "backup.parquet": "a copy",
    "_backup.parquet": "a copy",
    ".backup.parquet": "a copy",
    "junk.parquet": "random bytes",
    "plots/part-1-3-3.parquet": "a copy",
    "plots/iterations.png": "text",
    "_plots/iterations.png": "text",
    "notes.txt": "text",
    "_notes.txt": "text",
    "part-1-3-3.parquet.bak": "a copy",
    "part-1-3-3.parquet.junk": "magic bytes around junk",  # (only its footer tells it is no Parquet: helper 153)
}


def write_stray(target: Path, kind: str, part: Path) -> None:
    """A STRAYS entry: `kind` of content at `target`, `part` the run's file a copy copies."""
    target.parent.mkdir(exist_ok=True)
    if kind == "a copy":
        shutil.copy(part, target)
    else:
        target.write_bytes({"random bytes": os.urandom(300), "magic bytes around junk": b"PAR1" + os.urandom(300)
                            + b"PAR1"}.get(kind, b"my notes\n"))


@pytest.mark.parametrize("stray", STRAYS)
def test_verify_fails_on_whatever_a_reader_would_read(run_copy, stray):
    write_stray(run_copy / stray, STRAYS[stray], run_copy / "part-1-3-3.parquet")
    rows = reader_rows(run_copy)
    assert any(count != 6 for count in rows.values()), rows  # it matters
    result = cli("verify", run_copy)
    assert result.returncode == 1
    [line] = result.stdout.decode().splitlines()
    name = stray.split("/")[0] + ("/" if "/" in stray else "")
    assert line.startswith(f"{name}: not a file of this run, yet read by "), line
    double_counting = [reader for reader, count in rows.items() if isinstance(count, int) and count > 6]
    failing = [reader for reader, count in rows.items() if not isinstance(count, int)]
    assert all(reader in line for reader in double_counting + failing), (line, rows)


@pytest.mark.parametrize("stray", STRAYS)
def test_report_without_a_manifest_says_where_pandas_reads_other_rows(run_copy, tmp_path, stray):
    """Parts gathered in a folder of their own (no manifest to name strays by): a renamed copy of a part,
    which pandas and pyarrow read, was left out of the report without a word, and a `_backup.parquet`
    the report reads and they leave out likewise (helper 147's F2). Files they fail on need no word."""
    gathered = tmp_path / "gathered"
    gathered.mkdir()
    for part in run_copy.glob("part-*.parquet"):
        shutil.copy(part, gathered)
    write_stray(gathered / stray, STRAYS[stray], run_copy / "part-1-3-3.parquet")
    pandas_rows = reader_rows(gathered)["pandas"]
    text, as_json = cli_all([("report", gathered), ("report", gathered, "--format", "json")])
    if text.returncode:  # refused in a line, as a reader fails on it: nothing silently other
        assert f"{stray}: not a readable Parquet file" in assert_one_line_failure(text)
        return
    deals = json.loads(assert_ok(as_json))
    counted = deals["deals"] + deals["duplicates"]
    shown = " ".join(assert_ok(text).split())
    nothing = {"extra": [], "skipped": []}
    if not isinstance(pandas_rows, int) or pandas_rows == counted:
        assert deals["pandas_reads"] == nothing and "pandas and pyarrow" not in shown, (pandas_rows, shown)
        return
    kind, word = ("extra", "also read") if pandas_rows > counted else ("skipped", "leave out")
    assert deals["pandas_reads"] == {**nothing, kind: [stray]}, (pandas_rows, counted)
    warning = (f"warning: pandas and pyarrow also read {stray} (Parquet, not named *.parquet), left out here: their "
               "figures count its rows too" if kind == "extra" else
               f"warning: pandas and pyarrow leave out {stray}, read here (a name, or a folder's, starting with '_' "
               "or '.'): their figures count none of its rows")
    assert warning in shown, shown
    exported = cli("export", gathered)  # (it refuses deals listed twice, the copies here but the "also read")
    assert warning in exported.stderr.decode().splitlines() or assert_one_line_failure(exported).rstrip().endswith(
        "is listed more than once (in a run's directory, blackhole-stats verify names every repeat)")
    (gathered / "notes.txt").write_text("x\n")  # now they fail on the folder: no figures of theirs to differ
    assert not isinstance(reader_rows(gathered)["pandas"], int)
    assert json.loads(assert_ok(cli("report", gathered, "--format", "json")))["pandas_reads"] == nothing


def test_report_counts_a_backup_copy_and_says_so(run_copy):
    shutil.copy(run_copy / "part-1-3-3.parquet", run_copy / "backup.parquet")
    assert len(pd.read_parquet(run_copy)) == 9  # what a notebook would count
    text, as_json = cli_all([("report", run_copy), ("report", run_copy, "--format", "json")])
    assert ("warning: the manifest asks for 6 deals, the dataset has 9 rows: 0 missing, 0 not asked for, "
            "3 repeated") in " ".join(assert_ok(text).split())  # wrapped to 80 columns
    assert json.loads(assert_ok(as_json))["against_manifest"] == {
        "asked": 6, "rows": 9, "missing": 0, "not_asked_for": 0, "repeated": 3, "strays": [],
        "other_settings": [], "being_written": False, "unfinished": [], "mistagged": 0}


@pytest.mark.parametrize("error, resources", [
    (pa.ArrowException("Unknown error: Failed to launch worker thread: Resource temporarily unavailable"), True),
    (pa.ArrowMemoryError("malloc of size 64 failed"), True),
    (OSError(errno.EMFILE, "Too many open files"), True),
    (OSError(errno.EIO, "Input/output error"), False),
    (pa.ArrowInvalid("Corrupted page: CRC checksum verification failed"), False),
])
def test_what_ran_out_while_a_part_was_read_is_not_called_damage(error, resources):
    """Under `ulimit -v` pyarrow could not start a reading thread: the run called a whole file "damaged"
    and told the user to delete it (the messages are what pyarrow 26 raised under the limit)."""
    from blackhole_stats.dataset import _out_of_resources

    assert _out_of_resources(error) is resources


def test_report_short_of_memory_or_threads_is_one_line(tmp_path):
    """Under `ulimit -v` pandas' conversion of a file could not start its threads: a 47-line traceback
    (a hostile tester), where reading the file itself already gave the one line."""
    out = tmp_path / "many"
    assert cli("run", "--range", "1-3000", "--chunk-size", "30", "--out", out, "--workers", "1").returncode == 0
    short = 0
    for kib in (330_000, 340_000, 380_000):  # where the conversion ran short of threads on this machine kind;
        # elsewhere in that band pyarrow itself may die of the limit (a segfault, std::bad_alloc): not Python's
        limited = functools.partial(resource.setrlimit, resource.RLIMIT_AS, (kib * 1024, resource.RLIM_INFINITY))
        try:
            done = cli("report", out, preexec_fn=limited, timeout=60)
        except subprocess.TimeoutExpired:  # pyarrow spinning on the limit (README): not this limit's answer
            continue
        assert b"Traceback" not in done.stderr, (kib, done.stderr.decode())
        if done.returncode == 1:
            short += "are memory or threads limited?" in assert_one_line_failure(done)
    if not short:
        pytest.skip("none of these limits made the reading run short of memory or threads here")


def test_a_thread_limit_is_no_ctrl_c(run_copy):
    """Under `ulimit -u` numpy's OpenBLAS could not start its threads and sent the process SIGINT:
    'interrupted', exit 130, as if the user had pressed Ctrl-C (a hostile tester)."""
    nobody = as_nobody()
    os.chown(run_copy, 65534, 65534)  # '.' its own: click asks access(), which goes by the user, not its caps
    done = subprocess.run([*nobody, "bash", "-c", 'ulimit -u 1; exec "$0" report .', str(SCRIPT)],
                          capture_output=True, timeout=120, cwd=run_copy,
                          env={**{name: value for name, value in os.environ.items() if name != "OPENBLAS_NUM_THREADS"},
                               "HOME": str(run_copy)})  # (the user's own setting would hide the old failure)
    err = done.stderr.decode()
    assert done.returncode == 1 and "Traceback" not in err and "interrupted" not in err, (done.returncode, err)
    assert err.splitlines()[-1].endswith("(are memory or threads limited? the file was not found damaged: run the "
                                         "command again once they allow)"), err  # (jemalloc may say a line too)


def test_a_resume_refuses_a_part_renamed_by_hand(run_copy):
    """verify named it ("not what its name says"), and run went on as if all were well."""
    (run_copy / "part-1-3-3.parquet").rename(run_copy / "part-1-3-2.parquet")
    before = snapshot(run_copy)
    line = assert_one_line_failure(cli("run", "--out", run_copy), 1)
    assert line == (f"Error: {run_copy / 'part-1-3-2.parquet'} holds deals 1-3, not what its name says: rename it "
                    f"part-1-3-3.parquet (blackhole-stats verify {run_copy} names what each file holds)\n"), line
    assert snapshot(run_copy) == before
    (run_copy / "part-1-3-2.parquet").rename(run_copy / "part-1-3-3.parquet")
    assert cli("run", "--out", run_copy).returncode == 0
    (run_copy / "part-1-3-3.parquet").rename(run_copy / "swap")  # two names swapped: renaming one onto the
    (run_copy / "part-4-6-3.parquet").rename(run_copy / "part-1-3-3.parquet")  # other would lose its deals
    (run_copy / "swap").rename(run_copy / "part-4-6-3.parquet")
    line = assert_one_line_failure(cli("run", "--out", run_copy), 1)
    assert "holds deals 4-6, not what its name says: move it out of the run directory (blackhole-stats verify" in line


def test_a_resume_refuses_a_part_that_holds_a_deal_twice(run_copy):
    """A hand-edited part with a number in both deal and deal_exact: report, export and verify refused the
    folder, and run resumed beside it with exit 0."""
    part = run_copy / "part-1-3-3.parquet"
    table = pq.read_table(part)
    settings = table.schema.metadata
    edited = table.set_column(table.schema.get_field_index("deal_exact"), "deal_exact",
                              pa.array(["18446744073709551616", None, None], pa.string()))
    pq.write_table(edited.replace_schema_metadata(settings), part)
    before = snapshot(run_copy)
    line = assert_one_line_failure(cli("run", "--range", "1-9", "--out", run_copy), 1)
    assert line == (f"Error: {part} is named like a chunk file but holds rows with numbers in both deal and "
                    "deal_exact (hand-edited?): move it out of the run directory\n"), line
    assert snapshot(run_copy) == before


def test_a_deal_exact_that_is_no_text_is_one_line_and_blank_text_is_none(run_copy, tmp_path):
    """A deal_exact column of numbers (polars' or pandas' guess at a CSV) was a TypeError traceback in report
    and export; blank text beside a deal was called a second number."""
    table = pq.read_table(run_copy / "part-1-3-3.parquet")
    where = table.schema.get_field_index("deal_exact")
    pq.write_table(table.set_column(where, "deal_exact", pa.array([None] * 3, pa.int64())), tmp_path / "ints.parquet")
    pq.write_table(table.set_column(where, "deal_exact", pa.array(["", " ", None], pa.string())),
                   tmp_path / "blank.parquet")
    for command in ("report", "export"):
        line = assert_one_line_failure(cli(command, tmp_path / "ints.parquet"), 1)
        assert "column deal_exact is int64, not text: it holds a game number's decimal digits" in line, line
        assert assert_ok(cli(command, tmp_path / "blank.parquet"))


def test_a_report_names_the_unfinished_files_a_killed_run_left_in_dir(run_copy, tmp_path):
    """Where DIR is on another disk than its side folder, a run writes its chunk in DIR under a hidden name;
    killed outright, it leaves that file, which polars reads (pandas, pyarrow and DuckDB do not): report said
    nothing, or only "no *.parquet files"."""
    (run_copy / ".part-7-9-3.parquet.tmp").write_bytes((run_copy / "part-1-3-3.parquet").read_bytes())
    with pytest.raises(pl.exceptions.InvalidOperationError, match="different file extensions"):
        pl.read_parquet(run_copy)
    assert len(pd.read_parquet(run_copy)) == 6
    assert ("warning: the directory holds .part-7-9-3.parquet.tmp, unfinished by a run that was killed, which "
            "polars reads or refuses the folder for: resume the run, which removes them") in " ".join(
        assert_ok(cli("report", run_copy)).split())
    empty = tmp_path / "empty"
    assert cli("run", "--range", "1", "--out", empty).returncode == 0
    (empty / "part-1-1-1.parquet").rename(empty / ".part-1-1-1.parquet.tmp")
    assert len(pl.read_parquet(empty)) == 1  # its rows, where it is the only file
    line = assert_one_line_failure(cli("report", empty), 1)
    assert line.endswith("no *.parquet files in this directory: it holds only files a killed run left unfinished: "
                         "resume the run\n"), line


def test_a_resume_refuses_a_part_copied_from_another_run(run_copy, tmp_path):
    """A chunk's deals are in the manifest before it is solved, so a part holding others came from
    elsewhere (here a run with a budget of one position: every row intractable). The resume took it as
    done, and one that added its deals to the run kept its rows: settings mixed without a word."""
    other = tmp_path / "other"
    assert_ok(cli("run", "--range", "7-9", "--max-iters", "1", "--out", other, "--workers", "1", "--chunk-size", "3"))
    shutil.copy(other / "part-7-9-3.parquet", run_copy)
    before = snapshot(run_copy)
    for more in ([], ["--range", "1-9"]):
        line = assert_one_line_failure(cli("run", "--out", run_copy, *more), 1)
        assert line == (f"Error: {run_copy / 'part-7-9-3.parquet'} is named like a chunk file but holds deals "
                        "7-9, which the run's manifest does not ask for (a file of another run?): move it out of "
                        "the run directory\n"), line
        assert snapshot(run_copy) == before
    (run_copy / "part-7-9-3.parquet").unlink()
    assert_ok(cli("run", "--out", run_copy, "--range", "1-9", "--workers", "1"))
    assert set(pd.read_parquet(run_copy)["outcome"]) <= {"solved", "unsolved"}


def test_a_part_of_a_run_of_other_settings_is_refused_for_the_deals_it_holds(run_copy, tmp_path):
    """Deals the manifest asks for, from a run of another search: taken as done, and `verify` passed
    (a classic count of 1,810,353 iterations among the fast ones). Every part records its run's
    settings; one of the same settings is the run's own in all but name, and is taken."""
    classic, same = tmp_path / "classic", tmp_path / "same"
    assert_ok(cli("run", "--range", "1-3", "--search", "classic", "--out", classic, "--workers", "1",
                  "--chunk-size", "3"))
    assert_ok(cli("run", "--range", "1-3", "--out", same, "--workers", "1", "--chunk-size", "3"))
    (run_copy / "part-1-3-3.parquet").unlink()
    shutil.copy(classic / "part-1-3-3.parquet", run_copy)
    before = snapshot(run_copy)
    line = assert_one_line_failure(cli("run", "--out", run_copy), 1)
    assert line == (f"Error: {run_copy / 'part-1-3-3.parquet'} is named like a chunk file but was solved by a run "
                    'of other settings (search="classic"; this run\'s: search="fast"): move it out of the run '
                    "directory\n"), line
    assert snapshot(run_copy) == before
    checked = cli("verify", run_copy)
    assert checked.returncode == 1 and 'part-1-3-3.parquet: was solved by a run of other settings (search="classic"' \
        in checked.stdout.decode()
    shown = " ".join(assert_ok(cli("report", run_copy)).split())  # what it counts, it says
    assert ("warning: part-1-3-3.parquet holds rows solved with other settings than the run's, or whose recorded "
            "settings are damaged (a file of another run?), counted here") in shown, shown
    assert json.loads(assert_ok(cli("report", run_copy, "--format", "json")))["against_manifest"][
        "other_settings"] == ["part-1-3-3.parquet"]
    assert "holds rows solved with other settings" in cli("export", run_copy).stderr.decode()
    shutil.copy(same / "part-1-3-3.parquet", run_copy)
    assert assert_ok(cli("verify", run_copy)).startswith("ok: 6 rows")
    assert "other settings" not in assert_ok(cli("report", run_copy))
    part = run_copy / "part-1-3-3.parquet"
    for damaged in (b"[1, 2]", b"not json", b"null", "{\"search\": \"%s\"}" % ("x" * 20_000), b"[" * 100_000):
        raw = damaged.encode() if isinstance(damaged, str) else damaged
        pq.write_table(pq.read_table(part).replace_schema_metadata({"blackhole_stats.run_settings": raw}), part)
        line = assert_one_line_failure(cli("run", "--out", run_copy), 1)
        assert ("has damaged run settings" in line if len(raw) < 100 or raw.startswith(b"[[") else len(line) < 400), line
        checked = cli("verify", run_copy)
        assert checked.returncode == 1 and "Traceback" not in checked.stderr.decode(), checked
        if damaged != b"null":  # (a footer of null records no settings: earlier versions' files)
            assert "part-1-3-3.parquet holds rows solved with other settings" in assert_ok(cli("report", run_copy))


def test_files_of_runs_of_other_settings_gathered_without_a_manifest_are_said(run_copy, tmp_path):
    """The parts of two runs copied into one folder (no manifest: nothing to check them against): a
    classic run's iteration counts and a budgeted run's intractable deals were reported with the rest
    as one study, without a word. Parts of one run's settings gathered so say nothing."""
    classic, budget, gathered = tmp_path / "classic", tmp_path / "budget", tmp_path / "gathered"
    assert_ok(cli("run", "--range", "7-9", "--search", "classic", "--out", classic, "--workers", "1",
                  "--chunk-size", "3"))
    assert_ok(cli("run", "--range", "10-12", "--max-iters", "1", "--out", budget, "--workers", "1", "--chunk-size", "3"))
    gathered.mkdir()
    for part in run_copy.glob("part-*.parquet"):
        shutil.copy(part, gathered)
    for quiet in (cli("report", gathered), cli("export", gathered)):
        assert "different settings" not in assert_ok(quiet) + quiet.stderr.decode()
    shutil.copy(classic / "part-7-9-3.parquet", gathered)
    shutil.copy(budget / "part-10-12-3.parquet", gathered)
    shown = " ".join(assert_ok(cli("report", gathered)).split())
    assert ("warning: the files were solved by runs of different settings (max_iters=null, search=\"fast\": 2 files "
            "(part-1-3-3.parquet, ...); max_iters=1, search=\"fast\": 1 file (part-10-12-3.parquet); "
            "max_iters=null, search=\"classic\": 1 file (part-7-9-3.parquet)), counted here together") in shown, shown
    assert "different settings" in json.loads(assert_ok(cli("report", gathered, "--format", "json")))["mixed_settings"]
    assert "warning: the files were solved by runs of different settings" in cli("export", gathered).stderr.decode()
    assert "A: warning: the files were solved by runs of different settings" in assert_ok(
        cli("report", run_copy, "--compare", gathered)).replace("B: warning", "A: warning")
    deep = gathered / "part-10-12-3.parquet"  # settings nested past json's depth: RecursionError, a traceback
    for nested in (b"[" * 100_000, b'{"search": ' + b"[" * 600 + b"]" * 600 + b"}"):  # the second, from pandas'
        pq.write_table(pq.read_table(deep).replace_schema_metadata({"blackhole_stats.run_settings": nested}), deep)
        shown = " ".join(assert_ok(cli("report", gathered)).split())  # (the second broke pandas' copy of attrs)
        assert "search=\"classic\"" in shown, shown
        assert ("settings damaged: 1 file (part-10-12-3.parquet)" in shown) == nested.startswith(b"["), shown
    settings = json.loads(pq.read_schema(classic / "part-7-9-3.parquet").metadata[b"blackhole_stats.run_settings"])
    for name, changed in (("part-10-12-3.parquet", {"max_iters": 1.0, "a\nkey": 1}),  # 1.0 beside 1: told apart
                          ("part-4-6-3.parquet", {"max_iters": 1})):                  # (it said "(: 1 file...")
        part = gathered / name
        pq.write_table(pq.read_table(part).replace_schema_metadata(
            {"blackhole_stats.run_settings": json.dumps({**settings, "search": "fast", **changed})}), part)
    warned = cli("export", gathered).stderr.decode()
    assert len(warned.splitlines()) == 1, warned  # the key's newline escaped
    assert 'a\\nkey=1, max_iters=1.0, search="fast": 1 file (part-10-12-3.parquet)' in warned, warned
    assert 'a\\nkey=null, max_iters=1, search="fast": 1 file (part-4-6-3.parquet)' in warned, warned


def test_damaged_run_settings_without_a_manifest_are_said(run_copy, tmp_path):
    """Beside one run's files, a file whose recorded settings are damaged showed as '(: 1 file ...'; files
    that were all damaged said nothing."""
    gathered = tmp_path / "gathered"
    gathered.mkdir()
    parts = sorted(run_copy.glob("part-*.parquet"))
    for part in parts:
        shutil.copy(part, gathered)
    first, second = (gathered / part.name for part in parts[:2])
    pq.write_table(pq.read_table(first).replace_schema_metadata({"blackhole_stats.run_settings": b"[1"}), first)
    shown = " ".join(assert_ok(cli("report", gathered)).split())
    assert (f'search="fast": {len(parts) - 1} file{"s" if len(parts) > 2 else ""} ({second.name}' in shown
            and f"settings damaged: 1 file ({first.name})" in shown and "(: " not in shown), shown
    for part in gathered.glob("part-*.parquet"):
        pq.write_table(pq.read_table(part).replace_schema_metadata({"blackhole_stats.run_settings": b"["}), part)
    shown = " ".join(assert_ok(cli("report", gathered)).split())
    assert (f"warning: the files' run settings are damaged (settings damaged: {len(parts)} files ({first.name}, "
            "...)): which runs solved them cannot be told") in shown, shown


def test_a_link_to_nothing_in_dir_is_named_and_a_fifo_is_passed_by(run_copy):
    """polars fails on a dangling link in DIR, which pyarrow's listing leaves out: verify said ok and run
    added rows beside it. A FIFO or socket was listed as a folder, and the error named DIR ('cannot list
    DIR: Not a directory'); the readers pass it by, so the run does too (DuckDB opens one named *.parquet)."""
    (run_copy / "notes").symlink_to(run_copy / "gone")
    checked = cli("verify", run_copy)
    assert checked.returncode == 1 and "notes: not a file of this run, yet read by polars (a link to nothing" \
        in checked.stdout.decode(), checked.stdout
    assert "notes, which is not a file of this run" in assert_one_line_failure(cli("run", "--out", run_copy), 1)
    (run_copy / "notes").unlink()
    os.mkfifo(run_copy / "pipe")
    assert assert_ok(cli("verify", run_copy)).startswith("ok: 6 rows")
    assert_ok(cli("run", "--out", run_copy, "--range", "1-7", "--workers", "1"))
    assert "7 deals" in assert_ok(cli("report", run_copy))
    os.mkfifo(run_copy / "pipe.parquet")
    assert "pipe.parquet: not a file of this run, yet read by DuckDB" in cli("verify", run_copy).stdout.decode()
    (run_copy / "gone.parquet").symlink_to(run_copy / "gone")  # neither is read by the report: it says so
    assert "the directory also holds gone.parquet, pipe.parquet, not the run's files" in " ".join(
        assert_ok(cli("report", run_copy)).split())


def test_a_fifo_for_a_manifest_and_a_link_loop_are_one_line(run_copy, tmp_path):
    """Every command waited forever on a FIFO named like the manifest (Ctrl-C and SIGTERM could not stop
    it; one at the log's or a temporary file's name made a run wait), a link from the manifest's name to nothing read as no run (report went on without it), and report and export on two links from DIR to itself listed a tree that grew without end."""
    manifest = run_copy.parent / (run_copy.name + ".run") / "manifest.json"
    kept = manifest.read_bytes()
    manifest.unlink()
    os.mkfifo(manifest)
    for command in (["verify", run_copy], ["report", run_copy], ["export", run_copy], ["run", "--out", run_copy]):
        line = assert_one_line_failure(cli(*command, timeout=60), 1)
        assert line == f"Error: {manifest} is no file (a FIFO? a device?): move it away\n", line
    manifest.unlink()
    manifest.symlink_to(tmp_path / "moved.json")  # 'no run there' (verify), a run over it refused as not empty
    for command in (["verify", run_copy], ["report", run_copy], ["export", run_copy], ["run", "--out", run_copy]):
        line = assert_one_line_failure(cli(*command, timeout=60), 1)
        assert line == (f"Error: {manifest} is a link to {tmp_path / 'moved.json'}, which is not there: put the "
                        "manifest back, or remove the link\n"), line
    manifest.unlink()
    manifest.write_bytes(kept)
    os.mkfifo(manifest.parent / ".manifest.json.tmp")  # the temporary's name: run waited on it, past any signal
    os.mkfifo(manifest.parent / ".part-7-7-1.parquet.tmp")  # the chunk's: so did its worker
    (manifest.parent / "run.log").unlink()
    os.mkfifo(manifest.parent / "run.log")  # and the log's opening
    done = cli("run", "--out", run_copy, "--range", "1-7", "--workers", "1", timeout=60)
    assert_ok(done)
    assert done.stderr.decode() == (f"warning: cannot write the run's log {manifest.parent / 'run.log'} (no file: a "
                                    "FIFO? a device?): its lines are lost\n")
    assert not (manifest.parent / ".part-7-7-1.parquet.tmp").exists()
    (run_copy / "again").symlink_to(".")
    (run_copy / "more").symlink_to(".")
    for command in (["report", run_copy], ["export", run_copy]):
        line = assert_one_line_failure(cli(*command, timeout=60), 1)
        assert line == (f"Error: {run_copy / 'again'} is a link to a folder it is in, which a listing of {run_copy} "
                        "would follow without end: move it away\n"), line


@pytest.mark.parametrize("column, bad", [("outcome", pa.array([["unsolved"], ["solved"]])),
                                         ("outcome", pa.array([{"o": "unsolved"}, {"o": "solved"}])),
                                         ("game", pa.array([["golf"], ["golf"]])),
                                         ("game", pa.array([[("k", "golf")], [("k", "golf")]],
                                                           pa.map_(pa.string(), pa.string()))),
                                         ("iterations", pa.array([[8], [176]]))])
def test_a_column_of_lists_structs_or_maps_is_one_line(tmp_path, column, bad):
    """A traceback (unhashable type) from report, export and --compare; `deal` already had its line."""
    columns = {"deal": [1, 2], "outcome": ["unsolved", "solved"], "iterations": [8, 176], "cards_played": [3, 51]}
    path = tmp_path / "nested.parquet"
    pq.write_table(pa.table({**columns, column: bad}), path)
    for command in (["report", path], ["export", path], ["report", path, "--compare", path]):
        line = assert_one_line_failure(cli(*command), 1)
        read_as = pq.read_schema(path).field(column).type  # as Parquet gives it back: list<element: ...>
        assert line == f"Error: {path}: column {column} is {read_as}, not one value a row\n", line


@pytest.mark.parametrize("column, values, other", [("tag", ["easy", None], "difficulty"),
                                                   ("difficulty", [None, 2.5], "tag")])
def test_half_a_difficulty_table_is_refused(tmp_path, column, values, other):
    """Either column alone was dropped without a word (a tag on an unsolvable deal with it); export said
    'no difficulty tags'. All null, it says nothing (a CSV of a run without --difficulty has both so)."""
    path = tmp_path / "half.parquet"
    columns = {"deal": [1, 2], "outcome": ["unsolved", "solved"], "iterations": [8, 176],
               "cards_played": pa.array([3, 51], pa.int8())}
    pq.write_table(pa.table({**columns, column: values}), path)
    for command in (["report", path], ["export", path, "--tag", "easy"]):
        assert f"column {column} without column {other}" in assert_one_line_failure(cli(*command), 1)
    pq.write_table(pa.table({**columns, column: pa.array([None, None], pa.string())}), path)
    assert "2 deals" in assert_ok(cli("report", path))


def test_report_on_junk_is_one_line(run_copy):
    (run_copy / "junk.parquet").write_bytes(os.urandom(300))
    line = assert_one_line_failure(cli("report", run_copy), 1)
    assert line.startswith(f"Error: {run_copy / 'junk.parquet'}: not a readable Parquet file")


def test_report_says_when_deals_are_missing(run_copy):
    (run_copy / "part-4-6-3.parquet").unlink()
    data = json.loads(assert_ok(cli("report", run_copy, "--format", "json")))
    assert data["against_manifest"] == {"asked": 6, "rows": 3, "missing": 3, "not_asked_for": 0, "repeated": 0, "strays": [],
                                        "other_settings": [], "being_written": False, "unfinished": [], "mistagged": 0}


# ------------------------------------------------------------------ two runs, one directory
def test_a_second_run_is_refused_before_it_reads_the_manifest(run_copy, tmp_path):
    """Run A holds the lock (paused there); run B, with other settings and deals, must not touch anything.

    Before the fix B read and checked the manifest first, so it failed (or,
    with the manifest about to change, passed) on A's settings; now it is
    refused by the lock whatever the manifest says.
    """
    before = manifest_file(run_copy).read_bytes()
    holder = subprocess.Popen([str(SCRIPT), "run", "--range", "7-20", "--out", str(run_copy), "--workers", "1"],
                              env={**os.environ, **pause_env(tmp_path, **{"run-locked": 120})},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for_pause(tmp_path, "run-locked", holder)
        other = cli("run", "--range", "30-40", "--search", "classic", "--out", run_copy, "--workers", "1")
        assert assert_one_line_failure(other, 1) == (
            f"Error: another run is writing to {run_copy} (or its worker processes are still alive)\n")
        assert manifest_file(run_copy).read_bytes() == before
        assert not list(run_copy.glob("part-3*"))
        release_pause(tmp_path, "run-locked")
        out, err = holder.communicate(timeout=120)
    finally:
        if holder.poll() is None:
            holder.kill()
    assert holder.returncode == 0, err.decode()
    assert b"14 deals solved now" in out
    assert assert_ok(cli("verify", run_copy)).startswith("ok: 20 rows")
    manifest = json.loads(manifest_file(run_copy).read_text())
    assert (manifest["deals"], manifest["search"]) == (["1-20"], "fast")


# ------------------------------------------------------------------ other tool versions
def run_as_version(version: str, *args) -> subprocess.CompletedProcess:
    """The CLI of this source tree, believing it is `version`: a run made by another release."""
    program = (f"import blackhole_stats; blackhole_stats.__version__ = {version!r}; "
               "from blackhole_stats.cli import main; main(prog_name='blackhole-stats')")
    return subprocess.run([sys.executable, "-c", program, *map(str, args)], capture_output=True, timeout=120)


def test_a_run_of_an_older_version_is_extended(tmp_path):
    out = tmp_path / "run"
    assert_ok(run_as_version("0.0.9", "run", "--range", "1-5", "--out", out, "--workers", "1"))
    assert json.loads(manifest_file(out).read_text())["sessions"][0]["version"] == "0.0.9"
    assert "5 deals solved now" in assert_ok(cli("run", "--range", "1-10", "--out", out, "--workers", "1"))
    assert assert_ok(cli("verify", out)).startswith("ok: 10 rows")
    manifest = json.loads(manifest_file(out).read_text())
    assert [(session["version"], session["deals_solved"]) for session in manifest["sessions"]] == \
        [("0.0.9", 5), (__version__, 5)]
    assert manifest["results_format"] == 2 and manifest["finished"]


OLD_LAYOUT = "left inside the run directory by blackhole-stats 0.1.0, where polars refuses the directory: " \
             "the next run on it moves it beside the directory"


def test_an_unfinished_run_of_0_1_0_resumes(run_copy):
    manifest = json.loads(manifest_file(run_copy).read_text())
    make_0_1_0_run(run_copy, finished=None)
    old_log = (run_copy / "_run.log").read_text()
    (run_copy / "part-4-6-3.parquet").unlink()  # killed before its second chunk
    verified, reported = cli_all([("verify", run_copy), ("report", run_copy)])
    assert verified.stdout.decode().splitlines() == [f"_manifest.json: {OLD_LAYOUT}", f"_run.log: {OLD_LAYOUT}",
                                                     "deals missing: 4-6"]
    assert "3 missing" in assert_ok(reported)
    assert re.search(r"^version\s+0\.1\.0$", reported.stdout.decode(), re.MULTILINE)

    assert "3 deals solved now" in assert_ok(cli("run", "--out", run_copy, "--workers", "1"))
    assert assert_ok(cli("verify", run_copy)).startswith("ok: 6 rows")
    assert all(name.startswith("part-") for name in os.listdir(run_copy))  # 0.1.0's side files moved out
    assert Path(f"{run_copy}.run", "run.log").read_text().startswith(old_log)  # moved, then added to
    resumed = json.loads(manifest_file(run_copy).read_text())
    assert "version" not in resumed and resumed["results_format"] == 2 and resumed["finished"]
    assert [(session["version"], session["deals_solved"]) for session in resumed["sessions"]] == \
        [("0.1.0", None), (__version__, 3)]  # 0.1.0 did not count its deals per session
    assert resumed["sessions"][0]["elapsed_seconds"] == manifest["elapsed_seconds"]


def deal_types(run: Path) -> dict[str, str]:
    """Each chunk file's type of `deal`, read from its footer: decimal128(38, 0) is format 1, int64 format 2."""
    return {part.name: str(pq.read_schema(part).field("deal").type) for part in sorted(run.glob("part-*"))}


def test_a_0_1_0_run_upgraded_by_a_run_killed_half_way_is_finished_by_the_next(tmp_path):
    """Deals 1..9 and two past int64, made a 0.1.0 run; `run` is killed -9 after its first rewritten chunk."""
    out = tmp_path / "run"
    listing = tmp_path / "games.txt"
    listing.write_text(f"{2**63}\n{10**20}\n")
    assert_ok(cli("run", "--range", "1-9", "--deals", listing, "--out", out, "--workers", "1", "--chunk-size", "3"))
    original = {part.name: pq.read_table(part) for part in out.glob("part-*")}
    make_0_1_0_run(out)
    assert set(deal_types(out).values()) == {"decimal128(38, 0)"}
    verified, reported = cli_all([("verify", out), ("report", out, "--format", "json")])  # format 1 reads
    assert verified.stdout.decode().splitlines() == [f"_manifest.json: {OLD_LAYOUT}", f"_run.log: {OLD_LAYOUT}"]
    assert json.loads(assert_ok(reported))["deals"] == 11

    command = ["run", "--range", "1-12", "--out", out, "--workers", "1"]
    victim = subprocess.Popen([str(SCRIPT), *map(str, command)], start_new_session=True,
                              env={**os.environ, **pause_env(tmp_path, **{"upgrade-part": 60})},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_pause(tmp_path, "upgrade-part", victim)
    finally:
        os.killpg(victim.pid, signal.SIGKILL)
        victim.wait()
    assert list(deal_types(out).values()) == ["int64", *["decimal128(38, 0)"] * 3]  # a mix: one rewritten
    assert sorted(os.listdir(out)) == sorted(original)  # 0.1.0's side files moved out first
    assert json.loads(manifest_file(out).read_text())["results_format"] == 1  # said last
    verified, reported = cli_all([("verify", out), ("report", out, "--format", "json")])
    assert verified.returncode == 1
    assert verified.stdout.decode().splitlines() == [
        "part-1-3-3.parquet: results format 2, the manifest's is 1 (an upgrade was interrupted: the next run on "
        "this directory finishes it)", "deals missing: 10-12"]  # recorded before the upgrade began
    assert json.loads(assert_ok(reported))["deals"] == 11

    assert "3 deals solved now" in assert_ok(cli(*command))
    assert assert_ok(cli("verify", out)).startswith("ok: 14 rows")
    assert set(deal_types(out).values()) == {"int64"}
    assert json.loads(manifest_file(out).read_text())["results_format"] == 2
    for name, table in original.items():
        assert pq.read_table(out / name).equals(table), name  # every row as the run first wrote it
    assert reader_rows(out) == dict.fromkeys(["pandas", "pyarrow", "DuckDB", "polars"], 14)


@pytest.mark.parametrize("written_by, words", [
    ("a later format", f"holds results of format 3, newer than this version ({__version__}) reads (format 2)"),
    ("an unknown old version", f"holds a run written by blackhole-stats '0.0.1', whose results format this version "
                               f"({__version__}) does not know"),
])
def test_runs_of_another_results_format_are_refused(run_copy, written_by, words):
    """run refuses them, verify too (it called one of a newer format an interrupted upgrade that the next
    run finishes), and report says so above the figures it reads (it read them without a word)."""
    manifest = json.loads(manifest_file(run_copy).read_text())
    if written_by == "a later format":
        manifest["results_format"] = 3
    else:
        manifest = manifest_of_0_1_0(manifest, manifest["finished"], version="0.0.1")
    manifest_file(run_copy).write_text(json.dumps(manifest))
    before = snapshot(run_copy)
    line = assert_one_line_failure(cli("run", "--range", "1-9", "--out", run_copy), 1)
    assert line == f"Error: {run_copy} {words}: use another --out\n", line
    line = assert_one_line_failure(cli("verify", run_copy), 1)
    assert line == f"Error: {run_copy} {words}: verify it with the version that wrote it\n", line
    warning = f"warning: {run_copy} {words}: its files are read as this version reads its own"
    assert warning in " ".join(assert_ok(cli("report", run_copy)).split())
    assert warning in " ".join(cli("export", run_copy).stderr.decode().split())
    assert snapshot(run_copy) == before


def test_a_run_stopped_while_recording_its_end_is_marked_finished_on_the_next_call(run_copy):
    """Every deal is in but `finished` was never written (a Ctrl-C inside that last write)."""
    manifest = json.loads(manifest_file(run_copy).read_text())
    manifest_file(run_copy).write_text(json.dumps({**manifest, "finished": None}))
    assert "0 deals solved now" in assert_ok(cli("run", "--out", run_copy, "--workers", "1"))
    assert json.loads(manifest_file(run_copy).read_text())["finished"]


def test_a_run_refuses_to_add_rows_beside_files_readers_would_read(run_copy):
    (run_copy / "sub").mkdir()
    shutil.copy(run_copy / "part-1-3-3.parquet", run_copy / "sub" / "part-9-9-1.parquet")
    before = snapshot(run_copy)
    err = assert_one_line_failure(cli("run", "--out", run_copy, "--range", "7"))
    assert "holds sub/" in err and "pandas" in err
    assert snapshot(run_copy) == before
