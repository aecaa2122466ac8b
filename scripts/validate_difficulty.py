"""Validate a game's difficulty tags: bounded planners' win rates per tag, on deals its scale never saw.

    python scripts/validate_difficulty.py --game golf

For each deal of the game's validation range (VALIDATION below: deals above
1,000,000, which no scale was fixed from): whether it can be won, its trap
score, and the positions each of three bounded planners needs to win it.
The planners are people who look ahead and undo, NOT the score's own walks:
depth-first play with undo that remembers the positions it has refuted,
trying the moves in a fixed natural order (the piles left to right, right to
left, or the tallest pile first; turning the talon after every pile move, in
the games that have one), giving up after B positions. A planner wins a deal
with budget B if it needs at most B positions.

The measurements are kept in `results/difficulty/GAME/validation_deals.csv`
(one row a deal; score and positions empty where not winnable, positions
empty where a planner needs more than the largest budget, which `budget`
records; rows without it were measured with the game's budgets below); a
later call measures only the deals of the range not in it yet, or measured
with a smaller largest budget than it asks for, so a range can be extended.
Each call then writes the game's plot (`GAME/validation.png`) and
`results/difficulty/VALIDATION.md`, the tables of every game measured so far
(win rate per tag on the game's current scale, with 95% Wilson intervals).
Exits 1 if some planner's win rate does not fall from each tag to the next
at every budget, for some game. With --coarse (for small samples, as the
tests use it) it only asks that each planner win more of the easier two
tags' deals than of the harder two tags'.
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import argparse
import csv
import math
import os
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from blackhole_stats import _core, deal
from blackhole_stats.atomic import replace_text, replacing
from blackhole_stats.difficulty import TAGS, current_scale, difficulty
from blackhole_stats.games import GAMES, get_game
from blackhole_stats.solver import Solver


PLANNERS = {"left to right": 0, "right to left": 1, "tallest pile first": 2}
"""Planner name -> move order of `_core.plan`."""
Z95 = 1.959963984540054

_solver = None


@dataclass(frozen=True)
class Validation:
    first: int
    last: int
    budgets: tuple[int, int, int]
    """Positions per game: chosen so that the planners win from about 10% to 90% of winnable deals
    (measured on the first deals of the range)."""


VALIDATION = {
    "black_hole": Validation(1_000_001, 1_012_000, (3_000, 30_000, 300_000)),
    "all_in_a_row": Validation(1_000_001, 1_004_000, (5_000, 50_000, 300_000)),
    "golf": Validation(1_000_001, 1_006_000, (10_000, 100_000, 1_000_000)),
    "dead_king_golf": Validation(1_000_001, 1_008_000, (10_000, 100_000, 700_000)),
    "relaxed_golf": Validation(1_000_001, 1_003_000, (500, 30_000, 500_000)),
}


def measure(number: int, game: str, budget: int) -> dict:
    global _solver
    _solver = _solver or Solver()
    board = deal(number, get_game(game))
    row = {"deal": number, "score": None, **dict.fromkeys(PLANNERS), "budget": budget}
    if _solver.solve(board, most_played=False).solved:
        row["score"] = difficulty(board, _solver)
        for name, order in PLANNERS.items():
            won, positions = _core.plan(*board.solver_input(), budget, order, True, **board.solver_rules())
            row[name] = positions if won else None
    return row


def measurements(path: str, game: str) -> pd.DataFrame:
    """A game's validation_deals.csv (empty if there is none), with the largest budget each row was measured
    with: the game's own (VALIDATION) for rows from before the column. One that is not as this script writes
    it stops the script in one line (it was a traceback, or counted as it stood: a row twice, a planner's
    count of -5 or past its budget)."""
    columns = ["deal", "score", *PLANNERS, "budget"]
    if not os.path.exists(path):
        return pd.DataFrame(columns=columns)
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
        problem = damage(rows, max(VALIDATION[game].budgets))
    except (OSError, ValueError, csv.Error) as error:  # (UTF-8's: ValueError)
        problem = f"cannot be read ({getattr(error, 'strerror', None) or error})"
    if problem is not None:
        sys.exit(f"validate_difficulty: {path} is damaged: {problem}; move it aside (its deals are then measured "
                 "again)")
    held = pd.DataFrame(rows[1:], columns=rows[0]).replace("", math.nan).astype(float)
    held["deal"] = held.deal.astype("int64")
    if "budget" not in held:
        held["budget"] = max(VALIDATION[game].budgets)
    return held[columns]


def damage(rows: list[list[str]], budget: int) -> str | None:
    """What makes `rows` (a validation_deals.csv's; `budget`, that of rows from before its column) other
    than this script writes them, None if nothing."""
    columns = ["deal", "score", *PLANNERS]
    if not rows:
        return "it is empty"
    if rows[0] not in (columns, [*columns, "budget"]):
        return f"its columns are {', '.join(rows[0])}, not {', '.join(columns)}[, budget]"
    seen = set()
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(rows[0]):
            return f"line {line} has {len(row)} fields, not {len(rows[0])}"
        fields = dict(zip(rows[0], row))
        numbers = {name: _number(text) for name, text in fields.items()}
        for name in ("deal", "score", "budget", *PLANNERS):
            if name in fields and not _fits(name, fields[name], numbers, numbers.get("budget", budget)):
                return f"line {line}: {name} {fields[name]!r} where it must be {MUST[name]}"
        if numbers["deal"] in seen:
            return f"line {line}: deal {fields['deal']} is listed twice"
        seen.add(numbers["deal"])
    return None


MUST = {"deal": "a game number, 1 or more", "score": "empty, or a score of 0 or more",
        "budget": "a budget of 1 position or more",
        **dict.fromkeys(PLANNERS, "empty, or the positions the planner needed to win the winnable deal, 1 to "
                                  "the row's budget")}
"""What each column of validation_deals.csv holds, as a damaged one's message says."""


def _fits(name: str, text: str, numbers: dict, budget: float) -> bool:
    """Whether `text` is what column `name` holds, in a row of these `numbers` (see MUST)."""
    value = numbers[name]
    whole = value is not None and value == int(value)
    if name in ("deal", "budget"):
        return whole and 1 <= value < 2**63
    if name == "score":
        return text == "" or value is not None and value >= 0
    return text == "" or whole and 1 <= value <= budget and numbers["score"] is not None


def _number(text: str) -> float | None:
    """The finite number `text` spells, else None."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def wilson(won: int, deals: int) -> tuple[float, float]:
    if not deals:
        return math.nan, math.nan
    p, z2 = won / deals, Z95 * Z95
    centre = (p + z2 / (2 * deals)) / (1 + z2 / deals)
    half = Z95 / (1 + z2 / deals) * math.sqrt(p * (1 - p) / deals + z2 / (4 * deals * deals))
    return centre - half, centre + half


def win_rates(frame: pd.DataFrame, budgets: tuple[int, ...]) -> pd.DataFrame:
    """Rows (planner, budget, tag or 'all'): deals, deals won, the share won and its 95% interval."""
    rows = []
    for name in PLANNERS:
        for budget in budgets:
            for tag in (*TAGS, "all"):
                chosen = frame if tag == "all" else frame[frame.tag == tag]
                won = int(chosen[name].le(budget).sum())  # NaN (more than the largest budget) is not won
                low, high = wilson(won, len(chosen))
                rows.append({"planner": name, "budget": budget, "tag": tag, "deals": len(chosen), "won": won,
                             "rate": won / len(chosen) if len(chosen) else math.nan, "low": low, "high": high})
    return pd.DataFrame(rows)


def steps(rates: pd.DataFrame) -> tuple[int, int, int]:
    """(steps from one tag to the next, steps that fall, steps whose fall is significant: a one-sided
    two-proportion z-test at 5%)."""
    total = falling = significant = 0
    for _, group in rates[rates.tag != "all"].groupby(["planner", "budget"], sort=False):
        group = group.set_index("tag").loc[list(TAGS)]
        for easier, harder in zip(TAGS, TAGS[1:]):
            a, b = group.loc[easier], group.loc[harder]
            total += 1
            falling += bool(b.rate < a.rate)
            pooled = (a.won + b.won) / (a.deals + b.deals) if a.deals and b.deals else 0  # a tag without deals
            error = math.sqrt(pooled * (1 - pooled) * (1 / a.deals + 1 / b.deals)) if 0 < pooled < 1 else math.inf
            significant += bool((a.rate - b.rate) / error > 1.6448536269514722)
    return total, falling, significant


def spearman(winnable: pd.DataFrame, budgets: tuple[int, ...]) -> float:
    """Rank correlation of the score with the planners' effort: the mean log of the positions each needs
    (twice the largest budget where it needs more)."""
    effort = winnable[list(PLANNERS)].fillna(2 * max(budgets)).apply(np.log).mean(axis=1)
    return float(winnable.score.rank().corr(effort.rank()))


def coarse_falls(frame: pd.DataFrame, budgets: tuple[int, ...]) -> bool:
    easier, harder = frame.tag.isin(TAGS[:2]), frame.tag.isin(TAGS[3:])
    return all(frame[name][easier].le(budget).mean() > frame[name][harder].le(budget).mean()
               for name in PLANNERS for budget in budgets)


def plot(rates: pd.DataFrame, title: str, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(1, len(PLANNERS), figsize=(13, 4), sharey=True)
    counts = rates[(rates.planner == next(iter(PLANNERS))) & (rates.budget == rates.budget.iloc[0])]
    counts = counts.set_index("tag").deals
    for axis, name in zip(axes, PLANNERS):
        for budget in rates.budget.unique():
            row = rates[(rates.planner == name) & (rates.budget == budget)].set_index("tag").loc[list(TAGS)]
            errors = [(row.rate - row.low).clip(lower=0) * 100, (row.high - row.rate).clip(lower=0) * 100]
            axis.errorbar(range(len(TAGS)), row.rate * 100, yerr=errors, marker="o", capsize=3,
                          label=f"{budget:,} positions")
        axis.set_xticks(range(len(TAGS)), [f"{tag}\n({counts[tag]:,})" for tag in TAGS], fontsize=8)
        axis.set_title(f"planner: {name}")
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("winnable deals won (%), 95% interval")
    axes[0].legend(title="budget per game", fontsize=8)
    figure.suptitle(title)
    figure.tight_layout()
    with replacing(path) as temp:
        figure.savefig(temp, dpi=110, format="png")


def game_section(game_key: str, frame: pd.DataFrame, settings: Validation, results: str,
                 coarse: bool) -> tuple[list[str], bool]:
    """The game's part of VALIDATION.md (and its plot), and whether its planners' win rates fall."""
    game, scale = get_game(game_key), current_scale(game_key)
    frame = frame[frame.deal.between(settings.first, settings.last)]
    if (frame.budget < max(settings.budgets)).any():  # a planner's miss then says nothing of a larger budget
        return [f"## {game.name}", "", f"Measured with budgets up to {int(frame.budget.min()):,}, not "
                f"{max(settings.budgets):,}: `python scripts/validate_difficulty.py --game {game_key}` measures "
                "it again.", ""], False
    winnable = frame[frame.score.notna()].copy()
    # a count past the largest budget (rows measured with a larger one) is a miss here, as measured afresh
    winnable[list(PLANNERS)] = winnable[list(PLANNERS)].where(winnable[list(PLANNERS)] <= max(settings.budgets))
    winnable["tag"] = winnable.score.map(scale.tag)
    rates = win_rates(winnable, settings.budgets)
    total, falling, significant = steps(rates)
    ok = coarse_falls(winnable, settings.budgets) if coarse else falling == total
    plot(rates, f"{game.name}: bounded planners' wins per difficulty tag (winnable deals "
                f"{settings.first:,}..{settings.last:,}, scale {scale.name})",
         os.path.join(results, game_key, "validation.png"))
    counts = rates[(rates.tag != "all")].drop_duplicates("tag").set_index("tag").deals
    halves = (rates.high - rates.low)[rates.tag != "all"] / 2
    lines = [f"## {game.name}", "",
             f"`python scripts/validate_difficulty.py --game {game_key}`; plot: "
             f"[{game_key}/validation.png]({game_key}/validation.png); measurements: "
             f"`{game_key}/validation_deals.csv`.", "",
             f"Deals {settings.first:,}..{settings.last:,}: {len(winnable):,} of {len(frame):,} winnable, "
             f"{_in_the_scale_sample(game_key, winnable.deal)} among the deals scale `{scale.name}` was fixed from "
             f"({scale.basis}). Winnable deals per tag: "
             + ", ".join(f"{tag} {counts[tag]:,}" for tag in TAGS)
             + f"; a win rate's 95% interval is at most +-{halves.max() * 100:.1f} points.", "",
             "Share of each tag's winnable deals that a planner wins within its budget of positions "
             "(95% Wilson interval):", "",
             "| planner | budget | " + " | ".join(TAGS) + " | all |",
             "|---|---:|" + "---:|" * (len(TAGS) + 1)]
    for (name, budget), group in rates.groupby(["planner", "budget"], sort=False):
        cells = [f"{row.rate * 100:.1f}% ({row.low * 100:.1f}-{row.high * 100:.1f})" if row.deals else "no deal"
                 for row in group.set_index("tag").loc[[*TAGS, "all"]].itertuples()]
        lines.append(f"| {name} | {budget:,} | " + " | ".join(cells) + " |")
    claim = ("Every planner wins more of the easier two tags than of the harder two, at every budget"
             if coarse else "Every planner's win rate falls from each tag to the next, at every budget")
    lines += ["", f"{claim}: **{'yes' if ok else 'NO'}** ({falling} of {total} steps fall; {significant} of them "
                  "significantly, one-sided two-proportion z-test at 5%).", "",
              f"Spearman correlation of the score with the planners' effort (the mean log of the positions each "
              f"needs, twice the largest budget where it needs more): {spearman(winnable, settings.budgets):.3f}.",
              ""]
    return lines, ok


def _in_the_scale_sample(game_key: str, deals: pd.Series) -> str:
    """How many of `deals` the scale's committed sample holds, in words ("none of them", "3 of them")."""
    sample = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results", "difficulty",
                          game_key, "scale_sample.parquet")
    if not os.path.exists(sample):
        return "whether any of them is (its sample is not in this checkout) is not known"
    shared = int(deals.isin(pd.read_parquet(sample, columns=["deal"]).deal).sum())
    return "none of them" if not shared else f"{shared:,} of them"


