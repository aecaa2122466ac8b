#!/usr/bin/env python3
"""Reproduce the million-deal study in one command; every figure in results/ comes from here.

1. `blackhole-stats run` over PySolFC deals 1..1,000,000 with the default
   (fast) search, into RUNS/million (resumable: rerun to finish it), timed;
2. `blackhole-stats verify` on it (every solution replayed);
3. `blackhole-stats run --search classic` over a prefix (default the first 10,000 deals of --deals:
   classic is far slower, results/README.md says what it cost) into
   RUNS/classic, timed, to read the 2010 study's iteration figures, and a
   comparison of the two runs;
4. the reports (markdown), the plots, the comparison with the peer's CSV
   (deals 1..1000), compact per-deal Parquet files without solutions, the
   classic prefix table, `study.json` (every figure results/README.md quotes)
   and results/README.md itself, written to RESULTS (default: results/).

With `--game G` (another game of the family: All in a Row, Golf, Dead King
Golf, Relaxed Golf), the same for that game into RUNS/G and RESULTS/G/: the
run (no classic search: it plays Black Hole only), `verify`, REPORT.md with
its plots, a compact deals.parquet (with its `game` column), the comparison
with the peer's CSV of deals 1..1000 (../shared/reference/family/), the
winnable deals as a bitmap (`scripts/winnable_bitmap.py`), study.json; then
RESULTS/FAMILY.md, the games studied so far side by side (`--family` writes
only that table; `--comparisons`, only the game's comparison with the peer,
from the compact rows RESULTS holds).

Timings are those of the sessions that solved the deals, summed (a study
stopped and run again): wall seconds, CPU seconds of the run and its workers,
the largest process's peak memory and the load averages (the machine may be
shared). A rerun that finds the runs complete keeps the timings recorded in
RESULTS/study.json.

    python scripts/study.py                       # the whole study
    python scripts/study.py --deals 1-10000 --classic 1-1000 --results /tmp/small
    python scripts/study.py --game golf           # Golf, deals 1..1,000,000, into results/golf/
    python scripts/study.py --game golf --deals 1-2000 --runs /tmp/runs --results /tmp/results
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import argparse
import contextlib
import json
import math
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow.dataset as pads
import pyarrow.parquet as pq

from blackhole_stats.atomic import replace_text, replacing
from blackhole_stats.deals import DealSet, DealSpecError
from blackhole_stats.quoting import counted

COMPACT_COLUMNS = ["game", "deal", "ms", "outcome", "iterations", "cards_played"]
"""The compact files keep the `game` column: concatenated in a notebook, each row still says which
game it is (a row without one would drop out of a groupby on it)."""
ALL_IN_A_ROW_PUBLISHED = 67.1
"""Percent of All in a Row deals 1..1,000,000 solvable, the only published figure (Shlomi Fish, as
quoted by Wolter in 2014, without per-deal data; ../shared/reference/family/FAMILY.md)."""
Z95 = 1.959963984540054
"""Two-sided 95% normal quantile (as in blackhole_stats.report)."""
PEER_CPU_SECONDS_1_1000 = 357.0
"""black-hole-solver 1.14, default mode, deals 1..1000 on the AMD EPYC machine kind this project first had (../shared/reference/README.md)."""
MILLION = 1_000_000
"""The study the figures for scale speak of (README's "the million"), whatever --deals a run solved."""
DEFAULT_DEALS = "1-1000000"
"""The deals a study solves without --deals: the million."""
CLASSIC_DEALS = 10_000
"""The classic run's deals without --classic: the first of --deals (all of a smaller study)."""
STUDY_2010 = {"solved": 869_413, "unsolved": 130_587, "mean_a": 292_400, "mean_b": 553_884, "median": 79_000}
"""The 2010 study's published figures: its counts, and the two means and the median its summary quotes."""


def cli(*args: str, stdout=None, stderr=None) -> None:
    """Run the console script installed next to this Python (`benchlib.run_command`: a signal to the study
    reaches it once, and it stops as it does on its own, a run recording what it solved, before the study
    records its timing); stop the study if it fails."""
    command = [str(Path(sys.executable).with_name("blackhole-stats")), *args]
    print("$ blackhole-stats", " ".join(args), flush=True)
    code = benchlib.run_command(command, stdout=stdout, stderr=stderr)
    if code:
        raise subprocess.CalledProcessError(code, command)


SCRIPT = Path(sys.argv[0]).stem
"""The script running ("study", or "ten_million"), as its messages name it."""


def manifest(run: Path) -> dict | None:
    """RUN's manifest, read as `run` reads it (beside RUN, or inside it where 0.1.0 put it), None before
    its first session; a damaged one stops the script in one line."""
    from blackhole_stats.dataset import DatasetError, read_manifest
    try:
        return read_manifest(str(run))
    except DatasetError as error:
        sys.exit(f"{SCRIPT} stopped: {error}")


def check_run(run: Path, game, deals: DealSet, option: str, folder: str = "--runs", search: str = "fast",
              exactly: bool = False, solving: bool = True) -> None:
    """Stop before anything is written where RUN is a run of another game or search, made with --max-iters,
    or asks for deals outside `deals`: the run would go on with them, and the study would write their
    figures as those asked for (another game's as Black Hole's, a report of deals 1..200 for --deals
    50-150, deals left intractable by a budget among exact verdicts). Where the study is `solving` (it
    runs RUN to `deals`), also where RUN asks for other deals than `deals` (`exactly`: a sample run would
    be asked for all of them) or was made with --difficulty and has deals left (it would score them)."""
    from blackhole_stats.dataset import DatasetError, run_game
    recorded = manifest(run)
    if recorded is None:
        return
    try:
        played = run_game(recorded)
        asked = DealSet.parse(recorded["deals"])
        beyond = asked - deals
    except (DatasetError, DealSpecError, KeyError, TypeError) as error:
        sys.exit(f"{SCRIPT} stopped before writing anything: {run}'s manifest is damaged ({error})")
    if played is not game:
        sys.exit(f"{SCRIPT} stopped before writing anything: {run} is a run of {played.name}, not {game.name}: "
                 f"give another {folder}")
    if recorded.get("search", "fast") != search or recorded.get("max_iters") is not None:
        made = f"--search {recorded.get('search')}" + (f" --max-iters {recorded['max_iters']}"
                                                       if recorded.get("max_iters") is not None else "")
        sys.exit(f"{SCRIPT} stopped before writing anything: {run} is a run made with {made}, where the study's "
                 f"is the {search} search without a budget: give another {folder}")
    if solving and exactly and asked != deals and not beyond:
        sys.exit(f"{SCRIPT} stopped before writing anything: {run} asks for deals {asked}, not {option} {deals}: "
                 f"the study would ask it for all of them; give another {folder}")
    if beyond:
        sys.exit(f"{SCRIPT} stopped before writing anything: {run} asks for deals {beyond} beyond {option} {deals}: "
                 + (f"give {option} every deal of the run, or another {folder}" if option.startswith("--")
                    else f"give another {folder}"))
    if solving and recorded.get("difficulty_scale") is not None and not (recorded.get("finished") and asked == deals):
        sys.exit(f"{SCRIPT} stopped before writing anything: {run} is a run made with --difficulty, which would "
                 f"score every winnable deal it solves (hours more): give another {folder}")


def writable_folder(folder: Path, option: str) -> None:
    """Make `folder` (the results' place) and try a file in it, before a run solves anything: a folder it
    cannot write in stopped the study after its runs, with a traceback and their timings lost."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        problem = benchlib.cannot_write_in(folder)
    except OSError as error:
        problem = error.strerror
    if problem is not None:
        sys.exit(f"{SCRIPT} stopped before writing anything: {option} {folder}: {problem}")


BLACK_HOLE_FILES = ("study.json", "REPORT.md", "plots", "deals.parquet", "REPORT_classic.md", "COMPARE_classic_fast.md",
                    "classic_deals.parquet", "COMPARE_peer_1_1000.md", "CLASSIC_PREFIXES.md", "README.md")
"""What Black Hole's study writes in RESULTS (FAMILY.md is the family's: a game's study writes it too)."""


def holding(folder: Path, option: str, written: tuple[str, ...]) -> contextlib.ExitStack:
    """`folder` (the results' place) held by this study until the block ends (`benchlib.holding`)."""
    return benchlib.holding(folder, f"{SCRIPT} stopped before writing anything: another study is writing to "
                                    f"{option} {folder}", written)


def timed_run(run: Path, *args: str, sessions: list | None = None) -> dict | None:
    """`blackhole-stats run ... --out RUN`, timed; None if it found every deal already solved.

    With `sessions`, the timing is appended to it too, also when the run stops with an error (Ctrl-C,
    a full disk: the run records what it solved), so that a study resumed later sums every session.
    """
    known = len((manifest(run) or {}).get("sessions", []))
    before, load = resource.getrusage(resource.RUSAGE_CHILDREN), os.getloadavg()
    started = time.perf_counter()
    timing = None
    try:
        cli("run", *args, "--out", str(run))
    finally:
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        after_run = manifest(run) or {"sessions": []}
        recorded = after_run["sessions"]
        if len(recorded) > known and recorded[-1]["deals_solved"]:  # else: a run with nothing to do
            timing = {"command": f"blackhole-stats run {' '.join(args)} --out {run}",
                      "deals_solved": recorded[-1]["deals_solved"], "wall_seconds": round(wall, 1),
                      "cpu_seconds": round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 1),
                      "max_rss_mb": round(after.ru_maxrss / 1024),  # Linux: KiB, the largest process's peak
                      "load_average_start": round(load[0], 2), "load_average_end": round(os.getloadavg()[0], 2),
                      "machine": after_run["machine"]}
            if sessions is not None:
                sessions.append(timing)
    return timing


