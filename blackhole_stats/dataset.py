"""A run directory: a Parquet dataset of one file per finished chunk, its bookkeeping beside it.

`run --out DIR` puts nothing but finished chunk files into DIR, so that every
reader takes DIR as it is: `pandas.read_parquet(DIR)`, `pyarrow.dataset.dataset(DIR)`,
DuckDB's `read_parquet('DIR')` and `polars.read_parquet(DIR)`. No name keeps a
file out of all four readers' way (polars reads every non-empty file under DIR,
subfolders and `_` or `.` names too; see `_readers_of`), so the run's manifest,
log, lock and files being written live beside DIR, in `DIR.run/`; a chunk is
written there under a temporary name and renamed into DIR only when complete.

Results format 2 (`SCHEMA`) stores `deal` as int64; 0.1.0 wrote format 1
(decimal128 `deal`) and kept `_manifest.json` and `_run.log` inside DIR. Both
are still read; `open_run` moves the side files out and rewrites the chunks.

This module owns the directory: where it may live (`locate`, `RunPaths`), what
is in it (`list_run`), the manifest (`read_manifest`, `open_run`, `Session`),
the chunk files and their schema, and reading exact game numbers from them
(`game_numbers`). Everything it refuses is a `DatasetError` with one line.
"""
from __future__ import annotations

import contextlib
import copy
import errno
import functools
import json
import math
import os
import posixpath
import re
import shlex
import stat
import sys
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from typing import Callable, Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyarrow import fs as pafs

from . import __version__, _testhooks
from .arguments import is_seconds, is_whole_number
from .dealing import MAX_DIGITS, GameNumber, float_exact_below, rounded_float
from .deals import DealSet, DealSpecError
from .difficulty import SCALES, TAGS
from .games import BLACK_HOLE, DEFAULT_GAME, GAMES as ALL_GAMES, Game, UnknownGameError, game_by_key
from .quoting import QUOTE_LIMIT, quoted
from .solver import MAX_ITERS, OUTCOMES, SEARCHES, check_search, iterations_revision

GAMES = tuple(game.key for game in ALL_GAMES)
"""The games a row can be of, as the `game` column spells them: every chunk's dictionary holds all of
them in this order (a new game goes last), so pandas reads `game` of any two runs of this version as
the same Categorical, and concatenating datasets of different games keeps each row's game."""
INT64_END = 2**63
"""Game numbers from here up do not fit `deal`: `deal_exact` holds them."""

SCHEMA = pa.schema([
    pa.field("game", pa.dictionary(pa.int8(), pa.string()), nullable=False),  # a key of GAMES
    pa.field("deal", pa.int64()),  # null only for numbers of 2^63 or more
    pa.field("ms", pa.bool_(), nullable=False),
    pa.field("outcome", pa.dictionary(pa.int8(), pa.string()), nullable=False),
    pa.field("iterations", pa.int64(), nullable=False),
    pa.field("cards_played", pa.int8()),  # null: unsolved, most-played search out of --max-iters
    pa.field("solution", pa.string()),
    pa.field("seconds", pa.float64(), nullable=False),
    pa.field("deal_exact", pa.string()),  # the number in decimal, only where deal is null
])
"""One row per deal (results format 2); the names and types are an interface (see README).

`deal` is int64 because that is what pandas, polars and DuckDB compare, divide,
sort, group and plot as integers at integer speed, and every ordinary range
fits. PySolFC's random seeds reach 10^20: such a number leaves `deal` null and
is spelt exactly in `deal_exact`, a column that costs next to nothing where it
is all null, as it is in ordinary datasets."""
FORMAT_1_SCHEMA = pa.schema([
    pa.field("deal", pa.decimal128(38, 0), nullable=False),
    *(field for field in SCHEMA if field.name not in ("game", "deal", "deal_exact")),
])
"""What 0.1.0 wrote: `deal` exact but decimal (pandas reads Python Decimal objects), no `game`, no `deal_exact`."""
DIFFICULTY_FIELDS = [
    pa.field("difficulty", pa.float64()),  # the trap score (difficulty.py); null unless solved
    pa.field("tag", pa.dictionary(pa.int8(), pa.string())),  # its tag on the run's scale; null unless solved
]
"""Columns only runs made with `--difficulty` have (after SCHEMA's): a run either has them in every
chunk or in none (the manifest's `difficulty_scale` says which), so every reader sees one schema,
and datasets without them are format 2 as they always were."""
DIFFICULTY_SCHEMA = pa.schema([*SCHEMA, *DIFFICULTY_FIELDS])
SCHEMAS = {1: FORMAT_1_SCHEMA, 2: SCHEMA}
ROW_FIELDS = ("deal", "ms", "outcome", "iterations", "cards_played", "solution", "seconds")
"""What `write_part` takes for each deal; it derives `game` and `deal_exact` itself."""

RESULTS_FORMAT = 2
"""What a row holds for a deal and settings: the schema and the verdicts.

A run is resumed or extended by any version that writes the same format, so
raise this only when a new version would write rows of another shape or
meaning for the same deal, search and max_iters; a change in how one game's
search counts its iterations is the manifest's `iterations_revision` instead
(see `solver.ITERATIONS_REVISIONS`). `open_run` upgrades runs of format 1."""
_FORMAT_OF_VERSION = {"0.1.0": 1}
"""Manifests from before `results_format` was recorded name only the tool version."""

TOOL = "blackhole-stats"
SIDE_SUFFIX = ".run"
"""DIR's bookkeeping lives in the folder DIR + SIDE_SUFFIX beside it."""
MANIFEST_NAME = "manifest.json"
LOG_NAME = "run.log"
OLD_MANIFEST_NAME, OLD_LOG_NAME = "_manifest.json", "_run.log"
"""Where 0.1.0 kept them: inside DIR, where polars then refuses DIR."""
LOCK_NAME = "_run.lock"
"""Only where the OS cannot lock a directory (Windows): the file in DIR (and in its side folder) whose
first byte is locked instead. It stays empty, and no reader reads an empty file whose name starts with `_`."""
PART_PREFIX = "part-"
PART_SUFFIX = ".parquet"
TEMP_PREFIX, TEMP_SUFFIX = ".", ".tmp"
"""Files being written, in the side folder (0.1.0 wrote them in DIR, where readers skipped the prefix)."""
_PART_NAME = r"part-(?:ms)?\d+-(?:ms)?\d+-\d+\.parquet"
_PART = re.compile(_PART_NAME)
_TEMP = re.compile(re.escape(TEMP_PREFIX) + f"(?:_?{re.escape(MANIFEST_NAME)}|{_PART_NAME})" + re.escape(TEMP_SUFFIX))
"""Our own unfinished files, by name: only these are ever deleted or ignored."""
_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://(.*)", re.DOTALL)
GCS_RETRY_SECONDS = 15
"""How long pyarrow's Google Cloud Storage client retries a call before it fails. Its own default is
minutes, during which a command that cannot reach the storage ignores Ctrl-C (a signal waits for the
call to return); `?retry_limit_seconds=N` in a gs:// URL sets another limit."""
_DIGITS = re.compile(r"[0-9]+")
_WHOLE_FLOAT_TEXT = re.compile(r"([0-9]+)\.0*")
"""How pandas writes a float column of whole numbers to CSV: `1.0`."""

_OUTCOME_VALUES = pa.array(OUTCOMES, pa.string())
_TAG_VALUES = pa.array(TAGS, pa.string())
_GAME_VALUES = pa.array(GAMES, pa.string())


DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})
"""OSError numbers that mean "free some space, then resume"."""
READ_ONLY = frozenset({errno.EROFS})
"""OSError numbers that mean "make it writable, then resume"."""


class DatasetError(ValueError):
    """A dataset or run directory that cannot be used as asked; the message names it and says why."""


# ------------------------------------------------------------------ where a run can live
def path_text(out: str | os.PathLike) -> str:
    """A dataset path given as text or a path object, as text; a local one starting with `~` in the home
    folder, as pandas and polars read it (a run wrote into a folder named `~` beside them)."""
    out = os.fspath(out)
    if not isinstance(out, str):
        raise TypeError(f"a dataset path is text or a path object, not {type(out).__name__}")
    return out if "://" in out else os.path.expanduser(out)


def filesystem(out: str | os.PathLike) -> tuple[pafs.FileSystem, str]:
    """pyarrow's own filesystems (local, file://, s3://, gs://, hdfs://), else a URL fsspec knows.

    Only well-formed URLs: fsspec reads `a://` or `://` as the local `./a:`.
    """
    out = path_text(out)
    if "://" not in out:
        return pafs.LocalFileSystem(), os.path.abspath(out)
    match = _URL.fullmatch(out)
    if match is None:
        raise DatasetError(f"{out!r} is neither a path nor a URL (scheme://location)")
    scheme, location = match.groups()
    if not location:
        raise DatasetError(f"the URL {out!r} names no location (expected {scheme}://LOCATION)")
    uri = out
    if scheme.lower() in ("gs", "gcs") and "retry_limit_seconds=" not in out:
        uri = f"{out}{'&' if '?' in out else '?'}retry_limit_seconds={GCS_RETRY_SECONDS}"
    try:
        return pafs.FileSystem.from_uri(uri)
    except pa.ArrowInvalid as error:
        if "Unrecognized filesystem type" not in str(error):  # pyarrow's scheme, a bad URL
            raise DatasetError(f"bad URL {out!r}: {first_line(error)}") from None
    except OSError as error:  # e.g. s3:// cannot resolve the bucket's region
        raise DatasetError(f"cannot reach {out}: {first_line(error)}") from None
    except ImportError as error:  # a scheme pyarrow hands to a package that is not installed
        raise DatasetError(f"cannot use {out}: {first_line(error)}") from None
    try:
        import fsspec
    except ImportError:
        raise DatasetError(f"unknown URL scheme {scheme!r} in {out!r} (install fsspec for more)") from None
    if scheme.lower() not in fsspec.available_protocols():
        raise DatasetError(f"unknown URL scheme {scheme!r} in {out!r}")
    with _finalizers_silenced():  # the half-made file system a failure's traceback holds goes in here
        try:
            fs, path = fsspec.core.url_to_fs(out)
        except Exception as error:  # noqa: BLE001 - a protocol's own constructor: a package missing, a
            problem = first_line(error)  # host or option not given
        else:
            return pafs.PyFileSystem(_FSSpecCalls(fs)), path
    raise DatasetError(f"cannot use {out}: {problem}")


def _as_os_error(call):
    """`call`, failing with OSError where it failed otherwise (see _FSSpecCalls)."""
    @functools.wraps(call)
    def calling(*args, **kwargs):
        try:
            return call(*args, **kwargs)
        except OSError:
            raise
        except Exception as error:  # noqa: BLE001 - see _FSSpecCalls
            raise OSError(f"{type(error).__name__}: {first_line(error)}") from error
    return calling


class _FSSpecCalls(pafs.FSSpecHandler):
    """An fsspec file system whose calls, and the files it opens, fail with OSError as pyarrow's own
    file systems' do, so that every caller's one-line handling covers them: fsspec passes on what
    its protocol's library raises (ftplib.error_perm from a server that refuses a folder or a file,
    EOFError from one that hangs up). The file system itself stays as fsspec made it."""

    def open_input_stream(self, path):
        if not self.fs.isfile(path):
            raise FileNotFoundError(path)
        return pa.PythonFile(_FileCalls(self.fs.open(path, mode="rb")), mode="r")

    open_input_file = open_input_stream

    def open_output_stream(self, path, metadata):
        return pa.PythonFile(_FileCalls(self.fs.open(path, mode="wb")), mode="w")

    def open_append_stream(self, path, metadata):
        return pa.PythonFile(_FileCalls(self.fs.open(path, mode="ab")), mode="w")


for _name in ("copy_file", "create_dir", "delete_dir", "delete_dir_contents", "delete_file",
              "delete_root_dir_contents", "get_file_info", "get_file_info_selector", "move",
              "open_append_stream", "open_input_file", "open_input_stream", "open_output_stream"):
    setattr(_FSSpecCalls, _name, _as_os_error(getattr(_FSSpecCalls, _name)))


class _FileCalls:
    """A file an fsspec file system opened, its methods failing with OSError (see _FSSpecCalls)."""

    def __init__(self, file) -> None:
        self.file = file

    def __getattr__(self, name: str):
        value = getattr(self.file, name)
        return _as_os_error(value) if callable(value) else value


