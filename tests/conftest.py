"""Shared helpers: locating the independent reference data in ../shared/reference."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def reference_dir() -> Path | None:
    """The reference folder: $BLACKHOLE_SHARED (shared/ or shared/reference) or <repo>/../shared."""
    override = os.environ.get("BLACKHOLE_SHARED")
    base = Path(override) if override else REPO.parent / "shared"
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
        pytest.skip(f"reference file {name} not found: set BLACKHOLE_SHARED or put shared/reference "
                    f"beside the repository ({REPO.parent / 'shared'})")
    return path
