"""PNG charts of a dataset, for people who would rather look than read.

matplotlib is the optional `plots` extra, imported only when charts are
asked for. Figures are drawn with `matplotlib.figure.Figure` directly (Agg
renders PNG), so no pyplot state or global backend switch leaks into a
notebook that calls this.
"""
from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

import numpy as np
import pandas as pd

from . import _testhooks
from .atomic import refuse_unwritable, replacing
from .interrupts import Interrupted, held
from .games import DEFAULT_GAME, Game
from .report import one_row_per_deal, wilson_interval
from .solver import OUTCOMES

COLORS = {"solved": "tab:green", "unsolved": "tab:red", "intractable": "tab:gray"}
SIZE = (8, 4.5)
DPI = 120
LOG_SPAN = 100
"""Deal numbers spanning this factor or more get a log axis in the running-fraction chart."""
FAR_DEALS = 10**9
"""From here up, deal numbers that span less than their first are drawn from the one before it."""


class PlotsUnavailable(RuntimeError):
    """matplotlib is not installed, or will not start."""


def write_plots(data: pd.DataFrame, out_dir: str | Path, game: Game = DEFAULT_GAME) -> tuple[list[Path], list[Path]]:
    """Write the charts that have data to show into `out_dir`; return the files written and those removed.

    `data` is a normalized dataset (`report.load`) of `game`, whose name the titles carry; a deal
    listed twice is drawn once (`report.one_row_per_deal`). The charts replace those in `out_dir` all
    at once, once every one is drawn: a full disk or a signal part-way left some of another report's
    beside some of this one's. A chart this data has nothing for (no unsolvable deal) is removed, not
    left as an earlier report of other data drew it, to be read as this one's.
    """
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotsUnavailable("plots need matplotlib: pip install 'blackhole-stats[plots]'") from None
    except ValueError as error:  # its settings refused at import, such as an unknown MPLBACKEND
        raise PlotsUnavailable(f"matplotlib cannot start: {str(error).split(';')[0][:200]}") from None
    data = one_row_per_deal(data)
    out_dir = Path(out_dir)
    for name, _ in CHARTS:  # checked before any is replaced
        chart = out_dir / name
        if chart.is_symlink():  # `replacing` writes a link's target: a link into a dataset would overwrite a part
            raise FileExistsError(errno.EEXIST, f"{name} there is a link (to {os.readlink(chart)}), which a chart "
                                  "would be written through: remove it", str(chart))
        if chart.exists() and not chart.is_file():  # (its rename would fail once others had been made)
            raise IsADirectoryError(errno.EISDIR, "a chart's name is taken by a folder", str(chart))
        refuse_unwritable(chart, f"{name} there is read-only: make it writable, or remove it")  # stale or not
    created = not out_dir.is_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    try:
        with contextlib.ExitStack() as replaced:  # left with an error or a signal: every chart drawn dropped
            for name, draw in CHARTS:
                figure = Figure(figsize=SIZE, layout="constrained")
                if draw(figure, data, game):
                    figure.savefig(replaced.enter_context(replacing(out_dir / name)), dpi=DPI, format="png")
                    _testhooks.pause("plot-drawn")
                    written.append(out_dir / name)
            stale = [out_dir / name for name, _ in CHARTS
                     if out_dir / name not in written and (out_dir / name).is_file()]
            renamed = False
            try:
                with held():  # the stale charts removed, then every chart renamed into place, before a signal is handled
                    for path in stale:  # first: one that cannot go (a sticky folder) leaves no new chart beside it
                        _remove_stale(path)
                    _testhooks.pause("plots-replacing")
                    replaced.pop_all().close()
                    renamed = True
            except Interrupted as interrupt:  # said with "interrupted": the charts are this report's now
                if renamed:
                    interrupt.done = f"the charts in {out_dir} were replaced"
                raise
    except BaseException:
        if created:  # a folder this call made, and nothing in it: not left behind empty
            with contextlib.suppress(OSError):
                out_dir.rmdir()
        raise
    return written, stale


def _remove_stale(chart: Path) -> None:
    """Remove an earlier report's chart this data has nothing for; an error names it (the folder's own
    name says nothing of which file could not go)."""
    try:
        chart.unlink(missing_ok=True)
    except OSError as error:
        raise OSError(error.errno, f"{chart.name} there, which this dataset has nothing for, cannot be removed "
                                   f"({error.strerror})", str(chart)) from None