_FINALIZERS_LOCK = threading.Lock()


@contextmanager
def _finalizers_silenced() -> Iterator[None]:
    """Errors that fsspec's own code raises where Python cannot raise them (a `__del__`) are dropped
    meanwhile: its FTP file system, its constructor failed, fails again in `__del__`, and Python
    prints that as a traceback. Every other such error goes to the hook in place; one thread at a
    time, so that no thread puts back another's hook."""
    with _FINALIZERS_LOCK:
        previous = sys.unraisablehook

        def hook(unraisable) -> None:
            if not (getattr(unraisable.object, "__module__", None) or "").startswith("fsspec."):
                previous(unraisable)

        sys.unraisablehook = hook
        try:
            yield
        finally:
            if sys.unraisablehook is hook:  # else someone installed a hook meanwhile: theirs stays
                sys.unraisablehook = previous


def locate(out: str) -> str:
    """`out` normalized (local paths absolute: workers may run elsewhere; URLs as given).

    The one check of `run --out`, `verify DIR` and `report DATASET`, so that
    all three accept and refuse the same forms: control characters, malformed or unknown URLs,
    storage that lives in this process only, names the OS refuses, paths
    under a file, and things that are neither directories nor files.
    """
    out = path_text(out)
    if not out:
        raise DatasetError("the dataset path is empty")
    if any(ord(character) < 32 for character in out):  # a newline would split the one-line error too
        raise DatasetError(f"the dataset path {quoted(out)} contains a control character")
    try:
        out.encode()
    except UnicodeEncodeError:  # bytes the file system name holds that are no text (a shell's $'\xff')
        raise DatasetError(f"the dataset path {quoted(out)} is not valid UTF-8") from None
    fs, root = filesystem(out)
    try:
        root.encode()
    except UnicodeEncodeError:  # a relative path, in a working directory whose name is not
        raise DatasetError(f"the working directory's name is not valid UTF-8, so neither is the dataset path "
                           f"{root!r}: run the command from another directory") from None
    if _lives_in_this_process(fs):
        raise DatasetError(f"{out} lives in this process only: nothing would persist; "
                           "give a directory or a URL of lasting storage")
    if isinstance(fs, pafs.LocalFileSystem):
        _check_local(root)
    else:
        try:  # once here, so that a URL's file system that fails on its own terms is one line
            fs.get_file_info(root)
        except Exception as error:  # noqa: BLE001 - fsspec's implementations raise what they like
            raise DatasetError(f"cannot use {out}: {first_line(error)}") from None
    return out if "://" in out else root


def _lives_in_this_process(fs: pafs.FileSystem) -> bool:
    protocols = getattr(getattr(getattr(fs, "handler", None), "fs", None), "protocol", ())
    return fs.type_name == "mock" or "memory" in ((protocols,) if isinstance(protocols, str) else protocols)


def _check_local(path: str) -> None:
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return  # `run` creates it; verify and report say there is nothing there
    except NotADirectoryError:
        blocker = next(parent for parent in _parents(path) if os.path.exists(parent))
        raise DatasetError(f"{path}: {blocker} is not a directory") from None
    except OSError as error:  # a name too long, a symlink loop, no permission
        shown = path if len(path) <= QUOTE_LIMIT else quoted(path)  # a 5000-character name stays one short line
        raise DatasetError(f"cannot use {shown}: {_os_problem(error)}") from None
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        raise DatasetError(f"{path} is neither a directory nor a regular file")


def _parents(path: str) -> Iterator[str]:
    while (parent := os.path.dirname(path)) != path:
        yield parent
        path = parent


def run_behind_link(out: str) -> str:
    """`out`, or the run directory it links to, for the commands that read a run (report, export, verify):
    a link to a run (`latest -> runs/x`) has no manifest beside it, so they read the folder as no run's
    (no deal said missing; verify: "there is no run"), where the run's manifest, lock and unfinished files
    are beside its real name. `run` keeps the name it is given: a run made under a link's name keeps them
    beside the link, and is read by that name."""
    root = local_path(out)
    if root is None or not os.path.islink(root.rstrip(os.sep)) or read_manifest(out) is not None:
        return out
    real = os.path.realpath(root)
    return locate(real) if os.path.isdir(real + SIDE_SUFFIX) else out  # (checked as the name given was)


def local_path(out: str) -> str | None:
    """The directory on this machine's disk, or None for remote URLs."""
    fs, root = filesystem(out)
    return root if isinstance(fs, pafs.LocalFileSystem) else None


@dataclass(frozen=True)
class RunPaths:
    """Where a run's files are: the dataset DIR (`root`) and its bookkeeping beside it (`side`)."""

    fs: pafs.FileSystem
    root: str
    side: str | None
    """DIR + SIDE_SUFFIX; None where DIR has no parent to hold it (a filesystem or bucket root)."""

    @classmethod
    def of(cls, out: str) -> RunPaths:
        fs, root = filesystem(out)
        local = isinstance(fs, pafs.LocalFileSystem)  # an absolute OS path; else a "bucket/key" path
        root = root if local else root.rstrip("/") or root
        parent = (os.path if local else posixpath).dirname(root)
        return cls(fs, root, None if parent in ("", root) else root + SIDE_SUFFIX)

    def beside(self, name: str) -> str:
        """A file of the side folder."""
        return f"{self._side_folder()}/{name}"

    def make_side(self) -> None:
        """Create the side folder if need be (OSError if it cannot be)."""
        self.fs.create_dir(self._side_folder())

    def _side_folder(self) -> str:
        if self.side is None:
            raise DatasetError(f"{self.root} is a filesystem or bucket root: a run keeps its bookkeeping "
                               "beside its directory, so give a directory below it")
        return self.side

    def inside(self, name: str) -> str:
        return f"{self.root}/{name}"

    def manifests(self) -> list[str]:
        """Where a manifest may be, today's place first, then 0.1.0's (inside DIR)."""
        return ([self.beside(MANIFEST_NAME)] if self.side else []) + [self.inside(OLD_MANIFEST_NAME)]


def log_path(out: str) -> str | None:
    """The run's log file on this machine (`DIR.run/run.log`), or None for a remote run."""
    paths = RunPaths.of(out)
    return paths.beside(LOG_NAME) if isinstance(paths.fs, pafs.LocalFileSystem) else None


# ------------------------------------------------------------------ what a run directory holds
@dataclass
class RunFiles:
    """A run directory's entries: chunk files, our unfinished files, 0.1.0's side files, and strays."""

    parts: list[str] = field(default_factory=list)
    """Full paths of the finished chunk files, sorted by name."""
    temporary: list[str] = field(default_factory=list)
    """Full paths of files a killed writer left (`.part-....parquet.tmp`, `.manifest.json.tmp`), beside
    DIR or, from 0.1.0, in it."""
    old_layout: list[str] = field(default_factory=list)
    """Names of 0.1.0's side files inside DIR (`_manifest.json`, `_run.log`): `run` moves them beside DIR."""
    strays: list[tuple[str, str]] = field(default_factory=list)
    """(name, which readers of DIR read it) for every other entry of DIR that a reader picks up."""
    taken: list[str] = field(default_factory=list)
    """Names of the other entries that no reader picks up but a chunk file would have (an empty folder
    `part-3-3-1.parquet`): the run's rename of that chunk's file onto it would fail."""


def list_run(out: str) -> RunFiles:
    """Sort every entry of DIR (not recursive: a subdirectory is one stray) and our files beside it."""
    paths = RunPaths.of(out)
    files = RunFiles()
    for info in sorted(folder_entries(paths.fs, paths.root, out), key=lambda info: info.base_name):
        name, is_file = info.base_name, info.type == pafs.FileType.File
        if is_file and name == LOCK_NAME:
            continue
        if is_file and name in (OLD_MANIFEST_NAME, OLD_LOG_NAME):
            files.old_layout.append(name)
        elif is_file and _PART.fullmatch(name):
            files.parts.append(info.path)
        elif _TEMP.fullmatch(name) and info.type != pafs.FileType.Directory:  # a FIFO too: a write would wait
            files.temporary.append(info.path)
        elif info.type == pafs.FileType.Unknown:  # a FIFO, a socket: the readers pass them by, but DuckDB
            if name.endswith(".parquet"):            # opens what its pattern matches
                files.strays.append((name, "DuckDB"))
        else:
            readers = _readers_of(name, is_file, info.size if is_file else folder_entries(paths.fs, info.path, out))
            if readers:
                files.strays.append((name + ("" if is_file else "/"), readers))
            elif _PART.fullmatch(name):
                files.taken.append(name)
    files.strays = sorted(files.strays + _dangling_links(local_path(out)))
    if paths.side is not None:
        files.temporary += sorted(info.path for info in folder_entries(paths.fs, paths.side, out)
                                  if info.type != pafs.FileType.Directory and _TEMP.fullmatch(info.base_name))
    return files


def _dangling_links(root: str | None) -> list[tuple[str, str]]:
    """The links in the local DIR `root` to nothing, which pyarrow does not list and polars fails on."""
    if root is None or not os.path.isdir(root):
        return []
    with os.scandir(root) as entries:
        return [(entry.name, "polars (a link to nothing, which it fails on)") for entry in entries
                if entry.is_symlink() and not os.path.exists(entry.path)]


def _readers_of(name: str, is_file: bool, content) -> str:
    """Which of README's readers of DIR pick up an entry of it (`content`: a file's size, a folder's entries).

    Measured with pandas 3.1, pyarrow 26, DuckDB 2.0 and polars 2.1 on the bare
    DIR: pandas and pyarrow read every file under DIR, subfolders too, except
    where a name on the way starts with `.` or `_` (and fail on what is not
    Parquet, even an empty file); DuckDB reads every `*.parquet` file under DIR,
    whatever its name; polars every non-empty file under DIR, whatever its name,
    and refuses the directory if their extensions differ.
    """
    readers = []
    if pandas_takes(name) and (is_file or content):
        readers.append("pandas and pyarrow")
    if not is_file or name.endswith(".parquet"):
        if is_file or any(info.base_name.endswith(".parquet") or info.type != pafs.FileType.File
                          for info in content):
            readers.append("DuckDB")
    if content:  # a non-empty file, or a folder with something in it
        readers.append("polars")
    return ", ".join(readers)


def folder_entries(fs: pafs.FileSystem, root: str, out: str, recursive: bool = False) -> list[pafs.FileInfo]:
    """What the folder `root` holds (none if it is absent), every name readable: pyarrow gives a name
    that is not UTF-8 as a UnicodeDecodeError when it is asked for, wherever that is."""
    try:
        found = fs.get_file_info(pafs.FileSelector(root, allow_not_found=True, recursive=recursive))
        for info in found:
            info.path
    except OSError as error:
        raise DatasetError(f"cannot list {out}: {_os_problem(error)}") from None
    except UnicodeDecodeError:
        raise DatasetError(f"{root} holds a name that is not UTF-8 text{_undecodable(root)}: rename it, or "
                           "move it out") from None
    return found


def _undecodable(root: str) -> str:
    """The first name under the local folder `root` that is not UTF-8, as its bytes, after a colon."""
    if not os.path.isdir(root):
        return ""
    for folder, folders, files in os.walk(os.fsencode(root)):
        for name in sorted(folders + files):
            try:
                name.decode("utf-8")
            except UnicodeDecodeError:
                return f" ({os.path.join(folder, name)!r})"
    return ""


def pandas_takes(path: str) -> bool:
    """Whether pandas and pyarrow take the file or folder at `path` (under DIR) for part of DIR, whatever
    it is called (see `_readers_of`): where no name on the way starts with `_` or `.`."""
    return not any(name.startswith(("_", ".")) for name in path.split("/"))


@dataclass(frozen=True)
class PandasReads:
    """Where pandas and pyarrow read a directory otherwise than `data_files` (paths under it): they read
    every file `pandas_takes`, and fail on the folder if one is not Parquet."""

    extra: tuple[str, ...] = ()
    """Parquet files under another name than `*.parquet` (a renamed copy of a part), which they read."""
    skipped: tuple[str, ...] = ()
    """`*.parquet` files under a name starting with `_` or `.`, or in such a folder, which they leave out."""


