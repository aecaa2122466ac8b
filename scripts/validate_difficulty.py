"""Validate the difficulty tags: bounded planners' win rates per tag, on deals the scale was not fixed from.

    python scripts/validate_difficulty.py --range 1000001-1002000 --results results/difficulty

For each winnable deal of the range: its trap score and tag (the current
scale, fixed from deals 50, 100, ..., 1,000,000), and the positions each of
three bounded planners needs to win it. The planners are people who look
ahead and undo, NOT the score's own walks: depth-first play with undo that
remembers the positions it has refuted, trying moves in a fixed natural
order (left to right over the piles, right to left, or the tallest pile
first), giving up after B positions. A planner wins a deal with budget B if
it needs at most B positions. Writes `validation_deals.csv` (the per-deal
measurements, reused by later calls unless --again), `VALIDATION.md` (win
rate per tag, planner and budget) and `validation.png`; exits 1 if some
planner's win rate does not fall from very easy to very hard. With --coarse
(for small samples, as the tests use it) it only asks that each planner win
more of the easier two tags' deals than of the harder two tags'.
"""
from __future__ import annotations

import argparse
import os
import sys
from functools import partial
from multiprocessing import Pool

import pandas as pd

from blackhole_stats import _core, deal
from blackhole_stats.difficulty import CURRENT_SCALE, TAGS, difficulty, scale
from blackhole_stats.solver import Solver

PLANNERS = {"left to right": 0, "right to left": 1, "tallest pile first": 2}
"""Planner name -> move order of `_core.plan` (piles 0..16, piles 16..0, tallest first then pile order)."""
BUDGETS = (3_000, 30_000, 300_000)
"""Positions per game: chosen so that the planners win from about 10% to 80% of winnable deals
(measured on the research sample, results/difficulty/research.csv)."""

_solver = None


def measure(number: int, budgets: tuple[int, ...] = BUDGETS) -> dict | None:
    global _solver
    _solver = _solver or Solver()
    board = deal(number)
    if not _solver.solve(board, most_played=False).solved:
        return None
    row = {"deal": number, "score": difficulty(board, _solver)}
    for name, order in PLANNERS.items():
        won, positions = _core.plan(*board.solver_input(), max(budgets), order, True)
        row[name] = positions if won else None  # None: more than the largest budget
    return row


def win_rates(frame: pd.DataFrame, budgets: tuple[int, ...] = BUDGETS) -> pd.DataFrame:
    """Rows (planner, budget), columns the tags (and all deals): the share of deals the planner wins."""
    rows = []
    for name in PLANNERS:
        for budget in budgets:
            won = frame[name].le(budget)  # NaN (not won within the largest budget) is False
            rates = won.groupby(frame.tag).mean().reindex(list(TAGS))
            rows.append({"planner": name, "budget": budget, **rates.to_dict(), "all": won.mean()})
    return pd.DataFrame(rows)


def falls(rates: pd.DataFrame, frame: pd.DataFrame, coarse: bool = False) -> bool:
    """Each planner and budget wins a smaller share of every tag than of the tag before it (coarse: of
    the harder two tags together than of the easier two)."""
    if coarse:
        easier, harder = frame.tag.isin(TAGS[:2]), frame.tag.isin(TAGS[3:])
        return all(frame[name][easier].le(budget).mean() > frame[name][harder].le(budget).mean()
                   for name in PLANNERS for budget in rates.budget.unique())
    values = rates[list(TAGS)].to_numpy()
    return bool((values[:, 1:] < values[:, :-1]).all())


def plot(rates: pd.DataFrame, counts: pd.Series, path: str, budgets: tuple[int, ...]) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(1, len(PLANNERS), figsize=(13, 4), sharey=True)
    for axis, name in zip(axes, PLANNERS):
        for budget in budgets:
            row = rates[(rates.planner == name) & (rates.budget == budget)].iloc[0]
            axis.plot(range(len(TAGS)), [row[tag] * 100 for tag in TAGS], marker="o", label=f"{budget:,} positions")
        axis.set_xticks(range(len(TAGS)), [f"{tag}\n({counts[tag]})" for tag in TAGS], fontsize=8)
        axis.set_title(f"planner: {name}")
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("deals won (%)")
    axes[0].legend(title="budget per game", fontsize=8)
    figure.suptitle("Bounded planners' wins per difficulty tag (winnable deals, tags of scale "
                    f"{CURRENT_SCALE})")
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--range", default="1000001-1002000", help="deals FIRST-LAST (default: %(default)s)")
    parser.add_argument("--results", default="results/difficulty", help="where to write (default: %(default)s)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--again", action="store_true", help="measure again even if validation_deals.csv exists")
    parser.add_argument("--budgets", type=lambda text: tuple(map(int, text.split(","))), default=BUDGETS,
                        help="positions per game, comma-separated (default: %(default)s)")
    parser.add_argument("--coarse", action="store_true", help="the weaker check, for small samples")
    args = parser.parse_args()
    first, last = map(int, args.range.split("-"))
    os.makedirs(args.results, exist_ok=True)
    deals_path = os.path.join(args.results, "validation_deals.csv")
    if args.again or not os.path.exists(deals_path):
        with Pool(args.workers) as pool:
            rows = [row for row in pool.imap(partial(measure, budgets=args.budgets), range(first, last + 1),
                                             chunksize=10) if row]
        pd.DataFrame(rows).to_csv(deals_path, index=False)
    frame = pd.read_csv(deals_path)
    current = scale()
    frame["tag"] = frame.score.map(current.tag)
    counts = frame.tag.value_counts().reindex(list(TAGS), fill_value=0)
    rates = win_rates(frame, args.budgets)
    ok = falls(rates, frame, args.coarse)
    table = rates.copy()
    for column in [*TAGS, "all"]:
        table[column] = (table[column] * 100).map("{:.1f}%".format)
    table["budget"] = table.budget.map("{:,}".format)
    lines = [f"# Difficulty tags against bounded planners (deals {first:,}..{last:,})", "",
             f"`python scripts/validate_difficulty.py --range {first}-{last} --results {args.results}`", "",
             f"{len(frame):,} winnable deals, none of them among the deals scale `{current.name}` was fixed "
             f"from ({current.basis}). Deals per tag: "
             + ", ".join(f"{tag} {counts[tag]:,}" for tag in TAGS) + ".", "",
             "Share of each tag's deals that a planner wins within its budget of positions:", "",
             "| planner | budget | " + " | ".join(TAGS) + " | all |",
             "|---|---:|" + "---:|" * (len(TAGS) + 1)]
    lines += ["| " + " | ".join(str(value) for value in row) + " |" for row in table.itertuples(index=False)]
    claim = ("Every planner wins more of the easier two tags than of the harder two, at every budget: "
             if args.coarse else "Every planner's win rate falls from very easy to very hard at every budget: ")
    lines += ["", claim + ("**yes**." if ok else "**NO**.")]
    with open(os.path.join(args.results, "VALIDATION.md"), "w") as out:
        out.write("\n".join(lines) + "\n")
    plot(rates, counts, os.path.join(args.results, "validation.png"), args.budgets)
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
