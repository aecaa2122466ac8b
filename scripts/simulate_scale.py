#!/usr/bin/env python3
"""How a run's files, manifest, scheduler traffic and reading time grow from 10^6 to 10^9 deals.

A simulation from measurements, not a guess. In a temporary directory it
1. solves one real chunk with the runner (`runner.run`, one worker) and keeps
   its part file, its manifest and a worker's real task and result;
2. writes synthetic datasets of that chunk's rows (renumbered, through
   `dataset.write_part`, so files are what a run writes) for several file
   counts and rows per file, and times each reader on the bare directory
   (pandas, polars, DuckDB, pyarrow; median of --repeat) and the resume
   scan `dataset.read_done`;
3. fits seconds = a + b * files + c * rows per reader (least squares) and
   extrapolates to 10^6..10^9 deals for several part sizes;
4. times a real Dask scheduler (LocalCluster, 2 worker processes) on
   stand-in tasks that carry a real task and return a real result, without
   solving, so the scheduler's own cost per chunk is what is measured.

    python scripts/simulate_scale.py [--repeat 3] [--json results/scale.json]

Prints a Markdown report; --json keeps the measurements, from which
`render` (also `--render FILE.json`) prints the same report again.
"""
from __future__ import annotations

import benchlib  # first: signals are recorded from here on (see there)

import json
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from blackhole_stats import dataset, runner
from blackhole_stats.atomic import replace_text
from blackhole_stats.deals import DealSet


TEMPLATE_DEALS = 2000
"""Real deals solved once; their rows are repeated into the synthetic datasets."""
LAYOUTS = [(10, 1000), (100, 1000), (1000, 1000), (10, 10_000), (100, 10_000), (300, 10_000),
           (10, 100_000), (30, 100_000)]
"""(files, rows per file) of the synthetic datasets that the fit is measured on (at most 3 million rows)."""
RUN_SIZES = [10**6, 10**7, 10**8, 10**9]
PART_ROWS = [1000, 10_000, 100_000, 1_000_000]
"""Rows per part file in the extrapolation: --chunk-size, or what a compaction would make."""
READERS = {
    "pandas": lambda path: len(__import__("pandas").read_parquet(path)),
    "polars": lambda path: __import__("polars").read_parquet(path).height,
    "duckdb": lambda path: __import__("duckdb").sql(
        f"select outcome, count(*) from read_parquet('{path}') group by 1").fetchall() and 0,
    "pyarrow": lambda path: __import__("pyarrow.dataset").dataset.dataset(path).to_table().num_rows,
    "resume scan": lambda path: dataset.read_done(path).count,
}
"""What is timed, each on the bare dataset directory: a whole read (duckdb: a count by outcome,
which reads one column); 'resume scan' is what `run` reads before it resumes."""
DASK_TASKS = 2000


def template(work: Path) -> tuple[dict, dict, int, int, int]:
    """A real run of TEMPLATE_DEALS deals: its rows, manifest and file size, and a task's and result's sizes."""
    out = str(work / "template")
    runner.run(out, DealSet.parse(f"1-{TEMPLATE_DEALS}"), workers=1, chunk_size=TEMPLATE_DEALS)
    (part,) = dataset.list_run(out).parts
    table = pq.read_table(part)
    columns = {name: table[name].to_pylist() for name in dataset.ROW_FIELDS}
    columns["outcome"] = [runner.OUTCOMES.index(value) for value in columns["outcome"]]
    manifest = json.loads(Path(out + dataset.SIDE_SUFFIX, dataset.MANIFEST_NAME).read_text())
    (work / "scratch").mkdir()
    task = runner.ChunkTask(DealSet.parse(f"{10**9 - 999}-{10**9}"), str(work / "scratch"), "fast", None)
    result = runner._solve_logged(task)  # a worker's answer, with its log records, as it travels back
    return columns, manifest, Path(part).stat().st_size, len(pickle.dumps(task)), len(pickle.dumps(result))