def data_files(out: str) -> tuple[pafs.FileSystem, str, list[str], PandasReads]:
    """The files a report reads, with the file system and the root they are under: `out` itself if it
    is a file, else every `*.parquet` file under DIR; and, from the same listing, where pandas and pyarrow
    read DIR otherwise.

    The files DuckDB reads from DIR (and polars, pandas and pyarrow too, when
    `verify` finds nothing else there), so the report counts what they count.
    """
    out = locate(out)
    fs, root = filesystem(out)
    kind = fs.get_file_info(root).type
    if kind == pafs.FileType.File:
        return fs, root, [root], PandasReads()
    if kind != pafs.FileType.Directory:
        raise DatasetError(f"{out}: no such file or directory")
    _refuse_loops(local_path(out))
    found = folder_entries(fs, root, out, recursive=True)
    paths = sorted(info.path for info in found
                   if info.type == pafs.FileType.File and info.base_name.endswith(".parquet"))
    if not paths:
        side = side_folder_problem(out)
        if side:
            raise DatasetError(side)
        why = ": a run is writing to it and has finished no chunk yet" if being_written(out) else (
            ": it holds only files a killed run left unfinished: resume the run" if unfinished_in(out) else "")
        raise DatasetError(f"{out}: no *.parquet files in this directory{why}")
    extra = []
    for info in found:
        if info.type == pafs.FileType.File and not info.base_name.endswith(".parquet") and \
                pandas_takes(posixpath.relpath(info.path, root)):
            if not _is_parquet(fs, info):  # they fail on the whole folder: no figures of theirs differ
                return fs, root, paths, PandasReads()
            extra.append(posixpath.relpath(info.path, root))
    return fs, root, paths, PandasReads(
        extra=tuple(sorted(extra)),
        skipped=tuple(name for name in (posixpath.relpath(path, root) for path in paths) if not pandas_takes(name)))


def _is_parquet(fs: pafs.FileSystem, info: pafs.FileInfo) -> bool:
    """Whether a file holds a Parquet footer pyarrow reads (its magic bytes alone: junk between them
    passed, on which pandas fails)."""
    try:
        pq.read_metadata(info.path, filesystem=fs)
    except (pa.ArrowException, OSError):  # no Parquet, or unreadable: no reader reads it either
        return False
    return True


def _refuse_loops(root: str | None) -> None:
    """DatasetError for a link under the local folder `root` to a folder it is in: the listing follows
    links, and two such links made it grow without end (`ln -s . again`)."""
    if root is None:
        return
    for folder, folders, _ in os.walk(root):  # (not into links)
        for name in folders:
            link = os.path.join(folder, name)
            if os.path.islink(link):
                target, here = os.path.realpath(link), os.path.realpath(folder)
                if os.path.commonpath([target, here]) == target:
                    raise DatasetError(f"{link} is a link to a folder it is in, which a listing of {root} would "
                                       "follow without end: move it away")


def enclosing_run(out: str, itself: bool = False) -> str | None:
    """The dataset that holds `out` below it (or, with `itself`, is `out`), if any, as a message names it:
    its readers read whatever is written there. That is a local run directory, with its manifest beside
    or, from 0.1.0, inside it; or a folder holding chunk files, as a run made under a link's name is by its
    real name (the manifest is beside the link)."""
    root = local_path(out)
    if root is None:
        return None
    folders = []  # as given and links resolved: a run's manifest is beside the name it was run under
    for path in dict.fromkeys((os.path.abspath(root), os.path.realpath(root))):
        folders += ([path] if itself else []) + list(_parents(path))
    for parent in dict.fromkeys(folders):
        if any(os.path.isfile(manifest) for manifest in (parent + SIDE_SUFFIX + os.sep + MANIFEST_NAME,
                                                          os.path.join(parent, OLD_MANIFEST_NAME))):
            return f"the dataset of the run {parent}"
    for parent in dict.fromkeys(folders):
        found = _run_by_its_entries(parent)
        if found is not None:
            return f"{parent}, {found}"
    return None


def _run_by_its_entries(folder: str) -> str | None:
    """What says a local folder is a run's DIR where no manifest beside it does (a run made under a link's
    name, named by its real path): it holds nothing but chunk files (and the run's own lock and unfinished
    files), the first named; or nothing at all while a run holds it. None otherwise, or where it cannot
    be listed: a home folder or /tmp holding a copied chunk file among others is no dataset."""
    chunks = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name == LOCK_NAME or _TEMP.fullmatch(entry.name):
                    continue
                if not (_PART.fullmatch(entry.name) and entry.is_file()):
                    return None  # the first other entry says enough (a folder of thousands)
                chunks.append(entry.name)
    except OSError:
        return None
    if chunks:
        return f"a run's dataset by its files ({min(chunks)}, ...)"
    return "the dataset a run is writing now" if _held_by_a_run(folder) else None


def _held_by_a_run(folder: str) -> bool:
    """Whether a run holds the lock of a local folder (DIR or its side folder) now."""
    try:
        with lock(folder, look=True):
            return False
    except RunBusy:
        return True
    except DatasetError:  # cannot be opened (Windows: no lock file there)
        return False


def inside_dataset(path: str, out: str) -> bool:
    """Whether the local `path` is the dataset directory `out` or lies within it (readers would read it)."""
    root = local_path(out)
    if root is None or not os.path.isdir(root):
        return False
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


# ------------------------------------------------------------------ rows and their formats
def results_format_of(schema: pa.Schema) -> int | None:
    """The results format whose chunk files have these columns and types (nullability aside), or None."""
    for number, wanted in (*SCHEMAS.items(), (2, DIFFICULTY_SCHEMA)):
        if schema.names == wanted.names and all(schema.field(f.name).type == f.type for f in wanted):
            return number
    return None


def has_difficulty(schema: pa.Schema) -> bool:
    """Whether a chunk file holds the difficulty columns (a `run --difficulty`)."""
    return schema.names == DIFFICULTY_SCHEMA.names


RUN_SETTINGS_KEY = b"blackhole_stats.run_settings"
"""A chunk file's Parquet key-value metadata: the settings of the run that solved its rows (JSON)."""


def run_settings(game: str, search: str, max_iters: int | None, iterations_revision: int,
                 difficulty_scale: str | None) -> dict:
    """What a chunk file records of its run: what its rows depend on."""
    return {"game": game, "search": search, "max_iters": max_iters, "iterations_revision": iterations_revision,
            "difficulty_scale": difficulty_scale}


def manifest_settings(manifest: dict) -> dict:
    return run_settings(run_game(manifest).key, manifest["search"], manifest["max_iters"],
                        manifest_iterations_revision(manifest), manifest.get("difficulty_scale"))


def recorded_settings(schema: pa.Schema) -> dict | None:
    """The settings of the run that solved a chunk file's rows (`run_settings`), None where it records
    none (files of earlier versions); ValueError where they are damaged."""
    raw = (schema.metadata or {}).get(RUN_SETTINGS_KEY)
    if raw is None:
        return None
    try:
        found = json.loads(raw)
        json.dumps(found)  # what its readers do with it: as deep as the parser took is too deep to write back
    except RecursionError:  # "[[[[..." nested past the parser's depth
        raise ValueError("run settings nested too deep") from None
    if not isinstance(found, dict):
        raise ValueError("run settings are no JSON object")
    return found


def settings_problem(schema: pa.Schema, manifest: dict) -> str | None:
    """Where a chunk file was solved with other settings than its run's (a file copied from another
    run): its rows would mix in without a word. Files of earlier versions record none: nothing to say."""
    try:
        found = recorded_settings(schema)
    except ValueError:
        return "has damaged run settings in its metadata"
    return None if found is None else settings_differ(found, manifest)


def check_new_part(out: str, name: str, manifest: dict) -> str | None:
    """What is wrong with a chunk file a worker wrote in this session, None if nothing; such a file is
    deleted. A worker of another build (a Dask worker's own install, from before the run's counting
    or from before files recorded settings) writes rows `settings_problem` would let in: a file of an
    earlier version records no settings, and its rows would mix two countings without a word.
    OSError or pyarrow's error where the file cannot be read back now: it is kept (a storage blip
    must not cost a good file)."""
    paths = RunPaths.of(out)
    path = paths.inside(name)
    try:
        found = recorded_settings(pq.read_schema(path, filesystem=paths.fs))
    except ValueError as error:  # settings that are no JSON object: damaged as written
        problem = f"records damaged run settings ({error})"
    else:
        problem = ("records no run settings" if found is None else settings_differ(found, manifest))
    if problem is None:
        return None
    with contextlib.suppress(FileNotFoundError):
        paths.fs.delete_file(path)
    return f"{name}, just written by a worker, {problem}: deleted (is every worker's blackhole-stats the run's?)"


def settings_differ(found: dict, manifest: dict) -> str | None:
    """`settings_problem` for the settings a file records (`recorded_settings`)."""
    wanted = manifest_settings(manifest)
    other = [key for key in wanted if found.get(key) != wanted[key]]
    if not other:
        return None
    theirs, ours = (", ".join(f"{key}={json.dumps(values.get(key))[:40]}" for key in other)
                    for values in (found, wanted))
    return f"was solved by a run of other settings ({theirs}; this run's: {ours})"


def difficulty_problem(schema: pa.Schema, scale: str | None) -> str | None:
    """What is wrong with a chunk file's difficulty columns for a run of difficulty `scale` (None: none)."""
    if has_difficulty(schema) == (scale is not None):
        return None
    return ("has difficulty columns, but the manifest records no difficulty scale" if scale is None else
            f"has no difficulty columns, but the run has difficulty scale {scale}")


def schema_problem(schema: pa.Schema) -> str | None:
    """How a chunk file's columns differ from SCHEMA (and from format 1's), or None if they are either."""
    if results_format_of(schema) is not None:
        return None
    expected = DIFFICULTY_SCHEMA if "difficulty" in schema.names else SCHEMA
    if schema.names != expected.names:
        return f"its columns are {', '.join(schema.names) or 'none'}, not {', '.join(expected.names)}"
    for wanted in expected:
        found = schema.field(wanted.name).type
        if found != wanted.type:
            return f"column {wanted.name} is {found}, not {wanted.type}"
    return None


def run_chunk(path: str, schema: pa.Schema) -> bool:
    """Whether a file is one `run` wrote: named like a chunk file, recording a run's settings. `report`
    reads any Parquet file, columns missing included (a notebook's, keeping our metadata through
    pyarrow), so it asks such a file only to be `named_as_held`: a chunk file whose `ms` became `mr` (one
    flipped bit of a column name) read as ordinary deals, other deals than the run's, with exit 0."""
    return bool(_PART.fullmatch(posixpath.basename(path))) and RUN_SETTINGS_KEY in (schema.metadata or {})


def named_as_held(path: str, held: DealSet) -> bool:
    """Whether a chunk file's name says the deals it holds (`deals_held`)."""
    return bool(held) and part_name(held) == posixpath.basename(path)


def game_numbers(deal: pa.Array | pa.ChunkedArray, deal_exact: pa.Array | pa.ChunkedArray | None = None,
                 written: Sequence | None = None) -> np.ndarray:
    """Exact game numbers from a `deal` column, with `deal_exact` where `deal` is null (format 2).

    The one reader of game numbers (report, verify, resuming): any integer
    type, format 1's decimal128, a notebook's whole floats (below 2^53, where
    floats are exact; 2^24 for float32) or decimals, a CSV's digit strings (or pandas' `1.0`).
    Returns int64 when every number fits, else Python ints (dtype object).
    DatasetError for anything that is not a whole number, quoting it as `written` (each row's deal as
    its table spells it, where `deal` holds what is left of it: report reads `ms5` as 5 and an ms flag).
    """
    deal = _one_chunk(deal)
    if deal_exact is not None:
        _check_exact_text(deal_exact.type)
    kind = deal.type
    if not (pa.types.is_integer(kind) or pa.types.is_decimal(kind) or pa.types.is_floating(kind)
            or pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind)):
        raise DatasetError(f"column deal is {kind}, not whole game numbers")
    if pa.types.is_floating(kind):
        _check_float_exact(deal)
    castable = _castable(deal)
    try:
        fitting = None if castable is None else pc.cast(castable, pa.int64())  # safe: no fractions, no overflow
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        fitting = None
    if fitting is not None and fitting.null_count == 0:
        return _positive(fitting.to_numpy(), written)
    numbers = (fitting.to_pylist() if fitting is not None
               else [_whole(value, row, value if written is None else written[row])
                     for row, value in enumerate(deal.to_pylist())])
    exact = _one_chunk(deal_exact).to_pylist() if deal_exact is not None else [None] * len(numbers)
    for row, (number, spelt) in enumerate(zip(numbers, exact)):
        if number is None:
            if spelt is None or not _DIGITS.fullmatch(spelt):
                raise DatasetError(f"row {row + 1} has no game number (deal is null"
                                   + (f", deal_exact is {spelt!r})" if spelt is not None else ")"))
            numbers[row] = _digits_number(spelt, row)
    if all(number < INT64_END for number in numbers):
        return _positive(np.array(numbers, dtype=np.int64), written)
    return _positive(np.array(numbers, dtype=object), written)


