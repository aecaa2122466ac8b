#!/usr/bin/env python3
"""Throw random and mutated inputs at every command of the installed `blackhole-stats` CLI.

Each input is one real subprocess (plus, for `run`, a `verify` of what it
wrote): game numbers for `deal` and `solve`; boards from `deal` and random
positions, mutated token by token and byte by byte, as --board files and on
stdin; --range strings and --deals files (encodings, BOMs, binary, comments,
CR line ends) with odd --workers/--chunk-size/--max-iters/--out values; run
directories with damaged manifests and part files for `verify`, `report` and
resumed runs (README's layout: part files in DIR, the manifest in
DIR.run/manifest.json; some runs in 0.1.0's layout, format 1 with
DIR/_manifest.json). The expected result comes from independent references written
here from the README (a board grammar, a brute-force solver for small
positions, the range grammar, the Parquet schema, and what pandas/pyarrow and
DuckDB/polars globs would read), never from the package itself.

Classes, per input:
  ok             exit 0 (solve: 0/3/4) and the output agrees with the references; or a quiet
                 exit 141 when stdout's reader has gone (README: `| head`)
  clean error    exit 1 or 2, exactly one stderr line (at most 4 KiB), no traceback (usage
                 errors too: README says one line)
  TRACEBACK      'Traceback' or 'Exception ignored' on stderr, a signal (but the one an
                 interrupted run was sent, once it said how to resume), or an exit status
                 other than 0-4, 141
  HANG           over --timeout, or worker processes left running after exit
  WRONG DATASET  after a run: rows not exactly the deals asked for (read with
                 pyarrow directly), duplicates, a manifest that disagrees, or
                 `verify` fails; after damage: `verify` (or a resumed `run`, or a
                 silent `report`) passes a directory that readers would
                 double-count or fail on
  WRONG OUTPUT   a success whose output contradicts the references (an illegal
                 solution, a wrong verdict on a small position, a misread game
                 number, success with stdout closed), an invalid input accepted,
                 or a valid one refused
  MESSY ERROR    exit 1 or 2 but not exactly one stderr line
Every input that is not ok or a clean error is written to --out as a
reproducer: case.json (argv, stdin mode, class, reason), files/ (the exact
input files), stdin.bin, stdout.txt, stderr.txt and repro.sh. Exit status 1
if any input failed that way, else 0.

Cost: one CLI start is ~0.13 CPU-s (deal, solve) or ~0.7 (run, verify, report
import pyarrow), so three inputs in four are game numbers and boards, and runs
are 1-6 deals (100-1000 for the interrupted ones). Measured with --jobs 2 on the
project's 2 cores, shared with other work: 10,000 inputs took 38 minutes
(4.4 inputs/s, 46 CPU-minutes: about 23 minutes on two idle cores); 2,000
took 8-12 minutes.

    python scripts/fuzz_cli.py -n 2000 --jobs 2 --seed 1
    python scripts/fuzz_cli.py --seed 1 --input 1234        # one input again
    python scripts/fuzz_cli.py --commands solve,deal -n 500
"""
from __future__ import annotations

import argparse
import gzip
import itertools
import json
import multiprocessing
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, NamedTuple

if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)  # the references read game numbers of any length

COMMANDS = ("deal", "solve", "run", "verify", "report")
WEIGHTS = {"deal": 25, "solve": 50, "run": 11, "verify": 9, "report": 5}
"""How often each command is fuzzed: cheap starts (deal, solve) most of the time."""
FAILING = ("TRACEBACK", "HANG", "WRONG DATASET", "WRONG OUTPUT", "MESSY ERROR")
CLASSES = ("ok", "clean error", *FAILING)
MESSAGE_LIMIT = 4096
"""A longer error message (e.g. one that echoes a huge input line) is not a clear one."""
FUZZER_BUG = "fuzzer bug"
"""An exception in this script itself (its traceback goes to OUT/FUZZER-BUG/); exit status 2."""
CWD = "{CWD}"
"""Placeholder in an argv for the input's working directory (absolute URLs need it)."""

# ------------------------------------------------------------------ references: cards, boards

RANKS = "A23456789TJQK"
SUITS = "CSHD"
CARDS = tuple(rank + suit for suit in SUITS for rank in RANKS)
CARD_SET = frozenset(CARDS)
SYMBOLS = {"♣": "C", "♠": "S", "♥": "H", "♦": "D"}
NUM_PILES, PILE_SIZE = 17, 3
FOUNDATION_PREFIX = "Foundations: "
MS_MAX = 2**33 - 1
DATASET_LIMIT = 10**38
"""Datasets hold game numbers below this (`--range` refuses numbers >= 10^38)."""
MAX_DIGITS = 4000
"""Beyond this many digits `deal`/`solve` may refuse a number (README: no upper bound)."""
BRUTE_FORCE_CARDS = 14
"""Positions with at most this many cards get an exact verdict from `brute_force`."""


class Position(NamedTuple):
    foundation: str
    piles: tuple[tuple[str, ...], ...]  # NUM_PILES piles, bottom card first

    @property
    def cards(self) -> int:
        return sum(map(len, self.piles))


def rank(card: str) -> int:
    return RANKS.index(card[0])


def fits(card: str, foundation: str) -> bool:
    return (rank(card) - rank(foundation)) % 13 in (1, 12)


def parse_board(data: bytes) -> Position | str:
    """The README's board text: a Position, or why `data` is not one. A byte-order mark first, CRLF line
    ends, blank lines before the board or after its last pile are fine; cards are separated by spaces
    (one or more), and a pile's line does not start with one; at most 1,000 lines."""
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return "not UTF-8"
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if len(lines) > MAX_BOARD_LINES:
        return "more than 1,000 lines"
    if any(len(line.removesuffix("\r")) > MAX_BOARD_LINE for line in lines):
        return "a line of more than 4,096 characters"
    lines = [line.removesuffix("\r") for line in lines]
    if any("\r" in line for line in lines):
        return "a '\\r' other than a CRLF line end"
    while lines and lines[0] == "":
        lines.pop(0)
    while len(lines) > NUM_PILES + 1 and lines[-1] == "":
        lines.pop()
    if not lines or not lines[0].startswith(FOUNDATION_PREFIX):
        return "no 'Foundations: ' line first"
    foundation = [token for token in lines[0][len(FOUNDATION_PREFIX):].split(" ") if token]
    if len(foundation) != 1 or foundation[0] not in CARD_SET:
        return f"foundation {lines[0][len(FOUNDATION_PREFIX):][:20]!r} is not one card"
    foundation = foundation[0]
    if len(lines) - 1 > NUM_PILES:
        return "more than 17 piles"
    seen = {foundation}
    piles = []
    for line in lines[1:]:
        if line.startswith(" "):
            return "a pile's line starts with a space"
        tokens = [token for token in line.split(" ") if token]
        if len(tokens) > PILE_SIZE:
            return "more than 3 cards in a pile"
        for token in tokens:
            if token not in CARD_SET:
                return f"unknown card {token[:20]!r}"
            if token in seen:
                return f"card {token} twice"
            seen.add(token)
        piles.append(tuple(tokens))
    piles += [()] * (NUM_PILES - len(piles))
    return Position(foundation, tuple(piles))


def parse_pretty(text: str) -> Position | str:
    """`deal --format pretty`: 'Foundation: A♠' then 'NN: 10♦ J♣ ...' or '(empty)' per pile."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if len(lines) != NUM_PILES + 1 or not lines[0].startswith("Foundation: "):
        return "not 18 lines starting with 'Foundation: '"

    def card(token: str) -> str:
        code = token[:-1].replace("10", "T") + SYMBOLS.get(token[-1:], "?")
        return code if code in CARD_SET else "?"

    piles = []
    for index, line in enumerate(lines[1:]):
        label, _, rest = line.partition(":")
        if label.strip() != str(index):
            return f"pile line {index} is numbered {label!r}"
        tokens = [] if rest.strip() == "(empty)" else [card(t) for t in rest.split()]
        piles.append(tuple(tokens))
    return Position(card(lines[0].split(": ", 1)[1].strip()), tuple(piles))


def deal_problem(position: Position | str) -> str | None:
    """A fresh deal: Ace of Spades on the foundation, 17 piles of 3, 52 distinct cards."""
    if isinstance(position, str):
        return position
    cards = [position.foundation, *itertools.chain(*position.piles)]
    if position.foundation != "AS" or any(len(p) != PILE_SIZE for p in position.piles):
        return "not Ace of Spades and 17 piles of 3"
    if sorted(cards) != sorted(CARDS):
        return "not the 52 cards once each"
    return None


def replay(position: Position, moves: list[tuple[int, str]]) -> str | None:
    """Why `moves` (pile, card) is not legal play from `position`, or None."""
    piles = [list(p) for p in position.piles]
    foundation = position.foundation
    for step, (pile, card) in enumerate(moves, 1):
        if not (isinstance(pile, int) and 0 <= pile < NUM_PILES) or not piles[pile] or piles[pile][-1] != card:
            return f"move {step}: {card} is not on top of pile {pile}"
        if not fits(card, foundation):
            return f"move {step}: {card} does not fit on {foundation}"
        foundation = piles[pile].pop()
    return None


def brute_force(position: Position) -> int:
    """The most cards any line of play moves out (== position.cards when it can be won)."""
    piles = position.piles

    @lru_cache(maxsize=None)
    def best(heights: tuple[int, ...], foundation: int) -> int:
        most = 0
        for pile, height in enumerate(heights):
            if height and (rank(piles[pile][height - 1]) - foundation) % 13 in (1, 12):
                after = heights[:pile] + (height - 1,) + heights[pile + 1:]
                most = max(most, 1 + best(after, rank(piles[pile][height - 1])))
                if most == sum(heights):
                    break
        return most

    return best(tuple(map(len, piles)), rank(position.foundation))


def chain_problem(cards: list[str]) -> str | None:
    """A whole game's play order without its deal: 51 distinct cards, each one rank from the last."""
    if len(cards) != 51 or len(set(cards)) != 51 or not set(cards) <= CARD_SET - {"AS"}:
        return f"not the 51 cards once each ({len(cards)} cards)"
    previous = "AS"
    for step, card in enumerate(cards, 1):
        if not fits(card, previous):
            return f"move {step}: {card} does not fit on {previous}"
        previous = card
    return None

# ------------------------------------------------------------------ references: game numbers and ranges


def game_name(key: tuple[bool, int]) -> str:
    return f"ms{key[1]}" if key[0] else str(key[1])


def pysol_reading(token: str) -> str | None:
    """How PySolFC's game-number dialog reads `token` (README, issue 7): the canonical name or None.

    It strips spaces, '#', '-', '_', '.' and ',' and a trailing 'L' from a plain number; 'ms' is
    case-sensitive and only digits follow it (PySolFC's `ms([0-9]+)`).
    """
    body = token.strip()
    ms = body.startswith("ms")
    body = body[2:] if ms else body
    if ms and not (body.isascii() and body.isdigit()):
        return None
    if re.sub(r"[\s#_.,]", "", body).startswith("-"):
        return None
    digits = re.sub(r"[\s#\-_.,]", "", body)
    digits = digits[:-1] if digits.endswith("L") else digits
    if not digits or not all(unicodedata.category(c) == "Nd" for c in digits):
        return None
    number = int(digits)
    if number < 1 or (ms and number > MS_MAX):
        return None
    return f"ms{number}" if ms else str(number)


def game_expectation(token: str) -> tuple[str, str | None]:
    """('accept'|'either'|'refuse', canonical name) for a game number typed to deal/solve."""
    canonical = pysol_reading(token)
    if canonical is None:
        return "refuse", None
    digits = canonical.removeprefix("ms")
    if len(digits) > MAX_DIGITS:
        return "either", canonical
    if re.fullmatch(r"(ms)?[0-9]+", token) and token.lstrip("ms").lstrip("0") == digits:
        return "accept", canonical
    return "either", canonical


Runs = tuple[tuple[bool, int, int], ...]
"""A set of deals: sorted, merged (ms, first, last) runs."""
REFUSE = None
"""An item option meaning 'the CLI must refuse this'."""


def merge(runs: Iterable[tuple[bool, int, int]]) -> Runs:
    merged: list[list] = []
    for ms, first, last in sorted(runs):
        if merged and merged[-1][0] == ms and first <= merged[-1][2] + 1:
            merged[-1][2] = max(merged[-1][2], last)
        else:
            merged.append([ms, first, last])
    return tuple(map(tuple, merged))


def runs_count(runs: Runs) -> int:
    return sum(last - first + 1 for _, first, last in runs)


def runs_text(runs: Runs, limit: int = 6) -> str:
    names = [game_name((ms, a)) if a == b else f"{game_name((ms, a))}-{game_name((ms, b))}"
             for ms, a, b in runs]
    return ",".join(names[:limit]) + (",..." if len(names) > limit else "") if names else "(none)"


def strict_item(text: str, ranges: bool) -> tuple[str, Runs | str]:
    """The documented grammar: N, msN (and A-B, msA-msB when `ranges`).

    ('ok', runs) | ('invalid', why): well formed but out of bounds | ('malformed', why).
    """
    pattern = r"(ms)?([0-9]+)(?:-(ms)?([0-9]+))?" if ranges else r"(ms)?([0-9]+)"
    match = re.fullmatch(pattern, text)
    if not match:
        return "malformed", f"{text[:30]!r} is not N or msN" + (" or A-B" if ranges else "")
    groups = match.groups() + (None, None)
    ms1, a, ms2, b = groups[:4]
    if b is None:
        ms2, b = ms1, a
    if bool(ms1) != bool(ms2):
        return "invalid", "mixed ms and plain ends"
    if max(len(a), len(b)) > MAX_DIGITS + 10:
        return "invalid", "too many digits"
    first, last, ms = int(a), int(b), bool(ms1)
    if first < 1 or (ms and last > MS_MAX) or (not ms and last >= DATASET_LIMIT):
        return "invalid", "out of bounds"
    if first > last:
        return "invalid", "reversed"
    return "ok", ((ms, first, last),)


_NORMALIZATIONS: tuple[Callable[[str], str], ...] = (
    lambda s: re.sub(r"(?<=\d)_(?=\d)", "", s),            # digit grouping 1_000
    lambda s: re.sub(r"^#\s*", "", s),                     # PySolFC's '#12'
    lambda s: re.sub(r"(?<=\d)L(?=$|\s*-)", "", s),        # Python 2's long suffix
    lambda s: re.sub(r"(?i)m\s*s\s*(?=\d)", "ms", s),      # 'MS 5', 'ms 5'
    lambda s: re.sub(r"\s*[-\u2012\u2013\u2014]\s*", "-", s),  # '1 - 3', dashes
    lambda s: re.sub(r"^\+|(?<=-)\+", "", s),              # '+5'
    lambda s: re.sub(r"^ms(\d+)-(\d+)$", r"ms\1-ms\2", s),
    lambda s: re.sub(r"\d", lambda m: str(unicodedata.decimal(m.group())), s),  # other digits
)
_LINE_NORMALIZATIONS = (lambda s: re.sub(r"\s*#.*$", "", s),)  # '5  # a comment'


