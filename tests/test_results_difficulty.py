"""The committed difficulty study cannot drift from its data: every figure is recomputed here.

For each game with a scale (`difficulty.CURRENT`), from `results/difficulty/GAME/`:

* the scale's thresholds are the quintiles of the committed sample
  (`scale_sample.parquet`, deals 1..1,000,000), and `scale.json` describes
  that sample;
* `validation_deals.csv` holds every deal of the range VALIDATION.md names,
  none of them in the scale's sample, and a few of its rows are measured
  again here (planners, score, verdict) with the compiled core;
* VALIDATION.md's table (win rate per tag, planner and budget, with 95%
  Wilson intervals) is recomputed with pandas and numpy from the CSV and the
  thresholds, not with the script; every planner's win rate falls from each
  tag to the next; the budgets span roughly 10%..90% of winnable deals;
* README's difficulty table is those figures.
"""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from blackhole_stats import _core, deal
from blackhole_stats.difficulty import CURRENT, SCALES, TAGS, difficulty
from blackhole_stats.games import get_game
from blackhole_stats.solver import Solver
from conftest import REPO

STUDY = REPO / "results" / "difficulty"
pytestmark = pytest.mark.skipif(not (STUDY / "VALIDATION.md").is_file(),
                                reason="results/ is in the repository, not the sdist")
Z95 = 1.959963984540054
PLANNERS = ("left to right", "right to left", "tallest pile first")
ORDERS = dict(zip(PLANNERS, range(3)))


def wilson(successes: int, trials: int) -> tuple[float, float]:
    p, z2 = successes / trials, Z95 * Z95
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z95 / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return centre - half, centre + half


def section(game_key: str) -> str:
    text = (STUDY / "VALIDATION.md").read_text(encoding="utf-8")
    parts = re.split(r"^## ", text, flags=re.M)
    found = [part for part in parts if part.startswith(get_game(game_key).name + "\n")]
    assert len(found) == 1, f"VALIDATION.md has no section for {game_key}"
    return found[0]


def deal_range(game_key: str) -> tuple[int, int]:
    first, last = re.search(r"^Deals ([\d,]+)\.\.([\d,]+):", section(game_key), re.M).groups()
    return int(first.replace(",", "")), int(last.replace(",", ""))


def table(game_key: str) -> dict[tuple[str, int], list[str]]:
    rows = {}
    for line in section(game_key).splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| ") and cells[0] in PLANNERS:
            rows[cells[0], int(cells[1].replace(",", ""))] = cells[2:]
    return rows


def measurements(game_key: str) -> pd.DataFrame:
    frame = pd.read_csv(STUDY / game_key / "validation_deals.csv")
    first, last = deal_range(game_key)
    return frame[frame.deal.between(first, last)]


def tagged(game_key: str) -> pd.DataFrame:
    winnable = measurements(game_key).dropna(subset=["score"]).copy()
    thresholds = SCALES[CURRENT[game_key]].thresholds
    winnable["tag"] = [TAGS[i] for i in np.searchsorted(thresholds, winnable.score.to_numpy(), side="right")]
    return winnable


@pytest.mark.parametrize("game_key", CURRENT)
def test_the_scale_is_the_quintiles_of_its_committed_sample(game_key):
    sample = pd.read_parquet(STUDY / game_key / "scale_sample.parquet")
    facts = json.loads((STUDY / game_key / "scale.json").read_text(encoding="utf-8"))
    scale = SCALES[CURRENT[game_key]]
    assert scale.game == game_key and sample.deal.max() <= 1_000_000 and sample.deal.is_unique
    quintiles = tuple(round(float(q), 4) for q in np.quantile(sample.score, [0.2, 0.4, 0.6, 0.8]))
    assert scale.thresholds == quintiles == tuple(facts["quintiles"])
    assert facts["winnable"] == len(sample) and facts["game"] == game_key
    step = int(re.search(r"--step (\d+)", facts["command"]).group(1))
    assert facts["deals"] == 1_000_000 // step and set(sample.deal % step) == {0}
    assert f"{facts['winnable']:,} winnable deals" in scale.basis and f"--step {step}" in scale.basis


@pytest.mark.parametrize("game_key", CURRENT)
def test_the_validation_deals_are_the_whole_range_and_none_set_the_scale(game_key):
    first, last = deal_range(game_key)
    frame = measurements(game_key)
    assert first > 1_000_000 and sorted(frame.deal) == list(range(first, last + 1))
    sample = pd.read_parquet(STUDY / game_key / "scale_sample.parquet")
    assert not set(frame.deal) & set(sample.deal)
    # A planner's count is only there for a winnable deal.
    assert frame.loc[frame.score.isna(), list(PLANNERS)].isna().all().all()