def _check_exact_text(kind: pa.DataType) -> None:
    """DatasetError unless a `deal_exact` column of this type holds text (or nothing): a game number past
    int64 in decimal digits, which a numeric column cannot hold exactly (a row's Decimal or int is read as
    `deal` is: `report.row_game_number`)."""
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind)):
        raise DatasetError(f"column deal_exact is {kind}, not text: it holds a game number's decimal digits "
                           "(read such a column as text: pandas dtype=str, polars schema_overrides)")


def two_numbers(deal: pa.Array | pa.ChunkedArray, deal_exact: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Which rows hold a value in both `deal` and `deal_exact` (blank text is none): two numbers for one
    deal, since format 2 puts a number in `deal_exact` only where `deal` is null."""
    spelt = pc.is_valid(deal_exact)
    if pa.types.is_string(deal_exact.type) or pa.types.is_large_string(deal_exact.type):
        spelt = pc.and_(spelt, pc.invert(pc.fill_null(pc.match_substring_regex(deal_exact, r"^\s*$"), True)))
    return pc.and_(pc.is_valid(deal), spelt).to_numpy(zero_copy_only=False)


def _positive(numbers: np.ndarray, written: Sequence | None = None) -> np.ndarray:
    """`numbers`, if every one is a game number (PySolFC's start at 1): a 0 or -5 in a CSV is no deal (named
    as `written`, where given: ms-3 was "game number -3")."""
    below = np.flatnonzero(numbers < 1)
    if len(below):
        row = below[0]
        number = int(numbers[row])
        spelt = str(number) if written is None else str(written[row]).strip()
        shown = number if spelt == str(number) else quoted(spelt)
        raise DatasetError(f"row {row + 1} has game number {shown}: game numbers start at 1")
    return numbers


def _one_chunk(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def _castable(deal: pa.Array) -> pa.Array | None:
    """What Arrow's cast to int64 may take: text deals trimmed if every one is (signed) digits, else
    None (Arrow would read '0x10' as 16), so that each goes through `_whole`; other types as they are."""
    if not (pa.types.is_string(deal.type) or pa.types.is_large_string(deal.type)):
        return deal
    if pc.all(pc.match_substring_regex(deal, r"^\s*-?[0-9]+\s*$")).as_py() is False:
        return None
    return pc.utf8_trim_whitespace(deal)


def _check_float_exact(deal: pa.Array) -> None:
    """Refuse floats too big to be sure of (float_exact_below): a report of one would name another deal."""
    limit = float_exact_below(deal.type.bit_width // 8)
    big = pc.greater_equal(pc.abs(deal.cast(pa.float64())), float(limit)).fill_null(False)
    if pc.any(big).as_py():
        row = pc.index(big, True).as_py()
        _float_too_big(row, deal[row].as_py(), limit)


def _float_too_big(row: int, value, limit: int) -> None:
    raise DatasetError(f"row {row + 1} has game number {value!r} as a float: {rounded_float(limit)}; keep deal as "
                       "integers or text")


def _whole(value, row: int, written) -> int | None:
    """A game number from one value that did not cast to int64 (too big, a string with spaces, or
    pandas' `1.0` for a float column written to CSV); errors quote it as `written`."""
    if value is None:
        return None
    if isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
        return _digits_number(value.strip(), row)
    if isinstance(value, str) and (whole := _WHOLE_FLOAT_TEXT.fullmatch(value.strip())):
        number = _digits_number(whole.group(1), row)
        if number >= float_exact_below():
            _float_too_big(row, written, float_exact_below())
        return number
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
        return int(value)
    shown = quoted(written) if isinstance(written, str) else repr(written)[:QUOTE_LIMIT]
    raise DatasetError(f"column deal holds {shown}, not a whole game number")


def _digits_number(digits: str, row: int) -> int:
    """The number a CSV's digits spell: more than MAX_DIGITS significant digits is refused (no deal has
    them: `deal` refuses them), where CPython would refuse the conversion itself with a traceback."""
    significant = digits.lstrip("0")
    if len(significant) > MAX_DIGITS:
        raise DatasetError(f"row {row + 1} has a game number of {len(significant):,} digits: more than {MAX_DIGITS}")
    return int(significant or "0")


def deals_held(numbers: np.ndarray, ms: np.ndarray) -> DealSet:
    """The deals that rows hold, from their game numbers (`game_numbers`) and ms flags; repeats merge."""
    if numbers.dtype != np.int64 or not len(numbers):
        return DealSet.from_runs((m, n, n) for n, m in zip(numbers.tolist(), np.asarray(ms).tolist()))
    order = np.lexsort((numbers, ms))  # by ms, then number: runs of consecutive numbers become one run each
    numbers, ms = numbers[order], np.asarray(ms, dtype=bool)[order]
    breaks = np.flatnonzero((np.diff(numbers) != 1) | (ms[1:] != ms[:-1])) + 1
    firsts, lasts = np.r_[0, breaks], np.r_[breaks - 1, len(numbers) - 1]
    return DealSet.from_runs(zip(ms[firsts].tolist(), numbers[firsts].tolist(), numbers[lasts].tolist()))


def _deal_columns(numbers: Sequence[int] | np.ndarray) -> tuple[pa.Array, pa.Array]:
    """`deal` and `deal_exact` for exact game numbers: each number in the one that can hold it."""
    if isinstance(numbers, np.ndarray) and numbers.dtype == np.int64:
        return pa.array(numbers, pa.int64()), pa.nulls(len(numbers), pa.string())
    fits = [number < INT64_END for number in numbers]
    return (pa.array([number if fit else None for number, fit in zip(numbers, fits)], pa.int64()),
            pa.array([None if fit else str(number) for number, fit in zip(numbers, fits)], pa.string()))


def games_of_rows(table: pa.Table) -> list[str]:
    """The games a chunk's rows are of, as stored (format 1, which has no `game`, is Black Hole's)."""
    if "game" not in table.column_names:
        return [BLACK_HOLE.key]
    return pc.unique(table["game"].combine_chunks().dictionary_decode()).to_pylist()


def shown_game(key: str | None) -> str:
    """A `game` value as messages show it: quoted and short (a damaged file may hold anything), null as null."""
    return "null" if key is None else quoted(str(key), limit=40)


def _game_column(rows: int, game: Game) -> pa.Array:
    index = np.full(rows, GAMES.index(game.key), np.int8)
    return pa.DictionaryArray.from_arrays(pa.array(index), _GAME_VALUES)


def upgrade_table(table: pa.Table) -> pa.Table:
    """Rows of results format 1 (any of its columns, `deal` among them) in format 2's form.

    `game` first, `deal` as int64 with `deal_exact` where a number does not fit,
    the other columns as they were; a whole format-1 chunk becomes a SCHEMA one.
    """
    deal, exact = _deal_columns(game_numbers(table["deal"]))
    columns = {"game": _game_column(table.num_rows, BLACK_HOLE), "deal": deal,  # 0.1.0 played Black Hole only
               **{name: table[name] for name in table.column_names if name != "deal"}, "deal_exact": exact}
    names = [name for name in SCHEMA.names if name in columns]
    return pa.Table.from_arrays([columns[name] for name in names],
                                schema=pa.schema([SCHEMA.field(name) for name in names]))


# ------------------------------------------------------------------ chunk files
def part_name(deals: DealSet) -> str:
    """`part-<first>-<last>-<count>.parquet`: unique, since no deal is ever written twice."""
    (first_ms, first, _), (last_ms, _, last) = deals.runs[0], deals.runs[-1]
    first_game, last_game = GameNumber(first, first_ms), GameNumber(last, last_ms)
    return f"{PART_PREFIX}{first_game}-{last_game}-{deals.count}{PART_SUFFIX}"


def write_part(out: str, deals: DealSet, columns: dict[str, Sequence], game: Game = DEFAULT_GAME,
               folders: Folders = (), settings: dict | None = None,
               wanted: Callable[[], bool] | None = None) -> str | None:
    """Write one chunk of deals of `game`; readers see all of it or nothing. Returns its name, or None
    if `wanted()`, asked once the file is written and just before it goes into DIR, says no: nothing
    is left behind.

    `folders`: the run's (`Session.folders`), checked before the chunk goes into DIR (RunMoved).
    `settings`: the run's (`run_settings`), kept in the file's metadata (`settings_problem`).

    `columns` maps each of ROW_FIELDS to the chunk's values: `deal` as Python
    ints (put in `deal` or `deal_exact` here, the one place that splits them),
    `outcome` as indexes into OUTCOMES; in a `--difficulty` run also
    `difficulty` (floats or None) and `tag` (indexes into TAGS or None).
    """
    deal, exact = _deal_columns(columns["deal"])
    arrays = {"game": _game_column(len(columns["deal"]), game), "deal": deal, "deal_exact": exact,
              "outcome": pa.DictionaryArray.from_arrays(pa.array(columns["outcome"], pa.int8()), _OUTCOME_VALUES)}
    schema = SCHEMA
    if "difficulty" in columns:
        schema = DIFFICULTY_SCHEMA
        arrays["tag"] = pa.DictionaryArray.from_arrays(pa.array(columns["tag"], pa.int8()), _TAG_VALUES)
    table = pa.Table.from_arrays([arrays[field.name] if field.name in arrays else
                                  pa.array(columns[field.name], field.type) for field in schema], schema=schema)
    if settings is not None:
        table = table.replace_schema_metadata({RUN_SETTINGS_KEY: json.dumps(settings, sort_keys=True)})
    name = part_name(deals)
    return name if _write_chunk_file(out, name, table, folders, wanted) else None


def _mark_opened(manifest: dict) -> None:
    """Give the manifest a new `opened_by`, as a run that solves or changes what the run asks for opens DIR:
    a chunk handed out before by another run (a Dask worker that outlived it) is then dropped
    (`run_mark_now`). A rerun with nothing to do leaves DIR as it was, and no chunk can be one of its
    deals' then (they are all in DIR)."""
    manifest["opened_by"] = uuid.uuid4().hex


def run_mark(manifest: dict) -> tuple[str | None, int]:
    """Which run last began solving or changed what DIR's run asks for: its `opened_by` (`_mark_opened`),
    and the sessions by then (a resume by an earlier build, which keeps opened_by as it was, adds one)."""
    sessions = manifest.get("sessions")
    return manifest.get("opened_by"), len(sessions) if isinstance(sessions, list) else 0


def run_mark_now(out: str) -> tuple[str | None, int]:
    """The manifest's `run_mark`, read alone: a chunk on a Dask cluster compares it with its run's to drop
    itself once a later run of DIR began (a resume, which may solve the same deals again; a --forget-missing
    that no longer asks for them; a new run in DIR started over). The rest goes unchecked: checking a
    scattered --deals list's manifest took 0.3 s, at every chunk's start and end.
    DatasetError where this process sees no manifest: no way to tell, and a Dask worker that cannot see
    DIR.run would put every chunk there."""
    paths = RunPaths.of(out)
    path = paths.beside(MANIFEST_NAME)
    raw = _manifest_bytes(paths, path)
    if raw is None:
        raise DatasetError(f"{path} is not there for this worker (a Dask worker must see the run's side folder "
                           "beside DIR at the same path on the same disk, a shared file system; or it was "
                           "deleted): the chunk was not written")
    try:
        manifest = json.loads(raw)
    except ValueError as error:  # (UnicodeDecodeError is one)
        raise DatasetError(f"{path} is damaged: {first_line(error)}") from None
    return run_mark(manifest) if isinstance(manifest, dict) else (None, 0)


def manifest_stamp(out: str) -> tuple[int, int] | None:
    """The manifest's modification time and size, None where they cannot be had: every write replaces the
    file, so a chunk reads `run_mark_now` again only once this changed (each chunk looks every second)."""
    paths = RunPaths.of(out)
    try:
        info = paths.fs.get_file_info(paths.beside(MANIFEST_NAME))
    except OSError:
        return None
    return None if info.type != pafs.FileType.File else (info.mtime_ns, info.size)


def _write_chunk_file(out: str, name: str, table: pa.Table, folders: Folders = (),
                      wanted: Callable[[], bool] | None = None) -> bool:
    """Write `table` beside DIR under a temporary name, then rename it into DIR as `name` (replacing it).

    Where DIR is on another device than DIR.run (a mount point, a link to another disk), a rename
    cannot cross: the temporary name is in DIR itself (hidden from pandas, pyarrow and DuckDB by its
    name; the next run removes one a killed writer left, as 0.1.0's). False, the file deleted, where
    `wanted()` says no before the rename.
    """
    paths = RunPaths.of(out)
    _ready_side(paths, folders)
    inside = _across_devices(paths, folders)
    temp = (paths.inside if inside else paths.beside)(f"{TEMP_PREFIX}{name}{TEMP_SUFFIX}")
    try:
        pq.write_table(table, temp, filesystem=paths.fs, compression="zstd", write_page_checksum=True)  # read_part
    except OSError as error:
        raise _naming(error, temp) from None
    _testhooks.pause("chunk-written")
    keep = False  # also where wanted() cannot tell (no manifest) and raises: the file goes
    try:
        keep = wanted is None or wanted()
    finally:
        if not keep:
            with contextlib.suppress(OSError):
                paths.fs.delete_file(temp)
    if not keep:
        return False
    try:
        _place(paths, folders, temp, paths.inside(name))
    except OSError as error:
        if _is_folder(paths, paths.inside(name)):  # made while the run wrote
            with contextlib.suppress(OSError):
                paths.fs.delete_file(temp)
            raise ChunkNameTaken(taken_problem(out, name)) from None
        if inside or error.errno != errno.EXDEV:
            raise
        # One disk, two mount points (a bind mount, a container's volume): the devices match, yet no
        # rename crosses. Written again in DIR, as across devices (_across_devices), and so from now on.
        _NO_RENAME_INTO.add(paths.root)
        with contextlib.suppress(OSError):
            paths.fs.delete_file(temp)
        return _write_chunk_file(out, name, table, folders, wanted)
    return True


def _is_folder(paths: RunPaths, path: str) -> bool:
    """Whether `path` is a folder (False where that cannot be told: the caller's own error stands)."""
    try:
        return paths.fs.get_file_info(path).type == pafs.FileType.Directory
    except OSError:
        return False


_NO_RENAME_INTO: set[str] = set()
"""Run directories into which a rename from DIR.run failed in this process (another mount point)."""


def _across_devices(paths: RunPaths, folders: Folders) -> bool:
    """Whether DIR is on another device than DIR.run: by the run's folders, or where a worker has none
    (Dask's, which may run on other machines), by the paths as its own machine sees them; or another
    mount point of the same device, as a failed rename found."""
    if paths.root in _NO_RENAME_INTO:
        return True
    if not folders and isinstance(paths.fs, pafs.LocalFileSystem):  # (a remote root is no path here)
        folders = tuple(_folder_ids([paths.root, paths.side], paths.root).values())
    return len({device for device, _ in folders}) == 2


def unfinished_in(out: str, files: RunFiles | None = None) -> tuple[str, ...]:
    """The names of the unfinished files in DIR itself (not beside it): polars reads them with the rest.
    `files`: `list_run(out)`, where the caller has it already."""
    try:
        root = RunPaths.of(out).root
        return tuple(posixpath.basename(path) for path in (files or list_run(out)).temporary
                     if posixpath.dirname(path) == root)
    except (DatasetError, OSError):  # a root, which has no side folder; a folder that cannot be listed
        return ()


def remove_temp_files(out: str) -> int:
    """Delete what killed writers left behind (our files, by name, nothing else); returns how many."""
    paths = RunPaths.of(out)
    stale = list_run(out).temporary
    try:
        for path in stale:
            paths.fs.delete_file(path)
    except OSError as error:
        raise DatasetError(f"cannot write to {out}: {_os_problem(error)}") from None
    return len(stale)


class ChunkNameTaken(DatasetError):
    """DIR holds a folder (or the like) under the name a chunk file must have."""


def taken_problem(out: str, name: str) -> str:
    return (f"{out} holds {name}, which is not a file but has a chunk file's name (the chunk of that name cannot "
            "be written): move it away")


class DamagedPart(DatasetError):
    """A chunk file whose bytes do not read back as what was written (the message says what failed)."""


def read_part(fs: pafs.FileSystem, path: str, columns: list[str] | None = None) -> pa.Table:
    """Every row of a chunk file (or of any Parquet file a report reads, `columns` of it), its bytes
    checked: damaged bytes raise DamagedPart, never become rows.

    Chunk files carry a CRC-32 per page (`_write_chunk_file`; files of older
    versions have none), checked here: without it a flipped byte in a
    compressed page can decode, silently, to other numbers. And every value
    is validated (dictionary indexes in range, strings UTF-8), which also
    catches much damage to a file without checksums. No checksum covers the
    footer, where one flipped bit in a row group's count leaves a file every
    reader opens, short of rows: so the rows read must be as many as the
    footer's total says. Nor the run settings, which the footer holds twice
    when pyarrow wrote it (a key-value entry, and inside the Arrow schema):
    where both are there they must agree (every reader of settings takes the
    key-value copy, the table's; polars, or a writer's
    `add_key_value_metadata`, writes that one alone). Reading all of a million deals' chunk files this
    way costs about 1.5 CPU-seconds (0.6 for the deal and ms columns alone).
    """
    try:  # one thread: pyarrow's pool is no faster on a chunk file, and could not start under `ulimit -v`
        parquet = pq.ParquetFile(path, filesystem=fs, page_checksum_verification=True)
        table = parquet.read(columns=columns, use_threads=False)
        table.validate(full=True)
        if table.num_rows != parquet.metadata.num_rows:
            raise DamagedPart(f"{table.num_rows:,} rows read where its footer counts "
                              f"{parquet.metadata.num_rows:,}")
        copies = [(metadata or {}).get(RUN_SETTINGS_KEY)
                  for metadata in (parquet.metadata.metadata, parquet.schema_arrow.metadata)]
        if None not in copies and copies[0] != copies[1]:
            raise DamagedPart("the two copies of the run settings in its footer differ")
    except FileNotFoundError:  # listed a moment ago: not damage, and its deals must not be solved again
        raise DatasetError(f"{path} vanished while it was read (moved or deleted meanwhile, with its folder?): "
                           "run the command again once the files stay put") from None
    except (pa.ArrowException, OSError, UnicodeDecodeError) as error:  # the last: a damaged column name
        raise resource_shortage_error(path, error) or unreadable_error(path, error) or DamagedPart(
            first_line(error)) from None
    return table


def unreadable_error(path: str, error: BaseException) -> DatasetError | None:
    """The one line for a file its user may not read (a Dask worker running as another user wrote it 0600),
    or None (another error): such a file may be whole, so it is never called damaged, nor one to delete."""
    if not isinstance(error, PermissionError):
        return None
    return DatasetError(f"{path} is unreadable: permission denied (written as another user, by a Dask worker? "
                        "let this user read it; it was not found damaged)")


def resource_shortage_error(path: str, error: BaseException) -> DatasetError | None:
    """The one line for a file that memory, threads or file handles ran short for (`ulimit`), or None
    (another error): such a file may be whole, so it is never a reason to delete it."""
    if not _out_of_resources(error):
        return None
    return DatasetError(f"cannot read {path}: {first_line(error)} (are memory or threads limited? the file "
                        "was not found damaged: run the command again once they allow)")


_RESOURCE_ERRNOS = {errno.EAGAIN, errno.ENOMEM, errno.EMFILE, errno.ENFILE}


def _out_of_resources(error: BaseException) -> bool:
    """Memory, threads or file handles ran out while a file was read (`ulimit -v`): pyarrow says so in
    its messages only ("Failed to launch worker thread", "Cannot allocate memory")."""
    if isinstance(error, MemoryError) or getattr(error, "errno", None) in _RESOURCE_ERRNOS:
        return True
    text = str(error)
    return any(words in text for words in ("worker thread", "Resource temporarily unavailable",
                                            "Cannot allocate memory", "Too many open files"))


def read_done(out: str, manifest: dict | None = None) -> DealSet:
    """The deals that finished chunk files hold (either results format), every file read whole and checked.

    A file of another schema, one whose bytes are damaged, or (given the run's
    `manifest`) one holding deals of another game or deals the manifest does
    not ask for (every chunk's deals are in it before the chunk is solved: a
    file copied from another run, perhaps of other settings), or with
    difficulty columns where the run has none or the other way round, is
    refused: a resume that trusted its rows, or solved its deals again beside
    it, would leave a dataset that is silently wrong (or one polars and DuckDB
    cannot read).
    """
    game = None if manifest is None else run_game(manifest)
    asked = None if manifest is None else expected_deals(manifest)
    fs, _ = filesystem(out)
    numbers, ms = [], []
    files: list[tuple[str, DealSet]] = []  # each file read and its deals
    for path in list_run(out).parts:
        try:
            table = read_part(fs, path)
        except DamagedPart as error:
            raise DatasetError(f"{path} is damaged ({error}): delete it, and the next run solves its deals again "
                               f"(blackhole-stats verify {out} lists every problem)") from None
        found = results_format_of(table.schema)
        problem = schema_problem(table.schema)
        if found is not None:
            try:
                numbers.append(game_numbers(table["deal"], table.column("deal_exact") if found >= 2 else None))
            except DatasetError as error:
                problem = str(error)
            if found >= 2 and not problem and two_numbers(table["deal"], table["deal_exact"]).any():
                problem = "holds rows with numbers in both deal and deal_exact (hand-edited?)"
            ms.append(table["ms"].to_numpy())
            others = sorted(set(games_of_rows(table)) - {game.key}, key=str) if game is not None else []
            if others and not problem:
                problem = f"holds deals of game {shown_game(others[0])}, and the run plays {game.key}"
            if manifest is not None and not problem:
                problem = difficulty_problem(table.schema, manifest.get("difficulty_scale"))
            # renamed by hand (verify says so too): a chunk solved later could take its name
            held = deals_held(numbers[-1], ms[-1]) if not problem else None
            if held and asked is not None and held - asked:
                problem = (f"holds deals {held - asked}, which the run's manifest does not ask for (a file of "
                           "another run?)")
            elif held is not None and not named_as_held(path, held):
                remedy = "move it out of the run directory"
                target = posixpath.join(posixpath.dirname(path), part_name(held)) if held else None
                if target and fs.get_file_info(target).type == pafs.FileType.NotFound:
                    remedy = f"rename it {part_name(held)}"  # a name no file has: renaming loses nothing
                raise DatasetError(f"{path} holds deals {held or 'none'}, not what its name says: {remedy} "
                                   f"(blackhole-stats verify {out} names what each file holds)")
            if manifest is not None and not problem:
                problem = settings_problem(table.schema, manifest)
            if held is not None and not problem and held.count != table.num_rows:
                problem = f"holds {table.num_rows:,} rows for {held.count:,} deals, some of them more than once"
            files.append((path, held))
        if problem:
            raise DatasetError(f"{path} is named like a chunk file but {problem}: "
                               "move it out of the run directory") from None
    if not numbers:
        return DealSet()
    done = deals_held(np.concatenate(numbers), np.concatenate(ms))
    if done.count != sum(held.count for _, held in files):
        raise DatasetError(_repeated(out, files))
    return done


def _repeated(out: str, files: list[tuple[str, DealSet]]) -> str:
    """What to say of chunk files (with their deals) of which two hold a deal (a part copied in by hand, a
    chunk a lost Dask scheduler's worker finished after the resume solved it again): readers of DIR would
    count it twice, and a run that went on beside them would finish a wrong dataset. One sort of every
    run of deals, so that a scattered `--deals` list in a thousand files costs no more than reading them."""
    reach: dict[bool, tuple[int, int]] = {}  # by ms: the furthest last deal so far, and its file
    for ms, first, last, index in sorted((ms, first, last, index) for index, (_, held) in enumerate(files)
                                         for ms, first, last in held.runs):
        furthest, holder = reach.get(ms, (first - 1, index))
        if first <= furthest:
            pair = files[min(holder, index)], files[max(holder, index)]
            sharing = [[path for path, deals in files if path != name and held - (held - deals)] for name, held in pair]
            widest = max((0, 1), key=lambda which: len(sharing[which]))
            if len(sharing[widest]) > 1:  # moving the other file out would only show the next pair (helper 141)
                shown = ", ".join(sharing[widest][:3]) + (", ..." if len(sharing[widest]) > 3 else "")
                return (f"{pair[widest][0]} holds deals of {len(sharing[widest]):,} other files ({shown}), which "
                        f"readers of {out} would count twice: move it out of the run directory (the next run "
                        "solves again any deal that then lacks)")
            (one, deals), (other, others) = pair
            return (f"{one} and {other} both hold deals {others - (others - deals)}, which readers of {out} "
                    "would count twice: move one of them out of the run directory (the next run solves again "
                    "any deal that then lacks)")
        if last > furthest:
            reach[ms] = (last, index)
    raise AssertionError("no two files share a deal")


def _upgrade_chunk_files(out: str, parts: list[str]) -> None:
    """Rewrite every format-1 chunk file in format 2, each atomically.

    A kill leaves some files upgraded and the others not: both are read, and
    the next `run` goes on from there (verify names the mix meanwhile).
    """
    fs = RunPaths.of(out).fs
    for path in parts:
        if results_format_of(pq.read_schema(path, filesystem=fs)) == 1:
            _write_chunk_file(out, posixpath.basename(path), upgrade_table(read_part(fs, path)))
            _testhooks.pause("upgrade-part")


# ------------------------------------------------------------------ the manifest
def read_manifest(out: str) -> dict | None:
    """The manifest (beside DIR, or where 0.1.0 put it), checked (`_manifest_problem`); None if there is no run."""
    paths = RunPaths.of(out)
    for path in paths.manifests():
        raw = _manifest_bytes(paths, path)
        if raw is not None:
            return _parse_manifest(path, raw)
    return None


def _manifest_bytes(paths: RunPaths, path: str) -> bytes | None:
    """A manifest file's bytes, None where there is none; DatasetError for one that cannot be read."""
    try:
        kind = paths.fs.get_file_info(path).type
        if kind == pafs.FileType.Unknown:  # a FIFO would be waited on forever, a device read without end
            raise DatasetError(f"{path} is no file (a FIFO? a device?): move it away")
        with paths.fs.open_input_stream(path) as stream:
            return stream.read()
    except (FileNotFoundError, NotADirectoryError):
        if isinstance(paths.fs, pafs.LocalFileSystem) and os.path.islink(path):  # not "no run here"
            raise DatasetError(f"{path} is a link to {os.readlink(path)}, which is not there: put the "
                               "manifest back, or remove the link") from None
        return None
    except OSError as error:  # a directory, no permission
        raise DatasetError(f"cannot read {path}: {_os_problem(error)}") from None


def _parse_manifest(path: str, raw: bytes) -> dict:
    try:
        manifest = json.loads(raw.decode("utf-8"), parse_float=_float_of_manifest)
    except UnicodeDecodeError as error:
        raise DatasetError(f"{path} is damaged: not UTF-8 text (byte {raw[error.start]:#04x} "
                           f"at offset {error.start})") from None
    except ValueError as error:
        raise DatasetError(f"{path} is damaged: not valid JSON ({error})") from None
    except RecursionError:  # arrays nested thousands deep: no manifest looks like that
        raise DatasetError(f"{path} is damaged: JSON nested too deep to read") from None
    problem = _manifest_problem(manifest)
    if problem:
        raise DatasetError(f"{path} is damaged: {problem}")
    return manifest


def _float_of_manifest(text: str) -> float:
    """A manifest's number, -0.0 read as 0.0: a length of time of -0.0 passes as one (0 <= -0.0), and every
    reader then showed "-0.0"."""
    return float(text) + 0.0


_JSON_TYPES = {dict: "an object", list: "a list", str: "a string", bool: "true or false",
               int: "a number", float: "a number", type(None): "null"}


def _manifest_problem(manifest) -> str | None:
    """What is wrong with a parsed manifest's structure, or None: the one place that knows it.

    Required: tool, search, max_iters, deals; the rest is checked when present
    (other keys are allowed, for versions to come).
    """
    if not isinstance(manifest, dict):
        return f"expected a JSON object, found {_JSON_TYPES.get(type(manifest), type(manifest).__name__)}"
    deals = manifest.get("deals", [])
    if not isinstance(deals, list) or not all(isinstance(spec, str) for spec in deals):
        return f'deals must be a list of ranges like "1-1000", not {json.dumps(deals)[:60]}'
    try:
        DealSet.parse(deals)
    except DealSpecError as error:
        return f"deals: {error}"
    checks = [("search", _is(str), "a string"),
              ("max_iters", _is_count(1, none=True, most=MAX_ITERS), "null or a whole number from 1 to 2^63-1"),
              ("results_format", _is_count(1), "a whole number >= 1"), ("version", _is(str), "a string"),
              ("total_deals", _is_count(0), "a whole number"), ("started", _is(str, none=True), "a time"),
              ("finished", _is(str, none=True), "a time or null"),
              ("elapsed_seconds", is_seconds, "a number of seconds"),  # (null: a resume's sum would fail)
              ("workers", _is_count(0, none=True), "a whole number"),  # 0: none wrote a chunk
              ("chunk_size", _is_count(1, none=True), "a whole number"),
              ("scheduler", _is(str, none=True), "a string or null"), ("machine", _is(dict, none=True), "an object"),
              ("difficulty_scale", _is(str, none=True), "a scale name or null"),
              ("game", _is(str), "a game's key"), ("sessions", _is(list), "a list"),
              ("iterations_revision", _is_count(1), "a whole number >= 1"), ("opened_by", _is(str), "a string")]
    for key, valid, wanted in checks:
        if key in manifest and not valid(manifest[key]):
            return f"{key} must be {wanted}, not {json.dumps(manifest[key])[:60]}"
    missing = [key for key in ("tool", "search", "max_iters", "deals") if key not in manifest]
    if missing:
        return f"no {', '.join(missing)}"
    if manifest["tool"] != TOOL:
        return f"tool is {json.dumps(manifest['tool'])[:60]}, not {TOOL!r}"
    try:  # (a search this version does not know is a later version's: see _check_settings)
        if manifest["search"] in SEARCHES:
            check_search(manifest["search"], game_by_key(manifest.get("game", BLACK_HOLE.key)))
    except UnknownGameError:
        pass  # a later version's game: run_game says so
    except ValueError as error:
        return f"search is {manifest['search']!r}: {error}"
    session_checks = [("version", _is(str), "a string"), ("started", _is(str, none=True), "a time"),
                      ("elapsed_seconds", _is_seconds, "null or a number of seconds"),
                      ("deals_solved", _is_count(0, none=True), "null or a whole number")]
    for number, session in enumerate(manifest.get("sessions", [])):  # as a JSON path names it
        if not isinstance(session, dict):
            return f"sessions[{number}] must be an object, not {json.dumps(session)[:60]}"
        for key, valid, wanted in session_checks:
            if key in session and not valid(session[key]):
                return f"sessions[{number}].{key} must be {wanted}, not {json.dumps(session[key])[:60]}"
    return None


def _is(kind: type, none: bool = False):
    return lambda value: isinstance(value, kind) or (none and value is None)


def _is_count(least: int, none: bool = False, most: float = math.inf):
    return lambda value: (none and value is None) or is_whole_number(value, least, most)


def _is_seconds(value) -> bool:
    return value is None or is_seconds(value)


def write_manifest(out: str, manifest: dict, folders: Folders = ()) -> None:
    """Replace the manifest beside DIR atomically (temporary file, then rename); DatasetError if not
    writable, but OSError itself for a full or read-only disk (DISK_FULL, READ_ONLY: `run` says what to do).

    `folders`: the run's (`Session.folders`), which the manifest must go into (RunMoved).
    """
    paths = RunPaths.of(out)
    temp = paths.beside(f"{TEMP_PREFIX}{MANIFEST_NAME}{TEMP_SUFFIX}")
    try:
        try:
            _ready_side(paths, folders)
            if paths.fs.get_file_info(temp).type == pafs.FileType.Unknown:  # a FIFO in our temporary's name:
                _delete_quietly(paths.fs, temp)                          # opened, it would wait forever
            with paths.fs.open_output_stream(temp) as stream:
                stream.write(json.dumps(manifest, indent=2).encode() + b"\n")
            _testhooks.pause("manifest-written")
            _place(paths, folders, temp, paths.beside(MANIFEST_NAME))
        except OSError:
            _delete_quietly(paths.fs, temp)  # a full disk: leave nothing behind that looks like ours
            raise
    except OSError as error:
        if error.errno in DISK_FULL | READ_ONLY:  # the run says what to do, and how to resume
            raise _naming(error, temp) from None
        raise DatasetError(f"cannot write to {out}: {_os_problem(error)}") from None


def _naming(error: OSError, path: str) -> OSError:
    """`error` with the file it was about, where pyarrow's names none (the run names its folder)."""
    return error if error.filename is not None else OSError(error.errno, os.strerror(error.errno or 0), path)


def _delete_quietly(fs: pafs.FileSystem, path: str) -> None:
    try:
        fs.delete_file(path)
    except OSError:
        pass  # never written, or the disk refuses even that: `_TEMP` names are ignored and removed later


def expected_deals(manifest: dict) -> DealSet:
    """Every deal the run was asked for, over all its sessions."""
    try:
        return DealSet.parse(manifest["deals"])
    except (KeyError, TypeError, AttributeError, DealSpecError) as error:
        raise DatasetError(f"the manifest's list of deals is damaged: {error!r}") from None


def game_of_run(out: str) -> Game:
    """The game of the run in `out` (its manifest's), Black Hole where there is no run yet: what a
    setting that depends on the game (a difficulty scale) is checked against before `open_run`."""
    manifest = read_manifest(locate(out))
    return DEFAULT_GAME if manifest is None else run_game(manifest)


def run_game(manifest: dict) -> Game:
    """The game a run plays: its manifest's `game`; Black Hole for runs from before the family (no `game`).

    DatasetError for a game this version does not know (a later version's, or a damaged manifest).
    """
    key = manifest.get("game", BLACK_HOLE.key)
    try:
        return game_by_key(key)
    except UnknownGameError:
        raise DatasetError(f"the run's manifest names game {quoted(key)}, which this version ({__version__}) "
                           f"does not play (it plays {', '.join(GAMES)})") from None


def manifest_iterations_revision(manifest: dict) -> int:
    """How the run's search counted iterations (`solver.ITERATIONS_REVISIONS`): 1 for runs from before
    it was recorded."""
    return manifest.get("iterations_revision", 1)


def manifest_format(manifest: dict) -> int | None:
    """The format of a run's rows; None for a manifest from an unknown version that did not record it."""
    return manifest.get("results_format", _FORMAT_OF_VERSION.get(manifest.get("version")))


@dataclass
class Session:
    """One `run` on a locked run directory: the deals it aims for, and its record in the manifest."""

    out: str
    manifest: dict
    requested: DealSet
    """Every deal of the run, those just added included: a session finishes what earlier ones left."""
    done: DealSet
    """What the chunk files held when the session began."""
    folders: Folders = ()
    """DIR and DIR.run as the run locked them (their lock handles' identities): its files go into
    them, or nowhere (RunMoved); empty for remote storage."""
    forgotten: DealSet = field(default_factory=DealSet)
    """The deals the run asked for, held not, and no longer asks for (`forget_missing`)."""
    _record: dict = field(default_factory=dict, init=False, repr=False)

    @property
    def game(self) -> Game:
        return run_game(self.manifest)

    def begin_solving(self, **details) -> None:
        """Record this session (tool version, start) and how it solves (workers, machine, ...).

        Only sessions that solve something leave a record: rerunning a finished
        run keeps the manifest as it is.
        """
        self._record = {"version": __version__, "started": _utc_now(),
                        "elapsed_seconds": None, "deals_solved": None}  # None until it ends
        self.manifest["sessions"].append(self._record)
        self.manifest.update(finished=None, **details)
        _mark_opened(self.manifest)
        write_manifest(self.out, self.manifest, self.folders)

    def read_done(self) -> DealSet:
        """What the chunk files hold now, read from the session's folders (RunMoved if the path names
        others: a folder put in their place holds other files)."""
        _check_held(RunPaths.of(self.out), self.folders)
        return read_done(self.out)

    def end_solving(self, seconds: float, done: DealSet | None, solved: int | None = None, **details) -> None:
        """Add this session's time and deals (those its chunk files added to `done`, what they hold now),
        and what it learnt while solving (the workers that ran); the run is finished once every deal
        asked for is done. (The files, not the results the run collected: a chunk that landed as a signal
        stopped the run, before its result reached the run, counted in the run's line but not here.)
        `done` None: the files could not be read back (`read_done` refused them): the run counts `solved`,
        and is not finished."""
        new = solved if done is None else (done - self.done).count
        self._record.update(elapsed_seconds=round(seconds, 3), deals_solved=new)
        self.manifest.update(details)
        self.manifest["elapsed_seconds"] = round(self.manifest.get("elapsed_seconds", 0.0) + seconds, 3)
        if done is not None and not expected_deals(self.manifest) - done:
            self.manifest["finished"] = _utc_now()
        write_manifest(self.out, self.manifest, self.folders)


@contextmanager
def open_run(out: str, deals: DealSet | None, search: str, max_iters: int | None,
             difficulty_scale: str | None = None, game: Game | None = None,
             forget_missing: bool = False) -> Iterator[Session]:
    """Lock DIR, then read, check and write its manifest; the lock holds until the block ends.

    Nothing is read before the lock, so a second run can neither pass its
    checks on a manifest about to change nor overwrite one with stale deals.
    A new run needs an absent or empty directory (our own unfinished files
    do not count). An existing one takes more deals (the manifest records the
    union, and the session aims for all of it) only with the same search,
    max_iters, difficulty_scale (None: no difficulty columns; manifests
    from before it count as None) and game (None: the run's own, and Black
    Hole for a new run; manifests from before the family are Black Hole's,
    and get their `game` written in); any tool version writing
    its results format, and counting the game's iterations as its rows do
    (`iterations_revision`), may resume it. A run of 0.1.0 is brought up to date
    first: its side files move beside DIR, its chunks are rewritten in format 2.
    `forget_missing`: the run asks for the deals it holds (and `deals`) from now on, no more: the way
    back from a mistyped range (1-10000000000000), which every resume would otherwise go on solving.
    """
    paths = RunPaths.of(out)
    paths.beside(MANIFEST_NAME)  # refuses a root: nothing can be beside it
    for folder in paths.root.replace(os.sep, "/").split("/"):
        column, equals, _ = folder.partition("=")
        if equals and column.lower() in DIFFICULTY_SCHEMA.names:  # Hive partitioning, as DuckDB reads it
            raise DatasetError(f"{out}: DuckDB reads a directory named {folder} as the column {column} of every "
                               f"row under it, whatever its files hold: choose a name without '{column}='")
        pattern = next((char for char in "*?[" if char in folder), None)
        if pattern is not None:  # 'g[1]/*.parquet' reads g1's files
            raise DatasetError(f"{out}: DuckDB and polars read {pattern!r} in a path as a pattern, so their reads "
                               f"of {folder}/*.parquet would take other folders' files: choose a name without "
                               "'*', '?' or '['")
    enclosing = enclosing_run(out)
    if enclosing is not None:
        raise DatasetError(f"{out} lies inside {enclosing}, whose readers would read this run too: choose a "
                           "directory outside it")
    kind = paths.fs.get_file_info(paths.root).type
    if kind == pafs.FileType.NotFound:  # a new run, or one whose data folder was taken away (its manifest,
        left = paths.fs.get_file_info(paths.beside(MANIFEST_NAME)).type  # read below, lists its deals)
        if deals is None and left == pafs.FileType.NotFound:
            raise DatasetError(_no_run_to_resume(out))
        try:
            paths.fs.create_dir(paths.root)
        except OSError as error:
            problem = _making_problem(paths, paths.root, error)
            raise DatasetError(f"cannot create the run directory {out}: {problem}") from None
    elif kind == pafs.FileType.File:
        raise DatasetError(f"{out} is a file, not a run directory")
    made = _folder_ids([paths.root] if kind == pafs.FileType.NotFound else [], out)
    with lock(out) as locked, contextlib.ExitStack() as held:
        _testhooks.pause("run-locked")
        contested = False
        try:
            side = paths.fs.get_file_info(paths.side).type
            if side == pafs.FileType.NotFound:
                try:
                    paths.make_side()
                except OSError as error:
                    raise DatasetError(f"cannot write to {out}: {_making_problem(paths, paths.side, error)}") from None
                made |= _folder_ids([paths.side], out)
            elif side != pafs.FileType.Directory:  # it was locked and then listed as DIR ("not a directory")
                raise DatasetError(f"{paths.side} is not a folder, and a run keeps its manifest and log there: "
                                   "move it away or choose another directory")
            contested = True  # until the side folder's lock is held: another run may use what the path names
            locked_side = held.enter_context(lock(out, beside=True))  # before anything is read or written
            folders = () if locked is None else (locked, locked_side)  # what the run writes into, or nothing
            contested = False
            manifest = read_manifest(out)
            as_read = copy.deepcopy(manifest)
            if manifest is None:
                if deals is None:
                    raise DatasetError(_no_run_to_resume(out))
                files = list_run(out)
                if files.parts or files.strays or files.old_layout:
                    raise DatasetError(_not_a_new_run(out))
                if list_run(paths.side).parts or read_manifest(paths.side) is not None:
                    raise DatasetError(f"{paths.side}, where a run in {out} keeps its manifest and log, holds the "
                                       "dataset of another run: choose another directory")
                manifest = {"tool": TOOL, "results_format": RESULTS_FORMAT, "game": (game or DEFAULT_GAME).key,
                            "search": search, "max_iters": max_iters, "difficulty_scale": difficulty_scale,
                            "deals": [], "total_deals": 0, "started": _utc_now(), "sessions": []}
            _check_settings(out, manifest, search, max_iters, difficulty_scale, game)
            files = list_run(out)
            if files.strays:  # readers of DIR would count or trip on them: adding rows beside them is silently wrong
                raise DatasetError(strays_problem(out, files.strays))
            if files.taken:  # else the chunk would be solved, then fail to land, at every resume
                raise ChunkNameTaken(taken_problem(out, files.taken[0]))
            done = read_done(out, manifest)  # before writing: a refused run leaves DIR as it was
            solved = any(session.get("deals_solved") for session in manifest.get("sessions") or [])
            if deals is not None and solved and not done:  # DIR deleted or emptied by hand: any range there
                asked = manifest.get("total_deals")  # (the sessions' sum counts a deal solved again twice)
                of_run = f" (it asks for {asked:,} deals)" if isinstance(asked, int) else ""
                raise DatasetError(  # brought the old run back, every deal of it solved again
                    f"{out} holds none of the deals its run's manifest ({paths.side}) records as solved{of_run}: "
                    f"if its files were deleted, delete {paths.side} too to start a new run there, or "
                    f"resume the old run (its deals solved again) with: "
                    f"{shlex.join(['blackhole-stats', 'run', '--out', out])}")
            _upgrade_manifest(manifest)
            manifest["game"] = run_game(manifest).key
            everything = expected_deals(manifest)  # resuming means all of them: deals of an older, interrupted
            forgotten = DealSet()                  # range are as much the run's as the ones given now
            if forget_missing:
                everything, forgotten = done, everything - done
            if deals is not None:
                everything = everything | deals
                forgotten = forgotten - deals
            if not everything:
                raise DatasetError(f"{out} holds no deal yet, so with --forget-missing the run would ask for "
                                   "none: give --range or --deals")
            _check_iterations_revision(out, manifest, done, everything)
            manifest["deals"] = everything.specs()
            manifest["total_deals"] = everything.count
            if manifest != as_read:  # a new run, other deals (a rerun that changes nothing keeps it as it is)
                _mark_opened(manifest)
            if manifest.get("finished") is None and not everything - done:  # e.g. stopped while recording it
                manifest["finished"] = _utc_now()
            write_manifest(out, manifest, folders)  # from now on DIR is a run that can be resumed
            if manifest["results_format"] != RESULTS_FORMAT:
                _upgrade_run(out, paths, manifest, folders)
        except (DatasetError, OSError):  # refused, or a full disk, under both locks: the folders this call
            for folder, made_id in made.items() if not contested else ():  # made go again (os.rmdir: only
                with contextlib.suppress(OSError):                           # while empty), unless deleted
                    if _folder_ids([folder], out).get(folder) == made_id:  # and made anew since
                        os.rmdir(folder)
            raise
        yield Session(out, manifest, everything, done, folders, forgotten)


def strays_problem(out: str, strays: list[tuple[str, str]]) -> str:
    """What to say of entries of DIR that are not the run's files yet its readers read (`RunFiles.strays`),
    at a run's start or end: the first, and how many more."""
    name, readers = strays[0]
    more = f" (and {len(strays) - 1:,} more: see verify)" if len(strays) > 1 else ""
    return f"{out} holds {name}{more}, which is not a file of this run yet is read by {readers}: move it out of " \
        "the run directory"


def _not_a_new_run(out: str) -> str:
    """Why files in `out` without a manifest make it no place for a new run."""
    return _another_name_of_a_run(out) or _chunks_without_run(out) or \
        f"{out} is not empty and holds no run: choose a new or empty directory"


def _no_run_to_resume(out: str) -> str:
    return _another_name_of_a_run(out) or _chunks_without_run(out) or \
        f"there is no run to resume in {out}: give --range or --deals"


def _chunks_without_run(out: str) -> str | None:
    """Where `out` holds chunk files but no manifest (its side folder deleted, or the files copied here)."""
    if not list_run(out).parts:
        return None
    return (f"{out} holds chunk files but no run (no {RunPaths.of(out).beside(MANIFEST_NAME)}: deleted? or the "
            "run was made under another name, a link to this folder: give that name), and a new run must not take "
            "rows it did not ask for: move them away, or choose a new or empty directory")


def side_folder_problem(out: str, option: str = "") -> str | None:
    """Where `out` is a run's side folder (`runs/x.run`, or a link to one), what to give instead (after
    `option`), else None."""
    root = local_path(out)
    linked = root is not None and os.path.islink(root.rstrip(os.sep))
    for name in (out, os.path.realpath(root)) if linked else (out,):
        run = name.removesuffix(SIDE_SUFFIX)
        if run != name and read_manifest(run) is not None:
            return f"{out} is where the run {run} keeps its manifest and log: give {option}{run}"
    return None


def _another_name_of_a_run(out: str) -> str | None:
    """Where `out` is a run's side folder, or a link to a run made under its real name (whose manifest is
    beside that name): what to give instead."""
    side = side_folder_problem(out, "--out ")
    if side:
        return side
    real = run_behind_link(out)
    if real != out:
        return f"{out} is a link to the run {real}, which keeps its manifest beside that name: give --out {real}"
    return None


class RunMoved(DatasetError):
    """The folders a run path names are no longer the ones the run locked: moved or deleted under it."""


class WrittenFileVanished(DatasetError):
    """A file the run was writing (a chunk, the manifest) was deleted before its rename, its folders in place."""


Folders = tuple[tuple[int, int], ...]
"""A run's DIR and DIR.run as the run locked them, by (device, inode); empty for remote storage."""


def _folders_of(paths: RunPaths) -> Folders:
    """DIR and DIR.run as the paths name them now ((-1, -1): none)."""
    found = _folder_ids([paths.root, paths.side], paths.root)
    return tuple(found.get(folder, (-1, -1)) for folder in (paths.root, paths.side))


def _moved(paths: RunPaths, folders: Folders) -> RunMoved:
    if folders and _folders_of(paths)[0] == folders[0]:  # DIR, with the chunk files, is still the run's
        return RunMoved(f"{paths.side}, where the run keeps its manifest and log, was moved or deleted while the "
                        f"run wrote: stopped; the chunk files in {paths.root} stay, but no run goes on without its "
                        "manifest: put the folder back and run again, or move them away")
    return RunMoved(f"{paths.root} or its side folder {paths.side} was moved or deleted while the run wrote to "
                    "it: stopped (what it wrote went with the folders)")


def _vanished(temp: str, target: str) -> WrittenFileVanished:
    return WrittenFileVanished(f"{temp}, which the run was writing, was deleted before it could be renamed to "
                               f"{target}")


def _check_held(paths: RunPaths, folders: Folders) -> None:
    """RunMoved where the path names other folders than the run's `folders` (none: nothing to check)."""
    if folders and _folders_of(paths) != folders:
        raise _moved(paths, folders)


def _ready_side(paths: RunPaths, folders: Folders) -> None:
    """Before a file is written beside DIR: the side folder made if need be, unless the run holds its
    folders (then RunMoved where the path names others: nothing is made or written there)."""
    if folders:
        _check_held(paths, folders)
    else:
        if isinstance(paths.fs, pafs.LocalFileSystem) and not os.path.isdir(paths.root):  # nothing made there
            raise DatasetError(f"{paths.root} is not a folder where this worker runs (deleted? a Dask worker must "
                               "see the run's folder at the same path on the same disk, a shared file system)")
        paths.make_side()


def _place(paths: RunPaths, folders: Folders, temp: str, target: str) -> None:
    """Rename `temp` (in DIR or beside it) to `target` (the same), replacing it. Where the run holds
    its folders, the rename goes through handles of the folders it opened and found to be those
    (device, inode), so no file lands in a folder put in their place meanwhile (RunMoved)."""
    if not folders or os.rename not in os.supports_dir_fd:  # remote storage; Windows checks the paths only
        _check_held(paths, folders)
        try:
            paths.fs.move(temp, target)
        except FileNotFoundError:
            if paths.fs.get_file_info(temp).type != pafs.FileType.NotFound:
                raise
            raise _vanished(temp, target) from None
        return
    handles = []
    try:
        for folder in (paths.root, paths.side):
            handles.append(os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)))
        if tuple((found.st_dev, found.st_ino) for found in map(os.fstat, handles)) != folders:
            raise _moved(paths, folders)
        source, into = (handles[0] if os.path.dirname(path) == paths.root else handles[1] for path in (temp, target))
        os.rename(os.path.basename(temp), os.path.basename(target), src_dir_fd=source, dst_dir_fd=into)
    except (FileNotFoundError, NotADirectoryError):  # a folder moved away, or (both still the run's) the file
        if len(handles) == 2:
            raise _vanished(temp, target) from None
        raise _moved(paths, folders) from None
    except OSError as error:  # named by the paths, as a rename by them would be (a cross-device link)
        raise OSError(error.errno, error.strerror, temp, None, target) from None
    finally:
        for handle in handles:
            os.close(handle)


