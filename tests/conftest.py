"""Shared helpers: the reference data in ../shared/reference, and the real CLI as a subprocess."""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    # A background job of a non-interactive shell starts with Ctrl-C ignored, and children inherit
    # that: the CLI under test, which keeps an ignored signal ignored, would never see the SIGINT a
    # test sends, as no terminal user's would. (SIGHUP, ignored under nohup, is left to the children:
    # hang_up_as_a_shell_leaves_it.)
    signal.signal(signal.SIGINT, signal.default_int_handler)
if signal.getsignal(signal.SIGTERM) is signal.SIG_IGN:  # (`trap '' TERM` before the suite)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def shared_base() -> Path:
    override = os.environ.get("BLACKHOLE_SHARED")
    return Path(override) if override else REPO.parent / "shared"


def reference_dir() -> Path | None:
    """The reference folder: $BLACKHOLE_SHARED (shared/ or shared/reference) or <repo>/../shared."""
    base = shared_base()
    for candidate in (base / "reference", base):
        if (candidate / "pysolfc_boards.txt").is_file():
            return candidate
    return None


def reference_file(name: str) -> Path | None:
    folder = reference_dir()
    path = folder / name if folder else None
    return path if path is not None and path.is_file() else None


def require_reference(name: str) -> Path:
    """The reference file, or skip the calling test with the reason."""
    path = reference_file(name)
    if path is None:
        pytest.skip(f"reference file {name} not found under {shared_base()} "
                    "(set BLACKHOLE_SHARED to the shared/ folder, or put shared/ beside the repository)")
    return path


def reference_boards() -> list[tuple[str, str, str, str]]:
    """(deal id, gen, oracle, board text) per board of pysolfc_boards.txt; [] if it is absent."""
    path = reference_file("pysolfc_boards.txt")
    if path is None:
        return []
    boards, current = [], None
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("# deal="):
            fields = dict(item.split("=", 1) for item in line[2:].split())
            current = [fields["deal"], fields["gen"], fields["oracle"], ""]
            boards.append(current)
        elif current is not None and not line.startswith("#"):
            current[3] += line
    return [tuple(board) for board in boards]


def reference_board(deal_id: str) -> str:
    """The reference text of one deal (pysol-cards' version), skipping if the file is absent."""
    require_reference("pysolfc_boards.txt")
    return next(text for d, _, oracle, text in reference_boards()
                if d == deal_id and oracle.startswith("pysol_cards"))


RANKS = "A23456789TJQK"


def assert_plays_out(board_text: str, plays: list[tuple[int, str]]) -> None:
    """(pile, card) plays empty the board legally; checked on the text, without the package."""
    lines = board_text.rstrip("\n").split("\n")
    foundation = RANKS.index(lines[0].removeprefix("Foundations: ")[0])
    piles = [line.split() for line in lines[1:]]
    for pile, card in plays:
        assert piles[pile] and piles[pile][-1] == card, f"{card} is not on top of pile {pile}"
        assert (RANKS.index(card[0]) - foundation) % 13 in (1, 12), f"{card} does not fit"
        foundation = RANKS.index(piles[pile].pop()[0])
    assert not any(piles), "cards left over"


SCRIPT = Path(sys.executable).parent / "blackhole-stats"
"""The installed console script: tests drive the CLI exactly as a user's shell does."""


def cli(*args, stdin: bytes | None = b"", env: dict | None = None, timeout: float = 120,
        **popen) -> subprocess.CompletedProcess:
    """Run `blackhole-stats ARGS`; stdout and stderr come back as bytes."""
    return subprocess.run([str(SCRIPT), *map(str, args)], input=stdin, capture_output=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, **popen)


def assert_one_line_failure(result: subprocess.CompletedProcess, code: int = 1) -> str:
    """Exit `code` (1 bad input, 2 bad usage), nothing on stdout, one stderr line, no traceback."""
    err = result.stderr.decode("utf-8", "replace")
    assert result.returncode == code, (result.returncode, err)
    assert result.stdout == b"", result.stdout[:500]
    assert "Traceback" not in err, err
    assert len(err.splitlines()) == 1 and err.endswith("\n"), err
    return err


def pause_env(tmp_path: Path, **pauses: float) -> dict:
    """Environment that makes `_testhooks.pause(name)` announce itself under tmp_path and sleep."""
    folder = tmp_path / "pauses"
    folder.mkdir(exist_ok=True)
    spec = ",".join(f"{name}={seconds}" for name, seconds in pauses.items())
    return {"BLACKHOLE_STATS_TEST_PAUSE": spec, "BLACKHOLE_STATS_TEST_PAUSE_DIR": str(folder)}


def wait_for_pause(tmp_path: Path, name: str, process: subprocess.Popen | None = None,
                   timeout: float = 120) -> list[int]:
    """Until some process has reached `pause(name)`; returns the ids of those that have."""
    marker = tmp_path / "pauses" / name
    deadline = time.monotonic() + timeout
    while not marker.exists() or not marker.read_text().strip():
        assert process is None or process.poll() is None, process.communicate() if process else None
        assert time.monotonic() < deadline, f"nothing reached pause {name!r}"
        time.sleep(0.01)
    return [int(line) for line in marker.read_text().split()]


def release_pause(tmp_path: Path, name: str) -> None:
    """Let every process paused at `pause(name)` go on now (see `pause_env`)."""
    (tmp_path / "pauses" / f"{name}.release").touch()


