"""The `blackhole-stats` command line: a thin shell over the library."""
from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shlex
import signal
import sys
from typing import BinaryIO, Iterator

import click

from . import __version__, interrupts
from ._testhooks import pause
from .arguments import MAX_SECONDS, seconds
from .board import Board, BoardParseError
from .console import EXIT_BROKEN_PIPE, STDERR, StdoutFailed, discard_stdout, take_stderr, take_stdout
from .dealing import DealNumberError, GameNumber, deal
from .games import DEFAULT_GAME, GAMES, Game, UnknownGameError, get_game
from .quoting import counted, quoted
from .solver import MAX_ITERS, OUTCOMES, SEARCHES, Solver

EXIT_STATUS = {"solved": 0, "unsolved": 3, "intractable": 4}
"""`solve` exit codes; 1 is an input error, 2 a usage error (click's)."""
ITERATION_BUDGET = click.IntRange(1, MAX_ITERS)
"""--max-iters: 1..2^63-1, refused outside (never wrapped around)."""


_NoArgsIsHelp = getattr(click.exceptions, "NoArgsIsHelpError", ())
"""click >= 8.2 raises it for a group called with nothing; older clicks print the help themselves."""


class Command(click.Command):
    """One of our commands: SIGINT or SIGTERM, from the process's first instant, ends it with one
    line (for `run`, how to resume), then the process dies of the signal (`_exit_interrupted`)."""

    resumable = False

    def parse_args(self, ctx, args):
        try:
            self._refuse_repeated_values(ctx, args)
            return super().parse_args(ctx, args)
        except click.UsageError as error:  # click's parser leaves an option without its value unplaced
            error.ctx = error.ctx or ctx  # so the line names this command's --help, not the group's
            raise

    def _refuse_repeated_values(self, ctx, args) -> None:
        """An option given twice is refused: click keeps the last silently, and `solve --board A --board B`
        answered for B under no name, `--progress --no-progress` ran without. A plain flag may repeat (it
        says one thing), and so may what takes several (`--range`). --help wins, as click makes it, and
        shell completion parses what is typed so far."""
        if ctx.resilient_parsing:
            return
        _, _, order = self.make_parser(ctx).parse_args(args=list(args))  # a parameter per time it is given
        helping = self.get_help_option(ctx)
        if helping is not None and any(param.name == helping.name for param in order):
            return  # (read as an option, not as another's value: `--out -h` is an --out)
        seen = set()
        for param in order:
            if isinstance(param, click.Option) and not (param.multiple or param.count
                                                        or param.is_flag and not param.secondary_opts):
                if param.name in seen:
                    named = "/".join(max(opts, key=len) for opts in (param.opts, param.secondary_opts) if opts)
                    raise click.UsageError(f"{named} may be given only once", ctx)
                seen.add(param.name)

    def invoke(self, ctx):
        try:
            interrupts.ready()  # a signal that came while the program started raises here
            pause("command-start")
            with interrupts.unwrapped():
                result = super().invoke(ctx)
            interrupts.check()  # one that something swallowed (a weakref callback, a finalizer) still stops it
            return result
        except EOFError as error:  # (a library's: click would take it for Ctrl-C, after a blank line)
            raise click.ClickException(f"unexpected end of input{f': {error}' if str(error) else ''}") from None
        except BrokenPipeError as error:  # stderr's reader gone (`2>&1 | head`, a note after the output): the
            if error.filename != STDERR:  # same quiet 141 as stdout's, where click would exit 1; what stdout
                raise                     # holds is still written (Commands._standalone_status flushes it)
            raise click.exceptions.Exit(EXIT_BROKEN_PIPE) from None
        except interrupts.Interrupted as interrupt:
            _exit_interrupted("interrupted" if interrupt.done is None else f"interrupted after {interrupt.done}",
                              interrupt.signum, resume=self.resumable, out=ctx.params.get("out"))


