"""What a study reports about a dataset of solved deals.

Reads only the documented columns, so it works on any dataset that has them:
one written by `blackhole-stats run`, one built in a notebook, or (for
`--compare`) a CSV of another solver's verdicts. Statistics are exact
numpy/pandas computations; the output says which conventions it uses.

A report is of one game (`game_of`): its `game` column, else its run's
manifest, else Black Hole (what every dataset from before the family is).
The game's description decides what its figures mean (how many cards there
are to play, what every line plays anyway); a dataset that mixes games is
refused rather than summed. `--compare` works across games of the same deals.
"""
from __future__ import annotations

import json
import posixpath
import textwrap
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Sequence
from urllib.parse import unquote

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from . import _testhooks
from .arguments import MAX_SECONDS
from .cards import DECK
from .dataset import (GAMES, DamagedPart, DatasetError, being_written, data_files, deals_held, expected_deals,
                      filesystem, first_line, folder_entries, format_problem, game_numbers, list_run,
                      manifest_iterations_revision, named_as_held, read_part, recorded_settings, run_chunk,
                      run_game, settings_differ, resource_shortage_error, shown_game, two_numbers, unfinished_in,
                      unreadable_error, PandasReads, RunFiles)
from .dealing import LCG_LIMIT, MS_MAX, DealNumberError, GameNumber, float_exact_below, game_name, rounded_float
from .difficulty import SCALES, TAGS
from .games import BLACK_HOLE, DEFAULT_GAME, Game, UnknownGameError, game_by_key, get_game
from .quoting import counted, quoted
from .solver import OUTCOMES

COLUMNS = ("game", "deal", "ms", "outcome", "iterations", "cards_played", "seconds", "difficulty", "tag")
"""The documented columns a report uses (`solution` is never needed; `deal_exact` completes `deal`;
`difficulty` and `tag` only runs made with --difficulty have; without `game`, see `game_of`)."""
FILE_COLUMNS = (*COLUMNS, "deal_exact")
"""What a report reads of a file."""
REQUIRED = ("deal", "outcome", "iterations", "cards_played")
"""What a dataset must have to be reported on."""
VERDICTS = ("deal", "outcome")
"""What the other side of `--compare` must have (e.g. another solver's CSV)."""
MANIFEST_KEYS = ("game", "search", "max_iters", "difficulty_scale", "deals", "results_format", "iterations_revision",
                 "version", "started", "finished", "elapsed_seconds", "machine", "sessions")
"""The manifest's settings a report shows (`version`: manifests of 0.1.0; later ones list `sessions`)."""
HARDEST = 10
LISTED = 50
"""Deals a comparison's text and markdown list per table (two games differ on thousands); JSON lists all."""
ITERATION_STATS = ("count", "min", "q1", "median", "mean", "q3", "p99", "max", "std")
"""Rows of the iterations table; one column per outcome, so it fits 80 columns at any size."""
TEXT_WIDTH = 80
"""Columns of the text format: a standard terminal."""
SETTING_ITEMS = 8
"""List settings (the deals asked for) show this many items and a count."""
Z95 = 1.959963984540054
"""Two-sided 95% normal quantile, `statistics.NormalDist().inv_cdf(0.975)`."""
METHODS = "std: sample standard deviation (n - 1); q1, median, q3, p99: linear interpolation (numpy's default)"


def load(path: str | Path, required: tuple[str, ...] = REQUIRED, game: Game | None = None) -> pd.DataFrame:
    """The dataset at `path` (a path or URL): a directory of `*.parquet` parts, one Parquet file, or a CSV.

    Returns the documented columns present, normalized: `deal` the exact game
    numbers (int64, or Python ints in an object column if some are 2^63 or
    more), `ms` bool, `outcome` categorical, `game` categorical (only if the
    dataset has the column; every value a known game), `cards_played` nullable Int64
    (null: not determined within --max-iters), other numbers int64/float64;
    sorted by (ms, deal). Either results format; in a CSV, `max_played` stands
    for `cards_played`; a file without `game` under a `game=...` folder has that
    folder's (`_folder_game`), and one with `game` must agree with it. Beside
    files that name their game, one that names none is of `game` (what the
    user says, `--game`), else Black Hole's. Raises `dataset.DatasetError`.
    """
    source = str(path)
    live = being_written(source)  # before the files are read: a run that ends meanwhile left them short
    fs, root, files, otherwise = data_files(source)
    frames, settings = [], {}
    for file in files:
        folder = _folder_game(root, file)
        _check_readable_kind(file)
        frame = (_read_csv(fs, file, required) if file.lower().endswith(".csv")
                 else _read_parquet(fs, file, required, settings))
        if folder is not None and "game" in frame:
            other = frame["game"][frame["game"] != folder]  # keys by now (_game_keys)
            if len(other):  # DuckDB and polars would take the folder's word, pandas and pyarrow refuse
                raise DatasetError(f"{file}: its game column has {shown_game(_null_or(other.iloc[0]))}, but a "
                                   f"folder above it says game={folder}")
        frames.append(frame if folder is None or "game" in frame else frame.assign(game=folder))
    if any("game" in frame for frame in frames):  # beside files that name their game, one that does not is
        unnamed = (game or BLACK_HOLE).key  # the user's word, else Black Hole's (format 1: a run half upgraded)
        frames = [frame if "game" in frame else frame.assign(game=unnamed) for frame in frames]
    if any("ms" in frame for frame in frames):  # a file without the column holds ordinary deals, not nulls
        frames = [frame if "ms" in frame else frame.assign(ms=False) for frame in frames]
    data = _normalize(pd.concat(frames, ignore_index=True), source)
    data.attrs[RUN_SETTINGS] = {posixpath.relpath(file, root) if file != root else posixpath.basename(file): found
                                for file, found in settings.items()}
    data.attrs[BEING_WRITTEN] = live
    data.attrs[PANDAS_READS] = otherwise
    return data


RUN_SETTINGS = "blackhole_stats.run_settings"
"""`load`'s frame's attrs key: the run settings each Parquet file records (`dataset.recorded_settings`, as
sorted JSON; None where they are damaged), by its path under the dataset, for `mixed_settings` and
`ManifestCheck`."""
BEING_WRITTEN = "blackhole_stats.being_written"
"""`load`'s frame's attrs key: whether a run was writing to the dataset as `load` began to read it."""
PANDAS_READS = "blackhole_stats.pandas_reads"
"""`load`'s frame's attrs key: where pandas and pyarrow read the dataset otherwise (`dataset.PandasReads`)."""


_UNREAD_KINDS = {".json": "JSON", ".jsonl": "JSON", ".ndjson": "JSON", ".txt": "text (export's list of numbers?)",
                 ".gz": "compressed", ".bz2": "compressed", ".xz": "compressed", ".zst": "compressed",
                 ".zip": "compressed"}
"""Files a dataset is no CSV or Parquet in (export writes JSON too): named as what they are, where the
Parquet reader would say 'magic bytes not found'."""


def _check_readable_kind(file: str) -> None:
    kind = _UNREAD_KINDS.get(posixpath.splitext(file.lower())[1])
    if kind is not None:
        raise DatasetError(f"{file}: a {kind} file; datasets are read from Parquet or CSV files (uncompressed; "
                           "export --format csv writes one)")


def _folder_game(root: str, file: str) -> str | None:
    """The game a folder above `file` (under `root`, or `root` itself: DuckDB reads `x/game=golf/*`
    so) names, `game=golf/`, or None: pandas' `to_parquet(partition_cols=["game"])` keeps the game there,
    not in the files, and reads it back so (read as one game, such a dataset's mix went unseen). A folder
    naming another column is refused: columns are read from the files."""
    game = None
    given = posixpath.basename(posixpath.dirname(root) if root == file else root.rstrip("/"))  # `report x/game=golf`
    for folder in [given, *file[len(root):].strip("/").split("/")[:-1]]:
        name, equals, value = folder.partition("=")
        if not equals or name not in FILE_COLUMNS:
            continue
        if name != "game":
            raise DatasetError(f"{file}: the folder {folder} holds the column {name}, which is read from the "
                               f"files: write the dataset without partition_cols={[name]}")
        value = unquote(value)
        try:
            if value in ("", "__HIVE_DEFAULT_PARTITION__"):  # pandas' folder for a null game
                raise UnknownGameError(value)
            game = get_game(value).key
        except UnknownGameError:
            raise DatasetError(f"{file}: the folder {folder} names no game this version knows "
                               f"({', '.join(GAMES)})") from None
    return game


