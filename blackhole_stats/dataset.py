"""A run directory: a Parquet dataset with one file per finished chunk, plus `_manifest.json`.

Readers never need this package: `pandas.read_parquet(DIR)`, `pyarrow.dataset`
and DuckDB or polars on `DIR/*.parquet` read it as it is. That is why the side
files start with `_`, files being written start with `.` and end in `.tmp`
(pyarrow's dataset discovery skips both prefixes, `*.parquet` matches neither),
and why each chunk is written under such a name and renamed into place only
when complete.

This module owns the directory: where it may live (`locate`), what is in it
(`list_run`), the manifest (`read_manifest`, `open_run`, `Session`) and the
chunk files. Everything it refuses is a `DatasetError` with one line.
"""
from __future__ import annotations

import json
import math
import os
import re
import stat
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Iterator, Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyarrow import fs as pafs

from . import __version__, _testhooks
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

RESULTS_FORMAT = 1
"""What a row holds for a deal and settings: the schema, the verdicts, how iterations are counted.

A run is resumed or extended by any version that writes the same format, so
raise this only when a new version would write different rows for the same
deal, search and max_iters."""
_FORMAT_OF_VERSION = {"0.1.0": 1}
"""Manifests from before `results_format` was recorded name only the tool version."""

TOOL = "blackhole-stats"
MANIFEST_NAME = "_manifest.json"
LOG_NAME = "_run.log"
LOCK_NAME = "_run.lock"
"""Only where the OS cannot lock a directory (Windows): the file whose first byte is locked instead."""
PART_PREFIX = "part-"
PART_SUFFIX = ".parquet"
TEMP_PREFIX, TEMP_SUFFIX = ".", ".tmp"
"""Files being written: hidden from pyarrow's discovery and from `*.parquet` globs."""
_PART_NAME = r"part-(?:ms)?\d+-(?:ms)?\d+-\d+\.parquet"
_PART = re.compile(_PART_NAME)
_TEMP = re.compile(re.escape(TEMP_PREFIX) + f"(?:{re.escape(MANIFEST_NAME)}|{_PART_NAME})" + re.escape(TEMP_SUFFIX))
"""Our own unfinished files, by name: only these are ever deleted or ignored."""
_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://(.*)", re.DOTALL)

_OUTCOME_VALUES = pa.array(OUTCOMES, pa.string())


class DatasetError(ValueError):
    """A dataset or run directory that cannot be used as asked; the message names it and says why."""


# ------------------------------------------------------------------ where a run can live
def filesystem(out: str) -> tuple[pafs.FileSystem, str]:
    """pyarrow's own filesystems (local, file://, s3://, gs://, hdfs://), else a URL fsspec knows.

    Only well-formed URLs: fsspec reads `a://` or `://` as the local `./a:`.
    """
    if "://" not in out:
        return pafs.LocalFileSystem(), os.path.abspath(out)
    match = _URL.fullmatch(out)
    if match is None:
        raise DatasetError(f"{out!r} is neither a path nor a URL (scheme://location)")
    scheme, location = match.groups()
    if not location:
        raise DatasetError(f"the URL {out!r} names no location (expected {scheme}://LOCATION)")
    try:
        return pafs.FileSystem.from_uri(out)
    except pa.ArrowInvalid as error:
        if "Unrecognized filesystem type" not in str(error):  # pyarrow's scheme, a bad URL
            raise DatasetError(f"bad URL {out!r}: {first_line(error)}") from None
    except OSError as error:  # e.g. s3:// cannot resolve the bucket's region
        raise DatasetError(f"cannot reach {out}: {first_line(error)}") from None
    try:
        import fsspec
    except ImportError:
        raise DatasetError(f"unknown URL scheme {scheme!r} in {out!r} (install fsspec for more)") from None
    if scheme.lower() not in fsspec.available_protocols():
        raise DatasetError(f"unknown URL scheme {scheme!r} in {out!r}")
    try:
        fs, path = fsspec.core.url_to_fs(out)
    except (ImportError, ValueError, OSError) as error:  # a protocol whose package is missing
        raise DatasetError(f"cannot use {out}: {first_line(error)}") from None
    return pafs.PyFileSystem(pafs.FSSpecHandler(fs)), path