def item_options(text: str, ranges: bool) -> set:
    """Every reading the CLI may give one item (a --range item or a --deals line); REFUSE if it may refuse.

    Well-formed valid items have exactly one reading. Odd spellings may be refused or read
    by a harmless normalization, or as the list they look like ('1 5' is 1 and 5), never
    collapsed into another number ('1 5' is not 15, '1.5' is nothing).
    """
    stripped = text.strip()
    if not stripped:
        return {(), REFUSE} if ranges else {()}
    kind, value = strict_item(stripped, ranges)
    if kind == "ok":
        return {value}
    if kind == "invalid":
        return {REFUSE}
    options: set = {REFUSE}
    norms = _NORMALIZATIONS + (() if ranges else _LINE_NORMALIZATIONS)
    candidates = {stripped, *(norm(stripped) for norm in norms)}
    composed = stripped
    for norm in norms:
        composed = norm(composed)
    candidates.add(composed)
    if not ranges and stripped.startswith("#"):
        options.add(())  # a comment line
    for candidate in candidates:
        candidate = candidate.strip()
        if not candidate:
            if not ranges:
                options.add(())
            continue
        for parts in ([candidate], [p for p in re.split(r"[\s,]+", candidate) if p]):
            readings = [strict_item(part, ranges=True) for part in parts]
            if parts and all(kind == "ok" for kind, _ in readings):
                options.add(merge(itertools.chain(*(runs for _, runs in readings))))
    return options


@dataclass
class Reading:
    """What a --range/--deals combination may be read as: alternatives of per-item option sets."""

    alternatives: list[list[set]]
    refusal_ok: bool = False

    @property
    def must_refuse(self) -> bool:
        return not any(all(any(o is not REFUSE for o in options) for options in alt)
                       for alt in self.alternatives)

    @property
    def must_accept(self) -> bool:
        return (not self.refusal_ok and len(self.alternatives) == 1
                and all(REFUSE not in options for options in self.alternatives[0]))

    def canonical(self) -> Runs | None:
        """The single reading of a must-accept input."""
        if not self.must_accept:
            return None
        sets = [options for options in self.alternatives[0]]
        if any(len(options) != 1 for options in sets):
            return None
        return merge(itertools.chain(*(next(iter(options)) for options in sets)))

    def largest(self) -> int:
        return max((runs_count(o) for alt in self.alternatives for options in alt for o in options
                    if o is not REFUSE), default=0)

    def allows(self, got: Runs, base: Runs = (), limit: int = 50000) -> bool | None:
        """Whether `got` is one of the readings, added to `base` (None: too many combinations to tell)."""
        for alt in self.alternatives:
            choices = [[o for o in options if o is not REFUSE] for options in alt]
            combos = 1
            for options in choices:
                combos *= max(1, len(options))
            if combos > limit:
                return None
            if any(not options for options in choices):
                continue
            for choice in itertools.product(*choices):
                if merge(itertools.chain(base, *choice)) == got:
                    return True
        return False


def read_deal_file(data: bytes) -> tuple[list[list[set]], bool]:
    """(alternative item lists, refusal_ok) for a --deals file: one game number per line."""
    alternatives, refusal_ok = [], False
    texts = []
    try:
        text = data.decode("utf-8")
        if text.startswith("\ufeff"):
            refusal_ok = True
            text = text[1:]
        texts.append(text)
    except UnicodeDecodeError:
        refusal_ok = True
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            try:
                texts.append(data.decode("utf-16"))
            except UnicodeDecodeError:
                pass
    for text in texts:
        lines = re.split(r"\r\n|\r|\n", text)
        alternatives.append([item_options(line, ranges=False) for line in lines])
    if not alternatives:
        alternatives = [[{REFUSE}]]
    return alternatives, refusal_ok


def reading_of(range_args: list[str], deal_file: bytes | None) -> Reading:
    items = [item_options(item, ranges=True) for spec in range_args for item in spec.split(",")]
    if deal_file is None:
        return Reading([items])
    alternatives, refusal_ok = read_deal_file(deal_file)
    return Reading([items + alt for alt in alternatives], refusal_ok)

# ------------------------------------------------------------------ references: datasets

OUTCOMES = ("solved", "unsolved", "intractable")
DICTIONARY = "dictionary<values=string, indices=int8, ordered=0>"
SCHEMA_TEXT = [("game", DICTIONARY), ("deal", "int64"), ("ms", "bool"), ("outcome", DICTIONARY),
               ("iterations", "int64"), ("cards_played", "int8"), ("solution", "string"),
               ("seconds", "double"), ("deal_exact", "string")]
"""README's column table (results format 2), as pyarrow spells the types."""
SCHEMA_V1_TEXT = [("deal", "decimal128(38, 0)"), ("ms", "bool"), ("outcome", DICTIONARY),
                  ("iterations", "int64"), ("cards_played", "int8"), ("solution", "string"),
                  ("seconds", "double")]
"""Results format 1 (0.1.0): `report` and `verify` still read it."""
MAX_BOARD_LINES, MAX_BOARD_LINE = 1000, 4096
"""README: a board file of more than 1,000 lines, or a line of more than 4,096 characters, is refused."""
PART_NAME = re.compile(r"part-(ms)?\d+-(ms)?\d+-\d+\.parquet")
"""README: DIR holds one `part-<first>-<last>-<count>.parquet` per chunk."""
SIDE, MANIFEST, OLD_MANIFEST, OLD_LOG = ".run", "manifest.json", "_manifest.json", "_run.log"
"""README: the manifest lives in DIR.run/manifest.json; 0.1.0 kept _manifest.json and _run.log in DIR."""
MANIFEST_TYPES = {
    "tool": lambda v: isinstance(v, str), "search": lambda v: isinstance(v, str),
    "results_format": lambda v: _count(v, 1), "version": lambda v: isinstance(v, str),
    "max_iters": lambda v: v is None or _count(v, 1), "total_deals": lambda v: _count(v, 0),
    "chunk_size": lambda v: v is None or _count(v, 1), "workers": lambda v: v is None or _count(v, 0),
    "scheduler": lambda v: v is None or isinstance(v, str), "started": lambda v: v is None or isinstance(v, str),
    "finished": lambda v: v is None or isinstance(v, str), "machine": lambda v: v is None or isinstance(v, dict),
    "elapsed_seconds": lambda v: v is None or isinstance(v, (int, float)) and not isinstance(v, bool)
    and 0 <= v < float("inf"),
    "sessions": lambda v: isinstance(v, list) and all(isinstance(s, dict) for s in v),
    "game": lambda v: isinstance(v, str), "iterations_revision": lambda v: _count(v, 1),
    "difficulty_scale": lambda v: v is None or isinstance(v, str)}
"""README's manifest fields and what each holds; `verify` may refuse a field of another type."""


def _count(value, least: int) -> bool:
    return type(value) is int and value >= least


def manifest_path(root: Path) -> Path | None:
    """Where README puts the run's manifest: DIR.run/manifest.json, else 0.1.0's DIR/_manifest.json."""
    for path in (root.parent / (root.name + SIDE) / MANIFEST, root / OLD_MANIFEST):
        if path.exists() or path.is_symlink():
            return path
    return None


@dataclass
class Verdict:
    """What a directory is for its readers: 'good', 'bad' or 'doubtful' (either answer is fair)."""

    state: str
    reason: str = ""
    expected: Runs | None = None
    manifest: dict | None = None


def _manifest_verdict(root: Path) -> Verdict:
    path = manifest_path(root)
    doubtful = []
    if path is None:
        return Verdict("bad", "no manifest (DIR.run/manifest.json or 0.1.0's DIR/_manifest.json)")
    try:
        data = path.read_bytes()
        manifest = json.loads(data)  # detects UTF-16 and UTF-32 as the JSON RFC allows
        if not data.startswith(b"{"):
            doubtful.append("encoding")
    except (OSError, ValueError, RecursionError) as error:
        return Verdict("bad", f"{path.name} is not JSON ({type(error).__name__})")
    if not isinstance(manifest, dict):
        return Verdict("bad", f"{path.name} is not an object")
    deals = manifest.get("deals")
    if not isinstance(deals, list) or not all(isinstance(spec, str) for spec in deals):
        return Verdict("bad", "the manifest's deals are not a list of ranges")
    runs = []
    for spec in deals:
        for item in spec.split(","):
            kind, value = strict_item(item, ranges=True)
            if kind != "ok":
                return Verdict("bad", f"the manifest's deals hold {item[:30]!r}")
            runs += value
    expected = merge(runs)
    max_iters = manifest.get("max_iters")
    if max_iters is not None and (type(max_iters) is not int or not 1 <= max_iters <= 2**63 - 1):  # README's range
        return Verdict("bad", f"the manifest's max_iters is {max_iters!r}", expected, manifest)
    if manifest.get("tool") != "blackhole-stats":
        doubtful.append("tool")
    if manifest.get("search") not in ("fast", "classic"):
        doubtful.append("search")
    if not (isinstance(manifest.get("version"), str)  # written by 0.1.0
            or isinstance(manifest.get("results_format"), int) and isinstance(manifest.get("sessions"), list)):
        doubtful.append("results_format/sessions")
    if manifest.get("total_deals") != runs_count(expected):
        doubtful.append("total_deals")
    if manifest.get("finished") is None or not isinstance(manifest.get("elapsed_seconds"), (int, float)):
        doubtful.append("finished/elapsed_seconds")
    doubtful += [key for key, valid in MANIFEST_TYPES.items() if key in manifest and not valid(manifest[key])]
    doubtful += [key for key in manifest if key not in MANIFEST_TYPES and key != "deals"]
    if path.name == OLD_MANIFEST:
        doubtful.append("0.1.0's layout (polars reads its _manifest.json in DIR)")
    if doubtful:
        return Verdict("doubtful", "manifest fields " + ", ".join(doubtful), expected, manifest)
    return Verdict("good", "", expected, manifest)


def _row_problem(row: dict, max_iters, boards: dict) -> str | None:
    """A row that disagrees with itself, with the run's budget, or with its deal's board."""
    deal, ms, exact = row["deal"], row["ms"], row.get("deal_exact")
    if "game" in row and row["game"] != "black_hole":
        return f"deal {deal}: game {row['game']!r}"
    if "deal_exact" in row and (deal is None) == (exact is None):
        return f"deal {deal}: deal_exact {exact!r} beside deal {deal!r} (README: exactly one of them)"
    if deal is None and exact is not None:
        if not re.fullmatch(r"[1-9][0-9]*", exact) or int(exact) < 2**63:
            return f"deal_exact {exact[:40]!r}: not a game number of 2^63 or more"
        deal = int(exact)
    name = game_name((bool(ms), int(deal))) if deal is not None and ms is not None else repr(deal)
    outcome, played, solution, iterations = row["outcome"], row["cards_played"], row["solution"], row["iterations"]
    if None in (deal, ms, outcome, iterations, row["seconds"]):
        return f"deal {name}: a null in a column that may not hold one"
    if played is None:  # README: only an unsolvable deal whose best line --max-iters cut short
        if outcome == "unsolved" and max_iters is not None and solution is None:
            return None
        return f"deal {name}: {outcome} with a null cards_played (max_iters {max_iters})"
    if int(deal) != deal or deal < 1 or (ms and deal > MS_MAX):
        return f"deal {name}: not a game number"
    if outcome not in OUTCOMES:
        return f"deal {name}: outcome {outcome!r}"
    if outcome == "intractable" and (max_iters is None or iterations < max_iters):
        return f"deal {name}: intractable after {iterations} iterations, budget {max_iters}"
    if outcome != "intractable" and max_iters is not None and iterations > max_iters:
        return f"deal {name}: {outcome} after {iterations} iterations, over the budget {max_iters}"
    if outcome != "solved":
        if solution is not None or not 0 <= played < 51:
            return f"deal {name}: {outcome} with cards_played {played} and a solution {solution is not None}"
        return None
    if played != 51 or not isinstance(solution, str):
        return f"deal {name}: solved with cards_played {played} and solution {str(solution)[:20]!r}"
    cards = solution.split(" ")
    problem = chain_problem(cards)
    board = boards.get((bool(ms), int(deal)))
    if problem is None and board is not None:
        piles = {card: index for index, pile in enumerate(board.piles) for card in pile}
        problem = replay(board, [(piles.get(card, -1), card) for card in cards])
    return f"deal {name}: solution does not replay: {problem}" if problem else None


def _documented_schema(schema) -> bool:
    try:
        return [(f.name, str(f.type)) for f in schema] in (SCHEMA_TEXT, SCHEMA_V1_TEXT)
    except UnicodeDecodeError:  # damage inside a column name
        return False


def _deal_key(row: dict) -> tuple[bool, int]:
    deal = row["deal"] if row["deal"] is not None else row.get("deal_exact")
    return bool(row["ms"]), int(deal)


def _rows_verdict(tables: list, expected: Runs, max_iters, boards: dict, reader: str) -> str | None:
    keys: Counter = Counter()
    for table in tables:
        if not _documented_schema(table.schema):
            return f"{reader} reads another schema"
        for row in table.to_pylist():
            problem = _row_problem(row, max_iters, boards)
            if problem:
                return f"{reader} reads a bad row: {problem}"
            keys[_deal_key(row)] += 1
    repeated = sorted(key for key, n in keys.items() if n > 1)
    if repeated:
        return f"{reader} double-counts deals {runs_text(merge((ms, n, n) for ms, n in repeated))}"
    got = merge((ms, n, n) for ms, n in keys)
    if got != expected:
        return f"{reader} reads deals {runs_text(got)}, the manifest asks for {runs_text(expected)}"
    return None


def read_by(relative: str, size: int) -> list[str]:
    """README's readers of the bare DIR that pick up the file at `relative` (a path under DIR)."""
    readers = []
    if not any(part.startswith((".", "_")) for part in relative.split("/")):
        readers.append("pandas/pyarrow")
    if relative.endswith(".parquet"):
        readers.append("DuckDB")
    if size != 0:
        readers.append("polars")
    return readers


def reader_files(root: Path) -> list[tuple[str, list[str]]]:
    """(path under DIR, readers) for every file (or symlink) under DIR that some reader picks up."""
    found = []
    for folder, dirs, names in os.walk(root):
        for name in names + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            path = Path(folder) / name
            relative = str(path.relative_to(root))
            try:
                size = path.stat().st_size if path.is_file() else -1
            except OSError:
                size = -1  # a dangling or looping link: a reader that lists it fails on it
            readers = read_by(relative, size)
            if readers:
                found.append((relative, readers))
    return sorted(found)


def _copied_rows(root: Path, stray: str) -> str:
    """', so readers double-count deals ...' when the stray file holds rows the part files hold too."""
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(str(root / stray))
        theirs = {_deal_key(row) for row in table.to_pylist()} if _documented_schema(table.schema) else set()
        ours = Counter(glob_keys(root) or {})
    except Exception:
        return ""
    again = sorted(key for key in theirs if ours[key] > 1)
    return f", so every reader double-counts deals {runs_text(merge((ms, n, n) for ms, n in again))}" if again else ""