def _folder_ids(folders: list[str], out: str) -> dict[str, tuple[int, int]]:
    """Local folders by (device, inode): which folder a path names now (none for remote storage)."""
    if local_path(out) is None:
        return {}
    ids = {}
    for folder in folders:
        with contextlib.suppress(OSError):
            found = os.stat(folder)
            ids[folder] = (found.st_dev, found.st_ino)
    return ids


def format_problem(manifest: dict) -> str | None:
    """Where a run's results are of a format this version cannot read as it wrote them (newer, or not
    recorded by an unknown version): what to say of it, for `run` (refuses), `verify` (refuses) and
    `report` (warns), each with its own advice."""
    found = manifest_format(manifest)
    if found is None:
        version = manifest.get("version")
        writer = f"{TOOL} {version!r}" if version is not None else f"a version of {TOOL} that did not record itself"
        return f"holds a run written by {writer}, whose results format this version ({__version__}) does not know"
    if found > RESULTS_FORMAT:
        return (f"holds results of format {found}, newer than this version ({__version__}) reads "
                f"(format {RESULTS_FORMAT})")
    return None


def _check_settings(out: str, manifest: dict, search: str, max_iters: int | None,
                    difficulty_scale: str | None, game: Game | None) -> None:
    problem = format_problem(manifest)
    if problem:
        raise DatasetError(f"{out} {problem}: use another --out")
    check_held_settings(out, manifest, game)
    if manifest.get("difficulty_scale") != difficulty_scale:
        asked = "without --difficulty" if difficulty_scale is None else f"with difficulty scale {difficulty_scale}"
        held = ("no difficulty columns" if manifest.get("difficulty_scale") is None
                else f"difficulty scale {manifest['difficulty_scale']}")
        raise DatasetError(f"{out} holds a run with {held}; this run is {asked}: use the same settings to add "
                           "to it, or another --out")
    for key, value in {"search": search, "max_iters": max_iters}.items():
        if manifest.get(key) != value:
            raise DatasetError(f"{out} holds a run with {key}={_setting(manifest.get(key))}, not "
                               f"{_setting(value)}: use the same settings to add to it, or another --out")