def hang_up_as_a_shell_leaves_it() -> None:
    """SIGHUP at its default in the child: a suite run under `nohup` (as CI may be) ignores it, and the
    commands rightly keep a hang-up that is ignored ignored."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def signal_at_pause(tmp_path: Path, command: list, pause: str, send, inspect=None, release: bool = False,
                    timeout: float = 120, text: bool = True) -> subprocess.CompletedProcess:
    """COMMAND, started in a session of its own, signalled once it reaches `pause(name)`.

    There `inspect(pid)` runs first (if given), then `send(pid)` (e.g. SIGINT to its process group, as
    Ctrl-C does), then the pause is released if asked (else the process stays paused until the signal
    ends it). Returns what it wrote and its exit status; it is killed if it outlives the test's waits.
    """
    process = subprocess.Popen([*map(str, command)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=text,
                               start_new_session=True, env={**os.environ, **pause_env(tmp_path, **{pause: 120})},
                               preexec_fn=hang_up_as_a_shell_leaves_it)
    try:
        wait_for_pause(tmp_path, pause, process, timeout=timeout)
        if inspect is not None:
            inspect(process.pid)
        send(process.pid)
        if release:
            release_pause(tmp_path, pause)
        stdout, stderr = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def ctrl_c_at_pause(tmp_path: Path, args: list, pause: str) -> tuple[int, str]:
    """`blackhole-stats ARGS` sent Ctrl-C (SIGINT to its process group) once it reaches `pause(name)`:
    its exit status and stderr."""
    done = signal_at_pause(tmp_path, [SCRIPT, *args], pause, lambda pid: os.killpg(pid, signal.SIGINT), timeout=60)
    return done.returncode, done.stderr


def manifest_of_0_1_0(manifest: dict, finished: str | None, version: str = "0.1.0") -> dict:
    """The manifest 0.1.0 wrote (dataset.open_run and runner.run of commit a947ca0): its keys, in its order."""
    return {"tool": "blackhole-stats", "version": version, "search": manifest["search"],
            "max_iters": manifest["max_iters"], "deals": manifest["deals"], "total_deals": manifest["total_deals"],
            "started": manifest["started"], "finished": finished, "workers": manifest["workers"],
            "scheduler": manifest["scheduler"], "machine": manifest["machine"], "chunk_size": manifest["chunk_size"],
            "elapsed_seconds": manifest["elapsed_seconds"]}


def make_0_1_0_run(out: Path, finished: str | None = "keep") -> None:
    """Turn a run this version made into what 0.1.0 left, with pyarrow alone: chunk files of results
    format 1 (`deal` decimal128(38, 0), no `game` or `deal_exact`), `_manifest.json` and `_run.log`
    inside DIR, nothing beside it. `finished`: the manifest's, unless given."""
    import json
    import shutil
    from decimal import Decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    side = Path(f"{out}.run")
    for part in sorted(out.glob("part-*.parquet")):
        table = pq.read_table(part)
        numbers = [number if spelt is None else int(spelt)
                   for number, spelt in zip(table["deal"].to_pylist(), table["deal_exact"].to_pylist())]
        kept = ["ms", "outcome", "iterations", "cards_played", "solution", "seconds"]
        schema = pa.schema([pa.field("deal", pa.decimal128(38, 0), nullable=False),
                            *(table.schema.field(name) for name in kept)])
        columns = [pa.array([Decimal(number) for number in numbers], pa.decimal128(38, 0)),
                   *(table[name] for name in kept)]
        pq.write_table(pa.Table.from_arrays(columns, schema=schema), part, compression="zstd")
    manifest = json.loads((side / "manifest.json").read_text())
    old = manifest_of_0_1_0(manifest, manifest["finished"] if finished == "keep" else finished)
    (out / "_manifest.json").write_text(json.dumps(old, indent=2))
    (side / "run.log").rename(out / "_run.log")
    shutil.rmtree(side)


def fill_up(folder: Path) -> Path:
    """A file in `folder` that takes every byte its filesystem has left; returns it."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 512)
        except OSError:
            pass
    return filler


def state(pid: int) -> tuple[str, int] | None:
    """(state letter, process group) of a process, None once it is gone or a zombie."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None if fields[0] in "ZX" else (fields[0], int(fields[2]))


def unprivileged() -> list[str]:
    """A command's prefix that takes away root's right to write, remove or change any file (nothing
    when not root), so a test of a read-only file means it; skips the test where setpriv is missing."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv to run without root's right to write any file")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner"]


def as_nobody() -> list[str]:
    """A command's prefix that runs it as uid 65534, still allowed to read any file: a process limit
    (`ulimit -u`) binds only a user with few processes, never root; skips the test where root may not
    switch so (no setpriv, or a container without CAP_DAC_READ_SEARCH)."""
    prefix = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--inh-caps", "+dac_read_search",
              "--ambient-caps", "+dac_read_search"]
    if os.geteuid() != 0 or shutil.which("setpriv") is None or subprocess.run([*prefix, "true"]).returncode:
        pytest.skip("needs root, setpriv and CAP_DAC_READ_SEARCH to run as a user that a process limit binds")
    return prefix


def until(condition, what: str, timeout: float = 30) -> None:
    """Poll a condition that must come true; the timeout is only a safety net."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


@contextlib.contextmanager
def _mounted(what: str, folder: Path, *mount: str):
    """`mount ... folder` for the block, then unmounted (root only; skips the test elsewhere)."""
    if os.geteuid() != 0:
        pytest.skip(f"{what} needs root")
    folder.mkdir()
    mounted = subprocess.run(["mount", *mount, str(folder)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"{what} is not permitted here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def bind_mount(source: Path, folder: Path):
    """`source` mounted again at `folder`: one filesystem, two mount points."""
    source.mkdir()
    return _mounted("a bind mount", folder, "--bind", str(source))


def tmpfs(folder: Path, size: str = "200k"):
    """A real, tiny filesystem of our own at `folder`."""
    return _mounted("mounting a tmpfs", folder, "-t", "tmpfs", "-o", f"size={size}", "tmpfs")
