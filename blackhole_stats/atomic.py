"""Local files replaced whole: a command stopped part-way (Ctrl-C, SIGTERM, a full disk) leaves each file
it was writing as it was before, or complete, never cut short."""
from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path


@contextlib.contextmanager
def replacing(target: str | Path):
    """A temporary path beside `target` (a file or a folder) that replaces it once the block ends
    without an error; on an error the temporary is removed and `target` is untouched."""
    target = Path(target)
    temp = target.with_name(f".{target.name}.partial")
    try:
        yield temp
        if temp.is_dir() and target.is_dir():
            shutil.rmtree(target)  # os.replace moves a folder only onto an empty one
        os.replace(temp, target)
    finally:
        if temp.is_dir():
            shutil.rmtree(temp)
        elif temp.exists():
            temp.unlink()
