#!/usr/bin/env python3
"""pandas on the committed million-deal study: `deal` as results format 1 (decimal) against format 2 (int64).

Reads results/deals.parquet as committed (format 2: `deal` is int64) and a
format-1 copy of it written into a temporary directory, with `deal` cast to
decimal128(38, 0) as 0.1.0 stored it (pandas gets Python Decimal objects);
results/ is only read. Then, in one process, times the
operations a notebook does with the deal numbers, each repeated and
interleaved (format 1, format 2, format 1, ...) so that both see the same
machine load, and prints the medians with the range, in CPU seconds of this
process (all its threads: pyarrow reads with several), which a shared
machine's load disturbs less than wall-clock time.

    python scripts/bench_readers.py [--repeats 7] [--results results]
    python scripts/bench_readers.py --summary results/bench/readers.json   # what README quotes
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import statistics
import tempfile
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq


OLD_DEAL = pa.decimal128(38, 0)
"""`deal` in results format 1 (0.1.0)."""

OPERATIONS = {
    "read_parquet(FILE)": lambda data: pd.read_parquet(data.path),
    "deal < 1000": lambda data: data.frame["deal"] < data.number(1000),
    "sort_values('deal')": lambda data: data.frame.sort_values("deal"),
    "merge(on='deal')": lambda data: data.frame.merge(data.picked, on="deal"),
    "deal.isin(10,000 numbers)": lambda data: data.frame["deal"].isin(data.picked["deal"]),
    "groupby(deal // 1000).size()": lambda data: data.frame.groupby(data.frame["deal"] // data.number(1000)).size(),
    "deal.quantile(0.5)": lambda data: data.frame["deal"].quantile(0.5),
    "pyarrow backend: deal // 1000": lambda data: data.arrow_frame["deal"] // 1000,
}
"""What is timed: each on the whole million-row frame read with pandas' default (numpy) backend,
the last one with `dtype_backend="pyarrow"`."""


class Data:
    """One file of the study as pandas reads it, and what the operations need beside it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.frame = pd.read_parquet(path)
        self.arrow_frame = pd.read_parquet(path, dtype_backend="pyarrow")
        self.picked = self.frame[["deal"]].iloc[::100].assign(picked=True)  # 10,000 deals to merge with
        self.number = type(self.frame["deal"].iloc[0])  # Decimal for format 1, numpy int64 for format 2

    def deal_megabytes(self) -> float:
        return self.frame["deal"].memory_usage(deep=True, index=False) / 1e6


def time_once(operation, data: Data) -> float | str:
    """CPU seconds one call takes, or the name of the exception it raises."""
    started = time.process_time()
    try:
        operation(data)
    except Exception as error:  # what pandas does with a Decimal column is the measurement
        return type(error).__name__
    return time.process_time() - started


def figures(times: list) -> dict:
    """One operation on one format as the summary keeps it: its spread, or what it raises."""
    failures = sorted({value for value in times if isinstance(value, str)})
    return {"raises": ", ".join(failures)} if failures else benchlib.spread(times)


def summary(times: list) -> str:
    measured = figures(times)
    if "raises" in measured:
        return "raises " + measured["raises"]
    return f"{measured['median']:.4f} [{measured['min']:.4f}..{measured['max']:.4f}]"


def speedup(before: list, after: list) -> str:
    """How many times faster the median of format 2 is ("-" where format 1 raises)."""
    if any(isinstance(value, str) for value in before + after):
        return "-"
    return f"{statistics.median(before) / statistics.median(after):.0f}x"


def main() -> None:
    parser = benchlib.parser(__doc__, repeats=7)
    parser.add_argument("--results", type=Path, default=Path(__file__).resolve().parents[1] / "results")
    args = benchlib.parse(parser)
    source = args.results / "deals.parquet"
    if not source.is_file():
        parser.error(f"--results {args.results}: no deals.parquet in it (the study's compact rows)")
    try:
        table = pq.read_table(source)
    except (OSError, pa.ArrowException) as error:
        parser.error(f"--results {args.results}: cannot read deals.parquet: {error}")
    index = table.schema.get_field_index("deal")
    if index < 0:
        parser.error(f"--results {args.results}: its deals.parquet has no deal column")
    load = benchlib.load_average()
    with tempfile.TemporaryDirectory() as folder:
        old = Path(folder) / "deals.parquet"
        format_1 = table.set_column(index, pa.field("deal", OLD_DEAL), table["deal"].cast(OLD_DEAL))
        pq.write_table(format_1.drop_columns([name for name in ["game"] if name in table.column_names]), old,
                       compression="zstd")  # (format 1 had no game column)
        formats = {"format 1 (decimal128)": Data(old), "format 2 (int64)": Data(source)}
        times = {(name, label): [] for name in OPERATIONS for label in formats}
        for _ in range(args.repeats):
            for name, operation in OPERATIONS.items():
                for label, data in formats.items():
                    times[name, label].append(time_once(operation, data))
        before, after = formats
        megabytes = [data.deal_megabytes() for data in formats.values()]
        rows = [("deal column in memory (MB)", *(f"{size:.1f}" for size in megabytes),
                 f"{megabytes[0] / megabytes[1]:.0f}x smaller")]
        rows += [(name, *(summary(times[name, label]) for label in formats),
                  speedup(times[name, before], times[name, after])) for name in OPERATIONS]
        dtypes = ", ".join(f"{label}: {data.frame['deal'].dtype}" for label, data in formats.items())
        rows_read = len(next(iter(formats.values())).frame)

    print(f"pandas {pd.__version__}, {rows_read:,} rows of {source.name}; deal dtype {dtypes}")
    print(f"CPU seconds, median [min..max] of {args.repeats} interleaved runs; {benchlib.shown_load(load)}\n")
    headers = ("operation", *formats, "format 2 faster")
    widths = [max(len(str(row[column])) for row in [headers, *rows]) for column in range(len(headers))]
    for number, row in enumerate([headers, *rows]):
        print("| " + " | ".join(str(cell).ljust(width) for cell, width in zip(row, widths)) + " |")
        if number == 0:
            print("|" + "|".join("-" * (width + 2) for width in widths) + "|")
    benchlib.write_summary(
        args.summary, "bench_readers.py", ["--repeats", str(args.repeats)], load, repeats=args.repeats,
        pandas=pd.__version__, rows=rows_read, cpu_seconds_of="this process, all its threads",
        deal_megabytes=dict(zip(formats, megabytes)),
        operations=[{"name": name, **{label: figures(times[name, label]) for label in formats}}
                    for name in OPERATIONS])


if __name__ == "__main__":
    benchlib.run_script(main)
