"""`blackhole-solve`: black-hole-solver's command line on our fast search, for callers that start one
process per position (PySolFC's hints, range scripts).

Such a caller changes one name (`black-hole-solve` -> `blackhole-solve`) and
keeps its flags and its output parsing: the peer's flags (read left to right,
up to the board file; `golf` switches rank wrapping off, so `--wrap-ranks`
comes after it), its output (`Solved!`, one block per move naming the stack or
the talon, the totals) and its verdict exit codes (0, 255 unsolved, 254
intractable). The flag combination names one of our games (`PEER_GAMES`);
one that plays none of them is refused. The numbers in the totals are our
search's positions expanded, not the peer's states.

A process is started per position, so start-up counts: this module imports
the standard library's `os` and `sys` only (and our `interrupts` and `_testhooks`, which
import only its cheapest; the package itself `typing`), and the board, the game descriptions and
the solver once the flags ask for a solve, `atomic` for `--output` (never click,
numpy, pandas or pyarrow; `scripts/bench_startup.py` measures it). Errors are one line on
stderr: 2 for bad usage, 253 for a board or file that cannot be read or written, or memory
running out (not the
peer's 255, which would read as "unsolved", nor 1, which PySolFC takes for a solver that is
not installed).
"""
from __future__ import annotations

import contextlib
import errno
import os
import sys

from . import _testhooks, interrupts
from .console import EXIT_BROKEN_PIPE, StdoutFailed, take_stdout
from ._version import __version__
from .quoting import quoted

EXIT_SOLVED, EXIT_UNSOLVED, EXIT_INTRACTABLE = 0, 255, 254
"""The peer's verdict exit codes (its -1 and -2)."""
EXIT_ERROR, EXIT_USAGE = 253, 2
"""Our errors: a board or file that cannot be read or written, memory running out; bad usage."""
PRESETS = ("black_hole", "all_in_a_row", "golf")
"""The peer's `--game` values."""
POSITIONS_PER_STATE = 100
"""`--max-iters N` gives our search N times this many positions. N counts the peer's states, and
PySolFC's hints pass 10,000: on deals 1..1000 of each game, every deal the peer decides within N
states (N = 1,000, 10,000 or 100,000) is decided within 100 N positions here, not within N (Golf deal
932: the peer's 288 states; our first try fails within 10,000, and the pass that decides it is only
made where the budget holds it whole). 10 N still misses 4 of the 474 deals the peer decides within
1,000."""
IGNORED_FLAGS = ("--rank-reach-prune",)
"""Flags that tune or trace the peer's own search: accepted, no effect."""
IGNORED_WITH_VALUE = ("--iters-display-step",)
MOVE_RULE = "=" * 20
TOTALS_RULE = "-" * 20

HELP = f"""\
blackhole-solve --game {{{'|'.join(PRESETS)}}} [options] [BOARD_FILE | -]

black-hole-solver's command line (flags, output, exit codes) on blackhole-stats'
exact fast search. The board is read from BOARD_FILE, or standard input if it
is '-' or missing, and gives every pile (an empty one as an empty line), as the
peer requires. Flags are read left to right up to the board file.

--game G                  black_hole, all_in_a_row or golf (golf switches rank
                          wrapping off, and a later --game leaves it off:
                          give --wrap-ranks after the last --game)
--queens-on-kings         Golf: a Queen may go on a King (and a King on a Queen)
--no-queens-on-kings      (the default)
--wrap-ranks              Ace and King adjacent (the default, until --game golf)
--no-wrap-ranks
--max-iters N             give up ("Intractable!") after 100 x N positions
                          expanded (N counts the peer's states: every deal of
                          1..1000 the peer decides within N = 1,000 to 100,000
                          states is decided within 100 N of ours); 0, a
                          negative N or one past 2^63-1: no limit, as for the
                          peer
--quiet                   print the verdict and the totals, not the moves
--display-boards          print the board before the first move and after each
                          (as the peer shows it: the foundation, the talon left,
                          then each pile after a colon)
--show-max-reached-depth  after the totals, "Reached a maximal depth of N.": the
                          most cards a line plays, exact for a win (its moves)
                          and an unsolvable position (searched on past
                          --max-iters where need be); for "Intractable!" the
                          most a line found within the budget plays
--output FILE             write the output to FILE instead of standard output
--version, --help

The flags name one of five games; any other combination is refused:
  --game black_hole                         Black Hole
  --game all_in_a_row                       All in a Row
  --game golf --queens-on-kings             Golf
  --game golf                               Dead King Golf
  --game golf --wrap-ranks                  Relaxed Golf
(--queens-on-kings changes nothing where ranks wrap: a Queen goes on a King anyway.)

Accepted and ignored (they tune or trace the peer's own search, which this is
not): --rank-reach-prune, --iters-display-step N.

The totals ("Total number of states checked is N.", "This scan generated N
states.") give the positions this search expanded, which differ from the peer's
counts for the same position (mostly far fewer; a Golf deal the pass decides
shows its hundreds of thousands of positions).

Exit status: 0 solved, 255 unsolved, 254 intractable; 253 a board or file
that cannot be read or written, or memory running out; 2 bad usage (the
peer uses 255 for both, which reads as "unsolved"; PySolFC takes 1 for
"not installed").
"""