def _read_parquet(fs, file: str, required: tuple[str, ...], settings: dict) -> pd.DataFrame:
    """The file's rows; the run settings it records go into settings[file] (none: not there)."""
    try:
        names = pq.read_schema(file, filesystem=fs).names
        _check_columns(file, names, required)
        table = read_part(fs, file, columns=[name for name in FILE_COLUMNS if name in names])
    except DamagedPart as error:
        raise DatasetError(f"{file}: not a readable Parquet file ({error})") from None
    except (pa.ArrowException, OSError, UnicodeDecodeError) as error:  # the last: a damaged column name
        raise unreadable_error(file, error) or DatasetError(
            f"{file}: not a readable Parquet file ({first_line(error)})") from None
    for column in table.schema:  # lists, structs and maps: no value of theirs is one cell's (deal: _game_numbers)
        if column.name != "deal" and pa.types.is_nested(column.type):
            raise DatasetError(f"{file}: column {column.name} is {column.type}, not one value a row")
    try:
        found = recorded_settings(table.schema)  # the copy verify and run read (see read_part)
    except ValueError:
        settings[file] = None  # damaged
    else:
        if found is not None:  # as text: pandas deep-copies attrs, and settings nested deep would overflow it
            settings[file] = json.dumps(found, sort_keys=True)
    try:
        return _frame_of(file, table, names)
    except pa.ArrowException as error:  # its pandas conversion's threads or memory refused (`ulimit`): a traceback
        shortage = resource_shortage_error(file, error)
        if shortage is None:
            raise
        raise shortage from None


def _frame_of(file: str, table: pa.Table, names: list[str]) -> pd.DataFrame:
    """A file's table as the rows report reads, its deals as game numbers."""
    # the columns alone: a pyarrow-backed pandas frame saved back names types pandas cannot rebuild
    frame = table.drop_columns([name for name in ("deal", "deal_exact") if name in names]).to_pandas(
        ignore_metadata=True)
    if "game" in frame:
        frame = frame.assign(game=_game_keys(file, frame["game"].astype(object)))
    deal = table["deal"]
    if pa.types.is_string(deal.type) or pa.types.is_large_string(deal.type):  # export's text, kept as text
        exact = table["deal_exact"].to_pandas() if "deal_exact" in names else None
        return _spelt_deals(file, frame, deal.to_pandas(), exact)
    exact = table["deal_exact"] if "deal_exact" in names else None
    frame.insert(0, "deal", _game_numbers(file, deal, exact))
    if exact is not None:
        _refuse_two_numbers(file, deal, exact)
    if not run_chunk(file, table.schema):
        return frame
    ms = _ms_flags(file, frame["ms"], frame["deal"]).to_numpy() if "ms" in frame else np.zeros(len(frame), bool)
    held = deals_held(frame["deal"].to_numpy(), ms)
    if not named_as_held(file, held):
        raise DatasetError(f"{file} holds deals {held or 'none'}, not what its name says, though it records a run's "
                           "settings as a chunk file does: damaged, or renamed? (blackhole-stats verify names "
                           "every problem of a run)")
    return frame


def _read_csv(fs, file: str, required: tuple[str, ...]) -> pd.DataFrame:
    try:
        with fs.open_input_file(file) as handle:
            frame = pd.read_csv(handle, dtype={"deal": str, "deal_exact": str})
    except (OSError, pa.ArrowException, UnicodeDecodeError, pd.errors.ParserError,
            pd.errors.EmptyDataError) as error:
        raise DatasetError(f"{file}: not a readable CSV file ({first_line(error)})") from None
    if "cards_played" not in frame and "max_played" in frame:
        frame = frame.rename(columns={"max_played": "cards_played"})
    if "ms" in frame:  # text has no null: an empty cell is text too
        frame = frame.assign(ms=frame["ms"].astype(object).where(frame["ms"].notna(), ""))
    _check_columns(file, frame.columns, required)
    frame = frame[[name for name in FILE_COLUMNS if name in frame]]
    scored = [name for name in ("difficulty", "tag") if name in frame]
    if scored and frame[scored].isna().all().all():  # export's empty columns of a run without --difficulty
        frame = frame.drop(columns=scored)
    if "game" in frame:
        frame = frame.assign(game=_game_keys(file, frame["game"]))
    return _spelt_deals(file, frame.drop(columns=["deal", "deal_exact"], errors="ignore"), frame["deal"],
                        frame["deal_exact"] if "deal_exact" in frame else None)


def row_game_number(deal, ms=None, deal_exact=None) -> GameNumber:
    """One row's game number, read as `load` reads a file's: `solution.board_of` takes a row of a
    notebook's frame or of a CSV read as text the way `report` takes the file (`1.0` is deal 1, an ms
    flag `False` is no ms deal, `deal_exact` only where `deal` is None; anything else that is no game
    number or truth value, or a row that says two things (both numbers, or `ms5` flagged as no ms deal):
    DatasetError). One value through the column readers: about 0.2 ms a row."""
    source = "the row"
    if deal is not None and deal_exact is not None and str(deal_exact).strip():  # blank text is none
        raise _two_numbers(source, deal, deal_exact)
    spelt = written = deal_exact if deal is None else deal
    spelt_ms = isinstance(spelt, str) and spelt.strip().lower().startswith("ms")
    named = spelt.strip() if spelt_ms else spelt
    if spelt_ms:
        spelt = named[2:]
    try:  # a Python int past int64 as its digits: Arrow takes no wider integer
        value = pa.array([str(spelt) if isinstance(spelt, int) and not isinstance(spelt, bool) else spelt])
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        raise DatasetError(f"{source}: deal {spelt!r} is no game number") from None
    word = "" if ms is None else str(ms).strip().lower()
    if word not in _MS_WORDS:
        raise DatasetError(f"{source}: column ms holds {quoted(str(ms))}, not true or false")
    if spelt_ms and word and not _MS_WORDS[word]:
        raise DatasetError(f"{source}: deal {named} {_MS_DENIED}")
    return GameNumber(int(_game_numbers(source, value, written=[written])[0]), spelt_ms or _MS_WORDS[word])


def _game_keys(file: str, games: pd.Series) -> pd.Series:
    """A file's game cells as keys: any spelling --game takes (`golf`, `Golf`, `36`, padded), in a CSV or
    a Parquet file alike; an empty cell is refused with its row (it would leave the row's game to a guess)."""
    keys = {}
    for value in games.unique():  # a few, of a million rows
        if _null_or(value) is None or not str(value).strip():
            empty = games.isna() | (games.astype(str).str.strip() == "")
            raise DatasetError(f"{file}: row {int(np.flatnonzero(empty)[0]) + 1} has no game (its game cell is empty)")
        try:
            keys[value] = get_game(value).key
        except UnknownGameError:
            keys[value] = value  # named as unknown, with the games there are, by _normalize
    return games if all(key == value for value, key in keys.items()) else games.map(keys)


def _spelt_deals(file: str, frame: pd.DataFrame, deal: pd.Series, deal_exact: pd.Series | None) -> pd.DataFrame:
    """`frame` with the game numbers of deals spelt as text ('123', 'ms5' as export writes them; a
    number past 2^63 in `deal_exact` where `deal` is empty, as pandas writes a run's rows to CSV)."""
    text = deal.astype(object).where(deal.notna(), None)
    if deal_exact is not None:
        exact = deal_exact.astype(object).where(deal_exact.notna(), None)
        _refuse_two_numbers(file, pa.array(text, pa.string()), pa.array(exact, pa.string()))
        text = text.where(text.notna(), exact)
    written = text.to_numpy()
    spelt_ms = text.str.strip().str.lower().str.startswith("ms").fillna(False).astype(bool)
    if spelt_ms.any():
        if "ms" in frame:
            flags = _ms_flags(file, frame["ms"], text)
            denied = spelt_ms & ~flags  # but an empty cell, which says nothing
            denied[denied] = frame["ms"][denied].astype(str).str.strip().ne("")
            if denied.any():
                raise DatasetError(f"{file}: deal {text[denied].iloc[0].strip()} {_MS_DENIED}")
        text = text.str.strip().str.slice(2).where(spelt_ms, text)
        frame = frame.assign(ms=flags | spelt_ms if "ms" in frame else spelt_ms)
    frame = frame.assign(deal=_game_numbers(file, pa.array(text, pa.string()), written=written))
    return frame[["deal", *(name for name in frame.columns if name != "deal")]]


_MS_DENIED = "is spelt as an ms deal, but its ms flag says it is none: which deal the row is would be a guess"

_MS_WORDS = {"true": True, "t": True, "yes": True, "y": True, "1": True, "1.0": True,
             "false": False, "f": False, "no": False, "n": False, "0": False, "0.0": False, "-0": False,
             "-0.0": False, "": False}
"""How tables spell the `ms` flag: True/False, t/f (psql), yes/no, 1/0; an empty CSV cell (or text) is an
ordinary deal."""


def _ms_flags(file: str, ms: pd.Series, deals: pd.Series) -> pd.Series:
    """The `ms` column as bools; DatasetError for a value that is no truth value (any non-empty text would
    read as true, turning ordinary deals into ms deals) or a null, naming its deal (read as an ordinary
    deal, which deal the row is would be a guess; a CSV's empty cell is text, "", by then: _read_csv)."""
    if ms.isna().any():
        raise DatasetError(f"{file}: deal {deals.iloc[int(np.flatnonzero(ms.isna().to_numpy())[0])]} has a null ms "
                           "flag; it must be true or false")
    if pd.api.types.is_bool_dtype(ms):
        return ms.astype(bool)
    words = ms.astype(object).astype(str).str.strip().str.lower()
    unknown = ~words.isin(_MS_WORDS.keys())
    if unknown.any():
        raise DatasetError(f"{file}: column ms holds {quoted(str(ms[unknown].iloc[0]))}, not true or false")
    return words.map(_MS_WORDS).astype(bool)


