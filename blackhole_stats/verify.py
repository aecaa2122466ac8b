"""`blackhole-stats verify`: check a run's dataset against its manifest, trusting nothing in it.

Every deal the manifest asks for must be there exactly once, every row must
be of the run's game and agree with itself (outcome, cards_played, solution)
and with the run's settings, and every solution must replay legally from its
deal, under that game's rules, to a win. Nothing else may be in the directory
that a reader of it would count. An `unsolved` or `intractable` row has no
line to replay: its deal is solved again, for the first such row of each
file. With `solve_again` every deal is, solved rows too (their iterations).
"""
from __future__ import annotations

import math
import posixpath
from dataclasses import dataclass

import pyarrow as pa
from pyarrow import fs as pafs

from . import dataset, difficulty
from .board import Board
from .dealing import DealNumberError, GameNumber, deal
from .deals import DealSet, Run
from .games import Game
from .solution import Solution, SolutionError
from .solver import OUTCOMES, SEARCHES, Solver, iterations_revision

SCORE_TOLERANCE = 1e-9
"""How far a recomputed difficulty may be from the stored one (floating-point sums on another machine)."""
ELAPSED_ROUNDING = 0.001
"""How far each session may put the manifest's elapsed_seconds from the sum of its sessions': the session's
time and the run's sum are each rounded to the millisecond as written (`dataset.Session.end_solving`)."""


@dataclass(frozen=True)
class Verification:
    """How many rows were read, what is wrong (nothing, if `problems` is empty), and what is worth knowing."""

    rows: int
    problems: tuple[str, ...]
    notes: tuple[str, ...] = ()
    """Not problems: our unfinished files beside DIR (in DIR.run/), which no reader of DIR sees."""
    unreplayed: int = 0
    """Rows of the run's game without a line to replay (`unsolved`, `intractable`)."""
    solved_again: int = 0
    """How many rows were solved again (and agreed, unless a problem says otherwise): of `unreplayed`
    the first of each file; with `solve_again` every row whose solve can be repeated."""
    scored_again: int = 0
    """How many difficulty scores were computed again: the first solved deal's of each file, even with
    `solve_again` (30 to 110 ms a deal: days for a million); the others are checked against their tags."""


