"""The winnable deals 1..N of a dataset as a bitmap (N bits, about 122 KiB for a million), and back to numbers.

    python scripts/winnable_bitmap.py pack results/deals.parquet results/winnable/black_hole_1_1000000.bits
    python scripts/winnable_bitmap.py expand results/winnable/black_hole_1_1000000.bits > winnable.txt

Bit k (0-based, least significant bit first in each byte) is set when deal
k + 1 can be won. `expand` prints the winnable numbers one a line, exactly
what `blackhole-stats export DATASET --solvable` prints for the same deals.
`pack` refuses a dataset that does not hold every deal 1..N exactly once
(no ms deals), so a bit that is 0 always means "proved unwinnable".
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from blackhole_stats.report import load


def pack(dataset: str, out: str) -> None:
    data = load(dataset, required=("deal", "outcome"))
    plain = data[~data["ms"]]
    numbers = plain["deal"].to_numpy()
    if len(plain) != len(data) or not np.array_equal(numbers, np.arange(1, len(numbers) + 1)):
        sys.exit(f"{dataset}: not every deal 1..N exactly once (and no ms deals)")
    if (plain["outcome"] == "intractable").any():
        sys.exit(f"{dataset}: has intractable deals, which are neither winnable nor not")
    bits = np.packbits((plain["outcome"] == "solved").to_numpy(), bitorder="little")
    with open(out, "wb") as handle:
        handle.write(bits.tobytes())
    print(f"{out}: {len(numbers):,} deals, {int((plain['outcome'] == 'solved').sum()):,} winnable, "
          f"{bits.nbytes:,} bytes")


def expand(path: str) -> None:
    bits = np.unpackbits(np.fromfile(path, dtype=np.uint8), bitorder="little")
    sys.stdout.write("".join(f"{k}\n" for k in (np.flatnonzero(bits) + 1).tolist()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    packing = commands.add_parser("pack", help="DATASET OUT: write the bitmap")
    packing.add_argument("dataset")
    packing.add_argument("out")
    expanding = commands.add_parser("expand", help="BITMAP: print the winnable numbers")
    expanding.add_argument("bitmap")
    args = parser.parse_args()
    pack(args.dataset, args.out) if args.command == "pack" else expand(args.bitmap)


if __name__ == "__main__":
    main()