def strays(root: Path) -> list[str]:
    """Files under DIR that a reader picks up but that are not the run's (README: `run` refuses to add beside them)."""
    return [relative for relative, _ in reader_files(root) if not PART_NAME.fullmatch(relative)
            and not _temporary(relative) and relative not in (OLD_MANIFEST, OLD_LOG)]


def _temporary(name: str) -> bool:
    return bool(re.fullmatch(r"\..*\.tmp", name))


def _recorded_settings(schema) -> dict | None:
    """README: each part records in its Parquet metadata the settings its rows were solved with (game,
    search, max_iters, ...): the metadata value that is a JSON object holding those, if any."""
    for value in (schema.metadata or {}).values():
        try:
            found = json.loads(value)
        except ValueError:
            continue
        if isinstance(found, dict) and {"search", "max_iters"} <= found.keys():
            return found
    return None


def dataset_verdict(root: Path, boards: dict | None = None) -> Verdict:
    """Is `root` a run whose every reader sees exactly the manifest's deals, each once, rows sound?

    Readers (README): pandas/pyarrow read every file under DIR except names starting with '.'
    or '_'; DuckDB every *.parquet under it; polars every non-empty file under it. So DIR must
    hold nothing a reader picks up but part files (0.1.0's own _manifest.json/_run.log and
    leftover temporary files make it doubtful, not bad).
    """
    import pyarrow.parquet as pq

    if not root.is_dir():
        return Verdict("bad", "not a directory")
    verdict = _manifest_verdict(root)
    if verdict.state == "bad":
        return verdict
    max_iters = verdict.manifest.get("max_iters")
    boards = boards or {}
    parts, doubtful = [], []
    for relative, readers in reader_files(root):
        if relative in (OLD_MANIFEST, OLD_LOG) and manifest_path(root).name == OLD_MANIFEST:
            continue
        if _temporary(relative) and "/" not in relative:
            doubtful.append(relative)
        elif PART_NAME.fullmatch(relative):
            parts.append(relative)
        else:
            return Verdict("bad", f"{', '.join(readers)} would read {relative}, which is no part file"
                           + _copied_rows(root, relative), verdict.expected, verdict.manifest)
    tables, schemas = [], set()
    for relative in parts:
        try:
            table = pq.read_table(str(root / relative))
        except Exception:
            return Verdict("bad", f"{relative} is unreadable", verdict.expected, verdict.manifest)
        if not _documented_schema(table.schema):
            return Verdict("bad", f"{relative} has another schema", verdict.expected, verdict.manifest)
        settings = _recorded_settings(table.schema)
        if settings is not None and any(settings.get(key, default) != verdict.manifest.get(key, default) for key,
                                        default in (("game", "black_hole"), ("search", None), ("max_iters", None),
                                                    ("iterations_revision", 1), ("difficulty_scale", None))):
            return Verdict("bad", f"{relative} was solved with other settings than the manifest's",
                           verdict.expected, verdict.manifest)
        schemas.add(str(table.schema.field("deal").type))
        tables.append(table)
    if len(schemas) > 1:
        return Verdict("bad", "part files of both results formats (readers fail on the mix)",
                       verdict.expected, verdict.manifest)
    problem = _rows_verdict(tables, verdict.expected, max_iters, boards, "every reader")
    if problem is None and tables:
        try:
            pq.read_table(str(root))
        except Exception as error:  # whatever pyarrow raises is what a pandas user sees
            problem = f"pandas.read_parquet(DIR) fails ({type(error).__name__})"
    if problem:
        return Verdict("bad", problem, verdict.expected, verdict.manifest)
    side = root.parent / (root.name + SIDE)
    doubtful += sorted(p.name for p in side.glob(".*.tmp")) if side.is_dir() else []  # README: not said for verify
    if doubtful and verdict.state == "good":
        return Verdict("doubtful", f"a writer's temporary file left ({doubtful[0]})", verdict.expected,
                       verdict.manifest)
    return verdict


def _difference(a: Runs, b: Runs) -> Runs:
    """The deals of `a` that are not in `b`."""
    kept = []
    for ms, first, last in a:
        pieces = [(first, last)]
        for other_ms, low, high in b:
            if other_ms == ms:
                pieces = [piece for lo, hi in pieces for piece in ((lo, min(hi, low - 1)), (max(lo, high + 1), hi))
                          if piece[0] <= piece[1]]
        kept += [(ms, lo, hi) for lo, hi in pieces]
    return merge(kept)


def _members(runs: Runs) -> set:
    return {(ms, n) for ms, first, last in runs for n in range(first, min(last, first + 10**5) + 1)}


def glob_keys(root: Path) -> Counter | None:
    """Deal keys in DIR's *.parquet files as `report` and DuckDB read them, or None if unreadable."""
    import pyarrow.parquet as pq

    keys: Counter = Counter()
    try:
        for relative, _ in reader_files(root):
            if relative.endswith(".parquet"):
                table = pq.read_table(str(root / relative))
                for row in table.select([c for c in ("deal", "ms", "deal_exact") if c in table.column_names]
                                        ).to_pylist():
                    keys[_deal_key(row)] += 1
    except Exception:
        return None
    return keys

# ------------------------------------------------------------------ running the CLI


@dataclass
class Result:
    code: int
    stdout: bytes
    stderr: bytes
    seconds: float
    timed_out: bool = False
    leftovers: int = 0
    max_rss_mb: float = 0.0
    cpu_seconds: float = 0.0  # user + system time of the CLI and the children it waited for
    stderr_bytes: int = 0  # all of it, though only the first MiB is kept
    signalled_at: float | None = None  # seconds after the start, when `interrupt` was sent

    @property
    def err(self) -> str:
        return self.stderr.decode("utf-8", "replace")


def _group_members(pgid: int) -> list[int]:
    """Live processes (not zombies) in process group `pgid`."""
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[2]) == pgid and fields[0] not in "ZX":
                members.append(int(entry))
    return members


