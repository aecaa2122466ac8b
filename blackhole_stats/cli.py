"""The `blackhole-stats` command line: a thin shell over the library."""
from __future__ import annotations

import json
import os
import shlex
import signal
import sys

import click

from . import __version__, _testhooks, interrupts
from .board import Board, BoardParseError
from .dealing import DealNumberError, GameNumber, deal
from .solver import SEARCHES, Solver

EXIT_STATUS = {"solved": 0, "unsolved": 3, "intractable": 4}
"""`solve` exit codes; 1 is an input error, 2 a usage error (click's)."""


class GameNumberType(click.ParamType):
    name = "GAME"

    def convert(self, value, param, ctx):
        if isinstance(value, GameNumber):
            return value
        try:
            return GameNumber.parse(value)
        except DealNumberError as error:
            raise click.ClickException(str(error)) from None  # one line, no usage banner


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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


@main.command("deal")
@click.argument("game", type=GameNumberType())
@click.option("--format", "fmt", type=click.Choice(["board", "pretty"]), default="board",
              show_default=True, help="board: black-hole-solve's text; pretty: suit symbols.")
def deal_command(game: GameNumber, fmt: str) -> None:
    """Print the layout PySolFC deals for GAME (e.g. 42, ms42, 26464608654870335080).

    Plain numbers follow today's PySolFC (Microsoft LCG below 32000, Mersenne
    Twister from 32000 up); msN is always the LCG.
    """
    board = deal(game)
    click.echo(board.pretty() if fmt == "pretty" else board.to_text(), nl=False)


@main.command("solve")
@click.argument("game", required=False)
@click.option("--board", "board_file", type=click.File("rb"),
              help="Read a position in black-hole-solve's board format ('-' = stdin).")
@click.option("--search", type=click.Choice(SEARCHES), default="fast", show_default=True,
              help="fast: pruned exact search; classic: the peer's plain DFS (comparable counts).")
