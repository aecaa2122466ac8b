"""What every measuring script shares, in one place: its options, the machine's load, the summary file.

A figure in README must reproduce on a shared machine, so each script
repeats its measurements and reports medians (`--repeats`, with a floor
below which a median says little), names the load average it started
under, and with `--summary FILE` writes the figures it printed to a JSON
file that README quotes and `tests/test_results.py` checks README against.
The summary names the command that reproduces it.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

from blackhole_stats.atomic import replace_text

MIN_REPEATS = 5
"""Fewest repeats whose median holds up on a shared machine (a script may ask for more)."""


def parser(doc: str, *, repeats: int = MIN_REPEATS, floor: int = MIN_REPEATS,
           game: bool = False) -> argparse.ArgumentParser:
    """The options every measuring script takes: --repeats (at least `floor`), --summary FILE, and --game if asked."""
    made = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    made.add_argument("--repeats", type=int, default=repeats,
                      help=f"runs of each measurement, at least {floor} (default {repeats}): figures are medians")
    if game:
        made.add_argument("--game", default="black_hole",
                          help="the game: key, PySolFC id or name (default black_hole)")
    made.add_argument("--summary", type=Path, metavar="FILE", help="also write the figures printed to this JSON file")
    made.set_defaults(repeats_floor=floor)
    return made


def parse(made: argparse.ArgumentParser, argv: list[str] | None = None) -> argparse.Namespace:
    """The arguments, with --repeats checked and --game turned into its Game; usage errors exit 2."""
    args = made.parse_args(argv)
    if args.repeats < args.repeats_floor:
        made.error(f"--repeats must be at least {args.repeats_floor}: a median of fewer runs does not reproduce")
    if "game" in args:
        from blackhole_stats.games import UnknownGameError, get_game

        try:
            args.game = get_game(args.game)
        except UnknownGameError as error:
            made.error(str(error))
    return args


def load_average() -> float | None:
    """The 1-minute load average as the measurement starts (None where the platform has none)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def shown_load(load: float | None) -> str:
    return f"load average {load:.1f} at the start" if load is not None else "load average unknown"


def spread(values: list[float]) -> dict[str, float]:
    """A measurement's median and range, as a summary keeps it."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def write_summary(path: Path | None, script: str, options: list[str], load: float | None, **figures) -> None:
    """Write the figures (if --summary asked) with the command that reproduces them and the load they met."""
    if path is None:
        return
    command = " ".join(["python", f"scripts/{script}", *options])
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_text(path, json.dumps({"command": command, "load_average": load, **figures}, indent=2) + "\n")
    print(f"summary written to {path}")