def _game_numbers(file: str, deal, deal_exact=None, written=None) -> np.ndarray:
    try:
        return game_numbers(deal, deal_exact, written)
    except DatasetError as error:
        raise DatasetError(f"{file}: {error}") from None


def _two_numbers(where: str, deal, deal_exact) -> DatasetError:
    """A row naming its deal twice: `verify` counts such rows as a problem of their own; a report would have
    to pick one of the two."""
    return DatasetError(f"{where}: deal and deal_exact both hold a number ({deal} and {deal_exact}), where "
                        "deal_exact holds one only when deal is null")


def _refuse_two_numbers(file: str, deal, deal_exact) -> None:
    both = np.flatnonzero(two_numbers(deal, deal_exact))
    if len(both):
        raise _two_numbers(f"{file}: row {both[0] + 1}", deal[int(both[0])], deal_exact[int(both[0])])


def _check_columns(file: str, names, required: tuple[str, ...]) -> None:
    missing = [name for name in required if name not in names]
    if missing:
        raise DatasetError(f"{file}: missing column {', '.join(missing)} "
                           f"(needs {', '.join(required)})")


def _normalize(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    outcome = frame["outcome"].astype(object)
    unexpected = set(outcome.unique()) - set(OUTCOMES)
    if unexpected:
        raise DatasetError(f"{source}: column outcome has {sorted(map(repr, unexpected))[0]}; "
                           f"expected {', '.join(OUTCOMES)}")
    data = pd.DataFrame({
        "deal": frame["deal"].to_numpy(),
        "ms": _ms_flags(source, frame["ms"], frame["deal"]).to_numpy() if "ms" in frame else False,
        "outcome": pd.Categorical(outcome.to_numpy(), categories=OUTCOMES),
    })
    if "game" in frame:
        games = frame["game"].astype(object)
        unknown = sorted(set(games.unique()) - set(GAMES), key=str)
        if unknown:
            raise DatasetError(f"{source}: column game has {shown_game(_null_or(unknown[0]))}, which is no game this "
                               f"version knows ({', '.join(GAMES)})")
        data["game"] = pd.Categorical(games.to_numpy(), categories=GAMES)
    past = np.flatnonzero(data["ms"].to_numpy() & (data["deal"] > MS_MAX).to_numpy())
    if len(past):
        try:
            GameNumber(int(data["deal"].iloc[past[0]]), ms=True)
        except DealNumberError as error:
            raise DatasetError(f"{source}: {error}") from None
    for column, dtype in (("iterations", "int64"), ("cards_played", "Int64"), ("seconds", "float64")):
        if column in frame:
            data[column] = _numbers(frame, source, column).astype(dtype).array
    lone = [name for name in ("difficulty", "tag") if name in frame and frame[name].notna().any()]
    if len(lone) == 1 and ("difficulty" in frame) != ("tag" in frame):  # half a table, which it would drop
        other = "tag" if lone == ["difficulty"] else "difficulty"
        raise DatasetError(f"{source}: column {lone[0]} without column {other} (a run with --difficulty "
                           "writes both)")
    if "difficulty" in frame and "tag" in frame:
        scores = _numbers(frame, source, "difficulty")
        tags = frame["tag"].astype(object)
        unknown = tags.notna() & ~tags.isin(TAGS)
        if unknown.any():  # a Categorical would make it a silent gap
            raise DatasetError(f"{source}: column tag has {quoted(str(tags[unknown].iloc[0]))}; the tags are "
                               f"{', '.join(TAGS)}")
        _check_scored(source, data, scores.notna().to_numpy(), tags.notna().to_numpy())
        data["difficulty"] = scores.astype("float64").to_numpy()
        data["tag"] = pd.Categorical(tags.to_numpy(), categories=TAGS)
    return data.sort_values(["ms", "deal"], kind="stable", ignore_index=True)


def _check_scored(source: str, data: pd.DataFrame, scored: np.ndarray, tagged: np.ndarray) -> None:
    """DatasetError for a row the difficulty table would misfile: a score or tag on a deal not solved
    (a run scores solved deals only), or a score without its tag or a tag without its score."""
    for wrong, problem in ((~(data["outcome"] == "solved").to_numpy() & (scored | tagged), "{outcome}, but has a "
                            "difficulty score or tag (only solved deals are scored)"),
                           (tagged & ~scored, "{outcome}, with a tag but no difficulty score (null, or NaN)"),
                           (scored & ~tagged, "{outcome}, with a difficulty score but no tag")):
        if wrong.any():
            row = data.iloc[int(np.flatnonzero(wrong)[0])]
            raise DatasetError(f"{source}: deal {game_name(row['deal'], row['ms'])} is "
                               + problem.format(outcome=row["outcome"]))


NULLABLE = ("cards_played", "difficulty")
"""Numeric columns where null has a meaning: cards_played not determined within --max-iters, no
difficulty score (an unsolved deal, or a verdict past its budget)."""


def _numbers(frame: pd.DataFrame, source: str, column: str) -> pd.Series:
    """A numeric column, checked: numbers (no true/false, no durations), in COLUMN_RANGES, null only
    where NULLABLE allows it; DatasetError naming what is wrong."""
    if frame[column].dtype.kind in "bmM" or pd.api.types.infer_dtype(frame[column], skipna=True) == "boolean":
        raise DatasetError(f"{source}: column {column} is {frame[column].dtype}, not numbers")  # no 0/1, no ns
    values = pd.to_numeric(frame[column], errors="coerce")
    may_be_null = column in NULLABLE
    if (values.isna() & frame[column].notna() if may_be_null else values.isna()).any():
        what = "non-numeric" if may_be_null else "missing or non-numeric"
        raise DatasetError(f"{source}: column {column} has {what} values")
    check_range(source, column, values.dropna().to_numpy())
    return values + 0.0 if values.dtype.kind == "f" else values  # a -0.0 was shown as "-0.000"


COLUMN_RANGES = {"iterations": (0, 2**63 - 1, True), "cards_played": (0, len(DECK), True),
                 "seconds": (0, MAX_SECONDS, False), "difficulty": (0, 100, False)}
"""Each numeric column's bounds (inclusive) and whether it holds whole numbers: a count past int64
would wrap around when stored, a fraction would be cut, no deal plays more cards than a deck or takes
a billion seconds (32 years) to solve, and a difficulty score, the logarithm of 1 plus a mean of
weights 2^(depth/8) of traps at most a deck deep, stays below 5 (100 leaves a later scale room).
Values past those are damage, and their sums overflowed to inf (a JSON report's traceback)."""


def check_range(source: str, column: str, values: np.ndarray) -> None:
    """DatasetError naming the first value of a column outside its range (COLUMN_RANGES); `verify` holds
    a run's files to the same bounds."""
    low, high, whole = COLUMN_RANGES[column]
    if values.dtype.kind == "f":
        if whole:
            exact = float_exact_below(values.dtype.itemsize)
            big = np.abs(values) >= exact
            if big.any():
                raise DatasetError(f"{source}: column {column} has {values[big.argmax()].item()!r} as a float: "
                                   f"{rounded_float(exact)}")
        values = values.astype(np.float64)  # bounds past float16's range would overflow in its own type
        bad = ~np.isfinite(values) | (values < low) | (values >= float(high) + 1 if whole else values > high)
        if whole:
            bad |= values != np.floor(values)
    else:
        bad = (values < low) | (values > high)
    if bad.any():
        value = values[bad.argmax()].item()
        raise DatasetError(f"{source}: column {column} has {value!r}; it must hold {'whole ' if whole else ''}numbers "
                           f"from {low:,} to {high:,}")


def _null_or(value):
    """None for every kind of null pandas hands back (None, NaN, NA), else the value."""
    return None if value is None or (not isinstance(value, str) and pd.isna(value)) else value


def game_of(data: pd.DataFrame, source: str, manifest: dict | None = None, default: Game | None = None,
            given: Game | None = None) -> Game:
    """The one game of a normalized dataset's rows: its `game` column, else its run's manifest, else
    `given`, else `default`, else Black Hole (every dataset from before the family is Black Hole's).

    DatasetError for rows of several games (a report of the sum would describe no game), rows
    whose game is not the one their run's manifest names, a dataset that names a game other
    than `given` (what the user said it holds), or rows that game cannot have (`cards_played`).
    """
    stated = run_game(manifest) if manifest else None  # a run from before the family: Black Hole
    named = stated
    if "game" in data and len(data):
        counts = data["game"].value_counts()
        present = [(key, int(n)) for key, n in counts.items() if n]
        if len(present) > 1:
            held = ", ".join(f"{key}: {counted(n, 'row')}" for key, n in present)
            raise DatasetError(f"{source} mixes games ({held}): take one game at a time (select its rows by "
                               "the game column; report A --compare B sets two side by side)")
        named = game_by_key(present[0][0])
        if stated is not None and stated != named:
            raise DatasetError(f"{source}: its rows are {named.key} deals, but its run's manifest says "
                               f"{stated.key} (blackhole-stats verify names the files)")
    if named is not None and given is not None and named != given:
        raise DatasetError(f"{source} holds {named.key} deals ({named.name}), not {given.key}")
    game = named or given or default or DEFAULT_GAME
    if "cards_played" in data:
        _check_cards_played(data, source, game)
    return game


def names_no_game(data: pd.DataFrame, manifest: dict | None) -> bool:
    """Whether a dataset says nothing of its game: no `game` column, or no rows in it, and no run
    manifest (another solver's CSV, a file made in a notebook, the compact study of Black Hole, a
    selection that kept no deal). Its game is then only assumed, and `--game` names it."""
    return ("game" not in data or not len(data)) and manifest is None


def wilson_interval(successes, trials, z: float = Z95):
    """Wilson score interval (low, high) for a binomial proportion; works on numpy arrays too."""
    p = np.divide(successes, trials)
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z / denominator * np.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return centre - half, centre + half


@dataclass(frozen=True)
class Proportion:
    """`successes` out of `trials`, with its 95% Wilson score interval."""

    successes: int
    trials: int
    fraction: float
    low: float
    high: float

    @classmethod
    def of(cls, successes: int, trials: int) -> Proportion | None:
        if trials == 0:
            return None
        low, high = wilson_interval(successes, trials)
        return cls(successes, trials, successes / trials, float(low), float(high))


@dataclass(frozen=True)
class IterationStats:
    """Summary of one outcome's iteration counts (conventions in `METHODS`)."""

    count: int
    min: int
    max: int
    mean: float
    std: float | None
    median: float
    q1: float
    q3: float
    p99: float

    @classmethod
    def of(cls, values: np.ndarray) -> IterationStats:
        high = int(values.max())
        # int64's sum wraps around past 2^63 - 1 (a negative mean); Python's ints do not
        total = int(values.sum()) if high <= np.iinfo(np.int64).max // len(values) else sum(values.tolist())
        q1, median, q3, p99 = np.percentile(values, [25, 50, 75, 99])
        return cls(count=len(values), min=int(values.min()), max=high, mean=total / len(values),
                   std=float(values.std(ddof=1)) if len(values) > 1 else None,
                   median=float(median), q1=float(q1), q3=float(q3), p99=float(p99))


LIVE_WARNING = "warning: a run is writing to this dataset now: these are the deals it has done so far"


@dataclass(frozen=True)
class ManifestCheck:
    """The dataset's rows against the deals its manifest asks for, and the entries of its directory
    that are not the run's yet other readers read (`verify` names them all)."""

    asked: int
    rows: int
    missing: int
    not_asked_for: int
    repeated: int
    strays: tuple[str, ...] = ()
    """Entries of DIR that pandas, pyarrow or polars read with the run's files and the report does not
    (`_unread_strays`: a renamed copy of a part, someone's notes, a folder of them): a notebook's figures
    would count them. (A `*.parquet` file the report reads too: its rows count, and repeats are said.)"""
    other_settings: tuple[str, ...] = ()
    """The files whose rows were solved with other settings than the manifest's, or whose recorded settings
    are damaged (a part copied from another run: `run` refuses to go on beside it), counted here with the
    rest."""
    being_written: bool = False
    """A run is writing to the directory now (`dataset.being_written`): its deals are the ones done so far."""
    unfinished: tuple[str, ...] = ()
    """Files in DIR that a run killed outright left unfinished (a DIR on another disk than its side folder:
    `dataset.remove_temp_files`), which polars reads; none while a run is writing (they are its own)."""
    mistagged: int = 0
    """Solvable deals whose tag is not their score's on the manifest's difficulty scale (hand-edited?):
    `--tag` lists and the tags' table take the tag as it stands."""

    @property
    def matches(self) -> bool:
        return self.rows == self.asked and not self.missing

    def warnings(self) -> list[str]:
        """The lines `report` (and `export`, whose lists would be short) print when the rows do not match,
        or when readers of the directory would read more than the run's files."""
        lines = [LIVE_WARNING] if self.being_written else []
        if not self.matches:
            lines.append(f"warning: the manifest asks for {self.asked:,} deals, the dataset has {self.rows:,} "
                         f"rows: {self.missing:,} missing, {self.not_asked_for:,} not asked for, {self.repeated:,} "
                         "repeated" + ("" if self.being_written else " (blackhole-stats verify names them)"))
        if self.strays:
            lines.append(f"warning: the directory also holds {_names_shown(self.strays)}, not the run's files, "
                         "which other readers of it take for part of it (and read, or fail on): left out here "
                         "(blackhole-stats verify names them)")
        if self.unfinished:
            lines.append(f"warning: the directory holds {_names_shown(self.unfinished)}, unfinished by a run that "
                         "was killed, which polars reads or refuses the folder for: resume the run, which removes them")
        if self.mistagged:
            lines.append(f"warning: {counted(self.mistagged, 'solvable deal')} of the run: a tag that is not the "
                         "score's on the run's difficulty scale (hand-edited?), taken here as it stands "
                         "(blackhole-stats verify names them)")
        if self.other_settings:
            holds = "holds" if len(self.other_settings) == 1 else "hold"
            lines.append(f"warning: {_names_shown(self.other_settings)} {holds} rows solved with other settings than "
                         "the run's, or whose recorded settings are damaged (a file of another run?), counted here "
                         "(blackhole-stats verify names them)")
        return lines

    @classmethod
    def of(cls, data: pd.DataFrame, manifest: dict, source: str) -> ManifestCheck:
        """`data` as `load` gave it: the settings its files record are in its attrs (`RUN_SETTINGS`)."""
        asked = expected_deals(manifest)
        held = deals_held(data["deal"].to_numpy(), data["ms"].to_numpy())
        other_settings = tuple(name for name, settings in sorted(data.attrs.get(RUN_SETTINGS, {}).items())
                               if settings is None or settings_differ(json.loads(settings), manifest))
        live = data.attrs.get(BEING_WRITTEN, False) or being_written(source)
        files = list_run(source)  # once, for the strays and the unfinished files
        return cls(asked=asked.count, rows=len(data), missing=(asked - held).count,
                   not_asked_for=(held - asked).count, repeated=len(data) - held.count,
                   strays=_unread_strays(source, files), other_settings=other_settings, being_written=live,
                   unfinished=() if live else unfinished_in(source, files),
                   mistagged=_mistagged(data, manifest.get("difficulty_scale")))


def _mistagged(data: pd.DataFrame, scale_name) -> int:
    """How many scored rows carry another tag than their score's on the scale named (none known: 0; an
    unknown name is `verify`'s to report)."""
    scale = SCALES.get(scale_name) if isinstance(scale_name, str) else None
    if scale is None or "tag" not in data or "difficulty" not in data:
        return 0
    scored = data[data["difficulty"].notna() & data["tag"].notna()]
    return int((scale.tags(scored["difficulty"].to_numpy(dtype=float)) != scored["tag"].astype(object).to_numpy()).sum())


SETTINGS_SHOWN = 5
"""The most differing settings, and runs, the mixed-settings warning names (footers are anyone's to write)."""


def _json_of(value) -> str:
    """A setting as JSON text, control characters escaped; one nested past what this stack can write, so."""
    try:
        return json.dumps(value)
    except RecursionError:
        return "(nested too deep)"


def mixed_settings(data: pd.DataFrame) -> str | None:
    """Where the Parquet files of a dataset without a manifest (files of several runs gathered in one
    folder) record runs of different settings (`load` keeps them in the frame's attrs), a warning naming
    them: a classic run's iteration counts beside a fast run's, or deals left intractable under a budget
    beside deals of none, would be counted as one study without a word; files whose settings are damaged
    are named too. Files that record none (earlier versions, CSV) say nothing, nor does a frame that did
    not come from `load`."""
    found: dict[str | None, list[str]] = {}  # files by their settings (JSON; None: damaged)
    for name, settings in sorted(data.attrs.get(RUN_SETTINGS, {}).items()):
        found.setdefault(settings, []).append(name)
    if len(found) < 2 and None not in found:
        return None
    runs = [(None if settings is None else json.loads(settings), names) for settings, names in found.items()]
    known = [run for run, _ in runs if run is not None]
    differ = sorted({key for run in known for key in run  # as JSON: 1 and 1.0 are two settings, as grouped
                     if any(_json_of(other.get(key)) != _json_of(run.get(key)) for other in known)})
    shown = (differ or sorted(known[0]) if known else [])[:SETTINGS_SHOWN]  # (one run's beside damaged ones)
    more = f", and {len(differ) - len(shown)} more" if len(differ) > len(shown) else ""

    def settings_of(run: dict | None) -> str:
        if run is None:
            return "settings damaged"
        return f"{', '.join(f'{_json_of(key)[1:-1][:40]}={_json_of(run.get(key))[:40]}' for key in shown)}{more}"

    kinds = "; ".join(
        f"{settings_of(run)}: {counted(len(names), 'file')} "
        f"({names[0]}{', ...' if len(names) > 1 else ''})" for run, names in runs[:SETTINGS_SHOWN])
    if len(runs) > SETTINGS_SHOWN:
        kinds += f"; and {len(runs) - SETTINGS_SHOWN} more settings"
    if not known:
        return f"warning: the files' run settings are damaged ({kinds}): which runs solved them cannot be told"
    return f"warning: the files were solved by runs of different settings ({kinds}), counted here together"


NAMES_SHOWN = 5
"""The most file names a warning lists (a folder may hold thousands; the JSON and `verify` hold them all)."""


def _pandas_reads_warnings(found: PandasReads | None) -> list[str]:
    """Where pandas and pyarrow read a folder without a manifest otherwise than the report: a notebook's
    figures would count other rows (a run's `ManifestCheck` names what its folder holds besides its files)."""
    if found is None:
        return []
    return [line for line in (
        f"warning: pandas and pyarrow also read {_names_shown(found.extra)} (Parquet, not named *.parquet), "
        "left out here: their figures count its rows too" if found.extra else None,
        f"warning: pandas and pyarrow leave out {_names_shown(found.skipped)}, read here (a name, or a "
        "folder's, starting with '_' or '.'): their figures count none of its rows" if found.skipped else None)
        if line]


def _names_shown(names: Sequence[str]) -> str:
    """The first NAMES_SHOWN names, and how many more."""
    more = f", and {len(names) - NAMES_SHOWN:,} more" if len(names) > NAMES_SHOWN else ""
    return ", ".join(names[:NAMES_SHOWN]) + more


def _unread_strays(source: str, files: RunFiles) -> tuple[str, ...]:
    """The entries of the run directory `source` (`files`: its listing) that other readers read and the report does not: files
    other than `*.parquet`, entries that are no file at all (a link to nothing, a FIFO), and folders
    holding any (a `*.parquet` file the report reads too)."""
    fs, root = filesystem(source)
    unread = []
    for name, _ in files.strays:
        if name.endswith("/"):
            inside = folder_entries(fs, posixpath.join(root, name.rstrip("/")), source, recursive=True)
            if any(info.type == pafs.FileType.File and not info.base_name.endswith(".parquet") for info in inside):
                unread.append(name)
        elif not name.endswith(".parquet") or fs.get_file_info(posixpath.join(root, name)).type != pafs.FileType.File:
            unread.append(name)
    return tuple(unread)


@dataclass
class Report:
    """Everything a report shows, as plain data (JSON output is `asdict` of it).

    `iterations`, `cards_played` and `no_first_move` are None when the dataset
    has no such column (possible only for the other side of a comparison).
    `no_first_move` counts the unsolvable deals whose best line plays no card from
    the piles: no legal first move in Black Hole, only the talon turned in Golf.
    """

    source: str
    game: str
    """The game's key (`game_of`)."""
    deals: int
    ms_deals: int
    duplicates: int
    duplicates_of_other_effort: int
    """Of `duplicates`, those with other iterations than the row counted (`repeats_of_other_effort`)."""
    first_deal: str | None
    last_deal: str | None
    outcomes: dict[str, int]
    solvable: Proportion | None
    solvable_bounds: tuple[float, float] | None
    """With intractable deals: the solvable share of all the deals were none of them solvable, and were all:
    a budget decides the easy deals first, so `solvable`, of the decided ones, is no estimate for the game."""
    iterations: dict[str, IterationStats] | None
    cards_played: dict[int, int] | None
    cards_played_unknown: int | None
    """Unsolvable deals whose most cards played was not determined within --max-iters (null cards_played)."""
    no_first_move: int | None
    hardest: list[dict]
    solve_seconds: float | None
    difficulty: dict[str, dict] | None = None
    """Per tag: solvable deals, their share, and the lowest and highest score; None without the columns."""
    manifest: dict = field(default_factory=dict)
    against_manifest: ManifestCheck | None = None
    """None when there is no manifest (a single file, a CSV, a dataset built elsewhere)."""
    mixed_settings: str | None = None
    """Without a manifest: the warning that its files record runs of different settings (`mixed_settings`)."""
    pandas_reads: PandasReads | None = None
    """Without a manifest, for a folder: the files pandas and pyarrow read and the report does not, and the
    other way round."""
    same_game_twice: int = 0
    """Deals N below 32000 listed as msN too: one game (PySolFC deals both with the LCG, and shows N as
    msN), counted twice."""


def _check_cards_played(data: pd.DataFrame, source: str, game: Game) -> None:
    """DatasetError naming the first deal whose cards_played its outcome cannot have in `game`
    (a table of them would count lines no deal of the game can play)."""
    allowed = [game.cards_played_range(outcome) for outcome in OUTCOMES]
    outcome = data["outcome"].cat.codes.to_numpy()
    played = data["cards_played"].to_numpy(dtype="float64", na_value=np.nan)
    low, high = (np.array([bounds.start for bounds in allowed])[outcome],
                 np.array([bounds.stop - 1 for bounds in allowed])[outcome])
    fits = (played >= low) & (played <= high)
    fits |= np.isnan(played) & (outcome == OUTCOMES.index("unsolved"))  # its most-played search ran out
    if not fits.all():
        row = data.iloc[(~fits).argmax()]
        shown = "no cards_played" if pd.isna(row["cards_played"]) else f"cards_played {row['cards_played']}"
        bounds = allowed[OUTCOMES.index(row["outcome"])]
        span = (f"only {bounds.start}" if len(bounds) == 1 else f"{bounds.start} to {bounds.stop - 1}")
        raise DatasetError(f"{source}: deal {game_name(row['deal'], row['ms'])} is {row['outcome']} with {shown}, "
                           f"but {game.name} allows {span}")


def game_keys(data: pd.DataFrame) -> pd.DataFrame:
    """Which game each row is, as two columns: `twister` (dealt by the Mersenne Twister) and `deal`. Below
    32000, N and msN are one game under two names (PySolFC deals both with the LCG and shows N as msN):
    the one place that says when two rows repeat a deal."""
    twister = ~data["ms"].to_numpy(bool) & (data["deal"] >= LCG_LIMIT).to_numpy(bool)
    return pd.DataFrame({"twister": twister, "deal": data["deal"].to_numpy()}, index=data.index)


def _repeats(data: pd.DataFrame, keep: str | bool = "first") -> np.ndarray:
    """The rows that repeat a game listed before them (`keep=False`: every row of a game listed twice)."""
    return game_keys(data).duplicated(keep=keep).to_numpy()


def check_repeats_agree(data: pd.DataFrame, source: str) -> None:
    """DatasetError naming the first deal listed twice with different results (outcome, cards played, or
    difficulty tag where both rows have one): which one stands is no guess to make, for a report, a
    comparison or a list (repeats that agree get the report's warning, which counts those of other
    iterations: `repeats_of_other_effort`; a row without a tag beside one with it is a run made without
    --difficulty beside one made with it)."""
    verdicts = [name for name in ("outcome", "cards_played") if name in data]
    listed_twice = _repeats(data, keep=False)
    repeated = data.loc[listed_twice, [*verdicts, "ms", *(["tag"] if "tag" in data else [])]]
    keys = game_keys(data)[listed_twice]
    games = repeated.astype({"outcome": object}).groupby(
        [keys["twister"].to_numpy(), keys["deal"].to_numpy()], sort=False)
    differ = games[verdicts].nunique(dropna=False).gt(1).any(axis=1)
    if "tag" in data:
        differ |= games["tag"].nunique().gt(1)
    if differ.any():
        at = differ.to_numpy().argmax()
        twister, number = differ.index[at]
        names = game_name(number, not twister and number >= LCG_LIMIT)
        if games["ms"].nunique().iloc[at] > 1:
            names += f" (or ms{number}: one game)"
        raise DatasetError(f"{source}: deal {names} is listed more than once, with different "
                           f"results (outcome, cards_played or difficulty tag)")


def repeats_of_other_effort(data: pd.DataFrame) -> int:
    """The rows that repeat a deal with other iterations than its first row, the one counted (the same
    verdict solved under other settings, or a copy edited): the effort figures are that row's alone."""
    if "iterations" not in data:
        return 0
    keys = game_keys(data)
    first = data.groupby([keys["twister"].to_numpy(), keys["deal"].to_numpy()], sort=False)["iterations"].transform(
        "first")
    return int((_repeats(data) & (data["iterations"] != first).to_numpy()).sum())


def one_row_per_deal(data: pd.DataFrame) -> pd.DataFrame:
    """One row a deal: a repeat (that agrees: `build_report` refuses others) is one deal, and counting it
    twice would narrow a proportion's interval and bend the plots. Its first row, N before msN (below
    32000 one game: the ms count and the first and last deal then follow neither the order of the rows
    nor which name carries a tag), with the difficulty score and tag of its first row that has one (a
    run made with --difficulty beside one made without)."""
    order = np.argsort(data["ms"].to_numpy(bool), kind="stable")
    kept = np.sort(order[~_repeats(data.iloc[order])])
    if "difficulty" not in data or len(kept) == len(data):
        return data.iloc[kept]
    keys = game_keys(data)
    scored = data.groupby([keys["twister"].to_numpy(), keys["deal"].to_numpy()], sort=False)[
        ["difficulty", "tag"]].transform("first")  # (the first of each that is not null: a row has both or neither)
    return data.iloc[kept].assign(difficulty=scored["difficulty"].iloc[kept].to_numpy(),
                                  tag=scored["tag"].iloc[kept].array)


def build_report(data: pd.DataFrame, source: str, manifest: dict | None = None, game: Game | None = None
                 ) -> Report:
    """Compute a Report from a normalized dataset (see `load`) of `game` (None: the one `game_of` finds;
    either way checked against the rows) and its run's manifest, if any.

    A frame read another way is refused (DatasetError): pandas reads a deal from 2^63 up as null beside its
    `deal_exact` text, which gave wrong counts without a word, and only `load` keeps the run settings
    each file records (in the frame's attrs: pandas drops them where it merges, or concatenates frames of
    other files), without which a part of another run would be counted without a warning."""
    if RUN_SETTINGS not in data.attrs or "ms" not in data or "deal_exact" in data or \
            not isinstance(data["outcome"].dtype, pd.CategoricalDtype):
        raise DatasetError(f"{source}: build_report takes the frame report.load gives (exact deals, typed "
                           "columns, what its files record), or a selection of its rows; not one read another "
                           "way, nor one pandas merged or concatenated")
    game = game_of(data, source, manifest, given=game)
    listed = data
    duplicates = int(_repeats(data).sum())
    other_effort = 0
    if duplicates:
        check_repeats_agree(data, source)
        other_effort = repeats_of_other_effort(data)
        data = one_row_per_deal(data)
    counts = data["outcome"].value_counts()
    outcomes = {outcome: int(counts.get(outcome, 0)) for outcome in OUTCOMES}
    iterations = cards_played = cards_played_unknown = no_first_move = None
    hardest = []
    if "iterations" in data:
        iterations = {outcome: IterationStats.of(data.loc[data["outcome"] == outcome, "iterations"].to_numpy())
                      for outcome in OUTCOMES if outcomes[outcome]}
        hardest = [_deal_row(row) for row in data.nlargest(HARDEST, "iterations").itertuples()]
    if "cards_played" in data:
        unsolved = data.loc[data["outcome"] == "unsolved", "cards_played"]
        cards_played = {int(cards): int(n) for cards, n in unsolved.value_counts().sort_index().items()}
        cards_played_unknown = int(unsolved.isna().sum())
        no_first_move = cards_played.get(game.talon_size, 0)
    names = _first_and_last(data)
    _testhooks.pause("report-checks")
    against_manifest, mixed, pandas_differs = _checks(listed, manifest, source)
    return Report(
        source=source,
        game=game.key,
        deals=len(data),
        ms_deals=int(data["ms"].sum()),
        duplicates=duplicates,
        duplicates_of_other_effort=other_effort,
        first_deal=names[0],
        last_deal=names[-1],
        outcomes=outcomes,
        solvable=Proportion.of(outcomes["solved"], outcomes["solved"] + outcomes["unsolved"]),
        solvable_bounds=(outcomes["solved"] / len(data), (outcomes["solved"] + outcomes["intractable"]) / len(data))
        if outcomes["intractable"] else None,
        iterations=iterations,
        cards_played=cards_played,
        cards_played_unknown=cards_played_unknown,
        no_first_move=no_first_move,
        hardest=hardest,
        solve_seconds=float(data["seconds"].sum()) if "seconds" in data else None,
        difficulty=_difficulty_table(data) if "tag" in data else None,
        manifest={key: manifest[key] for key in MANIFEST_KEYS if key in manifest} if manifest else {},
        against_manifest=against_manifest,
        mixed_settings=mixed,
        pandas_reads=pandas_differs,
        same_game_twice=same_game_twice(listed),
    )


def same_game_twice(data: pd.DataFrame) -> int:
    """How many deals N below 32000 the rows list both as N and as msN (`Report.same_game_twice`)."""
    low = data.loc[data["deal"] < LCG_LIMIT, ["deal", "ms"]]
    return len(set(low.loc[~low["ms"], "deal"]) & set(low.loc[low["ms"], "deal"]))


def _first_and_last(data: pd.DataFrame) -> list[str | None]:
    """The first and last deal in deal order (ordinary numbers, then ms ones), whatever the rows' order."""
    if not len(data):
        return [None, None]
    ms = data["ms"].to_numpy(dtype=bool)
    first = data.loc[~ms, "deal"].min() if (~ms).any() else data.loc[ms, "deal"].min()
    last = data.loc[ms, "deal"].max() if ms.any() else data.loc[~ms, "deal"].max()
    return [game_name(first, not (~ms).any()), game_name(last, bool(ms.any()))]


def _difficulty_table(data: pd.DataFrame) -> dict[str, dict]:
    solved = data[data["outcome"] == "solved"]
    table = {}
    for tag in (*TAGS, None):
        scores = solved.loc[solved["tag"].isna() if tag is None else solved["tag"] == tag, "difficulty"]
        if tag is None and not len(scores):
            continue  # every solved deal has its tag
        table["no score" if tag is None else tag] = {
            "deals": int(len(scores)), "percent": 100 * len(scores) / len(solved) if len(solved) else None,  # 0 of 0
            "min": float(scores.min()) if scores.notna().any() else None,
            "max": float(scores.max()) if scores.notna().any() else None}
    return table


def _deal_row(row) -> dict:
    return {"deal": game_name(row.deal, row.ms), "outcome": row.outcome,
            "iterations": int(row.iterations),
            "cards_played": _optional_int(row, "cards_played"),
            "seconds": float(row.seconds) if hasattr(row, "seconds") else None}


@dataclass
class Comparison:
    """Two datasets side by side, and the deals on which they disagree.

    Of one game, two solvers (or searches) that must agree; of two games on the same
    deals (Golf and Relaxed Golf), which deals one wins and the other does not.
    """

    a: Report
    b: Report
    common: int
    only_a: int
    only_b: int
    verdicts_differ: list[dict]
    contradictions: int | None
    """Of one game, deals one side solved and the other proved unsolvable: one solver is wrong.
    None for two games, where such deals are what the comparison is for (`won_only_a`, `won_only_b`)."""
    cards_played_differ: list[dict] | None
    """Deals both call unsolved but with a different best line; None without the columns."""
    won_only_a: int = 0
    """Deals A solved and B proved unsolvable."""
    won_only_b: int = 0
    cards_played_not_compared: int | None = None
    """Deals both call unsolved that `cards_played_differ` leaves out: one side (or both) holds no cards
    played for it (null: a run's most-played search ran out of --max-iters); None without the columns."""


def compare(a: pd.DataFrame, b: pd.DataFrame, a_report: Report, b_report: Report) -> Comparison:
    """Match deals by the game they are (`game_keys`: N in one and msN in the other, below 32000, are one)
    and list where the two verdicts (and best lines) differ, each deal named as A names it.

    DatasetError if the two share no deal: there is nothing to compare.
    """
    keys = ["twister", "deal"]
    if a["deal"].dtype != b["deal"].dtype:  # int64 on one side, Python ints past 2^63 on the other
        a, b = (side.assign(deal=side["deal"].astype(object)) for side in (a, b))
    merged = pd.merge(_suffixed(a, "_a"), _suffixed(b, "_b"), on=keys, how="outer", indicator=True)
    both = merged[merged["_merge"] == "both"].rename(columns={"ms_a": "ms"})
    outcome_a, outcome_b = both["outcome_a"].astype(object), both["outcome_b"].astype(object)
    differ = both[outcome_a != outcome_b]
    verdicts = [{"deal": game_name(row.deal, row.ms), "a": row.outcome_a, "b": row.outcome_b,
                 "a_iterations": _optional_int(row, "iterations_a"),
                 "b_iterations": _optional_int(row, "iterations_b")}
                for row in differ.itertuples()]
    cards = not_compared = None
    if "cards_played_a" in both and "cards_played_b" in both:
        played_a, played_b = both["cards_played_a"], both["cards_played_b"]
        unsolved = (outcome_a == "unsolved") & (outcome_b == "unsolved")
        known = played_a.notna() & played_b.notna()
        differ_played = both[unsolved & known & played_a.ne(played_b).fillna(False)]
        cards = [{"deal": game_name(row.deal, row.ms), "a": int(row.cards_played_a),
                  "b": int(row.cards_played_b)} for row in differ_played.itertuples()]
        not_compared = int((unsolved & ~known).sum())
    if not len(both):
        raise DatasetError(f"{a_report.source} and {b_report.source} share no deal: nothing to compare "
                           f"({_span(a_report)} against {_span(b_report)})")
    side = merged["_merge"].value_counts()
    won_only_a = sum((row["a"], row["b"]) == ("solved", "unsolved") for row in verdicts)
    won_only_b = sum((row["a"], row["b"]) == ("unsolved", "solved") for row in verdicts)
    return Comparison(
        a=a_report, b=b_report, common=len(both),
        only_a=int(side["left_only"]), only_b=int(side["right_only"]),
        verdicts_differ=verdicts,
        contradictions=won_only_a + won_only_b if a_report.game == b_report.game else None,
        cards_played_differ=cards, won_only_a=won_only_a, won_only_b=won_only_b,
        cards_played_not_compared=not_compared,
    )


def _span(report: Report) -> str:
    return f"{report.first_deal} .. {report.last_deal}" if report.deals else "no deals"


def _suffixed(data: pd.DataFrame, suffix: str) -> pd.DataFrame:
    columns = ["ms", *(name for name in ("outcome", "iterations", "cards_played") if name in data)]
    unique = one_row_per_deal(data)
    unique = unique[["deal", *columns]].assign(twister=game_keys(unique)["twister"])
    return unique.rename(columns={name: name + suffix for name in columns})


def _optional_int(row, name: str) -> int | None:
    value = getattr(row, name, None)
    return None if value is None or pd.isna(value) else int(value)


# Rendering: text and markdown show the same sections; JSON is the data itself.

@dataclass
class _Section:
    title: str
    lines: list[str] = field(default_factory=list)
    headers: tuple[str, ...] = ()
    rows: list[tuple[str, ...]] = field(default_factory=list)
    align: str = ""
    """One letter per column, 'l' or 'r'; by default the first column left, the rest (numbers) right."""

    def right_aligned(self, column: int) -> bool:
        return self.align[column] == "r" if self.align else column > 0


FORMATS = ("text", "markdown", "json")


def render(result: Report | Comparison, fmt: str = "text") -> str:
    """`result` as text for the terminal, markdown for a README, or JSON for programs."""
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(map(repr, FORMATS))}, not {fmt!r}")
    if fmt == "json":
        return json.dumps(asdict(result), indent=2, allow_nan=False)
    sections = _report_sections(result) if isinstance(result, Report) else _comparison_sections(result)
    return _markdown(sections) if fmt == "markdown" else _text(sections)


