"""Research for the difficulty score: candidate scores and bounded planners on a sample of solvable deals.

Writes one CSV row per solvable deal: the candidates (our solver's effort, trap
counts along random winning walks, the random player's odds along them) and the
positions each bounded planner needs. `scripts/validate_difficulty.py` is the
committed validation; this script is how the score was chosen (README, Difficulty).
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import csv
import math
import random

import numpy as np
import pandas as pd

from blackhole_stats import _core, deal
from blackhole_stats.atomic import replacing
from blackhole_stats.difficulty import difficulty
from blackhole_stats.solver import Solver


PLANNER_CAP = 2_000_000
_solver = None


def walk_stats(board, rng):
    """A walk that only ever plays a winning move (uniformly among them): what it passes by."""
    traps = trap_moves = 0
    log_odds = 0.0
    trap_depth = 0.0
    step = 0
    while board.cards_left:
        moves = board.legal_moves()
        good, bad = [], []
        for move in moves:
            child = board.play(move.pile)[1]
            result = _solver.solve(child, most_played=True)
            (good if result.solved else bad).append((move, result))
        trap_moves += len(bad)
        traps += bool(bad)
        log_odds += math.log10(len(good) / len(moves))
        for _, result in bad:
            trap_depth += 2.0 ** ((result.cards_played or 0) / 4)
        board = board.play(rng.choice(good)[0].pile)[1]
        step += 1
    return trap_moves, traps, log_odds, trap_depth


def measure(number):
    global _solver
    if _solver is None:
        _solver = Solver()
    board = deal(number)
    result = _solver.solve(board)
    if not result.solved:
        return None
    row = {"deal": number, "fast_iterations": result.iterations, "trap_score": difficulty(board, _solver)}
    rng = random.Random(number)
    walks = [walk_stats(board, rng) for _ in range(4)]
    for index, name in enumerate(("trap_moves", "trap_steps", "log_odds", "trap_depth")):
        row[name] = sum(w[index] for w in walks) / len(walks)
    inp = board.solver_input()
    for order, name in ((0, "plan_pile"), (2, "plan_tallest")):
        won, nodes = _core.plan(*inp, PLANNER_CAP, order, 1)
        row[name] = nodes if won else None
    won, nodes = _core.plan(*inp, 100_000, 1, 0)
    row["plan_nomemory"] = nodes if won else None
    return row


CANDIDATES = {
    "fast_iterations": "our solver's iterations",
    "trap_moves": "trap moves passed, mean of 4 walks",
    "neg_log_odds": "-log10 of a random player's odds along 4 winning walks",
    "log_trap_depth": "log10 sum 2^(exact depth/4) over traps, mean of 4 walks",
    "trap_score": "the chosen score (difficulty.py: 16 walks, depth = best of 32 random continuations)",
}
PLANNERS = {"plan_pile": "piles 0..16", "plan_peer": "piles 16..0 (the peer's order, classic iterations)",
            "plan_tallest": "tallest pile first"}


def peer_positions(number: int) -> int:
    """The positions the peer's plain search needs (our classic search reproduces its count)."""
    return Solver().solve(deal(number), search="classic", most_played=False).iterations


def analyse(path: str) -> None:
    """Spearman correlation of each candidate with each planner's positions, and win rates per quintile.
    The peer's search is the third planner; its counts are computed here (about 90 CPU-s for the 520
    committed deals): no committed run holds every one of them."""
    frame = pd.read_csv(path)
    frame["plan_peer"] = benchlib.pool_map(peer_positions, frame["deal"].tolist(), 2, chunksize=8)
    for planner in PLANNERS:
        frame[planner] = frame[planner].fillna(2 * PLANNER_CAP)  # not won within the cap: beyond it
    frame["neg_log_odds"] = -frame.log_odds
    frame["log_trap_depth"] = np.log10(frame.trap_depth + 1)
    frame["planners_geomean"] = np.exp(np.log(frame[list(PLANNERS)]).mean(axis=1))
    print(f"{len(frame)} winnable deals; Spearman correlation with the positions each planner needs:\n")
    print(frame[list(CANDIDATES) + list(PLANNERS) + ["planners_geomean"]].corr("spearman")
          .loc[list(CANDIDATES), list(PLANNERS) + ["planners_geomean"]].round(3).to_string())
    print("\nwin rate per quintile of the candidate (very easy .. very hard), budgets 1e4, 1e5, 1e6:\n")
    for candidate in CANDIDATES:
        fifth = pd.qcut(frame[candidate].rank(method="first"), 5, labels=False)
        rates = np.array([[(frame[planner][fifth == k] <= budget).mean() for k in range(5)]
                          for planner in PLANNERS for budget in (1e4, 1e5, 1e6)])
        rises = int((np.diff(rates, axis=1) > 0).sum())
        print(f"- {candidate}: mean drop very easy -> very hard {np.mean(rates[:, 0] - rates[:, 4]):.2f}, "
              f"{rises} of 36 steps rise")


def main():
    parser = benchlib.Parser(description=__doc__)
    parser.add_argument("--sample", type=int, default=600)
    parser.add_argument("--range", default="1-60000")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    parser.add_argument("--analyse", action="store_true",
                        help="only analyse OUT (a CSV this script wrote), solving its deals with the classic search")
    args = parser.parse_args()
    if args.analyse:
        analyse(args.out)
        return
    first, last = map(int, args.range.split("-"))
    numbers = sorted(random.Random(args.seed).sample(range(first, last + 1), args.sample))
    rows = [row for row in benchlib.pool_map(measure, numbers, 2, chunksize=4) if row is not None]
    with replacing(args.out) as temp, open(temp, "w", newline="") as out:
        if rows:
            writer = csv.DictWriter(out, list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    benchlib.run_script(main)