class Commands(click.Group):
    """The command group: every command runs through `main`, which ends stream faults and Ctrl-C."""

    command_class = Command

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """click's main, plus one line and a status for what click leaves as a traceback.

        Standard output closed at start, full, or failing mid-way: one line,
        exit 1 (`solve 2 >&-` must not exit 0 having printed nothing). A
        reader that stopped early (`| head`): quiet, exit 141. SIGINT or
        SIGTERM: "interrupted", then the process dies of the signal (a shell
        shows 130 or 143; not click's "Aborted!", 1), even one that came while
        the program started and no command ran. Called in another program's
        process (a notebook, click's CliRunner), the command takes signals for
        the call only, leaves that program's stdout as it is, and exits with
        SystemExit(130) or (143) after an interrupt.
        """
        if not standalone_mode:  # a program driving click itself handles what it gets
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        ours = interrupts.owns_process()
        try:
            with contextlib.nullcontext() if ours else interrupts.raised():
                try:
                    status = self._standalone_status(args, prog_name, complete_var, ours, **extra)
                except BrokenPipeError as error:  # the error line itself, to a standard error whose reader
                    if error.filename != STDERR:  # is gone: as for any line lost so
                        raise
                    try:
                        sys.stdout.flush()  # what it holds, where it can go
                    except (StdoutFailed, OSError, ValueError):
                        discard_stdout()
                    status = EXIT_BROKEN_PIPE
            interrupts.seal_status(0 if status is None else status if isinstance(status, int) else 1)  # as sys.exit reads it
        except interrupts.Interrupted as interrupt:  # also one that came as an error line was being written
            _exit_interrupted("interrupted", interrupt.signum, resume=False)
        pause("command-ending")
        sys.exit(status)

    def make_context(self, info_name, args, parent=None, **extra):
        """The context, which keeps the words given (`_resume`: when another program calls `main` with
        its own list, sys.argv holds that program's words)."""
        given = list(args)
        ctx = super().make_context(info_name, args, parent=parent, **extra)
        ctx.meta["argv"] = given
        return ctx

    def _standalone_status(self, args, prog_name, complete_var, ours: bool, **extra):
        """click's main in standalone mode, but what it leaves as a traceback is one line and a status.
        `ours`: this process is the command's (`interrupts.owns_process`), and so is its stdout."""
        if sys.stdout is None:
            interrupts.ready()  # a signal that came first is what ends the program
            click.echo("Error: standard output is closed", err=True)
            return 1
        if ours:
            take_stdout()
            take_stderr()
        try:
            try:
                status = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            except SystemExit as stop:
                status = stop.code
            finally:
                interrupts.ready()  # no command ran (--help, --version, a usage error): one that came ends it
            sys.stdout.flush()
        except _NoArgsIsHelp as error:  # plain `blackhole-stats`: the help it asks for, not an error line
            click.echo(error.ctx.get_help(), err=True)
            status = error.exit_code
        except click.UsageError as error:  # one line too, with where to look instead of the usage banner
            where = error.ctx.command_path if error.ctx else "blackhole-stats"
            click.echo(f"Error: {_one_line(error.format_message())} (see '{where} --help')", err=True)
            status = error.exit_code
        except click.ClickException as error:
            click.echo(f"Error: {_one_line(error.format_message())}", err=True)
            status = error.exit_code
        except click.Abort:  # click's for a KeyboardInterrupt (Python's own handler's: a program that called us)
            raise interrupts.Interrupted(signal.SIGINT) from None
        except (MemoryError, ImportError) as error:  # under `ulimit -v`, loading a command's modules or tables
            if isinstance(error, ImportError) and "failed to map segment" not in str(error):
                raise  # a library that is not there: not ours to word
            click.echo(f"Error: out of memory{f': {_one_line(str(error))}' if str(error) else ''} (is the memory "
                       "this process may use limited?)", err=True)
            status = 1
        except UnicodeEncodeError as error:  # the suits' symbols, to a terminal or file in cp1252 or latin-1
            discard_stdout()
            click.echo(f"Error: {_unwritable(error)}: set PYTHONIOENCODING=utf-8 (or, where there is one, choose an "
                       "ASCII --format)", err=True)
            status = 1
        except StdoutFailed as error:
            discard_stdout()
            if error.errno == errno.EPIPE:
                status = EXIT_BROKEN_PIPE
            else:
                click.echo(f"Error: cannot write to standard output: {error}", err=True)
                status = 1
        return status


def _unwritable(error: UnicodeEncodeError) -> str:
    return f"the output's encoding, {sys.stdout.encoding}, cannot write {ascii(error.object[error.start])}"


@contextlib.contextmanager
def _open_input(path: str) -> Iterator[BinaryIO]:
    """A file, or standard input for '-', for reading bytes; closed or unreadable is one line."""
    try:
        if path == "-":
            if sys.stdin is None:
                raise click.ClickException("standard input is closed")
            yield sys.stdin.buffer
        else:
            with open(path, "rb") as stream:
                yield stream
    except OSError as error:  # opening, or reading in the caller's block
        raise click.ClickException(f"cannot read {_name(path)}: {error.strerror}") from None


def _written(out: str, error: OSError) -> str:
    """What a run could not write to: DIR, or its side folder DIR.run where that alone is read-only (a
    mount of its own) and the file was there. (A full disk is the run's, whichever folder met it.)"""
    from .dataset import READ_ONLY, SIDE_SUFFIX, RunPaths

    paths = RunPaths.of(out)
    failed = os.fsdecode(error.filename) if isinstance(error.filename, (str, bytes)) else ""
    there = (error.errno in READ_ONLY and paths.side and os.path.dirname(failed) == paths.side
             and os.access(paths.root, os.W_OK))
    return f"{out}{SIDE_SUFFIX}" if there else out


def _what_is_kept(out: str) -> str:
    """What a run stopped by its storage leaves behind, as its error line says it: "the finished chunks
    are kept" was said where the first write had failed, with none finished."""
    from .dataset import DatasetError, list_run

    try:
        return "the finished chunks are kept" if list_run(out).parts else "no chunk had finished"
    except (OSError, DatasetError):  # the storage that failed may fail the listing too
        return "any finished chunks are kept"


def _name(path: str) -> str:
    """A path as messages show it: escaped if it holds a newline or other control characters."""
    if path == "-":
        return "standard input"
    return path if path.isprintable() else quoted(path, limit=200)


class GameNumberType(click.ParamType):
    name = "GAME"

    def convert(self, value, param, ctx):
        if isinstance(value, GameNumber):
            return value
        try:
            number = GameNumber.parse(value)
        except DealNumberError as error:
            raise click.ClickException(str(error)) from None  # one line, no usage banner
        if ctx is not None and str(number) != value.strip():  # for `deal`, whose board does not name it
            ctx.meta["dialog_spelling"] = value
        return number


