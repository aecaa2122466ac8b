"""Dealing and game numbers, checked against the reference boards, DEALING.md and pysol-cards."""
from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from blackhole_stats import DealNumberError, GameNumber, Solver, deal
from blackhole_stats.dealing import deal_card_ids

from conftest import reference_boards, require_reference

RANKS, SUITS = "A23456789TJQK", "CSHD"
MS_MAX = 2**33 - 1


# --------------------------------------------------------------- reference boards
REFERENCE_BOARDS = reference_boards()


def our_name(deal_id: str, oracle: str) -> str:
    """pysol-cards' plain 32000 is the LCG deal, i.e. our ms32000."""
    if oracle.startswith("pysol_cards") and deal_id == "32000":
        return "ms32000"
    return deal_id


def test_reference_file_is_complete():
    require_reference("pysolfc_boards.txt")
    assert len(REFERENCE_BOARDS) == 129
    assert all(text.startswith("Foundations: AS\n") and text.count("\n") == 18
               for _, _, _, text in REFERENCE_BOARDS)


@pytest.mark.parametrize(
    "deal_id, gen, oracle, text",
    [pytest.param(*board, id=f"{board[0]}-{board[2]}") for board in REFERENCE_BOARDS]
    or [pytest.param("", "", "", "", marks=pytest.mark.skip(reason="pysolfc_boards.txt not found"))])
def test_reference_board(deal_id, gen, oracle, text):
    game = GameNumber.parse(our_name(deal_id, oracle))
    assert game.generator == gen
    assert deal(game).to_text() == text
    assert deal(str(game)).to_text() == text


def test_both_versions_of_32000_are_in_the_reference():
    require_reference("pysolfc_boards.txt")
    by_key = {(d, o.split("-")[0]): t for d, _, o, t in REFERENCE_BOARDS}
    assert deal("32000").to_text() == by_key[("32000", "pysolfc")]
    assert deal("ms32000").to_text() == by_key[("32000", "pysol_cards")] == by_key[("ms32000", "pysol_cards")]
    assert by_key[("32000", "pysolfc")] != by_key[("32000", "pysol_cards")]


# ------------------------------------------------ DEALING.md, written out in the test
def lcg_raw(seed: int):
    """The Microsoft rand() sequence as DEALING.md describes it."""
    x = seed - 2**32 if seed >= 2**32 else seed
    while True:
        x = (x * 214013 + 2531011) % 2**32
        if seed >= 2**32:
            yield ((x >> 16) & 0xFFFF) + 1
        elif seed >= 2**31:
            yield ((x >> 16) & 0x7FFF) | 0x8000
        else:
            yield (x >> 16) & 0x7FFF


def spec_draws(number: int, ms: bool):
    """j for i = 51, 50, ..., 1."""
    if ms or number < 32000:
        raw = lcg_raw(number)
        return [next(raw) % (i + 1) for i in range(51, 0, -1)]
    rng = random.Random(number)
    return [int(rng.random() * (i + 1)) for i in range(51, 0, -1)]


def spec_deal_text(number: int, ms: bool = False) -> str:
    """The board text straight from DEALING.md's recipe."""
    deck = list(range(52))
    if ms or number < 32000:
        deck = [deck[r + s] for r in range(13) for s in (0, 39, 26, 13)]
    for i, j in zip(range(51, 0, -1), spec_draws(number, ms)):
        deck[i], deck[j] = deck[j], deck[i]
    rest = [card for card in deck if card != 13]
    name = [RANKS[c % 13] + SUITS[c // 13] for c in range(52)]
    lines = ["Foundations: AS"]
    lines += [" ".join(name[rest[50 - (17 * r + p)]] for r in range(3)) for p in range(17)]
    return "\n".join(lines) + "\n"


def test_dealing_md_vectors():
    raw = lcg_raw(1)
    assert [next(raw) for _ in range(5)] == [41, 18467, 6334, 26500, 19169]
    assert spec_draws(1, False)[:5] == [41, 5, 34, 40, 17]
    rng = random.Random(10**12)
    assert [rng.random() for _ in range(3)] == [0.4770217077490344, 0.6685915874038376, 0.7513269537142105]
    assert spec_draws(10**12, False)[:5] == [24, 34, 37, 32, 43]


def test_spec_recipe_reproduces_reference_boards():
    """Validates the recipe above before it is used as a second oracle."""
    require_reference("pysolfc_boards.txt")
    for deal_id, _, oracle, text in REFERENCE_BOARDS:
        game = GameNumber.parse(our_name(deal_id, oracle))
        assert spec_deal_text(game.number, game.ms) == text, deal_id


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.integers(1, 31999), st.integers(32000, 10**30),
                 st.integers(2**31 - 3, 2**33 + 3), st.integers(2**64 - 3, 2**64 + 3)),
       st.booleans())
