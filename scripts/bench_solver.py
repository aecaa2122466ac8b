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
Black Hole deals 1..1000 on the AMD EPYC machine kind this project first had
(../shared/reference/README.md; that CSV has no per-deal times, so other
ranges print no ratio). For the other games the baseline is the sum of the
peer's per-deal CPU seconds in ../shared/reference/family/peer_<game>_1_1000.csv
over the deals timed (measured on a busy machine of that kind: an upper bound).
So on another CPU the ratio compares two machines; the summary records which
this one is.

    python scripts/bench_solver.py                  # fast, deals 1..1000, 5 repeats
    python scripts/bench_solver.py --classic        # and classic (about 25 minutes)
    python scripts/bench_solver.py --deals 1-200 --repeats 7
    python scripts/bench_solver.py --game golf      # any game of the family (key, PySolFC id or name)
    python scripts/bench_solver.py --game all_in_a_row --by-outcome   # and where the time goes, against the peer
    python scripts/bench_solver.py --summary results/bench/solver.json   # what README's Speed quotes
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import csv
import os
import statistics
import time
from pathlib import Path
from typing import Callable

from blackhole_stats import _core
from blackhole_stats.dealing import deal
from blackhole_stats.games import BLACK_HOLE, Game
from blackhole_stats.solver import OUTCOMES, SEARCHES, Solver