class GameType(click.ParamType):
    """--game: a key, PySolFC id or name (any case); a wrong one is refused listing the choices."""

    name = "|".join(game.key for game in GAMES)

    def convert(self, value, param, ctx):
        try:
            return get_game(value)
        except UnknownGameError as error:
            self.fail(str(error), param, ctx)


class SecondsType(click.ParamType):
    """A length of time in plain decimal notation, as --range takes its numbers (Python's float took `1_0`
    as 10 and full-width digits), from 0 to MAX_SECONDS; -0 is 0 (it was shown as "-0 s")."""

    name = "SECONDS"
    _TEXT = re.compile(r"-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")

    def convert(self, value, param, ctx):
        text = str(value).strip()
        if isinstance(value, float) or self._TEXT.fullmatch(text):
            with contextlib.suppress(ValueError):
                return seconds(param.name if param else "seconds", float(value))
        self.fail(f"{quoted(str(value))} is not a number of seconds from 0 to {MAX_SECONDS:,}", param, ctx)


GAME_CHOICES = ", ".join(f"{game.key} ({game.pysol_id})" for game in GAMES)
GAME_OPTION = click.option(
    "--game", "game_kind", type=GameType(), default=DEFAULT_GAME.key, show_default=True,
    help=f"Which game of the family: {GAME_CHOICES}; PySolFC's names work too ('All in a Row').")


def _check_search(search: str, game: Game) -> None:
    """--search classic on a game it does not play: a usage error (solver.check_search words it)."""
    from .solver import check_search

    try:
        check_search(search, game)
    except ValueError as error:
        raise click.UsageError(f"--search {search}: {error}") from None


class GameCommand(Command):
    """A command with a GAME argument, where `-1` is a negative game number, not an unknown option."""

    def parse_args(self, ctx, args):
        given = list(args)  # click's parser consumes `args`
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as error:
            number = next((arg for arg in given if re.match(r"-+[0-9]", arg)
                           and arg.startswith(error.option_name)), None)
            if number is not None:
                GameNumberType().convert(number, None, ctx)  # refuses it: "negative", exit 1
            raise


_LINE_BREAKS = {ord(c): repr(c)[1:-1] for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"}


def _one_line(message: str) -> str:
    """A message that quotes what the user typed stays one line, even if that held a line break."""
    return message.translate(_LINE_BREAKS)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="blackhole-stats")
def main() -> None:
    """Deal, solve and study PySolFC's Black Hole solitaire.

    \b
    Examples:
      blackhole-stats deal 42 --format pretty
      blackhole-stats solve 42
      blackhole-stats run --range 1-10000 --out runs/first
      blackhole-stats report runs/first
    """


@main.command("deal", cls=GameCommand, short_help="Print the board PySolFC deals for a game number.")
@click.argument("game", type=GameNumberType())
@GAME_OPTION
@click.option("--format", "fmt", type=click.Choice(["board", "pretty"]), default="board",
              show_default=True, help="board: black-hole-solve's text; pretty: suit symbols.")
def deal_command(game: GameNumber, game_kind: Game, fmt: str) -> None:
    """Print the layout PySolFC deals for GAME (e.g. 42, ms42, 26464608654870335080)
    in the game --game names (Black Hole by default).

    Plain numbers follow today's PySolFC (Microsoft LCG below 32000, Mersenne
    Twister from 32000 up); msN is always the LCG. GAME is read as PySolFC's
    dialog reads it: spaces, '#', '-', '_', '.' and ',' are dropped
    (#12,345 is 12345).

    \b
    Examples:
      blackhole-stats deal 42
      blackhole-stats deal ms32000 --format pretty
      blackhole-stats deal 7 --game "All in a Row"
    """
    board = deal(game, game_kind)
    click.echo(board.pretty() if fmt == "pretty" else board.to_text(), nl=False)
    spelt = click.get_current_context().meta.get("dialog_spelling")
    if spelt is not None:
        click.echo(f"dealt game {game} ({quoted(spelt)} as PySolFC's dialog reads it)", err=True)


@main.command("solve", cls=GameCommand, short_help="Decide exactly whether a deal or position can be won, and how.")
@click.argument("game", required=False)
@GAME_OPTION
@click.option("--board", "board_file", type=click.Path(allow_dash=True),
              help="Read a position in black-hole-solve's board format ('-' = stdin).")
@click.option("--search", type=click.Choice(SEARCHES), default="fast", show_default=True,
              help="fast: pruned exact search; classic: the peer's plain DFS (comparable counts; "
                   "Black Hole only).")
