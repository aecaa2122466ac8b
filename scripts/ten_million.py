#!/usr/bin/env python3
"""The ten-million-deal study: PySolFC Black Hole deals 1..10,000,000, in one resumable command.

1. `blackhole-stats run --range 1-10000000 --out RUN` (resumable: rerun it
   until it finishes; it takes about an hour and a half of two cores);
2. `blackhole-stats verify RUN` (every solution replayed, every row checked);
3. the per-deal verdicts packed into a bitmap (bit k set when deal k + 1 can
   be won, as `scripts/winnable_bitmap.py` writes it), 1.25 MB;
4. from the bitmap alone: the solvable fraction and its 95% interval, set
   against Solvitaire's 10^7 random deals and against the first million, the
   ten millions one by one, and the two PySolFC generators apart, written
   to RESULTS/ten_million.json and RESULTS/REPORT.md.

Every figure of REPORT.md is recomputed from the committed bitmap by
tests/test_results.py; the run's own provenance (its sessions, the versions
that solved it) comes from its manifest.

    python scripts/ten_million.py --run runs/tenm
    python scripts/ten_million.py --run runs/tenm --skip-run     # figures only, the run is complete
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import argparse
import json
import math
from pathlib import Path

import numpy as np

from blackhole_stats.atomic import replace_text
from blackhole_stats.deals import DealSet
from blackhole_stats.games import BLACK_HOLE
from blackhole_stats.report import Proportion

from study import check_run, cli, holding, manifest, stopping_cleanly, writable_folder
from winnable_bitmap import pack

DEALS = 10_000_000
BLOCK = 1_000_000
FIRST_MT_DEAL = 32_000
"""PySolFC deals 1..31999 with the Microsoft LCG and 32000 on with the Mersenne Twister (DEALING.md)."""
Z95 = 1.959963984540054
SOLVITAIRE = {"percent": 86.944, "half_width_percent": 0.022, "deals": 10**7,
              "source": "Blake & Gent's Solvitaire study (JAIR 2026, arXiv 1906.12314), 10^7 random deals, "
                        "95% confidence interval"}
CHI2_9DF_95 = 16.919
"""The 95th percentile of the chi-square distribution with 9 degrees of freedom (ten blocks)."""


def proportion(solved: int, deals: int) -> dict:
    return vars(Proportion.of(solved, deals))


def two_sample_z(a: dict, b: dict) -> float:
    """How many standard errors apart two independent fractions are."""
    variance = sum(side["fraction"] * (1 - side["fraction"]) / side["trials"] for side in (a, b))
    return (a["fraction"] - b["fraction"]) / math.sqrt(variance)


def read_bits(path: Path, deals: int) -> np.ndarray:
    """A winnable bitmap as booleans for deals 1..deals."""
    return np.unpackbits(np.fromfile(path, dtype=np.uint8), bitorder="little").astype(bool)[:deals]


def figures(winnable: np.ndarray, first_million: np.ndarray) -> dict:
    """Every figure of the report, from the per-deal verdicts (True = winnable) of deals 1..N
    and those of the committed million-deal study (an independent earlier run)."""
    deals = len(winnable)
    whole = proportion(int(winnable.sum()), deals)
    blocks = [proportion(int(winnable[start:start + BLOCK].sum()), len(winnable[start:start + BLOCK]))
              for start in range(0, deals, BLOCK)]
    expected = whole["fraction"]
    chi2 = sum((block["successes"] - block["trials"] * expected) ** 2 / (block["trials"] * expected * (1 - expected))
               for block in blocks)
    solvitaire_fraction = SOLVITAIRE["percent"] / 100
    solvitaire_se = SOLVITAIRE["half_width_percent"] / 100 / Z95
    ours_se = math.sqrt(expected * (1 - expected) / deals)
    rest = proportion(int(winnable[BLOCK:].sum()), deals - BLOCK)
    lcg = proportion(int(winnable[:FIRST_MT_DEAL - 1].sum()), FIRST_MT_DEAL - 1)
    mersenne = proportion(int(winnable[FIRST_MT_DEAL - 1:].sum()), deals - FIRST_MT_DEAL + 1)
    return {
        "deals": deals, "solvable": whole,
        "solvitaire": {**SOLVITAIRE,
                       "difference_percent": 100 * (expected - solvitaire_fraction),
                       "z": (expected - solvitaire_fraction) / math.hypot(ours_se, solvitaire_se)},
        "first_million": blocks[0], "after_first_million": rest,
        "first_million_vs_rest_z": two_sample_z(blocks[0], rest),
        "blocks": blocks, "blocks_chi2": chi2, "blocks_chi2_95": CHI2_9DF_95,
        "blocks_spread_percent": 100 * (max(b["fraction"] for b in blocks) - min(b["fraction"] for b in blocks)),
        "block_standard_error_percent": 100 * math.sqrt(expected * (1 - expected) / BLOCK),
        "lcg": lcg, "mersenne_twister": mersenne, "lcg_vs_mersenne_z": two_sample_z(lcg, mersenne),
        "first_million_differences": int((winnable[:BLOCK] != first_million).sum()),
    }


def percent(side: dict) -> str:
    return f"{100 * side['fraction']:.3f}% (95% interval {100 * side['low']:.3f}%..{100 * side['high']:.3f}%)"


def render(facts: dict, provenance: dict) -> str:
    """REPORT.md, from figures() and the run's provenance."""
    whole, solvitaire = facts["solvable"], facts["solvitaire"]
    first, rest = facts["first_million"], facts["after_first_million"]
    lines = [
        "# Ten million PySolFC Black Hole deals",
        "",
        "Generated by `scripts/ten_million.py` from `black_hole_1_10000000.bits` (bit k set when deal k + 1 "
        "can be won; `python scripts/winnable_bitmap.py expand` lists them). Every verdict is exact: each "
        "winnable deal was solved with a solution replayed by `blackhole-stats verify`, each other deal "
        "refuted by exhausting its positions.",
        "",
        f"* Deals 1..{facts['deals']:,}: **{whole['successes']:,} winnable**, {percent(whole)}; the half-width "
        f"of the interval is {100 * (whole['high'] - whole['low']) / 2:.3f} points.",
        f"* {solvitaire['source']}: {solvitaire['percent']:.3f}% ± "
        f"{solvitaire['half_width_percent']:.3f}%. Difference {solvitaire['difference_percent']:+.3f} points, "
        f"{solvitaire['z']:+.2f} standard errors of the difference.",
        f"* The first million (the 2010 study's deals): {first['successes']:,} winnable, {percent(first)}; "
        f"deals {1_000_001:,}..{facts['deals']:,}: {rest['successes']:,}, {percent(rest)}; "
        f"{facts['first_million_vs_rest_z']:+.2f} standard errors apart. Deals that this run and the "
        f"million-deal study (`../winnable/black_hole_1_1000000.bits`, an earlier run) decide differently: "
        f"{facts['first_million_differences']:,}.",
        f"* PySolFC's two generators: the Microsoft LCG deals 1..31,999, {counted(facts['lcg'])}; the Mersenne "
        f"Twister deals 32,000..{facts['deals']:,}, {counted(facts['mersenne_twister'])}; "
        f"{facts['lcg_vs_mersenne_z']:+.2f} standard errors apart.",
        "",
        "## The ten millions",
        "",
        "| deals | winnable | fraction | 95% interval |",
        "|---|---|---|---|",
    ]
    for index, block in enumerate(facts["blocks"]):
        first_deal = index * BLOCK + 1
        lines.append(f"| {first_deal:,}..{first_deal + block['trials'] - 1:,} | {block['successes']:,} | "
                     f"{100 * block['fraction']:.3f}% | {100 * block['low']:.3f}%..{100 * block['high']:.3f}% |")
    lines += [
        "",
        f"The blocks spread over {facts['blocks_spread_percent']:.3f} points, against a standard error of "
        f"{facts['block_standard_error_percent']:.3f} points for one block; chi-square for equal fractions "
        f"{facts['blocks_chi2']:.2f} on 9 degrees of freedom (5% critical value {facts['blocks_chi2_95']}).",
        "",
        "## The run",
        "",
        f"`{provenance['command']}`, in {len(provenance['sessions'])} sessions on a shared 2-core machine "
        f"(niced, beside other work, so its wall time is no speed figure; `scripts/bench_run.py` measures "
        f"throughput). Tool versions its sessions recorded: {', '.join(provenance['versions'])} (development "
        f"builds called themselves 0.1.0 until 0.2.0.dev0).",
        "",
    ]
    return "\n".join(lines)