def synthetic(work: Path, columns: dict, files: int, rows: int) -> str:
    """A dataset of `files` parts of `rows` deals each, numbered from 1, rows repeated from the template."""
    out = work / f"synthetic-{files}x{rows}"
    out.mkdir()
    repeats = -(-rows // len(columns["deal"]))
    body = {name: (values * repeats)[:rows] for name, values in columns.items()}
    body["solution"] = [_rotated(text, row // len(columns["deal"])) for row, text in enumerate(body["solution"])]
    for index in range(files):
        first = index * rows + 1
        body["deal"] = list(range(first, first + rows))
        dataset.write_part(str(out), DealSet.parse(f"{first}-{first + rows - 1}"), body)
    return str(out)


def _rotated(solution: str | None, turn: int) -> str | None:
    """A repeated row's solution made distinct (its moves rotated), so that repeats compress as real rows do."""
    if solution is None or turn == 0:
        return solution
    moves = solution.split()
    turn %= len(moves)
    return " ".join(moves[turn:] + moves[:turn])


def median_seconds(read, path: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        read(path)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def scheduler_seconds_per_task(task_bytes: int, result_bytes: int) -> float:
    """Wall seconds per chunk of a real Dask scheduler with two worker processes, tasks doing no work."""
    from distributed import Client, LocalCluster, wait
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        warm = client.map(_stand_in, [b"x"] * 20, pure=False, result_bytes=result_bytes)
        wait(warm)
        started = time.perf_counter()
        done = client.map(_stand_in, [b"x" * task_bytes] * DASK_TASKS, pure=False, result_bytes=result_bytes)
        wait(done)
        return (time.perf_counter() - started) / DASK_TASKS


def _stand_in(task: bytes, result_bytes: int) -> bytes:
    return b"r" * result_bytes


def measure(repeat: int) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        columns, manifest, template_bytes, task_bytes, result_bytes = template(work)
        timings = []
        for files, rows in LAYOUTS:
            path = synthetic(work, columns, files, rows)
            size = sum(Path(part).stat().st_size for part in dataset.list_run(path).parts)
            seconds = {name: median_seconds(read, path, repeat) for name, read in READERS.items()}
            memory = __import__("pandas").read_parquet(path).memory_usage(deep=True).sum()
            timings.append({"files": files, "rows": rows, "bytes": size, "pandas_bytes": int(memory),
                            "seconds": seconds})
            print(f"measured {files} files x {rows} rows", file=sys.stderr)
        session = manifest["sessions"][0]
        return {
            "template_deals": TEMPLATE_DEALS, "template_bytes": template_bytes, "repeat": repeat, "timings": timings,
            "manifest_bytes": len(json.dumps(manifest, indent=2)),
            "session_bytes": len(json.dumps(session, indent=2)),
            "task_bytes": task_bytes, "result_bytes": result_bytes,
            "scheduler_seconds_per_task": scheduler_seconds_per_task(task_bytes, result_bytes),
            "machine": manifest["machine"], "load_average": round(__import__("os").getloadavg()[0], 1),
        }


def fit(timings: list[dict], reader: str) -> tuple[float, float, float]:
    """Seconds = a + b * files + c * rows, least squares over the measured layouts."""
    design = np.array([[1.0, t["files"], t["files"] * t["rows"]] for t in timings])
    seconds = np.array([t["seconds"][reader] for t in timings])
    (a, b, c), *_ = np.linalg.lstsq(design, seconds, rcond=None)
    return float(a), float(b), float(c)


def render(data: dict) -> str:
    timings = data["timings"]
    bytes_per_row = data["template_bytes"] / data["template_deals"]
    memory_per_row = statistics.median(t["pandas_bytes"] / (t["files"] * t["rows"]) for t in timings)
    fits = {reader: fit(timings, reader) for reader in READERS}
    lines = [
        "# How a run grows: 10^6 to 10^9 deals",
        "",
        "From `python scripts/simulate_scale.py`: every figure is measured on "
        f"this machine ({data['machine']['cpu_count']} cores, load average {data['load_average']} "
        "at the end: a shared machine) or fitted to what was measured.",
        "",
        "## Measured readers (median seconds, bare directory)",
        "",
        "| files x rows | MB | " + " | ".join(READERS) + " |",
        "|---|---|" + "---|" * len(READERS),
    ]
    for t in timings:
        cells = " | ".join(f"{t['seconds'][reader]:.3f}" for reader in READERS)
        lines.append(f"| {t['files']:,} x {t['rows']:,} | {t['bytes'] / 1e6:.1f} | {cells} |")
    lines += ["", "Fit: seconds = a + b x files + c x rows.", "",
              "| reader | a (s) | b (ms per file) | c (s per million rows) |", "|---|---|---|---|"]
    for reader, (a, b, c) in fits.items():
        lines.append(f"| {reader} | {a:.3f} | {b * 1e3:.2f} | {c * 1e6:.2f} |")
    per_task = data["scheduler_seconds_per_task"]
    lines += ["", "## Extrapolated", "",
              "| deals | rows per part | files | data GB | pandas GB | scheduler traffic MB | scheduler s | "
              + " | ".join(f"{reader} s" for reader in READERS) + " |",
              "|---|---|---|---|---|---|---|" + "---|" * len(READERS)]
    for deals in RUN_SIZES:
        for rows in PART_ROWS:
            if rows > deals:
                continue
            files = deals // rows
            traffic = files * (data["task_bytes"] + data["result_bytes"]) / 1e6
            reads = " | ".join(f"{a + b * files + c * deals:,.0f}" if a + b * files + c * deals >= 10
                               else f"{a + b * files + c * deals:.1f}" for a, b, c in fits.values())
            lines.append(f"| {deals:.0e} | {rows:,} | {files:,} | {deals * bytes_per_row / 1e9:.2f} "
                         f"| {deals * memory_per_row / 1e9:,.1f} "
                         f"| {traffic:,.1f} | {files * per_task:,.0f} | {reads} |")
    lines += [
        "",
        f"* Per chunk the scheduler carries a task of {data['task_bytes']:,} bytes and a result of "
        f"{data['result_bytes']:,} bytes (pickled, with the chunk's log lines) and spends "
        f"{per_task * 1e3:.2f} ms of wall time per task (a real LocalCluster, {DASK_TASKS:,} tasks).",
        f"* The manifest is {data['manifest_bytes']:,} bytes and does not grow with the deals "
        f"(ranges are stored as text); each resumed session adds {data['session_bytes']:,} bytes.",
        f"* A row costs {bytes_per_row:.1f} bytes on disk (a real chunk of {data['template_deals']:,} deals, "
        f"zstd, solutions included) and "
        f"{memory_per_row:.0f} bytes in a pandas frame (every column): 'pandas GB' is the memory "
        "a whole read needs; read fewer columns (`columns=[...]`) or use DuckDB/polars lazily "
        "beyond this machine's memory.",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = benchlib.Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the measurements here")
    parser.add_argument("--render", type=Path, help="print the report of measurements saved by --json")
    args = parser.parse_args()
    data = json.loads(args.render.read_text()) if args.render else measure(args.repeat)
    if args.json:
        replace_text(args.json, json.dumps(data, indent=1) + "\n")
    print(render(data))
    return 0


if __name__ == "__main__":
    benchlib.run_script(main)