@click.option("--max-iters", type=ITERATION_BUDGET, default=None,
              help="Bound the whole solve: 'intractable' if the verdict is not reached; "
                   "an unsolvable deal's most cards played may then be left undetermined.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def solve_command(game: str | None, game_kind: Game, board_file: str | None, search: str,
                  max_iters: int | None, as_json: bool) -> None:
    """Decide GAME (or a position from --board FILE, or '-' for stdin) exactly,
    in the game --game names (Black Hole by default).

    \b
    Exit status: 0 solved, 3 unsolvable, 4 intractable (--max-iters ran out),
    1 bad input, 2 bad usage.
    Example: blackhole-stats solve 2 --json
    """
    if game is None and board_file is None:
        raise click.UsageError("give a game number, --board FILE, or '-' for a board on stdin")
    if game is not None and board_file is not None:
        raise click.UsageError("give a game number or --board, not both")
    if game == "-":
        board_file = "-"
    _check_search(search, game_kind)
    label = None
    if board_file is not None:
        with _open_input(board_file) as stream:
            try:
                board = Board.read(stream, game_kind)  # bytes: keep any '\r'
            except BoardParseError as error:
                source = click.get_current_context().get_parameter_source("game_kind")
                hint = ""
                if source is click.core.ParameterSource.DEFAULT and (
                        "has no talon" in str(error) or "is never empty" in str(error)):
                    others = [game.key for game in GAMES if game is not game_kind]
                    hint = f" (a board of another game? give --game {', '.join(others[:-1])} or {others[-1]})"
                raise click.ClickException(f"bad board: {error}{hint}") from None
    else:
        number = GameNumberType().convert(game, None, None)
        board = deal(number, game_kind)
        label = str(number)
    try:
        result = Solver().solve(board, search=search, max_iters=max_iters)  # Ctrl-C, SIGTERM: see Command
    except MemoryError as error:
        raise click.ClickException(f"out of memory: {error}") from None
    if as_json:
        click.echo(json.dumps({"game": game_kind.key, "deal": label, **result.to_dict()}))
    else:
        click.echo(_describe(label, result, game_kind))
    sys.exit(EXIT_STATUS[result.outcome])


def _describe(label: str | None, result, game: Game) -> str:
    name = f"deal {label}" if label else "position"
    if game is not DEFAULT_GAME:
        name = f"{game.name} {name}"
    verdicts = {"solved": "solvable", "unsolved": "not solvable", "intractable": "undecided"}
    lines = [f"{name}: {verdicts[result.outcome]} ({result.outcome}), "
             f"{counted(result.iterations, 'iteration')}, {result.seconds:.3f} s"]
    if result.solved:
        count = len(result.solution)
        lines.append(f"solution, {counted(count, 'move')} (pile numbers are 0-based, board order):")
        lines += [f"{index:>3}. {move.card} from {'the talon' if move.is_talon else f'pile {move.pile}'}"
                  for index, move in enumerate(result.solution, 1)]
        return "\n".join(lines)
    here = "" if label else " from this position"  # a position's cards already off the board are not counted
    if result.outcome == "intractable":
        lines.append(f"most cards played{here} by a line found before the budget ran out: {result.cards_played}")
    else:
        found = "not determined within --max-iters" if result.cards_played is None else result.cards_played
        lines.append(f"most cards any line of play{here} gets onto the foundation: {found}")
    return "\n".join(lines)


@main.command("report", short_help="Summarize a dataset: outcomes, iterations, plots, comparisons.")
@click.argument("dataset", type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text",  # report.FORMATS
              show_default=True, help="text for the terminal, markdown for a README, json for programs.")
@click.option("--plots", "plots_dir", type=click.Path(file_okay=False),
              help="Also write PNG charts into this directory, outside the datasets (needs the 'plots' "
                   "extra: matplotlib).")
@click.option("--compare", "other", type=click.Path(),
              help="Another dataset, .parquet file or CSV (deal, outcome, optional iterations, ms, "
                   "cards_played or max_played): list deals whose verdicts differ, statistics side by side.")
@click.option("--game", "game_kind", type=GameType(), default=None,
              help="The game DATASET's deals are of, for a file that does not say (no game column, no run "
                   "manifest); checked against a dataset that does  [default: the dataset's game, else Black Hole]")
@click.option("--compare-game", type=GameType(), default=None,
              help="The same for the --compare side  [default: its own game, else DATASET's]")