def test_spec_recipe_agrees(number, ms):
    if ms and number > MS_MAX:
        return
    game = GameNumber(number, ms)
    assert deal(game).to_text() == spec_deal_text(number, ms)


# ------------------------------------------------------------ pysol-cards as oracle
def pysol_cards_text(number: int, ms: bool) -> str:
    from pysol_cards.cards import CardRenderer
    from pysol_cards.deal_game import Game
    from pysol_cards.random_base import RandomBase

    which = RandomBase.DEALS_MS if ms else RandomBase.DEALS_PYSOLFC
    return Game("black_hole", number, which, 13).calc_deal_string(number, CardRenderer(True))


def spread(rng: random.Random, low: int, high: int, count: int) -> list[int]:
    """`count` numbers in [low, high], both ends included."""
    return sorted({low, high, *(rng.randint(low, high) for _ in range(count - 2))})


_rng = random.Random(20240601)
PYSOLFC_RANGES = {
    "lcg-1..31999": spread(_rng, 1, 31999, 500),
    "mt-32001..2^31": spread(_rng, 32001, 2**31 - 1, 300),
    "mt-around-2^31": spread(_rng, 2**31 - 100, 2**31 + 100, 100),
    "mt-around-2^32": spread(_rng, 2**32 - 100, 2**32 + 100, 100),
    "mt-2^32..2^33": spread(_rng, 2**32, 2**33 + 100, 150),
    "mt-around-10^12": spread(_rng, 10**12 - 50, 10**12 + 50, 50),
    "mt-10^16..10^20": spread(_rng, 10**16, 10**20, 600),
    "mt-around-2^64": spread(_rng, 2**64 - 50, 2**64 + 50, 100),
    "mt-2^64..10^30": spread(_rng, 2**64, 10**30, 300),
}
MS_RANGES = {
    "ms-1..2^31": spread(_rng, 1, 2**31 - 1, 200),
    "ms-around-2^31": spread(_rng, 2**31 - 50, 2**31 + 50, 100),
    "ms-2^31..2^32": spread(_rng, 2**31, 2**32 - 1, 150),
    "ms-around-2^32": spread(_rng, 2**32 - 50, 2**32 + 50, 100),
    "ms-2^32..2^33-1": spread(_rng, 2**32, MS_MAX, 200),
}


def mismatches(numbers, ms):
    bad = []
    for number in numbers:
        ours = GameNumber(number, ms or number == 32000)  # pysol-cards' 32000 is the LCG deal
        if deal(ours).to_text() != pysol_cards_text(number, ms):
            bad.append(str(ours))
    return bad


@pytest.mark.parametrize("name", PYSOLFC_RANGES)
def test_pysol_cards_pysolfc_numbers(name):
    pytest.importorskip("pysol_cards")
    bad = mismatches(PYSOLFC_RANGES[name], ms=False)
    assert not bad, f"{len(bad)} deals differ from pysol-cards, e.g. {bad[:5]}"


@pytest.mark.parametrize("name", MS_RANGES)
def test_pysol_cards_ms_numbers(name):
    pytest.importorskip("pysol_cards")
    bad = mismatches(MS_RANGES[name], ms=True)
    assert not bad, f"{len(bad)} deals differ from pysol-cards, e.g. {bad[:5]}"


def test_pysol_cards_32000_is_our_ms32000():
    pytest.importorskip("pysol_cards")
    theirs = pysol_cards_text(32000, ms=False)
    assert deal("ms32000").to_text() == theirs
    assert deal("32000").to_text() != theirs
    assert deal(32000).to_text() == deal("32000").to_text()


def test_deal_card_ids_layout():
    """51 distinct ids, never the Ace of Spades, pile p position i at 3p+i."""
    for text in ("1", "ms2", "32000", "10000000000000000", "ms8589934591"):
        game = GameNumber.parse(text)
        ids = deal_card_ids(game)
        assert len(ids) == 51 and sorted(ids) == [c for c in range(52) if c != 13]
        board = deal(game)
        assert [card.id for pile in board.piles for card in pile] == list(ids)


# ------------------------------------------------------------------- GameNumber
@pytest.mark.parametrize("text, number, ms", [
    ("12345", 12345, False),
    ("#12,345", 12345, False),
    ("  12345\n", 12345, False),
    ("\t#12 345 ", 12345, False),
    ("12_345", 12345, False),
    ("12.345", 12345, False),
    ("12-345", 12345, False),
    ("1_2.3-4,5", 12345, False),
    ("12345L", 12345, False),
    ("1", 1, False),
    ("31999", 31999, False),
    ("32000", 32000, False),
    ("000042", 42, False),
    ("ms12345", 12345, True),
    (" ms12345 ", 12345, True),
    ("ms32000", 32000, True),
    (f"ms{MS_MAX}", MS_MAX, True),
    ("26464608654870335080", 26464608654870335080, False),
    (str(10**30), 10**30, False),
])
def test_parse_accepts(text, number, ms):
    game = GameNumber.parse(text)
    assert (game.number, game.ms) == (number, ms)
    assert game == GameNumber(number, ms)
    assert GameNumber.parse(str(game)) == game


