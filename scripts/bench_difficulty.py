#!/usr/bin/env python3
"""Time the difficulty score (what `run --difficulty` adds per winnable deal), against a baseline build.

What is timed, in CPU seconds of one process (`time.process_time`): the score
(`difficulty.difficulty`) of every winnable deal among --deals, on boards
dealt and solved before the clock starts, with one Solver, as a run's worker
does. The figure is CPU ms per winnable deal, the median of the repeats.

With `--baseline PYTHON` (e.g. another checkout's venv: /work/venv/bin/python)
the same measurement runs in that interpreter too, whose installed
blackhole-stats is the baseline; the two alternate, each in a fresh
subprocess, so a shared machine's load falls on both alike, and every score
must be bit-identical between them (the scale's thresholds are fixed forever),
or the script exits 1.

    python scripts/bench_difficulty.py --game golf --deals 1-400
    python scripts/bench_difficulty.py --baseline /work/venv/bin/python --deals 1-1000 --repeats 5
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import json
import subprocess
import sys
import time


def measure(game_key: str, numbers: range) -> dict:
    """One measurement in this interpreter: the scores (as exact hex floats) and the CPU seconds they took."""
    from blackhole_stats import deal
    from blackhole_stats.difficulty import difficulty
    from blackhole_stats.games import get_game
    from blackhole_stats.solver import Solver

    game, solver = get_game(game_key), Solver()
    boards = [board for board in (deal(number, game) for number in numbers)
              if solver.solve(board, most_played=False).solved]
    started = time.process_time()
    scores = [difficulty(board, solver) for board in boards]
    spent = time.process_time() - started
    return {"deals": [int(board.name) for board in boards], "spent": spent,
            "scores": [None if score is None else score.hex() for score in scores]}


def measured(python: str, game_key: str, deals: str) -> dict:
    """One measurement in a fresh subprocess of `python` (its installed blackhole-stats)."""
    done = subprocess.run([python, __file__, "--measure", game_key, deals], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{python} failed to measure: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> None:
    if argv is None and sys.argv[1:2] == ["--measure"]:
        print(json.dumps(measure(sys.argv[2], benchlib.deal_range(sys.argv[3]))))
        return
    made = benchlib.parser(__doc__, game=True)
    made.add_argument("--deals", default="1-1000", help="deal numbers FIRST-LAST (default %(default)s)")
    made.add_argument("--baseline", metavar="PYTHON", help="an interpreter whose installed blackhole-stats is "
                                                           "the baseline, timed alternately in the same run")
    args = benchlib.parse(made, argv)
    benchlib.deal_range(args.deals, made)  # a bad one refused here, not by each measuring subprocess
    if args.baseline:
        benchlib.check_runs(made, "--baseline", [args.baseline, __file__, "--help"])  # as `measured` runs it
    load = benchlib.load_average()
    builds = {"this build": sys.executable, **({"baseline": args.baseline} if args.baseline else {})}
    spent: dict[str, list[float]] = {name: [] for name in builds}
    scores: dict[str, list] = {}
    for repeat in range(args.repeats):
        names = list(builds)[::1 if repeat % 2 == 0 else -1]
        for name in names:
            found = measured(builds[name], args.game.key, args.deals)
            if not found["scores"]:  # its figure was "0.00 CPU ms per winnable deal", printed and saved
                raise SystemExit(f"bench_difficulty: {args.game.name} deals {args.deals} hold no winnable deal: "
                                 "nothing to time; give more --deals")
            scores.setdefault(name, found["scores"])
            if found["scores"] != scores[name]:
                raise SystemExit(f"{name}: the scores changed between repeats")
            spent[name].append(found["spent"] * 1000 / len(found["scores"]))
    winnable = len(scores["this build"])
    print(f"{args.game.name}, deals {args.deals}: {winnable} winnable; {benchlib.shown_load(load)}; "
          f"CPU ms of the score per winnable deal, median of {args.repeats} (min..max):")
    figures = {name: benchlib.spread(values) for name, values in spent.items()}
    for name, figure in figures.items():
        print(f"  {name:10s} {figure['median']:8.2f}  ({figure['min']:.2f}..{figure['max']:.2f})  {builds[name]}")
    if args.baseline:
        identical = scores["baseline"] == scores["this build"]
        speedup = figures["baseline"]["median"] / figures["this build"]["median"]
        print(f"  {speedup:.2f}x the baseline's speed; scores {'bit-identical' if identical else 'DIFFER'}")
        if not identical:
            differ = sum(a != b for a, b in zip(scores["baseline"], scores["this build"]))
            raise SystemExit(f"{differ} of {winnable} scores differ from the baseline's")
    options = ["--game", args.game.key, "--deals", args.deals, "--repeats", str(args.repeats)]
    benchlib.write_summary(args.summary, "bench_difficulty.py",
                           options + (["--baseline", args.baseline] if args.baseline else []), load,
                           game=args.game.key, deals=args.deals, winnable=winnable,
                           score_cpu_ms_per_winnable_deal=figures)


if __name__ == "__main__":
    benchlib.run_script(main)
