"""Sets of PySolFC game numbers, kept as sorted runs so that `1-1000000` costs three numbers.

`DealSet.parse(["1-1000", "ms1-ms50,42"])` reads what `run --range` takes;
`specs()` writes it back in the same syntax (merged and sorted), which is
what a run's manifest records. `DealSet.read(stream, name)` reads a `--deals`
file: the same items, one or more a line, with `#` comment lines.

Unlike `GameNumber.parse` (one number typed into PySolFC's dialog, which
drops spaces, '-', '.', ',' and '_'), ranges and lists are read strictly:
`1-5` is five deals and `1 5` or `1.5` is refused, never deal 15.
"""
from __future__ import annotations

import bisect
import codecs
import re
from dataclasses import dataclass
from itertools import chain
from typing import BinaryIO, Iterable, Iterator

from .dealing import DealNumberError, GameNumber
from .quoting import quoted

MAX_DEAL = 10**38 - 1
"""Largest number a run takes: 38 digits, what results format 1's decimal128(38, 0) `deal` held
(format 2's `deal_exact` could hold more; PySolFC's random games stay below 10^20)."""
MAX_DEAL_DIGITS = len(str(MAX_DEAL))
MAX_LINE = 1_000_000
"""Longest `--deals` line read (characters): memory stays bounded whatever the file holds."""

_ITEM = re.compile(r"\s*(ms)?([0-9]+)\s*(?:-\s*(ms)?([0-9]+)\s*)?")
"""N, msN, A-B or msA-msB, ASCII digits only, spaces allowed around the numbers."""
_ITEM_SYNTAX = "expected N, A-B, msN or msA-msB (digits only, ',' between items)"

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
    def parse(cls, specs: Iterable[str] | str) -> DealSet:
        """Read items like `1-1000`, `ms1-ms5000`, `42`, comma-separated within each spec."""
        if isinstance(specs, str):  # one spec, not its characters ("15" is not deals 1 and 5)
            specs = [specs]
        return cls.from_runs(run for spec in specs for run in _parse_spec(spec))

    @classmethod
    def read_list(cls, lines: Iterable[str], source: str) -> DealSet:
        """What `parse` reads, a spec a line; blank and `#` lines are skipped; errors name the line."""
        runs: list[Run] = []
        for number, line in enumerate(lines, 1):
            text = line.strip()
            if text and not text.startswith("#"):
                try:
                    runs.extend(_parse_spec(text))
                except DealSpecError as error:
                    raise DealSpecError(f"{source} line {number}: {error}") from None
        return cls.from_runs(runs)

    @classmethod
    def read(cls, stream: BinaryIO, source: str) -> DealSet:
        """`read_list` of a text file's bytes: UTF-8 (with or without BOM), or UTF-16/32 with a BOM.

        Windows editors save UTF-16 with a BOM; anything else that is not
        text (invalid UTF-8, NUL bytes) is refused rather than guessed at.
        """
        return cls.read_list(_text_lines(stream, source), source)

    @property
    def count(self) -> int:
        """How many deals (not `len`, which cannot exceed 2^63)."""
        return sum(last - first + 1 for _, first, last in self.runs)

    def __bool__(self) -> bool:
        return bool(self.runs)

    def __or__(self, other: DealSet) -> DealSet:
        return DealSet.from_runs(self.runs + other.runs)

    def __sub__(self, other: DealSet) -> DealSet:
        """The deals of self that are not in other: one sweep over both sorted run lists, which skips by
        bisection the runs of other that end before each run of self (a chunk's deals against a run's
        manifest of half a million scattered runs: a few steps, not the whole list)."""
        kept: list[Run] = []
        cuts, at = other.runs, 0
        for ms, first, last in self.runs:
            at = bisect.bisect_left(cuts, (ms, first), lo=at, key=lambda cut: (cut[0], cut[2]))
            while at < len(cuts) and cuts[at][0] == ms and cuts[at][1] <= last:
                cut = cuts[at]
                if cut[1] > first:
                    kept.append((ms, first, cut[1] - 1))
                first = max(first, cut[2] + 1)
                if cut[2] > last:
                    break  # this cut reaches into the next run too
                at += 1
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

    def abbreviated(self, most: int = 10) -> str:
        """`str(self)` up to `most` runs, then how many there are: a scattered set of thousands of deals
        made a line of tens of thousands of characters."""
        if len(self.runs) <= most:
            return str(self)
        return f"{','.join(_spec(run) for run in self.runs[:most])}, ... ({self.count:,} deals in all)"


