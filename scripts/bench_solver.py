#!/usr/bin/env python3
"""Benchmark the solver three ways on PySolFC deals 1..1000 of a game, interleaved, and compare with the peer.

What is timed, in CPU seconds of this process (`time.process_time`), on one core:

* raw C search: the compiled search alone (`_core.Solver.solve` on ranks
  prepared before the clock starts), what the peer's figure is comparable to;
* Solver.solve: the API on boards dealt before the clock starts: the search,
  the solution replayed in C, the Python objects;
* Solver.solve_deal: what a run does for every deal: deal the game number,
  solve, and build the dataset row (the solution as text). A run adds only
  Parquet and scheduling to this (`scripts/bench_run.py`).

The three are interleaved in blocks of deals (the order rotating from block to
block) and repeated, so that a shared machine's load falls on all of them
alike; each figure is the median of the repeats' totals, with their range.
The peer (black-hole-solver 1.14, default mode) needed 357 CPU-seconds for
Black Hole deals 1..1000 on this project's machine kind
(../shared/reference/README.md; that CSV has no per-deal times, so other
ranges print no ratio). For the other games the baseline is the sum of the
peer's per-deal CPU seconds in ../shared/reference/family/peer_<game>_1_1000.csv
over the deals timed (measured on a busy machine: an upper bound).

    python scripts/bench_solver.py                  # fast, deals 1..1000, 5 repeats
    python scripts/bench_solver.py --classic        # and classic (about 25 minutes)
    python scripts/bench_solver.py --deals 1-200 --repeats 7
    python scripts/bench_solver.py --game golf      # any game of the family (key, PySolFC id or name)
"""
from __future__ import annotations

import argparse
import csv
import os
import statistics
import time
from pathlib import Path
from typing import Callable

from blackhole_stats import _core
from blackhole_stats.dealing import deal
from blackhole_stats.games import BLACK_HOLE, Game, UnknownGameError, get_game
from blackhole_stats.solver import OUTCOMES, SEARCHES, Solver