def _report_sections(report: Report) -> list[_Section]:
    span = f" ({report.first_deal} .. {report.last_deal})" if report.deals else ""
    summary = [f"{report.deals:,} deals{span}, {report.ms_deals:,} of them ms deals", *_warnings(report)]
    if report.solve_seconds is not None:
        summary.append(f"solve time, summed over deals (wall clock, each in its worker; not CPU time): "
                       f"{report.solve_seconds:,.1f} s")
    game = game_by_key(report.game)
    sections = [_Section(f"{game.name} report: {report.source}", summary)]

    outcome_lines = [f"solvable fraction of decided deals: {_proportion(report.solvable)} "
                     "(95% Wilson score interval; decided = solved + unsolved)"]
    if report.solvable_bounds is not None:
        least, most = report.solvable_bounds
        outcome_lines.append(f"with {counted(report.outcomes['intractable'], 'deal')} intractable (--max-iters), "
                             f"the solvable share of all the deals lies between {least:.2%} and {most:.2%}: a "
                             "budget decides the easy deals first, so the decided ones may be no fair sample")
    if report.no_first_move is not None:
        label, meaning = _no_pile_card(game)
        outcome_lines.append(f"{label} ({meaning}): {report.no_first_move:,} deals")
    sections.append(_Section("Outcomes", outcome_lines, ("outcome", "deals", "percent"),
                             [(outcome, _number(n), _percent(n, report.deals))
                              for outcome, n in report.outcomes.items()]))

    if report.iterations is not None:
        stats = report.iterations
        rows = [(name, *(_number(getattr(s, name), 0) for s in stats.values())) for name in ITERATION_STATS]
        sections.append(_Section(
            "Iterations (positions expanded) per outcome", [METHODS + "; rounded to whole positions"],
            ("", *stats), rows))

    if report.cards_played is not None:
        unsolved = report.outcomes["unsolved"]
        rows = []
        least = min(game.fewest_cards_played, *report.cards_played) if report.cards_played else 0
        for low, high in _cards_played_bins(least, max(report.cards_played)) if report.cards_played else []:
            n = sum(count for cards, count in report.cards_played.items() if low <= cards <= high)
            at_least = sum(count for cards, count in report.cards_played.items() if cards >= low)
            if low <= game.fewest_cards_played:  # where every line gets, the deals not determined got too
                at_least += report.cards_played_unknown
            label = str(low) if low == high else f"{low}-{high}"
            rows.append((label, _number(n), _percent(n, unsolved), _percent(at_least, unsolved)))
        notes = [f"the most cards any line of play puts on the foundation{_of_cards(game)}; 'at least' counts "
                 "deals that got this far; every count is in the JSON output"]
        if report.cards_played_unknown:
            rows.append(("not determined", _number(report.cards_played_unknown),
                         _percent(report.cards_played_unknown, unsolved), "-"))
            notes.append(f"not determined: {report.cards_played_unknown:,} unsolvable deals whose most cards "
                         "played was not found within --max-iters (cards_played is null); 'at least' counts "
                         f"them only at {game.fewest_cards_played}, which every line plays")
        sections.append(_Section("Cards played by unsolvable deals (how close they got)", notes,
                                 ("cards played", "deals", "percent", "at least"), rows))

    if report.difficulty is not None:
        scale = report.manifest.get("difficulty_scale")
        sections.append(_Section(
            "Difficulty of the solvable deals (for a person: see README, Difficulty)",
            [f"tags on scale {scale}" if scale else "tags as stored (no manifest names their scale)"],
            ("tag", "deals", "of solvable", "lowest score", "highest score"),
            [(tag, _number(row["deals"]), "-" if row["percent"] is None else f"{row['percent']:.1f}%",
              _number(row["min"], 3), _number(row["max"], 3))
             for tag, row in report.difficulty.items()], align="lrrrr"))

    if report.hardest:
        sections.append(_Section(
            f"Hardest deals (top {len(report.hardest)} by iterations)", [],
            ("deal", "outcome", "iterations", "cards played", "seconds"),
            [(row["deal"], row["outcome"], _number(row["iterations"]), _number(row["cards_played"]),
              _number(row["seconds"], 3)) for row in report.hardest], align="llrrr"))

    settings = _Section("Run settings (the run's manifest)", [], ("setting", "value"),
                        [(key, _setting(value)) for key, value in report.manifest.items()], align="ll")
    if not report.manifest:
        settings.lines.append("no manifest with run settings")
    sessions = report.manifest.get("sessions") or []
    untimed = sum(session.get("elapsed_seconds") is None for session in sessions)
    if untimed:  # a run's time that leaves some out must say so, or deals/s come out too high
        settings.lines.append(f"note: elapsed_seconds adds up the sessions that recorded their time; {untimed} of "
                              f"{len(sessions)} did not (still running, killed, or unable to write the manifest "
                              "as it ended)")
    sections.append(settings)
    return sections


