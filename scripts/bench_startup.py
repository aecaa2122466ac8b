#!/usr/bin/env python3
"""Measure what one `blackhole-solve` process costs in CPU, as a caller pays it (a process per position).

PySolFC's hints and range scripts start black-hole-solve once per position,
so a drop-in's start-up matters as much as its search. This times, in the
CPU seconds (user + system) the kernel charges each child process, in one
interleaved loop so that a shared machine's load falls on all alike:

* `python -c pass`: this interpreter's own start-up, the floor;
* `blackhole-solve --version`: the drop-in's start-up alone;
* `blackhole-solve --game G BOARD`: the start-up and one easy deal (the board
  of `--deal`, written to a file first), as PySolFC pays it;
* `blackhole-stats --version`: the full command line's start-up, for comparison.

Each figure is the median of the repeats (with the range), and the drop-in's
excess over `python -c pass`.

    python scripts/bench_startup.py                     # Black Hole deal 97, 21 repeats
    python scripts/bench_startup.py --game golf --deal 2 --repeats 31
    python scripts/bench_startup.py --repeats 15 --summary results/bench/startup.json   # what README quotes

Run it with the python of the install to measure: an editable install
(`pip install -e`) costs every process more than a wheel's; the summary says
which kind it measured.
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from importlib.metadata import distribution
from pathlib import Path

from blackhole_stats.dealing import deal


MIN_REPEATS = 11
"""More than the other scripts' floor: one process costs milliseconds, so a few slow ones weigh more."""
BIN = Path(sys.executable).parent
"""Where the console scripts of this interpreter's environment are."""


VERDICT_STATUSES = (0, 254, 255)
"""solved, intractable, unsolved: a run that ends otherwise failed."""


def cpu_ms(command: list[str]) -> tuple[float, int]:
    """User + system CPU of one run of `command` (its output discarded), in milliseconds, and its exit status."""
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here; keep Popen from waiting again
    return 1000 * (usage.ru_utime + usage.ru_stime), process.returncode


def editable_install() -> bool:
    """Whether the package this interpreter imports is an editable install (pip install -e)."""
    direct_url = distribution("blackhole-stats").read_text("direct_url.json") or "{}"
    return bool(json.loads(direct_url).get("dir_info", {}).get("editable", False))


def main() -> None:
    parser = benchlib.parser(__doc__, repeats=21, floor=MIN_REPEATS, game=True)
    parser.add_argument("--deal", type=benchlib.game_number, default="97", help="the easy deal to solve (default 97)")
    args = benchlib.parse(parser)
    game = args.game
    solve, stats = BIN / "blackhole-solve", BIN / "blackhole-stats"
    if not solve.is_file():
        parser.error(f"{solve} not found: install the package into this interpreter's environment")
    load = benchlib.load_average()
    with tempfile.TemporaryDirectory() as folder:
        board = Path(folder) / "board.txt"
        board.write_text(deal(args.deal, game).to_text())
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "blackhole-solve --version": [str(solve), "--version"],
            f"blackhole-solve {' '.join(game.peer_options)} (deal {args.deal})":
                [str(solve), *game.peer_options, str(board)],
            "blackhole-stats --version": [str(stats), "--version"],
        }
        for name, command in list(commands.items()):  # a first run each: warm caches, and leave out what fails
            status = cpu_ms(command)[1]
            if status not in VERDICT_STATUSES:
                print(f"  ({name}: exit status {status} here, not timed)")
                del commands[name]
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeats):
            for name, command in commands.items():
                times[name].append(cpu_ms(command)[0])
    floor = statistics.median(times["python -c pass"])
    editable = editable_install()
    print(f"CPU per process (user + system), median of {args.repeats} interleaved runs [range]; "
          f"Python {platform.python_version()}, {'an editable' if editable else 'a regular'} install; "
          f"{benchlib.shown_load(load)}:")
    measured = []
    for name, values in times.items():
        median = statistics.median(values)
        excess = "" if name.startswith("python") else f"  ({median - floor:+.1f} ms over python -c pass)"
        print(f"  {name:<58} {median:6.1f} ms [{min(values):.1f}-{max(values):.1f}]{excess}")
        measured.append({"name": name, **benchlib.spread(values)})
    benchlib.write_summary(args.summary, "bench_startup.py",
                           ["--game", game.key, "--deal", str(args.deal), "--repeats", str(args.repeats)], load,
                           game=game.key, deal=str(args.deal), repeats=args.repeats, python=platform.python_version(),
                           editable_install=editable, cpu_ms_of="each child process, user + system",
                           commands=measured)


if __name__ == "__main__":
    benchlib.run_script(main)
