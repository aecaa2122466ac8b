#!/usr/bin/env python3
"""Benchmark: `blackhole-stats run` with 1 and 2 workers over the same deals, in one invocation.

Prints deals per second for each, the speed-up and the parallel efficiency,
and the pipeline's overhead per deal: the worker time not spent inside the
solver, (workers x wall - solver seconds) / deals, which covers dealing,
turning solutions into text, Parquet, process start-up and the last chunks'
imbalance. A first line measures the same overhead without any pool: one
`solve_chunk` call per chunk in this process (dealing, rows, Parquet only).

    python scripts/bench_run.py                    # deals 1-4000, fast search
    python scripts/bench_run.py --range 1-20000 --chunk-size 1000
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from blackhole_stats.deals import DealSet
from blackhole_stats.runner import DEFAULT_CHUNK_SIZE, ChunkTask, run, solve_chunk


def in_process(deals: DealSet, chunk_size: int, search: str, out: Path) -> tuple[float, float]:
    """(wall, solver seconds) of solving every chunk right here, without a pool."""
    out.mkdir()
    solver_seconds = 0.0
    started = time.perf_counter()
    for chunk in deals.chunks(chunk_size):
        solver_seconds += solve_chunk(ChunkTask(chunk, str(out), search, None)).solver_seconds
    return time.perf_counter() - started, solver_seconds


def describe(label: str, count: int, wall: float, solver: float, workers: int) -> str:
    overhead = (workers * wall - solver) / count
    return (f"{label:<20} {count / wall:8.1f} deals/s   solver {solver / count * 1e6:7.1f} us/deal   "
            f"overhead {overhead * 1e6:6.1f} us/deal")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--range", dest="ranges", default="1-4000",
                        help="deals, as for run --range (default 1-4000)")
    parser.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK_SIZE // 2,
                        help=f"deals per chunk (default {DEFAULT_CHUNK_SIZE // 2}: several per worker)")
    parser.add_argument("--search", choices=("fast", "classic"), default="fast")
    args = parser.parse_args()
    deals = DealSet.parse([args.ranges])
    count = deals.count
    print(f"deals {deals} ({count:,}), chunks of {args.chunk_size}, search {args.search}")
    with tempfile.TemporaryDirectory() as scratch:
        wall, solver = in_process(deals, args.chunk_size, args.search, Path(scratch) / "in-process")
        print(describe("in process, no pool", count, wall, solver, 1))
        rates = {}
        for workers in (1, 2):
            summary = run(str(Path(scratch) / f"workers-{workers}"), deals, search=args.search,
                          workers=workers, chunk_size=args.chunk_size)
            rates[workers] = count / summary.seconds
            print(describe(f"{workers} worker(s)", count, summary.seconds, summary.solver_seconds, workers))
    speedup = rates[2] / rates[1]
    print(f"speed-up with 2 workers: {speedup:.2f}x, parallel efficiency {speedup / 2:.0%}")


if __name__ == "__main__":
    main()
