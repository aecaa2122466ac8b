#!/usr/bin/env python3
"""Compare two builds of the C core, interleaved in one process: speed, and that they agree.

A change to `_core.c` that should only be faster is measured against the source
it replaced, on the same machine in the same minutes: both sources are compiled
with the flags setup.py gives gcc and clang, loaded side by side, and the
same deals are solved by each in alternating blocks of 50 (the order rotating
from block to block, so that a shared machine's load falls on both alike).
What is timed: the raw C search (`_core.Solver.solve` on input prepared before
the clock starts), in CPU seconds of this process; each figure is the median
of the repeats' totals. Every solve's outcome, iterations, cards played and
line are compared: a build that answers differently is named, with its count
of differing deals.

    python scripts/bench_builds.py --base 0f9dd47 --game relaxed_golf            # HEAD's source vs 0f9dd47's
    python scripts/bench_builds.py --base 0f9dd47 --game golf --search heights --deals 1-200 --repeats 7
    python scripts/bench_builds.py --base HEAD~1 --other /tmp/mine/_core.c --game golf

`--search heights` times the heights search alone (`_core`'s search 2: the
pass that decides most Golf deals). Needs git and a C compiler (`cc`, or $CC).
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from blackhole_stats.dealing import deal


REPO = Path(__file__).resolve().parents[1]
SOURCE = "blackhole_stats/_core.c"
FLAGS = ["-O3", "-std=c11", "-Wall", "-Wextra"]
"""setup.py's flags for gcc and clang."""
SEARCH_CODES = {"fast": 0, "heights": 2}
BLOCK = 50
"""Deals per interleaved block."""


def source_of(spec: str, folder: Path) -> Path:
    """The C source a build is made of: this checkout's, a file as it is, else `_core.c` at that git revision."""
    if spec == "this checkout":
        return REPO / SOURCE
    if Path(spec).is_file():
        return Path(spec)
    path = folder / "_core.c"
    shown = subprocess.run(["git", "-C", str(REPO), "show", f"{spec}:{SOURCE}"], capture_output=True)
    if shown.returncode:
        sys.exit(f"bench_builds: no {SOURCE} at {spec!r}: {shown.stderr.decode().strip()}")
    path.write_bytes(shown.stdout)
    return path


def main(argv: list[str] | None = None) -> None:
    made = benchlib.parser(__doc__, repeats=7, game=True)
    made.add_argument("--base", required=True, help="git revision (or C file) of the build to compare against")
    made.add_argument("--other", default="this checkout",
                      help="git revision or C file of the other build (default: this checkout's source)")
    made.add_argument("--deals", default="1-1000", help="deals FIRST-LAST (default 1-1000)")
    made.add_argument("--search", choices=SEARCH_CODES, default="fast")
    args = benchlib.parse(made, argv)
    numbers = benchlib.deal_range(args.deals, made)
    with tempfile.TemporaryDirectory() as scratch:
        cores = {}
        for name, spec in (("base", args.base), ("other", args.other)):
            folder = Path(scratch, name)
            folder.mkdir()
            source = source_of(spec, folder)
            try:
                core = benchlib.built_core(shlex.split(os.environ.get("CC", "cc")), FLAGS, source, folder)
            except benchlib.CompileFailed as error:
                sys.exit(f"bench_builds: {source} does not compile:\n{error}")
            cores[name] = core.Solver()
        boards = [deal(number, args.game) for number in numbers]
        inputs = [(board.solver_input(), board.solver_rules()) for board in boards]
        code = SEARCH_CODES[args.search]
        for name, solver in cores.items():  # a first solve: a search a build refuses for the game is one line
            try:
                solver.solve(*inputs[0][0], code, **inputs[0][1])
            except ValueError as error:
                made.error(f"--search {args.search}: the {name} build refuses it for {args.game.name}: {error}")
        load = benchlib.load_average()
        totals = {name: [] for name in cores}
        answers = {name: [] for name in cores}
        names = list(cores)
        for repeat in range(args.repeats):
            spent = dict.fromkeys(names, 0.0)
            for block_index, start in enumerate(range(0, len(inputs), BLOCK)):
                block = inputs[start:start + BLOCK]
                turn = (block_index + repeat) % len(names)
                for name in names[turn:] + names[:turn]:
                    solver = cores[name]
                    began = time.process_time()
                    found = [solver.solve(*given, code, **rules) for given, rules in block]
                    spent[name] += time.process_time() - began
                    if repeat == 0:
                        answers[name] += found
            for name in names:
                totals[name].append(spent[name])
    differing = sum(a != b for a, b in zip(answers["base"], answers["other"]))
    base, other = (statistics.median(totals[name]) for name in names)
    print(f"{args.game.name} deals {numbers.start}..{numbers.stop - 1}, search {args.search}, raw C search, {args.repeats} repeats "
          f"interleaved in blocks of {BLOCK}; {benchlib.shown_load(load)}")
    for name, spec in (("base", args.base), ("other", args.other)):
        values = totals[name]
        print(f"  {name:5s} {spec:40.40s} median {statistics.median(values):.3f} CPU-s "
              f"[{min(values):.3f}..{max(values):.3f}]")
    print(f"  other is {base / other:.3f}x the base's speed; deals answered differently: {differing}")
    options = ["--base", args.base, *(["--other", args.other] if args.other != "this checkout" else []),
               "--game", args.game.key, "--search", args.search, "--deals", args.deals, "--repeats", str(args.repeats)]
    benchlib.write_summary(args.summary, "bench_builds.py", options, load,
                           game=args.game.key, deals=args.deals, search=args.search, base=args.base,
                           other=args.other, repeats=args.repeats,
                           seconds={name: benchlib.spread(totals[name]) for name in names},
                           speedup=base / other, differing=differing)
    if differing:
        sys.exit(1)


if __name__ == "__main__":
    benchlib.run_script(main)
