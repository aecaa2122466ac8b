"""Shared helpers: the reference data in ../shared/reference, and the real CLI as a subprocess."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


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
