"""The committed study cannot drift from its data: every figure is recomputed here.

* `results/REPORT*.md` and `COMPARE*.md`: their tables (outcomes, the solvable
  interval, iterations per outcome, cards played, hardest deals, side by side)
  recomputed with pandas from `results/*.parquet` (and the peer's CSV);
* `results/study.json`: its figures recomputed from the Parquet files, and
  `results/README.md` / `CLASSIC_PREFIXES.md` exactly what `scripts/study.py`
  renders from it (so nobody edited them by hand), with the prefix table
  recomputed independently;
* README's study section: every number in it is one of those figures;
* README's speed figures: those `scripts/bench_solver.py --summary` wrote to
  `results/bench/solver.json` (skipped until that file is committed), and
  likewise every other measured figure README quotes (runs, dealing, start-up,
  readers, the classic search), each from its `results/bench/*.json`;
* `results/study.ipynb`: executed by a real Jupyter kernel, it runs without
  error, prints the solvable fraction the data gives, and its committed outputs
  are what it prints now;
* `results/<game>/` for each other game of the family whose study is committed
  (skipped, with the command that makes it, until then): its REPORT.md and the
  comparison with the peer's CSV recomputed from its deals.parquet, study.json's
  figures, the winnable bitmap, and `results/FAMILY.md` (every game side by side).

The recomputations here use pandas and numpy directly, not `blackhole_stats.report`.
"""
from __future__ import annotations

import csv
import importlib.util
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import REPO, require_reference

RESULTS = REPO / "results"
pytestmark = pytest.mark.skipif(not (RESULTS / "deals.parquet").is_file() or not (REPO / "scripts").is_dir(),
                                reason="results/ and scripts/ are in the repository, not the sdist")
Z95 = 1.959963984540054
OUTCOMES = ("solved", "unsolved", "intractable")
FAMILY = {  # name, talon cards, cards there are to play (pile and talon): ../shared/reference/family/FAMILY.md
    "black_hole": ("Black Hole", 0, 51), "all_in_a_row": ("All in a Row", 0, 52), "golf": ("Golf", 16, 51),
    "dead_king_golf": ("Dead King Golf", 16, 51), "relaxed_golf": ("Relaxed Golf", 16, 51)}


# ------------------------------------------------------------------ independent recomputation
def wilson(successes: int, trials: int) -> tuple[float, float]:
    p, z2 = successes / trials, Z95 * Z95
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z95 / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return centre - half, centre + half


def percent(n: int, total: int) -> str:
    return f"{100 * n / total:.2f}%"


def interval(data: pd.DataFrame) -> str:
    solved, unsolved = (int((data["outcome"] == outcome).sum()) for outcome in ("solved", "unsolved"))
    low, high = wilson(solved, solved + unsolved)
    return f"{percent(solved, solved + unsolved)} [{100 * low:.2f}%, {100 * high:.2f}%]"


def iteration_stats(values: pd.Series) -> dict[str, float | int]:
    return {"count": len(values), "min": int(values.min()), "q1": values.quantile(0.25),
            "median": values.quantile(0.5), "mean": values.mean(), "q3": values.quantile(0.75),
            "p99": values.quantile(0.99), "max": int(values.max()), "std": values.std(ddof=1)}


def shown(value: float | int, digits: int) -> str:
    return f"{value:,}" if isinstance(value, (int, np.integer)) else f"{value:,.{digits}f}"


@pytest.fixture(scope="module")
def fast() -> pd.DataFrame:
    return pd.read_parquet(RESULTS / "deals.parquet")


@pytest.fixture(scope="module")
def classic() -> pd.DataFrame:
    return pd.read_parquet(RESULTS / "classic_deals.parquet")


