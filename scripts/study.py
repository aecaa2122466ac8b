#!/usr/bin/env python3
"""Reproduce the million-deal study in one command.

1. `blackhole-stats run` over PySolFC deals 1..1,000,000 with the default
   (fast) search, into RUNS/million (resumable: rerun to finish it);
2. `blackhole-stats verify` on it (every solution replayed);
3. `blackhole-stats run --search classic` over a prefix (default 1..20000;
   the committed results used 1..60000) into RUNS/classic, to read the 2010
   study's iteration figures, and a comparison of the two runs;
4. the reports (markdown), the plots, and compact per-deal Parquet files
   without solutions, written to RESULTS (default: results/).

    python scripts/study.py                       # the whole study
    python scripts/study.py --deals 1-10000 --classic 1-1000 --results /tmp/small
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.dataset as pads
import pyarrow.parquet as pq

COMPACT_COLUMNS = ["deal", "ms", "outcome", "iterations", "cards_played"]


def cli(*args: str, stdout=None) -> None:
    """Run the console script installed next to this Python; stop the study if it fails."""
    command = [str(Path(sys.executable).with_name("blackhole-stats")), *args]
    print("$ blackhole-stats", " ".join(args), flush=True)
    subprocess.run(command, check=True, stdout=stdout)


def write_compact(run: Path, target: Path) -> None:
    """The run's rows without solutions and solve times: small enough to commit."""
    table = pads.dataset(str(run), format="parquet").to_table(columns=COMPACT_COLUMNS)
    pq.write_table(table.sort_by([("ms", "ascending"), ("deal", "ascending")]), target,
                   compression="zstd", compression_level=19)


def report(run: Path, markdown: Path, *extra: str) -> None:
    with markdown.open("w", encoding="utf-8") as handle:
        cli("report", str(run), "--format", "markdown", *extra, stdout=handle)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", default="1-1000000", help="the fast run's range (default 1-1000000)")
    parser.add_argument("--classic", default="1-20000", help="the classic run's range (default 1-20000)")
    parser.add_argument("--runs", type=Path, default=Path("runs"), help="where the full datasets go")
    parser.add_argument("--results", type=Path, default=Path("results"), help="where the results go")
    args = parser.parse_args()
    fast, classic = args.runs / "million", args.runs / "classic"
    args.results.mkdir(parents=True, exist_ok=True)

    cli("run", "--range", args.deals, "--out", str(fast))
    cli("verify", str(fast))
    plots = args.results / "plots"
    if plots.exists():
        shutil.rmtree(plots)
    report(fast, args.results / "REPORT.md", "--plots", str(plots))
    write_compact(fast, args.results / "deals.parquet")

    cli("run", "--range", args.classic, "--search", "classic", "--out", str(classic))
    report(classic, args.results / "REPORT_classic.md")
    report(classic, args.results / "COMPARE_classic_fast.md", "--compare", str(fast))
    write_compact(classic, args.results / "classic_deals.parquet")
    print(f"results in {args.results}/: REPORT.md, REPORT_classic.md, COMPARE_classic_fast.md, plots/, "
          "deals.parquet, classic_deals.parquet")


if __name__ == "__main__":
    main()