def _check_iterations_revision(out: str, manifest: dict, done: DealSet, everything: DealSet) -> None:
    """Refuse to add rows to a run whose rows count iterations as this version does not; a run with no
    rows yet takes this version's."""
    game = run_game(manifest)
    current, held = iterations_revision(manifest["search"], game), manifest_iterations_revision(manifest)
    if not done or held == current:
        manifest["iterations_revision"] = current
    elif everything - done:
        which = "an earlier" if held < current else "a later"
        raise DatasetError(f"{out} holds {game.name} deals whose iterations {which} version counted another "
                           f"way (revision {held}; this version's is {current}): "
                           "solving more of its deals here would mix the two in one dataset. Finish it with the "
                           "version that started it, or use another --out (its verdicts and cards played stand)")


def _setting(value) -> str:
    """A run setting as messages show it: None is a max_iters of no bound (search is never None)."""
    return "no bound" if value is None else repr(value)


def check_held_settings(out: str, manifest: dict, game: Game | None = None) -> Game:
    """The run's game, once it is `game` (None: any) and its search and scale are ones this version
    can resume with (a later version's, or a damaged manifest's, would fail every chunk
    after the manifest changed)."""
    own = run_game(manifest)
    if game is not None and game != own:
        raise DatasetError(f"{out} holds a run of {own.key} ({own.name}), not {game.key}: resume it with "
                           f"--game {own.key} (or without --game), or use another --out")
    game = own
    search, scale = manifest.get("search"), manifest.get("difficulty_scale")  # max_iters: _manifest_problem
    if search not in SEARCHES:
        problem = f"search {quoted(search)}"
    elif scale is not None and (scale not in SCALES or SCALES[scale].game != game.key):
        problem = f"difficulty scale {quoted(scale)}"
    else:
        return game
    raise DatasetError(f"{out} holds a run of {game.name} with {problem}, which this version ({__version__}) "
                       "cannot resume: use another --out")


