"""The ten-million-deal study cannot drift from its bitmap: every figure is recomputed here.

`results/ten_million/black_hole_1_10000000.bits` holds the verdict of every
deal; `ten_million.json` and `REPORT.md` are what `scripts/ten_million.py`
wrote from it. Here the counts, intervals, blocks, the generator split and
the comparison with the million-deal study's own bitmap are recomputed with
numpy, and REPORT.md must be exactly what the script renders from the json
(so nobody edited it by hand). Skipped until the study is committed.
"""
from __future__ import annotations

import importlib.util
import json
import math
import re
import sys

import numpy as np
import pytest

from conftest import REPO

STUDY = REPO / "results" / "ten_million"
BITMAP = STUDY / "black_hole_1_10000000.bits"
pytestmark = pytest.mark.skipif(not BITMAP.is_file(), reason="the ten-million study is not committed yet")
Z95 = 1.959963984540054
DEALS, BLOCK = 10_000_000, 1_000_000


def wilson(successes: int, trials: int) -> tuple[float, float]:
    p, z2 = successes / trials, Z95 * Z95
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z95 / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return centre - half, centre + half


def bits(path, count: int) -> np.ndarray:
    raw = np.fromfile(path, dtype=np.uint8)
    assert len(raw) == math.ceil(count / 8), f"{path} is not a bitmap of {count:,} deals"
    return np.unpackbits(raw, bitorder="little")[:count].astype(bool)


@pytest.fixture(scope="module")
def winnable() -> np.ndarray:
    return bits(BITMAP, DEALS)


@pytest.fixture(scope="module")
def facts() -> dict:
    return json.loads((STUDY / "ten_million.json").read_text(encoding="utf-8"))


def assert_share(recorded: dict, successes: int, trials: int) -> None:
    low, high = wilson(successes, trials)
    assert (recorded["successes"], recorded["trials"]) == (successes, trials)
    assert recorded["low"] == pytest.approx(low, abs=1e-12) and recorded["high"] == pytest.approx(high, abs=1e-12)


def test_the_counts_and_intervals_are_the_bitmaps(winnable, facts):
    assert facts["deals"] == DEALS
    assert_share(facts["solvable"], int(winnable.sum()), DEALS)
    for index, block in enumerate(facts["blocks"]):
        assert_share(block, int(winnable[index * BLOCK:(index + 1) * BLOCK].sum()), BLOCK)
    assert len(facts["blocks"]) == DEALS // BLOCK
    assert_share(facts["lcg"], int(winnable[:31_999].sum()), 31_999)
    assert_share(facts["mersenne_twister"], int(winnable[31_999:].sum()), DEALS - 31_999)
    fraction = winnable.mean()
    block_counts = winnable.reshape(-1, BLOCK).sum(axis=1)
    chi2 = float((((block_counts - BLOCK * fraction) ** 2) / (BLOCK * fraction * (1 - fraction))).sum())
    assert facts["blocks_chi2"] == pytest.approx(chi2, rel=1e-9)
    solvitaire_se = facts["solvitaire"]["half_width_percent"] / 100 / Z95
    z = (fraction - facts["solvitaire"]["percent"] / 100) / math.hypot(math.sqrt(fraction * (1 - fraction) / DEALS),
                                                                      solvitaire_se)
    assert facts["solvitaire"]["z"] == pytest.approx(z, rel=1e-9)


def test_the_first_million_is_compared_with_the_million_deal_studys_bitmap(winnable, facts):
    million = bits(REPO / "results" / "winnable" / "black_hole_1_1000000.bits", BLOCK)
    assert facts["first_million_differences"] == int((winnable[:BLOCK] != million).sum())


def test_the_report_is_what_the_script_renders_from_its_figures(facts, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    spec = importlib.util.spec_from_file_location("ten_million", REPO / "scripts" / "ten_million.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (STUDY / "REPORT.md").read_text(encoding="utf-8") == module.render(facts, facts["run"])
    for imported in ("winnable_bitmap", "study"):
        sys.modules.pop(imported, None)


def test_readme_quotes_only_the_reports_figures(facts):
    """README's 'Ten million deals' section: every number in it is one REPORT.md states (which the
    tests above tie to the bitmap), or one of the few words of its prose."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    body = readme.split("\n## Ten million deals\n", 1)[1].split("\n## ", 1)[0]
    report = (STUDY / "REPORT.md").read_text(encoding="utf-8")
    stated = set(re.findall(r"[+-]?\d[\d,]*(?:\.\d+)?%?", report))
    words = {"10,000,000", "1.25", "1", "95%", "9", "5%", "0"}  # the range, the bitmap's MB, the prose's
    quoted = re.findall(r"[+-]?\d[\d,]*(?:\.\d+)?%?", body.replace("1..10,000,000", "").replace("1..31,999", ""))
    assert quoted and set(quoted) - words <= stated, sorted(set(quoted) - words - stated)
    whole = facts["solvable"]
    assert f"**{whole['successes']:,} of {facts['deals']:,} deals can be won: {100 * whole['fraction']:.3f}%**" in \
        " ".join(body.split())