def write_compact(run: Path, target: Path) -> None:
    """The run's rows without solutions and solve times: small enough to commit."""
    table = pads.dataset(str(run), format="parquet").to_table(columns=COMPACT_COLUMNS)
    with replacing(target) as temp:
        pq.write_table(table.sort_by([("ms", "ascending"), ("deal", "ascending")]), temp,
                       compression="zstd", compression_level=19)


def report(source: Path | str, markdown: Path, *extra: str, stderr=None) -> None:
    with replacing(markdown) as temp, temp.open("w", encoding="utf-8") as handle:
        cli("report", str(source), "--format", "markdown", *extra, stdout=handle, stderr=stderr)


def report_with_plots(source: Path, markdown: Path, plots: Path) -> None:
    """REPORT.md and its plots folder, each replaced only when the report is done. What the report says
    names the plots where they end up: it wrote them into a temporary folder, which is gone by then."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as said, replacing(plots) as new_plots:
        try:
            report(source, markdown, "--plots", str(new_plots), stderr=said)
        finally:
            said.seek(0)
            sys.stderr.write(said.read().replace(str(new_plots), str(plots)))


def load(source: Path | str):
    """A dataset as `blackhole-stats report` reads it (deal, ms, outcome, iterations, cards_played[, seconds])."""
    from blackhole_stats.report import load as load_dataset
    return load_dataset(source)


def outcome_facts(data) -> dict:
    """Counts, the solvable fraction with its 95% Wilson interval, how the unsolvable deals ended."""
    from blackhole_stats.report import Proportion
    counts = data["outcome"].value_counts()
    solved, unsolved = int(counts.get("solved", 0)), int(counts.get("unsolved", 0))
    played = data.loc[data["outcome"] == "unsolved", "cards_played"]
    iterations = {outcome: data.loc[data["outcome"] == outcome, "iterations"] for outcome in ("solved", "unsolved")}
    hardest = data.loc[data["iterations"].idxmax()]
    facts = {
        "deals": len(data), "first": int(data["deal"].min()), "last": int(data["deal"].max()),
        "solved": solved, "unsolved": unsolved, "intractable": int(counts.get("intractable", 0)),
        "solvable": vars(Proportion.of(solved, solved + unsolved)),
        "no_first_move": int((played == 0).sum()),
        "played_50": int((played == 50).sum()), "played_49": int((played == 49).sum()),
        "unsolved_median_iterations": float(iterations["unsolved"].median()),
        "hardest": {"deal": int(hardest["deal"]), "outcome": str(hardest["outcome"]),
                    "iterations": int(hardest["iterations"])},
        "hardest_solved_iterations": int(iterations["solved"].max()),
    }
    if "seconds" in data:
        facts["hardest"]["seconds"] = round(float(hardest["seconds"]), 3)
        facts["solve_seconds"] = round(float(data["seconds"].sum()), 1)
    return facts


def mean_interval(values) -> dict:
    """Count, mean, median, sample std and the 95% half-width of the mean (normal, from the std)."""
    values = np.asarray(values, dtype=np.float64)
    std = float(values.std(ddof=1))
    return {"deals": len(values), "mean": float(values.mean()), "median": float(np.median(values)), "std": std,
            "half_width": Z95 * std / math.sqrt(len(values))}


def prefix_sizes(count: int) -> list[int]:
    """1,000, 2,000, 5,000, 10,000, ... below `count`, then `count` itself."""
    steps = (10**power * factor for power in range(3, 10) for factor in (1, 2, 5))
    return [size for size in steps if size < count] + [count]


def classic_prefixes(data) -> list[dict]:
    """The peer's iteration statistics per outcome over growing prefixes of the classic run."""
    data = data.sort_values("deal", ignore_index=True)
    rows = []
    for size in prefix_sizes(len(data)):
        head = data.iloc[:size]
        rows.append({"first": int(head["deal"].iloc[0]), "last": int(head["deal"].iloc[-1]),
                     **{outcome: mean_interval(head.loc[head["outcome"] == outcome, "iterations"])
                        for outcome in ("solved", "unsolved")}})
    return rows


