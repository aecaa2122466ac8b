#!/usr/bin/env python3
"""Build the C core with other compilers and check that they decide deals exactly as the installed build.

Many PySolFC players are on Windows and macOS, so `_core.c` must not depend
on gcc. For each compiler found on PATH this script compiles `_core.c` with
warnings as errors:

* clang: a full build, loaded and compared;
* gcc with -DBLACKHOLE_PORTABLE_BITS: the plain C that MSVC and other
  non-gcc compilers use for bit functions, and non-x86 CPUs (and x86 ones
  without SSSE3, SSE4.1 or POPCNT) for the heights search's pass, loaded and compared;
* gcc with -DBLACKHOLE_NO_CUBE: the heights search's SSE4.1 pass, which x86
  CPUs without AVX2 take, where the installed build takes the AVX2 pass on
  this machine (if it has AVX2), loaded and compared;
* the mingw-w64 cross-compiler (x86_64-w64-mingw32-gcc): compile only, since
  no Windows Python can run here. It reads this machine's Python headers,
  which include <sys/select.h> (absent on Windows) through pyconfig.h, so an
  empty stand-in for that one header is put on the include path.

"Compared" means every deal of the range, in every game of the family, is
dealt alike and solved by both builds with the same outcome, iterations,
cards played and solution, with the fast search, with the classic search
(Black Hole) on the first --classic deals, and (games with a talon) with the
heights search alone under a budget that stops it part-way through its pass;
and that both give the same trap walks (the difficulty score's input) on the
first --walks deals.

    python scripts/check_compilers.py            # deals 1..300, classic and walks on 1..30
    python scripts/check_compilers.py --deals 50 --classic 5 --walks 5

Exit status 0 when every compiler found passes; compilers that are missing
are listed as skipped (install: apt-get install clang mingw-w64).
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import shutil
import sysconfig
import tempfile
from pathlib import Path

import blackhole_stats
from blackhole_stats import _core
from blackhole_stats.dealing import GameNumber, deal, dealt_card_ids
from blackhole_stats.games import GAMES


SOURCE = Path(blackhole_stats.__file__).with_name("_core.c")
WARNINGS = ["-std=c11", "-Wall", "-Wextra", "-Werror"]


SEARCH_NAMES = {0: "fast", 1: "classic", 2: "heights search alone"}


def differences(module, deals: int, classic: int, walks: int) -> list[str]:
    """Deals on which `module` and the installed core disagree (empty when they agree everywhere)."""
    ours, theirs = _core.Solver(), module.Solver()
    found = []
    for number in range(1, deals + 1):
        for game in GAMES:
            if dealt_card_ids(GameNumber(number), game) != module.deal_ms(number, game.piles, game.pile_size,
                                                                          game.ace_of_spades_last):
                found.append(f"{game} deal {number}: dealt differently")
                continue
            board = deal(number, game)
            runs = [(0, 0)] + ([(1, 0)] if number <= classic and game.classic_search else [])
            if game.has_talon:  # the heights search alone, stopped by a budget part-way through its pass
                runs.append((2, 20_000 + 997 * number))
            for search, budget in runs:
                a = ours.solve(*board.solver_input(), search, budget, **board.solver_rules())
                b = theirs.solve(*board.solver_input(), search, budget, **board.solver_rules())
                if a != b:
                    found.append(f"{game} deal {number} ({SEARCH_NAMES[search]}, budget {budget or 'none'}): "
                                 f"{a[:3]} vs {b[:3]}")
            if number <= walks:
                a, b = (solver.trap_walks(*board.solver_input(), 4, 8, 1, 10**6, **board.solver_rules())
                        for solver in (ours, theirs))
                if a != b:
                    found.append(f"{game} deal {number}: other trap walks")
    return found


def main() -> int:
    parser = benchlib.Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=300, help="compare on deals 1..N (default 300)")
    parser.add_argument("--classic", type=int, default=30, help="also classic on 1..N (default 30)")
    parser.add_argument("--walks", type=int, default=30, help="and trap walks on 1..N (default 30)")
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as temp:
        temp = Path(temp)
        builds = (("clang", "clang", []),
                  ("gcc, portable C (MSVC's bits, non-x86 lanes)", "gcc", ["-DBLACKHOLE_PORTABLE_BITS"]),
                  ("gcc, the SSE4.1 pass of CPUs without AVX2", "gcc", ["-DBLACKHOLE_NO_CUBE"]))
        for build, (name, compiler, extra) in enumerate(builds):
            if shutil.which(compiler) is None:
                print(f"{name}: skipped ({compiler} not found)")
                continue
            folder = temp / str(build)
            folder.mkdir()
            try:
                module = benchlib.built_core([compiler], ["-O2", *WARNINGS, *extra], SOURCE, folder)
            except benchlib.CompileFailed as error:
                print(f"{name}: FAILED to compile\n{error}")
                failed = True
                continue
            found = differences(module, args.deals, args.classic, args.walks)
            print(f"{name}: built with {' '.join(WARNINGS)}; deals 1..{args.deals} fast, 1..{args.classic} "
                  f"classic and 1..{args.walks} trap walks: {len(found)} differences")
            for line in found[:10]:
                print(f"  {line}")
            failed |= bool(found)

        mingw = "x86_64-w64-mingw32-gcc"
        if shutil.which(mingw) is None:
            print(f"mingw-w64: skipped ({mingw} not found)")
        else:
            stand_in = temp / "stand-in" / "sys"
            stand_in.mkdir(parents=True)
            (stand_in / "select.h").write_text("/* pyconfig.h of this machine asks for it; Windows has none */\n")
            try:
                benchlib.compiled([mingw, "-O2", *WARNINGS, "-c", f"-I{stand_in.parent}",
                                   f"-I{sysconfig.get_paths()['include']}", str(SOURCE), "-o", str(temp / "_core.obj")],
                                  temp)
                print("mingw-w64 (Windows x86-64): compile only, ok")
            except benchlib.CompileFailed as error:
                print(f"mingw-w64 (Windows x86-64): compile only, FAILED\n{error}")
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    benchlib.run_script(main)