def main() -> int:
    parser = benchlib.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", type=benchlib.game_type, default="black_hole",
                        help="a game key (default: %(default)s)")
    parser.add_argument("--range", help="deals FIRST-LAST instead of the game's validation range")
    parser.add_argument("--budgets", type=lambda text: tuple(map(benchlib.positive, text.split(","))),
                        help="positions per game, comma-separated, instead of the game's")
    parser.add_argument("--results", default="results/difficulty", help="where to write (default: %(default)s)")
    parser.add_argument("--workers", type=benchlib.positive, default=2)
    parser.add_argument("--coarse", action="store_true", help="the weaker check, for small samples")
    args = parser.parse_args()
    if args.budgets and list(args.budgets) != sorted(set(args.budgets)):
        parser.error(f"--budgets {','.join(map(str, args.budgets))}: give them rising, each once")
    settings = dict(VALIDATION)
    game = args.game.key
    if args.range or args.budgets or game not in settings:
        known = settings.get(game, Validation(1_000_001, 1_002_000, (3_000, 30_000, 300_000)))
        numbers = benchlib.deal_range(args.range, parser, "--range") if args.range else range(known.first, known.last + 1)
        settings[game] = Validation(numbers.start, numbers.stop - 1, args.budgets or known.budgets)
    path = os.path.join(args.results, game, "validation_deals.csv")
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except OSError as error:
        parser.error(f"--results {args.results}: {error.strerror}")
    for folder in [args.results, *(os.path.join(args.results, other.key) for other in GAMES if other.key == game or (
            other.key in settings and os.path.exists(os.path.join(args.results, other.key, "validation_deals.csv"))))]:
        problem = benchlib.cannot_write_in(Path(folder))  # where this call writes: one read-only failed at the end
        if problem is not None:
            parser.error(f"--results {args.results}: cannot write in {folder}: {problem}")
    with benchlib.holding(Path(args.results), "validate_difficulty stopped before measuring anything: another "
                          f"validate_difficulty is writing to --results {args.results}",
                          ("VALIDATION.md", "*/validation_deals.csv", "*/validation.png")):
        return validate(args, settings, path)