class Failure(Exception):
    """One line for stderr, and the exit status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class Options:
    """The flags as the peer reads them: presets and toggles applied left to right."""

    def __init__(self) -> None:
        self.preset: str | None = None
        self.queens_on_kings = False
        self.wrap_ranks = True
        self.max_iters: int | None = None
        self.quiet = False
        self.display_boards = False
        self.show_depth = False
        self.output: str | None = None
        self.board_path = "-"
        self.given: list[str] = []
        """The flags that name the game, as given (for the refusal of a combination)."""

    def rules(self) -> tuple[str | None, bool, bool]:
        """What decides the game: the preset, whether ranks wrap, and whether Queens go on Kings
        where that is a choice (Golf without wrapping; elsewhere a Queen goes on a King anyway,
        which is why PySolFC passes the flag for Golf only, and for Relaxed Golf either way)."""
        choice = self.preset == "golf" and not self.wrap_ranks
        return self.preset, self.wrap_ranks, self.queens_on_kings if choice else True


def parse_args(argv: list[str]) -> Options | str:
    """The options, or the text to print for --help / --version; Failure for bad usage."""
    options = Options()
    args = iter(argv)
    for arg in args:
        if arg == "--help" or arg == "-h":
            return HELP
        if arg == "--version":
            return f"blackhole-solve version {__version__} (blackhole-stats)\nLibrary version {__version__}\n"
        if arg in ("--game", "--max-iters", "--output") + IGNORED_WITH_VALUE:
            value = next(args, None)
            if value is None:
                raise Failure(f"Error! {arg} requires an argument.", EXIT_USAGE)
            if arg == "--game":
                if value not in PRESETS:
                    raise Failure(f"Error! Unknown game {quoted(value, 40)}: choose {', '.join(PRESETS)}.", EXIT_USAGE)
                options.preset = value
                options.given += [arg, value]
                if value == "golf":
                    options.wrap_ranks = False
            elif arg == "--max-iters":
                options.max_iters = _peer_number(arg, value)
            elif arg == "--output":
                options.output = value
            else:  # ignored, but a board file name taken for N would leave us reading stdin
                _peer_number(arg, value)
        elif arg in ("--queens-on-kings", "--no-queens-on-kings"):
            options.queens_on_kings = arg == "--queens-on-kings"
            options.given.append(arg)
        elif arg in ("--wrap-ranks", "--no-wrap-ranks"):
            options.wrap_ranks = arg == "--wrap-ranks"
            options.given.append(arg)
        elif arg == "--quiet":
            options.quiet = True
        elif arg == "--display-boards":
            options.display_boards = True
        elif arg == "--show-max-reached-depth":
            options.show_depth = True
        elif arg in IGNORED_FLAGS:
            pass
        elif arg.startswith("--"):
            raise Failure(f"Error! Unknown option {quoted(arg, 40)} (see 'blackhole-solve --help').", EXIT_USAGE)
        else:
            options.board_path = arg
            rest = list(args)
            if rest:
                raise Failure(f"Error! One board file only; {quoted(rest[0], 40)} follows {quoted(arg, 40)}.", EXIT_USAGE)
    if options.preset is None:
        raise Failure("Error! Must specify game type using --game.", EXIT_USAGE)
    return options


def _peer_number(flag: str, value: str) -> int | None:
    """A flag's N as the peer reads a number (atol): spaces around it and a sign allowed; empty, 0, a
    negative N (its unsigned count never meets one) or one past what a long holds is None, no limit.
    Text that is no number is refused, where atol() reads `10abc` as 10, and a board file's name given
    for N as no limit (the board then read from stdin). ASCII digits only: str.isdigit takes '²', which
    int() refuses, and int() refuses more than 4,300 digits."""
    from .solver import MAX_ITERS

    text = value.strip(" \t\r\n\v\f")
    sign = text[:1] if text[:1] in ("+", "-") else ""
    number = text[len(sign):]
    if text and not (number.isascii() and number.isdigit()):
        limit = " (0 or less: no limit)" if flag == "--max-iters" else ""
        raise Failure(f"Error! {flag} takes a whole number{limit}, not {quoted(value, 40)}.", EXIT_USAGE)
    digits = number.lstrip("0") or "0"
    if sign == "-" or digits == "0" or len(digits) > len(str(MAX_ITERS)) or int(digits) > MAX_ITERS:
        return None
    return int(digits)


PEER_GAMES: dict = {}
"""`Options.rules()` -> our Game, from each game's `peer_options` (filled on first use)."""