def locate(out: str) -> str:
    """`out` normalized (local paths absolute: workers may run elsewhere; URLs as given).

    The one check of `run --out`, `verify DIR` and `report DATASET`, so that
    all three accept and refuse the same forms: control characters, malformed or unknown URLs,
    storage that lives in this process only, names the OS refuses, paths
    under a file, and things that are neither directories nor files.
    """
    if not out:
        raise DatasetError("the dataset path is empty")
    if any(ord(character) < 32 for character in out):  # a newline would split the one-line error too
        raise DatasetError(f"the dataset path {out!r} contains a control character")
    fs, root = filesystem(out)
    if _lives_in_this_process(fs):
        raise DatasetError(f"{out} lives in this process only: nothing would persist; "
                           "give a directory or a URL of lasting storage")
    if isinstance(fs, pafs.LocalFileSystem):
        _check_local(root)
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
        raise DatasetError(f"cannot use {path}: {_os_problem(error)}") from None
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        raise DatasetError(f"{path} is neither a directory nor a regular file")


def _parents(path: str) -> Iterator[str]:
    while (parent := os.path.dirname(path)) != path:
        yield parent
        path = parent


def local_path(out: str) -> str | None:
    """The directory on this machine's disk, or None for remote URLs."""
    fs, root = filesystem(out)
    return root if isinstance(fs, pafs.LocalFileSystem) else None


# ------------------------------------------------------------------ what a run directory holds
@dataclass
class RunFiles:
    """A run directory's entries: chunk files, our unfinished files, and anything else (strays)."""

    parts: list[str] = field(default_factory=list)
    """Full paths of the finished chunk files, sorted by name."""
    temporary: list[str] = field(default_factory=list)
    """Names of files a killed writer left (`.part-....parquet.tmp`, `._manifest.json.tmp`)."""
    strays: list[tuple[str, str]] = field(default_factory=list)
    """(name, which readers of DIR would read it) for every entry that is not this run's."""


def list_run(out: str) -> RunFiles:
    """Sort every entry of DIR (not recursive: a subdirectory is one stray) into RunFiles."""
    fs, root = filesystem(out)
    files = RunFiles()
    for info in sorted(_entries(fs, root, out), key=lambda info: info.base_name):
        name, is_file = info.base_name, info.type == pafs.FileType.File
        if is_file and name in (MANIFEST_NAME, LOG_NAME, LOCK_NAME):
            continue
        if is_file and _PART.fullmatch(name):
            files.parts.append(info.path)
        elif is_file and _TEMP.fullmatch(name):
            files.temporary.append(name)
        else:
            files.strays.append((name + ("" if is_file else "/"), _readers_of(name, is_file)))
    return files


def _readers_of(name: str, is_file: bool) -> str:
    """Which readers pick up an entry of DIR, as measured (pandas 3.1, pyarrow 26, DuckDB 2.0, polars 2.1).

    pandas/pyarrow read every file under DIR, subdirectories too, except names
    starting with `.` or `_`; `DIR/*.parquet` (DuckDB, polars) every top-level
    `*.parquet` file, `.` and `_` ones too; polars given DIR reads every file.
    """
    readers = []
    if not name.startswith(("_", ".")):
        readers.append("pandas and pyarrow (DIR)")
    if is_file and name.endswith(".parquet"):
        readers.append("DuckDB and polars (DIR/*.parquet)")
    readers.append("polars (DIR)")
    return ", ".join(readers)


def _entries(fs: pafs.FileSystem, root: str, out: str) -> list[pafs.FileInfo]:
    try:
        return fs.get_file_info(pafs.FileSelector(root, allow_not_found=True))
    except OSError as error:
        raise DatasetError(f"cannot list {out}: {_os_problem(error)}") from None


def data_files(out: str) -> tuple[pafs.FileSystem, list[str]]:
    """The files a report reads: `out` itself if it is a file, else DIR's top-level `*.parquet` files.

    The same files as DuckDB and polars on `DIR/*.parquet`, so the report counts
    what they count (`verify` says whether that is exactly the run's chunks).
    """
    out = locate(out)
    fs, root = filesystem(out)
    kind = fs.get_file_info(root).type
    if kind == pafs.FileType.File:
        return fs, [root]
    if kind != pafs.FileType.Directory:
        raise DatasetError(f"{out}: no such file or directory")
    paths = sorted(info.path for info in _entries(fs, root, out)
                   if info.type == pafs.FileType.File and info.base_name.endswith(".parquet"))
    if not paths:
        raise DatasetError(f"{out}: no *.parquet files in this directory")
    return fs, paths


