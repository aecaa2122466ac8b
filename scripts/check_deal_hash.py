#!/usr/bin/env python3
"""Check our dealer against the published SHA-256 of PySolFC deals 1..1,000,000.

The hash (from shared/reference/DEALING.md) is over the concatenated board
texts, each ending in a newline, no headers, with pysol-cards' convention
for 32000 (the LCG deal, our ms32000). Exit status 0 if it matches, 1 if not.

    python scripts/check_deal_hash.py                  # all 1,000,000 deals
    python scripts/check_deal_hash.py --count 5000     # a prefix: print its hash
    python scripts/check_deal_hash.py --pysol-cards 20000   # also time pysol-cards
    python scripts/check_deal_hash.py --pysol-cards 20000 --summary results/bench/dealing.json   # README's figures

Speeds are deals per CPU second of this process, from the median of the
repeats (`--repeats`, default 5), each repeat dealing every deal again.
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import hashlib
import statistics
import time

from blackhole_stats.cards import NUM_RANKS, RANKS, SUITS
from blackhole_stats.dealing import GameNumber, deal_card_ids


EXPECTED = "d1a85650f391aac68cede4d7183f32ffdace10a8d150e3a235bf72314e503bd9"
FULL_COUNT = 1_000_000

# Card id = suit * 13 + rank. bytes.translate maps each id to its rank/suit letter.
RANK_LETTER = bytes(ord(RANKS[i % NUM_RANKS]) if i < 52 else ord("?") for i in range(256))
SUIT_LETTER = bytes(ord(SUITS[i // NUM_RANKS]) if i < 52 else ord("?") for i in range(256))
# Card k (pile k // 3, position k % 3) sits at byte 16 + 3k (rank) and 17 + 3k (suit).
TEMPLATE = b"Foundations: AS\n" + b"?? ?? ??\n" * 17
CHUNK = 10_000


def game(number: int) -> GameNumber:
    return GameNumber(number, ms=number == 32000)  # pysol-cards' 32000 is the LCG deal


def board_bytes(ids: bytes) -> bytearray:
    text = bytearray(TEMPLATE)
    text[16::3] = ids.translate(RANK_LETTER)
    text[17::3] = ids.translate(SUIT_LETTER)
    return text


def hash_deals(count: int) -> str:
    digest = hashlib.sha256()
    for start in range(1, count + 1, CHUNK):
        chunk = bytearray()
        for number in range(start, min(start + CHUNK, count + 1)):
            chunk += board_bytes(deal_card_ids(game(number)))
        digest.update(chunk)
    return digest.hexdigest()


def time_pysol_cards(count: int) -> tuple[float, float, int]:
    """CPU seconds pysol-cards and we take for deals 1..count, and how many boards differ."""
    from pysol_cards.cards import CardRenderer
    from pysol_cards.deal_game import Game
    from pysol_cards.random_base import RandomBase

    renderer = CardRenderer(True)
    started = time.process_time()
    theirs = [Game("black_hole", n, RandomBase.DEALS_PYSOLFC, 13).calc_deal_string(n, renderer).encode()
              for n in range(1, count + 1)]
    their_seconds = time.process_time() - started
    started = time.process_time()
    ours = [bytes(board_bytes(deal_card_ids(game(n)))) for n in range(1, count + 1)]
    our_seconds = time.process_time() - started
    return their_seconds, our_seconds, sum(a != b for a, b in zip(theirs, ours))


def rate(count: int, seconds: list[float]) -> float:
    """Deals per CPU second, from the median repeat."""
    return count / statistics.median(seconds)


def main(argv: list[str] | None = None) -> int:
    parser = benchlib.parser(__doc__)
    parser.add_argument("--count", type=benchlib.positive, default=FULL_COUNT,
                        help="hash deals 1..COUNT (default all 1,000,000, compared with the reference)")
    parser.add_argument("--pysol-cards", type=benchlib.positive, default=None, metavar="N",
                        help="also deal 1..N with pysol-cards: speed ratio and a board-by-board check")
    args = benchlib.parse(parser, argv)

    load = benchlib.load_average()
    digests, seconds = set(), []
    for _ in range(args.repeats):
        started = time.process_time()
        digests.add(hash_deals(args.count))
        seconds.append(time.process_time() - started)
    [digest] = digests  # the same deals every time
    print(f"deals 1..{args.count:,}: sha256 {digest}")
    print(f"dealt and formatted {args.count:,} boards: {rate(args.count, seconds):,.0f} deals per CPU second "
          f"(median of {args.repeats}; {benchlib.shown_load(load)})")
    figures = {"count": args.count, "repeats": args.repeats, "cpu_seconds_of": "this process",
               "sha256": digest, "hash_seconds": benchlib.spread(seconds),
               "deals_per_second": rate(args.count, seconds)}

    status = 0
    if args.pysol_cards is not None:
        theirs, ours, differing = [], [], set()
        for _ in range(args.repeats):
            their_seconds, our_seconds, differ = time_pysol_cards(args.pysol_cards)
            theirs.append(their_seconds)
            ours.append(our_seconds)
            differing.add(differ)
        differ = max(differing)
        their_rate, our_rate = rate(args.pysol_cards, theirs), rate(args.pysol_cards, ours)
        print(f"deals 1..{args.pysol_cards:,}: pysol-cards {their_rate:,.0f} deals per CPU second, "
              f"ours {our_rate:,.0f} ({our_rate / their_rate:.0f}x); boards differing: {differ}")
        figures["pysol_cards"] = {"count": args.pysol_cards, "their_seconds": benchlib.spread(theirs),
                                  "our_seconds": benchlib.spread(ours), "their_deals_per_second": their_rate,
                                  "our_deals_per_second": our_rate, "boards_differing": differ}
        status = 1 if differ else 0
    if args.count == FULL_COUNT:
        matches = digest == EXPECTED
        print(f"expected       {EXPECTED}: {'MATCH' if matches else 'MISMATCH'}")
        figures["matches_reference"] = matches
        status = status or (0 if matches else 1)
    options = ["--count", str(args.count), *(["--pysol-cards", str(args.pysol_cards)] if args.pysol_cards else []),
               "--repeats", str(args.repeats)]
    benchlib.write_summary(args.summary, "check_deal_hash.py", options, load, **figures)
    return status


if __name__ == "__main__":
    benchlib.run_script(main)