@pytest.mark.parametrize("game_key", CURRENT)
def test_a_few_rows_are_what_the_core_measures_today(game_key):
    game, frame, solver = get_game(game_key), measurements(game_key), Solver()
    won = frame.dropna()  # winnable, and won by every planner within the largest budget
    cheap = won.loc[won[list(PLANNERS)].max(axis=1).nsmallest(3).index]
    for row in cheap.itertuples(index=False):
        board = deal(row.deal, game)
        assert difficulty(board, solver) == pytest.approx(row.score, abs=1e-12)
        for name, positions in zip(PLANNERS, row[2:5]):
            assert _core.plan(*board.solver_input(), int(positions), ORDERS[name], True,
                              **board.solver_rules()) == (True, positions)
    for number in frame.loc[frame.score.isna(), "deal"].head(3):
        assert not solver.solve(deal(number, game), most_played=False).solved


@pytest.mark.parametrize("game_key", [key for key in CURRENT if get_game(key).has_talon])
def test_the_golf_games_scores_are_still_their_committed_samples(game_key):
    """Where the heights search covers the layout, the trap walks take every verdict from its
    table instead of searching: the scores must stay bit for bit those the scale was fixed from
    (every 50th deal of the committed sample, scored again)."""
    sample = pd.read_parquet(STUDY / game_key / "scale_sample.parquet").iloc[::50]
    solver, game = Solver(), get_game(game_key)
    again = [difficulty(deal(int(number), game), solver) for number in sample["deal"]]
    assert again == sample["score"].tolist()


@pytest.mark.parametrize("game_key", CURRENT)
def test_the_validation_table_is_recomputed_from_the_measurements(game_key):
    winnable, rows = tagged(game_key), table(game_key)
    assert {planner for planner, _ in rows} == set(PLANNERS) and len(rows) == 9
    for (planner, budget), cells in rows.items():
        expected = []
        for tag in (*TAGS, "all"):
            chosen = winnable if tag == "all" else winnable[winnable.tag == tag]
            won = int((chosen[planner] <= budget).sum())
            low, high = wilson(won, len(chosen))
            expected.append(f"{100 * won / len(chosen):.1f}% ({100 * low:.1f}-{100 * high:.1f})")
        assert cells == expected, (planner, budget)
    counts = winnable.tag.value_counts()
    assert ", ".join(f"{tag} {counts[tag]:,}" for tag in TAGS) in section(game_key)


@pytest.mark.parametrize("game_key", CURRENT)
def test_the_rank_correlation_of_score_and_planners_effort_is_recomputed(game_key):
    winnable = tagged(game_key)
    largest = max(budget for _, budget in table(game_key))
    effort = np.log(winnable[list(PLANNERS)].fillna(2 * largest).to_numpy()).mean(axis=1)
    ranks = pd.DataFrame({"score": winnable.score.to_numpy(), "effort": effort}).rank()
    rho = np.corrcoef(ranks.score, ranks.effort)[0, 1]
    assert f"needs more): {rho:.3f}." in section(game_key)
    assert rho > 0.4


@pytest.mark.parametrize("game_key", CURRENT)
def test_every_planners_win_rate_falls_from_very_easy_to_very_hard(game_key):
    winnable = tagged(game_key)
    budgets = sorted({budget for _, budget in table(game_key)})
    for planner in PLANNERS:
        for budget in budgets:
            rates = [(winnable[winnable.tag == tag][planner] <= budget).mean() for tag in TAGS]
            assert all(harder < easier for easier, harder in zip(rates, rates[1:])), (planner, budget, rates)
    assert "from each tag to the next, at every budget: **yes**" in section(game_key)


@pytest.mark.parametrize("game_key", CURRENT)
def test_the_budgets_span_roughly_ten_to_ninety_percent_of_winnable_deals(game_key):
    winnable = tagged(game_key)
    budgets = sorted({budget for _, budget in table(game_key)})
    for planner in PLANNERS:
        smallest, largest = ((winnable[planner] <= budget).mean() for budget in (budgets[0], budgets[-1]))
        assert 0.05 <= smallest <= 0.3 and 0.7 <= largest <= 0.95, (planner, smallest, largest)
    assert (STUDY / game_key / "validation.png").stat().st_size > 10_000


