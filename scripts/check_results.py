#!/usr/bin/env python3
"""Solve every deal of a committed per-deal dataset again and compare: outcome and cards played.

A change to the fast search must not change a single verdict or "most cards
played" figure. `check_peer.py` compares with the peer on deals 1..1000;
this script compares the installed solver with a dataset made earlier (by
default `results/deals.parquet`, PySolFC Black Hole deals 1..1,000,000), deal
for deal, in worker processes. Iteration counts are the search's own effort
and may change with it: the script counts the deals whose count differs and
prints both totals, but only outcome and cards_played decide. Deals are
solved again as the rows were: with the search and `--max-iters` of the
run's manifest, or else of the settings its files record, or else (a CSV,
files of earlier versions) of `--search` and `--max-iters` (default: the
fast search without a limit), and as the game the rows or their settings
name (else `--game`, else Black Hole, said on stderr). Exit status 1 on
any mismatch (each one is listed); 2 for a dataset that cannot be read.

    nice -n 19 python scripts/check_results.py                       # all of results/deals.parquet
    python scripts/check_results.py --limit 20000 --jobs 2
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import argparse
import json
import resource
import sys
import time
from functools import partial
from pathlib import Path

import pandas as pd

from blackhole_stats import _testhooks
from blackhole_stats.dataset import DatasetError, data_files, read_manifest
from blackhole_stats.dealing import GameNumber
from blackhole_stats.report import RUN_SETTINGS, game_of, load, names_no_game
from blackhole_stats.solver import SEARCHES, Solver, check_search


BLOCK = 5000
"""Deals per task."""
STUDY = Path(__file__).resolve().parents[1] / "results" / "deals.parquet"
"""The default dataset: the Black Hole study's compact rows, PySolFC deals 1..1,000,000."""

_solver: Solver | None = None


def solve_one(deal: tuple[int, bool], search: str, max_iters: int | None, game: str
              ) -> tuple[str, int, int | None]:
    """(outcome, iterations, cards_played) of a (number, ms) of `game`."""
    global _solver
    if _solver is None:
        _solver = Solver()
    number = GameNumber(deal[0], deal[1])
    _testhooks.pause(f"deal-{number}")
    row = _solver.solve_deal(number, search, max_iters, game)
    return row["outcome"], row["iterations"], row["cards_played"]


def solved_with(dataset: Path, data, given: dict) -> tuple[str, int | None, dict | None]:
    """The search and max_iters the rows were solved with (see the module's docstring), and the settings
    that say so (the manifest, or those the files record; None if none); `given`: the options' values,
    for a dataset that records none."""
    manifest = read_manifest(str(dataset)) if dataset.is_dir() else None
    recorded = data.attrs.get(RUN_SETTINGS, {})
    if manifest is None and recorded:
        _, _, files, _ = data_files(str(dataset))
        if None in recorded.values() or len(set(recorded.values())) > 1 or len(recorded) < len(files):
            raise DatasetError(f"{dataset}: its files record damaged, different or no run settings "
                               f"(blackhole-stats report {dataset} says which): check one run at a time")
        manifest = json.loads(next(iter(recorded.values())))
    if manifest is None:
        return given["search"] or "fast", given["max_iters"], None
    if any(value is not None for value in given.values()):
        raise DatasetError(f"{dataset} records the settings it was solved with: --search and --max-iters are "
                           "for a dataset that does not (a CSV)")
    return manifest.get("search", "fast"), manifest.get("max_iters"), manifest


def _worker_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = benchlib.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", nargs="?", type=Path, default=STUDY, help="a Parquet file or CSV, or a run "
                        "directory (default: the checkout's results/deals.parquet)")
    parser.add_argument("--limit", type=benchlib.positive, help="only the first N deals (by number)")
    parser.add_argument("--jobs", type=benchlib.positive, default=1, help="worker processes (default 1)")
    parser.add_argument("--search", choices=SEARCHES, help="how a dataset that records no settings was solved")
    parser.add_argument("--max-iters", type=benchlib.iteration_budget,
                        help="the budget a dataset that records no settings had")
    parser.add_argument("--game", type=benchlib.game_type,
                        help="the game of a dataset that names none (a CSV; default Black Hole, said on stderr)")
    args = parser.parse_args()
    try:
        data = load(str(args.dataset))  # the one reader: run directories, CSVs, deal_exact, checked bytes
        search, max_iters, manifest = solved_with(args.dataset, data, {"search": args.search,
                                                                       "max_iters": args.max_iters})
        game = game_of(data, str(args.dataset), manifest, given=args.game)  # as `report` takes it
    except DatasetError as error:
        parser.error(str(error))
    if not len(data):  # (it said "0 deals, 0 mismatches" and passed)
        parser.error(f"{args.dataset} holds no deal: nothing to check")
    repeated = data[data.duplicated(["ms", "deal"])]
    if len(repeated):  # (counted as two deals, or as a mismatch of the solver's)
        parser.error(f"{args.dataset}: deal {GameNumber(int(repeated['deal'].iloc[0]), bool(repeated['ms'].iloc[0]))} "
                     "is listed more than once: check one copy of each deal")
    if args.game is None and names_no_game(data, manifest):  # (another game's rows gave "mismatches")
        print(f"note: {args.dataset} does not say which game its deals are of; solved as {game.name} "
              "(--game names it)", file=sys.stderr)
    try:
        check_search(search, game)  # before any worker starts: one line, not their tracebacks
    except ValueError as error:
        parser.error(str(error))
    if args.limit is not None:
        data = data.head(args.limit)
    played = [None if value is pd.NA else int(value) for value in data["cards_played"]]
    stored = list(zip(data["deal"], data["ms"], data["outcome"].astype(str), data["iterations"], played))
    started = time.perf_counter()
    found = benchlib.pool_map(partial(solve_one, search=search, max_iters=max_iters, game=game.key),
                              [(int(deal), bool(ms)) for deal, ms, *_ in stored], args.jobs, chunksize=BLOCK)
    mismatches = differing_counts = 0
    ours_total = theirs_total = 0
    for (deal, ms, outcome, iterations, played), (our_outcome, our_iterations, our_played) in zip(stored, found):
        ours_total += our_iterations
        theirs_total += iterations
        differing_counts += our_iterations != iterations
        if (our_outcome, our_played) != (outcome, played):
            mismatches += 1
            print(f"deal {GameNumber(deal, ms)} ({game.key}): stored {outcome}, {played} cards; now {our_outcome}, {our_played} cards")
    checked = f"{len(stored):,} deal" + "s" * (len(stored) != 1)
    print(f"{args.dataset}: {checked}, {mismatches} mismatches in outcome or cards_played; "
          f"iterations differ on {differing_counts:,} deals (total now {ours_total:,}, stored {theirs_total:,}); "
          f"solved again with the {search} search, max_iters {max_iters or 'no limit'}; "
          f"{time.perf_counter() - started:.0f} s, {_worker_cpu():.0f} CPU-s in the workers")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    benchlib.run_script(main)