def schema_problem(schema: pa.Schema) -> str | None:
    """How a chunk file's columns differ from SCHEMA (names and types; nullability aside), or None."""
    if schema.names != SCHEMA.names:
        return f"its columns are {', '.join(schema.names) or 'none'}, not {', '.join(SCHEMA.names)}"
    for wanted in SCHEMA:
        found = schema.field(wanted.name).type
        if found != wanted.type:
            return f"column {wanted.name} is {found}, not {wanted.type}"
    return None


# ------------------------------------------------------------------ chunk files
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


def remove_temp_files(out: str) -> int:
    """Delete what killed writers left behind (our files, by name, nothing else); returns how many."""
    fs, root = filesystem(out)
    stale = list_run(out).temporary
    try:
        for name in stale:
            fs.delete_file(f"{root}/{name}")
    except OSError as error:
        raise DatasetError(f"cannot write to {out}: {_os_problem(error)}") from None
    return len(stale)


def read_done(out: str) -> DealSet:
    """The deals that finished chunk files hold; a chunk file of another schema is refused."""
    fs, _ = filesystem(out)
    tables = []
    for path in list_run(out).parts:
        try:
            chunk = pq.ParquetFile(path, filesystem=fs)
            problem = schema_problem(chunk.schema_arrow)
            if problem is None:
                tables.append(chunk.read(columns=["deal", "ms"]))
        except (pa.ArrowException, OSError) as error:
            problem = f"unreadable ({first_line(error)})"
        if problem:
            raise DatasetError(f"{path} is named like a chunk file but {problem}: "
                               "move it out of the run directory") from None
    if not tables:
        return DealSet()
    table = pa.concat_tables(tables)
    numbers = pc.cast(table["deal"], pa.string()).to_pylist()  # faster than Decimal objects
    return DealSet.from_runs((ms, int(number), int(number))
                             for number, ms in zip(numbers, table["ms"].to_pylist()))


# ------------------------------------------------------------------ the manifest
def read_manifest(out: str) -> dict | None:
    """The manifest, checked (`_manifest_problem`), or None if `out` holds no run."""
    fs, root = filesystem(out)
    path = f"{root}/{MANIFEST_NAME}"
    try:
        with fs.open_input_stream(path) as stream:
            raw = stream.read()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:  # a directory, no permission
        raise DatasetError(f"cannot read {path}: {_os_problem(error)}") from None
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise DatasetError(f"{path} is damaged: not UTF-8 text (byte {raw[error.start]:#04x} "
                           f"at offset {error.start})") from None
    except ValueError as error:
        raise DatasetError(f"{path} is damaged: not valid JSON ({error})") from None
    problem = _manifest_problem(manifest)
    if problem:
        raise DatasetError(f"{path} is damaged: {problem}")
    return manifest


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
    checks = [("search", _is(str), "a string"), ("max_iters", _is_count(1, none=True), "null or a whole number >= 1"),
              ("results_format", _is_count(1), "a whole number >= 1"), ("version", _is(str), "a string"),
              ("total_deals", _is_count(0), "a whole number"), ("started", _is(str, none=True), "a time"),
              ("finished", _is(str, none=True), "a time or null"),
              ("elapsed_seconds", _is_seconds, "a number of seconds"),
              ("workers", _is_count(0, none=True), "a whole number"),  # 0: none wrote a chunk
              ("chunk_size", _is_count(1, none=True), "a whole number"),
              ("scheduler", _is(str, none=True), "a string or null"), ("machine", _is(dict, none=True), "an object"),
              ("sessions", _is(list), "a list")]
    for key, valid, wanted in checks:
        if key in manifest and not valid(manifest[key]):
            return f"{key} must be {wanted}, not {json.dumps(manifest[key])[:60]}"
    missing = [key for key in ("tool", "search", "max_iters", "deals") if key not in manifest]
    if missing:
        return f"no {', '.join(missing)}"
    if manifest["tool"] != TOOL:
        return f"tool is {json.dumps(manifest['tool'])[:60]}, not {TOOL!r}"
    session_checks = [("version", _is(str), "a string"), ("started", _is(str, none=True), "a time"),
                      ("elapsed_seconds", _is_seconds, "null or a number of seconds"),
                      ("deals_solved", _is_count(0, none=True), "null or a whole number")]
    for number, session in enumerate(manifest.get("sessions", []), 1):
        if not isinstance(session, dict):
            return f"sessions[{number}] must be an object, not {json.dumps(session)[:60]}"
        for key, valid, wanted in session_checks:
            if key in session and not valid(session[key]):
                return f"sessions[{number}].{key} must be {wanted}, not {json.dumps(session[key])[:60]}"
    return None