def readme_rows() -> dict[str, list[str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    difficulty_section = text[text.index("\n## Difficulty"):]
    difficulty_section = difficulty_section[:difficulty_section.index("\n## ", 1)]
    rows = {}
    for line in difficulty_section.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| `") and cells[0].strip("`") in SCALES:
            rows[cells[0].strip("`")] = cells[1:]
    return rows


@pytest.mark.parametrize("game_key", CURRENT)
def test_readme_gives_each_games_scale_cost_and_validation_as_measured(game_key):
    facts = json.loads((STUDY / game_key / "scale.json").read_text(encoding="utf-8"))
    scale, rows = SCALES[CURRENT[game_key]], readme_rows()
    assert scale.name in rows, f"README's difficulty table has no row for {scale.name}"
    game, thresholds, sample, solve_ms, score_ms, fall = rows[scale.name]
    assert game == get_game(game_key).name
    assert thresholds == " / ".join(f"{t:.4f}" for t in scale.thresholds)
    assert sample == f"{facts['winnable']:,} of {facts['deals']:,}"
    assert solve_ms == f"{facts['solve_cpu_ms_per_deal']:.1f}"
    assert score_ms == f"{facts['score_cpu_ms_per_winnable_deal']['mean']:.1f}"
    first, last = deal_range(game_key)
    winnable = tagged(game_key)
    budget = sorted({budget for _, budget in table(game_key)})[1]
    easiest, hardest = ((winnable[winnable.tag == tag][list(PLANNERS)] <= budget).mean().mean() for tag in
                        (TAGS[0], TAGS[-1]))
    assert fall == f"{100 * easiest:.0f}% -> {100 * hardest:.0f}% at {budget:,}"


def test_readme_gives_black_holes_validation_table_and_the_significant_steps_as_measured():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| ") and cells[0].split(",")[0] in PLANNERS and "," in cells[0]:
            planner, budget = cells[0].split(", ", 1)
            rows[planner, int(budget.replace(",", ""))] = cells[1:]
    assert rows == {key: [cell.split(" ")[0] for cell in cells[:5]] for key, cells in table("black_hole").items()}
    significant = {game_key: int(re.search(r"; (\d+) of them significantly", section(game_key)).group(1))
                   for game_key in CURRENT}
    fewest, most = min(significant, key=significant.get), max(significant, key=significant.get)
    assert (f"of which {significant[fewest]} ({get_game(fewest).name}) to {significant[most]} "
            f"({get_game(most).name}) are\nsignificant") in text
    rho = {game_key: re.search(r"needs more\): ([\d.]+)\.", section(game_key)).group(1) for game_key in CURRENT}
    low, high = min(rho, key=lambda key: float(rho[key])), max(rho, key=lambda key: float(rho[key]))
    assert f"is between {rho[low]} ({get_game(low).name}) and {rho[high]} ({get_game(high).name})" in text


TAGGED_MILLIONS = {"all_in_a_row": "all_in_a_row/all_in_a_row_1_1000000.bits",
                   "black_hole": "winnable/black_hole_1_1000000.bits",
                   "dead_king_golf": "dead_king_golf/dead_king_golf_1_1000000.bits",
                   "golf": "golf/golf_1_1000000.bits",
                   "relaxed_golf": "relaxed_golf/relaxed_golf_1_1000000.bits"}
"""The games whose deals 1..1,000,000 have committed tag bitmaps, and the bitmap of their winnable deals."""


@pytest.mark.parametrize("game_key", sorted(TAGGED_MILLIONS))
def test_the_committed_tag_bitmaps_split_the_winnable_million(game_key):
    """results/winnable's five tag bitmaps of a game: disjoint, together the game's winnable bitmap (its
    study's verdicts), counted as the guide says, and a sample of deals scored again here lands in its
    tag's bitmap."""
    folder = REPO / "results" / "winnable"
    winnable = np.unpackbits(np.fromfile(REPO / "results" / TAGGED_MILLIONS[game_key], dtype=np.uint8),
                             bitorder="little")
    tagged = {tag: np.unpackbits(np.fromfile(folder / f"{game_key}_1_1000000_{tag.replace(' ', '_')}.bits",
                                             dtype=np.uint8), bitorder="little") for tag in TAGS}
    stacked = np.vstack(list(tagged.values())).astype(int)
    assert stacked.sum(axis=0).max() == 1 and np.array_equal(stacked.sum(axis=0), winnable)
    guide = " ".join((folder / "README.md").read_text(encoding="utf-8").split())
    for tag, bits in tagged.items():
        assert f"| {tag} | `{game_key}_1_1000000_{tag.replace(' ', '_')}.bits` | {int(bits.sum()):,} |" in guide
    if game_key != "black_hole":  # the guide names the tags furthest from a fifth
        share = {tag: bits.sum() / winnable.sum() for tag, bits in tagged.items()}
        fewest, most = min(share, key=share.get), max(share, key=share.get)
        assert f"`{fewest}` holds {100 * share[fewest]:.1f}%, `{most}` {100 * share[most]:.1f}%" in guide
    scale, game = SCALES[CURRENT[game_key]], get_game(game_key)
    sample = np.random.default_rng(14).choice(np.flatnonzero(winnable), 12, replace=False)
    for index in sample.tolist():
        assert tagged[scale.tag(difficulty(deal(index + 1, game)))][index], index + 1
