"""Sets of PySolFC game numbers, kept as sorted runs so that `1-1000000` costs three numbers.

`DealSet.parse(["1-1000", "ms1-ms50,42"])` reads what `run --range` takes;
`specs()` writes it back in the same syntax (merged and sorted), which is
what a run's manifest records.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

from .dealing import DealNumberError, GameNumber

MAX_DEAL = 10**38 - 1
"""Largest number a dataset can hold: its `deal` column is decimal128(38, 0)."""

Run = tuple[bool, int, int]
"""(ms, first, last): the inclusive range first..last, all `msN` or all plain."""


class DealSpecError(ValueError):
    """A range or deal list that cannot be read; the message names the bad item."""


@dataclass(frozen=True)
class DealSet:
    """Deals as disjoint, non-adjacent runs sorted plain numbers first, then ms ones."""

    runs: tuple[Run, ...] = ()

    @classmethod
    def from_runs(cls, runs: Iterable[Run]) -> DealSet:
        """Sort and merge overlapping or adjacent runs."""
        merged: list[Run] = []
        for ms, first, last in sorted(runs):
            if merged and merged[-1][0] == ms and first <= merged[-1][2] + 1:
                merged[-1] = (ms, merged[-1][1], max(last, merged[-1][2]))
            else:
                merged.append((ms, first, last))
        return cls(tuple(merged))

    @classmethod
    def from_games(cls, games: Iterable[GameNumber]) -> DealSet:
        return cls.from_runs((game.ms, game.number, game.number) for game in games)

    @classmethod
    def parse(cls, specs: Iterable[str]) -> DealSet:
        """Read items like `1-1000`, `ms1-ms5000`, `42`, comma-separated within each spec."""
        return cls.from_runs(_parse_run(item.strip()) for spec in specs for item in spec.split(","))

    @classmethod
    def read_list(cls, lines: Iterable[str], source: str) -> DealSet:
        """One game number per line (blank lines skipped); errors name `source` and the line."""
        games = []
        for number, line in enumerate(lines, 1):
            if line.strip():
                try:
                    games.append(_checked(GameNumber.parse(line)))
                except DealNumberError as error:
                    raise DealSpecError(f"{source} line {number}: {error}") from None
        return cls.from_games(games)

    @property
    def count(self) -> int:
        """How many deals (not `len`, which cannot exceed 2^63)."""
        return sum(last - first + 1 for _, first, last in self.runs)

    def __bool__(self) -> bool:
        return bool(self.runs)

    def __or__(self, other: DealSet) -> DealSet:
        return DealSet.from_runs(self.runs + other.runs)

    def __sub__(self, other: DealSet) -> DealSet:
        """The deals of self that are not in other (one sweep over both sorted run lists)."""
        kept: list[Run] = []
        cuts = iter(other.runs)
        cut = next(cuts, None)
        for ms, first, last in self.runs:
            while cut is not None and (cut[0], cut[2]) < (ms, first):
                cut = next(cuts, None)
            while cut is not None and cut[0] == ms and cut[1] <= last:
                if cut[1] > first:
                    kept.append((ms, first, cut[1] - 1))
                first = max(first, cut[2] + 1)
                if cut[2] > last:
                    break  # this cut reaches into the next run too
                cut = next(cuts, None)
            if first <= last:
                kept.append((ms, first, last))
        return DealSet(tuple(kept))

    def chunks(self, size: int) -> Iterator[DealSet]:
        """Consecutive pieces of at most `size` deals, in order; lazy, so huge sets are fine."""
        runs: list[Run] = []
        room = size
        for ms, first, last in self.runs:
            while first <= last:
                take = min(room, last - first + 1)
                runs.append((ms, first, first + take - 1))
                first += take
                room -= take
                if not room:
                    yield DealSet(tuple(runs))
                    runs, room = [], size
        if runs:
            yield DealSet(tuple(runs))

    def games(self) -> Iterator[GameNumber]:
        for ms, first, last in self.runs:
            for number in range(first, last + 1):
                yield GameNumber(number, ms)

    def specs(self) -> list[str]:
        """The runs in `--range` syntax: `["1-1000", "1005", "ms1-ms50"]`."""
        return [_spec(run) for run in self.runs]

    def __str__(self) -> str:
        return ",".join(self.specs())


def _parse_run(item: str) -> Run:
    ends = item.split("-")
    if not item or len(ends) > 2:
        raise DealSpecError(f"bad deal range {item!r}: expected N, A-B, msN or msA-msB")
    try:
        first, last = (_checked(GameNumber.parse(end)) for end in (ends[0], ends[-1]))
    except DealNumberError as error:
        raise DealSpecError(f"bad deal range {item!r}: {error}") from None
    if first.ms != last.ms:
        raise DealSpecError(f"bad deal range {item!r}: both ends must be plain numbers or both msN")
    if first.number > last.number:
        raise DealSpecError(f"bad deal range {item!r}: reversed (first is greater than last)")
    return first.ms, first.number, last.number


def _checked(game: GameNumber) -> GameNumber:
    if game.number > MAX_DEAL:
        raise DealNumberError(f"game number {game} is too large: datasets hold numbers below 10^38")
    return game


def _spec(run: Run) -> str:
    ms, first, last = run
    prefix = "ms" if ms else ""
    return f"{prefix}{first}" if first == last else f"{prefix}{first}-{prefix}{last}"
