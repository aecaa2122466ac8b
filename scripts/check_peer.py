#!/usr/bin/env python3
"""Check both searches against the peer's verdicts on PySolFC deals 1..1000.

The reference CSV (black-hole-solver 1.14 on boards dealt by pysol-cards)
gives, per deal, the outcome, the states its default mode checked and the
most cards any line plays. `classic` must match all three exactly; `fast`
must match the outcome and the most cards played. Every solution is
replayed. The suite checks a fast subset; this script checks them all
(about two minutes, most of it in `classic`).

    python scripts/check_peer.py [--csv ../shared/reference/peer_1_1000.csv]
"""
from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

from blackhole_stats import Solver, deal

DEFAULT_CSV = Path(__file__).resolve().parents[2] / "shared" / "reference" / "peer_1_1000.csv"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--csv", type=Path, default=DEFAULT_CSV, help="the peer's verdicts")
    parser.add_argument("--skip-classic", action="store_true")
    args = parser.parse_args()
    with args.csv.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    solver = Solver()
    searches = ["fast"] if args.skip_classic else ["fast", "classic"]
    failures = 0
    for search in searches:
        started, mismatches = time.process_time(), []
        for row in rows:
            board = deal(int(row["deal"]))
            result = solver.solve(board, search=search)  # a Solution is a replayed win, or SolutionError
            ours = (result.outcome, result.cards_played)
            peer = (row["outcome"], int(row["max_played"]))
            if search == "classic":
                ours += (result.iterations,)
                peer += (int(row["iterations"]),)
            if ours != peer:
                mismatches.append((row["deal"], peer, ours))
        cpu = time.process_time() - started
        print(f"{search}: {len(rows)} deals, {len(mismatches)} mismatches, {cpu:.1f} CPU-s")
        for mismatch in mismatches[:10]:
            print("  ", mismatch)
        failures += len(mismatches)
    raise SystemExit(1 if failures else 0)


if __name__ == "__main__":
    main()