def _no_pile_card(game: Game) -> tuple[str, str]:
    """What `Report.no_first_move` counts, in the game's terms: a short label, and what it means."""
    if not game.has_talon:
        return "no legal first move", "unsolved with 0 cards played"
    return "no pile card playable", f"unsolved with only the {game.talon_size} talon cards played"


def _of_cards(game: Game) -> str:
    """How many cards there are to play, where the talon counts too (Golf: the 35 pile cards and the 16 talon cards)."""
    if not game.has_talon:
        return ""
    return (f" (of {game.playable_cards}: the {game.layout_cards} pile cards and the {game.talon_size} talon "
            "cards, which every line can turn)")


def _warnings(report: Report) -> list[str]:
    """What makes a dataset's figures suspect, above a report and each side of a comparison: repeated
    deals, then what `_suspicions` finds."""
    other = report.duplicates_of_other_effort
    again = report.duplicates - report.same_game_twice  # (those are warned of below)
    rows = "1 row repeats" if again == 1 else f"{again:,} rows repeat"
    differ = "it has" if again == 1 else f"{other:,} of them with"
    repeated = [f"warning: {rows} a deal already listed (counted once"
                + (f"; {differ} other iterations than the row counted: the first listed, in the file whose name "
                   "sorts first)" if other else ")")] if again else []
    return repeated + _same_game_twice_warning(report.same_game_twice, "counted once") + _suspicions(
        report.against_manifest, report.mixed_settings, report.pandas_reads, report.manifest, report.source)