def _upgrade_manifest(manifest: dict) -> None:
    """A 0.1.0 manifest in today's form: its format written out, its `version` as the first session."""
    manifest["results_format"] = manifest_format(manifest)
    if "sessions" not in manifest:
        old = manifest.pop("version", None)
        manifest["sessions"] = [] if old is None else [
            {"version": old, "started": manifest.get("started"),
             "elapsed_seconds": manifest.get("elapsed_seconds"), "deals_solved": None}]  # not recorded


def _upgrade_run(out: str, paths: RunPaths, manifest: dict, folders: Folders) -> None:
    """A run of format 1, its manifest already written beside DIR: the rest of 0.1.0's layout follows.

    0.1.0's manifest is deleted and its log moved beside DIR, then each chunk is
    rewritten in format 2, then the manifest says so. Every step is atomic or
    repeatable, so a run killed anywhere in here is finished by the next one.
    """
    fs = paths.fs
    try:
        old_log, log = paths.inside(OLD_LOG_NAME), paths.beside(LOG_NAME)
        if fs.get_file_info(old_log).type == pafs.FileType.File:
            if fs.get_file_info(log).type == pafs.FileType.File:  # cannot happen in order; lose no line if it did
                with fs.open_input_stream(old_log) as source, fs.open_append_stream(log) as target:
                    target.write(source.read())
                fs.delete_file(old_log)
            else:
                fs.move(old_log, log)
        if fs.get_file_info(paths.inside(OLD_MANIFEST_NAME)).type == pafs.FileType.File:
            fs.delete_file(paths.inside(OLD_MANIFEST_NAME))
        _upgrade_chunk_files(out, list_run(out).parts)
    except OSError as error:
        raise DatasetError(f"cannot write to {out}: {_os_problem(error)}") from None
    manifest["results_format"] = RESULTS_FORMAT
    write_manifest(out, manifest, folders)