def report_command(dataset: str, fmt: str, plots_dir: str | None, other: str | None, game_kind: Game | None,
                   compare_game: Game | None) -> None:
    """Summarize the solved deals in DATASET (a run directory, a .parquet file or a CSV; a path or URL).

    Outcome counts with a 95% Wilson interval for the solvable fraction,
    iteration statistics per outcome, how close unsolvable deals got, the
    hardest deals and the run's settings. Reads only the documented columns.
    One game a report: the game column's, else the run's, else --game, else
    Black Hole (a note on stderr says when the game is only assumed); a
    dataset mixing games is refused. --compare works across two games of the
    same deals (which deals one wins and the other does not).

    \b
    Examples:
      blackhole-stats report runs/first
      blackhole-stats report runs/first --format markdown --plots plots/first
      blackhole-stats report runs/fast --compare runs/classic
      blackhole-stats report runs/first --compare peer_1_1000.csv --format json
      blackhole-stats report runs/golf --compare runs/relaxed_golf
      blackhole-stats report peer_golf_1_1000.csv --game golf
    """
    from . import report  # pandas loads only for this command
    from .dataset import DatasetError, enclosing_run, inside_dataset, read_manifest, run_behind_link
    from .plots import PlotsUnavailable

    if compare_game is not None and other is None:
        raise click.UsageError("--compare-game names the game of the --compare side: give --compare too")
    if plots_dir == "":
        raise click.BadParameter("an empty name is no directory", param_hint="'--plots'")
    try:
        dataset, other = (run_behind_link(source) if source is not None else None for source in (dataset, other))
        if plots_dir is not None:  # the datasets reported on, and any run's (`report B --plots A`)
            source = next((f"the dataset {source}" for source in (dataset, other) if source is not None
                           and inside_dataset(plots_dir, source)), None) or enclosing_run(plots_dir, itself=True)
            if source is not None:
                raise click.UsageError(f"--plots {plots_dir} is inside {source}, whose readers would read the "
                                       "PNGs too: choose a directory outside it")
        data, manifest = report.load(dataset, game=game_kind), read_manifest(dataset)
        game = _game_of(data, dataset, manifest, game_kind, "--game")
        result = report.build_report(data, dataset, manifest, game)
        assumed = [(data, manifest, game_kind, dataset, game, "--game")]
        if other is not None:
            other_data = report.load(other, required=report.VERDICTS, game=compare_game or game)  # as _game_of
            other_manifest = read_manifest(other)
            other_game = _game_of(other_data, other, other_manifest, compare_game, "--compare-game", default=game)
            assumed.append((other_data, other_manifest, compare_game, other, other_game, "--compare-game"))
            other_report = report.build_report(other_data, other, other_manifest, other_game)
            result = report.compare(data, other_data, result, other_report)
        written, removed = _write_plots(data, plots_dir, game) if plots_dir is not None else ([], [])
    except (DatasetError, PlotsUnavailable) as error:
        raise click.ClickException(str(error)) from None
    click.echo(report.render(result, fmt))
    for note in assumed:  # once the report is out: a refusal stays one line, a reader gone early quiet
        _note_assumed_game(*note)
    for path in written:
        click.echo(f"wrote {path}", err=True)
    for path in removed:
        click.echo(f"removed {path}: this dataset has nothing for it to show", err=True)


def _write_plots(data, plots_dir: str, game: Game) -> tuple[list, list]:
    """The charts written and removed (`write_plots`), or one line saying why --plots DIR cannot take them
    (no such parent, read-only, ...)."""
    from .plots import write_plots

    try:
        return write_plots(data, plots_dir, game)
    except OSError as error:
        raise click.ClickException(f"cannot write the plots to {plots_dir}: {error.strerror or error}") from None


def _assumed_game(data, manifest: dict | None, given: Game | None, source: str, game: Game, option: str
                  ) -> str | None:
    """What to say when a dataset's game was assumed, not read (else None): a report or list labelled
    with the wrong game is silently wrong, and verdicts compared under the wrong rules look like
    contradictions."""
    from .report import names_no_game

    if given is None and names_no_game(data, manifest):
        return f"{source} does not say which game its deals are of; read as {game.name} ({option} names it)"
    return None


def _note_assumed_game(*dataset) -> None:
    """The note on stderr, once the command stands (a refusal stays one line)."""
    note = _assumed_game(*dataset)
    if note:
        click.echo(f"note: {note}", err=True)


def _game_of(data, source: str, manifest: dict | None, given: Game | None, option: str, default: Game | None = None
             ) -> Game:
    """report.game_of; a refusal of a dataset whose game was assumed says so (a Golf file read as
    Black Hole holds cards_played no Black Hole deal can have)."""
    from . import report
    from .dataset import DatasetError

    try:
        return report.game_of(data, source, manifest, default=default, given=given)
    except DatasetError as error:
        note = _assumed_game(data, manifest, given, source, default or DEFAULT_GAME, option)
        if note is None:
            raise
        raise DatasetError(f"{error} (note: {note})") from None


@main.command("export", short_help="List a dataset's game numbers: solvable, unsolvable, by tag.")
@click.argument("dataset", type=click.Path())
@click.option("--solvable", is_flag=True, help="Only deals that can be won.")
@click.option("--unsolvable", is_flag=True, help="Only deals proved unwinnable (intractable deals are in neither list).")
@click.option("--tag", "tags", multiple=True, metavar="TAG",
              help="Only solvable deals of this difficulty: very-easy, easy, medium, hard, very-hard "
                   "(repeat it for several; needs a dataset made with run --difficulty).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv"]),  # export.FORMATS
              default="text", show_default=True,
              help="text: one game number per line; json or csv: with outcome, iterations, cards played, "
                   "difficulty and tag.")
@click.option("--game", "game_kind", type=GameType(), default=None,
              help="The game the list is for: checked against the dataset's (a list of Golf deals is no "
                   "list of Black Hole deals), or naming it for a file that does not say  [default: the "
                   "dataset's game, else Black Hole, with a note]")
