"""The one check of the Python API's counts (budgets, workers, chunk and table sizes).

A count is a whole number in its range, numpy's integers included; a bool or a
float is refused, never read as one (True is no budget of 1, 2.5 no chunk size).
"""
from __future__ import annotations

import numbers


def whole_number(name: str, value, low: int, high: int | None = None) -> int:
    """`value` as an int from `low` to `high` (None: no top); ValueError naming `name` otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low or \
            (high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise ValueError(f"{name} must be a whole number {span}, not {value!r}")
    return int(value)