PEER_CPU_SECONDS_1_1000 = 357.0
"""black-hole-solver 1.14, default mode, Black Hole deals 1..1000 (../shared/reference/README.md)."""
FAMILY_CSVS = Path(os.environ.get("BLACKHOLE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
"""The shared folder (or $BLACKHOLE_SHARED): reference/family/peer_<game>_1_1000.csv under it."""
BLOCK = 50
"""Deals per interleaved block."""
MIN_REPEATS = 5


def peer_seconds(game: Game, numbers: range) -> float | None:
    """The peer's CPU seconds on these deals, if known."""
    if game is BLACK_HOLE:
        return PEER_CPU_SECONDS_1_1000 if (numbers.start, numbers.stop) == (1, 1001) else None
    for folder in (FAMILY_CSVS / "reference" / "family", FAMILY_CSVS / "family"):
        path = folder / f"peer_{game.key}_1_1000.csv"
        if path.is_file():
            with path.open(newline="") as handle:
                seconds = {int(row["deal"]): float(row["cpu_seconds"]) for row in csv.DictReader(handle)}
            return sum(seconds[n] for n in numbers) if all(n in seconds for n in numbers) else None
    return None


def measures(numbers: range, search: str, game: Game) -> dict[str, Callable[[range], list]]:
    """What is timed: each takes a block of deal numbers and returns (outcome, iterations) per deal."""
    core, api, runs = _core.Solver(), Solver(), Solver()
    boards = {number: deal(number, game) for number in numbers}
    inputs = {number: (board.solver_input(), board.solver_rules()) for number, board in boards.items()}
    index = SEARCHES.index(search)

    def raw(block: range) -> list:
        return [core.solve(*inputs[number][0], index, **inputs[number][1])[:2] for number in block]

    def solve(block: range) -> list:
        return [(OUTCOMES.index(result.outcome), result.iterations)
                for result in (api.solve(boards[number], search) for number in block)]

    def solve_deal(block: range) -> list:
        return [(OUTCOMES.index(row["outcome"]), row["iterations"])
                for row in (runs.solve_deal(number, search, game=game) for number in block)]

    return {"raw C search (_core.Solver.solve)": raw, "Solver.solve(board) (the API)": solve,
            "Solver.solve_deal(n) (what runs do)": solve_deal}


def bench(numbers: range, search: str, repeats: int, game: Game) -> tuple[dict[str, list[float]], list]:
    """CPU seconds per repeat of each measure, and the (outcome, iterations) of every deal."""
    timed = measures(numbers, search, game)
    totals: dict[str, list[float]] = {name: [] for name in timed}
    verdicts = None
    blocks = [numbers[start:start + BLOCK] for start in range(0, len(numbers), BLOCK)]
    for _ in range(repeats):
        spent = dict.fromkeys(timed, 0.0)
        found: dict[str, list] = {name: [] for name in timed}
        for turn, block in enumerate(blocks):
            names = list(timed)
            for name in names[turn % len(names):] + names[:turn % len(names)]:
                started = time.process_time()
                found[name] += timed[name](block)
                spent[name] += time.process_time() - started
        if len({tuple(values) for values in found.values()}) != 1:
            raise SystemExit("the three ways disagree on a verdict or an iteration count")
        verdicts = next(iter(found.values()))
        for name in timed:
            totals[name].append(spent[name])
    return totals, verdicts


def report(numbers: range, search: str, totals: dict[str, list[float]], verdicts: list, game: Game) -> None:
    count = len(numbers)
    peer = peer_seconds(game, numbers)
    print(f"\nsearch {search}: CPU seconds for {count} deals, median of {len(next(iter(totals.values())))} "
          f"repeats [min..max]" + (f"; the peer's: {peer:.1f}" if peer else ""))
    for name, values in totals.items():
        median = statistics.median(values)
        versus = f"   peer/this {peer / median:{'6.0f' if peer / median >= 10 else '6.1f'}}x" if peer else ""
        print(f"  {name:<38} {median:8.3f} [{min(values):.3f}..{max(values):.3f}]  "
              f"{median / count * 1e3:7.3f} ms/deal  {count / median:8.0f} deals/s{versus}")
    iterations = [its for _, its in verdicts]
    solved = sum(outcome == OUTCOMES.index("solved") for outcome, _ in verdicts)
    print(f"  iterations/deal mean {statistics.mean(iterations):,.0f}, median {statistics.median(iterations):,.0f}, "
          f"max {max(iterations):,}; solved {solved}/{count}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", default="1-1000", help="inclusive range FIRST-LAST (default 1-1000)")
    parser.add_argument("--repeats", type=int, default=MIN_REPEATS, help=f"at least {MIN_REPEATS} (default)")
    parser.add_argument("--classic", action="store_true", help="also time the classic search (slow; Black Hole only)")
    parser.add_argument("--game", default=BLACK_HOLE.key, help="the game: key, PySolFC id or name (default black_hole)")
    args = parser.parse_args()
    if args.repeats < MIN_REPEATS:
        parser.error(f"--repeats must be at least {MIN_REPEATS}: a median of fewer runs does not reproduce")
    try:
        game = get_game(args.game)
    except UnknownGameError as error:
        parser.error(str(error))
    if args.classic and not game.classic_search:
        parser.error(f"--classic times the peer's Black Hole search; {game.name} has only the fast search")
    first, last = (int(part) for part in args.deals.split("-"))
    numbers = range(first, last + 1)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    load = f"; load average {os.getloadavg()[0]:.1f} at the start" if hasattr(os, "getloadavg") else ""
    print(f"PySolFC {game.name} deals {first}..{last}, one core, {args.repeats} repeats interleaved in blocks of "
          f"{BLOCK}{load}")
    results = {}
    for search in ("fast", "classic") if args.classic else ("fast",):
        totals, verdicts = bench(numbers, search, args.repeats, game)
        report(numbers, search, totals, verdicts, game)
        results[search] = (totals, verdicts)
    if args.classic:
        if [outcome for outcome, _ in results["fast"][1]] != [outcome for outcome, _ in results["classic"][1]]:
            raise SystemExit("verdicts differ between fast and classic!")
        ratio = (statistics.median(next(iter(results["classic"][0].values())))
                 / statistics.median(next(iter(results["fast"][0].values()))))
        print(f"\nraw C search: fast is {ratio:.0f}x faster than classic (same verdicts on every deal)")


if __name__ == "__main__":
    main()
