#!/usr/bin/env python3
"""Benchmark: `classic` vs `fast` on PySolFC deals 1..1000, one core, same run.

Prints CPU seconds (dealing included), deals per second, iterations per deal
for each search, and the ratio between them. The peer solver
(black-hole-solver 1.14) needs 357 CPU-seconds for the same 1000 deals on
this project's reference machine; that figure is printed for scale, but the
comparable figure is the ratio measured here.

    python scripts/bench_solver.py                # both searches, deals 1..1000
    python scripts/bench_solver.py --deals 1-200  # a quicker look
    python scripts/bench_solver.py --skip-classic
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

from blackhole_stats.board import NUM_PILES, PILE_SIZE, RANK_OF_ID
from blackhole_stats.dealing import GameNumber, deal_card_ids
from blackhole_stats.solver import OUTCOMES, Solver

PEER_CPU_SECONDS_1_1000 = 357.0
FULL_HEIGHTS = bytes([PILE_SIZE] * NUM_PILES)


def run(search: str, numbers: range, most_played: bool) -> dict:
    solver = Solver()
    iterations, outcomes = [], []
    started = time.process_time()
    for number in numbers:
        ranks = deal_card_ids(GameNumber(number)).translate(RANK_OF_ID)
        outcome, count, _, _ = solver.solve_raw(ranks, FULL_HEIGHTS, 0, search=search,
                                                most_played=most_played)
        iterations.append(count)
        outcomes.append(OUTCOMES[outcome])
    cpu = time.process_time() - started
    return {"search": search, "cpu": cpu, "iterations": iterations, "outcomes": outcomes,
            "memory": solver.memory_bytes}


def describe(result: dict, count: int) -> str:
    solved = result["outcomes"].count("solved")
    its = result["iterations"]
    return (f"{result['search']:>8}: {result['cpu']:8.2f} CPU-s  {count / result['cpu']:9.1f} deals/s  "
            f"{result['cpu'] / count * 1000:8.3f} ms/deal  iterations/deal mean {statistics.mean(its):,.0f} "
            f"median {statistics.median(its):,.0f} max {max(its):,}  solved {solved}/{count}  "
            f"tables {result['memory'] / 2**20:.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", default="1-1000", help="inclusive range FIRST-LAST (default 1-1000)")
    parser.add_argument("--skip-classic", action="store_true", help="time only the fast search")
    parser.add_argument("--no-most-played", action="store_true",
                        help="fast search: skip the exact most-cards-played search for unsolvable deals")
    args = parser.parse_args()
    first, last = (int(part) for part in args.deals.split("-"))
    numbers = range(first, last + 1)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    print(f"PySolFC deals {first}..{last}, one core, dealing included")
    fast = run("fast", numbers, not args.no_most_played)
    print(describe(fast, len(numbers)))
    if args.skip_classic:
        return
    classic = run("classic", numbers, True)
    print(describe(classic, len(numbers)))
    if fast["outcomes"] != classic["outcomes"]:
        raise SystemExit("verdicts differ between fast and classic!")
    print(f"fast is {classic['cpu'] / fast['cpu']:.0f}x faster than classic (same verdicts on all deals)")
    if (first, last) == (1, 1000):
        print(f"peer (black-hole-solver 1.14, default mode) on the reference machine: "
              f"{PEER_CPU_SECONDS_1_1000:.0f} CPU-s -> fast is {PEER_CPU_SECONDS_1_1000 / fast['cpu']:.0f}x that, "
              f"classic {PEER_CPU_SECONDS_1_1000 / classic['cpu']:.1f}x")


if __name__ == "__main__":
    main()
