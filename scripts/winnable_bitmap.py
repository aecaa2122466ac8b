"""The winnable deals 1..N of a dataset as a bitmap (N bits, about 122 KiB for a million), and back to numbers.

    python scripts/winnable_bitmap.py pack results/deals.parquet results/winnable/black_hole_1_1000000.bits
    python scripts/winnable_bitmap.py expand results/winnable/black_hole_1_1000000.bits > winnable.txt
    python scripts/winnable_bitmap.py pack-tags runs/tagged results/winnable/black_hole_1_1000000
    python scripts/winnable_bitmap.py expand results/winnable/black_hole_1_1000000_hard.bits > hard.txt

Bit k (0-based, least significant bit first in each byte) is set when deal
k + 1 can be won. `expand` prints the winnable numbers one a line, exactly
what `blackhole-stats export DATASET --solvable` prints for the same deals.
`pack` refuses a dataset that does not hold every deal 1..N exactly once
(no ms deals), so a bit that is 0 always means "proved unwinnable".
`pack-tags` writes one such bitmap per difficulty tag of a dataset made with
`run --difficulty` (PREFIX_very_easy.bits .. PREFIX_very_hard.bits): bit k
set when deal k + 1 is winnable with that tag; they are disjoint, and
together they are the winnable bitmap.
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import argparse
import sys

import numpy as np

from blackhole_stats.atomic import replacing
from blackhole_stats.difficulty import TAGS
from blackhole_stats.dataset import DatasetError, read_manifest
from blackhole_stats.report import load, source_warnings


def every_deal(dataset: str, columns: tuple[str, ...] = ("deal", "outcome")):
    """The dataset's rows for deals 1..N, each exactly once, no ms deals and none intractable; with
    export's warnings on stderr (an interrupted run's bitmap is short, as its list would be)."""
    try:
        data = load(dataset, required=columns)
        warnings = source_warnings(data, read_manifest(dataset), dataset)
    except DatasetError as error:
        sys.exit(str(error))
    for line in warnings:
        print(line, file=sys.stderr)
    plain = data[~data["ms"]]
    numbers = plain["deal"].to_numpy()
    if len(plain) != len(data) or not np.array_equal(numbers, np.arange(1, len(numbers) + 1)):
        sys.exit(f"{dataset}: not every deal 1..N exactly once (and no ms deals)")
    if (plain["outcome"] == "intractable").any():
        sys.exit(f"{dataset}: has intractable deals, which are neither winnable nor not")
    return plain


def write_bits(out: str, marked: np.ndarray) -> None:
    bits = np.packbits(marked, bitorder="little")
    with replacing(out) as temp:
        temp.write_bytes(bits.tobytes())
    print(f"{out}: {len(marked):,} deals, {int(marked.sum()):,} marked, {bits.nbytes:,} bytes",
          file=sys.stderr)  # not stdout: OUT may be /dev/stdout


def pack(dataset: str, out: str) -> None:
    write_bits(out, (every_deal(dataset)["outcome"] == "solved").to_numpy())


def pack_tags(dataset: str, prefix: str) -> None:
    data = every_deal(dataset, ("deal", "outcome", "tag"))
    solved = (data["outcome"] == "solved").to_numpy()
    if data["tag"].isna().to_numpy()[solved].any():
        sys.exit(f"{dataset}: a winnable deal has no tag (its score was not determined)")
    for tag in TAGS:
        write_bits(f"{prefix}_{tag.replace(' ', '_')}.bits", (data["tag"] == tag).to_numpy() & solved)


def expand(path: str) -> None:
    bits = np.unpackbits(np.fromfile(path, dtype=np.uint8), bitorder="little")
    sys.stdout.write("".join(f"{k}\n" for k in (np.flatnonzero(bits) + 1).tolist()))  # (its failures: run_script)


def main() -> None:
    parser = benchlib.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    packing = commands.add_parser("pack", help="DATASET OUT: write the bitmap")
    packing.add_argument("dataset")
    packing.add_argument("out")
    tagging = commands.add_parser("pack-tags", help="DATASET PREFIX: one bitmap per difficulty tag")
    tagging.add_argument("dataset")
    tagging.add_argument("prefix")
    expanding = commands.add_parser("expand", help="BITMAP: print the numbers of the deals it marks")
    expanding.add_argument("bitmap")
    args = parser.parse_args()
    try:
        if args.command == "pack":
            pack(args.dataset, args.out)
        elif args.command == "pack-tags":
            pack_tags(args.dataset, args.prefix)
        else:
            expand(args.bitmap)
    except OSError as error:  # a typo in a path, a missing folder, a full disk: one line
        target = args.out if args.command == "pack" else args.prefix if args.command == "pack-tags" else args.bitmap
        sys.exit(f"winnable_bitmap.py {args.command}: {target}: {error.strerror or error}")


if __name__ == "__main__":
    benchlib.run_script(main)
