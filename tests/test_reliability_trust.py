"""What a user can trust: the real CLI in real processes, over real Parquet files.

What it proves:
* `run --range X --out DIR` on a run whose earlier, interrupted range is not
  finished solves every deal the run asks for, says how many it solved, and
  leaves a dataset that `verify` passes: it never ends with exit 0 and a
  summary over a dataset that still misses deals.
"""
from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from conftest import SCRIPT, cli, pause_env, wait_for_pause

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason=f"console script not installed at {SCRIPT}")


def deals_in(out: Path) -> list[int]:
    """The deal numbers stored, with repeats, read by pandas (no package code)."""
    return sorted(map(int, pd.read_parquet(out, columns=["deal"])["deal"]))


def interrupted_run(tmp_path: Path, out: Path, deals: str, pause_at: str) -> None:
    """`run --range DEALS` stopped by Ctrl-C while a worker is paused at `pause_at`, as a user's would be."""
    process = subprocess.Popen([str(SCRIPT), "run", "--range", deals, "--out", str(out), "--workers", "1",
                                "--chunk-size", "10"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True, env={**os.environ, **pause_env(tmp_path, **{pause_at: 120})})
    try:
        wait_for_pause(tmp_path, pause_at, process)
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 130, err


# ------------------------------------------------------------------ a resume finishes the whole run
def test_a_run_given_a_finished_range_finishes_the_older_interrupted_one(tmp_path):
    out = tmp_path / "run"
    interrupted_run(tmp_path, out, "1-40", "deal-25")
    assert deals_in(out) == list(range(1, 21))  # chunks 1-10 and 11-20 finished, the rest not

    result = cli("run", "--range", "1-10", "--out", out)  # 1-10 is done: the run's 21-40 are not
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    assert lines[0].startswith("20 deals solved now in "), lines
    assert lines[2] == f"20 of the run's 40 deals were already done; dataset: {out}", lines
    assert deals_in(out) == list(range(1, 41))
    checked = cli("verify", out)
    assert checked.returncode == 0 and checked.stdout.startswith(b"ok: 40 rows"), checked