def _integer_ticks(axis) -> None:
    """Ticks at whole counts only: a few deals would otherwise get ticks at 0.5 shown as "0" and "1"."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _thousands(axis) -> None:
    """Tick labels as 1,000 and 1,000,000 instead of 1e3 or 1000000."""
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))


def _iterations(figure, data: pd.DataFrame, game: Game = DEFAULT_GAME) -> bool:
    """Histogram of iterations, one panel per outcome so that each has its own count scale.

    Log-spaced bins on a log axis shared by the panels (0 counts in the first bin).
    """
    if "iterations" not in data or data.empty:
        return False
    present = [outcome for outcome in OUTCOMES if (data["outcome"] == outcome).any()]
    top = max(int(data["iterations"].max()), 10)
    bins = np.geomspace(1, top * 1.01, 60)
    axes = np.atleast_1d(figure.subplots(len(present), 1, sharex=True))
    for ax, outcome in zip(axes, present):
        values = data.loc[data["outcome"] == outcome, "iterations"].to_numpy()
        ax.hist(np.clip(values, 1, None), bins=bins, color=COLORS[outcome])
        ax.set_xscale("log")
        ax.set_ylabel("deals per bin")
        _integer_ticks(ax.yaxis)
        ax.set_title(f"{outcome}: {len(values):,} deals", fontsize="medium", loc="left")
        _thousands(ax.yaxis)
    _thousands(axes[-1].xaxis)
    axes[-1].set_xlabel("iterations (positions expanded), log scale")
    figure.suptitle(f"{game.name}: how much search each deal needed, by outcome")
    return True


def _cards_played(figure, data: pd.DataFrame, game: Game = DEFAULT_GAME) -> bool:
    """Bar chart: how many unsolvable deals got exactly k cards onto the foundation."""
    if "cards_played" not in data:
        return False
    unsolved = data.loc[data["outcome"] == "unsolved", "cards_played"]
    cards = unsolved.value_counts().sort_index()  # nulls (not determined within --max-iters) aside
    if cards.empty:
        return False
    ax = figure.subplots()
    ax.bar(cards.index.to_numpy(dtype=int), cards.to_numpy(), width=0.8, color=COLORS["unsolved"])
    ax.set_xlim(game.fewest_cards_played - 1, game.playable_cards)  # every line plays the talon; none all cards
    talon = ", talon cards included" if game.has_talon else ""
    ax.set_xlabel(f"most cards any line of play puts on the foundation (of {game.playable_cards}{talon})")
    ax.set_ylabel("unsolvable deals")
    _integer_ticks(ax.yaxis)
    _thousands(ax.yaxis)
    unknown = int(unsolved.isna().sum())
    nothing = f"{game.talon_size} = no pile card ever playable" if game.has_talon else "0 = no legal first move"
    ax.set_title(f"{game.name}: how close the {len(unsolved):,} unsolvable deals got\n({nothing}"
                 + (f"; {unknown:,} not determined" if unknown else "") + ")")
    return True


def _deal_origin(deals: pd.Series) -> int:
    """What the deal axis counts from: 0, or the number before the first deal where the deals are a
    window far from 0 (10^19 .. 10^19 + 300: as floats one point, its labels 26 characters wide). Deals
    near 0 with far ones take a log axis, on which a far window is one point however it is drawn."""
    first, last = int(deals.min()), int(deals.max())  # exact: Python ints, whatever the column holds
    return first - 1 if last >= FAR_DEALS and last - first < first else 0


def _after(deals: pd.Series, origin: int) -> np.ndarray:
    """The deal numbers less `origin`, as floats for the axis (exact subtraction first)."""
    if not origin:
        return deals.to_numpy(dtype=float)
    return np.array([int(number) - origin for number in deals], dtype=float)


def _solvable_fraction(figure, data: pd.DataFrame, game: Game = DEFAULT_GAME) -> bool:
    """Running solvable fraction of decided deals in deal-number order, with its 95% Wilson band."""
    decided = data[data["outcome"] != "intractable"]
    if decided.empty:
        return False
    ax = figure.subplots()
    origin = _deal_origin(decided["deal"])
    for ms, deals in decided.groupby("ms"):
        solved = np.cumsum((deals["outcome"] == "solved").to_numpy())
        trials = np.arange(1, len(deals) + 1)
        low, high = wilson_interval(solved, trials)
        numbers = _after(deals["deal"], origin)
        label = f"{'ms' if ms else 'PySolFC'} deals: {solved[-1] / trials[-1]:.2%} of {trials[-1]:,} decided"
        line, = ax.plot(numbers, solved / trials, label=label)
        ax.fill_between(numbers, low, high, color=line.get_color(), alpha=0.2, linewidth=0,
                        label="95% Wilson interval")
    first, last = int(decided["deal"].min()), int(decided["deal"].max())
    if last >= LOG_SPAN * first:  # early deals would be squeezed against the axis (never so with an origin)
        ax.set_xscale("log")
    _thousands(ax.xaxis)
    ax.set_xlabel("deal number" + (f" \N{MINUS SIGN} {origin:,}" if origin else "")
                  + (", log scale" if ax.get_xscale() == "log" else ""))
    ax.set_ylabel("solvable fraction so far")
    ax.set_title(f"{game.name}: running solvable fraction over the deal numbers")
    ax.legend(loc="lower right")
    return True


CHARTS = (("iterations.png", _iterations), ("cards_played.png", _cards_played),
          ("solvable_fraction.png", _solvable_fraction))
"""The charts `write_plots` draws, each under its own file name."""