def _parse_spec(spec: str) -> Iterator[Run]:
    if not isinstance(spec, str):
        raise DealSpecError(f"bad deal range {spec!r}: not text")
    items = spec.split(",")
    for index, item in enumerate(items):
        if index and _grouped(items[index - 1], item):
            raise DealSpecError(f"bad deal range {quoted(spec)}: a number with a thousands separator (',' "
                                "separates items): write 1000, not 1,000; to list two items, put a space "
                                "after the comma")
        if not item.strip() and len(items) > 1:  # '' alone named no place in what was typed
            raise DealSpecError(f"bad deal range {quoted(spec)}: an empty item (a comma too many?)")
        yield _parse_run(item)


def _grouped(before: str, after: str) -> bool:
    """Whether the comma between two items reads as a thousands separator: three digits after it, and
    before it 1 to 3 digits ending a number, with no space between (`1-1,500` was deals 1 and 500, a
    pasted `12,345` deals 12 and 345, silently); three digits from 0 after it name no deal, spaces or not
    (`1,001` was deal 1 alone)."""
    if re.match(r"\s*0[0-9]{2}\s*(-|$)", after) and before.rstrip()[-1:].isdigit():
        return True
    return bool(re.match(r"[0-9]{3}\s*(-|$)", after) and re.search(r"(^|[^0-9])[0-9]{1,3}$", before))


def _parse_run(item: str) -> Run:
    match = _ITEM.fullmatch(item)
    if match is None:
        raise DealSpecError(f"bad deal range {quoted(item)}: {_ITEM_SYNTAX}")
    first_ms, first, last_ms, last = match.groups()
    if last is None:
        last_ms, last = first_ms, first
    if first_ms != last_ms:
        raise DealSpecError(f"bad deal range {quoted(item)}: both ends must be plain numbers or both msN")
    try:
        first, last = (_number(digits, bool(first_ms)) for digits in (first, last))
    except DealNumberError as error:
        raise DealSpecError(f"bad deal range {quoted(item)}: {error}") from None
    if first > last:
        raise DealSpecError(f"bad deal range {quoted(item)}: reversed (first is greater than last)")
    return bool(first_ms), first, last


def _number(digits: str, ms: bool) -> int:
    """The number `digits` name, checked as a game number that a dataset can hold."""
    significant = digits.lstrip("0")
    if len(significant) > MAX_DEAL_DIGITS:
        raise DealNumberError(f"game number {quoted(digits)} is too large: datasets hold numbers below 10^38")
    game = GameNumber(int(significant or "0"), ms)
    if game.number > MAX_DEAL:
        raise DealNumberError(f"game number {game} is too large: datasets hold numbers below 10^38")
    return game.number


def _text_lines(stream: BinaryIO, source: str) -> Iterator[str]:
    """The lines of a text stream, decoded as its BOM says (else UTF-8), read a block at a time."""
    head = stream.read(4)
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        encoding = "utf-32"
    elif head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    else:
        encoding = "utf-8-sig"  # drops a UTF-8 BOM if there is one
    not_text = f"not {'UTF-8' if encoding == 'utf-8-sig' else encoding.upper()} text"
    decoder = codecs.getincrementaldecoder(encoding)()
    line_number, pending = 1, ""
    for block in chain([head], iter(lambda: stream.read(1 << 16), b"")):
        try:
            text = decoder.decode(block)
        except UnicodeDecodeError as error:
            bad_line = line_number + error.object[:error.start].decode(error.encoding, "replace").count("\n")
            raise DealSpecError(f"{source} line {bad_line}: {not_text}; expected a text file of game numbers"
                                ) from None
        text = pending + text
        held = "\r" if text.endswith("\r") else ""  # maybe half of a CRLF that the next block ends
        *lines, pending = _universal_newlines(text[:len(text) - len(held)]).split("\n")
        pending += held
        for line in lines:
            yield _text_line(line, source, line_number)
            line_number += 1
        _text_line(pending, source, line_number)  # a binary file is refused at its first block
        if len(pending) > MAX_LINE:
            raise DealSpecError(f"{source} line {line_number}: longer than {MAX_LINE:,} characters")
    try:
        pending += decoder.decode(b"", final=True)
    except UnicodeDecodeError:  # the file ends inside a character
        raise DealSpecError(f"{source} line {line_number}: {not_text}; the file ends inside a character") from None
    *lines, pending = _universal_newlines(pending).split("\n")
    for line in lines:
        yield _text_line(line, source, line_number)
        line_number += 1
    if pending:
        yield _text_line(pending, source, line_number)


def _universal_newlines(text: str) -> str:
    """CRLF (Windows) and a lone CR (old Macs) end lines as LF does."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _text_line(line: str, source: str, line_number: int) -> str:
    if "\0" in line:
        raise DealSpecError(f"{source} line {line_number}: a NUL character; expected a text file "
                            "of game numbers")
    return line


def _spec(run: Run) -> str:
    ms, first, last = run
    prefix = "ms" if ms else ""
    return f"{prefix}{first}" if first == last else f"{prefix}{first}-{prefix}{last}"
