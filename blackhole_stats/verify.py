"""`blackhole-stats verify`: check a run's dataset against its manifest, trusting nothing in it.

Every deal the manifest asks for must be there exactly once, every row must
agree with itself (outcome, cards_played, solution) and with the run's
settings, and every solution must replay legally from its deal to an empty
board. Nothing else may be in the directory that a reader of it would count.
"""
from __future__ import annotations

import posixpath
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq
from pyarrow import fs as pafs

from . import dataset
from .board import NUM_CARDS
from .dealing import DealNumberError, GameNumber, deal
from .deals import DealSet, Run
from .solution import Solution, SolutionError
from .solver import OUTCOMES


@dataclass(frozen=True)
class Verification:
    """How many rows were read, and what is wrong (nothing, if `problems` is empty)."""

    rows: int
    problems: tuple[str, ...]


def verify(out: str) -> Verification:
    """Read every chunk file of the run in `out`; raises DatasetError if there is no run.

    Anything else in DIR that a reader of the directory would pick up (a
    backup copy, a stray Parquet file, a subdirectory) is a problem too: the
    dataset is what pandas, pyarrow, DuckDB and polars read, not only our files.
    """
    out = dataset.locate(out)
    manifest = dataset.read_manifest(out)
    fs, root = dataset.filesystem(out)
    if manifest is None and fs.get_file_info(root).type == pafs.FileType.File:
        raise dataset.DatasetError(f"{out} is a file, not a run directory (report reads single files)")
    if manifest is None:
        raise dataset.DatasetError(f"there is no run in {out} (no {dataset.MANIFEST_NAME})")
    files = dataset.list_run(out)
    problems = [f"{name}: not a file of this run, yet read by {readers}: move it out of the run directory"
                for name, readers in files.strays]
    problems += [f"{name}: unfinished file of an interrupted run (the next run on this directory removes it)"
                 for name in files.temporary]
    keys: list[Run] = []
    for path in files.parts:
        name = posixpath.basename(path)
        try:
            table = pq.read_table(path, filesystem=fs)
        except (pa.ArrowException, OSError) as error:
            problems.append(f"{name}: unreadable ({dataset.first_line(error)})")
            continue
        schema_problem = dataset.schema_problem(table.schema)
        if schema_problem:
            problems.append(f"{name}: {schema_problem}")
            continue
        columns = [table[column].to_pylist() for column in
                   ("deal", "ms", "outcome", "cards_played", "solution")]
        file_keys: list[Run] = []
        for number, ms, outcome, played, solution in zip(*columns):
            try:
                game = GameNumber(int(number), ms)
            except DealNumberError as error:
                problems.append(f"{name}: {error}")
                continue
            file_keys.append((ms, game.number, game.number))
            problem = _row_problem(game, outcome, played, solution, manifest.get("max_iters"))
            if problem:
                problems.append(f"deal {game}: {problem}")
        held = DealSet.from_runs(file_keys)
        if not held or dataset.part_name(held) != name:
            problems.append(f"{name}: holds deals {held or 'none'}, not what its name says")
        keys += file_keys
    keys.sort()
    repeated = DealSet.from_runs(key for key, previous in zip(keys[1:], keys) if key == previous)
    present = DealSet.from_runs(keys)
    expected = dataset.expected_deals(manifest)
    for deals, what in ((repeated, "more than once"), (expected - present, "missing"),
                        (present - expected, "not asked for by the manifest")):
        if deals:
            problems.append(f"deals {what}: {deals}")
    return Verification(len(keys), tuple(problems))


def _row_problem(game: GameNumber, outcome: str, played: int | None, solution: str | None,
                 max_iters: int | None) -> str | None:
    if outcome not in OUTCOMES:
        return f"unknown outcome {outcome!r}"
    if outcome == "solved":
        if solution is None:
            return "solved, but no solution"
        if played != NUM_CARDS:
            return f"solved, but cards_played is {played}"
        return _replay_problem(game, solution)
    if solution is not None:
        return f"{outcome}, but with a solution"
    if played is None:  # unknown only if an unsolvable deal's most-played search ran out of budget
        return None if outcome == "unsolved" and max_iters is not None else f"{outcome}, but no cards_played"
    if not 0 <= played < NUM_CARDS:
        return f"{outcome}, but cards_played is {played}"
    if outcome == "intractable" and max_iters is None:
        return "intractable, but the run had no iteration limit"
    return None


def _replay_problem(game: GameNumber, solution: str) -> str | None:
    """What is wrong with a stored solution as a win from its deal, or None."""
    try:
        Solution.from_text(deal(game), solution)
    except SolutionError as error:
        return str(error)
    return None