def choose_game(options: Options):
    """Our game for the flags; Failure naming the flags and the five combinations otherwise."""
    from .games import GAMES

    if not PEER_GAMES:
        for game in GAMES:
            PEER_GAMES[parse_args([*game.peer_options]).rules()] = game
    game = PEER_GAMES.get(options.rules())
    if game is None:
        combos = "; ".join(f"{game.name}: {' '.join(game.peer_options)}" for game in GAMES)
        why = ""
        wrapping = [flag for flag in options.given if flag in ("golf", "--wrap-ranks", "--no-wrap-ranks")]
        if options.preset != "golf" and wrapping[-1:] == ["golf"]:  # the peer's --game never switches it back on
            why = (f": ranks do not wrap, since --game golf switched wrapping off and a later --game leaves it "
                   f"off, as in black-hole-solver (give --wrap-ranks after --game {options.preset})")
        raise Failure(f"Error! {' '.join(options.given)} plays none of the games solved here{why} ({combos}).",
                      EXIT_USAGE)
    return game


def read_board(path: str, game):
    """The board from a file or standard input ('-'); Failure for an unreadable file or bad text."""
    from .board import Board

    try:
        if path == "-":
            if sys.stdin is None:
                raise Failure("Error! Standard input is closed.", EXIT_ERROR)
            return Board.read(sys.stdin.buffer, game, every_pile=True)
        with open(path, "rb") as stream:
            return Board.read(stream, game, every_pile=True)
    except OSError as error:
        raise Failure(f"Cannot open {_shown_path(path)} for reading! ({error.strerror})", EXIT_ERROR) from None
    except ValueError as error:  # BoardParseError, and a Board's own checks
        raise Failure(f"Error reading the board! {error}", EXIT_ERROR) from None


def render(result, options: Options, depth: int | None) -> str:
    """The peer's output for a search result (and `depth`, for --show-max-reached-depth)."""
    out = [{"solved": "Solved!\n", "unsolved": "Unsolved!\n", "intractable": "Intractable!\n"}[result.outcome]]
    if result.solved and not options.quiet:
        boards = result.solution.boards()
        start = next(boards)
        with_talon = bool(start.talon)
        if options.display_boards:
            out.append(_board_block(start, with_talon))
        for move in result.solution.moves:
            where = "Deal talon" if move.is_talon else f"Move a card from stack {move.pile} to the foundations"
            out.append(f"{where}\n\nInfo: Card moved is {move.card.text}\n\n\n{MOVE_RULE}\n\n")
            if options.display_boards:
                out.append(_board_block(next(boards), with_talon))
    out.append(f"\n\n{TOTALS_RULE}\nTotal number of states checked is {result.iterations}.\n"
               f"This scan generated {result.iterations} states.\n")
    if options.show_depth:
        out.append(f"Reached a maximal depth of {depth}.\n")
    return "".join(out)


def _board_block(board, with_talon: bool) -> str:
    """A position as the peer shows it, which is not its input form: the foundation first, then the talon
    left (where the board began with one), then each pile after a colon."""
    lines = ["Foundations: " + ("-" if board.foundation is None else board.foundation.text)]
    if with_talon:
        lines.append("".join(["Talon:", *(f" {card.text}" for card in board.talon)]))
    lines += [":" + "".join(f" {card.text}" for card in pile) for pile in board.piles]
    return "\n[START BOARD]\n" + "\n".join(lines) + "\n[END BOARD]\n\n\n"