PEER_CPU_SECONDS_1_1000 = 357.0
"""black-hole-solver 1.14, default mode, Black Hole deals 1..1000 (../shared/reference/README.md)."""
FAMILY_CSVS = Path(os.environ.get("BLACKHOLE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
"""The shared folder (or $BLACKHOLE_SHARED): reference/family/peer_<game>_1_1000.csv under it."""
BLOCK = 50
"""Deals per interleaved block."""


def peer_rows(game: Game, numbers: range) -> dict[int, dict] | None:
    """The peer's row (outcome, max_played, cpu_seconds, ...) of every deal here, where its CSV has them all
    (the family's games; Black Hole's CSV has no seconds)."""
    for folder in (FAMILY_CSVS / "reference" / "family", FAMILY_CSVS / "family"):
        path = folder / f"peer_{game.key}_1_1000.csv"
        if path.is_file():
            with path.open(newline="") as handle:
                rows = {int(row["deal"]): row for row in csv.DictReader(handle)}
            return {n: rows[n] for n in numbers} if all(n in rows for n in numbers) else None
    return None


def peer_seconds(game: Game, numbers: range) -> float | None:
    """The peer's CPU seconds on these deals, if known."""
    if game is BLACK_HOLE:
        return PEER_CPU_SECONDS_1_1000 if (numbers.start, numbers.stop) == (1, 1001) else None
    rows = peer_rows(game, numbers)
    return None if rows is None else sum(float(row["cpu_seconds"]) for row in rows.values())


def by_outcome(numbers: range, game: Game, repeats: int) -> None:
    """The raw C search's seconds per deal (the least of `repeats`), summed by the peer's outcome and, for
    unsolved deals, by the most cards it says a line plays (the three highest counts, then the rest), beside
    the peer's seconds for the same deals: which deals keep the ratio down."""
    rows = peer_rows(game, numbers)  # (main checked that the peer's CSV has every deal)
    core = _core.Solver()
    inputs = {number: (board.solver_input(), board.solver_rules())
              for number, board in ((number, deal(number, game)) for number in numbers)}
    ours = dict.fromkeys(numbers, float("inf"))
    for _ in range(repeats):
        for number, (given, rules) in inputs.items():
            started = time.process_time()
            core.solve(*given, 0, **rules)
            ours[number] = min(ours[number], time.process_time() - started)
    top = sorted({int(row["max_played"]) for row in rows.values() if row["outcome"] != "solved"}, reverse=True)[:3]

    def kind(row: dict) -> str:
        if row["outcome"] == "solved":
            return "solved"
        played = int(row["max_played"])
        return f"unsolved, at most {played} played" if played in top else f"unsolved, fewer than {top[-1]}"

    classes: dict[str, list[int]] = {}
    for number in sorted(numbers, key=lambda n: (rows[n]["outcome"] != "solved", -int(rows[n]["max_played"]))):
        classes.setdefault(kind(rows[number]), []).append(number)
    print(f"\nraw C search by the peer's outcome (CPU seconds, the least of {repeats} per deal):")
    print(f"  {'deals of the class':<34} {'deals':>6} {'peer':>9} {'this':>9} {'peer/this':>10}")
    for name, members in classes.items():
        peer, this = sum(float(rows[n]["cpu_seconds"]) for n in members), sum(ours[n] for n in members)
        print(f"  {name:<34} {len(members):>6} {peer:9.3f} {this:9.3f} {peer / this if this else 0:9.0f}x")
    peer, this = sum(float(row["cpu_seconds"]) for row in rows.values()), sum(ours.values())
    print(f"  {'all':<34} {len(numbers):>6} {peer:9.3f} {this:9.3f} {peer / this if this else 0:9.0f}x")


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


def summary(numbers: range, totals: dict[str, list[float]], verdicts: list, game: Game) -> dict:
    """One search's figures: per measure the median, min and max CPU seconds, deals/s and the peer's ratio."""
    count = len(numbers)
    peer = peer_seconds(game, numbers)
    iterations = [its for _, its in verdicts]
    return {
        "peer_seconds": peer,
        "measures": [{"name": name, "median": statistics.median(values), "min": min(values), "max": max(values),
                      "deals_per_second": count / statistics.median(values),
                      "peer_ratio": peer / statistics.median(values) if peer else None}
                     for name, values in totals.items()],
        "iterations": {"mean": statistics.mean(iterations), "median": statistics.median(iterations),
                       "max": max(iterations)},
        "solved": sum(outcome == OUTCOMES.index("solved") for outcome, _ in verdicts),
    }


def report(numbers: range, search: str, figures: dict, repeats: int) -> None:
    count, peer = len(numbers), figures["peer_seconds"]
    print(f"\nsearch {search}: CPU seconds for {count} deals, median of {repeats} repeats [min..max]"
          + (f"; the peer's: {peer:.1f}" if peer else ""))
    for measure in figures["measures"]:
        ratio = measure["peer_ratio"]
        versus = f"   peer/this {ratio:{'6.0f' if ratio >= 10 else '6.1f'}}x" if ratio else ""
        print(f"  {measure['name']:<38} {measure['median']:8.3f} [{measure['min']:.3f}..{measure['max']:.3f}]  "
              f"{measure['median'] / count * 1e3:7.3f} ms/deal  {measure['deals_per_second']:8.0f} deals/s{versus}")
    iterations = figures["iterations"]
    print(f"  iterations/deal mean {iterations['mean']:,.0f}, median {iterations['median']:,.0f}, "
          f"max {iterations['max']:,}; solved {figures['solved']}/{count}")


def main() -> None:
    parser = benchlib.parser(__doc__, game=True)
    parser.add_argument("--deals", default="1-1000", help="inclusive range FIRST-LAST (default 1-1000)")
    parser.add_argument("--classic", action="store_true", help="also time the classic search (slow; Black Hole only)")
    parser.add_argument("--by-outcome", action="store_true",
                        help="also time each deal and sum by the peer's outcome and most cards played (family games)")
    args = benchlib.parse(parser)
    game = args.game
    if args.classic and not game.classic_search:
        parser.error(f"--classic times the peer's Black Hole search; {game.name} has only the fast search")
    numbers = benchlib.deal_range(args.deals, parser)
    if args.by_outcome and peer_rows(game, numbers) is None:
        parser.error("--by-outcome needs the peer's seconds of every deal timed, which only the family's CSVs "
                     "have (deals 1..1000)")
    first, last = numbers.start, numbers.stop - 1
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    load = benchlib.load_average()
    print(f"PySolFC {game.name} deals {first}..{last}, one core, {args.repeats} repeats interleaved in blocks of "
          f"{BLOCK}; {benchlib.shown_load(load)}")
    results, outcomes = {}, {}
    for search in ("fast", "classic") if args.classic else ("fast",):
        totals, verdicts = bench(numbers, search, args.repeats, game)
        results[search] = summary(numbers, totals, verdicts, game)
        report(numbers, search, results[search], args.repeats)
        outcomes[search] = [outcome for outcome, _ in verdicts]
    if args.by_outcome:
        by_outcome(numbers, game, args.repeats)
    if args.classic:
        if outcomes["fast"] != outcomes["classic"]:
            raise SystemExit("verdicts differ between fast and classic!")
        ratio = results["classic"]["measures"][0]["median"] / results["fast"]["measures"][0]["median"]
        print(f"\nraw C search: fast is {ratio:.0f}x faster than classic (same verdicts on every deal)")
    benchlib.write_summary(
        args.summary, "bench_solver.py",
        ["--deals", args.deals, "--repeats", str(args.repeats), "--game", game.key]
        + (["--classic"] if args.classic else []),
        load, game=game.key, deals=args.deals, repeats=args.repeats, cpu_seconds_of="this process, on one core",
        searches=results)


if __name__ == "__main__":
    benchlib.run_script(main)