def agreement(classic, fast) -> dict:
    """How the classic and fast runs differ on their common deals (they must not)."""
    both = classic.merge(fast, on=["ms", "deal"], suffixes=("_classic", "_fast"))
    return {"common": len(both),
            "verdicts_differ": int((both["outcome_classic"].astype(str) != both["outcome_fast"].astype(str)).sum()),
            "cards_played_differ": int((both["cards_played_classic"] != both["cards_played_fast"]).sum())}


def peer_agreement(classic, peer_csv: Path) -> dict:
    """The classic run against the peer's own CSV: verdicts, iterations (its states checked), cards played."""
    peer = load(peer_csv)
    both = classic.merge(peer, on=["ms", "deal"], suffixes=("", "_peer"))
    return {"deals": len(both),
            "verdicts_differ": int((both["outcome"].astype(str) != both["outcome_peer"].astype(str)).sum()),
            "iterations_differ": int((both["iterations"] != both["iterations_peer"]).sum()),
            "cards_played_differ": int((both["cards_played"] != both["cards_played_peer"]).sum())}


def number(value: float) -> str:
    return f"{round(value):,}"


def duration(seconds: float) -> str:
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"


def render_prefixes(rows: list[dict]) -> str:
    """The prefix table in markdown: per outcome, deals, mean ± its 95% half-width, median, std."""
    lines = ["| deals | solved: deals | mean ± 95% | median | std | unsolved: deals | mean ± 95% | median | std |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        cells = [f"{row['first']:,}..{row['last']:,}"]
        for outcome in ("solved", "unsolved"):
            stats = row[outcome]
            cells += [f"{stats['deals']:,}", f"{number(stats['mean'])} ± {number(stats['half_width'])}",
                      number(stats["median"]), number(stats["std"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def standard_errors(stats: dict, value: float) -> float:
    """How many standard errors of the mean `value` lies from the mean."""
    return abs(stats["mean"] - value) / (stats["half_width"] / Z95)


def judged(stats: dict, value: float) -> str:
    distance = standard_errors(stats, value)
    return (f"consistent with {value:,} ({distance:.1f} standard errors away)" if distance < Z95
            else f"{distance:.1f} standard errors away from {value:,}")


def render_readme(facts: dict) -> str:
    """results/README.md: what is here and what it shows, every figure from `facts` (study.json)."""
    fast, classic, timing = facts["fast"], facts["classic"], facts["timings"]
    fast_time, classic_time = timing["fast"], timing["classic"]
    machine = fast_time["machine"]
    solvable = fast["solvable"]
    full = facts["classic_prefixes"][-1]
    solved, unsolved = full["solved"], full["unsolved"]
    # the million's, as the text says, whatever --deals the run solved
    peer_hours = PEER_CPU_SECONDS_1_1000 * MILLION / 1000 / 3600
    classic_hours = classic_time["cpu_seconds"] / classic_time["deals_solved"] * MILLION / 3600
    agree = facts["classic_vs_fast"]
    peer = facts.get("classic_vs_peer")
    reversed_ = standard_errors(solved, STUDY_2010["mean_b"]) < Z95 <= standard_errors(solved, STUDY_2010["mean_a"])
    matches_2010 = (fast["solved"], fast["unsolved"]) == (STUDY_2010["solved"], STUDY_2010["unsolved"])
    # the options the study ran with (a study.json from before they were recorded: the million's)
    options = facts.get("options", {"--classic": f"{classic['first']}-{classic['last']}"})
    shown_options = "".join(f" {option} {value}" for option, value in options.items())
    deals_option = "".join(f" {option} {value}" for option, value in options.items() if option == "--deals")
    peer_line = ("" if peer is None else
                 f" Against the peer's own CSV (deals 1..1000), on the {peer['deals']:,} deals both hold: "
                 f"{peer['verdicts_differ']} verdicts, {peer['iterations_differ']} iteration counts and "
                 f"{peer['cards_played_differ']} cards-played figures differ.")
    return f"""# The million-deal study, reproduced

Generated by `scripts/study.py` from the runs it made; do not edit by hand
(the test suite recomputes every figure here from `*.parquet` and `study.json`).

PySolFC's Black Hole deals {fast['first']:,}..{fast['last']:,}, every one decided exactly, in
**{duration(fast_time['wall_seconds'])}** of wall time on a {machine['cpu_count']}-core machine, load average
{fast_time['load_average_start']:.1f} at the start and {fast_time['load_average_end']:.1f} at the end
(other work shared the machine) — the 2010 study that first did this took days of machine time.

```bash
python scripts/study.py --runs runs --results results{shown_options}
```

runs the whole study (resumable: rerun it to finish an interrupted one):
`blackhole-stats run` over the deals with the default `fast` search,
`blackhole-stats verify` (every stored solution replayed from its deal),
the reports and plots, compact per-deal files, and a `classic` run over a
prefix for the iteration counts; then this file and `study.json`.

## What is here

| file | what |
|---|---|
| `REPORT.md` | `blackhole-stats report --format markdown` of the million-deal run |
| `plots/iterations.png` | iterations per outcome, log scale |
| `plots/cards_played.png` | how many cards the unsolvable deals get out |
| `plots/solvable_fraction.png` | the running solvable fraction over the deal numbers, with its 95% interval |
| `deals.parquet` | one row per deal: `game`, `deal`, `ms`, `outcome`, `iterations`, `cards_played` (results format 2), the run's dataset without the solutions and solve times; `blackhole-stats report results/deals.parquet` reads it |
| `study.ipynb` | the analysis in a notebook, from `deals.parquet` (pandas, DuckDB and polars) |
| `REPORT_classic.md` | the report of the `classic` run over deals {classic['first']:,}..{classic['last']:,} |
| `CLASSIC_PREFIXES.md` | the `classic` run's iteration statistics on growing prefixes (the table below) |
| `COMPARE_peer_1_1000.md` | `blackhole-stats report results/deals.parquet --compare` the peer's CSV of deals 1..1000 |
| `COMPARE_classic_fast.md` | the two runs compared: verdicts and cards played on their common deals, statistics side by side |
| `classic_deals.parquet` | the same compact rows for the `classic` run (its iteration counts are the peer's "states checked") |
| `study.json` | every figure this file quotes, and the timings of the runs |
| `SCALE.md`, `scale.json` | how a run grows to 10^9 deals: `scripts/simulate_scale.py`, not this study |
| `bench/*.json` | what the measuring scripts' `--summary` wrote (`bench_solver.py`, `bench_run.py`, `bench_startup.py`, `bench_readers.py`, `check_deal_hash.py`): the speed figures README quotes, not this study |
| `winnable/` | which of deals 1..1,000,000 can be won, as a bitmap, with a guide for PySolFC maintainers (`winnable/README.md`) |
| `<game>/`, `FAMILY.md` | the other games of the family, each studied by `scripts/study.py --game <game>` (its report, plots, compact rows, peer comparison, winnable bitmap, `study.json`), and the games side by side |
| `difficulty/` | how the difficulty score was chosen and validated (`scripts/difficulty_research.py`, `validate_difficulty.py`) |

## The machine and the time

* {machine['cpu_count']} cores ({machine['cpu']}), {machine['platform']}, Python {machine['python']};
  a shared machine, so other work ran beside the study (load averages below).
* `{fast_time['command']}` ({fast_time['deals_solved']:,} deals):
  {fast_time['wall_seconds']:,} s of wall time ({duration(fast_time['wall_seconds'])}), {fast_time['cpu_seconds']:,} CPU-seconds
  (the run and its workers), {fast_time['deals_solved'] / fast_time['wall_seconds']:,.0f} deals per second, at most
  {fast_time['max_rss_mb']:,} MB resident for the largest process; load average
  {fast_time['load_average_start']:.2f} at the start, {fast_time['load_average_end']:.2f} at the end. `verify` then replayed all
  {fast['solved']:,} solutions and found every deal exactly once.
* `{classic_time['command']}` ({classic_time['deals_solved']:,} deals):
  {classic_time['wall_seconds']:,} s of wall time ({duration(classic_time['wall_seconds'])}), {classic_time['cpu_seconds']:,} CPU-seconds;
  load average {classic_time['load_average_start']:.2f} at the start, {classic_time['load_average_end']:.2f} at the end.
* For scale: the peer solver (black-hole-solver 1.14, default mode) needs
  {PEER_CPU_SECONDS_1_1000:.0f} CPU-seconds for deals 1..1000 alone on the AMD EPYC this project first had; at that
  rate the million would take about {peer_hours:.0f} CPU-hours. Our `classic` search, at this
  run's {classic_time['cpu_seconds'] / classic_time['deals_solved'] * 1000:,.0f} CPU-seconds per 1000 deals, would need about
  {classic_hours:.0f} CPU-hours for the million.

## Results

| | this run | the 2010 study |
|---|---|---|
| solvable | **{fast['solved']:,}** ({100 * solvable['fraction']:.2f}%, 95% Wilson interval {100 * solvable['low']:.2f}%..{100 * solvable['high']:.2f}%) | {STUDY_2010['solved']:,} |
| not solvable | **{fast['unsolved']:,}** ({100 * fast['unsolved'] / fast['deals']:.2f}%) | {STUDY_2010['unsolved']:,} |
| intractable | {fast['intractable']:,} | – |

{"The counts agree exactly." if matches_2010 else "The counts differ from the 2010 study's."} One deal is dealt differently: today's PySolFC
deals game 32000 with the Mersenne Twister, while the 2010 generator (like
pysol-cards) used the Microsoft LCG for it, which PySolFC now calls
`ms32000`. We use today's PySolFC; both boards are solvable
(`blackhole-stats solve 32000`, `blackhole-stats solve ms32000`), so the
totals cannot differ because of it.

Beyond the 2010 figures (see `REPORT.md`):

* {fast['no_first_move']:,} deals ({100 * fast['no_first_move'] / fast['deals']:.2f}%) have no legal first move at all.
* Unsolvable deals mostly die at once (median {fast['unsolved_median_iterations']:,.0f} positions expanded), but
  {fast['played_50']:,} of them let you play 50 of the 51 cards, and {fast['played_49']:,} more get to 49.
* The hardest deal for our search is {fast['hardest']['deal']} ({fast['hardest']['outcome']}, {fast['hardest']['iterations']:,}
  positions, {fast['hardest']['seconds']:.1f} s); the hardest solvable one needed {fast['hardest_solved_iterations']:,} positions.

## What the 2010 iteration figures mean

The 2010 summary quotes mean iteration counts of "about {STUDY_2010['mean_a']:,}" for solved
deals and "{STUDY_2010['mean_b']:,}" for unsolved ones, with a solved median of about
{STUDY_2010['median']:,}. Those counts are the peer solver's, so only our `classic` search
(which reproduces its state-for-state count) can be compared; `fast` expands
far fewer positions. A full `classic` million would take about {classic_hours:.0f}
CPU-hours here, so we ran it on a prefix: PySolFC deals {classic['first']:,}..{classic['last']:,}
({duration(classic_time['wall_seconds'])} of wall time, {classic_time['cpu_seconds']:,} CPU-seconds; verdicts differ from
`fast` on {agree['verdicts_differ']} and cards played on {agree['cards_played_differ']} of the {agree['common']:,} common deals).{peer_line}
The peer's statistics per outcome on growing prefixes (mean ± the half-width of
its 95% interval, from the sample standard deviation; `CLASSIC_PREFIXES.md`):

{render_prefixes(facts['classic_prefixes'])}

{"**The attribution in the 2010 summary is reversed.** " if reversed_ else ""}Over {classic['deals']:,} deals
the solved deals' mean is {number(solved['mean'])} ± {number(solved['half_width'])}: {judged(solved, STUDY_2010['mean_b'])}
and {judged(solved, STUDY_2010['mean_a'])}. The unsolved deals' mean is
{number(unsolved['mean'])} ± {number(unsolved['half_width'])}: {judged(unsolved, STUDY_2010['mean_a'])} and
{judged(unsolved, STUDY_2010['mean_b'])}. The solved median is {number(solved['median'])}
(the unsolved median is {number(unsolved['median'])}: most unsolvable deals die within a few moves).
The counts are heavy-tailed (the standard deviation is several times the mean),
so prefix means wander more than a normal interval suggests. The run is
resumable: `python scripts/study.py{deals_option} --classic 1-60000` (or any longer prefix)
extends it.
"""


# ------------------------------------------------------------------ the other games of the family
def game_facts(data, game) -> dict:
    """The figures of one game's study, from a dataset of it (`load`), in the game's own terms.

    `no_pile_card`: unsolvable deals whose best line plays no card from the piles (Black Hole: no
    legal first move; Golf: only the talon turned); `one_short` / `two_short`: unsolvable deals whose
    best line plays all but one / two of the cards there are to play (pile and talon cards).
    """
    from blackhole_stats.report import Proportion
    counts = data["outcome"].value_counts()
    solved, unsolved = int(counts.get("solved", 0)), int(counts.get("unsolved", 0))
    played = data.loc[data["outcome"] == "unsolved", "cards_played"]
    hardest = data.loc[data["iterations"].idxmax()]
    facts = {
        "game": game.key, "deals": len(data), "first": int(data["deal"].min()), "last": int(data["deal"].max()),
        "solved": solved, "unsolved": unsolved, "intractable": int(counts.get("intractable", 0)),
        "solvable": vars(Proportion.of(solved, solved + unsolved)),
        "no_pile_card": int((played == game.talon_size).sum()),
        "one_short": int((played == game.playable_cards - 1).sum()),
        "two_short": int((played == game.playable_cards - 2).sum()),
        "iterations": {outcome: {"median": float(values.median()), "mean": float(values.mean()),
                                 "max": int(values.max())}
                       for outcome in ("solved", "unsolved")
                       if len(values := data.loc[data["outcome"] == outcome, "iterations"])},
        "hardest": {"deal": int(hardest["deal"]), "outcome": str(hardest["outcome"]),
                    "iterations": int(hardest["iterations"])},
    }
    if "seconds" in data:
        facts["solve_seconds"] = round(float(data["seconds"].sum()), 1)
    return facts


def family_peer_agreement(data, peer_csv: Path) -> dict:
    """A game's run against the peer's CSV of it: verdicts, and the most cards played where both say unsolvable
    (the peer's count for a win is its search's, ours the winning line's; its iterations count other things)."""
    peer = load(peer_csv)
    both = data.merge(peer, on=["ms", "deal"], suffixes=("", "_peer"))
    unsolved = both[(both["outcome"].astype(str) == "unsolved") & (both["outcome_peer"].astype(str) == "unsolved")]
    return {"deals": len(both),
            "verdicts_differ": int((both["outcome"].astype(str) != both["outcome_peer"].astype(str)).sum()),
            "unsolved_cards_played_differ": int((unsolved["cards_played"] != unsolved["cards_played_peer"]).sum())}


def shared_peer(data, peer: Path | None, comparison: Path) -> Path | None:
    """The peer's CSV if the run shares a deal with it; else None, and no `comparison` file (a study of
    deals beyond the peer's 1..1000: `report --compare` refuses two datasets without a common deal, and a
    shorter study's file would speak of other deals)."""
    if peer is not None and len(data.merge(load(peer), on=["ms", "deal"])):
        return peer
    comparison.unlink(missing_ok=True)
    if peer is not None:
        print(f"note: the run shares no deal with {peer}: no peer comparison", file=sys.stderr)
    return None


def compare_with_peer(compact: Path, game, peer: Path | None) -> Path | None:
    """COMPARE_peer_1_1000.md beside `compact` (a study's compact rows): `report --compare` of them and the
    peer's CSV, if they share a deal (`shared_peer`); returns the CSV then, else None. Made from committed
    files alone, so `--comparisons` can make it again when `report` words its comparisons otherwise."""
    comparison = compact.with_name("COMPARE_peer_1_1000.md")
    peer = shared_peer(load(compact), peer, comparison)
    if peer is not None:  # (the game named: Black Hole's compact rows name none; the CSV by a relative
        report(compact, comparison, "--game", game.key,  # path, as ../shared/..., not this machine's)
               "--compare", os.path.relpath(peer), "--compare-game", game.key)
    return peer


def unreadable_peer(peer: Path | None, game) -> str | None:
    """What is wrong with the peer's CSV, as `load` reads it, for a study of `game` (None if nothing, or if
    there is none): checked before anything runs, as a missing or damaged one stopped the study in a
    traceback once its runs were solved and half its results replaced."""
    from blackhole_stats.dataset import DatasetError
    from blackhole_stats.report import game_of
    if peer is None:
        return None
    try:
        game_of(load(peer), str(peer), given=game)  # as `report --compare-game` takes it: its rows are the game's
    except DatasetError as error:
        return str(error)
    return None


def family_peer_csv(game) -> Path | None:
    """The peer's CSV of `game`, deals 1..1000, under the reference folder (see `peer_csv`)."""
    return reference_file(Path("family") / f"peer_{game.key}_1_1000.csv")


def study_game(game, deals: DealSet, runs: Path, results: Path, peer: Path | None) -> None:
    """One game of the family: its run, verify, report and plots, compact rows, peer comparison, bitmap, study.json."""
    from winnable_bitmap import pack
    run, target = runs / game.key, results / game.key
    check_run(run, game, deals, "--deals")
    writable_folder(target, "--results")
    with holding(target, "--results", ("study.json", "REPORT.md", "plots", "deals.parquet", "COMPARE_peer_1_1000.md",
                                       f"{game.key}_1_*.bits")):
        facts_path = target / "study.json"
        previous = recorded_facts(facts_path)
        sessions = kept_sessions(previous, run)
        try:
            timed_run(run, "--range", str(deals), "--game", game.key, sessions=sessions)
        finally:  # an interrupted study keeps its sessions' timings for the one that finishes the run
            if (recorded := manifest(run)) is not None:
                previous.update(run_started=recorded["started"], sessions=sessions)
                replace_text(facts_path, json.dumps(previous, indent=2) + "\n")
        cli("verify", str(run))
        report_with_plots(run, target / "REPORT.md", target / "plots")
        write_compact(run, target / "deals.parquet")
        data = load(run)
        facts = {"game": game.key, "name": game.name, "fast": game_facts(data, game), "timing": summed(sessions),
                 "run_started": manifest(run)["started"], "sessions": sessions}
        peer = compare_with_peer(target / "deals.parquet", game, peer)
        if peer is not None:
            facts["vs_peer"] = family_peer_agreement(data, peer)
        bits = None
        if facts["fast"]["first"] == 1 and facts["fast"]["intractable"] == 0 and facts["fast"]["deals"] == \
                facts["fast"]["last"] and not data["ms"].any():
            bits = target / f"{game.key}_1_{facts['fast']['last']}.bits"
            pack(str(target / "deals.parquet"), str(bits))
            facts["bitmap"] = bits.name
        for stale in target.glob(f"{game.key}_1_*.bits"):  # of a shorter study of the same game
            if stale != bits:
                stale.unlink()
        replace_text(facts_path, json.dumps(facts, indent=2) + "\n")
        write_family(results)
        print(f"results in {target}/")


def recorded_facts(path: Path) -> dict:
    """The study.json a study left ({} before the first), which keeps its runs' timed sessions; one that
    cannot be read, or does not hold them as a study writes them (a hand's edit, a merge), stops the
    study in one line before it runs anything (it was a traceback, or one once the runs were solved)."""
    if not path.exists():
        return {}
    try:
        facts = json.loads(path.read_text(encoding="utf-8"))
        for record in [facts, *facts.get("runs", {}).values()]:  # a family game's; Black Hole's fast and classic
            summed(list(record.get("sessions", [])))
        if not all(timing is None or isinstance(timing, dict) for timing in facts.get("timings", {}).values()):
            raise TypeError("a timing is neither null nor an object")
    except (OSError, ValueError, AttributeError, KeyError, TypeError) as error:  # (JSON's and UTF-8's: ValueError)
        problem = getattr(error, "strerror", None) or (
            f"a session without {error}" if isinstance(error, KeyError) else str(error))
        sys.exit(f"{SCRIPT} stopped before writing anything: {path} is damaged ({problem}): restore it (it holds "
                 "the timings of the runs it names), or move it aside and give new --runs")
    return facts


def kept_sessions(kept: dict, run: Path) -> list[dict]:
    """The timed sessions `kept` (a study.json's record of one run) holds for `run`: none if that record is
    of another run (another start), which a study must not time this one by."""
    started = (manifest(run) or {}).get("started")
    return list(kept.get("sessions", [])) if started and kept.get("run_started") == started else []


def summed(sessions: list[dict]) -> dict | None:
    """The timings of a run's sessions (a study interrupted and resumed) as one: sums, the largest memory,
    the load averages at the first start and the last end."""
    if not sessions:
        return None
    return {"command": sessions[-1]["command"], "sessions": len(sessions),
            **{key: round(sum(session[key] for session in sessions), 1)
               for key in ("deals_solved", "wall_seconds", "cpu_seconds")},
            "max_rss_mb": max(session["max_rss_mb"] for session in sessions),
            "load_average_start": sessions[0]["load_average_start"],
            "load_average_end": sessions[-1]["load_average_end"], "machine": sessions[-1]["machine"]}


def family_facts(results: Path) -> dict:
    """game key -> `game_facts` of its committed compact rows (Black Hole: results/deals.parquet), for every
    game whose study is in RESULTS, in the order of blackhole_stats.games.GAMES."""
    from blackhole_stats.games import BLACK_HOLE, GAMES
    found = {}
    for game in GAMES:
        path = results / "deals.parquet" if game is BLACK_HOLE else results / game.key / "deals.parquet"
        if path.is_file():
            data = family_rows(path, game)
            found[game.key] = {**game_facts(data, game), "deals_label": deals_label(data)}
    return found


def family_rows(path: Path, game):
    """The compact rows of `game`'s study at `path` (`load`), as FAMILY.md may count them: a file that cannot
    be read, holds a deal twice or is not the game's (its `game` column, which every study's compact file
    has) stops the script in one line, FAMILY.md as it was. Each was a traceback, or a table of figures
    counted as they stood (a deal twice in a game's percentage, Black Hole's rows as Golf's)."""
    from blackhole_stats.dataset import DatasetError
    from blackhole_stats.report import game_of
    try:
        data = load(path)
        game_of(data, str(path), given=game)
        if "game" not in data:
            raise DatasetError(f"{path} names no game: a study's compact rows of {game.name} have a game column")
        twice = data.duplicated(["ms", "deal"])
        if twice.any():
            raise DatasetError(f"{path} holds deal {'ms' if data['ms'][twice].iloc[0] else ''}"
                               f"{data['deal'][twice].iloc[0]} more than once")
    except DatasetError as error:
        sys.exit(f"{SCRIPT} stopped before writing FAMILY.md: {error}: run that game's study again, or move "
                 "the file aside")
    return data


def deals_label(data, shown: int = 3) -> str:
    """The deals a game's rows hold, as FAMILY.md names them (`1..1,000,000`; ms deals and gaps as runs of
    their own): the figures beside it are of exactly these."""
    from blackhole_stats.dataset import deals_held
    runs = deals_held(data["deal"].to_numpy(), data["ms"].to_numpy(bool)).runs
    spelt = [f"{'ms' if ms else ''}{first:,}" + ("" if first == last else f"..{'ms' if ms else ''}{last:,}")
             for ms, first, last in runs]
    more = len(runs) - shown
    return ", ".join(spelt[:shown]) + (f" and {counted(more, 'more run')}" if more > 0 else "")


def render_family(found: dict) -> str:
    """RESULTS/FAMILY.md: the games studied so far, side by side, every figure from `found` (`family_facts`)."""
    from blackhole_stats.games import DEFAULT_GAME, GAMES
    lines = ["# The five games side by side", "",
             "Generated by `scripts/study.py` from each game's compact per-deal file (`deals.parquet` for "
             "Black Hole, `<game>/deals.parquet` for the others); do not edit by hand. Our `fast` search "
             "decides every deal exactly; effort is the positions it expanded (not comparable with the "
             "peer's states). Near misses: unsolvable deals whose best line plays all but one card there is "
             "to play (in Golf, pile and talon cards alike); no pile card: unsolvable deals whose best line "
             "plays nothing from the piles (Black Hole and All in a Row: no legal first move; Golf: only the "
             "talon turned).", "",
             "| game | deals | solvable (95% Wilson interval) | effort, solved: median / mean | "
             "effort, unsolvable: median / mean | no pile card | near misses |",
             "|---|---|---|---|---|---:|---:|"]
    missing = []
    for game in GAMES:
        facts = found.get(game.key)
        if facts is None:
            missing.append(game)
            continue
        solvable, effort = facts["solvable"], facts["iterations"]
        cells = [f"{game.name} (`{game.key}`)", facts["deals_label"],
                 f"{100 * solvable['fraction']:.2f}% [{100 * solvable['low']:.2f}%, {100 * solvable['high']:.2f}%]",
                 *(f"{effort[outcome]['median']:,.0f} / {effort[outcome]['mean']:,.0f}" if outcome in effort else "-"
                   for outcome in ("solved", "unsolved")),
                 f"{facts['no_pile_card']:,} ({100 * facts['no_pile_card'] / facts['deals']:.2f}%)",
                 f"{facts['one_short']:,} ({100 * facts['one_short'] / facts['deals']:.2f}%)"]
        lines.append("| " + " | ".join(cells) + " |")
    if missing:
        lines += ["", "Not studied yet: " + ", ".join(
            f"{game.name} (`python scripts/study.py{'' if game is DEFAULT_GAME else f' --game {game.key}'}`)"
            for game in missing) + "."]
    aiar = found.get("all_in_a_row")
    if aiar is not None and (aiar["first"], aiar["last"], aiar["deals"]) == (1, 1_000_000, 1_000_000):
        solvable = aiar["solvable"]
        agrees = round(100 * solvable["fraction"], 1) == ALL_IN_A_ROW_PUBLISHED
        lines += ["", f"All in a Row: the only published figure, {ALL_IN_A_ROW_PUBLISHED}% of PySolFC deals "
                  "1..1,000,000 solvable (Shlomi Fish, as quoted in 2014, without per-deal data), "
                  + (f"agrees with ours to its one decimal: {100 * solvable['fraction']:.2f}% "
                     if agrees else f"differs from ours: {100 * solvable['fraction']:.2f}% ")
                  + f"({solvable['successes']:,} of {solvable['trials']:,}; 95% interval "
                  f"{100 * solvable['low']:.2f}%..{100 * solvable['high']:.2f}%)."]
    return "\n".join(lines) + "\n"


def write_family(results: Path) -> None:
    replace_text(results / "FAMILY.md", render_family(family_facts(results)))


def refuse_unused_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A usage error for an option that --family or --comparisons would not use: it was taken and ignored
    (as --classic was by another game's study: see main)."""
    runs = ("--deals", "--classic", "--runs")
    unused = {"--family": (*runs, "--game", "--peer", "--comparisons"), "--comparisons": runs}
    given = {option for option in (*runs, "--game", "--peer", "--comparisons")
             if getattr(args, option[2:]) not in (None, False)}
    for mode, options in unused.items():
        if getattr(args, mode[2:]):
            for option in options:
                if option in given:
                    parser.error(f"{option} is not used with {mode}, which writes from what --results holds")


def main() -> None:
    parser = benchlib.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default=None,
                        help="a game of the family other than Black Hole (key, PySolFC id or name): its study "
                             "into RESULTS/<game>/ (default: the Black Hole study)")
    parser.add_argument("--family", action="store_true", help="only write RESULTS/FAMILY.md from what RESULTS holds")
    parser.add_argument("--comparisons", action="store_true",
                        help="only write the game's COMPARE_peer_1_1000.md again, from its compact rows in RESULTS "
                             "and the peer's CSV (after a change to how `report --compare` words it)")
    parser.add_argument("--deals", default=None, help=f"the fast run's range (default {DEFAULT_DEALS})")
    parser.add_argument("--classic", default=None,
                        help=f"the classic run's range (default: the first {CLASSIC_DEALS:,} deals of --deals)")
    parser.add_argument("--runs", type=Path, default=None, help="where the full datasets go (default runs)")
    parser.add_argument("--results", type=Path, default=Path("results"), help="where the results go")
    parser.add_argument("--peer", type=Path, default=None,
                        help="the peer's CSV of the game (default: peer_1_1000.csv, or family/peer_<game>_1_1000.csv, "
                             "under $BLACKHOLE_SHARED/reference or ../shared/reference); skipped if absent")
    args = parser.parse_args()
    refuse_unused_options(parser, args)
    args.deals = DEFAULT_DEALS if args.deals is None else args.deals
    args.runs = Path("runs") if args.runs is None else args.runs
    if args.family:
        if not args.results.is_dir():
            parser.error(f"--results {args.results}: no folder (--family writes FAMILY.md from what one holds)")
        write_family(args.results)
        return
    try:
        deals = DealSet.parse(args.deals)
    except DealSpecError as error:
        parser.error(f"--deals: {error}")
    try:
        classic_deals = DealSet.parse(args.classic) if args.classic else next(deals.chunks(CLASSIC_DEALS))
    except DealSpecError as error:  # (a tiny study's classic run is tiny)
        parser.error(f"--classic: {error}")
    from blackhole_stats.games import BLACK_HOLE, UnknownGameError, get_game
    game = BLACK_HOLE
    if args.game is not None:
        try:
            game = get_game(args.game)
        except UnknownGameError as error:
            parser.error(str(error))
    if args.classic is not None and game is not BLACK_HOLE:
        parser.error(f"--classic: {game.name}'s study has no classic run (the classic search plays Black Hole only)")
    peer = args.peer or (peer_csv() if game is BLACK_HOLE else family_peer_csv(game))
    problem = unreadable_peer(peer, game)
    if problem is not None:
        parser.error(f"--peer {problem}") if args.peer else sys.exit(
            f"{SCRIPT} stopped before writing anything: the peer's CSV {problem}: restore it, or give --peer")
    if args.comparisons:
        compare_again(game, args.results, peer)
        return
    if game is not BLACK_HOLE:  # Black Hole's own study (classic prefix, the 2010 figures) is below
        study_game(game, deals, args.runs, args.results, peer)
        return
    fast, classic = args.runs / "million", args.runs / "classic"
    check_run(fast, BLACK_HOLE, deals, "--deals")
    check_run(classic, BLACK_HOLE, classic_deals, "--classic", search="classic")
    writable_folder(args.results, "--results")
    with holding(args.results, "--results", BLACK_HOLE_FILES):
        facts_path = args.results / "study.json"
        previous = recorded_facts(facts_path)
        timings, runs = previous.get("timings", {}), previous.get("runs", {})  # runs: each run's start and sessions
        recorded_before = set(runs)  # a timing without its run's record is from before "runs": kept as it was
        sessions = {"fast": kept_sessions(runs.get("fast", {}), fast),
                    "classic": kept_sessions(runs.get("classic", {}), classic)}
        def record() -> None:
            """The runs' timed sessions into study.json: an interrupted study keeps them for the one that
            finishes the runs (recorded after each run too, as a kill -9 leaves no `finally`)."""
            for name, run in (("fast", fast), ("classic", classic)):
                if (recorded := manifest(run)) is not None:
                    runs[name] = {"run_started": recorded["started"], "sessions": sessions[name]}
                timings[name] = summed(sessions[name]) or (None if name in recorded_before else timings.get(name))
            replace_text(facts_path, json.dumps({**previous, "runs": runs, "timings": timings}, indent=2) + "\n")

        try:
            timed_run(fast, "--range", str(deals), "--game", BLACK_HOLE.key, sessions=sessions["fast"])
            record()
            timed_run(classic, "--range", str(classic_deals), "--game", BLACK_HOLE.key, "--search", "classic",
                      sessions=sessions["classic"])
        finally:
            record()
        untimed = [name for name in ("fast", "classic") if timings[name] is None]
        if untimed:  # results/README.md quotes each run's time
            sys.exit(f"study stopped before writing its results: the {' and '.join(untimed)} run had nothing left "
                     f"to solve, and {facts_path} records no time of {'it' if len(untimed) == 1 else 'them'}: give "
                     "--results the folder of the study that solved them, or new --runs")
        cli("verify", str(fast))
        fast_data, classic_data = load(fast), load(classic)
        for name, data, least, option, asked in (("fast", fast_data, 1, "--deals", deals),
                                                 ("classic", classic_data, 2, "--classic", classic_deals)):
            outcomes = data["outcome"].astype(str).value_counts()
            solved, unsolved = outcomes.get("solved", 0), outcomes.get("unsolved", 0)
            if min(solved, unsolved) < least:  # a small study's first deals: no mean, spread or median of one
                sys.exit(f"study stopped before writing its results: the {name} run ({asked}) holds {solved} solved "
                         f"and {unsolved} unsolved deals, and its figures take {least} or more of each: give {option} "
                         "a longer range (what the runs solved is kept)")
        report_with_plots(fast, args.results / "REPORT.md", args.results / "plots")
        write_compact(fast, args.results / "deals.parquet")
        report(classic, args.results / "REPORT_classic.md")
        report(classic, args.results / "COMPARE_classic_fast.md", "--compare", str(fast))
        write_compact(classic, args.results / "classic_deals.parquet")
        peer = compare_with_peer(args.results / "deals.parquet", BLACK_HOLE, peer)
        options = {**({"--deals": str(deals)} if str(deals) != DEFAULT_DEALS else {}), "--classic": str(classic_deals),
                   **({"--peer": str(args.peer)} if args.peer else {})}  # README's command: what this study ran
        facts = {"options": options, "fast": outcome_facts(fast_data), "classic": outcome_facts(classic_data),
                 "classic_prefixes": classic_prefixes(classic_data),
                 "classic_vs_fast": agreement(classic_data, fast_data), "timings": timings, "runs": runs}
        if peer is not None:
            facts["classic_vs_peer"] = peer_agreement(classic_data, peer)
        replace_text(facts_path, json.dumps(facts, indent=2) + "\n")
        replace_text(args.results / "CLASSIC_PREFIXES.md",
            "# The classic run's iteration statistics on growing prefixes\n\n"
            "Generated by `scripts/study.py` from `classic_deals.parquet`: per outcome, the deals, the mean "
            "iterations ± the half-width of its 95% interval (normal, from the sample standard deviation), "
            "the median and the sample standard deviation.\n\n" + render_prefixes(facts["classic_prefixes"]) + "\n")
        replace_text(args.results / "README.md", render_readme(facts))
        print(f"results in {args.results}/")


def compare_again(game, results: Path, peer: Path | None) -> None:
    """`--comparisons`: the game's peer comparison made again from what RESULTS holds, nothing run."""
    from blackhole_stats.games import BLACK_HOLE
    target = results if game is BLACK_HOLE else results / game.key
    compact = target / "deals.parquet"
    if not compact.exists():
        sys.exit(f"{SCRIPT} --comparisons: no {compact}: the study of {game.name} writes it")
    if peer is None:
        sys.exit(f"{SCRIPT} --comparisons: no peer's CSV of {game.name}: give --peer")
    from blackhole_stats.dataset import DatasetError
    try:
        rows = load(compact)
    except DatasetError as error:  # (a damaged one was a traceback)
        sys.exit(f"{SCRIPT} --comparisons: {error}")
    if not len(rows.merge(load(peer), on=["ms", "deal"])):  # (the study would remove the comparison)
        sys.exit(f"{SCRIPT} --comparisons: {compact} and {peer} share no deal: nothing to compare")
    with holding(target, "--results", ("COMPARE_peer_1_1000.md",)):
        compare_with_peer(compact, game, peer)
        print(f"wrote {target / 'COMPARE_peer_1_1000.md'}")


def peer_csv() -> Path | None:
    """peer_1_1000.csv under $BLACKHOLE_SHARED (shared/ or shared/reference) or ../shared beside the checkout."""
    return reference_file(Path("peer_1_1000.csv"))


def reference_file(name: Path) -> Path | None:
    """A file of the reference folder: $BLACKHOLE_SHARED (shared/ or shared/reference) or ../shared beside
    the checkout; None if absent."""
    base = Path(os.environ.get("BLACKHOLE_SHARED") or Path(__file__).resolve().parents[2] / "shared")
    found = [path for path in (base / "reference" / name, base / name) if path.is_file()]
    return found[0] if found else None


def stopping_cleanly(main, kept: str = "what its runs solved and their timings are kept") -> None:
    """Run `main` as a script whose commands a signal or a failure stops in one line (a study; the
    ten-million study), as `benchlib.run_script` ends every script: Ctrl-C, SIGTERM or a hang-up reach the
    command running (see `cli`), which records what it did, and the script then dies of the signal, as a
    shell's loop over scripts expects."""
    def study() -> None:
        try:
            main()
        except subprocess.CalledProcessError as failed:
            how = (f"was stopped by {signal.Signals(-failed.returncode).name}" if failed.returncode < 0  # (a run
                   else f"exited with status {failed.returncode}")                                   # dies of it)
            sys.exit(f"{SCRIPT} stopped: {' '.join(map(str, failed.cmd[1:3]))} ... {how} "
                     "(its message above); run the same command to go on once that is fixed")

    benchlib.run_script(study, f"{SCRIPT} interrupted: {kept}; run the same command to go on")

if __name__ == "__main__":
    stopping_cleanly(main)
