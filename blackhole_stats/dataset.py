"""A run directory: a Parquet dataset with one file per finished chunk, plus `_manifest.json`.

Readers never need this package: `pandas.read_parquet(DIR)`, `pyarrow.dataset`
and DuckDB or polars on `DIR/*.parquet` read it as it is. That is why the side
files start with `_`, files being written start with `.` and end in `.tmp`
(pyarrow's dataset discovery skips both prefixes, `*.parquet` matches neither),
and why each chunk is written under such a name and renamed into place only
when complete.
"""
from __future__ import annotations

import fcntl
import json
import os
from contextlib import contextmanager
from typing import Iterator, Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq
from pyarrow import fs as pafs

from . import __version__
from .dealing import GameNumber
from .deals import DealSet, DealSpecError
from .solver import OUTCOMES

SCHEMA = pa.schema([
    pa.field("deal", pa.decimal128(38, 0), nullable=False),
    pa.field("ms", pa.bool_(), nullable=False),
    pa.field("outcome", pa.dictionary(pa.int8(), pa.string()), nullable=False),
    pa.field("iterations", pa.int64(), nullable=False),
    pa.field("cards_played", pa.int8()),  # null: unsolved, most-played search out of --max-iters
    pa.field("solution", pa.string()),
    pa.field("seconds", pa.float64(), nullable=False),
])
"""One row per deal; the names and types are an interface (see README)."""

MANIFEST_NAME = "_manifest.json"
LOG_NAME = "_run.log"
PART_PREFIX = "part-"
PART_SUFFIX = ".parquet"
TEMP_PREFIX, TEMP_SUFFIX = ".", ".tmp"
"""Files being written: hidden from pyarrow's discovery and from `*.parquet` globs."""

_OUTCOME_VALUES = pa.array(OUTCOMES, pa.string())


class DatasetError(ValueError):
    """A run directory that cannot be used as asked; the message says why and what to do."""


def normalize(out: str) -> str:
    """Local paths become absolute (workers may run elsewhere); URLs stay as they are."""
    return out if "://" in out else os.path.abspath(out)


def filesystem(out: str) -> tuple[pafs.FileSystem, str]:
    """pyarrow's own filesystems (local, s3://, gs://, hdfs://), else any fsspec URL."""
    if "://" not in out:
        return pafs.LocalFileSystem(), os.path.abspath(out)
    try:
        return pafs.FileSystem.from_uri(out)
    except pa.ArrowInvalid:
        try:
            import fsspec
        except ImportError:
            raise DatasetError(f"unknown URL scheme in {out!r} (install fsspec for more)") from None
        fs, path = fsspec.core.url_to_fs(out)
        return pafs.PyFileSystem(pafs.FSSpecHandler(fs)), path


def local_path(out: str) -> str | None:
    """The directory on this machine's disk, or None for remote URLs."""
    fs, root = filesystem(out)
    return root if isinstance(fs, pafs.LocalFileSystem) else None


def part_name(deals: DealSet) -> str:
    """`part-<first>-<last>-<count>.parquet`: unique, since no deal is ever written twice."""
    (first_ms, first, _), (last_ms, _, last) = deals.runs[0], deals.runs[-1]
    first_game, last_game = GameNumber(first, first_ms), GameNumber(last, last_ms)
    return f"{PART_PREFIX}{first_game}-{last_game}-{deals.count}{PART_SUFFIX}"


def write_part(out: str, deals: DealSet, columns: dict[str, Sequence]) -> str:
    """Write one chunk (`outcome` given as indexes into OUTCOMES); readers see all of it or nothing."""
    arrays = [pa.DictionaryArray.from_arrays(pa.array(columns[field.name], pa.int8()), _OUTCOME_VALUES)
              if field.name == "outcome" else pa.array(columns[field.name], field.type)
              for field in SCHEMA]
    table = pa.Table.from_arrays(arrays, schema=SCHEMA)
    fs, root = filesystem(out)
    name = part_name(deals)
    temp = f"{root}/{TEMP_PREFIX}{name}{TEMP_SUFFIX}"
    pq.write_table(table, temp, filesystem=fs, compression="zstd")
    fs.move(temp, f"{root}/{name}")
    return name


def part_paths(out: str) -> list[str]:
    """The finished chunk files, sorted by name."""
    fs, root = filesystem(out)
    infos = fs.get_file_info(pafs.FileSelector(root, allow_not_found=True))
    return sorted(info.path for info in infos if info.type == pafs.FileType.File
                  and info.base_name.startswith(PART_PREFIX) and info.base_name.endswith(PART_SUFFIX))