@click.option("--max-iters", type=click.IntRange(min=1), default=None,
              help="Give up (outcome 'intractable') after this many iterations.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def solve_command(game: str | None, board_file, search: str, max_iters: int | None,
                  as_json: bool) -> None:
    """Decide GAME (or a position from --board FILE, or '-' for stdin) exactly.

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
        board_file, game = click.open_file("-", "rb"), None
    label = None
    if board_file is not None:
        try:
            board = Board.from_text(board_file.read().decode("utf-8"))  # bytes: keep any '\r' 
        except (BoardParseError, UnicodeDecodeError) as error:
            raise click.ClickException(f"bad board: {error}")
    else:
        number = GameNumberType().convert(game, None, None)
        board = deal(number)
        label = str(number)
    result = Solver().solve(board, search=search, max_iters=max_iters)
    if as_json:
        click.echo(json.dumps({"deal": label, **result.to_dict()}))
    else:
        click.echo(_describe(label, result))
    sys.exit(EXIT_STATUS[result.outcome])


def _describe(label: str | None, result) -> str:
    name = f"deal {label}" if label else "position"
    verdicts = {"solved": "solvable", "unsolved": "not solvable", "intractable": "undecided"}
    lines = [f"{name}: {verdicts[result.outcome]} ({result.outcome}), "
             f"{result.iterations:,} iterations, {result.seconds:.3f} s"]
    if result.solved:
        count = len(result.moves)
        lines.append(f"solution, {count} move{'' if count == 1 else 's'} (pile numbers are 0-based, board order):")
        lines += [f"{index:>3}. {move}" for index, move in enumerate(result.moves, 1)]
    else:
        lines.append(f"most cards any line of play gets onto the foundation: {result.cards_played}"
                     if result.outcome == "unsolved" else
                     f"most cards played by a line found before the budget ran out: {result.cards_played}")
    return "\n".join(lines)


@main.command("report")
@click.argument("dataset", type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text",
              show_default=True, help="text for the terminal, markdown for a README, json for programs.")
@click.option("--plots", "plots_dir", type=click.Path(file_okay=False),
              help="Also write PNG charts into this directory (needs the 'plots' extra: matplotlib).")
@click.option("--compare", "other", type=click.Path(),
              help="Another dataset, .parquet file or CSV (deal, outcome, optional iterations, ms, "
                   "cards_played or max_played): list deals whose verdicts differ, statistics side by side.")
def report_command(dataset: str, fmt: str, plots_dir: str | None, other: str | None) -> None:
    """Summarize the solved deals in DATASET (a run directory, a .parquet file or a CSV).

    Outcome counts with a 95% Wilson interval for the solvable fraction,
    iteration statistics per outcome, how close unsolvable deals got, the
    hardest deals and the run's settings. Reads only the documented columns.

    \b
    Examples:
      blackhole-stats report runs/first
      blackhole-stats report runs/first --format markdown --plots runs/first/plots
      blackhole-stats report runs/fast --compare runs/classic
      blackhole-stats report runs/first --compare peer_1_1000.csv --format json
    """
    from . import report  # pandas loads only for this command
    from .plots import PlotsUnavailable, write_plots

    try:
        data = report.load(dataset)
        result = report.build_report(data, dataset, report.read_manifest(dataset))
        if other is not None:
            other_data = report.load(other, required=report.VERDICTS)
            other_report = report.build_report(other_data, other, report.read_manifest(other))
            result = report.compare(data, other_data, result, other_report)
        written = write_plots(data, plots_dir) if plots_dir is not None else []
    except (report.DatasetError, PlotsUnavailable, OSError) as error:  # OSError: --plots DIR unwritable
        raise click.ClickException(str(error)) from None
    click.echo(report.render(result, fmt))
    for path in written:
        click.echo(f"wrote {path}", err=True)


@main.command("run")
@click.option("--range", "ranges", multiple=True, metavar="RANGES",
              help="Deals to solve: 1-1000000, ms1-ms5000, 42; repeat it or separate with commas.")
@click.option("--deals", "deals_file", type=click.File("r", encoding="utf-8"),
              help="A file of game numbers to solve, one per line.")
@click.option("--out", required=True, metavar="DIR",
              help="The dataset directory (or a pyarrow/fsspec URL); a run already there is resumed.")
@click.option("--workers", type=click.IntRange(min=1),
              help="Worker processes, at most twice the cores  [default: all cores]")
@click.option("--chunk-size", type=click.IntRange(min=1), default=None,
              help="Deals per task and per Parquet file  [default: 1000, less for small runs]")
@click.option("--search", type=click.Choice(SEARCHES), default="fast", show_default=True,
              help="fast: pruned exact search; classic: the peer's plain DFS (comparable counts).")
@click.option("--max-iters", type=click.IntRange(min=1), default=None,
              help="Give up on a deal (outcome 'intractable') after this many iterations.")
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help="Run on this Dask cluster instead of local processes (needs the 'dask' extra).")
@click.option("--wait-for-workers", type=click.FloatRange(min=0), metavar="SECONDS",
              help="With --scheduler: how long to wait for a first worker to join  [default: 60]")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr  [default: when stderr is a terminal]")
def run_command(ranges: tuple[str, ...], deals_file, out: str, workers: int | None,
                chunk_size: int | None, search: str, max_iters: int | None, scheduler: str | None,
                wait_for_workers: float | None, progress: bool | None) -> None:
    """Solve every deal of the ranges once, in parallel, into a Parquet dataset in DIR.

    Each finished chunk is its own file, so a killed run keeps its work:
    running the same command again (or just --out DIR) solves only the
    deals that are missing. Adding ranges to a run is fine; changing
    --search or --max-iters is refused. Exit status 130/143 after
    Ctrl-C/SIGTERM (at any moment), 1 if a chunk failed or the disk is full;
    each prints the command that resumes.

    \b
    Examples:
      blackhole-stats run --range 1-1000000 --out runs/million
      blackhole-stats run --range ms1-ms5000,42 --search classic --out runs/classic
      blackhole-stats run --deals random.txt --out runs/random --workers 8
    """
    with interrupts.raised():  # first thing: a Ctrl-C while the imports below run is like any other
        try:
            _testhooks.pause("run-command")
            _run(ranges, deals_file, out, workers, chunk_size, search, max_iters, scheduler, wait_for_workers,
                 progress)
        except interrupts.Interrupted as interrupt:  # before the run began or after it ended
            _exit_interrupted("interrupted", interrupt.signum)


def _run(ranges, deals_file, out, workers, chunk_size, search, max_iters, scheduler, wait_for_workers,
         progress) -> None:
    """The `run` command within its interrupt handling."""
    from .dataset import DatasetError
    from .deals import DealSet, DealSpecError
    from .runner import DISK_FULL, RunError, RunStopped, run  # pyarrow loads only here
    from .solver import OUTCOMES

    try:
        deals = DealSet.parse(ranges) if ranges else None
        if deals_file is not None:
            listed = DealSet.read_list(deals_file, deals_file.name)
            deals = listed if deals is None else deals | listed
        summary = run(out, deals, search=search, max_iters=max_iters, workers=workers,
                      chunk_size=chunk_size, scheduler=scheduler, wait_for_workers=wait_for_workers,
                      progress=sys.stderr.isatty() if progress is None else progress)
    except RunStopped as stopped:
        if stopped.signum is None:
            raise click.ClickException(f"{stopped}; details in the log; resume with: {_resume()}") from None
        _exit_interrupted(str(stopped), stopped.signum)
    except OSError as error:
        if error.errno not in DISK_FULL:
            raise
        raise click.ClickException(f"cannot write to {out}: {os.strerror(error.errno)}; the finished chunks "
                                   f"are kept: free some space, then resume with: {_resume()}") from None
    except (DealSpecError, DatasetError, RunError) as error:
        raise click.ClickException(str(error)) from None
    counts = ", ".join(f"{n:,} {outcome}" for n, outcome in zip(summary.outcomes, OUTCOMES))
    rate = summary.solved_now / summary.seconds if summary.seconds else 0.0
    click.echo(f"{summary.solved_now:,} deals solved now ({counts}) in {summary.seconds:.1f} s, "
               f"{rate:,.0f} deals/s with {summary.workers} workers; {summary.already_done:,} were "
               f"already done; dataset: {summary.out}")


def _resume() -> str:
    """The command that resumes this run: the same one."""
    return shlex.join(["blackhole-stats", *sys.argv[1:]])


def _exit_interrupted(message: str, signum: int) -> None:
    """The last word of an interrupted run: what was done, how to resume, 128 + the signal."""
    for name in (signal.SIGINT, signal.SIGTERM):  # the process is ending: nothing may cut this short
        signal.signal(name, signal.SIG_IGN)
    click.echo(f"{message}; resume with: {_resume()}", err=True)
    sys.exit(128 + signum)


@main.command("verify")
@click.argument("directory", metavar="DIR")
def verify_command(directory: str) -> None:
    """Check a run's dataset against its manifest: every deal once, every solution legal.

    Replays each stored solution from its deal and checks each row's
    outcome, cards_played and solution against each other. Prints the
    problems and exits 1 if there are any.

    Example: blackhole-stats verify runs/million
    """
    from .dataset import DatasetError
    from .verify import verify

    try:
        checked = verify(directory)
    except DatasetError as error:
        raise click.ClickException(str(error)) from None
    for problem in checked.problems:
        click.echo(problem)
    if checked.problems:
        raise click.ClickException(
            f"verification failed: {len(checked.problems)} problem(s) in {directory}")
    click.echo(f"ok: {checked.rows:,} rows, every deal of the manifest exactly once, "
               "every solution replays legally")
