"""Hooks that make a slow part slow on purpose, so that fault tests never race the clock.

`BLACKHOLE_STATS_TEST_PAUSE="name=seconds,other=seconds"` makes `pause("name")`
append this process's id to the file `$BLACKHOLE_STATS_TEST_PAUSE_DIR/name`
(so a test can wait until a process has got there) and then sleep, until the
seconds are up or the test creates `name.release` there (so a paused process
can go on as soon as the test has done its part). Outside tests the variable
is unset and `pause` costs one dictionary lookup.

`BLACKHOLE_STATS_TEST_FAIL="name"` makes `fail("name")` raise RuntimeError: a
library's own step failing where only a race of two signals makes it fail.
"""
from __future__ import annotations

import os
import time

PAUSE_VARIABLE = "BLACKHOLE_STATS_TEST_PAUSE"
PAUSE_DIR_VARIABLE = "BLACKHOLE_STATS_TEST_PAUSE_DIR"
FAIL_VARIABLE = "BLACKHOLE_STATS_TEST_FAIL"


def _read_pauses(spec: str) -> dict[str, float]:
    pauses = {}
    for item in filter(None, spec.split(",")):
        name, _, seconds = item.partition("=")
        pauses[name.strip()] = float(seconds)
    return pauses


_PAUSES = _read_pauses(os.environ.get(PAUSE_VARIABLE, ""))
_FAIL = os.environ.get(FAIL_VARIABLE)


def pause(name: str) -> None:
    """Announce reaching `name`, then sleep, when a test asked for it; otherwise nothing."""
    seconds = _PAUSES.get(name)
    if seconds is None:
        return
    folder = os.environ.get(PAUSE_DIR_VARIABLE)
    if not folder:
        time.sleep(seconds)
        return
    with open(os.path.join(folder, name), "a", encoding="utf-8") as marker:
        marker.write(f"{os.getpid()}\n")
    deadline = time.monotonic() + seconds
    release = os.path.join(folder, f"{name}.release")
    while time.monotonic() < deadline and not os.path.exists(release):
        time.sleep(0.01)


def fail(name: str) -> None:
    """Raise RuntimeError when a test asked for it; otherwise nothing."""
    if name == _FAIL:
        raise RuntimeError(f"test hook: {name} failed")