def export_command(dataset: str, solvable: bool, unsolvable: bool, tags: tuple[str, ...], fmt: str,
                   game_kind: Game | None) -> None:
    """Write the game numbers of DATASET (a run directory, a .parquet file or a CSV) to stdout, in deal order.

    Numbers are exactly as PySolFC shows them (123, ms123, 20-digit seeds in
    full); plain text is one a line, the shape of PySolFC's seeds files.
    The game is the dataset's (a dataset mixing games is refused); --game
    names the one expected, and another is refused. A run whose rows are not
    the deals its manifest asks for (an interrupted one) gets a warning on
    stderr: its list is short.

    \b
    Examples:
      blackhole-stats export runs/million --solvable > black_hole_winnable.txt
      blackhole-stats export runs/tagged --tag hard --tag very-hard
      blackhole-stats export runs/tagged --solvable --format csv > deals.csv
    """
    from . import export, report  # pandas loads only for this command
    from .dataset import DatasetError, read_manifest, run_behind_link
    from .difficulty import DifficultyError, parse_tag

    try:
        wanted = tuple(parse_tag(tag) for tag in tags)
    except DifficultyError as error:
        raise click.BadParameter(str(error), param_hint="'--tag'") from None
    if solvable and unsolvable:
        raise click.UsageError("--solvable and --unsolvable exclude each other (give neither for every deal)")
    if wanted and unsolvable:
        raise click.UsageError("--tag selects solvable deals: it cannot go with --unsolvable")
    outcome = "solved" if solvable or wanted else "unsolved" if unsolvable else None
    try:
        dataset = run_behind_link(dataset)
        data = report.load(dataset, required=report.VERDICTS, game=game_kind)
        manifest = read_manifest(dataset)
        game = _game_of(data, dataset, manifest, game_kind, "--game")
        rows = export.select(data, dataset, outcome, wanted)
        # an interrupted run: its lists would be short, silently; strays: a notebook's lists would differ
        warnings = report.source_warnings(data, manifest, dataset) + export.untagged_warnings(data, wanted)
    except (DatasetError, export.ExportError) as error:
        raise click.ClickException(str(error)) from None
    click.echo(export.render(rows, fmt, game), nl=False)
    _note_assumed_game(data, manifest, game_kind, dataset, game, "--game")  # after: a reader gone early, quiet
    for line in warnings:
        click.echo(line, err=True)


class RunCommand(Command):
    resumable = True


@main.command("run", cls=RunCommand, short_help="Solve ranges of deals in parallel into a resumable dataset.")
@click.option("--range", "ranges", multiple=True, metavar="RANGES",
              help="Deals to solve: 1-1000000, ms1-ms5000, 42; repeat it or separate with commas "
                   "(digits only: '1 5' and '1.5' are refused, never read as 15).")
@click.option("--deals", "deals_file", type=click.Path(exists=True, dir_okay=False, allow_dash=True),
              help="A text file ('-' = stdin) of what --range takes, one or more per line; blank "
                   "lines and lines starting with '#' are skipped. UTF-8, or UTF-16/32 with a BOM.")
@click.option("--out", required=True, metavar="DIR",
              help="The dataset directory (or a pyarrow/fsspec URL); a run already there is resumed.")
@click.option("--game", "game_kind", type=GameType(), default=None,
              help=f"Which game to deal and solve: {GAME_CHOICES}, or PySolFC's name  [default: black_hole; "
                   "resuming: the run's own game, and another is refused]")
@click.option("--workers", type=click.IntRange(min=1),
              help="Worker processes, at most twice the cores  [default: all cores]")
@click.option("--chunk-size", type=click.IntRange(min=1), default=None,
              help="Deals per task and per Parquet file  [default: 1000; less for small runs, "
                   "more past a million deals (about 1000 files)]")
@click.option("--search", type=click.Choice(SEARCHES), default="fast",
              help="fast: pruned exact search; classic: the peer's plain DFS (comparable counts; "
                   "Black Hole only)  [default: fast; resuming: the run's own]")
@click.option("--max-iters", type=ITERATION_BUDGET, default=None,
              help="Bound each deal's solve: 'intractable' if its verdict is not reached; "
                   "an unsolvable deal's cards_played may then be null  [default: no bound; resuming: "
                   "the run's own]")
@click.option("--difficulty", is_flag=True,
              help="Also score each solvable deal's difficulty for a person and tag it, very easy .. "
                   "very hard, on the game's scale (9 to 36 ms of CPU per solvable deal: README, Difficulty)  "
                   "[resuming: as the run was made]")
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help="Run on this Dask cluster instead of local processes (needs the 'dask' extra).")
@click.option("--wait-for-workers", type=SecondsType(), metavar="SECONDS",
              help="With --scheduler: how long to wait for a first worker to join  [default: 60]")
@click.option("--forget-missing", is_flag=True,
              help="The run no longer asks for the deals it does not hold yet (a mistyped range, which every "
                   "resume would go on solving), only for those given now besides.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr  [default: when stderr is a terminal]")