@pytest.mark.parametrize("text", ["1.0", " 2.5 ", ".5", "1,000.5", "#1.0", "1.0L", "1. 0"])
def test_the_api_refuses_text_that_is_also_a_decimal(text):
    """A CSV's float column read as text ("1.0") would be deal 10 by the dialog's reading: silently
    another deal. The CLI keeps the dialog's reading, and says which deal it dealt."""
    with pytest.raises(ValueError, match="ambiguous game number"):
        deal(text)
    with pytest.raises(ValueError, match="ambiguous game number"):
        Solver().solve_deal(text, game="golf")
    assert str(GameNumber.parse(text.strip())) != text.strip()  # what the dialog would have dealt instead


def test_the_api_reads_other_text_as_the_dialog_does():
    assert deal("#12,345").name == "12345" and deal(" ms10 ").name == "ms10"
    assert Solver().solve_deal("1-5")["deal"] == 15 and deal("1.2.3").name == "123"  # no decimal
    assert deal("3.").name == "3"  # a decimal, but of the same number
    with pytest.raises(ValueError, match="negative"):  # refused for what is wrong with it
        deal("-1.5")


def test_the_api_reads_a_pyarrow_text_cell_as_its_text():
    """`table["deal"][i]` of a text column: refused as "StringScalar, not a number", where its text deals."""
    import pyarrow as pa

    assert deal(pa.scalar("ms5")).name == "ms5" and deal(pa.scalar("#12,345")).name == "12345"
    assert GameNumber.parse(pa.scalar("ms5")) == GameNumber(5, True)
    with pytest.raises(ValueError, match="ambiguous game number"):  # the text's checks, not the dialog's 10
        deal(pa.scalar("1.0"))


def test_parse_int_and_str():
    assert GameNumber.parse(12345) == GameNumber.parse("12345")
    assert str(GameNumber.parse("#12,345")) == "12345"
    assert str(GameNumber.parse(" ms12345\n")) == "ms12345"


@pytest.mark.parametrize("text", [
    "0", "#0", "000", "ms0", "-1", "-12345", "# -5", "ms-5", f"ms{2**33}", f"ms{2**40}",
    "", " ", "#", "ms", "L", "msL", "abc", "12a", "a12", "MS12", "Ms12", "m s12", "12ms", "1e5",
    "0x10", "L12", "１２", "12/3", "12;", "1\x002", "#\n-5", "ms\n-5", "ms #\t-5",
])
def test_parse_rejects(text):
    with pytest.raises(DealNumberError):
        GameNumber.parse(text)


@pytest.mark.parametrize("text", ["ms 5", "ms5L", "ms#5", "ms_5", "ms.5", "ms1,0", "ms#12,345", " ms12345L ",
                                  "ms1.0", "ms 3.0", "ms3.", "ms٣", "ms+5"])
def test_ms_is_followed_by_digits_alone_as_in_pysolfc(text):
    """PySolFC matches `ms([0-9]+)` whole; anything else is squashed and given to int(), which refuses the
    letters: 'ms 5' was dealt as ms5 with the words "as PySolFC's dialog reads it"."""
    with pytest.raises(DealNumberError, match="'ms' is followed by digits only"):
        GameNumber.parse(text)
    with pytest.raises(DealNumberError, match="'ms' is followed by digits only"):
        deal(text)


@pytest.mark.parametrize("value", [0, -1, -(10**20), None, 1.5, b"12", True, [1]])
def test_parse_rejects_values(value):
    with pytest.raises(DealNumberError):
        GameNumber.parse(value)


def test_constructor_rejects_out_of_range():
    for number, ms in ((0, False), (-3, False), (0, True), (2**33, True)):
        with pytest.raises(DealNumberError):
            GameNumber(number, ms)
    assert issubclass(DealNumberError, ValueError)


def test_generators():
    expected = {"1": "ms-lcg", "31999": "ms-lcg", "32000": "mt19937", "32001": "mt19937",
                "ms32000": "ms-lcg", "ms1": "ms-lcg", f"ms{MS_MAX}": "ms-lcg", str(10**25): "mt19937"}
    assert {text: GameNumber.parse(text).generator for text in expected} == expected


