"""Shared helpers: locating the independent reference data in ../shared/reference."""
from __future__ import annotations

import os
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
