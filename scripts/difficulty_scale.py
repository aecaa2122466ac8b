"""Fix a game's difficulty scale: the trap score of every STEP-th PySolFC deal of 1..1,000,000 and its quintiles.

    python scripts/difficulty_scale.py --game golf --step 200

writes `results/difficulty/GAME/scale_sample.parquet` (deal, score, for each
winnable deal of the sample) and `scale.json` (the sample, its four quintile
thresholds, which `blackhole_stats/difficulty.py` stores as the game's Scale,
and what the score costs per deal), and prints them. The sample is deals
STEP, 2*STEP, ..., so the validation deals above 1,000,000
(scripts/validate_difficulty.py) are never among them.

The cost is CPU time in the worker (time.process_time) per deal: the solve
`run` does anyway, and the score `run --difficulty` adds for a winnable deal.
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import argparse
import json
import os
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from blackhole_stats import deal
from blackhole_stats.atomic import replace_text, replacing
from blackhole_stats.difficulty import TAGS, difficulty
from blackhole_stats.games import get_game
from blackhole_stats.solver import Solver
from validate_difficulty import VALIDATION


_solver = None


def score(number: int, game: str) -> tuple[int, float | None, float, float]:
    """(deal, score or None if not winnable, CPU seconds of the solve, of the score)."""
    global _solver
    _solver = _solver or Solver()
    board = deal(number, get_game(game))
    started = time.process_time()
    solved = _solver.solve(board, most_played=False).solved
    solving = time.process_time() - started
    value = difficulty(board, _solver) if solved else None
    return number, value, solving, time.process_time() - started - solving


QUINTILES = len(TAGS)
"""The scale's tags, and the fewest winnable deals a sample must hold to fix their thresholds."""
SAMPLED_UP_TO = min(validation.first for validation in VALIDATION.values()) - 1
"""The sample's deals end below every game's validation deals (scripts/validate_difficulty.py)."""


def main() -> None:
    parser = benchlib.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", type=benchlib.game_type, default="black_hole",
                        help="a game key (default: %(default)s)")
    parser.add_argument("--step", type=benchlib.positive, default=200, help="every STEP-th deal (default 200)")
    parser.add_argument("--last", type=benchlib.positive, default=SAMPLED_UP_TO,
                        help=f"the last deal sampled (default and most {SAMPLED_UP_TO:,})")
    parser.add_argument("--workers", type=benchlib.positive, default=2)
    parser.add_argument("--results", default="results/difficulty", help="the game's folder goes here")
    args = parser.parse_args()
    game = args.game
    if args.last > SAMPLED_UP_TO:  # (it took them: a scale fixed on deals that then validated it)
        parser.error(f"--last {args.last:,}: the scale's deals end at {SAMPLED_UP_TO:,}; those above are "
                     "validate_difficulty.py's")
    if args.last < args.step:
        parser.error(f"--last {args.last} is below --step {args.step}: the sample would hold no deal")
    folder = os.path.join(args.results, game.key)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as error:
        parser.error(f"--results {args.results}: {error.strerror}")
    problem = benchlib.cannot_write_in(Path(folder))  # a read-only one failed once the sample was scored
    if problem is not None:
        parser.error(f"--results {args.results}: cannot write in {folder}: {problem}")
    rows = benchlib.pool_map(partial(score, game=game.key), range(args.step, args.last + 1, args.step), args.workers,
                             chunksize=20)
    winnable = [(n, s, t) for n, s, _, t in rows if s is not None]
    if len(winnable) < QUINTILES:  # quintiles of nothing, or four equal thresholds of one deal's score
        sys.exit(f"difficulty_scale stopped: {len(winnable)} of the {len(rows):,} deals of the sample "
                 f"{'is' if len(winnable) == 1 else 'are'} winnable; five quintiles need {QUINTILES} or more: "
                 "give a smaller --step")
    with replacing(os.path.join(folder, "scale_sample.parquet")) as temp:
        pq.write_table(pa.table({"deal": [n for n, _, _ in winnable], "score": [s for _, s, _ in winnable]}),
                       temp, compression="zstd")
    scores = np.array([s for _, s, _ in winnable])
    scoring = np.array([t for _, _, t in winnable])
    solving = np.array([t for _, _, t, _ in rows])
    summary = {
        "game": game.key,
        "command": f"python scripts/difficulty_scale.py --game {game.key} --step {args.step}"
                   + (f" --last {args.last}" if args.last != SAMPLED_UP_TO else ""),
        "sample": f"PySolFC deals {args.step:,}, {2 * args.step:,}, ..., {args.last:,}",
        "deals": len(rows),
        "winnable": len(scores),
        "quintiles": [round(float(q), 4) for q in np.quantile(scores, [0.2, 0.4, 0.6, 0.8])],
        "score_min_median_max": [round(float(v), 4) for v in (scores.min(), np.median(scores), scores.max())],
        "solve_cpu_ms_per_deal": round(float(solving.mean()) * 1000, 2),
        "score_cpu_ms_per_winnable_deal": {"mean": round(float(scoring.mean()) * 1000, 1),
                                           "median": round(float(np.median(scoring)) * 1000, 1),
                                           "max": round(float(scoring.max()) * 1000, 1)},
        "workers": args.workers,
        "load_average_after": round(os.getloadavg()[0], 2),
    }
    replace_text(os.path.join(folder, "scale.json"), json.dumps(summary, indent=2) + "\n")
    json.dump(summary, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    benchlib.run_script(main)