def _is(kind: type, none: bool = False):
    return lambda value: isinstance(value, kind) or (none and value is None)


def _is_count(least: int, none: bool = False):
    return lambda value: (none and value is None) or (
        isinstance(value, int) and not isinstance(value, bool) and value >= least)


def _is_seconds(value) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)
                             and math.isfinite(value) and value >= 0)


def write_manifest(out: str, manifest: dict) -> None:
    """Replace the manifest atomically (temporary file, then rename); DatasetError if DIR is not writable."""
    fs, root = filesystem(out)
    temp = f"{root}/{TEMP_PREFIX}{MANIFEST_NAME}{TEMP_SUFFIX}"
    try:
        try:
            with fs.open_output_stream(temp) as stream:
                stream.write(json.dumps(manifest, indent=2).encode() + b"\n")
            _testhooks.pause("manifest-written")
            fs.move(temp, f"{root}/{MANIFEST_NAME}")
        except OSError:
            _delete_quietly(fs, temp)  # a full disk: leave nothing behind that looks like ours
            raise
    except OSError as error:
        raise DatasetError(f"cannot write to {out}: {_os_problem(error)}") from None


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


def _results_format(manifest: dict) -> int | None:
    """The format of a run's rows; None for a manifest from an unknown version that did not record it."""
    return manifest.get("results_format", _FORMAT_OF_VERSION.get(manifest.get("version")))


@dataclass
class Session:
    """One `run` on a locked run directory: the deals it aims for, and its record in the manifest."""

    out: str
    manifest: dict
    requested: DealSet
    done: DealSet
    """What the chunk files held when the session began."""
    _record: dict = field(default_factory=dict, init=False, repr=False)

    def begin_solving(self, **details) -> None:
        """Record this session (tool version, start) and how it solves (workers, machine, ...).

        Only sessions that solve something leave a record: rerunning a finished
        run keeps the manifest as it is.
        """
        self._record = {"version": __version__, "started": _utc_now(),
                        "elapsed_seconds": None, "deals_solved": None}  # None until it ends
        self.manifest["sessions"].append(self._record)
        self.manifest.update(finished=None, **details)
        write_manifest(self.out, self.manifest)

    def end_solving(self, seconds: float, solved: int, done: DealSet, **details) -> None:
        """Add this session's time and deals, and what it learnt while solving (the workers that ran);
        the run is finished once every deal asked for is done."""
        self._record.update(elapsed_seconds=round(seconds, 3), deals_solved=solved)
        self.manifest.update(details)
        self.manifest["elapsed_seconds"] = round(self.manifest.get("elapsed_seconds", 0.0) + seconds, 3)
        if not expected_deals(self.manifest) - done:
            self.manifest["finished"] = _utc_now()
        write_manifest(self.out, self.manifest)


