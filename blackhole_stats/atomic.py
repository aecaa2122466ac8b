"""Local files replaced whole: a command stopped part-way (Ctrl-C, SIGTERM, a full disk) leaves each file
it was writing as it was before, or complete, never cut short."""
from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

from .interrupts import held


@contextlib.contextmanager
def replacing(target: str | Path):
    """A path to write instead of `target` (a file, or a folder to create), which replaces `target` once
    the block ends without an error; on an error, or a signal, `target` is left as it was.

    The path is in a private folder beside `target` (same file system: a rename is atomic), so two
    writers, or a writer killed outright earlier, never share it. A folder is swapped by two renames,
    the old one put back if the second fails; the renames and the clean-up run with Ctrl-C and SIGTERM
    held (`interrupts.held`), so a signal, or a second one, waits until they are done. A symlink's own
    target is replaced, and an existing file's permissions are kept. /dev/stdout, devices and pipes
    are written as given: they cannot be replaced. (Only SIGKILL between a folder's two renames leaves
    the old folder aside, in `.NAME.*.partial/previous`.)
    """
    if _written_directly(Path(target)):
        yield Path(target)
        return
    target = Path(os.path.realpath(target))
    work = None
    try:
        with held():
            work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
        temp, aside = work / target.name, work / "previous"
        yield temp
        with held():
            if temp.is_file() and target.is_file():
                shutil.copymode(target, temp)
            if temp.is_dir() and target.is_dir():
                os.replace(target, aside)  # os.replace moves a folder only onto an empty one
            try:
                os.replace(temp, target)
            except BaseException:
                if aside.exists() and not target.exists():
                    os.replace(aside, target)
                raise
    finally:
        if work is not None:
            with held():
                shutil.rmtree(work)


def _written_directly(target: Path) -> bool:
    """Whether `target` is /dev/stdout or the like (under /dev or /proc, or a device, pipe or socket)."""
    if target.absolute().parts[1:2] in (("dev",), ("proc",)):
        return True
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def replace_text(target: str | Path, text: str) -> None:
    """`target` replaced whole by `text` (UTF-8), as `replacing` does."""
    with replacing(target) as temp:
        temp.write_text(text, encoding="utf-8")