@pytest.fixture(scope="module")
def facts() -> dict:
    return json.loads((RESULTS / "study.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def study():
    """scripts/study.py as a module (its renderers)."""
    spec = importlib.util.spec_from_file_location("study", REPO / "scripts" / "study.py")
    module = importlib.util.module_from_spec(spec)
    with pytest.MonkeyPatch.context() as patch:  # it imports scripts/benchlib.py, as a script finds it
        patch.syspath_prepend(str(REPO / "scripts"))
        spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------ markdown as the reports write it
def sections(path) -> dict[str, list[str]]:
    """Lines under each `#`/`##` title (the title without its number of deals, e.g. 'Deals whose verdicts differ')."""
    found: dict[str, list[str]] = {}
    title = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("# ")
            found[title] = []
        elif title is not None:
            found[title].append(line)
    return found


def section(found: dict[str, list[str]], start: str) -> list[str]:
    [lines] = [lines for title, lines in found.items() if title.startswith(start)]
    return lines


def table(lines: list[str]) -> dict[str, list[str]]:
    """A markdown table's body rows by their first cell."""
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines if line.startswith("|")]
    return {row[0]: row[1:] for row in rows[2:]}


def no_pile_card(game: str) -> tuple[str, int]:
    """How a report words the unsolvable deals that play no pile card, and the cards they play (the talon)."""
    _, talon, _ = FAMILY[game]
    if not talon:
        return "no legal first move (unsolved with 0 cards played)", 0
    return f"no pile card playable (unsolved with only the {talon} talon cards played)", talon


def check_report(path, data: pd.DataFrame, game: str = "black_hole") -> None:
    """A `report --format markdown` of `data`'s run: every table recomputed from `data`."""
    found = sections(path)
    total = len(data)
    assert next(iter(found)).startswith(f"{FAMILY[game][0]} report: ")
    summary = next(iter(found.values()))
    assert f"- {total:,} deals ({data['deal'].min()} .. {data['deal'].max()}), {int(data['ms'].sum()):,} of them " \
           "ms deals" in summary

    outcomes = section(found, "Outcomes")
    counts = {outcome: int((data["outcome"] == outcome).sum()) for outcome in OUTCOMES}
    assert table(outcomes) == {outcome: [f"{n:,}", percent(n, total)] for outcome, n in counts.items()}
    assert any(line.startswith(f"- solvable fraction of decided deals: {interval(data)} ") for line in outcomes)
    played = data.loc[data["outcome"] == "unsolved", "cards_played"]
    words, talon = no_pile_card(game)
    assert f"- {words}: {int((played == talon).sum()):,} deals" in outcomes

    present = [outcome for outcome in OUTCOMES if counts[outcome]]
    stats = {outcome: iteration_stats(data.loc[data["outcome"] == outcome, "iterations"]) for outcome in present}
    assert table(section(found, "Iterations")) == {
        name: [shown(stats[outcome][name], 0) for outcome in present] for name in stats[present[0]]}

    rows = table(section(found, "Cards played by unsolvable deals"))
    assert sum(int(cells[0].replace(",", "")) for cells in rows.values()) == len(played)
    for label, cells in rows.items():
        low, _, high = label.partition("-")
        n = int(played.between(int(low), int(high or low)).sum())
        assert cells == [f"{n:,}", percent(n, len(played)), percent(int((played >= int(low)).sum()), len(played))]

    hardest = table(section(found, "Hardest deals"))
    expected = data.sort_values("iterations", ascending=False, kind="stable").head(len(hardest))
    assert [[deal, *cells[:3]] for deal, cells in hardest.items()] == [
        [str(row.deal), row.outcome, f"{row.iterations:,}", str(row.cards_played)] for row in expected.itertuples()]


def side_by_side(data: pd.DataFrame, game: str = "black_hole") -> dict[str, str]:
    """What the 'Side by side' table of a comparison shows for one dataset (solve time apart)."""
    total, counts = len(data), {outcome: int((data["outcome"] == outcome).sum()) for outcome in OUTCOMES}
    played = data.loc[data["outcome"] == "unsolved", "cards_played"]
    words, talon = no_pile_card(game)
    column = {"deals": f"{total:,}", **{outcome: f"{n:,} ({percent(n, total)})" for outcome, n in counts.items()},
              "solvable (95% Wilson)": interval(data), words.split(" (")[0]: f"{int((played == talon).sum()):,}"}
    for outcome in OUTCOMES:
        if counts[outcome]:
            stats = iteration_stats(data.loc[data["outcome"] == outcome, "iterations"])
            column.update({f"{outcome} iterations {name}": shown(stats[name], 1)
                           for name in ("median", "mean", "std", "p99", "max")})
    return column


def check_comparison(path, a: pd.DataFrame, b: pd.DataFrame, game: str = "black_hole") -> None:
    found = sections(path)
    keys = ["ms", "deal"]
    both = a.merge(b, on=keys, suffixes=("_a", "_b"))
    summary = next(iter(found.values()))
    assert f"- deals in both: {len(both):,}; only in A: {len(a) - len(both):,}; only in B: {len(b) - len(both):,}" \
        in summary
    differ = int((both["outcome_a"].astype(str) != both["outcome_b"].astype(str)).sum())
    assert f"Deals whose verdicts differ: {differ:,}" in found
    rows = table(section(found, "Side by side"))
    expected_a, expected_b = side_by_side(a, game), side_by_side(b, game)
    assert {label: cells for label, cells in rows.items() if label != "solve time (s)"} == {
        label: [expected_a.get(label, "-"), expected_b.get(label, "-")] for label in expected_a | expected_b}


# ------------------------------------------------------------------ the reports
def test_the_million_deal_report_is_its_data(fast):
    check_report(RESULTS / "REPORT.md", fast)


def test_the_classic_report_is_its_data(classic):
    check_report(RESULTS / "REPORT_classic.md", classic)


def test_the_classic_and_fast_comparison_is_their_data(classic, fast):
    check_comparison(RESULTS / "COMPARE_classic_fast.md", classic, fast)


def test_the_peer_comparison_is_the_data_and_the_peers_csv(fast):
    peer = pd.read_csv(require_reference("peer_1_1000.csv")).rename(columns={"max_played": "cards_played"})
    check_comparison(RESULTS / "COMPARE_peer_1_1000.md", fast, peer.assign(ms=False))


# ------------------------------------------------------------------ study.json, results/README.md
def prefix_stats(classic: pd.DataFrame) -> list[dict]:
    """Per prefix 1,000, 2,000, 5,000, 10,000, ... and the whole run: per outcome count, mean, median, std, half-width."""
    data = classic.sort_values("deal", ignore_index=True)
    sizes = [size for size in (1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000)
             if size < len(data)] + [len(data)]
    rows = []
    for size in sizes:
        head = data.iloc[:size]
        row = {"first": int(head["deal"].iloc[0]), "last": int(head["deal"].iloc[-1])}
        for outcome in ("solved", "unsolved"):
            values = head.loc[head["outcome"] == outcome, "iterations"].astype(float)
            row[outcome] = {"deals": len(values), "mean": values.mean(), "median": values.median(),
                            "std": values.std(ddof=1), "half_width": Z95 * values.std(ddof=1) / math.sqrt(len(values))}
        rows.append(row)
    return rows


def test_study_json_figures_are_the_data(facts, fast, classic):
    for name, data in (("fast", fast), ("classic", classic)):
        figures = facts[name]
        unsolved = data.loc[data["outcome"] == "unsolved"]
        solved, decided = int((data["outcome"] == "solved").sum()), int(data["outcome"].isin(["solved", "unsolved"]).sum())
        low, high = wilson(solved, decided)
        hardest = data.loc[data["iterations"].idxmax()]
        assert (figures["deals"], figures["first"], figures["last"]) == (len(data), data["deal"].min(), data["deal"].max())
        assert (figures["solved"], figures["unsolved"], figures["intractable"]) == (
            solved, len(unsolved), int((data["outcome"] == "intractable").sum()))
        assert figures["solvable"]["fraction"] == pytest.approx(solved / decided, abs=1e-12)
        assert (figures["solvable"]["low"], figures["solvable"]["high"]) == pytest.approx((low, high), abs=1e-12)
        assert (figures["no_first_move"], figures["played_50"], figures["played_49"]) == tuple(
            int((unsolved["cards_played"] == cards).sum()) for cards in (0, 50, 49))
        assert figures["unsolved_median_iterations"] == unsolved["iterations"].median()
        assert (figures["hardest"]["deal"], figures["hardest"]["iterations"]) == (hardest["deal"], hardest["iterations"])
        assert figures["hardest_solved_iterations"] == data.loc[data["outcome"] == "solved", "iterations"].max()
    for ours, theirs in zip(facts["classic_prefixes"], prefix_stats(classic), strict=True):
        assert (ours["first"], ours["last"]) == (theirs["first"], theirs["last"])
        for outcome in ("solved", "unsolved"):
            assert ours[outcome] == pytest.approx(theirs[outcome], rel=1e-9)
    both = classic.merge(fast, on=["ms", "deal"])
    assert facts["classic_vs_fast"] == {
        "common": len(both), "verdicts_differ": int((both["outcome_x"].astype(str) != both["outcome_y"].astype(str)).sum()),
        "cards_played_differ": int((both["cards_played_x"] != both["cards_played_y"]).sum())}
    for timing in facts["timings"].values():
        assert timing["wall_seconds"] > 0 and timing["cpu_seconds"] > 0 and timing["load_average_start"] >= 0
    assert facts["timings"]["fast"]["deals_solved"] == len(fast)
    assert facts["timings"]["classic"]["deals_solved"] == len(classic)


def test_the_figures_for_scale_speak_of_the_million_whatever_the_study_solved(facts, study):
    """A study of 2,000 deals wrote that the million "would take about 0 CPU-hours" (scaled by its own deals)."""
    partial = {**facts, "fast": {**facts["fast"], "deals": 2000}}
    hours = [re.findall(r"about ([\d,]+) CPU-hours", " ".join(study.render_readme(figures).split())) for figures in (facts, partial)]
    assert hours[0] == hours[1] and len(hours[0]) == 3 and all(int(h.replace(",", "")) > 0 for h in hours[0]), hours


def test_results_readme_is_what_study_renders_from_its_figures(facts, study, classic):
    readme = (RESULTS / "README.md").read_text(encoding="utf-8")
    assert readme == study.render_readme(facts)
    table_text = study.render_prefixes(facts["classic_prefixes"])
    assert table_text in readme and table_text in (RESULTS / "CLASSIC_PREFIXES.md").read_text(encoding="utf-8")
    rows = table([line for line in table_text.splitlines()])
    for stats in prefix_stats(classic):  # the table itself, recomputed independently
        cells = []
        for outcome in ("solved", "unsolved"):
            s = stats[outcome]
            cells += [f"{s['deals']:,}", f"{round(s['mean']):,} ± {round(s['half_width']):,}",
                      f"{round(s['median']):,}", f"{round(s['std']):,}"]
        assert rows[f"{stats['first']:,}..{stats['last']:,}"] == cells


def test_readme_study_section_quotes_only_the_studys_figures(facts, fast, classic):
    """Every number in README's 'The million-deal study' section is one of the study's figures."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    body = text.split("## The million-deal study", 1)[1].split("\n## ", 1)[0]
    solved, unsolved = (int((fast["outcome"] == outcome).sum()) for outcome in ("solved", "unsolved"))
    low, high = wilson(solved, solved + unsolved)
    played = fast.loc[fast["outcome"] == "unsolved", "cards_played"]
    timing, prefix = facts["timings"]["fast"], prefix_stats(classic)[-1]
    minutes, seconds = divmod(round(timing["wall_seconds"]), 60)
    figures = {
        f"{solved:,}", f"{unsolved:,}", percent(solved, len(fast)), f"{100 * low:.2f}%", f"{100 * high:.2f}%",
        f"{int((played == 0).sum()):,}", f"{int((played == 50).sum()):,}", f"{len(fast):,}",
        f"{classic['deal'].min():,}", f"{classic['deal'].max():,}", f"{classic['deal'].min()}-{classic['deal'].max()}",
        f"{round(prefix['solved']['mean']):,}", f"{round(prefix['solved']['median']):,}",
        f"{round(prefix['unsolved']['mean']):,}", f"{round(prefix['solved']['half_width']):,}",
        f"{round(prefix['unsolved']['half_width']):,}",
        str(minutes), str(seconds), f"{timing['cpu_seconds']:,.0f}", f"{timing['load_average_start']:.1f}",
        f"{timing['load_average_end']:.1f}", f"{357 * len(fast) / 1000 / 3600:.0f}",
        f"{facts['timings']['classic']['cpu_seconds'] / len(classic) * len(fast) / 3600:.0f}",
    }
    words = {"2010", "869,413", "130,587", "553,884", "292,400", "79,000", "32000", "51", "50", "2", "95%", "1", "1-60000"}
    machine = timing["machine"]  # the CPU named by its maker and line, as "Intel Xeon", "AMD EPYC"
    named = " ".join(re.sub(r"\((?:R|TM)\)|\b(?:Processor|CPU)\b|\d+-Core", "", machine["cpu"]).split()[:2])
    assert f"On a {machine['cpu_count']}-core {named}" in " ".join(body.split()), named
    numbers = re.findall(r"(?<!\w)\d(?:[\d,]*\d)?(?:\.\d+)?%?(?:-\d+)?", body)
    assert numbers and set(numbers) <= figures | words, sorted(set(numbers) - figures - words)


# ------------------------------------------------------------------ README's speed figures
def test_readme_speed_figures_are_the_committed_bench_output():
    path = RESULTS / "bench" / "solver.json"
    if not path.is_file():
        pytest.skip("results/bench/solver.json is not committed yet: on a quiet machine, "
                    "python scripts/bench_solver.py --summary results/bench/solver.json, then quote it in README")
    summary = json.loads(path.read_text(encoding="utf-8"))
    text = (REPO / "README.md").read_text(encoding="utf-8")
    speed = text.split("### Speed", 1)[1].split("\n## ", 1)[0]
    assert f"load average at {summary['load_average']:.1f}" in speed
    assert f"Measured on an {summary['machine']['cpu']}" in speed
    fast = summary["searches"]["fast"]
    rows = [line for line in speed.splitlines() if line.startswith("| ") and "median" not in line]
    assert len(rows) == len(fast["measures"])
    for row, measure in zip(rows, fast["measures"]):  # the table lists the measures in the script's order
        assert row.endswith(f"| {measure['median']:.3f} [{measure['min']:.3f}..{measure['max']:.3f}] "
                            f"| {measure['deals_per_second']:,.0f} | {measure['peer_ratio']:.0f}x |"), row
    iterations = fast["iterations"]
    assert (f"Iterations per deal: mean {iterations['mean']:,.0f}, median {iterations['median']:,.0f}, "
            f"max {iterations['max']:,}.") in " ".join(speed.split())


FAMILY_SPEED_GAMES = ("all_in_a_row", "golf", "dead_king_golf", "relaxed_golf")


def test_readme_family_speed_table_is_the_committed_bench_output():
    """Each game's row of the family's speed table is what `bench_solver.py --game G --summary
    results/bench/solver_G.json` measured, and the peer's CPU seconds are the sum of its CSV."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## The family", 1)[1].split("\n## ", 1)[0]
    rows = {line.split("|")[1].strip(): line for line in section.splitlines()
            if line.startswith("| `") and line.count("|") == 7}
    ratios = {}
    for game in FAMILY_SPEED_GAMES:
        path = RESULTS / "bench" / f"solver_{game}.json"
        if not path.is_file():
            pytest.skip(f"results/bench/solver_{game}.json is not committed: "
                        f"python scripts/bench_solver.py --game {game} --summary {path.relative_to(REPO)}")
        summary = json.loads(path.read_text(encoding="utf-8"))
        assert (summary["game"], summary["deals"]) == (game, "1-1000")
        raw, _, row = summary["searches"]["fast"]["measures"]
        peer = summary["searches"]["fast"]["peer_seconds"]
        with require_reference(f"family/peer_{game}_1_1000.csv").open(newline="") as handle:
            assert peer == pytest.approx(sum(float(line["cpu_seconds"]) for line in csv.DictReader(handle)))
        assert rows[f"`{game}`"] == (
            f"| `{game}` | {raw['median']:.3f} [{raw['min']:.3f}..{raw['max']:.3f}] | {row['median']:.3f} "
            f"| {peer:.1f} | {raw['peer_ratio']:.0f}x | {summary['load_average']:.1f} |")
        assert summary["command"] == f"python scripts/bench_solver.py --deals 1-1000 --repeats 5 --game {game}"
        assert f"measured on an {summary['machine']['cpu']}" in " ".join(section.split())
        ratios[game] = raw["peer_ratio"]
    prose = " ".join(section.split())  # the narrative quotes the table's ratios
    assert (f"gives Relaxed Golf {ratios['relaxed_golf']:.0f}x, Golf {ratios['golf']:.0f}x, "
            f"Dead King Golf {ratios['dead_king_golf']:.0f}x") in prose
    assert f"All in a Row ({ratios['all_in_a_row']:.0f}x)" in prose


def test_readme_memory_figure_is_a_new_solvers():
    """README's 'N MiB in all' is what a fresh Solver holds (it had said 69 MiB for a while after the
    tables grew a byte a slot)."""
    from blackhole_stats import _core

    text = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    held = _core.Solver().memory_bytes / 2**20
    assert f"2^22 slots ({held:.0f} MiB in all, `Solver().memory_bytes`;" in text, held


def bench_summary(name: str) -> dict:
    """A measuring script's committed summary (results/bench/NAME), which README quotes."""
    path = RESULTS / "bench" / name
    if not path.is_file():
        pytest.skip(f"results/bench/{name} is not committed")
    return json.loads(path.read_text(encoding="utf-8"))


def readme_between(start: str, end: str) -> str:
    """README's text from `start` to `end`, whitespace runs as single spaces (prose wraps anywhere)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return " ".join(text.split(start, 1)[1].split(end, 1)[0].split())


def spread(figures: dict, digits: int) -> str:
    return f"{figures['median']:.{digits}f} [{figures['min']:.{digits}f}..{figures['max']:.{digits}f}]"


def test_readme_run_figures_are_the_committed_bench_output():
    summary = bench_summary("run.json")
    runs = readme_between("## Runs: `blackhole-stats run`", "\n### ")
    assert f"{summary['command']} --summary results/bench/run.json" in runs
    assert f"load average at {summary['load_average']:.1f}" in runs
    count = f"deals {summary['deals'].replace('-', '..')}"
    assert f"| {count}, CPU s |" in runs and f"| {count}, wall s |" in runs
    for workers, figures in summary["workers"].items():
        assert (f"| {workers} | {spread(figures['fixed_cpu_s'], 2)} | {spread(figures['whole_cpu_s'], 2)} "
                f"| {figures['cpu_ms_per_deal']:.3f} | {spread(figures['whole_wall_s'], 2)} "
                f"| {figures['deals_per_second']:,.0f} |") in runs, workers
    assert f"2 workers deal and solve {summary['speedup_2_workers']:.2f}x the deals per second of one" in runs
    baseline = summary["baseline"]
    if baseline is None:
        assert "v0.1.0" not in runs
        return
    assert (f"took {spread(baseline['whole_cpu_s'], 2)} CPU-s and {spread(baseline['whole_wall_s'], 2)} "
            f"wall seconds") in runs
    assert (f"this version runs at {baseline['cpu_ratio']:.2f}x its speed in CPU and "
            f"{baseline['wall_ratio']:.2f}x in wall time") in runs
    assert ("this version is slower" in runs) == (baseline["cpu_ratio"] < 1)


def test_readme_dealing_figures_are_the_committed_check_output():
    summary = bench_summary("dealing.json")
    dealing = readme_between("\nDealing: ", "\n## ")
    assert f"{summary['command']} --summary results/bench/dealing.json" in dealing
    assert summary["count"] == 1_000_000 and summary["matches_reference"] is True
    assert "SHA-256 given in the reference notes (match)" in dealing
    assert f"{summary['deals_per_second']:,.0f} deals per CPU second including formatting" in dealing
    pysol = summary["pysol_cards"]
    assert (f"`--pysol-cards {pysol['count']}` also deals 1..{pysol['count']} with pysol-cards") in dealing
    ratio = pysol["our_deals_per_second"] / pysol["their_deals_per_second"]
    assert (f"{pysol['their_deals_per_second']:,.0f} deals per CPU second against our "
            f"{pysol['our_deals_per_second']:,.0f} ({ratio:.0f}x;") in dealing
    assert f"with {pysol['boards_differing']} boards differing" in dealing
    assert f"Medians of {summary['repeats']} repeats" in dealing
    assert f"load average at {summary['load_average']:.1f}" in dealing
    assert f"measured on an {summary['machine']['cpu']}" in " ".join(dealing.split())


def test_readme_start_up_figures_are_the_committed_bench_output():
    summary = bench_summary("startup.json")
    startup = readme_between("It starts without click", "The peer itself needs")
    assert f"{summary['command']} --summary results/bench/startup.json" in startup
    install = "an editable install" if summary["editable_install"] else "a regular `pip install` of the wheel"
    assert (f"median of {summary['repeats']} interleaved runs, {install}, Python {summary['python']}, "
            f"the machine's load average at {summary['load_average']:.1f}, on an {summary['machine']['cpu']})") in startup
    cpu = {command["name"]: command["median"] for command in summary["commands"]}
    solve = f"blackhole-solve {' '.join(['--game', summary['game']])} (deal {summary['deal']})"
    assert (f"`python -c pass` {cpu['python -c pass']:.1f} ms, `blackhole-solve --version` "
            f"{cpu['blackhole-solve --version']:.1f} ms, `blackhole-solve --game {summary['game']}` on deal "
            f"{summary['deal']} (solved, 51 moves printed) {cpu[solve]:.1f} ms, i.e. "
            f"{cpu[solve] - cpu['python -c pass']:.1f} ms more than the interpreter alone "
            f"(`blackhole-stats --version` costs {cpu['blackhole-stats --version']:.1f} ms)") in startup


def test_readme_reader_timings_are_the_committed_bench_output():
    summary = bench_summary("readers.json")
    text = (REPO / "README.md").read_text(encoding="utf-8")
    readers = text.split("`scripts/bench_readers.py` times pandas", 1)[1].split("\nFormat 1 (0.1.0)", 1)[0]
    assert f"{summary['command']} --summary results/bench/readers.json" in readers
    prose = " ".join(readers.split())
    assert f"median CPU seconds of {summary['repeats']} repeats" in prose and f"pandas {summary['pandas']}" in prose
    assert f"load average at {summary['load_average']:.1f}" in prose
    assert f"measured on an {summary['machine']['cpu']}" in prose
    before, after = "format 1 (decimal128)", "format 2 (int64)"
    size = summary["deal_megabytes"]
    expected = [f"| deal column in memory (MB) | {size[before]:.1f} | {size[after]:.1f} "
                f"| {size[before] / size[after]:.0f}x smaller |"]
    for operation in summary["operations"]:
        cells = [f"raises {operation[label]['raises']}" if "raises" in operation[label]
                 else f"{operation[label]['median']:.4f}" for label in (before, after)]
        faster = ("-" if any(cell.startswith("raises") for cell in cells)
                  else f"{operation[before]['median'] / operation[after]['median']:.0f}x")
        expected.append(f"| `{operation['name']}` | {cells[0]} | {cells[1]} | {faster} |")
    assert [line for line in readers.splitlines() if line.startswith("| ") and "operation" not in line] == expected


def test_readme_classic_speed_is_quoted_only_from_a_committed_bench_output():
    speed = readme_between("### Speed", "\nDealing: ")
    if not (RESULTS / "bench" / "classic.json").is_file():
        assert "the raw classic search took" not in speed and "none is committed yet" in speed
        return
    summary = bench_summary("classic.json")
    classic, fast = summary["searches"]["classic"], summary["searches"]["fast"]
    raw = classic["measures"][0]
    iterations = classic["iterations"]
    assert (f"Measured by `{summary['command']} --summary results/bench/classic.json` with the machine's load "
            f"average at {summary['load_average']:.1f}: the raw classic search took {spread(raw, 1)} CPU-s for "
            f"the 1000 deals, {raw['peer_ratio']:.1f}x the peer's speed on identical iteration counts (mean "
            f"{iterations['mean']:,.0f}, median {iterations['median']:,.0f}, max {iterations['max']:,}), while "
            f"fast took {fast['measures'][0]['median']:.3f} in the same run.") in speed


# ------------------------------------------------------------------ the notebook
def printed(notebook) -> list[str]:
    """What each code cell printed, its stream outputs joined: a kernel flushing on its timer, on a busy
    machine, splits one print into two outputs."""
    texts = ["".join(output["text"] for output in cell.get("outputs", []) if output.get("output_type") == "stream")
             for cell in notebook.cells if cell.cell_type == "code"]
    return [text for text in texts if text]


def test_the_study_notebook_runs_and_prints_what_the_data_says(fast):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.read(RESULTS / "study.ipynb", as_version=4)
    committed = printed(notebook)
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(RESULTS)}}).execute()
    fresh = printed(notebook)
    solved, unsolved = (int((fast["outcome"] == outcome).sum()) for outcome in ("solved", "unsolved"))
    low, high = wilson(solved, solved + unsolved)
    assert (f"solvable: {solved:,} of {solved + unsolved:,} = {percent(solved, solved + unsolved)} "
            f"(95% Wilson interval {100 * low:.2f}%..{100 * high:.2f}%)\n") in fresh
    assert f"pandas, DuckDB and polars agree on {solved:,} solved, {unsolved:,} unsolved\n" in fresh
    assert fresh == committed, "results/study.ipynb's outputs are stale: jupyter execute --inplace results/study.ipynb"
    kinds = {key for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs
             for key in output.get("data", {})}
    assert {"image/png", "image/svg+xml"} <= kinds  # the plots, and the board and its solution drawn inline


# ------------------------------------------------------------------ the other games of the family
def game_results(game: str):
    """results/<game>/, or skip: the million-deal studies of the family are run after the code is merged."""
    folder = RESULTS / game
    if not (folder / "deals.parquet").is_file():
        pytest.skip(f"results/{game}/ is not committed yet: python scripts/study.py --game {game} "
                    "(deals 1..1,000,000), then commit results/{game}/ and results/FAMILY.md")
    return folder, pd.read_parquet(folder / "deals.parquet")


def peer_of(game: str) -> pd.DataFrame:
    peer = pd.read_csv(require_reference(f"family/peer_{game}_1_1000.csv"))
    return peer.rename(columns={"max_played": "cards_played"}).assign(ms=False)


GAMES = [game for game in FAMILY if game != "black_hole"]


@pytest.mark.parametrize("game", GAMES)
def test_a_games_report_and_its_peer_comparison_are_its_data(game):
    folder, data = game_results(game)
    assert set(data["game"].astype(str)) == {game}
    check_report(folder / "REPORT.md", data, game)
    check_comparison(folder / "COMPARE_peer_1_1000.md", data, peer_of(game), game)


@pytest.mark.parametrize("game", ["black_hole", *GAMES])
def test_each_peer_comparison_is_what_report_says_of_the_committed_rows_today(game):
    """A comparison made from committed files alone (the compact rows and the peer's CSV) is word for word what
    `report --compare` prints of them now: all five had gone stale when report added a line, and a reader
    running the command beside them got other text. `study.py --game G --comparisons` makes them again."""
    folder = RESULTS if game == "black_hole" else game_results(game)[0]
    peer = require_reference("peer_1_1000.csv" if game == "black_hole" else f"family/peer_{game}_1_1000.csv")
    compact = (folder / "deals.parquet").relative_to(REPO)
    done = subprocess.run([str(Path(sys.executable).with_name("blackhole-stats")), "report", str(compact), "--format",
                           "markdown", "--game", game, "--compare", str(peer), "--compare-game", game],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    title, rest = done.stdout.split("\n", 1)
    committed_title, committed_rest = (folder / "COMPARE_peer_1_1000.md").read_text(encoding="utf-8").split("\n", 1)
    stale = f"stale: python scripts/study.py --game {game} --comparisons"
    assert rest == committed_rest, stale
    a_side, b_side = title.split(", B = ")  # B: the peer's CSV, wherever this machine keeps it
    assert b_side.startswith(str(peer)), title
    assert committed_title.startswith(a_side + ", B = ") and \
        committed_title.endswith(f"/{peer.name}{b_side[len(str(peer)):]}"), stale


@pytest.mark.parametrize("game", GAMES)
def test_a_games_study_json_figures_are_its_data_and_the_peers(game):
    folder, data = game_results(game)
    facts = json.loads((folder / "study.json").read_text(encoding="utf-8"))
    figures = facts["fast"]
    _, talon, cards = FAMILY[game]
    unsolved = data.loc[data["outcome"] == "unsolved"]
    solved = int((data["outcome"] == "solved").sum())
    low, high = wilson(solved, solved + len(unsolved))
    assert (facts["game"], figures["deals"], figures["first"], figures["last"]) == (
        game, len(data), data["deal"].min(), data["deal"].max())
    assert (figures["solved"], figures["unsolved"]) == (solved, len(unsolved))
    assert (figures["solvable"]["low"], figures["solvable"]["high"]) == pytest.approx((low, high), abs=1e-12)
    assert (figures["no_pile_card"], figures["one_short"], figures["two_short"]) == tuple(
        int((unsolved["cards_played"] == n).sum()) for n in (talon, cards - 1, cards - 2))
    for outcome, stats in figures["iterations"].items():
        values = data.loc[data["outcome"] == outcome, "iterations"]
        assert (stats["median"], stats["max"]) == (values.median(), values.max())
        assert stats["mean"] == pytest.approx(values.mean(), rel=1e-12)
    assert facts["timing"]["deals_solved"] == len(data) and facts["timing"]["cpu_seconds"] > 0
    peer = peer_of(game)
    both = data.merge(peer, on=["ms", "deal"], suffixes=("", "_peer"))
    unsolvable = both[(both["outcome"].astype(str) == "unsolved") & (both["outcome_peer"] == "unsolved")]
    assert facts["vs_peer"] == {
        "deals": len(both), "verdicts_differ": int((both["outcome"].astype(str) != both["outcome_peer"]).sum()),
        "unsolved_cards_played_differ": int((unsolvable["cards_played"] != unsolvable["cards_played_peer"]).sum())}
    assert facts["vs_peer"]["verdicts_differ"] == 0


@pytest.mark.parametrize("game", GAMES)
def test_a_games_winnable_bitmap_is_its_solved_deals(game):
    folder, data = game_results(game)
    facts = json.loads((folder / "study.json").read_text(encoding="utf-8"))
    bits = np.unpackbits(np.fromfile(folder / facts["bitmap"], dtype=np.uint8), bitorder="little")
    ordered = data.sort_values("deal")
    assert facts["bitmap"] == f"{game}_1_{len(data)}.bits"
    assert ordered["deal"].tolist() == list(range(1, len(data) + 1))
    assert bits[:len(data)].tolist() == (ordered["outcome"] == "solved").astype(int).tolist()
    assert not bits[len(data):].any()


@pytest.mark.parametrize("game", GAMES)
def test_readme_quotes_each_committed_family_study(game):
    """README's "Studied so far" gives each committed game's count, fraction, interval and CPU time
    as its study.json has them."""
    folder, _ = game_results(game)
    facts = json.loads((folder / "study.json").read_text(encoding="utf-8"))
    solvable, timing = facts["fast"]["solvable"], facts["timing"]
    text = " ".join((REPO / "README.md").read_text(encoding="utf-8").split("Studied so far", 1)[1]
                    .split("\n\n", 1)[0].split())
    assert (f"**{facts['name']}**, PySolFC deals 1..{facts['fast']['last']:,}: {solvable['successes']:,} solvable, "
            f"{100 * solvable['fraction']:.2f}% (95% interval {100 * solvable['low']:.2f}%.."
            f"{100 * solvable['high']:.2f}%)") in text
    assert f"{timing['cpu_seconds']:,.0f} CPU-s (2 workers, {timing['wall_seconds']:,.0f} s wall)" in text
    assert facts["vs_peer"]["verdicts_differ"] == facts["vs_peer"]["unsolved_cards_played_differ"] == 0


@pytest.mark.parametrize("game", GAMES)
def test_the_winnable_guide_lists_each_committed_family_bitmap(game):
    folder, data = game_results(game)
    facts = json.loads((folder / "study.json").read_text(encoding="utf-8"))
    guide = (RESULTS / "winnable" / "README.md").read_text(encoding="utf-8")
    assert (f"| {facts['name']} | `../{game}/{facts['bitmap']}` | {int((data['outcome'] == 'solved').sum()):,} |"
            in guide)


def test_the_family_table_is_what_the_committed_studies_give(study):
    """results/FAMILY.md is what study.py renders from the committed files, and its figures are the data's."""
    text = (RESULTS / "FAMILY.md").read_text(encoding="utf-8")
    assert text == study.render_family(study.family_facts(RESULTS))
    rows = table(text.splitlines())
    for game, (name, talon, cards) in FAMILY.items():
        path = RESULTS / ("deals.parquet" if game == "black_hole" else f"{game}/deals.parquet")
        label = f"{name} (`{game}`)"
        if not path.is_file():
            assert label not in rows and f"{name} (`python scripts/study.py" in text
            continue
        data = pd.read_parquet(path)
        played = data.loc[data["outcome"] == "unsolved", "cards_played"]
        effort = [f"{round(values.median()):,} / {round(values.mean()):,}" for values in
                  (data.loc[data["outcome"] == outcome, "iterations"] for outcome in ("solved", "unsolved"))]
        assert rows[label] == [f"{data['deal'].min():,}..{data['deal'].max():,}", interval(data), *effort,
                               f"{int((played == talon).sum()):,} ({percent(int((played == talon).sum()), len(data))})",
                               f"{int((played == cards - 1).sum()):,} "
                               f"({percent(int((played == cards - 1).sum()), len(data))})"]


def test_every_committed_compact_file_names_its_game_on_every_row():
    """Concatenated in a notebook, the studies' rows group by game: Black Hole's compact files had no
    `game` column, and `groupby("game")` dropped their 1,010,000 rows without a word."""
    paths = {"black_hole": [RESULTS / "deals.parquet", RESULTS / "classic_deals.parquet"],
             **{game: [RESULTS / game / "deals.parquet"] for game in FAMILY if game != "black_hole"}}
    frames = [pd.read_parquet(path) for files in paths.values() for path in files if path.is_file()]
    for game, files in paths.items():
        for path in files:
            if path.is_file():
                assert set(pd.read_parquet(path, columns=["game"])["game"].astype(str)) == {game}, path
    together = pd.concat(frames)
    assert together["game"].notna().all()
    assert together.groupby("game", observed=True).size().sum() == len(together) == sum(map(len, frames))


def test_readme_build_comparisons_are_the_committed_bench_output():
    """The pass's changes, each measured against the source before it by scripts/bench_builds.py."""
    text = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    quoted = {("golf", "heights", ""): "the pass alone {:.2f}x on Golf deals 1..200",
              ("relaxed_golf", "heights", ""): "and {:.2f}x on Relaxed Golf's",
              ("relaxed_golf", "fast", ""): "the whole search {:.2f}x on Relaxed Golf deals 1..1000, 0 deals",
              ("relaxed_golf", "fast", "_diagonals"): "the whole search {:.2f}x on Relaxed Golf deals 1..1000, 1.",
              ("golf", "fast", "_diagonals"): "{:.2f}x on Golf's and",
              ("dead_king_golf", "fast", "_diagonals"): "{:.2f}x on Dead King Golf's",
              ("relaxed_golf", "fast", "_live_cubes"): "the whole search {:.2f}x on Relaxed Golf deals 1..1000, 1.0",
              ("golf", "fast", "_live_cubes"): "{:.2f}x on Golf's, 1.0",
              ("dead_king_golf", "fast", "_live_cubes"): "{:.2f}x on Dead King Golf's). Measured"}
    for (game, search, change), words in quoted.items():
        summary = bench_summary(f"builds_{game}{'_heights' if search == 'heights' else ''}{change}.json")
        assert (summary["game"], summary["search"], summary["differing"]) == (game, search, 0)
        assert summary["command"].startswith("python scripts/bench_builds.py --base ")
        assert words.format(summary["speedup"]) in text, words.format(summary["speedup"])
        assert summary["seconds"]["base"]["median"] / summary["seconds"]["other"]["median"] == summary["speedup"]