def _same_game_twice_warning(twice: int, consequence: str) -> list[str]:
    return [f"warning: {f'{twice:,} deals are' if twice > 1 else '1 deal is'} listed both as N and as msN, "
            "below 32000 one game (PySolFC deals both with the same generator and shows N as msN): "
            f"{consequence}"] if twice else []


def _checks(listed: pd.DataFrame, manifest: dict | None,
            source: str) -> tuple[ManifestCheck | None, str | None, PandasReads | None]:
    """The rows against the run's manifest, or, in a folder without one, the settings its files record
    and the files pandas reads otherwise (`load` keeps them in the frame's attrs)."""
    if manifest:
        return ManifestCheck.of(listed, manifest, source), None, None
    return None, mixed_settings(listed), listed.attrs.get(PANDAS_READS)


def _suspicions(against_manifest: ManifestCheck | None, mixed: str | None, pandas_differs: PandasReads | None,
                manifest: dict | None, source: str) -> list[str]:
    """The one place that words what makes a dataset's rows suspect, for a report and for `export`: rows
    that are not what its manifest asks for, files of runs of different settings, files pandas reads
    otherwise, a results format this version cannot vouch for (`dataset.format_problem`: its files are read
    as this version reads its own)."""
    if against_manifest is not None:
        warnings = against_manifest.warnings()
    else:  # a run made under a link's name, read by the folder's real name: its manifest is beside the link
        warnings = [LIVE_WARNING] if being_written(source) else []
    problem = format_problem(manifest) if manifest else None
    return [*warnings, *([mixed] if mixed else []), *_pandas_reads_warnings(pandas_differs),
            *([f"warning: {source} {problem}: its files are read as this version reads its own"] if problem else [])]


