"""The one check of counts and lengths of time, for the Python API's arguments and the manifest's fields.

A count is a whole number in its range, numpy's integers included; a bool, a
float or a numpy timedelta64 is refused, never read as one (True is no budget of
1, 2.5 no chunk size, 100 ms no 100 positions).
A length of time is a number of seconds from 0 to MAX_SECONDS.
"""
from __future__ import annotations

import math
import numbers
import operator


def is_int_value(value) -> bool:
    """An int, or what stands for one as an index does (numpy's integers, a 0-d integer array), not a bool:
    a truth value. numpy's timedelta64 is a numbers.Integral, yet no index: a length of time would have
    passed for a count, a pile, a game number."""
    if isinstance(value, bool):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def is_truth_value(value) -> bool:
    """A bool, a numpy bool (not an array of them) or the int 0 or 1: what may say True or False. Text
    ("False"), NaN or None would have been taken by their truthiness."""
    if isinstance(value, bool):
        return True
    if getattr(getattr(value, "dtype", None), "kind", None) == "b":
        return getattr(value, "ndim", 0) == 0
    return is_int_value(value) and value in (0, 1)


def is_whole_number(value, low: int, high: float = math.inf) -> bool:
    return is_int_value(value) and low <= value <= high


MAX_SECONDS = 10**9
"""32 years: no run, wait or solve takes longer; past it a time is damage, or a typo (1e300 seconds summed to
inf in a report, and overflowed a thread's wait)."""


def is_seconds(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and 0 <= value <= MAX_SECONDS


def whole_number(name: str, value, low: int, high: int | None = None) -> int:
    """`value` as an int from `low` to `high` (None: no top); ValueError naming `name` otherwise."""
    if not is_whole_number(value, low, math.inf if high is None else high):
        span = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise ValueError(f"{name} must be a whole number {span}, not {value!r}")
    return int(value)


def seconds(name: str, value) -> float:
    """`value` as a float of seconds (-0 as 0: it was shown as "-0 s"); ValueError naming `name` otherwise."""
    if not is_seconds(value):
        raise ValueError(f"{name} must be a number of seconds from 0 to {MAX_SECONDS:,}, not {value!r}")
    return float(value) + 0.0


def check_instance(value: object, kind: type, taker: str, wanted: str) -> None:
    """TypeError unless `value` is a `kind`, saying what `taker` (e.g. "solve") wanted. One made before
    the package was imported again (a notebook's reload) looks like one to the eye, so that is said."""
    if isinstance(value, kind):
        return
    if type(value).__qualname__ == kind.__qualname__ and type(value).__module__ == kind.__module__:
        raise TypeError(f"{taker} takes a {kind.__name__} of this import of blackhole_stats, and this one was made "
                        "before the package was imported again (a notebook's reload or autoreload): make the "
                        f"{kind.__name__} again, or restart the kernel")
    raise TypeError(f"{taker} takes {wanted}, not {type(value).__name__}")