def run_command(ranges: tuple[str, ...], deals_file: str | None, out: str, game_kind: Game | None, workers: int | None,
                chunk_size: int | None, search: str, max_iters: int | None, difficulty: bool,
                scheduler: str | None, wait_for_workers: float | None, forget_missing: bool,
                progress: bool | None) -> None:
    """Solve each deal of the ranges once, in parallel, into the dataset DIR.

    Each finished chunk is its own file, so a killed run keeps its work:
    running the same command again (or just --out DIR) solves only the
    deals that are missing. Adding ranges to a run is fine (every deal the
    run asks for, old ranges too, is then solved; --forget-missing drops
    those it does not hold yet); changing --game, --search,
    --max-iters or --difficulty is refused. Ctrl-C, SIGTERM or a hang-up (at
    any moment; one ignored when the run starts stays ignored) stops it,
    and the process dies of the signal (the shell shows 130/143/129, and a
    loop over runs stops after Ctrl-C); exit 1 if a chunk failed or the disk
    is full or read-only;
    each prints the command that resumes.

    \b
    Examples:
      blackhole-stats run --range 1-1000000 --out runs/million
      blackhole-stats run --range ms1-ms5000,42 --search classic --out runs/ms
      blackhole-stats run --deals random.txt --out runs/random --workers 8
      blackhole-stats run --range 1-100000 --difficulty --out runs/tagged
      blackhole-stats run --range 1-1000000 --game golf --out runs/golf
    """
    pause("run-command")  # a signal before the run began or after it ended: see Command
    if scheduler is not None and not scheduler.strip():  # it ran on local processes, as if not given
        raise click.BadParameter("an empty address is no scheduler's (tcp://HOST:PORT)", param_hint="'--scheduler'")
    if wait_for_workers is not None and scheduler is None:
        raise click.UsageError("--wait-for-workers is for --scheduler's cluster: local workers need no wait")
    context = click.get_current_context()
    given = {name for name in ("search", "max_iters", "difficulty")
             if context.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT}
    _run(ranges, deals_file, out, game_kind, workers, chunk_size, search, max_iters, difficulty, given,
         scheduler, wait_for_workers, forget_missing, progress)


def _run(ranges, deals_file, out, game, workers, chunk_size, search, max_iters, difficulty, given, scheduler,
         wait_for_workers, forget_missing, progress) -> None:
    """The `run` command within its interrupt handling; settings not `given` are the resumed run's own."""
    from .dataset import DISK_FULL, READ_ONLY, DatasetError, check_held_settings, first_line, locate, read_manifest
    from .deals import DealSet, DealSpecError
    from .difficulty import DifficultyError, DifficultyUndefined, current_scale
    from .runner import RunError, RunStopped, run  # pyarrow loads only here

    try:
        held = read_manifest(locate(out))  # None: a new run (open_run checks it all again, under the lock)
        held_scale = None
        if held is not None:
            game, held_scale = check_held_settings(out, held, game), held.get("difficulty_scale")
            search = search if "search" in given else held["search"]
            max_iters = max_iters if "max_iters" in given else held.get("max_iters")
        if "difficulty" in given:  # the run's own scale if it has one
            scale = (held_scale or current_scale(game).name) if difficulty else None
        else:
            scale = held_scale
    except DifficultyUndefined as error:
        raise click.UsageError(f"--difficulty: {error}") from None
    except (DatasetError, DifficultyError) as error:
        raise click.ClickException(str(error)) from None
    _check_search(search, game or DEFAULT_GAME)  # resuming: the run's game
    try:
        deals = DealSet.parse(ranges) if ranges else None
        if deals_file is not None:
            listed = _read_deals(deals_file)
            click.get_current_context().meta["deals_listed"] = listed  # for the resume line
            deals = listed if deals is None else deals | listed
        summary = run(out, deals, search=search, max_iters=max_iters, difficulty_scale=scale, game=game,
                      workers=workers, chunk_size=chunk_size, scheduler=scheduler, wait_for_workers=wait_for_workers,
                      forget_missing=forget_missing,
                      progress=(sys.stderr is not None and sys.stderr.isatty()) if progress is None else progress)
    except RunStopped as stopped:
        if stopped.signum is None:
            raise click.ClickException(f"{stopped}; details in the log; resume with: {_resume(out)}") from None
        _exit_interrupted(str(stopped), stopped.signum, out=out)
    except OSError as error:
        if error.errno in DISK_FULL | READ_ONLY:
            remedy = "free some space" if error.errno in DISK_FULL else "make it writable"
            raise click.ClickException(f"cannot write to {_written(out, error)}: {os.strerror(error.errno)}; "
                                       f"{_what_is_kept(out)}: {remedy}, then resume with: {_resume(out)}") from None
        # storage that failed where no check expected it (a server hung up)
        raise click.ClickException(f"cannot use {out}: {first_line(error)}; {_what_is_kept(out)}: "
                                   f"resume with: {_resume(out)}") from None
    except (DealSpecError, DatasetError, RunError) as error:
        raise click.ClickException(str(error)) from None
    try:
        click.echo(_summary(summary))
    except (StdoutFailed, UnicodeEncodeError) as failed:  # a script must not take a complete run for a failed one
        if getattr(failed, "errno", None) == errno.EPIPE:
            raise  # a reader that stopped early: quiet, as everywhere
        discard_stdout()
        why = _unwritable(failed) if isinstance(failed, UnicodeEncodeError) else str(failed)
        raise click.ClickException(f"the run is complete ({summary.requested:,} deals in {summary.out}), but its "
                                   f"summary could not be written to standard output: {why}") from None


def _summary(summary) -> str:
    """What a session did, in lines that fit 80 columns (up to a million deals, and a short path)."""
    counts = ", ".join(f"{n:,} {outcome}" for n, outcome in zip(summary.outcomes, OUTCOMES))
    rate = summary.solved_now / summary.seconds if summary.seconds else 0.0
    workers = counted(summary.workers, "worker")
    return (f"{counted(summary.solved_now, 'deal')} solved now in {summary.seconds:,.1f} s "
            f"({rate:,.0f} deals/s, {workers})\n"
            f"{counts}\n"
            f"{summary.already_done:,} of the run's {summary.requested:,} deals were already done; "
            f"dataset: {summary.out}")