@contextmanager
def open_run(out: str, deals: DealSet | None, search: str, max_iters: int | None) -> Iterator[Session]:
    """Lock DIR, then read, check and write its manifest; the lock holds until the block ends.

    Nothing is read before the lock, so a second run can neither pass its
    checks on a manifest about to change nor overwrite one with stale deals.
    A new run needs an absent or empty directory (our own unfinished files
    do not count). An existing one takes more deals (the manifest records the
    union) only with the same search, max_iters and results format; any tool
    version writing that format may resume it.
    """
    fs, root = filesystem(out)
    kind = fs.get_file_info(root).type
    if kind == pafs.FileType.NotFound:
        if deals is None:
            raise DatasetError(f"there is no run to resume in {out}: give --range or --deals")
        try:
            fs.create_dir(root)
        except OSError as error:
            raise DatasetError(f"cannot create the run directory {out}: {_os_problem(error)}") from None
    elif kind == pafs.FileType.File:
        raise DatasetError(f"{out} is a file, not a run directory")
    with lock(out):
        _testhooks.pause("run-locked")
        manifest = read_manifest(out)
        if manifest is None:
            if deals is None:
                raise DatasetError(f"there is no run to resume in {out}: give --range or --deals")
            files = list_run(out)
            if files.parts or files.strays:
                raise DatasetError(f"{out} is not empty and holds no run: choose a new or empty directory")
            manifest = {"tool": TOOL, "results_format": RESULTS_FORMAT, "search": search, "max_iters": max_iters,
                        "deals": [], "total_deals": 0, "started": _utc_now(), "sessions": []}
        _check_settings(out, manifest, search, max_iters)
        strays = list_run(out).strays
        if strays:  # readers of DIR would count or trip on them: adding rows beside them is silently wrong
            name, readers = strays[0]
            more = f" (and {len(strays) - 1} more: see verify)" if len(strays) > 1 else ""
            raise DatasetError(f"{out} holds {name}{more}, which is not a file of this run yet is read by "
                               f"{readers}: move it out of the run directory")
        done = read_done(out)  # before writing anything: a refused run leaves DIR as it was
        _upgrade(manifest)
        everything = expected_deals(manifest)
        requested = everything if deals is None else deals
        everything = everything | requested
        manifest["deals"] = everything.specs()
        manifest["total_deals"] = everything.count
        if manifest.get("finished") is None and not everything - done:  # e.g. stopped while recording it
            manifest["finished"] = _utc_now()
        write_manifest(out, manifest)  # from now on DIR is a run that can be resumed; and DIR is writable
        yield Session(out, manifest, requested, done)


def _check_settings(out: str, manifest: dict, search: str, max_iters: int | None) -> None:
    found = _results_format(manifest)
    if found is None:
        raise DatasetError(f"{out} holds a run written by {TOOL} {manifest.get('version')!r}, whose results "
                           f"format this version ({__version__}) does not know: use another --out")
    if found != RESULTS_FORMAT:
        raise DatasetError(f"{out} holds results of format {found}; this version ({__version__}) writes "
                           f"format {RESULTS_FORMAT}: use another --out")
    for key, value in {"search": search, "max_iters": max_iters}.items():
        if manifest.get(key) != value:
            raise DatasetError(f"{out} holds a run with {key}={manifest.get(key)!r}, not {value!r}: "
                               "use the same settings to add to it, or another --out")


def _upgrade(manifest: dict) -> None:
    """A 0.1.0 manifest in today's form: its format written out, its `version` as the first session."""
    manifest["results_format"] = _results_format(manifest)
    if "sessions" not in manifest:
        old = manifest.pop("version", None)
        manifest["sessions"] = [] if old is None else [
            {"version": old, "started": manifest.get("started"),
             "elapsed_seconds": manifest.get("elapsed_seconds"), "deals_solved": None}]  # not recorded


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
    try:
        fd = os.open(path, os.O_RDONLY) if _flock else os.open(os.path.join(path, LOCK_NAME),
                                                                os.O_RDWR | os.O_CREAT)
    except OSError as error:
        raise DatasetError(f"cannot open {out}: {_os_problem(error)}") from None
    try:
        try:
            _flock(fd) if _flock else _lock_first_byte(fd)
        except OSError:  # held elsewhere (BlockingIOError on POSIX, PermissionError on Windows)
            raise DatasetError(f"another run is writing to {out} "
                               "(or its worker processes are still alive)") from None
        yield
    finally:
        os.close(fd)


def _posix_flock():
    """Non-blocking exclusive flock, where the OS has it (not Windows); the import is guarded there."""
    try:
        import fcntl
    except ImportError:
        return None
    return lambda fd: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


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


def first_line(error: Exception) -> str:
    """An error's message, first line only: error output is one line."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