def validate(args: argparse.Namespace, settings: dict[str, Validation], path: str) -> int:
    """What `main` does once it holds --results (two calls at once each wrote the measurements file whole
    with its own deals: both exited 0, and it kept one's): measure the deals missing from `path`, write
    VALIDATION.md; its exit status."""
    game, wanted = args.game.key, settings[args.game.key]
    tables = {other.key: measurements(kept, other.key) for other in GAMES if other.key in settings and
              os.path.exists(kept := os.path.join(args.results, other.key, "validation_deals.csv"))}
    held = tables[game] if game in tables else measurements(path, game)  # every one read before measuring
    # a planner that needed more than a smaller budget is no answer for a larger one: measured again
    answered = held.deal[held.budget >= max(wanted.budgets)]
    missing = sorted(set(range(wanted.first, wanted.last + 1)) - set(answered))
    if missing:
        rows = benchlib.pool_map(partial(measure, game=game, budget=max(wanted.budgets)), missing, args.workers,
                                 chunksize=10)
        held = held[~held.deal.isin(missing)]
        held = pd.concat([held, pd.DataFrame(rows)]) if len(held) else pd.DataFrame(rows)
        replace_text(path, held.sort_values("deal").to_csv(index=False))  # a kill mid-write keeps the old file
        tables[game] = held = measurements(path, game)  # as written: typed as a later call reads it
    if not held.score[held.deal.between(wanted.first, wanted.last)].notna().any():  # rates of no deal: "nan%"
        sys.exit(f"validate_difficulty: {args.game.name} deals {wanted.first}-{wanted.last} hold no winnable deal: "
                 f"nothing to validate (their measurements are kept in {path})")
    lines = ["# Difficulty tags against bounded planners", "",
             "Does a tag mean what it says? Three bounded planners, people who look ahead and undo but are not "
             "the score's own walks (depth-first with undo, remembering refuted positions, no dead-end test; the "
             "moves of a pile tried left to right, right to left or tallest pile first, turning the talon after "
             "them), each with three budgets of positions per game, play the winnable deals of a range that no "
             "scale was fixed from. Each planner's win rate should fall from very easy to very hard.", ""]
    ok = True
    for key in (other.key for other in GAMES if other.key in tables):
        section, falls = game_section(key, tables[key], settings[key], args.results, args.coarse)
        lines += section
        ok = ok and falls
    replace_text(os.path.join(args.results, "VALIDATION.md"), "\n".join(lines))
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    benchlib.run_script(main)