def counted(side: dict) -> str:
    return f"{side['successes']:,} of {side['trials']:,} winnable, {percent(side)}"


def provenance_of(run: Path) -> dict:
    recorded = manifest(run)
    return {"command": f"blackhole-stats run --range {','.join(recorded['deals'])} --out {run.name}",
            "sessions": recorded["sessions"], "versions": sorted({s["version"] for s in recorded["sessions"]}),
            "finished": recorded["finished"], "machine": recorded["machine"]}


def main() -> None:
    parser = benchlib.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", type=Path, default=Path("runs/tenm"), help="the run's dataset (default runs/tenm)")
    parser.add_argument("--results", type=Path, default=Path("results/ten_million"), help="where the results go")
    parser.add_argument("--million", type=Path, default=Path("results/winnable/black_hole_1_1000000.bits"),
                        help="the million-deal study's bitmap, to compare the first million with")
    parser.add_argument("--skip-run", action="store_true", help="the run is complete: verify and write figures only")
    args = parser.parse_args()
    if not args.million.is_file():
        parser.error(f"--million {args.million}: no such file (the million-deal study's bitmap)")
    deals = DealSet.parse(f"1-{DEALS}")
    check_run(args.run, BLACK_HOLE, deals, "the study's", folder="--run", exactly=True, solving=not args.skip_run)
    if args.skip_run:
        recorded = manifest(args.run)
        if recorded is None or DealSet.parse(recorded["deals"]) != deals:
            parser.error(f"--skip-run: {args.run} is no run of deals {deals} (run the script without --skip-run)")
    writable_folder(args.results, "--results")
    with holding(args.results, "--results", ("ten_million.json", "REPORT.md", f"black_hole_1_{DEALS}.bits")):
        if not args.skip_run:
            cli("run", "--range", str(deals), "--game", BLACK_HOLE.key, "--out", str(args.run), "--no-progress")
        cli("verify", str(args.run))
        bitmap = args.results / f"black_hole_1_{DEALS}.bits"
        pack(str(args.run), str(bitmap))
        facts = figures(read_bits(bitmap, DEALS), read_bits(args.million, BLOCK))
        provenance = provenance_of(args.run)
        replace_text(args.results / "ten_million.json", json.dumps({**facts, "run": provenance}, indent=2) + "\n")
        replace_text(args.results / "REPORT.md", render(facts, provenance))
        print(f"results in {args.results}/: {percent(facts['solvable'])} winnable")


if __name__ == "__main__":
    stopping_cleanly(main, "what its run solved is kept")