def source_warnings(data: pd.DataFrame, manifest: dict | None, source: str) -> list[str]:
    """`_suspicions` of a dataset, for `export`, which lists a game named both N and msN under both names."""
    return _same_game_twice_warning(same_game_twice(data), "listed under both") + _suspicions(
        *_checks(data, manifest, source), manifest, source)


def _countings(a: Report, b: Report) -> list[str]:
    """A note where two runs (their manifests) of one game and search counted iterations differently, or
    ran under different budgets: their effort figures side by side would mislead."""
    if not (a.manifest and b.manifest) or a.game != b.game or a.manifest.get("search") != b.manifest.get("search"):
        return []
    revisions = [manifest_iterations_revision(report.manifest) for report in (a, b)]
    if revisions[0] != revisions[1]:
        return [f"note: A and B count iterations differently (iterations_revision {revisions[0]} and "
                f"{revisions[1]}): compare their verdicts, not their effort"]
    budgets = [report.manifest.get("max_iters") for report in (a, b)]
    if budgets[0] != budgets[1]:
        shown = " and ".join("none" if budget is None else _number(budget)  # read_manifest let in no other kind
                             for budget in budgets)
        return [f"note: A and B ran under different budgets (max_iters {shown}): a budget can leave deals "
                "undecided, and in the Golf games it decides which search runs (README, The heights search): "
                "compare their verdicts, not their effort"]
    return []