def run(argv: list[str]) -> int:
    """Parse, read, solve, print; the exit status (Failure for errors)."""
    parsed = parse_args(argv)
    if isinstance(parsed, str):
        _write(parsed, None)
        return 0
    game = choose_game(parsed)
    board = read_board(parsed.board_path, game)
    from .solver import MAX_ITERS, Solver

    solver = Solver()
    budget = None if parsed.max_iters is None else min(parsed.max_iters * POSITIONS_PER_STATE, MAX_ITERS)
    result = solver.solve(board, max_iters=budget, most_played=parsed.show_depth)
    depth = result.cards_played
    if parsed.show_depth and depth is None:  # unsolvable, and the budget ran out before the most was found
        depth = solver.solve(board, most_played=True).cards_played
    _write(render(result, parsed, depth), parsed.output)
    return {"solved": EXIT_SOLVED, "unsolved": EXIT_UNSOLVED, "intractable": EXIT_INTRACTABLE}[result.outcome]


def _shown_path(path: str) -> str:
    """A file name in the peer's quotes, or quoted (quotes of its own, cut short) where it has a newline, a
    control character or bytes that are not text, so that the message stays one short line."""
    return f"'{path}'" if path.isprintable() else quoted(path)


def _write(text: str, path: str | None) -> None:
    """To the file or standard output. The file is written beside itself and renamed over the old one
    (so its folder must take a new file, where the peer only needs the file writable): a full disk
    leaves the old one as it was, never cut short."""
    if path is not None:
        from .atomic import replace_text  # here: only --output needs it, and start-up counts

        if not path:
            raise Failure("Cannot write ''! (an empty name is no file)", EXIT_ERROR)
        try:
            if path.endswith(("/", os.sep)):  # writing beside it and renaming would drop the slash: the OS's own
                open(path, "ab").close()      # refusal, as the peer gets it (never creates: the name is a folder's)
            replace_text(path, text)
        except OSError as error:
            raise Failure(f"Cannot write {_shown_path(path)}! ({error.strerror})", EXIT_ERROR) from None
        return
    if sys.stdout is None:
        raise Failure("Error! Standard output is closed.", EXIT_ERROR)
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except StdoutFailed as error:
        if error.errno == errno.EPIPE:  # the reader stopped early: quiet, as any tool in a pipe
            raise SystemExit(EXIT_BROKEN_PIPE) from None
        raise Failure(f"Error! Cannot write to standard output: {error}", EXIT_ERROR) from None


def _say(line: str) -> None:
    """A line on stderr, if there is one to write to (closed, print(file=None) would write to stdout,
    which callers parse)."""
    if sys.stderr is not None:
        with contextlib.suppress(OSError):  # a terminal gone with the hang-up
            print(line, file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    """The command: one line on stderr for what goes wrong (or an interrupt), never a traceback.

    It ends with `os._exit` (after a signal, of the signal: `interrupts.end_as_signalled`) once its
    output is flushed and its file closed:
    tearing the interpreter down would cost a process about 7 ms of CPU, more
    than an easy solve, and there is nothing left to clean up.
    """
    line = None
    if sys.stdout is not None:
        take_stdout()
    try:
        interrupts.ready()  # a signal that came while the program started raises here
        with interrupts.unwrapped():
            status = run(sys.argv[1:] if argv is None else argv)
        interrupts.check()  # one raised where Python only printed it (in an import's clean-up) counts too
    except SystemExit as stop:
        status = stop.code
    except Failure as failure:
        status, line = failure.status, str(failure)
    except MemoryError:  # under a memory limit: the solver's tables, most often (the peer says so too)
        status, line = EXIT_ERROR, "Error! Out of memory (is the memory this process may use limited?)"
    except interrupts.Interrupted as interrupt:
        status, line = 128 + interrupts.first_signal(interrupt.signum), "interrupted"
    interrupts.record_only()  # the status stands: a signal from here on would only end it in a traceback
    if line is not None:
        _say(line)
    _testhooks.pause("dropin-exit")
    if sys.stderr is not None:
        try:
            sys.stderr.flush()
        except OSError:
            pass  # nowhere left to say so
    interrupts.end_as_signalled()  # as the peer, which keeps the default actions, ends: a range script stops
    os._exit(status)