def verify(out: str, *, solve_again: bool = False) -> Verification:
    """Read every chunk file of the run in `out`; raises DatasetError if there is no run.
    `solve_again`: solve every deal again, not only the first without a line of each file.

    Anything else in DIR that a reader of the directory would pick up (a
    backup copy, a stray Parquet file, a subdirectory, 0.1.0's side files) is a
    problem too: the dataset is what pandas, pyarrow, DuckDB and polars read,
    not only our files. Chunk files of either results format are read; each
    must be of the manifest's.
    """
    out = dataset.run_behind_link(dataset.locate(out))
    manifest = dataset.read_manifest(out)
    paths = dataset.RunPaths.of(out)
    if manifest is None and paths.fs.get_file_info(paths.root).type == pafs.FileType.File:
        raise dataset.DatasetError(f"{out} is a file, not a run directory (report reads single files)")
    if manifest is None:
        where = paths.beside(dataset.MANIFEST_NAME) if paths.side else paths.inside(dataset.OLD_MANIFEST_NAME)
        raise dataset.DatasetError(dataset.side_folder_problem(out) or f"there is no run in {out} (no {where})")
    if dataset.being_written(out):  # its newest chunks are still being solved and written
        raise dataset.DatasetError(f"a run is writing to {out} now (or its worker processes are still alive): "
                                   "verify it once that run has ended")
    problem = dataset.format_problem(manifest)
    if problem:  # its files are no upgrade for the next run to finish
        raise dataset.DatasetError(f"{out} {problem}: verify it with the version that wrote it")
    run_format = dataset.manifest_format(manifest)
    files = dataset.list_run(out)
    problems = [f"{name}: not a file of this run, yet read by {readers}: move it out of the run directory"
                for name, readers in files.strays]
    problems += [f"{name}: left inside the run directory by {dataset.TOOL} 0.1.0, where polars refuses the "
                 "directory: the next run on it moves it beside the directory" for name in files.old_layout]
    # An unfinished file inside DIR (where 0.1.0 wrote them) is read by polars, so it is a problem; one beside
    # DIR is read by no reader, and what its writer lost shows up as missing deals, so it is only a note.
    unfinished = {path: f"{_shown(path, paths)}: unfinished file of an interrupted run (the next run on this "
                        "directory removes it)" for path in files.temporary}
    problems += [line for path, line in unfinished.items() if posixpath.dirname(path) == paths.root]
    notes = tuple(line for path, line in unfinished.items() if posixpath.dirname(path) != paths.root)
    rules = dataset.run_game(manifest)  # a game this version does not play: DatasetError, nothing can be checked
    scale_name = manifest.get("difficulty_scale")
    scale = difficulty.SCALES.get(scale_name)
    if scale_name is not None and scale is None:
        problems.append(f"the manifest's difficulty scale {scale_name!r} is not one this version knows "
                        f"({', '.join(difficulty.SCALES)}): its tags are not checked")
    solver = Solver()
    keys: list[Run] = []
    unreplayed = solved_again = scored_again = 0
    max_iters, search = manifest.get("max_iters"), manifest.get("search")
    # The run's own solve is repeated where the search is this version's and still counts as the run's did
    # (deterministic: the same row, iterations too); otherwise only an unsolved verdict is comparable, solved
    # again without a budget (a later version's search, which settings_problem names, is no reason to stop).
    as_run = search in SEARCHES and dataset.manifest_iterations_revision(manifest) == iterations_revision(search, rules)
    unread = 0  # files whose rows could not be read: their deals show as missing
    for path in files.parts:
        name = posixpath.basename(path)
        try:
            table = dataset.read_part(paths.fs, path)
        except dataset.DamagedPart as error:
            problems.append(f"{name}: damaged ({error}): delete it, and the next run solves its deals again")
            unread += 1
            continue
        found = dataset.results_format_of(table.schema)
        if found is None:
            problems.append(f"{name}: {dataset.schema_problem(table.schema)}")
            unread += 1
            continue
        if found != run_format:
            problems.append(f"{name}: results format {found}, the manifest's is {run_format} (an upgrade was "
                            "interrupted: the next run on this directory finishes it)")
        exact = table["deal_exact"] if found >= 2 else None
        try:
            numbers = dataset.game_numbers(table["deal"], exact).tolist()
        except dataset.DatasetError as error:
            problems.append(f"{name}: {error}")
            unread += 1
            continue
        problems += [f"{name}: {problem}" for problem in _format_problems(table, exact)]
        problems += _range_problems(name, table)
        foreign = sorted(set(dataset.games_of_rows(table)) - {rules.key}, key=str)
        problems += [f"{name}: holds deals of {dataset.shown_game(key)}, and the run plays {rules.key}: its rows "
                     "are not checked against the run's rules" for key in foreign
                     if key in dataset.GAMES]  # unknown ones: _format_problems
        # Rows of another game, judged by this game's rules, would all look wrong: the line above says it all.
        difficulty_problem = None if foreign else dataset.difficulty_problem(table.schema, scale_name)
        settings_problem = None if foreign or manifest is None else dataset.settings_problem(table.schema, manifest)
        if settings_problem:
            problems.append(f"{name}: {settings_problem}")
        if difficulty_problem:
            problems.append(f"{name}: {difficulty_problem}")
        elif not foreign and scale is not None:
            found, rescored = _difficulty_problems(table, numbers, scale, solver, rules)
            problems += found
            scored_again += rescored
        columns = [table[column].to_pylist()
                   for column in ("ms", "outcome", "iterations", "cards_played", "solution")]
        file_keys: list[Run] = []
        first_unreplayed = True  # solved again; the others only with solve_again
        for number, ms, outcome, iterations, played, solution in zip(numbers, *columns):
            try:
                game = GameNumber(number, ms)
            except DealNumberError as error:
                problems.append(f"{name}: {error}")
                continue
            file_keys.append((ms, game.number, game.number))
            problem = None if foreign else (
                _budget_problem(outcome, iterations, max_iters)
                or _row_problem(rules, game, outcome, played, solution, max_iters))
            lined = outcome == "solved"  # its line is replayed; solving it again checks its iterations
            if not foreign and not lined:
                unreplayed += 1
            comparable = as_run or outcome == "unsolved"  # (see as_run)
            if not foreign and not problem and comparable and (solve_again or (not lined and first_unreplayed)):
                first_unreplayed = first_unreplayed and lined
                solved_again += 1
                stored = (outcome, iterations, played)
                problem = _solved_again_problem(solver, deal(game, rules), stored, search, max_iters, as_run)
            if problem:
                problems.append(f"deal {game}: {problem}")
        held = DealSet.from_runs(file_keys)
        if not dataset.named_as_held(path, held):
            problems.append(f"{name}: holds deals {held or 'none'}, not what its name says")
        keys += file_keys
    keys.sort()
    repeated = DealSet.from_runs(key for key, previous in zip(keys[1:], keys) if key == previous)
    present = DealSet.from_runs(keys)
    expected = dataset.expected_deals(manifest)
    unread_note = "" if not unread else " (or in the file above whose rows could not be read)" if unread == 1 else \
        f" (or in the {unread:,} files above whose rows could not be read)"
    for deals, what in ((repeated, "more than once"), (expected - present, "missing" + unread_note),
                        (present - expected, "not asked for by the manifest")):
        if deals:
            problems.append(f"deals {what}: {deals.abbreviated()}")
    if manifest.get("total_deals", expected.count) != expected.count:  # a reader counting the run by it is wrong
        problems.append(f"the manifest's total_deals is {manifest['total_deals']:,}, but its deals hold "
                        f"{expected.count:,} (the next run on this directory writes it again)")
    if "sessions" in manifest:  # (0.1.0 recorded none: the next run makes its time the first session's)
        problems += _elapsed_problems(manifest)
    return Verification(len(keys), tuple(problems), notes, unreplayed, solved_again, scored_again)