class RunBusy(DatasetError):
    """A run holds the directory's lock: it is writing there now."""


LOCK_ATTEMPTS = 20
"""Tries at a directory's lock, 5 ms apart, before it is called held: `being_written` takes it for a moment
(shared: a run's exclusive lock waits for it), perhaps descheduled then on a busy machine."""


@contextmanager
def lock(out: str, beside: bool = False, look: bool = False) -> Iterator[tuple[int, int] | None]:
    """Refuse a second run writing into the same local directory (it would write deals twice).

    The lock is on the directory itself (`beside`: on its side folder, which
    holds the manifest: a run whose DIR was deleted under it still holds
    that one), so no file is left behind (but LOCK_NAME where a directory
    cannot be locked); forked workers share it, so it also holds while
    orphaned workers still write. Yields the locked folder's (device, inode), None for remote storage.
    `look`: only to see whether a run holds it (`being_written`): a shared lock where the OS has one, so
    that two looks never stop each other, and no LOCK_NAME made where there is none.
    """
    path = local_path(out)
    if path is not None and beside:
        path = RunPaths.of(out).side
    if path is None:
        yield None
        return
    try:
        fd = os.open(path, os.O_RDONLY) if _flock else os.open(os.path.join(path, LOCK_NAME),
                                                                os.O_RDWR | (0 if look else os.O_CREAT))
    except OSError as error:
        raise DatasetError(f"cannot open {out}: {_os_problem(error)}") from None
    try:
        for attempt in range(LOCK_ATTEMPTS):
            try:
                _flock(fd, look) if _flock else _lock_first_byte(fd)
                break
            except OSError:  # held elsewhere (BlockingIOError on POSIX, PermissionError on Windows)
                if attempt == LOCK_ATTEMPTS - 1:
                    raise RunBusy(f"another run is writing to {out} (or its worker processes are still alive)") \
                        from None
                _testhooks.pause("lock-retry")
                time.sleep(0.005)  # perhaps only `being_written`'s moment (verify, report) in it
        found = os.fstat(fd) if _flock else os.stat(path)  # the folder locked (elsewhere: the one holding the lock)
        yield found.st_dev, found.st_ino
    finally:
        os.close(fd)


def being_written(out: str) -> bool:
    """Whether a run is writing to `out` now (it holds the locks of DIR and of its side folder: DIR's
    alone where `out` is the real name of a DIR a run was given under a link's name): its newest files are
    not written yet, and not an interrupted run's. False where that cannot be told (remote storage)."""
    root = local_path(out)
    try:
        side = RunPaths.of(out).side if root is not None else None
    except DatasetError:  # a root folder: nothing beside it
        side = None
    return any(_held_by_a_run(folder) for folder in (side, root) if folder is not None and os.path.isdir(folder))


def _posix_flock():
    """Non-blocking flock (shared for a look, else exclusive), where the OS has it (not Windows); the import
    is guarded there."""
    try:
        import fcntl
    except ImportError:
        return None
    return lambda fd, look: fcntl.flock(fd, (fcntl.LOCK_SH if look else fcntl.LOCK_EX) | fcntl.LOCK_NB)


_flock = _posix_flock()


def _lock_first_byte(fd: int) -> None:
    """Windows: lock byte 0 of LOCK_NAME without waiting; the OS drops it when the process dies."""
    import msvcrt

    msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)


def _utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _os_problem(error: OSError) -> str:
    """The OS's words for an error (pyarrow's messages repeat the path and add a 'Detail:')."""
    return os.strerror(error.errno) if error.errno else first_line(error)


def _making_problem(paths: RunPaths, folder: str, error: OSError) -> str:
    """Why `folder` (of `paths`) could not be made: a link to nothing in its place (the OS says "File
    exists") is named, with where it points."""
    if isinstance(paths.fs, pafs.LocalFileSystem) and os.path.islink(folder) and not os.path.exists(folder):
        return f"{folder} is a link to {os.readlink(folder)}, which does not exist"
    return _os_problem(error)


def first_line(error: Exception) -> str:
    """An error's message, first line only: error output is one line."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
