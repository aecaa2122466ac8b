#!/usr/bin/env python3
"""Solve every deal of a committed per-deal dataset again and compare: outcome and cards played.

A change to the fast search must not change a single verdict or "most cards
played" figure. `check_peer.py` compares with the peer on deals 1..1000;
this script compares the installed solver with a dataset made earlier (by
default `results/deals.parquet`, PySolFC Black Hole deals 1..1,000,000), deal
for deal, in worker processes. Iteration counts are the search's own effort
and may change with it: the script counts the deals whose count differs and
prints both totals, but only outcome and cards_played decide. Exit status 1
on any mismatch (each one is listed).

    nice -n 19 python scripts/check_results.py                       # all of results/deals.parquet
    python scripts/check_results.py --limit 20000 --jobs 2
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pyarrow.parquet as pq

from blackhole_stats.dealing import GameNumber
from blackhole_stats.solver import Solver

BLOCK = 5000
"""Deals per task."""

_solver: Solver | None = None


def solve_block(block: list[tuple[int, bool, str | None]]) -> list[tuple[str, int, int | None]]:
    """(outcome, iterations, cards_played) for each (deal, ms, game) of the block."""
    global _solver
    if _solver is None:
        _solver = Solver()
    rows = (_solver.solve_deal(GameNumber(deal, ms), game=game) for deal, ms, game in block)
    return [(row["outcome"], row["iterations"], row["cards_played"]) for row in rows]


def _worker_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", nargs="?", type=Path, default=Path("results/deals.parquet"),
                        help="a Parquet file or run directory (default results/deals.parquet)")
    parser.add_argument("--limit", type=int, help="only the first N rows")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    args = parser.parse_args()
    table = pq.read_table(args.dataset)
    if args.limit is not None:
        table = table.slice(0, args.limit)
    names = set(table.column_names)
    games = table.column("game").to_pylist() if "game" in names else [None] * table.num_rows
    deals = (table.column("deal_exact").to_pylist() if "deal_exact" in names
             else [None] * table.num_rows)
    deals = [int(exact) if exact is not None else deal
             for exact, deal in zip(deals, table.column("deal").to_pylist())]
    stored = list(zip(deals, table.column("ms").to_pylist(), games, table.column("outcome").to_pylist(),
                      table.column("iterations").to_pylist(), table.column("cards_played").to_pylist()))
    blocks = [[(deal, ms, game) for deal, ms, game, *_ in stored[i:i + BLOCK]]
              for i in range(0, len(stored), BLOCK)]
    started = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        found = [row for block in pool.map(solve_block, blocks) for row in block]
    mismatches = differing_counts = 0
    ours_total = theirs_total = 0
    for (deal, ms, game, outcome, iterations, played), (our_outcome, our_iterations, our_played) in zip(stored, found):
        ours_total += our_iterations
        theirs_total += iterations
        differing_counts += our_iterations != iterations
        if (our_outcome, our_played) != (outcome, played):
            mismatches += 1
            name = str(GameNumber(deal, ms)) + (f" ({game})" if game else "")
            print(f"deal {name}: stored {outcome}, {played} cards; now {our_outcome}, {our_played} cards")
    print(f"{args.dataset}: {len(stored):,} deals, {mismatches} mismatches in outcome or cards_played; "
          f"iterations differ on {differing_counts:,} deals (total now {ours_total:,}, stored {theirs_total:,}); "
          f"{time.perf_counter() - started:.0f} s, {_worker_cpu():.0f} CPU-s in the workers")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
