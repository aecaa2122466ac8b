"""`blackhole-stats export`: the game numbers a player or a program wants, from a dataset.

Plain text is one number per line, in deal order, each exactly as PySolFC
shows it (`123`, `ms123`, numbers beyond 2^64 in full): the shape of the
seeds file PySolFC's "winnable deals only" Klondike mode reads. JSON and CSV
carry the game and the other columns too (outcome, iterations, cards played,
difficulty, tag), every one for every dataset, null where the dataset has none (a run
without --difficulty), so a notebook reads one schema; their `deal` is that
same text, so no reader rounds a 20-digit number.
"""
from __future__ import annotations

import csv
import io
import json
import math

import pandas as pd

from .dealing import game_name
from .difficulty import parse_tag
from .games import DEFAULT_GAME, Game
from .quoting import counted
from .report import check_repeats_agree
from .solver import OUTCOMES

FORMATS = ("text", "json", "csv")
COLUMNS = ("game", "deal", "outcome", "iterations", "cards_played", "difficulty", "tag")
"""What every JSON and CSV row holds (null for a column the dataset lacks); `game` first, as in the
dataset, so `report` reads the list back as the game it is of."""


class ExportError(ValueError):
    """A selection the dataset cannot answer (tags asked of a dataset without them, a deal listed twice)."""


def select(data: pd.DataFrame, source: str, outcome: str | None = None, tags: tuple[str, ...] = ()
           ) -> pd.DataFrame:
    """The rows of a normalized dataset (`report.load`) with this outcome and, if given, one of these tags.

    `data` is in deal order (`report.load` sorts by ms, then number): ordinary
    numbers first, then ms ones. An outcome or tag that is none (`Solved`, `very-hard` is read as
    `very hard`) is an error, not an empty list.
    """
    if outcome is not None and outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {', '.join(map(repr, OUTCOMES))} or None, not {outcome!r}")
    if isinstance(tags, str):  # its letters are no tags
        raise TypeError(f"tags is a tuple of tags, such as ({tags!r},), not one string")
    tags = tuple(parse_tag(tag) for tag in tags)
    repeated = data.duplicated(["ms", "deal"])
    if repeated.any():
        row = data[repeated].iloc[0]
        raise ExportError(f"{source}: deal {game_name(row.deal, row.ms)} is listed more than once "
                          "(in a run's directory, blackhole-stats verify names every repeat)")
    check_repeats_agree(data, source)  # N and msN below 32000, one game: listed under both names if they agree
    # Our CSV of an untagged run has the column, all null; a tagged run whose deals were all lost has
    # nothing to tag: an empty list.
    solved = data["outcome"] == "solved"
    if tags and ("tag" not in data or (solved.any() and data.loc[solved, "tag"].isna().all())):
        raise ExportError(f"{source} has no difficulty tags: make it with blackhole-stats run --difficulty")
    chosen = data
    if outcome is not None:
        chosen = chosen[chosen["outcome"] == outcome]
    if tags:
        chosen = chosen[chosen["tag"].isin(tags)]
    return chosen


def untagged_warnings(data: pd.DataFrame, tags: tuple[str, ...]) -> list[str]:
    """Where `--tag` lists leave out solvable deals that have no tag (a file joining a tagged run and an
    untagged one; a score not determined): the lists would be short without a word."""
    untagged = int(((data["outcome"] == "solved") & data["tag"].isna()).sum()) if tags else 0
    return [f"warning: {counted(untagged, 'solvable deal')} of the dataset {'has' if untagged == 1 else 'have'} "
            "no difficulty tag (no score), so no --tag list holds them (report counts them as 'no score')"
            ] if untagged else []


def render(rows: pd.DataFrame, fmt: str, game: Game = DEFAULT_GAME) -> str:
    """The rows of `game` as text (numbers only), JSON (a list of objects) or CSV (with a header)."""
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(map(repr, FORMATS))}, not {fmt!r}")
    names = [game_name(number, ms) for number, ms in zip(rows["deal"].tolist(), rows["ms"].tolist())]
    if fmt == "text":
        return "".join(name + "\n" for name in names)
    columns = COLUMNS[2:]
    cells = (rows[column].tolist() if column in rows else [None] * len(rows) for column in columns)
    records = [{"game": game.key, "deal": name, **{column: _plain(value) for column, value in zip(columns, values)}}
               for name, *values in zip(names, *cells)]
    if fmt == "json":
        return json.dumps(records, indent=None, separators=(",", ":"), allow_nan=False) + "\n"
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    return out.getvalue()


def _plain(value):
    """A cell for JSON/CSV: None for every kind of null pandas hands back, numpy scalars as Python ones."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    return value.item() if hasattr(value, "item") else value