def test_32000_and_ms32000_differ():
    plain, ms = GameNumber.parse("32000"), GameNumber.parse("ms32000")
    assert plain != ms and str(plain) != str(ms)
    assert deal(plain).to_text() != deal(ms).to_text()
    assert GameNumber.parse("ms31999") == GameNumber(31999, True) != GameNumber(31999)
    assert deal("ms31999").to_text() == deal("31999").to_text()


def looks_negative(text: str) -> bool:
    """A '-' before the first digit, after only whitespace, 'ms' and '#'."""
    return re.match(r"\s*(ms)?[\s#]*-", text) is not None


NUMBER_TEXT = st.text(alphabet="ms0123456789#,._- L\t\nM", max_size=30)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=40), NUMBER_TEXT, st.integers(-(10**25), 10**25)))
@example("ms" + "9" * 12)
@example("9" * 5000)
@example("1" * 3999)
@example("ms٣")
def test_parse_fuzz(text):
    """Only DealNumberError escapes; accepted input is exactly its ASCII digits, and round-trips."""
    try:
        game = GameNumber.parse(text)
    except DealNumberError:
        return
    assert game.number >= 1
    assert not game.ms or game.number <= MS_MAX
    assert GameNumber.parse(str(game)) == game
    if isinstance(text, str):
        assert game.number == int("".join(ch for ch in text if ch in "0123456789"))
        assert game.ms == text.strip().startswith("ms")
        letters = re.sub(r"[0-9\s#,._\-]", "", text)
        assert letters in ("", "L", "ms")
        assert not game.ms or text.strip()[2:].isdigit()
        assert not looks_negative(text), "a leading minus sign must be rejected"
    else:
        assert game == GameNumber(text)


def test_the_ms_flag_is_a_truth_value_not_any_truthy_object():
    """`GameNumber(5, "False")` dealt ms5 and equalled neither GameNumber(5, False) nor (5, True); a NaN from a
    float ms column did the same. Dataset values (numpy bools, 0 and 1) are read as the bools they are."""
    import numpy as np

    assert GameNumber(40000, np.bool_(True)) == GameNumber(40000, True) == GameNumber(40000, 1)
    assert GameNumber(40000, np.False_) == GameNumber(40000, False) == GameNumber(40000, 0)
    assert type(GameNumber(5, np.True_).ms) is bool and str(GameNumber(5, 1)) == "ms5"
    for flag in ("False", "0", float("nan"), None, 2, 1.0):
        with pytest.raises(DealNumberError, match="invalid ms flag"):
            GameNumber(5, flag)
    row = Solver().solve_deal(GameNumber(40000, np.True_))
    assert row["ms"] is True and row["deal"] == 40000  # the row holds a bool, as the column does


def test_numbers_numpy_makes_integers_are_game_numbers_only_when_they_are_counts():
    """numpy's timedelta64 is an integer to numpy: a duration made an ms deal of GameNumber(5, ...) and a game
    number of its count; a 0-d array, which numpy treats as its scalar, was refused as "ndarray"."""
    import numpy as np

    for make in (lambda: GameNumber(5, np.timedelta64(1)), lambda: deal(np.timedelta64(5)),
                 lambda: GameNumber(np.timedelta64(5, "ms"))):
        with pytest.raises(DealNumberError, match="invalid (ms flag|game number)"):
            make()
    assert deal(np.array(5)) == deal(5) and deal(np.array(5)).name == "5"  # as an index is taken


def test_a_decimal_spelt_with_a_huge_exponent_is_refused_before_its_digits_are_spelt_out():
    """Decimal("1e10000000") took seconds (1e100000000 minutes and gigabytes) before the digit limit refused
    it: the exponent is read first now, as for a fraction that small."""
    from decimal import Decimal

    import tracemalloc

    for text, problem in (("1e1000000", "invalid game number: more than 4000 digits"),
                          ("-7e1000000", "invalid game number: more than 4000 digits"),
                          ("3e-1000000", "invalid game number Decimal('3E-1000000'): not a whole number")):
        with pytest.raises(DealNumberError, match=re.escape(problem)):
            deal(Decimal(text))
    assert deal(Decimal("1" + "0" * 10**6 + "e-1000000")) == deal(1)  # a million zeros, and the point after them
    assert deal(Decimal("5e3")) == deal(5000) and deal(Decimal("0.5e1")) == deal(5) and deal(Decimal("10.000")) \
        == deal(10)
    one, huge = Decimal("1" + "0" * 10**6 + "e-1000000"), Decimal("1e10000000")
    tracemalloc.start()  # the integer is never built: 4 MB of it for 1e10000000, seconds to make
    try:
        with pytest.raises(DealNumberError, match="more than 4000 digits"):
            deal(huge)
        assert deal(one) == deal(1)
        assert tracemalloc.get_traced_memory()[1] < 2**20
    finally:
        tracemalloc.stop()
