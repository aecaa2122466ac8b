#!/usr/bin/env python3
"""Benchmark the whole `blackhole-stats run` command with 1 and 2 workers, its fixed start-up apart.

Each measurement is the installed console script run as a subprocess into a
fresh directory, timed as a user's shell would: wall seconds, and CPU seconds
of the command and all its workers (user + system, from the children's
rusage). Four commands are interleaved in every repeat, the order rotating:

* `run --range 1 --workers N`: one trivial deal (9 positions), which is the
  fixed cost of any run: starting Python, imports, starting N workers, the
  manifest, one Parquet file;
* `run --range RANGE --workers N`: the whole range.

Per deal, the report subtracts the fixed cost: (whole - fixed) / deals. Set
the CPU per deal beside `Solver.solve_deal`'s in `scripts/bench_solver.py`
(same deals): the difference is what Parquet and scheduling add. Figures are
medians of the repeats with their range. Wall-clock figures (deals/s, the
2-worker speed-up) need the cores to be idle; CPU seconds hold up better on a
shared machine.

    python scripts/bench_run.py                          # deals 1-20000, 5 repeats
    python scripts/bench_run.py --range 1-4000 --repeats 7
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.dataset as pads

from blackhole_stats.deals import DealSet, DealSpecError


SCRIPT = Path(sys.executable).parent / "blackhole-stats"
TRIVIAL = "1"
"""The fixed-cost run: deal 1 has no line longer than 3 cards and is refuted in 9 positions."""


def timed_run(script: Path, deals: str, workers: int, out: Path, chunk_size: int | None) -> tuple[float, float]:
    """(wall, CPU seconds of the command and its workers) of one `run` of `script` into a fresh `out`."""
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(str(out) + ".run", ignore_errors=True)
    command = [str(script), "run", "--range", deals, "--out", str(out), "--workers", str(workers)]
    if chunk_size:
        command += ["--chunk-size", str(chunk_size)]
    said = out.with_name("run.stderr")  # shown if it fails; a signal's "resume with" would name a folder this
    with open(said, "wb") as stderr:  # script removes as it stops
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        status = benchlib.run_command(command, stdout=subprocess.DEVNULL, stderr=stderr)  # a signal stops it
        wall = time.perf_counter() - started                                                # and then this script
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if status:
        sys.stderr.write(said.read_text(encoding="utf-8", errors="replace"))
        raise SystemExit(f"bench_run.py: {' '.join(command)} failed (exit status {status}; its message above)")
    if pads.dataset(out).count_rows() != DealSet.parse([deals]).count:
        raise SystemExit(f"bench_run.py: run --range {deals} did not store every deal")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median(values: tuple[float, ...]) -> str:
    return f"{statistics.median(values):7.2f} [{min(values):.2f}..{max(values):.2f}]"


def main() -> None:
    parser = benchlib.parser(__doc__)
    parser.add_argument("--range", dest="deals", default="1-20000", help="as for run --range (default 1-20000)")
    parser.add_argument("--chunk-size", type=benchlib.positive, default=None,
                        help="run's --chunk-size (default: run's own)")
    parser.add_argument("--baseline", type=Path, metavar="CLI",
                        help="another install's blackhole-stats script (e.g. v0.1.0 in its own venv): its whole "
                             "2-worker run is timed in the same rotation and compared")
    args = benchlib.parse(parser)
    if not SCRIPT.exists():
        parser.error(f"the console script is not installed at {SCRIPT}: pip install -e .")
    try:
        count = DealSet.parse([args.deals]).count
    except DealSpecError as error:
        parser.error(f"--range: {error}")
    if args.baseline:
        benchlib.check_runs(parser, "--baseline", [str(args.baseline), "--version"])
    jobs = [(SCRIPT, deals, workers) for workers in (1, 2) for deals in (TRIVIAL, args.deals)]
    if args.baseline:
        jobs.append((args.baseline, args.deals, 2))
    figures: dict[tuple[Path, str, int], list[tuple[float, float]]] = {job: [] for job in jobs}
    load = benchlib.load_average()
    print(f"blackhole-stats run --range {args.deals} ({count:,} deals) vs --range {TRIVIAL} (fixed cost), "
          f"--workers 1 and 2, {args.repeats} repeats interleaved, {benchlib.shown_load(load)}; medians [min..max]")
    with tempfile.TemporaryDirectory() as scratch:
        for repeat in range(args.repeats):
            for turn in range(len(jobs)):
                job = jobs[(repeat + turn) % len(jobs)]
                figures[job].append(timed_run(*job, Path(scratch) / "run", args.chunk_size))
    print(f"{'':<12}{'fixed wall s':>22}{'fixed CPU s':>22}{'whole wall s':>22}{'whole CPU s':>22}")
    rates, per_workers = {}, {}
    for workers in (1, 2):
        fixed_wall, fixed_cpu = zip(*figures[SCRIPT, TRIVIAL, workers])
        whole_wall, whole_cpu = zip(*figures[SCRIPT, args.deals, workers])
        print(f"{workers} worker(s) " + "".join(f"{median(values):>22}"
                                              for values in (fixed_wall, fixed_cpu, whole_wall, whole_cpu)))
        if min(whole_wall) <= max(fixed_wall) or min(whole_cpu) <= max(fixed_cpu):
            # the range's deals add less than the noise: a difference of medians gave -264 deals/s for ms1-ms5
            raise SystemExit(f"bench_run.py: --range {args.deals} ({count:,} deal{'s' * (count != 1)}) took no longer "
                             f"than --range {TRIVIAL} in some repeat: too few deals to measure beyond the fixed cost; "
                             "give a longer range")
        wall = statistics.median(whole_wall) - statistics.median(fixed_wall)
        cpu = statistics.median(whole_cpu) - statistics.median(fixed_cpu)
        rates[workers] = count / wall
        print(f"    fixed cost aside: {rates[workers]:,.0f} deals/s, {cpu / count * 1e3:.3f} CPU-ms/deal")
        per_workers[workers] = {
            "fixed_wall_s": benchlib.spread(fixed_wall), "fixed_cpu_s": benchlib.spread(fixed_cpu),
            "whole_wall_s": benchlib.spread(whole_wall), "whole_cpu_s": benchlib.spread(whole_cpu),
            "deals_per_second": rates[workers], "cpu_ms_per_deal": cpu / count * 1e3}
    speedup = rates[2] / rates[1]
    print(f"2 workers: {speedup:.2f}x the deals/s of 1 (parallel efficiency {speedup / 2:.0%}), fixed cost aside")
    baseline = None
    if args.baseline:
        ours_wall, ours_cpu = (statistics.median(values) for values in zip(*figures[SCRIPT, args.deals, 2]))
        base_wall, base_cpu = zip(*figures[args.baseline, args.deals, 2])
        print(f"baseline {args.baseline}, whole run, 2 workers: wall {median(base_wall)} s, CPU {median(base_cpu)} s; "
              f"this version is {statistics.median(base_wall) / ours_wall:.2f}x faster (wall), "
              f"{statistics.median(base_cpu) / ours_cpu:.2f}x (CPU)")
        baseline = {"script": str(args.baseline), "whole_wall_s": benchlib.spread(base_wall),
                    "whole_cpu_s": benchlib.spread(base_cpu),
                    "wall_ratio": statistics.median(base_wall) / ours_wall,
                    "cpu_ratio": statistics.median(base_cpu) / ours_cpu}
    options = ["--range", args.deals, "--repeats", str(args.repeats)]
    options += ["--chunk-size", str(args.chunk_size)] if args.chunk_size else []
    options += ["--baseline", "BASELINE_CLI"] if args.baseline else []
    benchlib.write_summary(args.summary, "bench_run.py", options, load, deals=args.deals, count=count,
                           repeats=args.repeats, cpu_seconds_of="the command and all its workers",
                           workers=per_workers, speedup_2_workers=speedup, baseline=baseline)


if __name__ == "__main__":
    benchlib.run_script(main)
