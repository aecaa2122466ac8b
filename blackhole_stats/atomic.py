"""Local files replaced whole: a command stopped part-way (Ctrl-C, SIGTERM, a full disk) leaves each file
it was writing as it was before, or complete, never cut short."""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path


@contextlib.contextmanager
def replacing(target: str | Path):
    """A path to write instead of `target` (a file, or a folder to create), which replaces `target` once
    the block ends without an error; on an error, or a signal, `target` is left as it was.

    The path is in a private folder beside `target` (same file system: a rename is atomic), so two
    writers, or a writer killed outright earlier, never share it. A folder is swapped by two renames,
    the old one put back if a signal lands between them. A target that is neither a file nor a folder
    (/dev/stdout, a pipe) is written directly: it cannot be replaced. A symlink's own target is
    replaced, and an existing file's permissions are kept.
    """
    target = Path(os.path.realpath(target))
    if target.exists() and not (target.is_file() or target.is_dir()):
        yield target
        return
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
    temp, aside = work / target.name, work / "previous"
    try:
        yield temp
        if temp.is_file() and target.is_file():
            shutil.copymode(target, temp)
        if temp.is_dir() and target.is_dir():
            os.replace(target, aside)  # os.replace moves a folder only onto an empty one
        os.replace(temp, target)
    finally:
        if aside.exists() and not target.exists():
            os.replace(aside, target)
        shutil.rmtree(work)


def replace_text(target: str | Path, text: str) -> None:
    """`target` replaced whole by `text` (UTF-8), as `replacing` does."""
    with replacing(target) as temp:
        temp.write_text(text, encoding="utf-8")