def remove_temp_files(out: str) -> int:
    """Delete what killed writers left behind; returns how many."""
    fs, root = filesystem(out)
    stale = [info.path for info in fs.get_file_info(pafs.FileSelector(root, allow_not_found=True))
             if info.base_name.startswith(TEMP_PREFIX) and info.base_name.endswith(TEMP_SUFFIX)]
    for path in stale:
        fs.delete_file(path)
    return len(stale)


def read_done(out: str) -> DealSet:
    """The deals that finished chunk files hold."""
    paths = part_paths(out)
    if not paths:
        return DealSet()
    fs, _ = filesystem(out)
    try:
        table = pads.dataset(paths, schema=SCHEMA, filesystem=fs).to_table(columns=["deal", "ms"])
    except pa.ArrowException as error:
        raise DatasetError(f"cannot read the chunk files in {out}: {error}") from None
    numbers = pc.cast(table["deal"], pa.string()).to_pylist()  # faster than Decimal objects
    return DealSet.from_runs((ms, int(number), int(number))
                             for number, ms in zip(numbers, table["ms"].to_pylist()))


def read_manifest(out: str) -> dict | None:
    """The manifest, or None if `out` holds no run."""
    fs, root = filesystem(out)
    try:
        with fs.open_input_stream(f"{root}/{MANIFEST_NAME}") as stream:
            return json.loads(stream.read())
    except (FileNotFoundError, NotADirectoryError):
        return None
    except ValueError as error:  # not JSON, not UTF-8
        raise DatasetError(f"{root}/{MANIFEST_NAME} is damaged: {error}") from None


def write_manifest(out: str, manifest: dict) -> None:
    """Replace the manifest atomically (temporary file, then rename)."""
    fs, root = filesystem(out)
    temp = f"{root}/{TEMP_PREFIX}{MANIFEST_NAME}{TEMP_SUFFIX}"
    with fs.open_output_stream(temp) as stream:
        stream.write(json.dumps(manifest, indent=2).encode() + b"\n")
    fs.move(temp, f"{root}/{MANIFEST_NAME}")


def expected_deals(manifest: dict) -> DealSet:
    """Every deal the run was asked for, over all its sessions."""
    try:
        return DealSet.parse(manifest["deals"])
    except (KeyError, TypeError, DealSpecError) as error:
        raise DatasetError(f"the manifest's list of deals is damaged: {error!r}") from None


def open_run(out: str, deals: DealSet | None, search: str, max_iters: int | None) -> tuple[dict, DealSet]:
    """The manifest to continue with and the deals to aim for (`None`: the manifest's).

    A new run needs an absent or empty directory. An existing one takes more
    deals (the manifest records the union) only with the same settings.
    """
    settings = {"version": __version__, "search": search, "max_iters": max_iters}  # they change results
    manifest = read_manifest(out)
    if manifest is None:
        if deals is None:
            raise DatasetError(f"there is no run to resume in {out}: give --range or --deals")
        fs, root = filesystem(out)
        info = fs.get_file_info(root)
        if info.type == pafs.FileType.File:
            raise DatasetError(f"{out} is a file, not a run directory")
        if info.type == pafs.FileType.Directory and fs.get_file_info(pafs.FileSelector(root)):
            raise DatasetError(f"{out} is not empty and holds no run: choose a new or empty directory")
        fs.create_dir(root)
        manifest = {"tool": "blackhole-stats", **settings, "deals": []}
    for key, value in settings.items():
        if manifest.get(key) != value:
            raise DatasetError(f"{out} holds a run with {key}={manifest.get(key)!r}, not {value!r}: "
                               "use the same settings to add to it, or another --out")
    everything = expected_deals(manifest)
    requested = everything if deals is None else deals
    everything = everything | requested
    manifest["deals"] = everything.specs()
    manifest["total_deals"] = everything.count
    return manifest, requested


@contextmanager
def lock(out: str) -> Iterator[None]:
    """Refuse a second run writing into the same local directory (it would write deals twice).

    The lock is on the directory itself, so no file is left behind; forked
    workers share it, so it also holds while orphaned workers still write.
    """
    path = local_path(out)
    if path is None:
        yield
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DatasetError(f"another run is writing to {out} "
                               "(or its worker processes are still alive)") from None
        yield
    finally:
        os.close(fd)