def _comparison_sections(comparison: Comparison) -> list[_Section]:
    a, b = comparison.a, comparison.b
    game_a, game_b = game_by_key(a.game), game_by_key(b.game)
    sections = [_Section(f"Comparison: A = {a.source} ({game_a.name}), B = {b.source} ({game_b.name})", [
        f"deals in both: {comparison.common:,}; only in A: {comparison.only_a:,}; only in B: {comparison.only_b:,}",
        *(f"{side}: {warning}" for side, report in (("A", a), ("B", b)) for warning in _warnings(report)),
        *_countings(a, b),
    ])]
    differ = comparison.verdicts_differ
    if comparison.contradictions is not None:
        notes = [f"{comparison.contradictions:,} of them contradict (one solved, the other unsolved)"]
    else:
        alike = "on the same deals" if game_a.dealing == game_b.dealing else \
            "dealt differently under the same numbers (a deal's layouts differ)"
        notes = [f"two games {alike}: {comparison.won_only_a:,} won in {game_a.name} (A) and proved "
                 f"unwinnable in {game_b.name} (B), {comparison.won_only_b:,} the other way round"]
    sections.append(_Section(
        f"Deals whose verdicts differ: {len(differ):,}", notes + _listed(differ),
        ("deal", "A", "B", "A iterations", "B iterations"),
        [(row["deal"], row["a"], row["b"], _number(row["a_iterations"]), _number(row["b_iterations"]))
         for row in differ[:LISTED]], align="lllrr"))
    if comparison.cards_played_differ is not None:
        cards, unknown = comparison.cards_played_differ, comparison.cards_played_not_compared
        not_compared = [] if not unknown else [
            f"not compared: {counted(unknown, 'deal')} both call unsolved, for which one side (or "
            "both) holds no cards played (null: a run's most-played search ran out of --max-iters)"]
        sections.append(_Section(
            f"Deals both call unsolved but with different cards played: {len(cards):,}",
            not_compared + _listed(cards), ("deal", "A cards played", "B cards played"),
            [(row["deal"], str(row["a"]), str(row["b"])) for row in cards[:LISTED]]))

    rows = [("deals", _number(a.deals), _number(b.deals))]
    rows += [(outcome, _count_percent(a.outcomes[outcome], a.deals), _count_percent(b.outcomes[outcome], b.deals))
             for outcome in OUTCOMES]
    rows.append(("solvable (95% Wilson)", _proportion(a.solvable), _proportion(b.solvable)))
    if a.solvable_bounds or b.solvable_bounds:  # a budget's decided deals lean easy (Report.solvable_bounds)
        rows.append(("solvable of all deals (bounds)", *(
            "-" if side.solvable_bounds is None else f"{side.solvable_bounds[0]:.2%} .. {side.solvable_bounds[1]:.2%}"
            for side in (a, b))))
    labels = {_no_pile_card(game)[0] for game in (game_a, game_b)}
    rows.append((labels.pop() if len(labels) == 1 else "no pile card played",
                 _number(a.no_first_move), _number(b.no_first_move)))
    for outcome in OUTCOMES:
        stats = [(report.iterations or {}).get(outcome) for report in (a, b)]
        if any(stats):
            for name in ("median", "mean", "std", "p99", "max"):
                rows.append((f"{outcome} iterations {name}",
                             *(_number(getattr(s, name)) if s else "-" for s in stats)))
    rows.append(("solve time (s)", _number(a.solve_seconds), _number(b.solve_seconds)))
    whole = [] if not (comparison.only_a or comparison.only_b) else [
        f"each column is over its whole dataset ({a.deals:,} and {b.deals:,} deals), not over the "
        f"{comparison.common:,} both hold, which the verdicts above compare"]
    sections.append(_Section("Side by side", [METHODS, *whole], ("", "A", "B"), rows))
    return sections


def _listed(rows: list) -> list[str]:
    """The note of a table cut short at LISTED rows."""
    if len(rows) <= LISTED:
        return []
    return [f"the first {LISTED} of {len(rows):,} in deal order (--format json lists every one)"]


def _cards_played_bins(least: int, most: int) -> list[tuple[int, int]]:
    """Rows of the cards-played table from `least` (what every line plays: 0, or Golf's 16 talon cards)
    to `most`: the first few and the last few one by one, tens between."""
    bins = [(cards, cards) for cards in range(least, min(most, least + 5) + 1)]
    edges = list(range((least + 15) // 10 * 10, most - 5, 10))
    for low, high in zip([least + 6, *(edge + 1 for edge in edges)], [*edges, most - 5]):
        if low <= high:
            bins.append((low, high))
    bins += [(cards, cards) for cards in range(max(most - 4, least + 6), most + 1)]
    return bins


def _number(value, digits: int = 1) -> str:
    """Thousands separators; ints stay whole, floats get `digits` decimals, None is '-'."""
    if value is None:
        return "-"
    return f"{value:,}" if isinstance(value, int) else f"{value:,.{digits}f}"


def _percent(n: int, total: int) -> str:
    return f"{100 * n / total:.2f}%" if total else "-"


def _count_percent(n: int, total: int) -> str:
    return f"{n:,} ({_percent(n, total)})"


def _proportion(proportion: Proportion | None) -> str:
    if proportion is None:
        return "- (no decided deals)"
    return f"{100 * proportion.fraction:.2f}% [{100 * proportion.low:.2f}%, {100 * proportion.high:.2f}%]"


def _setting(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{key}={item}" for key, item in value.items())
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):  # sessions
        return "; ".join(_setting(item) for item in value)
    if isinstance(value, list):  # e.g. the deals asked for: a run of random numbers can list thousands
        shown = ", ".join(map(str, value[:SETTING_ITEMS]))
        return shown if len(value) <= SETTING_ITEMS else f"{shown}, ... ({len(value):,} in all)"
    if isinstance(value, float):
        return f"{value:,.1f}"
    return str(value)


def _text(sections: list[_Section]) -> str:
    """Fits a terminal of TEXT_WIDTH columns: notes wrap between words, tables are built to fit."""
    out = []
    for index, section in enumerate(sections):
        out += [section.title, ("=" if index == 0 else "-") * min(len(section.title), TEXT_WIDTH)]
        for line in section.lines:
            out += textwrap.wrap(line, TEXT_WIDTH, subsequent_indent="  ", break_long_words=False,
                                 break_on_hyphens=False)
        if section.rows:
            widths = [max(map(len, column)) for column in zip(section.headers, *section.rows)]
            last = len(widths) - 1
            if not section.right_aligned(last):  # a long text column wraps within what is left
                widths[last] = max(min(widths[last], TEXT_WIDTH - sum(widths[:last]) - 2 * last), 8)
            for number, row in enumerate([section.headers, *section.rows]):
                pieces = textwrap.wrap(row[last], widths[last]) or [""] if not section.right_aligned(last) \
                    else [row[last]]
                for piece_number, piece in enumerate(pieces):
                    cells = [cell if piece_number == 0 else "" for cell in row[:last]] + [piece]
                    cells = [cell.rjust(width) if section.right_aligned(column) else cell.ljust(width)
                             for column, (cell, width) in enumerate(zip(cells, widths))]
                    out.append("  ".join(cells).rstrip())
                if number == 0:
                    out.append("  ".join("-" * width for width in widths))
        out.append("")
    return "\n".join(out).rstrip("\n")


def _markdown(sections: list[_Section]) -> str:
    out = []
    for index, section in enumerate(sections):
        out += [("# " if index == 0 else "## ") + section.title, ""]
        if section.lines:
            out += [f"- {line}" for line in section.lines] + [""]
        if section.rows:
            out.append(_markdown_row(section.headers))
            out.append("|" + "|".join("---:" if section.right_aligned(column) else ":---"
                                      for column in range(len(section.headers))) + "|")
            out += [_markdown_row(row) for row in section.rows]
            out.append("")
    return "\n".join(out).rstrip("\n")


def _markdown_row(cells) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"