def execute(cli: str, argv: list[str], cwd: Path, timeout: float, stdin: bytes | None = b"",
            stdin_mode: str = "pipe", stdout_mode: str = "pipe", env: dict | None = None,
            interrupt: tuple[int, float] | None = None) -> Result:
    """Run the CLI in its own session; kill the session on timeout; note processes it leaves behind.

    `interrupt` (signal, delay): send the signal to the whole session after `delay` seconds, as
    Ctrl-C does to a terminal's foreground group, unless the CLI has exited by then.
    """
    args = [a.replace(CWD, str(cwd)) for a in argv]
    command = [cli, *args]
    redirects = ("<&- " if stdin_mode == "closed" else "") + (">&-" if stdout_mode == "closed" else "")
    if redirects:
        command = ["/bin/sh", "-c", f'exec "$@" {redirects}', "sh", *command]
    full = open("/dev/full", "wb") if stdout_mode == "full" else None
    if stdout_mode == "gone":  # a pipe whose reader has gone (`| head` that already exited)
        reader, writer = os.pipe()
        os.close(reader)
        full = os.fdopen(writer, "wb")
    started = time.monotonic()
    proc = subprocess.Popen(
        command, cwd=cwd, start_new_session=True, env={**os.environ, **(env or {})},
        stdin=subprocess.PIPE if stdin_mode == "pipe" else subprocess.DEVNULL,
        stdout=full if full else subprocess.PIPE if stdout_mode == "pipe" else subprocess.DEVNULL,
        stderr=subprocess.PIPE)
    if full:
        full.close()
    captured: dict[str, bytearray] = {"stdout": bytearray(), "stderr": bytearray()}

    sizes = {"stdout": 0, "stderr": 0}

    def drain(stream, name: str) -> None:
        while chunk := stream.read(65536):
            sizes[name] += len(chunk)
            if len(captured[name]) < 1 << 20:
                captured[name] += chunk
        stream.close()

    def feed() -> None:
        try:
            proc.stdin.write(stdin or b"")
            proc.stdin.close()
        except OSError:
            pass

    threads = [threading.Thread(target=drain, args=(proc.stderr, "stderr"), daemon=True)]
    if proc.stdout:
        threads.append(threading.Thread(target=drain, args=(proc.stdout, "stdout"), daemon=True))
    if proc.stdin:
        threads.append(threading.Thread(target=feed, daemon=True))
    waited: dict = {}
    waiter = threading.Thread(target=lambda: waited.update(zip(("pid", "status", "usage"),
                                                                os.wait4(proc.pid, 0))), daemon=True)
    for thread in (*threads, waiter):
        thread.start()
    signalled_at = None
    if interrupt:
        waiter.join(interrupt[1])
        if waiter.is_alive():
            try:
                os.killpg(proc.pid, interrupt[0])
                signalled_at = time.monotonic() - started
            except ProcessLookupError:  # it had exited and been reaped, the waiter not yet back
                pass
    waiter.join(max(0.0, timeout - (time.monotonic() - started)))
    timed_out = waiter.is_alive()
    if timed_out:
        _kill_group(proc.pid)
        waiter.join()
    seconds = time.monotonic() - started
    proc.returncode = os.waitstatus_to_exitcode(waited["status"])
    leftovers = 0
    deadline = time.monotonic() + 3
    while (members := _group_members(proc.pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    if members:
        leftovers = len(members)
        _kill_group(proc.pid)
    for thread in threads:
        thread.join(10)
    usage = waited["usage"]
    return Result(proc.returncode, bytes(captured["stdout"]), bytes(captured["stderr"]), seconds,
                  timed_out, leftovers, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime,
                  sizes["stderr"], signalled_at)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass

# ------------------------------------------------------------------ inputs


@dataclass
class Symlink:
    target: str


DIRECTORY = object()
"""A `files` value: make an empty directory."""


@dataclass
class Case:
    """One input: an argv run in a fresh directory holding `files`, and how to judge the result."""

    index: int
    command: str
    kind: str
    argv: list[str]
    files: dict = field(default_factory=dict)  # relative path -> bytes | Symlink | DIRECTORY
    stdin: bytes | None = b""
    stdin_mode: str = "pipe"  # pipe | closed | null
    stdout_mode: str = "pipe"  # pipe | closed | full | gone (a pipe whose reader has exited)
    env: dict = field(default_factory=dict)
    expect: str = "either"  # accept | refuse | either
    wrong: str = "WRONG OUTPUT"  # the class of a success that should not be one
    judge: Callable | None = None  # (case, result, cwd, runner) -> (class, reason) | None
    progress: bool = False
    notes: list[str] = field(default_factory=list)
    before: Callable | None = None  # (cwd) -> None: look at the input files before the CLI runs
    explain: Callable | None = None  # (cwd) -> str: what a success that should not be one did
    interrupt: tuple[int, float] | None = None  # (signal, delay): Ctrl-C or SIGTERM mid-run
    verdict: Verdict | None = None  # what the input directory is for its readers, when there is one


def materialize(files: dict, root: Path) -> None:
    for name, content in sorted(files.items(), key=lambda item: item[0]):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is DIRECTORY:
            path.mkdir(exist_ok=True)
        elif isinstance(content, Symlink):
            os.symlink(content.target, path)
        else:
            path.write_bytes(content)


def pick(rng: random.Random, weighted: dict):
    return rng.choices(list(weighted), weights=list(weighted.values()))[0]


def random_text(rng: random.Random, length: int) -> str:
    alphabet = ("0123456789 -_.,#Lms" + "abcxyzAZ!?/\\'\"$%&*()[]{}<>=+~`^|;:@" +
                "\t\u00a0\u2013\u0661\uff11\u00e9\u4e00\U0001f0a1")
    return "".join(rng.choice(alphabet) for _ in range(length))


def game_token(rng: random.Random) -> str:
    """A game number as a user might type it, or garbage that looks like one."""
    kind = pick(rng, {"lcg": 20, "mt": 14, "ms": 10, "edge": 12, "tolerant": 14, "garbage": 18,
                      "huge": 4, "unicode": 4})
    if kind == "lcg":
        return str(rng.randint(1, 31999))
    if kind == "mt":
        return str(rng.randint(32000, 10 ** rng.randint(5, 45)))
    if kind == "ms":
        return "ms" + str(rng.choice([rng.randint(1, 31999), rng.randint(1, MS_MAX)]))
    if kind == "edge":
        return rng.choice(["0", "1", "31999", "32000", "32001", "ms0", "ms1", f"ms{MS_MAX}", f"ms{MS_MAX + 1}",
                           "-1", "-32000", "00", "007", "ms007", str(2**64), str(2**64 + 1), str(10**38),
                           str(10**38 - 1), str(2**32), f"ms{2**32}", "ms-5", "1L", "ms5L"])
    if kind == "tolerant":
        number = str(rng.randint(1, 10**rng.randint(1, 8)))
        cut = rng.randint(0, len(number))
        sep = rng.choice([" ", "#", "_", ".", ",", "-", "\t", "  "])
        return rng.choice(["#", "", " ", "ms", "MS", "+", ""]) + number[:cut] + sep + number[cut:] + \
            rng.choice(["", "L", " ", "\n", "l", ".0"])
    if kind == "garbage":
        return rng.choice(["", " ", "abc", "1e5", "0x10", "ms", "msms5", "5ms", "1/2", "½", "∞", "nan",
                           "--5", "-", "1-2", "1,2", "1 2", "None", "true", "-x",
                           random_text(rng, rng.randint(1, 12))])
    if kind == "huge":
        return str(rng.randint(1, 9)) + "".join(rng.choice("0123456789")
                                                  for _ in range(rng.choice([3999, 4000, 4001, 9000])))
    return "".join(rng.choice(["\u0661\u0662\u0663", "\uff11\uff12", "\u0967", "²", "٣"])
                   for _ in range(rng.randint(1, 2)))


def max_iters_value(rng: random.Random) -> tuple[str, int | None, str]:
    """(text, value, expectation) for --max-iters."""
    value = pick(rng, {"small": 30, "medium": 20, "edge": 25, "bad": 15, "huge": 10})
    if value == "small":
        number = rng.randint(1, 60)
    elif value == "medium":
        number = rng.choice([100, 1000, 10**4, 10**5, 10**6])
    elif value == "edge":
        number = rng.choice([2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**64 + 1,
                             2**64 + 5, 2**65])
    elif value == "huge":
        number = 10 ** rng.randint(20, 60) + rng.randint(0, 9)
    else:
        text = rng.choice(["0", "-1", "-5", "1e5", "1.5", "", "x", "0x10", " 5", "5 ", "٣", "+5", "1_000"])
        readable = text.strip("+ ") in ("5", "1_000", "٣")
        return text, int(text.strip("+ ")) if readable else None, "either" if readable else "refuse"
    return str(number), number, "accept" if number < 2**63 else "either"


def iteration_problem(outcome: str, iterations: int, max_iters: int | None) -> str | None:
    """`intractable` only when the budget ran out; decided searches stay within the budget."""
    if outcome == "intractable" and (max_iters is None or iterations < max_iters):
        return f"intractable after {iterations:,} iterations with --max-iters {max_iters}"
    if outcome != "intractable" and max_iters is not None and iterations > max_iters:
        return f"{outcome} after {iterations:,} iterations, over --max-iters {max_iters}"
    return None

# ------------------------------------------------------------------ deal


def gen_deal(rng: random.Random, index: int, fixtures: Fixtures) -> Case:
    token = game_token(rng)
    expect, canonical = game_expectation(token)
    fmt = pick(rng, {None: 6, "board": 2, "pretty": 2, "bad": 1})
    argv = ["deal", token]
    if fmt:
        argv += ["--format", rng.choice(["PRETTY", "json", ""]) if fmt == "bad" else fmt]
        expect = "refuse" if fmt == "bad" else expect
    if rng.random() < 0.05:
        fmt = None
        argv, expect = rng.choice([(["deal"], "refuse"), (["deal", token, token], "refuse"),
                                   (["deal", token, "--bogus"], "refuse"),
                                   (["deal", "--", token], game_expectation(token)[0])])
    case = Case(index, "deal", "deal-" + ("bad-format" if fmt == "bad" else "token"), argv, expect=expect)

    def judge(case: Case, result: Result, cwd: Path, runner) -> tuple[str, str] | None:
        text = result.stdout.decode("utf-8", "replace")
        problem = deal_problem(parse_pretty(text) if fmt == "pretty" else parse_board(result.stdout))
        if problem:
            return "WRONG OUTPUT", f"deal printed no valid deal: {problem}"
        if canonical and canonical != token:
            other = runner(["deal", canonical, *argv[2:]])
            if other.code == 0 and other.stdout != result.stdout:
                return "WRONG OUTPUT", f"deal {token!r} is not deal {canonical}, which it reads as"
        return None

    case.judge = judge
    return case


# ------------------------------------------------------------------ solve


def random_position(rng: random.Random, cards: int) -> Position:
    chosen = rng.sample(CARDS, cards + 1)
    lines = rng.randint(max(1, -(-cards // 3)), NUM_PILES)
    piles: list[list[str]] = [[] for _ in range(lines)]
    for card in chosen[1:]:
        room = [p for p in piles if len(p) < PILE_SIZE]
        rng.choice(room).append(card)
    return Position(chosen[0], tuple(map(tuple, piles + [[]] * (NUM_PILES - lines))))


def board_text(rng: random.Random, position: Position) -> str:
    """The board as text, sometimes with fewer pile lines (trailing empty piles may be left out)."""
    lines = [FOUNDATION_PREFIX + position.foundation] + [" ".join(p) for p in position.piles]
    while len(lines) > 1 and lines[-1] == "" and rng.random() < 0.5:
        lines.pop()
    return "\n".join(lines) + ("\n" if rng.random() < 0.9 else "")


GENTLE_MUTATIONS = {"delete-token": 8, "swap-tokens": 6, "move-token": 4, "delete-line": 4, "swap-lines": 2,
                    "no-final-newline": 2, "extra-newlines": 1, "foundation": 2}
"""Changes that mostly leave a valid position (another one), so the solver gets odd but legal boards."""


def mutate_board(rng: random.Random, data: bytes, gentle: bool = False) -> tuple[bytes, str]:
    """One token-, line- or byte-level change; returns the new bytes and what was done."""
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    tokens = [(i, j) for i, line in enumerate(lines) for j, _ in enumerate(line.split(" ")) if i and line]
    kind = pick(rng, GENTLE_MUTATIONS) if gentle else pick(rng, {"delete-token": 8, "duplicate-token": 6, "swap-tokens": 6, "move-token": 4,
                      "replace-token": 6, "delete-line": 4, "duplicate-line": 4, "swap-lines": 4,
                      "insert-line": 4, "crlf": 3, "cr": 1, "no-final-newline": 2, "extra-newlines": 3,
                      "trailing-space": 3, "tab": 2, "double-space": 2, "bom": 2, "utf16": 1,
                      "flip-byte": 4, "insert-byte": 3, "delete-byte": 3, "nul": 2, "huge-line": 2,
                      "truncate": 3, "foundation": 4, "garbage-line": 2, "lowercase": 2, "empty": 1})
    if kind.endswith("token") or kind == "swap-tokens" or kind == "lowercase":
        if not tokens:
            kind = "insert-line"
        else:
            split = [line.split(" ") if i and line else [line] for i, line in enumerate(lines)]
            i, j = rng.choice(tokens)
            token = split[i][j]
            if kind == "delete-token":
                del split[i][j]
            elif kind == "duplicate-token":
                k, _ = rng.choice(tokens)
                split[k].insert(rng.randint(0, len(split[k])), token)
            elif kind == "swap-tokens":
                k, m = rng.choice(tokens)
                split[i][j], split[k][m] = split[k][m], split[i][j]
            elif kind == "move-token":
                del split[i][j]
                target = rng.randrange(1, len(split))
                split[target] = [t for t in split[target] if t] + [token]
            elif kind == "lowercase":
                split[i][j] = token.lower()
            else:
                split[i][j] = rng.choice(["10H", "1H", "XX", "AS", "KS", "ZZ", "A", "AHH", "♠A", "A♠",
                                          "Ah", "TC ", "", "QS", random_text(rng, 2)])
            lines = [" ".join(tokens_) for tokens_ in split]
            return "\n".join(lines).encode(), kind
    line = rng.randrange(len(lines))
    if kind == "delete-line" and len(lines) > 1:
        del lines[line]
    elif kind == "duplicate-line":
        lines.insert(line, lines[line])
    elif kind == "swap-lines":
        other = rng.randrange(len(lines))
        lines[line], lines[other] = lines[other], lines[line]
    elif kind == "insert-line":
        lines.insert(rng.randint(1, len(lines)), rng.choice(["", "2H", "QD KD", "AH 2H 3H 4H"]))
    elif kind == "garbage-line":
        lines.insert(rng.randint(0, len(lines)), random_text(rng, rng.randint(0, 30)))
    elif kind == "foundation" and gentle:
        lines[0] = FOUNDATION_PREFIX + rng.choice(CARDS)
    elif kind == "foundation":
        lines[0] = rng.choice(["Foundations: ", "Foundations:AS", "Foundations: AS 2H", "foundations: AS",
                               "Foundation: AS", "Foundations: as", "Foundations:  AS", "Foundations: 10S",
                               "Foundations: " + rng.choice(CARDS), "Foundations: -", "", "AS"])
    elif kind == "trailing-space":
        lines[line] += rng.choice([" ", "  ", "\t"])
    elif kind == "tab":
        lines[line] = lines[line].replace(" ", "\t")
    elif kind == "double-space":
        lines[line] = lines[line].replace(" ", "  ", 1)
    text = "\n".join(lines)
    data = text.encode("utf-8", "surrogateescape") if kind != "utf16" else text.encode("utf-16")
    if kind == "crlf":
        data = data.replace(b"\n", b"\r\n")
    elif kind == "cr":
        data = data.replace(b"\n", b"\r")
    elif kind == "no-final-newline":
        data = data.rstrip(b"\n")
    elif kind == "extra-newlines":
        data += b"\n" * rng.randint(1, 20)
    elif kind == "bom":
        data = b"\xef\xbb\xbf" + data
    elif kind in ("flip-byte", "insert-byte", "delete-byte", "nul", "truncate") and data:
        at = rng.randrange(len(data))
        if kind == "flip-byte":
            data = data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1:]
        elif kind == "insert-byte":
            data = data[:at] + bytes([rng.randrange(256)]) + data[at:]
        elif kind == "delete-byte":
            data = data[:at] + data[at + 1:]
        elif kind == "nul":
            data = data[:at] + b"\x00" + data[at:]
        else:
            data = data[:at]
    elif kind == "huge-line":
        size = rng.choice([10**4, 10**5, 10**6, 3 * 10**6])
        filler = rng.choice([b"AH ", b"x", b"0", b" "]) * (size // 2)
        cut = data.find(b"\n", rng.randrange(len(data) or 1))
        data = data[:cut] + filler + data[cut:] if cut >= 0 else data + filler
    elif kind == "empty":
        data = rng.choice([b"", b"\n", b" ", b"\n\n"])
    return data, kind


def gen_solve(rng: random.Random, index: int, fixtures: Fixtures) -> Case:
    source = pick(rng, {"number": 35, "deal-board": 30, "random-board": 12, "small-board": 23})
    search = pick(rng, {None: 6, "fast": 2, "classic": 2, "bad": 1})
    notes: list[str] = []
    expect = "refuse" if search == "bad" else "accept"
    max_iters, budget = None, None
    if rng.random() < 0.45 or search == "classic":
        budget, max_iters, budget_expect = max_iters_value(rng)
        expect = _combine(expect, budget_expect)
    position: Position | None = None
    canonical = None
    case = Case(index, "solve", f"solve-{source}", [], notes=notes)
    if source == "number":
        token = game_token(rng)
        if search == "classic" and (max_iters is None or max_iters > 200000):
            token = str(rng.randint(1, 1000))  # classic without a small budget: the peer's easy deals only
        number_expect, canonical = game_expectation(token)
        expect = _combine(expect, number_expect)
        case.argv = ["solve", token]
    else:
        if source == "deal-board":
            data = fixtures.deal_board(rng.choice(FIXTURE_DEALS))
        elif source == "random-board":
            data = board_text(rng, random_position(rng, 51)).encode()
        else:
            data = board_text(rng, random_position(rng, rng.randint(0, BRUTE_FORCE_CARDS))).encode()
        mutations = pick(rng, {"none": 3, "gentle": 4, "any": 4})
        for _ in range(0 if mutations == "none" else rng.choice([1, 1, 1, 2, 3])):
            data, what = mutate_board(rng, data, gentle=mutations == "gentle")
            notes.append(what)
        parsed = parse_board(data)
        if isinstance(parsed, Position):
            position = parsed
            if search == "classic" and position.cards > BRUTE_FORCE_CARDS and \
                    (max_iters is None or max_iters > 200000):
                budget, max_iters = "100000", 100000  # classic on a full board may take minutes
                expect = "accept"
        else:
            expect = "refuse"
            notes.append(f"invalid board: {parsed}")
        how = pick(rng, {"file": 5, "dash": 3, "board-dash": 2, "odd-file": 1})
        if how == "file":
            name = rng.choice(["board.txt", "b", "my board.txt", "ünï.txt", "-board", ".hidden"])
            case.files[name] = data
            case.argv = ["solve", "--board", name]
        elif how == "odd-file":
            target = rng.choice(["missing.txt", "dir", "/dev/null", ""])
            if target == "dir":
                case.files["dir"] = DIRECTORY
            case.argv = ["solve", "--board", target]
            expect, position = "refuse", None
        else:
            case.argv = ["solve", "-"] if how == "dash" else ["solve", "--board", "-"]
            case.stdin = data
            if rng.random() < 0.05:
                case.stdin_mode, case.stdin, expect = "closed", None, "refuse"
                notes.append("stdin-closed")
    if budget is not None:
        case.argv += ["--max-iters", budget]
    if search:
        case.argv += ["--search", rng.choice(["FAST", "dfs", ""]) if search == "bad" else search]
    as_json = rng.random() < 0.6
    if as_json:
        case.argv.append("--json")
    if rng.random() < 0.04:
        case.argv = rng.choice([["solve"], ["solve", "1", "--board", "-"], ["solve", "--json"],
                                ["solve", "1", "2"], ["solve", "1", "--max-iters"]])
        expect = "refuse"
    case.expect = expect
    case.kind = "-".join([case.kind, *(n for n in notes[:2] if not n.startswith("invalid"))])

    def judge(case: Case, result: Result, cwd: Path, runner) -> tuple[str, str] | None:
        return judge_solve(result, as_json, canonical, position, max_iters)

    case.judge = judge
    return case


def _combine(a: str, b: str) -> str:
    return "refuse" if "refuse" in (a, b) else "either" if "either" in (a, b) else "accept"


def judge_solve(result: Result, as_json: bool, canonical: str | None, position: Position | None,
                max_iters: int | None) -> tuple[str, str] | None:
    text = result.stdout.decode("utf-8", "replace")
    if as_json:
        try:
            answer = json.loads(text)
            label, outcome, iterations = answer["deal"], answer["outcome"], answer["iterations"]
            played = answer["cards_played"]
            moves = [(move["pile"], move["card"]) for move in answer["solution"]]
        except (ValueError, KeyError, TypeError) as error:
            return "WRONG OUTPUT", f"solve --json printed no valid object ({type(error).__name__})"
    else:
        head = re.match(r"(?:deal (\S+)|position): (?:solvable|not solvable|undecided) "
                        r"\((solved|unsolved|intractable)\), ([\d,]+) iterations", text)
        if not head:
            return "WRONG OUTPUT", "solve printed no verdict line"
        label, outcome, iterations = head.group(1), head.group(2), int(head.group(3).replace(",", ""))
        moves = [(int(pile), card) for card, pile in re.findall(r"^\s*\d+\. (\S+) from pile (\d+)$", text, re.M)]
        most = re.search(r"foundation: (\d+)$|ran out: (\d+)$", text, re.M)
        undetermined = re.search(r"foundation: not determined within --max-iters$", text, re.M)
        played = (len(moves) if outcome == "solved" else int(next(g for g in most.groups() if g)) if most
                  else None if undetermined else -1)
    status = {"solved": 0, "unsolved": 3, "intractable": 4}.get(outcome)
    if status != result.code:
        return "WRONG OUTPUT", f"exit {result.code} for outcome {outcome!r}"
    if canonical is not None and label != canonical:
        return "WRONG OUTPUT", f"solve names deal {label!r}, the input reads as {canonical}"
    problem = iteration_problem(outcome, iterations, max_iters)
    if problem:
        return "WRONG OUTPUT", problem
    if outcome == "solved":
        problem = replay(position, moves) if position else chain_problem([card for _, card in moves])
        cards = position.cards if position else 51
        if problem is None and (len(moves) != cards or played != cards):
            problem = f"{len(moves)} moves and cards_played {played} for {cards} cards"
        if problem:
            return "WRONG OUTPUT", f"solution is not legal play: {problem}"
    elif moves:
        return "WRONG OUTPUT", f"{outcome} with a solution"
    if played is None:  # README: only an unsolved deal whose best line the --max-iters budget cut short
        return None if outcome == "unsolved" and max_iters is not None else (
            "WRONG OUTPUT", f"{outcome} with cards_played not determined (max_iters {max_iters})")
    if position is not None and position.cards <= BRUTE_FORCE_CARDS:
        most = brute_force(position)
        if outcome == "solved" and most != position.cards:
            return "WRONG OUTPUT", "solved a position that cannot be won"
        if outcome == "unsolved" and (most == position.cards or played != most):
            return "WRONG OUTPUT", (f"unsolved with cards_played {played}; the most any line plays is {most} "
                                    f"of {position.cards}")
    if outcome == "unsolved" and position is None and not 0 <= played < 51:
        return "WRONG OUTPUT", f"unsolved with cards_played {played}"
    return None

# ------------------------------------------------------------------ run


def deal_item(rng: random.Random) -> str:
    """A small item of a --range: one deal or a range of up to 3."""
    kind = pick(rng, {"lcg": 5, "mt": 3, "ms": 2})
    span = rng.choice([0, 0, 1, 2])
    if kind == "lcg":
        first = rng.choice([rng.randint(1, 31999), rng.randint(1, 50), 31998])
        return f"{first}" if not span else f"{first}-{min(first + span, 31999)}"
    if kind == "mt":
        first = rng.choice([32000, rng.randint(32000, 10**6), rng.randint(10**6, 10**37), DATASET_LIMIT - 3])
        return f"{first}" if not span else f"{first}-{first + span}"
    first = rng.choice([rng.randint(1, 32010), rng.randint(1, MS_MAX - 3), MS_MAX - 2])
    return f"ms{first}" if not span else f"ms{first}-ms{first + span}"


def mutate_spec(rng: random.Random, spec: str) -> tuple[str, str]:
    kind = pick(rng, {"insert": 6, "dash": 3, "reverse": 2, "number": 4, "drop": 2, "whole": 3, "case": 1})
    if kind == "insert" or (kind == "drop" and not spec):
        at = rng.randint(0, len(spec))
        char = rng.choice([" ", "#", "_", ".", ",", "-", "\t", "L", "+", "ms", "MS", "0", "\u00a0", "\u2013",
                           "\n", ",,", " - ", "9"])
        return spec[:at] + char + spec[at:], f"insert {char!r}"
    if kind == "dash" and "-" in spec:
        return spec.replace("-", rng.choice([" ", "..", ":", "\u2013", " - ", "--", "~", "_"]), 1), "dash"
    if kind == "reverse":
        match = re.search(r"(ms)?(\d+)-(ms)?(\d+)", spec)
        if match and match.group(2) != match.group(4):
            p = match.group(1) or ""
            return spec[:match.start()] + f"{p}{match.group(4)}-{p}{match.group(2)}" + spec[match.end():], "reversed"
    if kind == "number":
        numbers = list(re.finditer(r"\d+", spec))
        if numbers:
            target = rng.choice(numbers)
            new = rng.choice(["0", "-3", str(DATASET_LIMIT), str(DATASET_LIMIT - 1), str(MS_MAX + 1), "00",
                              "\u0663", "1e3", "0x1F", "", "3.0", "1,000", "1_000", str(2**64 + 1), "1" * 50])
            return spec[:target.start()] + new + spec[target.end():], f"number {new[:12]!r}"
    if kind == "drop" and spec:
        at = rng.randrange(len(spec))
        return spec[:at] + spec[at + 1:], "drop a character"
    if kind == "case":
        return spec.replace("ms", "MS"), "MS"
    return rng.choice(["", " ", ",", ",,", "-", "ms", "1-", "-1", "1-2-3", "ms1-5", "5-ms7", "\u0661",
                       "1..3", "1 5", "1.5", "#1", random_text(rng, rng.randint(1, 10))]), "replaced"


def deals_file(rng: random.Random, items: list[str]) -> tuple[bytes, list[str]]:
    """A --deals file listing `items` (ranges spelled out), maybe with comments and damage."""
    lines = []
    for item in items:
        match = re.fullmatch(r"(ms)?(\d+)-(ms)?(\d+)", item)
        if match:
            prefix = match.group(1) or ""
            lines += [f"{prefix}{n}" for n in range(int(match.group(2)), int(match.group(4)) + 1)]
        else:
            lines.append(item)
    notes = []
    if rng.random() < 0.5:
        kind = pick(rng, {"comment": 3, "blank": 3, "indent": 2, "range-line": 2, "inline-comment": 2,
                          "mutated-line": 4, "list-line": 2, "duplicates": 2})
        notes.append(kind)
        at = rng.randint(0, len(lines))
        if kind == "comment":
            lines.insert(at, rng.choice(["# my deals", "#", "# 5", "#5", "## 12,345"]))
        elif kind == "blank":
            lines.insert(at, rng.choice(["", " ", "\t", "\x0c", "\u00a0"]))
        elif kind == "indent" and lines:
            lines[at % len(lines)] = "  " + lines[at % len(lines)] + " \t"
        elif kind == "range-line":
            lines.insert(at, rng.choice(["1-3", "ms1-ms2", "5 - 6", "40000-40001"]))
        elif kind == "inline-comment" and lines:
            lines[at % len(lines)] += rng.choice(["  # easy", " #", "#x"])
        elif kind == "mutated-line" and lines:
            lines[at % len(lines)], what = mutate_spec(rng, lines[at % len(lines)])
            notes.append(what)
        elif kind == "list-line":
            lines.insert(at, rng.choice(["1,2", "1 2", "3;4", "1, 2", "12,345"]))
        elif kind == "duplicates" and lines:
            lines += [lines[0]] * rng.choice([2, 100, 5000])
    text = "\n".join(lines) + ("\n" if rng.random() < 0.85 else "")
    data = text.encode("utf-8")
    if rng.random() < 0.3:
        kind = pick(rng, {"bom": 3, "utf16": 2, "utf16-be": 1, "crlf": 3, "cr": 2, "latin1": 1, "nul": 2,
                          "binary": 2, "empty": 1, "long-line": 1, "ff": 1})
        notes.append(kind)
        if kind == "bom":
            data = b"\xef\xbb\xbf" + data
        elif kind == "utf16":
            data = text.encode("utf-16")
        elif kind == "utf16-be":
            data = b"\xfe\xff" + text.encode("utf-16-be")
        elif kind == "crlf":
            data = data.replace(b"\n", b"\r\n")
        elif kind == "cr":
            data = data.replace(b"\n", b"\r")
        elif kind == "latin1":
            data += "caf\u00e9\n".encode("latin-1")
        elif kind == "nul":
            at = rng.randint(0, len(data))
            data = data[:at] + b"\x00" + data[at:]
        elif kind == "binary":
            data = rng.randbytes(rng.choice([1, 16, 300, 4096]))
        elif kind == "empty":
            data = rng.choice([b"", b"\n", b"\n\n  \n"])
        elif kind == "long-line":
            data += b"1" * rng.choice([39, 4001, 100000]) + b"\n"
        elif kind == "ff":
            data = b"\xff" + data
    return data, notes


def out_path(rng: random.Random) -> tuple[str, str, dict, str]:
    """(--out text, dataset dir relative to the input's directory or '', files to add, expectation)."""
    kind = pick(rng, {"plain": 60, "nested": 6, "existing-empty": 5, "trailing-slash": 3, "file-url": 4,
                      "odd-name": 4, "file": 2, "file-child": 2, "dev-null": 1, "proc": 1, "long": 2,
                      "scheme": 4, "non-empty": 2, "dot": 1})
    if kind == "plain":
        return "out", "out", {}, "accept"
    if kind == "nested":
        return "a/b/out", "a/b/out", {}, "either"
    if kind == "existing-empty":
        return "out", "out", {"out": DIRECTORY}, "accept"
    if kind == "trailing-slash":
        return "out/", "out", {}, "accept"
    if kind == "file-url":
        return f"file://{CWD}/out", "out", {}, "accept"
    if kind == "odd-name":
        name = rng.choice(["my out", "ünï", "out\nx", "-out", "out;rm", "o'ut", "$HOME", "~", "*", "a:/b", "a:b"])
        return name, name, {}, "either"
    if kind == "file":
        return "taken", "", {"taken": b"hello\n"}, "refuse"
    if kind == "file-child":
        return "taken/out", "", {"taken": b"hello\n"}, "refuse"
    if kind == "dev-null":
        return "/dev/null", "", {}, "refuse"
    if kind == "proc":
        return "/proc/x/out", "", {}, "refuse"
    if kind == "long":
        name = "o" * rng.choice([255, 256, 300, 5000])
        return name, name, {}, "either"
    if kind == "scheme":
        return rng.choice(["foo://bar/x", "a://", "://", "memory://x", "zip://x"]), "", {}, "refuse"
    if kind == "non-empty":
        return "out", "", {"out/notes.txt": b"mine\n"}, "refuse"
    return ".", ".", {}, "either"


def gen_run(rng: random.Random, index: int, fixtures: Fixtures) -> Case:
    if rng.random() < 0.3:
        return gen_resume(rng, index, fixtures)
    if rng.random() < 0.06:
        return gen_interrupted_run(rng, index)
    for _ in range(20):
        items = [deal_item(rng) for _ in range(rng.choice([1, 1, 2, 3]))]
        use = pick(rng, {"range": 6, "ranges": 2, "file": 3, "both": 2, "none": 1})
        range_args: list[str] = []
        deal_file: bytes | None = None
        notes = []
        if use in ("range", "both"):
            range_args = [rng.choice([",", ", ", " , "]).join(items[: max(1, len(items) - (use == "both"))])]
        elif use == "ranges":
            range_args = list(items)
        if use in ("file", "both"):
            deal_file, notes = deals_file(rng, items[-1:] if use == "both" else items)
        if range_args and rng.random() < 0.4:
            at = rng.randrange(len(range_args))
            range_args[at], what = mutate_spec(rng, range_args[at])
            notes.append(f"range {what}")
        reading = reading_of(range_args, deal_file)
        if reading.largest() <= 50 or reading.must_refuse:
            break
    argv = ["run"]
    for spec in range_args:
        argv += ["--range", spec]
    files: dict = {}
    if deal_file is not None:
        name = rng.choice(["deals.txt", "deals.txt", "d", "my deals.txt"])
        files[name] = deal_file
        if rng.random() < 0.03:
            name, files = rng.choice(["missing.txt", "dir"]), {"dir": DIRECTORY}
            reading = Reading([[{REFUSE}]])
        argv += ["--deals", name]
    out, out_dir, out_files, out_expect = out_path(rng)
    files.update(out_files)
    argv += ["--out", out]
    expect = "refuse" if reading.must_refuse else "accept" if reading.must_accept else "either"
    if use == "none" or deal_file is not None and Reading(read_deal_file(deal_file)[0]).largest() == 0:
        expect = "refuse"  # README: a --deals file that lists no deals is refused, with or without --range
    expect = _combine(expect, out_expect)
    max_iters = None
    search = pick(rng, {None: 8, "fast": 1, "classic": 2, "bad": 1})
    if rng.random() < 0.3 or search == "classic":
        text, max_iters, budget_expect = max_iters_value(rng)
        if search == "classic" and (max_iters is None or max_iters > 200000):
            max_iters = rng.choice([1, 7, 1000, 100000])  # classic without a small budget may take minutes
            text, budget_expect = str(max_iters), "accept"
        argv += ["--max-iters", text]
        expect = _combine(expect, budget_expect)
        if budget_expect == "refuse":
            max_iters = None
    if search:
        argv += ["--search", "Classic" if search == "bad" else search]
        expect = "refuse" if search == "bad" else expect
    search = search if search in ("fast", "classic") else "fast"
    for option, values in (("--workers", ["1", "1", "2", "3", "0", "-1", "x", "1.5", ""]),
                           ("--chunk-size", ["1", "1", "2", "3", "1000", str(10**30), "0", "-2", "x", ""])):
        if rng.random() < 0.5:
            value = rng.choice(values)
            argv += [option, value]
            if not value.isdigit() or value == "0":
                expect = "refuse"
    progress = rng.random() < 0.1
    if progress:
        argv.append(rng.choice(["--progress", "--no-progress"]))
    case = Case(index, "run", "run-" + use + "".join("-" + n for n in notes[:2]), argv, files,
                expect=expect, wrong="WRONG DATASET", progress=progress, notes=notes)

    def explain(cwd: Path) -> str:
        verdict = _manifest_verdict(cwd / out_dir) if out_dir else None
        if verdict is None or verdict.expected is None:
            return f"it wrote to --out {out!r}"
        return f"it read its input as deals {runs_text(verdict.expected)}"

    def judge(case: Case, result: Result, cwd: Path, runner) -> tuple[str, str] | None:
        if not out_dir:
            return "WRONG DATASET", f"run succeeded into --out {out!r}, which is no local directory"
        return judge_run(result, cwd / out_dir, reading, (), search, max_iters, {}, runner, str(cwd / out_dir))

    case.judge, case.explain = judge, explain
    return case


def gen_interrupted_run(rng: random.Random, index: int) -> Case:
    """A run of 100-1000 deals that gets Ctrl-C or SIGTERM at a random moment, then is resumed."""
    first = rng.randint(1, 30000)
    spec = f"{first}-{first + rng.choice([100, 300, 1000]) - 1}"
    argv = ["run", "--range", spec, "--out", "out", "--workers", rng.choice(["1", "2"]),
            "--chunk-size", rng.choice(["10", "25", "50"])]
    signum = rng.choice([signal.SIGINT, signal.SIGINT, signal.SIGTERM])
    delay = round(rng.uniform(0.05, 3.0), 2)
    reading = reading_of([spec], None)
    case = Case(index, "run", f"run-interrupted-{signal.Signals(signum).name}", argv, expect="accept",
                wrong="WRONG DATASET", interrupt=(signum, delay), notes=[f"{signal.Signals(signum).name} "
                                                                          f"after {delay} s"])

    def judge(case: Case, result: Result, cwd: Path, runner) -> tuple[str, str] | None:
        return judge_run(result, cwd / "out", reading, (), "fast", None, {}, runner, str(cwd / "out"))

    case.judge = judge
    return case


def judge_run(result: Result, root: Path, reading: Reading, base: Runs, search: str, max_iters: int | None,
              boards: dict, runner, out_arg: str, damaged: bool = False) -> tuple[str, str] | None:
    """After a successful run into `root` (on top of the run `base`): manifest, rows, `verify`.

    `damaged`: the old run was damaged before. Finding old damage is verify's job, not run's,
    but a run must not exit 0 over part files it cannot read, nor without the deals asked for.
    """
    verdict = dataset_verdict(root, boards)
    if verdict.state != "good" and damaged:
        return _judge_damaged_resume(root, reading, verdict)
    if verdict.state != "good":
        return "WRONG DATASET", f"after a successful run: {verdict.reason}"
    manifest = verdict.manifest
    budgets = {max_iters} | ({None} if max_iters is not None and max_iters >= 2**63 else set())
    if manifest.get("search") != search or manifest.get("max_iters") not in budgets:
        return "WRONG DATASET", (f"manifest says search={manifest.get('search')!r} max_iters="
                                 f"{manifest.get('max_iters')!r}, the run was asked for {search!r}, {max_iters!r}")
    got = verdict.expected
    if merge(got + base) != got:
        return "WRONG DATASET", f"the resumed run lost deals of the old run ({runs_text(base)})"
    if reading.allows(got, base) is False:
        asked = reading.canonical()
        wanted = f"it was asked for {runs_text(asked)}" if asked is not None else "which is none of its readings"
        return "WRONG DATASET", (f"run holds deals {runs_text(got)}, {wanted}"
                                 + (f" on top of {runs_text(base)}" if base else ""))
    check = runner(["verify", out_arg])
    if check.code != 0:
        first = (check.stdout.decode("utf-8", "replace").splitlines() or check.err.splitlines() or ["?"])[0]
        return "WRONG DATASET", f"verify fails after a successful run: {first[:200]}"
    return None


def _judge_damaged_resume(root: Path, reading: Reading, verdict: Verdict) -> tuple[str, str] | None:
    import pyarrow.parquet as pq

    if strays(root):
        return "WRONG DATASET", (f"a resumed run exits 0 beside {strays(root)[0]}, a file readers of DIR read that "
                                 f"is not the run's ({verdict.reason})")
    for path in sorted(p for p in root.glob("part-*.parquet") if not p.is_dir()):  # an empty folder: no reader reads it
        try:
            readable = _documented_schema(pq.read_table(str(path)).schema)
        except Exception:
            readable = False
        if not readable:
            return "WRONG DATASET", f"a resumed run exits 0 over a part file that readers cannot use ({path.name})"
    keys = glob_keys(root)
    if keys is None:
        return None
    asked = reading.canonical()
    if asked and not _members(asked) <= set(keys):
        return "WRONG DATASET", f"a resumed run exits 0 without deals {runs_text(asked)} it was asked for"
    if verdict.expected is not None and asked and verdict.manifest.get("finished") is None:
        missing = _difference(verdict.expected, merge((ms, n, n) for ms, n in keys))
        if missing:
            return "WRONG DATASET", (f"a run that adds deals exits 0 and leaves the old run's deals "
                                     f"{runs_text(missing)} missing")
    return None


# ------------------------------------------------------------------ damaged run directories

FIXTURE_RUNS = {
    "three": ["--range", "1-3", "--chunk-size", "1", "--workers", "1"],
    "mixed": ["--range", "40000-40001,ms7,ms8", "--chunk-size", "2", "--workers", "2"],
    "budget": ["--range", "2-5", "--max-iters", "20", "--chunk-size", "2", "--workers", "1"],
    "classic": ["--range", "1-2", "--search", "classic", "--max-iters", "100000", "--workers", "1"],
}
"""Small runs made once per fuzzing process and copied, then damaged, for verify/report/resume."""
FIXTURE_DEALS = ["1", "2", "5", "31999", "32000", "40000", "ms7", "ms32000", "123456789012345678901234567890",
                 "ms8589934591"]
"""Deals whose boards `deal` prints once per process, for --board inputs."""


@dataclass
class Fixture:
    files: dict  # "run/part-...", "run.run/manifest.json", ...: the run directory and its bookkeeping beside it
    expected: Runs
    search: str
    max_iters: int | None
    boards: dict


class FixtureError(RuntimeError):
    """The CLI could not even build the small datasets the damage inputs start from."""


class Fixtures:
    """Per fuzzing process: boards printed by `deal` and small datasets written by `run`."""

    def __init__(self, cli: str, scratch: Path, timeout: float) -> None:
        self.cli, self.scratch, self.timeout = cli, scratch, timeout
        self._boards: dict[str, bytes] = {}
        self._runs: dict[str, Fixture] = {}

    def deal_board(self, game: str) -> bytes:
        if game not in self._boards:
            result = execute(self.cli, ["deal", game], self.scratch, self.timeout)
            if result.code != 0 or deal_problem(parse_board(result.stdout)):
                raise FixtureError(f"`blackhole-stats deal {game}` failed: {result.err.strip()[-300:]}")
            self._boards[game] = result.stdout
        return self._boards[game]

    def run(self, name: str) -> Fixture:
        if name not in self._runs:
            args = FIXTURE_RUNS[name]
            root = self.scratch / f"fixture-{name}"
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir(parents=True)
            result = execute(self.cli, ["run", *args, "--out", "run"], root, max(self.timeout, 120))
            if result.code != 0:
                raise FixtureError(f"`blackhole-stats run {shlex.join(args)}` failed: {result.err.strip()[-300:]}")
            files = {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
            spec = args[args.index("--range") + 1]
            expected = merge(itertools.chain(*(strict_item(item, True)[1] for item in spec.split(","))))
            boards = {}
            for ms, first, last in expected:
                for number in range(first, last + 1):
                    boards[(ms, number)] = parse_board(self.deal_board(game_name((ms, number))))
            max_iters = int(args[args.index("--max-iters") + 1]) if "--max-iters" in args else None
            search = args[args.index("--search") + 1] if "--search" in args else "fast"
            self._runs[name] = Fixture(files, expected, search, max_iters, boards)
            shutil.rmtree(root, ignore_errors=True)
        return self._runs[name]


def _parquet_bytes(table) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def _read_parquet_bytes(data: bytes):
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pq.read_table(pa.BufferReader(data))


def damage_rows(rng: random.Random, data: bytes, fixture: Fixture) -> tuple[bytes, str]:
    """Rewrite one part file with rows or a schema that verify must notice."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = _read_parquet_bytes(data)
    rows = table.to_pylist()
    schema = table.schema
    kind = pick(rng, {"deal-number": 3, "flip-ms": 2, "duplicate-row": 3, "drop-row": 2, "outcome": 3,
                      "solution": 4, "cards-played": 2, "iterations": 2, "schema": 5, "empty": 1})
    row = rng.choice(rows)
    if kind == "deal-number":
        row["deal"] = row["deal"] + rng.choice([1, 1000, -row["deal"] + 1])
    elif kind == "flip-ms":
        row["ms"] = not row["ms"]
    elif kind == "duplicate-row":
        rows.append(dict(row))
    elif kind == "drop-row":
        rows.remove(row)
    elif kind == "outcome":
        row["outcome"] = rng.choice([o for o in OUTCOMES if o != row["outcome"]])
        if fixture.max_iters is not None and row["outcome"] == "intractable" and row["iterations"] >= fixture.max_iters:
            row["outcome"] = "solved"
    elif kind == "solution":
        solved = [r for r in rows if r["outcome"] == "solved"]
        if solved:
            row = rng.choice(solved)
            cards = row["solution"].split(" ")
            at = rng.randrange(len(cards) - 1)
            how = rng.choice(["swap", "truncate", "garbage", "null", "other-suit"])
            if how == "swap":
                cards[at], cards[at + 1] = cards[at + 1], cards[at]
                if chain_problem(cards) is None and replay_ok(fixture, row, cards):
                    cards = cards[:-1]
            elif how == "truncate":
                cards = cards[:-1]
            elif how == "garbage":
                cards[at] = rng.choice(["XX", "10H", "", "as"])
            elif how == "other-suit":
                same_rank = [c for c in cards if c[0] == cards[at][0] and c != cards[at]]
                if same_rank:
                    other = same_rank[0]
                    i = cards.index(other)
                    cards[at], cards[i] = cards[i], cards[at]
                    if replay_ok(fixture, row, cards):
                        cards = cards[:-1]
                else:
                    cards = cards[:-1]
            row["solution"] = None if how == "null" else " ".join(cards)
            kind += "-" + how
        else:
            row["solution"] = "2H 3H"
    elif kind == "cards-played":
        row["cards_played"] = 51 if row["cards_played"] != 51 else rng.choice([50, 0, -1, 52])
    elif kind == "iterations":
        if fixture.max_iters is None:
            row["outcome"], row["solution"] = "intractable", None
            row["cards_played"] = min(row["cards_played"], 50)
        else:
            row["iterations"] = rng.choice([1, fixture.max_iters - 1, fixture.max_iters + 5])
            if row["outcome"] != "intractable" and row["iterations"] <= fixture.max_iters:
                row["iterations"] = fixture.max_iters + 5
            if row["outcome"] == "intractable" and row["iterations"] >= fixture.max_iters:
                row["iterations"] = 1
    if kind == "schema":
        how = rng.choice(["deal-other-type", "rename", "drop-solution", "extra-column", "outcome-string",
                          "iterations-int32", "reorder", "foreign"])
        kind += "-" + how
        if how == "foreign":
            return _parquet_bytes(pa.table({"x": [1, 2], "y": ["a", "b"]})), kind
        if how == "deal-other-type":  # format 1's decimal128 in a format-2 run, or the other way round
            wanted = pa.int64() if pa.types.is_decimal(table["deal"].type) else pa.decimal128(38, 0)
            table = table.set_column(table.schema.get_field_index("deal"), "deal", pc.cast(table["deal"], wanted))
        elif how == "rename":
            table = table.rename_columns(["number" if c == "deal" else c for c in table.column_names])
        elif how == "drop-solution":
            table = table.drop_columns(["solution"])
        elif how == "extra-column":
            table = table.append_column("note", pa.array(["x"] * len(table)))
        elif how == "outcome-string":
            table = table.set_column(table.schema.get_field_index("outcome"), "outcome",
                                     pc.cast(table["outcome"], pa.string()))
        elif how == "iterations-int32":
            table = table.set_column(table.schema.get_field_index("iterations"), "iterations",
                                     pc.cast(table["iterations"], pa.int32()))
        else:
            table = table.select(list(reversed(table.column_names)))
        return _parquet_bytes(table), kind
    if kind == "empty":
        rows = []
    return _parquet_bytes(pa.Table.from_pylist(rows, schema=schema)), kind


def replay_ok(fixture: Fixture, row: dict, cards: list[str]) -> bool:
    board = fixture.boards.get((bool(row["ms"]), int(row["deal"])))
    if board is None:
        return False
    piles = {card: index for index, pile in enumerate(board.piles) for card in pile}
    return replay(board, [(piles.get(card, -1), card) for card in cards]) is None


def damage_manifest(rng: random.Random, data: bytes, fixture: Fixture) -> bytes | None:
    try:
        manifest = json.loads(data)
    except (ValueError, RecursionError):
        manifest = {}
    if not isinstance(manifest, dict):  # damaged before
        manifest = {}
    kind = pick(rng, {"delete": 2, "truncate": 2, "random": 1, "not-object": 3, "deep": 1, "bom": 1,
                      "utf16": 1, "deals": 6, "max-iters": 4, "search": 2, "other-field": 4, "empty": 1})
    if kind == "delete":
        return None
    if kind == "truncate":
        return data[:rng.randrange(len(data))]
    if kind == "random":
        return rng.randbytes(rng.choice([1, 50, 500]))
    if kind == "not-object":
        return rng.choice([b"[]", b'"hello"', b"null", b"42", b"{}", b"true", b'{"deals": null}'])
    if kind == "deep":
        depth = rng.choice([1000, 100000])
        return b"[" * depth + b"]" * depth
    if kind == "bom":
        return b"\xef\xbb\xbf" + data
    if kind == "utf16":
        return data.decode("utf-8").encode("utf-16")
    if kind == "empty":
        return b""
    if kind == "deals":
        specs = manifest.get("deals") or ["1-3"]
        manifest["deals"] = rng.choice([
            [1, 2], specs[0] if specs else "1-3", [], specs[:-1] or ["1"], specs + ["100-102"],
            ["garbage"], specs + [None], [s.replace("-", " ") for s in specs], ["3-1"], ["0"],
            [specs[0] + ",ms1"], [f"1-{10**40}"], {"a": 1}, specs + specs])
    elif kind == "max-iters":
        manifest["max_iters"] = rng.choice([None, 0, -1, "x", 2**64 + 1, 1.5, 5, 10**6, True,
                                            (fixture.max_iters or 20) + 1000, 1])
    elif kind == "search":
        manifest["search"] = rng.choice(["classic" if fixture.search == "fast" else "fast", "bogus", None, 5])
    else:
        key = rng.choice(["version", "tool", "elapsed_seconds", "finished", "total_deals", "started", "machine",
                          "chunk_size", "workers", "scheduler", "extra"])
        manifest[key] = rng.choice(["x", -1, None, 10**30, [], {"a": [1]}, "0.0.1", 1e308, "\u2603"])
        if rng.random() < 0.2:
            manifest.pop(key, None)
    try:
        return json.dumps(manifest, indent=2).encode()
    except ValueError:
        return data


def damage(rng: random.Random, files: dict, fixture: Fixture, root: str) -> list[str]:
    """Apply 1-2 damages to the run directory `root` inside `files`; returns what was done."""
    done = []
    old = f"{root}/{OLD_MANIFEST}" in files
    manifest = f"{root}/{OLD_MANIFEST}" if old else f"{root}{SIDE}/{MANIFEST}"
    for _ in range(rng.choice([1, 1, 1, 2])):
        parts = sorted(name for name in files if name.startswith(f"{root}/part-")
                       and isinstance(files[name], bytes))
        part = rng.choice(parts) if parts else None
        kind = pick(rng, {"delete-part": 3, "copy-part": 6, "truncate-part": 3, "flip-bytes": 3,
                          "random-part": 2, "append-junk": 1, "rows": 8, "extra-file": 5, "manifest": 10,
                          "symlink": 2, "part-dir": 1, "stale-temp": 2})
        if part is None and kind.endswith("part") or part is None and kind in ("rows", "flip-bytes"):
            kind = "manifest"
        if kind == "delete-part":
            del files[part]
        elif kind == "copy-part":
            name = rng.choice(["backup.parquet", "part-1-1-1 (copy).parquet", "_backup.parquet", ".backup.parquet",
                               "sub/part-9-9-1.parquet", "copy.parquet.bak", "part-999-999-1.parquet",
                               "x=1/part-0.parquet", "PART-1.PARQUET"])
            files[f"{root}/{name}"] = files[part]
            kind += f" {name}"
        elif kind == "truncate-part":
            files[part] = files[part][:rng.randrange(len(files[part]))]
        elif kind == "flip-bytes":
            data = bytearray(files[part])
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            files[part] = bytes(data)
        elif kind == "random-part":
            files[part] = rng.randbytes(len(files[part]))
        elif kind == "append-junk":
            files[part] += rng.randbytes(rng.randint(1, 100))
        elif kind == "rows":
            try:
                files[part], what = damage_rows(rng, files[part], fixture)
            except Exception:  # not Parquet any more (damaged before): damage it further instead
                files[part], what = files[part][:-1], "truncate"
            kind += f" {what}"
        elif kind == "extra-file":
            name, content = rng.choice([("notes.txt", b"my notes\n"), ("junk.parquet", rng.randbytes(200)),
                                        ("empty.parquet", b""), ("plots/x.png", rng.randbytes(64)),
                                        ("_SUCCESS", b""), ("README", b"x\n"), ("_extra.parquet", rng.randbytes(40)),
                                        (".DS_Store", rng.randbytes(30)), ("sub", DIRECTORY)])
            files[f"{root}/{name}"] = content
            kind += f" {name}"
        elif kind == "manifest":
            new = damage_manifest(rng, files.get(manifest, b"{}"), fixture)
            if new is None:
                files.pop(manifest, None)
            else:
                files[manifest] = new
            kind += f" {manifest}"
        elif kind == "symlink":
            how = rng.choice(["dangling", "loop", "duplicate"])
            if how == "dangling":
                files[part] = Symlink("nowhere.parquet")
            elif how == "loop":
                files[part] = Symlink(Path(part).name)
            else:
                files[f"{root}/link.parquet"] = Symlink(Path(part).name)
            kind += f" {how}"
        elif kind == "part-dir":
            del files[part]
            files[part] = DIRECTORY
        else:  # README: temporary files are written in DIR.run/ (0.1.0: in DIR)
            name = rng.choice([f".{Path(part).name}.tmp" if part else ".part-1-1-1.parquet.tmp",
                               "._manifest.json.tmp" if old else ".manifest.json.tmp"])
            name = f"{root}/{name}" if old else f"{root}{SIDE}/{name}"
            files[name] = rng.randbytes(rng.randint(0, 100))
            kind += f" {name}"
        done.append(kind)
    return done


def fixture_case(rng: random.Random, fixtures: Fixtures, damaged: float) -> tuple[Fixture, dict, list[str], str]:
    name = rng.choice(list(FIXTURE_RUNS))
    fixture = fixtures.run(name)
    files = dict(fixture.files)
    if name != "budget" and rng.random() < 0.2:  # README: report, verify and run still read 0.1.0's runs
        files, name = old_layout(files), name + "-0.1.0"
    notes = damage(rng, files, fixture, "run") if rng.random() < damaged else []
    return fixture, files, notes, name


def old_layout(files: dict) -> dict:
    """The same run as 0.1.0 wrote it: format 1 (decimal128 deal, no game/deal_exact), and
    `_manifest.json` (with `version`, no results_format/sessions) and `_run.log` inside DIR."""
    import pyarrow as pa
    import pyarrow.compute as pc

    old = {}
    for name, data in files.items():
        if name.startswith("run/part-"):
            table = _read_parquet_bytes(data)
            table = table.set_column(table.schema.get_field_index("deal"), "deal",
                                     pc.cast(table["deal"], pa.decimal128(38, 0)))
            old[name] = _parquet_bytes(table.select([column for column, _ in SCHEMA_V1_TEXT]))
        elif name == f"run{SIDE}/{MANIFEST}":
            manifest = json.loads(data)
            manifest.pop("results_format", None)
            manifest.pop("sessions", None)
            manifest["version"] = "0.1.0"
            old[f"run/{OLD_MANIFEST}"] = json.dumps(manifest, indent=2).encode()
        elif name == f"run{SIDE}/run.log":
            old[f"run/{OLD_LOG}"] = data
        elif not name.startswith(f"run{SIDE}/"):
            old[name] = data
    return old


def target_arg(rng: random.Random) -> tuple[str, str]:
    """How the run directory is named on the command line, and the dataset path it means."""
    kind = pick(rng, {"plain": 12, "slash": 2, "dot": 1, "file-url": 2, "missing": 1, "absolute": 2})
    return {"plain": ("run", "run"), "slash": ("run/", "run"), "dot": ("./run", "run"),
            "file-url": (f"file://{CWD}/run", "run"), "missing": ("nothing", ""),
            "absolute": (f"{CWD}/run", "run")}[kind]


def gen_verify(rng: random.Random, index: int, fixtures: Fixtures) -> Case:
    fixture, files, notes, name = fixture_case(rng, fixtures, damaged=0.85)
    arg, root = target_arg(rng)
    case = Case(index, "verify", f"verify-{name}-" + ("-".join(notes) or "intact"), ["verify", arg], files,
                notes=notes, wrong="WRONG DATASET")
    if not root:
        case.expect = "refuse"
    if rng.random() < 0.03:
        case.argv = rng.choice([["verify"], ["verify", "run", "run"], ["verify", "--bogus", "run"]])
        case.expect = "refuse"

    def judge(case: Case, result: Result, cwd: Path, runner) -> tuple[str, str] | None:
        rows = re.search(r"^ok: ([\d,]+) rows", result.stdout.decode("utf-8", "replace"), re.M)
        expected = case.verdict.expected
        if rows is None:
            return "WRONG OUTPUT", "verify exits 0 without its 'ok: N rows' line"
        if expected is not None and case.verdict.state == "good" and \
                int(rows.group(1).replace(",", "")) != runs_count(expected):
            return "WRONG OUTPUT", f"verify counts {rows.group(1)} rows for {runs_count(expected)} deals"
        return None

    def before(cwd: Path) -> None:
        case.verdict = dataset_verdict(cwd / "run", fixture.boards) if root else Verdict("bad", "no directory")
        if case.expect != "refuse":
            case.expect = {"good": "accept", "bad": "refuse", "doubtful": "either"}[case.verdict.state]

    case.before, case.judge = before, judge
    return case


def gen_report(rng: random.Random, index: int, fixtures: Fixtures) -> Case:
    fixture, files, notes, name = fixture_case(rng, fixtures, damaged=0.6)
    arg, root = target_arg(rng)
    kind = pick(rng, {"dir": 10, "part-file": 2, "csv": 3})
    fmt = pick(rng, {None: 4, "text": 1, "markdown": 2, "json": 4, "bad": 1})
    argv = ["report", arg]
    if kind == "part-file":
        parts = sorted(n for n in files if n.startswith("run/part-") and isinstance(files[n], bytes))
        if parts:
            argv = ["report", parts[0]]
            root = ""
    elif kind == "csv":
        text, valid = csv_text(rng, fixture)
        files["verdicts.csv"] = text
        argv = ["report", "verdicts.csv"]
        root = ""
        notes.append("csv" if valid else "bad-csv")
    if fmt:
        argv += ["--format", "JSON" if fmt == "bad" else fmt]
    if rng.random() < 0.15:
        other, valid = csv_text(rng, fixture)
        files["other.csv"] = other
        argv += ["--compare", rng.choice(["other.csv", "run", "nothing"])]
    if rng.random() < 0.03:
        argv += ["--plots", rng.choice(["plots", f"run{SIDE}/{MANIFEST}", "run/plots"])]  # README: not inside DIR
    case = Case(index, "report", f"report-{kind}-" + ("-".join(notes) or "intact"), argv, files, notes=notes,
                wrong="WRONG DATASET")
    as_json = fmt == "json"

    def before(cwd: Path) -> None:
        case.verdict = dataset_verdict(cwd / "run", fixture.boards) if root else None
        plain_valid = "bad-csv" not in notes if kind == "csv" else kind == "part-file" and \
            _sound_part(cwd / argv[1], fixture)
        if fmt == "bad" or argv[1] == "nothing":
            case.expect = "refuse"
        elif (case.verdict and case.verdict.state == "good" or plain_valid) and "--compare" not in argv \
                and "--plots" not in argv:
            case.expect = "accept"

    def judge(case: Case, result: Result, cwd: Path, runner) -> tuple[str, str] | None:
        text = result.stdout.decode("utf-8", "replace")
        if as_json:
            try:
                json.loads(text)
            except ValueError:
                return "WRONG OUTPUT", "report --format json printed no valid JSON"
        verdict = case.verdict
        if verdict is None or verdict.expected is None:
            return None
        keys = glob_keys(cwd / "run")
        if keys is None:
            return None
        got = merge((ms, n, n) for ms, n in keys)
        if got != verdict.expected or any(n > 1 for n in keys.values()):
            if not re.search(r"warning|missing|fewer|more than|not asked|duplicate|repeat|incomplete|expected",
                             text + result.err, re.I):
                return "WRONG DATASET", (f"report counts deals {runs_text(got)} ({sum(keys.values())} rows), the "
                                         f"manifest asks for {runs_text(verdict.expected)}, and it does not say so")
        return None

    case.before = before
    case.judge = judge
    return case


def _sound_part(path: Path, fixture: Fixture) -> bool:
    """One Parquet file with the documented schema and sound rows."""
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(str(path))
    except Exception:
        return False
    return _documented_schema(table.schema) and not any(
        _row_problem(row, fixture.max_iters, fixture.boards) for row in table.to_pylist())


def csv_text(rng: random.Random, fixture: Fixture) -> tuple[bytes, bool]:
    """Another solver's verdicts as CSV (README: deal, outcome, iterations, cards_played), maybe damaged."""
    rows = []
    for ms, first, last in fixture.expected:
        for number in range(first, last + 1):
            outcome = rng.choice(OUTCOMES[:2])
            rows.append((number, outcome, rng.randint(1, 10**6), 51 if outcome == "solved" else rng.randint(0, 50),
                         str(ms).lower()))
    lines = ["deal,outcome,iterations,cards_played,ms"] + [",".join(map(str, row)) for row in rows]
    if rng.random() < 0.5:
        return ("\n".join(lines) + "\n").encode(), True
    kind = rng.choice(["no-deal", "bad-outcome", "text-iterations", "empty", "header-only", "bom", "huge-deal",
                       "negative", "nan", "binary", "ms-column", "semicolons", "max-played"])
    if kind == "no-deal":
        lines = [line.split(",", 1)[1] for line in lines]
    elif kind == "bad-outcome":
        lines[1] = lines[1].replace("solved", "SOLVED").replace("unsolved", "maybe")
    elif kind == "text-iterations":
        lines[1] += "x"
    elif kind == "empty":
        return b"", False
    elif kind == "header-only":
        lines = lines[:1]
    elif kind == "bom":
        return b"\xef\xbb\xbf" + ("\n".join(lines)).encode(), False
    elif kind == "huge-deal":
        lines[1] = f"{10**50},solved,1,51,false"
    elif kind == "negative":
        lines[1] = "-5,solved,1,51,false"
    elif kind == "nan":
        lines[1] = "nan,solved,nan,51,false"
    elif kind == "binary":
        return rng.randbytes(100), False
    elif kind == "ms-column":
        lines = [lines[0]] + [line.rsplit(",", 1)[0] + ",maybe" for line in lines[1:]]
    elif kind == "max-played":
        lines[0] = lines[0].replace("cards_played", "max_played")
    else:
        lines = [line.replace(",", ";") for line in lines]
    return ("\n".join(lines) + "\n").encode(), False


def gen_resume(rng: random.Random, index: int, fixtures: Fixtures) -> Case:
    """`run` into an existing (maybe damaged) run: resume it, add deals, or change its settings."""
    fixture, files, notes, name = fixture_case(rng, fixtures, damaged=0.4)
    argv = ["run", "--out", rng.choice(["run", "run/", f"file://{CWD}/run"])]
    added: list[str] = []
    if rng.random() < 0.6:
        added = [deal_item(rng)]
        argv += ["--range", added[0]]
    same = rng.random() < 0.8
    search, max_iters = fixture.search, fixture.max_iters
    if same:
        if search != "fast" or rng.random() < 0.3:
            argv += ["--search", search]
        if max_iters is not None:
            argv += ["--max-iters", str(max_iters)]
    else:
        change = rng.choice(["search", "max-iters"])
        if change == "search":
            search = "classic" if search == "fast" else "fast"
            argv += ["--search", search]
            if fixture.max_iters is not None:
                argv += ["--max-iters", str(fixture.max_iters)]
        else:
            # another value given (README: `--out DIR` alone, without --max-iters, keeps the run's own)
            max_iters = rng.choice([budget for budget in (7, 10**5) if budget != fixture.max_iters])
            argv += ["--max-iters", str(max_iters)]
            if search != "fast":
                argv += ["--search", search]
        notes.append(f"changed {change}")
    argv += ["--workers", rng.choice(["1", "2"])]
    reading = reading_of(added, None) if added else Reading([[]])
    case = Case(index, "run", f"run-resume-{name}-" + ("-".join(notes) or "intact"), argv, files, notes=notes,
                wrong="WRONG DATASET")
    out_arg = argv[2]

    def before(cwd: Path) -> None:
        verdict = dataset_verdict(cwd / "run", fixture.boards)
        case.verdict = verdict
        recorded = (verdict.manifest or {}).get("search"), (verdict.manifest or {}).get("max_iters")
        if not same or strays(cwd / "run"):  # README: run will not add rows beside a file that is not the run's
            case.expect = "refuse"
        elif verdict.state == "good" and recorded == (search, max_iters):
            case.expect = "accept"  # else the damage changed the settings: refusing is fair

    def judge(case: Case, result: Result, cwd: Path, runner) -> tuple[str, str] | None:
        if not same:
            return None  # refused above: a success is already WRONG DATASET
        base = case.verdict.expected if case.verdict.expected is not None else fixture.expected
        return judge_run(result, cwd / "run", reading, base, search, max_iters, fixture.boards, runner,
                         out_arg, damaged=case.verdict.state != "good")

    case.before = before
    case.judge = judge
    return case

# ------------------------------------------------------------------ judging


GENERATORS = {"deal": gen_deal, "solve": gen_solve, "run": gen_run, "verify": gen_verify, "report": gen_report}
BAR = re.compile(r"\r|\d+%\||deal/s|deals/s\]|\[\d\d:\d\d")


def classify(case: Case, result: Result, cwd: Path, runner) -> tuple[str, str]:
    """The class of one input's result and why."""
    err = result.err
    if result.timed_out:
        return "HANG", f"still running after {result.seconds:.0f} s"
    if "Traceback" in err or "Exception ignored" in err:
        return "TRACEBACK", _exception_line(err)
    if result.leftovers:
        return "HANG", f"left {result.leftovers} processes running after it exited"
    if result.signalled_at is not None and result.code not in (0, 1, 2, 3, 4, -case.interrupt[0]):
        return "TRACEBACK", f"exit status {result.code} after {signal.Signals(case.interrupt[0]).name}"
    if result.signalled_at is not None:
        return classify_interrupted(case, result, cwd, runner)
    if case.stdout_mode == "gone" and result.code in (141, -signal.SIGPIPE):  # as a shell sees it: 141
        said = [line for line in err.split("\n") if line and not (case.progress and BAR.search(line))]
        return ("ok", "") if not said else ("MESSY ERROR", f"exit 141 (reader gone) is not quiet: {err[:160]!r}")
    if result.code in (141, -signal.SIGPIPE):
        return "WRONG OUTPUT", f"exit {result.code} (a reader gone) though stdout was {case.stdout_mode}"
    if result.code < 0:
        return "TRACEBACK", f"killed by {signal.Signals(-result.code).name}"
    if result.code not in (0, 1, 2, 3, 4):
        return "TRACEBACK", f"exit status {result.code}"
    if result.code in (1, 2):
        lines = [line for line in err.split("\n")[:-1] if not (case.progress and BAR.search(line))]
        if case.expect == "accept":
            return "WRONG OUTPUT", f"refused a valid input: {(lines or ['(no message)'])[-1][:200]}"
        if result.stderr_bytes > MESSAGE_LIMIT:
            return "MESSY ERROR", f"exit {result.code} with {result.stderr_bytes:,} bytes on stderr: {err[:120]!r}"
        if len(lines) != 1 or not err.endswith("\n") or not lines[0].strip():
            return "MESSY ERROR", f"exit {result.code} with {len(lines)} stderr lines: {err[:160]!r}"
        return "clean error", lines[0][:200]
    if result.code in (3, 4) and case.command != "solve":
        return "WRONG OUTPUT", f"exit {result.code} is no status of {case.command}"
    if case.stdout_mode != "pipe":
        return "WRONG OUTPUT", f"exit {result.code} although stdout was {case.stdout_mode}: nothing was printed"
    if case.expect == "refuse":
        why = case.verdict
        reason = f"accepted an input it must refuse ({why.reason})" if why else "accepted an input it must refuse"
        if case.command == "verify":
            reason = f"verify says ok, but {why.reason}" if why else "verify says ok about no run"
        if case.explain:
            reason += f": {case.explain(cwd)}"
        return case.wrong, reason
    verdict = case.judge(case, result, cwd, runner) if case.judge else None
    return verdict or ("ok", "")


def classify_interrupted(case: Case, result: Result, cwd: Path, runner) -> tuple[str, str]:
    """A run that got SIGINT/SIGTERM: the resume command, then death by that signal (a shell shows 128
    + it), then a resume (the same command) that completes the dataset, every deal exactly once."""
    signum, _ = case.interrupt
    name = signal.Signals(signum).name
    late = result.seconds - result.signalled_at
    at = f"{name} at {result.signalled_at:.2f} s"
    problem = None
    # It finished all the same (exit 0, or its summary printed, then death by the signal): the signal
    # came too late to matter, so its dataset is judged as an uninterrupted run's, whatever the timing.
    finished = result.code == 0 or result.code == -signum and b"dataset: " in result.stdout
    judged = case.judge(case, result, cwd, runner) if finished else None
    if judged:
        return judged
    if result.code == 0 and late > 1.0:
        problem = f"{at} ignored: exit 0, {late:.1f} s after the signal"
    elif finished:
        pass  # every deal in: nothing to resume (a shell shows 128 + signal)
    elif result.code not in (0, -signum):
        last = (result.err.strip().splitlines() or ["(nothing)"])[-1]
        problem = f"{at} gave exit {result.code}, not death by {name}: {last[:160]}"
    elif result.code and "resume" not in result.err:
        problem = f"{at} killed it without the command that resumes (no handler yet?)"
    resumed = runner(case.argv)
    if resumed.code != 0 or "Traceback" in resumed.err:
        last = (resumed.err.strip().splitlines() or ["(nothing)"])[-1]
        return "WRONG DATASET", f"the resume after {at} fails with exit {resumed.code}: {last[:160]}"
    return case.judge(case, resumed, cwd, runner) or (("WRONG OUTPUT", problem) if problem else ("ok", ""))


def _exception_line(err: str) -> str:
    """The exception and where in the package it was raised: a cause to group failures by."""
    lines = [line for line in err.splitlines() if line.strip()]
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)', err)
    ours = [f"{Path(f).name}:{fn}" for f, _, fn in frames if "blackhole_stats" in f]
    last = next((line for line in reversed(lines) if re.match(r"^[\w.]+(Error|Exception|Interrupt|Exit)\b", line)
                 or re.match(r"^\w+: ", line)), lines[-1] if lines else "")
    return f"{last.strip()[:200]}" + (f" [{ours[-1]}]" if ours else "")


def cause(klass: str, command: str, reason: str) -> str:
    """A failure's reason without its details, to group many inputs under one cause."""
    text = reason
    if klass == "TRACEBACK":  # the exception's type and the package frame that raised it
        text = re.sub(r"^(\w[\w.]*):.*?(\[[^\]]*\])?$", lambda m: f"{m.group(1)} {m.group(2) or ''}", text)
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "…", text)
    text = re.sub(r"\b(deals?|budget|--max-iters|--out) \S+", r"\1 …", text)
    text = re.sub(r"\d+([,._]\d+)*", "#", text)
    if klass != "TRACEBACK":
        text = re.sub(r" \([^()]*\)$", "", text)
    return f"{command}: {text.strip()[:150]}"


# ------------------------------------------------------------------ reproducers


def save_reproducer(folder: Path, case: Case, result: Result, klass: str, reason: str, cli: str,
                    seed: int) -> Path:
    target = folder / klass.replace(" ", "-") / f"{case.index:06d}-{re.sub(r'[^A-Za-z0-9_.-]+', '_', case.kind)[:80]}"
    shutil.rmtree(target, ignore_errors=True)
    files = target / "files"
    files.mkdir(parents=True)
    packed = []
    for name, content in case.files.items():
        if isinstance(content, bytes) and len(content) > 1 << 20:
            (files / (name + ".gz")).parent.mkdir(parents=True, exist_ok=True)
            (files / (name + ".gz")).write_bytes(gzip.compress(content))
            packed.append(name)
        else:
            materialize({name: content}, files)
    unpack = [f'gunzip "$work"/{shlex.quote(name + ".gz")}' for name in packed]
    redirect = {"closed": " <&-", "null": " </dev/null"}.get(case.stdin_mode, "")
    if case.stdin_mode == "pipe":
        if case.stdin and len(case.stdin) > 1 << 20:
            (target / "stdin.bin.gz").write_bytes(gzip.compress(case.stdin))
            unpack.append('gunzip -c "$here/stdin.bin.gz" > "$work/.stdin.bin"')
            redirect = ' < "$work/.stdin.bin"'
        else:
            (target / "stdin.bin").write_bytes(case.stdin or b"")
            redirect = ' < "$here/stdin.bin"'
    redirect += {"closed": " >&-", "full": " >/dev/full", "gone": " | true"}.get(case.stdout_mode, "")
    words = []
    for arg in [cli, *case.argv]:
        pieces = arg.split(CWD)
        words.append('"$work"'.join(shlex.quote(piece) if piece else "" for piece in pieces) or "''")
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in case.env.items())
    script = [
        "#!/bin/sh",
        f"# {klass}: {reason}"[:1000].replace("\n", " "),
        f"# fuzz_cli.py --seed {seed} --input {case.index}   ({case.kind})",
        'here=$(cd "$(dirname "$0")" && pwd)',
        "work=$(mktemp -d)",
        'cp -a "$here/files/." "$work/"',
        *unpack,
        'cd "$work"',
        *([f"# then: kill -{signal.Signals(case.interrupt[0]).name[3:]} the process group after "
            f"{case.interrupt[1]} s, and run the same command again"] if case.interrupt else []),
        f"{env + ' ' if env else ''}{' '.join(words)}{redirect}",
        'echo "exit status: $? (files in $work)" >&2',
    ]
    (target / "repro.sh").write_text("\n".join(script) + "\n")
    (target / "repro.sh").chmod(0o755)
    (target / "stdout.txt").write_bytes(result.stdout[:65536])
    (target / "stderr.txt").write_bytes(result.stderr[:65536])
    (target / "case.json").write_text(json.dumps({
        "class": klass, "reason": reason, "seed": seed, "input": case.index, "command": case.command,
        "kind": case.kind, "argv": case.argv, "stdin": case.stdin_mode, "stdout": case.stdout_mode,
        "env": case.env, "expect": case.expect, "notes": case.notes, "exit_status": result.code,
        "seconds": round(result.seconds, 3), "max_rss_mb": round(result.max_rss_mb, 1),
        "then": "for run: the dataset is read with pyarrow and `verify`ed; the reason says what failed",
    }, indent=2, ensure_ascii=False) + "\n")
    return target

# ------------------------------------------------------------------ driver


@dataclass(frozen=True)
class Config:
    cli: str
    seed: int
    timeout: float
    out: Path
    scratch: Path
    commands: tuple[str, ...]


_config: Config | None = None
_fixtures: Fixtures | None = None


def _init_worker(config: Config) -> None:
    global _config, _fixtures
    # The parent handles Ctrl-C. A handler, not SIG_IGN: an ignored SIGINT would be inherited
    # by the CLI processes, which must meet Ctrl-C as a user's shell delivers it.
    signal.signal(signal.SIGINT, lambda signum, frame: None)
    _config = config
    scratch = config.scratch / f"worker-{os.getpid()}"
    scratch.mkdir(parents=True, exist_ok=True)
    _fixtures = Fixtures(config.cli, scratch, config.timeout)


def make_case(config: Config, fixtures: Fixtures, index: int) -> Case:
    rng = random.Random(f"{config.seed}:{index}")
    command = pick(rng, {c: WEIGHTS[c] for c in config.commands})
    case = GENERATORS[command](rng, index, fixtures)
    if rng.random() < 0.03 and case.stdout_mode == "pipe":
        case.stdout_mode = rng.choice(["closed", "full", "gone"])  # README: exit 1 in one line; gone: quiet 141
        case.expect = "refuse"
        case.kind += f"-stdout-{case.stdout_mode}"
    if rng.random() < 0.02:
        case.env = rng.choice([{"LC_ALL": "C"}, {"PYTHONIOENCODING": "ascii"}, {"COLUMNS": "3"},
                               {"LANG": "", "LC_ALL": "POSIX"}])
        case.kind += "-env"
    return case


def run_input(index: int) -> dict:
    """Generate, run and judge input `index`; returns its summary (and writes a reproducer if it failed)."""
    try:
        return _run_input(index)
    except FixtureError:
        raise
    except Exception:  # a bug of this script: keep fuzzing, but say so loudly
        details = traceback.format_exc()
        folder = _config.out / "FUZZER-BUG"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{index:06d}.txt").write_text(details)
        return {"index": index, "command": "?", "kind": "?", "class": FUZZER_BUG,
                "reason": details.strip().splitlines()[-1], "cause": "", "folder": str(folder), "argv": [],
                "seconds": 0.0, "cpu": 0.0}


def _run_input(index: int) -> dict:
    config, fixtures = _config, _fixtures
    started, cpu = time.monotonic(), 0.0
    case = make_case(config, fixtures, index)
    cwd = fixtures.scratch / f"input-{index}"
    shutil.rmtree(cwd, ignore_errors=True)
    cwd.mkdir()
    try:
        materialize(case.files, cwd)
        if case.before:
            case.before(cwd)
            if case.stdout_mode in ("closed", "full"):  # README: exit 1 in one line, whatever the input
                case.expect = "refuse"

        def runner(argv: list[str]) -> Result:
            nonlocal cpu
            extra = execute(config.cli, argv, cwd, config.timeout)
            cpu += extra.cpu_seconds
            return extra

        result = execute(config.cli, case.argv, cwd, config.timeout, case.stdin, case.stdin_mode,
                         case.stdout_mode, case.env, case.interrupt)
        cpu += result.cpu_seconds
        klass, reason = classify(case, result, cwd, runner)
        folder = None
        if klass in FAILING:
            folder = str(save_reproducer(config.out, case, result, klass, reason, config.cli, config.seed))
    finally:
        _make_removable(cwd)
        shutil.rmtree(cwd, ignore_errors=True)
    return {"index": index, "command": case.command, "kind": case.kind, "class": klass, "reason": reason,
            "cause": cause(klass, case.command, reason) if klass in FAILING else "", "folder": folder,
            "argv": case.argv, "seconds": time.monotonic() - started, "cpu": cpu}


def _make_removable(root: Path) -> None:
    for path in root.rglob("*"):
        try:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        except OSError:
            pass


def default_cli() -> str:
    beside = Path(sys.executable).parent / "blackhole-stats"
    return str(beside) if beside.exists() else shutil.which("blackhole-stats") or "blackhole-stats"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--inputs", type=int, default=1000, help="how many inputs (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="the same seed gives the same inputs (default 1)")
    parser.add_argument("--jobs", type=int, default=2, help="inputs run in parallel (default 2)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds before an input is a HANG (default 60)")
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"),
                        help="where reproducers of failing inputs go (default ./fuzz-failures)")
    parser.add_argument("--cli", default=default_cli(), help="the program to fuzz (default: the installed "
                                                              "blackhole-stats beside this Python)")
    parser.add_argument("--commands", default=",".join(COMMANDS),
                        help=f"comma-separated commands to fuzz (default {','.join(COMMANDS)})")
    parser.add_argument("--input", type=int, action="append", dest="only",
                        help="run only this input number (repeatable): reproduce one from a seed")
    parser.add_argument("--scratch", type=Path, help="working directory for inputs (default: a temporary one)")
    args = parser.parse_args(argv)
    commands = tuple(c.strip() for c in args.commands.split(",") if c.strip())
    if not commands or set(commands) - set(COMMANDS):
        parser.error(f"--commands takes some of {', '.join(COMMANDS)}")
    if args.inputs < 1 or args.jobs < 1 or args.timeout <= 0:
        parser.error("--inputs, --jobs and --timeout must be positive")
    args.commands = commands
    if os.sep in args.cli:
        args.cli = str(Path(args.cli).resolve())  # inputs run in their own directories
    return args


def summarize(records: list[dict], args, seconds: float) -> str:
    counts = Counter(r["class"] for r in records)
    lines = [f"blackhole-stats fuzz: tried {len(records)} inputs in {seconds:.1f} s "
             f"({len(records) / seconds if seconds else 0:.2f} inputs/s), seed {args.seed}, {args.jobs} jobs, "
             f"timeout {args.timeout:g} s, cli {args.cli}"]
    lines += [f"  {klass:<14}{counts.get(klass, 0):>7}" for klass in CLASSES]
    if counts.get(FUZZER_BUG):
        lines.append(f"  {FUZZER_BUG:<14}{counts[FUZZER_BUG]:>7}   (tracebacks of this script in {args.out}/FUZZER-BUG)")
    lines.append("by command:")
    for command in args.commands:
        mine = Counter(r["class"] for r in records if r["command"] == command)
        if mine:
            spent = [r for r in records if r["command"] == command]
            lines.append(f"  {command:<7}{sum(mine.values()):>6}: " +
                         ", ".join(f"{klass} {mine[klass]}" for klass in CLASSES if mine[klass]) +
                         f"  ({sum(r['seconds'] for r in spent) / len(spent):.2f} s, "
                         f"{sum(r['cpu'] for r in spent) / len(spent):.2f} CLI CPU-s per input)")
    failures = [r for r in records if r["class"] in FAILING]
    if failures:
        groups: dict[tuple[str, str], list[dict]] = {}
        for record in sorted(failures, key=lambda r: r["index"]):
            groups.setdefault((record["class"], record["cause"]), []).append(record)
        lines.append(f"failures by cause ({len(groups)} causes; count, class, cause, first reproducer):")
        for (klass, why), members in sorted(groups.items(), key=lambda item: (-len(item[1]), item[0])):
            first = members[0]
            lines.append(f"  {len(members):>5}  {klass:<13} {why}")
            lines.append(f"         e.g. input {first['index']}: {shlex.join(first['argv'])[:160]}")
            lines.append(f"              {first['reason'][:160]}")
            lines.append(f"              {first['folder']}")
        lines.append(f"reproducers of {len(failures)} failing inputs in {args.out}")
    else:
        lines.append("no failures")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    scratch_owner = None
    if args.scratch is None:
        scratch_owner = tempfile.TemporaryDirectory(prefix="fuzz-cli-")
        args.scratch = Path(scratch_owner.name)
    config = Config(args.cli, args.seed, args.timeout, args.out.resolve(), args.scratch.resolve(), args.commands)
    indexes = args.only or list(range(args.inputs))
    records: list[dict] = []
    started = time.monotonic()
    pool = multiprocessing.get_context("fork").Pool(args.jobs, initializer=_init_worker, initargs=(config,))
    status = 0
    try:
        for record in pool.imap_unordered(run_input, indexes):
            records.append(record)
            if len(records) % 100 == 0:
                failed = sum(r["class"] in FAILING for r in records)
                print(f"... {len(records)}/{len(indexes)} inputs, {failed} failing, "
                      f"{time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
        pool.close()
    except FixtureError as error:
        print(f"fuzz_cli: {error}", file=sys.stderr)
        status = 2
    except KeyboardInterrupt:
        print("fuzz_cli: interrupted; the summary covers the inputs that finished", file=sys.stderr)
        status = 130
    finally:
        if status:
            pool.terminate()
        pool.join()
        if scratch_owner:
            scratch_owner.cleanup()
    print(summarize(records, args, time.monotonic() - started))
    if status:
        return status
    if any(r["class"] == FUZZER_BUG for r in records):
        return 2
    return 1 if any(r["class"] in FAILING for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