def _read_deals(path: str):
    """The deals a --deals file lists; one that lists none is a mistake, not an empty run."""
    from .deals import DealSet

    with _open_input(path) as stream:
        deals = DealSet.read(stream, _name(path))
    if not deals:
        raise click.ClickException(f"{_name(path)} lists no deals (only blank lines and '#' comments)")
    return deals


def _resume(out: str | None) -> str:
    """The command that resumes the run in `out`: the same one, less its `--deals` list once the run's
    manifest holds those deals (standard input, a pipe or `<(...)` cannot be read again, a file may be
    gone); before that, only the list can give them. Less `--forget-missing` too: done once, it would
    forget what the interrupted session was given (a --deals list it then dropped)."""
    context = click.get_current_context(silent=True)
    listed = context.meta.get("deals_listed") if context is not None else None
    manifest = None
    if out is not None and listed is not None:
        try:  # a signal may have cut the first import of numpy short: a second one raises ImportError
            from .dataset import DatasetError, expected_deals, locate, read_manifest

            manifest = read_manifest(locate(out))
        except (ImportError, DatasetError):  # the command as given, --deals and all, resumes it too
            manifest = None
    recorded = manifest is not None and not listed - expected_deals(manifest)
    kept, words = [], iter(context.meta.get("argv", sys.argv[1:]) if context is not None else sys.argv[1:])
    for word in words:
        given = [word, next(words, None)] if word == "--deals" else [word]
        if not (recorded and (len(given) == 2 or word.startswith("--deals="))) and word != "--forget-missing":
            kept.extend(part for part in given if part is not None)
    return shlex.join(["blackhole-stats", *kept])


def _exit_interrupted(message: str, signum: int, resume: bool = True, out: str | None = None) -> None:
    """The last word of an interrupted command: what was done, how to resume a run (in `out`); then the
    process dies of the signal (`interrupts.die_of_signal_at_exit`; 128 + it where signals give no
    status): the first that came, if a second cut the handling of the first short."""
    try:
        signum = interrupts.first_signal(signum)
        interrupts.seal_status(128 + signum, let_pass=1)  # GNU timeout's second SIGTERM (to the group) passes
    except interrupts.Interrupted:  # a second signal just before the seal: the first decides all the same
        signum = interrupts.first_signal(signum)
        interrupts.seal_status(128 + signum, let_pass=0)
    interrupts.die_of_signal_at_exit(signum)
    try:
        pause("last-word")
        click.echo(f"{message}; resume with: {_resume(out)}" if resume else message, err=True)
    except OSError:  # the terminal went away with the hang-up: the status still says it
        pass
    except interrupts.Interrupted:  # in another program's process, where nothing is sealed: a second signal
        pass  # cuts the line short, and the first decides the status all the same
    interrupts.seal_status(128 + signum)
    sys.exit(128 + signum)


@main.command("verify", short_help="Check a run's dataset: every deal once, every solution legal.")
@click.argument("directory", metavar="DIR")
@click.option("--solve-again", is_flag=True,
              help="Solve every deal again as the run solved it (its outcome, iterations and cards played), not "
                   "only the first without a winning line of each file: slow, about the CPU time of the run, on one "
                   "core.")
def verify_command(directory: str, solve_again: bool) -> None:
    """Check a run's dataset against its manifest: every deal once, every solution legal.

    Replays each stored solution from its deal and checks each row's
    outcome, cards_played and solution against each other, and that DIR
    holds nothing else that pandas, pyarrow, DuckDB or polars would read
    (a backup copy would count its deals twice). An unsolved or intractable
    row has no line to replay: the first of each file is solved again as the
    run solved it (outcome, iterations, cards played); with --solve-again
    every deal is, solved ones too. Prints the problems and exits 1 if there are any. An
    unfinished file that an interrupted run left beside DIR (in DIR.run/) is
    only a note: no reader sees it.

    Example: blackhole-stats verify runs/million
    """
    from .dataset import DatasetError
    from .verify import verify

    try:
        checked = verify(directory, solve_again=solve_again)
    except DatasetError as error:
        raise click.ClickException(str(error)) from None
    for problem in checked.problems:
        click.echo(problem)
    for note in checked.notes:
        click.echo(f"note: {note}")
    if checked.problems:
        raise click.ClickException(
            f"verification failed: {len(checked.problems)} problem(s) in {directory}")
    click.echo(f"ok: {counted(checked.rows, 'row')}, every deal of the manifest exactly once, "
               "every solution replays legally, no other files for readers to pick up")
    if solve_again:
        click.echo(f"deals solved again as the run solved them: {checked.solved_again:,} of {checked.rows:,}"
                   + ("" if checked.solved_again == checked.rows else " (this version's search counts otherwise "
                      "than the run's: its unsolved deals, their verdicts)"))
    elif checked.unreplayed:
        click.echo(f"deals without a winning line solved again: {checked.solved_again:,} of "
                   f"{checked.unreplayed:,} (the first of each file; --solve-again: every deal)")
    if checked.scored_again:
        click.echo(f"difficulty scores computed again: {checked.scored_again:,}, the first solved deal's of each "
                   "file; every other score is checked against its tag")
