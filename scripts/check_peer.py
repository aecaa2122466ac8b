#!/usr/bin/env python3
"""Check both searches against the peer's verdicts on PySolFC deals 1..1000 of a game.

The reference CSV (black-hole-solver 1.14 on boards dealt by pysol-cards)
gives, per deal, the outcome, the states its default mode checked and the
most cards any line plays. `classic` must match all three exactly; `fast`
must match the outcome and the most cards played. Every solution is
replayed. The suite checks a fast subset; this script checks them all
(about two minutes, most of it in `classic`). For the other games of the
family (`--game`) the CSV is family/peer_<game>_1_1000.csv and only `fast`
runs (classic plays Black Hole only).

    python scripts/check_peer.py [--csv ../shared/reference/peer_1_1000.csv]
    python scripts/check_peer.py --game golf
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import argparse
import csv
import os
import time
from pathlib import Path

from blackhole_stats import Solver, deal


SHARED = Path(os.environ.get("BLACKHOLE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
REFERENCE = SHARED / "reference" if (SHARED / "reference").is_dir() else SHARED
"""The reference folder: $BLACKHOLE_SHARED (shared/ or shared/reference), or ../shared beside the checkout."""


def bad_row(row: dict, columns: int) -> str | None:
    """What makes a row of the peer's CSV no verdict to compare with (None if nothing): each was a
    traceback, or (an outcome of 'banana') a mismatch of our search."""
    if None in row or None in row.values():  # (csv.DictReader's: a field past the header's, one short of it)
        return f"{'more' if None in row else 'fewer'} fields than the header's {columns}"
    if not row["deal"].isascii() or not row["deal"].isdigit() or int(row["deal"]) < 1:
        return f"deal {row['deal']!r} is no game number (1, 2, ...)"
    if row["outcome"] not in ("solved", "unsolved"):
        return f"outcome {row['outcome']!r} is neither solved nor unsolved"
    for name in ("iterations", "max_played"):
        if not row[name].isascii() or not row[name].isdigit():
            return f"{name} {row[name]!r} is no count (0, 1, ...)"
    return None


def main() -> None:
    parser = benchlib.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--csv", type=Path, help="the peer's verdicts (default: the game's reference CSV)")
    parser.add_argument("--skip-classic", action="store_true")
    parser.add_argument("--game", type=benchlib.game_type, default="black_hole",
                        help="key, PySolFC id or name (default black_hole)")
    args = parser.parse_args()
    game = args.game
    default = "peer_1_1000.csv" if game.classic_search else f"family/peer_{game.key}_1_1000.csv"
    path = args.csv or REFERENCE / default
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            lines = [(reader.line_num, row) for row in reader]
            columns = reader.fieldnames or ()
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        parser.error(f"cannot read {path}: {getattr(error, 'strerror', None) or error}")
    rows = [row for _, row in lines]
    missing = {"deal", "outcome", "max_played", "iterations"} - set(columns)
    if not rows and not missing:
        parser.error(f"{path} lists no deal")
    if missing:
        parser.error(f"{path} has no column {', '.join(sorted(missing))} (the peer's CSV has deal, outcome, "
                     "iterations and max_played)")
    for line, row in lines:
        problem = bad_row(row, len(columns))
        if problem is not None:
            parser.error(f"{path}, line {line}: {problem}")
    repeated = len(rows) - len({int(row["deal"]) for row in rows})
    if repeated:
        parser.error(f"{path} lists {repeated} deal(s) twice")
    solver = Solver()
    searches = ["fast"] if args.skip_classic or not game.classic_search else ["fast", "classic"]
    failures = 0
    for search in searches:
        started, mismatches = time.process_time(), []
        for row in rows:
            board = deal(int(row["deal"]), game)
            result = solver.solve(board, search=search)  # a Solution is a replayed win, or SolutionError
            # The most cards played is compared where it is defined: a win ends the peer's count
            # wherever its search stood (in Golf, with talon cards left).
            unsolved = row["outcome"] == "unsolved"
            ours = (result.outcome, result.cards_played if unsolved else None)
            peer = (row["outcome"], int(row["max_played"]) if unsolved else None)
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
    benchlib.run_script(main)