def _elapsed_problems(manifest: dict) -> list[str]:
    """The run's elapsed_seconds against the sum of its sessions' (README: those that recorded theirs), which
    a reader dividing its deals by it trusts."""
    timed = [session["elapsed_seconds"] for session in manifest["sessions"]
             if session.get("elapsed_seconds") is not None]
    stated, summed = manifest.get("elapsed_seconds", 0.0), math.fsum(timed)
    if abs(stated - summed) <= ELAPSED_ROUNDING * len(timed):
        return []
    return [f"the manifest's elapsed_seconds is {stated:,.3f} s, but the sessions that recorded their time add up "
            f"to {summed:,.3f} s"]


def _solved_again_problem(solver: Solver, board: Board, stored: tuple[str, int, int | None], search: str,
                          max_iters: int | None, as_run: bool) -> str | None:
    """A row without a line to replay, its deal solved again: as the run solved it where `as_run` (the
    same outcome, iterations and cards played), else, for an `unsolved` row, exactly, without a budget
    (still unsolvable, and as many cards played unless the row's search ran out before it knew them)."""
    outcome, iterations, played = stored
    if as_run:
        again = solver.solve(board, search, max_iters)
        if (again.outcome, again.iterations, again.cards_played) == stored:
            return None
        return f"stored {_shown_row(*stored)}; solved again: {_shown_row(again.outcome, again.iterations, again.cards_played)}"
    if outcome != "unsolved":  # intractable under another count of iterations: nothing to compare
        return None
    again = solver.solve(board, most_played=played is not None)  # without a budget: never intractable
    if again.outcome != "unsolved" or (played is not None and again.cards_played != played):
        return f"stored unsolved, {_shown_played(played)}; solved again without a budget: {again.outcome}, " \
               f"{_shown_played(again.cards_played)}"
    return None


def _shown_row(outcome: str, iterations: int | None, played: int | None) -> str:
    shown = "iterations missing" if iterations is None else f"{iterations:,} iterations"  # (a file problem names it)
    return f"{outcome}, {shown}, {_shown_played(played)}"


def _shown_played(played: int | None) -> str:
    return "cards played unknown" if played is None else f"{played} cards played"


def _difficulty_problems(table: pa.Table, numbers: list[int], scale: difficulty.Scale,
                         solver: Solver, rules: Game) -> tuple[list[str], int]:
    """A score and its tag for each solved deal, none for the others; every tag on the run's scale; and
    the first solved deal's score of each chunk computed again (all of them would cost 30 to 110 ms a deal).
    Returns the problems and how many scores were computed again (0 or 1)."""
    problems, rechecked = [], False
    columns = (table[column].to_pylist() for column in ("ms", "outcome", "difficulty", "tag"))
    for number, ms, outcome, score, tag in zip(numbers, *columns):
        try:
            game = GameNumber(number, ms)
        except DealNumberError:  # verify names the row
            continue
        if outcome != "solved":
            if score is not None or tag is not None:
                problems.append(f"deal {game}: {outcome}, but with a difficulty")
            continue
        lacking = [what for what, value in (("a difficulty score", score), ("a tag", tag))
                   if value is None or value != value]  # null, or NaN
        if lacking:
            problems.append(f"deal {game}: solved, but without {' and '.join(lacking)}")
            continue
        try:
            due = scale.tag(score)
        except ValueError:  # NaN, negative: _range_problems names it
            continue
        if tag != due:
            problems.append(f"deal {game}: difficulty {score} is {due!r} on scale {scale.name}, not {tag!r}")
        if not rechecked:
            rechecked = True
            again = difficulty.difficulty(deal(game, rules), solver)
            if again is None or abs(again - score) > SCORE_TOLERANCE:
                problems.append(f"deal {game}: difficulty {score} stored, {again} computed again")
    return problems, int(rechecked)


