"""Local files replaced whole: a command stopped part-way (Ctrl-C, SIGTERM, a full disk) leaves each file
it was writing as it was before, or complete, never cut short."""
from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat
import sys
import tempfile
import time
from pathlib import Path

from .interrupts import held


@contextlib.contextmanager
def replacing(target: str | Path):
    """A path to write instead of `target` (a file, or a folder to create), which replaces `target` once
    the block ends without an error; on an error, or a signal, `target` is left as it was.

    The path is in a private folder beside `target` (same file system: a rename is atomic), so two
    writers, or a writer killed outright earlier, never share it; a writer of `target` a day later
    removes the one a killed writer left (`_sweep_dead_writers`). A folder replaces a folder in one
    step where the system can swap two paths (Linux: `_exchanged`); elsewhere by two renames, the old
    one put back if the second fails (then only SIGKILL between the two leaves the old folder aside, in
    `.NAME.*.partial/previous`). The renames and the clean-up run with Ctrl-C and SIGTERM held
    (`interrupts.held`), so a signal, or a second one, waits until they are done. A symlink's own
    target is replaced, and an existing file's permissions are kept; a file its user may not write
    is refused (PermissionError), as writing into it would be, not renamed over. /dev/stdout, devices
    and pipes are written as given: they cannot be replaced.
    """
    if _written_directly(Path(target)):
        yield Path(target)
        return
    target = Path(os.path.realpath(target))
    refuse_unwritable(target)
    _sweep_dead_writers(target)
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
                if _exchanged(temp, target):
                    return  # the old folder is now the temporary, removed below
                os.replace(target, aside)  # os.replace moves a folder only onto an empty one
            try:
                os.replace(temp, target)
            except BaseException:
                if aside.exists() and not target.exists():
                    os.replace(aside, target)
                raise
    except OSError as error:
        relabelled = _of_target(error, target)
        if relabelled is error:
            raise
        raise relabelled from error
    finally:
        if work is not None:
            with held():
                shutil.rmtree(work)


STALE_SECONDS = 24 * 3600
"""How long a private folder must have lain untouched to be a killed writer's (`_sweep_dead_writers`): a
writer touches its own when it begins a file there, and is done with it within minutes."""


def _sweep_dead_writers(target: Path) -> None:
    """Remove the private folders beside `target` that writers killed outright (kill -9) left, which
    nothing removed: those named as `replacing` names them that nobody touched for STALE_SECONDS (no
    lock says more: one may not reach another machine, or a file open in a folder can keep a network or
    FUSE disk from removing it). One holding an old folder set aside (`previous`) is kept. Best effort:
    what cannot be listed or removed is left as it was."""
    name = re.compile(re.escape(f".{target.name}.") + r"[a-z0-9_]{8}\.partial")  # tempfile.mkdtemp's names
    try:
        for folder in target.parent.iterdir():
            if name.fullmatch(folder.name) and folder.is_dir() and not folder.is_symlink() \
                    and time.time() - folder.stat().st_mtime >= STALE_SECONDS and not (folder / "previous").exists():
                shutil.rmtree(folder, ignore_errors=True)
    except (OSError, RecursionError):  # (rmtree's, on a chain of folders deeper than Python's recursion)
        pass


_WRITE_FAILED = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})
"""What a write that names no file fails with (a disk full): then it is the target's."""


def refuse_unwritable(target: Path, why: str = os.strerror(errno.EACCES)) -> None:
    """PermissionError (saying `why`) for a file its user may not write: `replacing` would rename over
    it where writing into it is refused."""
    if target.is_file() and not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, why, str(target))


def _of_target(error: OSError, target: Path) -> OSError:
    """`error` as its user knows it: of `target` where it is a write's that named no file (a disk full),
    or names one in the private folder beside it, whose name means nothing to them; else as it was (a
    failed fork in the block is no error of the target's)."""
    if error.filename is None and error.errno not in _WRITE_FAILED:
        return error
    if error.filename is not None:
        try:
            first = Path(os.fsdecode(error.filename)).relative_to(target.parent).parts[0]
        except (ValueError, IndexError):
            return error
        if not (first.startswith(f".{target.name}.") and first.endswith(".partial")):
            return error
    return OSError(error.errno, os.strerror(error.errno) if error.errno else str(error), str(target))  # (pyarrow: long)


def _exchanged(first: Path, second: Path) -> bool:
    """Swap two paths in one atomic step (Linux's renameat2 with RENAME_EXCHANGE); False, nothing
    done, where the C library or the file system has no such call."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes  # only here: a few ms that most commands never need
    except ImportError:  # a Python built without it
        return False
    swap = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if swap is None:
        return False
    current_folder, exchange = -100, 2  # AT_FDCWD, RENAME_EXCHANGE
    if swap(current_folder, os.fsencode(first), current_folder, os.fsencode(second), exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EPERM):  # EPERM: a container's syscall filter
        return False
    raise OSError(code, os.strerror(code), str(second))


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
