"""Fix a difficulty scale: the trap score of every STEP-th PySolFC deal of 1..1,000,000 and its quintiles.

    python scripts/difficulty_scale.py --step 50 --out results/difficulty/scale_sample.parquet

writes the sample (deal, score, for each winnable deal) and prints the four
quintile thresholds that `blackhole_stats/difficulty.py` stores as a Scale.
The sample is deals STEP, 2*STEP, ..., so validation deals above 1,000,000
(scripts/validate_difficulty.py) are never among them.
"""
from __future__ import annotations

import argparse
import time
from multiprocessing import Pool

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from blackhole_stats import deal
from blackhole_stats.difficulty import difficulty
from blackhole_stats.solver import Solver

_solver = None


def score(number: int) -> tuple[int, float | None, float]:
    global _solver
    _solver = _solver or Solver()
    board = deal(number)
    started = time.process_time()
    value = difficulty(board, _solver) if _solver.solve(board, most_played=False).solved else None
    return number, value, time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--step", type=int, default=50)
    parser.add_argument("--last", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    with Pool(args.workers) as pool:
        rows = pool.map(score, range(args.step, args.last + 1, args.step), chunksize=50)
    winnable = [(n, s, t) for n, s, t in rows if s is not None]
    pq.write_table(pa.table({"deal": [n for n, _, _ in winnable], "score": [s for _, s, _ in winnable]}),
                   args.out, compression="zstd")
    scores = np.array([s for _, s, _ in winnable])
    cpu = np.array([t for _, _, t in winnable])
    print(f"{len(rows)} deals, {len(scores)} winnable; CPU per winnable deal (solve + score): "
          f"mean {cpu.mean() * 1000:.1f} ms, median {np.median(cpu) * 1000:.1f} ms, max {cpu.max():.2f} s")
    quantiles = np.quantile(scores, [0.2, 0.4, 0.6, 0.8])
    print("quintile thresholds:", ", ".join(f"{q:.4f}" for q in quantiles))
    print("score min/median/max:", f"{scores.min():.4f} {np.median(scores):.4f} {scores.max():.4f}")


if __name__ == "__main__":
    main()