def _shown(path: str, paths: dataset.RunPaths) -> str:
    """A file of the run as the user sees it: its name in DIR, or `DIR.run/name` beside it."""
    folder, name = posixpath.split(path)
    return name if folder == paths.root else f"{posixpath.basename(folder)}/{name}"


def _format_problems(table: pa.Table, exact: pa.ChunkedArray | None) -> list[str]:
    """Format 2's own rules: every game known, each number in exactly one of `deal` and `deal_exact`
    (`deal_exact` only for numbers past int64, in plain digits)."""
    if exact is None:
        return []
    problems = []
    unknown = set(dataset.games_of_rows(table)) - set(dataset.GAMES)
    if unknown:
        problems.append(f"game {dataset.shown_game(sorted(unknown, key=str)[0])} is not one this version knows "
                        f"({', '.join(dataset.GAMES)})")
    both = int(dataset.two_numbers(table["deal"], exact).sum())
    if both:
        problems.append(f"{both} row(s) with both deal and deal_exact set")
    for spelt in exact.drop_null().to_pylist():
        if not spelt.isascii() or not spelt.isdigit() or spelt.startswith("0") or int(spelt) < dataset.INT64_END:
            problems.append(f"deal_exact {spelt!r} is not a number past int64 in plain digits")
    return problems


def _range_problems(name: str, table: pa.Table) -> list[str]:
    """Values report and export would refuse (a negative count or time, NaN, a missing one): verify passed them."""
    from .report import COLUMN_RANGES, NULLABLE, check_range

    problems = []
    for column in COLUMN_RANGES.keys() & set(table.schema.names) - {"cards_played"}:  # that one: _row_problem
        if column not in NULLABLE and table[column].null_count:
            problems.append(f"{name}: column {column} has missing values")
        try:
            check_range(name, column, table[column].drop_null().to_numpy())
        except dataset.DatasetError as error:
            problems.append(str(error))
    return sorted(problems)


def _budget_problem(outcome: str, iterations: int | None, max_iters: int | None) -> str | None:
    """A verdict reached within the budget; `intractable` only when the budget was spent, which a search
    stops at exactly (every game, either search)."""
    if max_iters is None or iterations is None:  # a missing count: the file's problem names it
        return None
    if outcome == "intractable" and iterations != max_iters:
        side = "under" if iterations < max_iters else "over"
        return f"intractable after {iterations:,} iterations, {side} the run's max_iters {max_iters:,}"
    if outcome != "intractable" and iterations > max_iters:
        return f"{outcome} after {iterations:,} iterations, over the run's max_iters {max_iters:,}"
    return None


def _row_problem(rules: Game, game: GameNumber, outcome: str, played: int | None, solution: str | None,
                 max_iters: int | None) -> str | None:
    """What is wrong with one row of a run of `rules`, or None.

    Cards played: a win plays exactly its solution's moves; other rows hold what the game allows
    (`Game.cards_played_range`).
    """
    if outcome not in OUTCOMES:
        return f"unknown outcome {outcome!r}"
    if outcome == "solved":
        if solution is None:
            return "solved, but no solution"
        try:
            moves = len(Solution.from_text(deal(game, rules), solution))
        except SolutionError as error:
            return str(error)
        return None if played == moves else f"solved, but cards_played is {played}, and the solution plays {moves}"
    if solution is not None:
        return f"{outcome}, but with a solution"
    if played is None:  # unknown only if an unsolvable deal's most-played search ran out of budget
        return None if outcome == "unsolved" and max_iters is not None else f"{outcome}, but no cards_played"
    allowed = rules.cards_played_range(outcome)
    if played not in allowed:
        return f"{outcome}, but cards_played is {played} ({rules.name}: {allowed.start} to {allowed.stop - 1})"
    if outcome == "intractable" and max_iters is None:
        return "intractable, but the run had no iteration limit"
    return None
