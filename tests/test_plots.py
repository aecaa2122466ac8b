"""The charts' axes, read back from the matplotlib figures that `write_plots` saves."""
from __future__ import annotations

import pandas as pd
import pytest

from blackhole_stats import plots
from blackhole_stats.games import GAMES

matplotlib_figure = pytest.importorskip("matplotlib.figure", reason="plots need the 'plots' extra")
FigureCanvasAgg = pytest.importorskip("matplotlib.backends.backend_agg").FigureCanvasAgg


@pytest.fixture
def data() -> pd.DataFrame:
    """5,000 solved deals and 50 unsolved ones: counts that differ a hundredfold."""
    solved = pd.DataFrame({"deal": range(1, 5001), "ms": False, "outcome": "solved",
                           "iterations": 100, "cards_played": 51})
    unsolved = pd.DataFrame({"deal": range(5001, 5051), "ms": False, "outcome": "unsolved",
                             "iterations": [3 + n for n in range(50)], "cards_played": 50})
    frame = pd.concat([solved, unsolved], ignore_index=True)
    frame["outcome"] = pd.Categorical(frame["outcome"], categories=plots.OUTCOMES)
    return frame


def drawn(draw, data):
    figure = matplotlib_figure.Figure()
    assert draw(figure, data)
    figure.canvas.draw()
    return figure


def tick_labels(axis) -> list[str]:
    return [label.get_text() for label in axis.get_ticklabels() if label.get_text()]


def test_iterations_gives_each_outcome_its_own_count_scale(data):
    solved, unsolved = drawn(plots._iterations, data).axes
    assert solved.get_ylim()[1] >= 5000 and unsolved.get_ylim()[1] < 100  # not flattened
    assert any("," in label for label in tick_labels(solved.yaxis))  # 5,000 not 5000
    assert "1,000" in tick_labels(unsolved.xaxis) or "100" in tick_labels(unsolved.xaxis)


def test_cards_played_axis_ends_at_the_cards_there_are(data):
    (ax,) = drawn(plots._cards_played, data).axes
    assert ax.get_xlim()[1] <= 51 and "51 = solved" not in ax.get_xlabel()


def test_deal_numbers_have_thousands_separators(data):
    (ax,) = drawn(plots._solvable_fraction, data).axes
    assert any("," in label for label in tick_labels(ax.xaxis))


@pytest.mark.parametrize("first", [10**19, 2**63 - 40, 10**12])
def test_deals_far_from_zero_are_drawn_one_by_one(data, first):
    """Deals 10^19 .. 10^19 + 5,049 (a run of PySolFC's random games) were drawn as floats, all one point:
    the running fraction a vertical line, the ticks' 26-character labels over each other. The axis counts
    from the deal before the first, and says so."""
    data["deal"] = pd.Series([first + n for n in range(len(data))], dtype=object)  # as report.load reads them
    (ax,) = drawn(plots._solvable_fraction, data).axes
    line = ax.lines[0]
    assert list(line.get_xdata()) == [float(n) for n in range(1, len(data) + 1)]
    assert ax.get_xlabel().startswith(f"deal number \N{MINUS SIGN} {first - 1:,}")
    assert max(map(len, tick_labels(ax.xaxis))) <= len("10,000") and ax.get_xscale() == "linear"


def test_cards_played_not_determined_are_left_out_and_counted(data):
    """Unsolvable deals whose best line --max-iters cut short: null cards_played, as `report.load` gives it."""
    data["cards_played"] = data["cards_played"].astype("Int64")
    data.loc[data.index[-3:], "cards_played"] = pd.NA  # three of the 50 unsolved
    (ax,) = drawn(plots._cards_played, data).axes
    [bar] = [patch for patch in ax.patches if patch.get_height() > 0]
    assert (bar.get_x() + bar.get_width() / 2, bar.get_height()) == (50, 47)
    assert "3 not determined" in ax.get_title()


@pytest.mark.parametrize("game", GAMES, ids=[game.key for game in GAMES])
def test_every_title_and_label_fits_inside_the_saved_chart(game):
    """At the size write_plots saves them, with a million deals of which 740,000 unsolvable (about
    Dead King Golf's count): no title or axis label runs past the picture's edge."""
    deals = pd.RangeIndex(1, 1_000_001)
    unsolved = deals % 100 < 74
    data = pd.DataFrame({"deal": deals, "ms": False, "iterations": deals % 5000 + 1,
                         "outcome": pd.Categorical.from_codes(unsolved.astype(int), categories=plots.OUTCOMES),
                         "cards_played": game.fewest_cards_played + 1})
    data.loc[~unsolved, "cards_played"] = game.playable_cards
    for draw in (plots._iterations, plots._cards_played, plots._solvable_fraction):
        figure = matplotlib_figure.Figure(figsize=plots.SIZE, layout="constrained")
        FigureCanvasAgg(figure)  # the renderer savefig uses for PNG
        assert draw(figure, data, game)
        figure.canvas.draw()
        box = figure.bbox
        texts = [figure._suptitle] if figure._suptitle else []
        for ax in figure.axes:
            texts += [ax.title, ax._left_title, ax.xaxis.label, ax.yaxis.label]
        for text in texts:
            if text.get_text():
                extent = text.get_window_extent()
                assert box.x0 <= extent.x0 and extent.x1 <= box.x1, (draw.__name__, text.get_text())

