"""What a user can trust: the real CLI in real processes, over real Parquet files.

What it proves:
* a Ctrl-C (to the process group) or SIGTERM (to the process) while the
  command is still starting, before click, pandas or pyarrow are loaded,
  ends exactly as one during the command does: one line, then the process dies of the signal
  ("interrupted", for `run` with the command that resumes it), no traceback,
  nothing written; the same for `python -m blackhole_stats`. Importing the
  package or the console script's module loads none of the heavy modules,
  and the package's names still load on first use;
* `run --range X --out DIR` on a run whose earlier, interrupted range is not
  finished solves every deal the run asks for, says how many it solved, and
  leaves a dataset that `verify` passes: it never ends with exit 0 and a
  summary over a dataset that still misses deals;
* a finished chunk file whose bytes are damaged (a flipped byte inside a
  compressed page, the footer intact: no reader notices it by itself) stops
  `run` with one line that names the file and what to do, before anything is
  written; `verify` names it and `report` refuses it (if it reads that column); once the file is deleted
  as told, the same command solves its deals again, exactly once.
"""
from __future__ import annotations

import io
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import (SCRIPT, assert_one_line_failure, cli, ctrl_c_at_pause, pause_env, release_pause,
                      signal_at_pause, wait_for_pause)

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason=f"console script not installed at {SCRIPT}")


def deals_in(out: Path) -> list[int]:
    """The deal numbers stored, with repeats, read by pandas (no package code)."""
    return sorted(map(int, pd.read_parquet(out, columns=["deal"])["deal"]))


def interrupted_run(tmp_path: Path, out: Path, deals: str, pause_at: str) -> None:
    """`run --range DEALS` stopped by Ctrl-C while a worker is paused at `pause_at`, as a user's would be."""
    code, err = ctrl_c_at_pause(tmp_path, ["run", "--range", deals, "--out", out, "--workers", "1",
                                           "--chunk-size", "10"], pause_at)
    assert code == -signal.SIGINT, err


# ------------------------------------------------------------------ signals while the command starts
def test_importing_the_package_or_the_console_entry_loads_nothing_heavy():
    program = ("import sys, blackhole_stats, blackhole_stats.console; "
               "print(' '.join(sorted(name for name in sys.modules if name.split('.')[0] in "
               "('click', 'numpy', 'pandas', 'pyarrow') or name.startswith('blackhole_stats'))))")
    loaded = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout.split()
    assert set(loaded) <= {"blackhole_stats", "blackhole_stats._version", "blackhole_stats.console",
                           "blackhole_stats.interrupts", "blackhole_stats._testhooks"}, loaded


def test_the_package_names_load_on_first_use():
    import importlib.metadata

    program = ("import blackhole_stats as b; from blackhole_stats import *; from blackhole_stats import Board, solve; "
               "print(b.__version__, sorted(b.__all__) == sorted(set(dir(b)) & set(b.__all__)), "
               "solve(Board.from_text(b.deal(2).to_text())).outcome, Solver.__module__)")
    shown = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout.split()
    assert shown == [importlib.metadata.version("blackhole-stats"), "True", "solved", "blackhole_stats.solver"]
    missing = subprocess.run([sys.executable, "-c", "import blackhole_stats; blackhole_stats.nothing"],
                             capture_output=True, text=True)
    assert "AttributeError: module 'blackhole_stats' has no attribute 'nothing'" in missing.stderr


def mapped_libraries(pid: int) -> str:
    """The shared objects a process has loaded (a module with C code maps its .so)."""
    return Path(f"/proc/{pid}/maps").read_text()


STARTS = {"script": [str(SCRIPT)], "python -m": [sys.executable, "-m", "blackhole_stats"]}


@pytest.mark.parametrize("start", STARTS)
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=lambda signum: signum.name)
@pytest.mark.parametrize("command", ["run", "report"])
def test_a_signal_while_the_command_starts_ends_as_one_during_it(tmp_path, start, signum, command):
    """Paused after the handler is in place and before anything heavy is imported; the signal comes,
    then the start-up goes on: the command must end at once, as an interrupted one, having done nothing."""
    out = tmp_path / "run"
    args = {"run": ["run", "--range", "1-20", "--out", str(out), "--workers", "1"],
            "report": ["report", str(out)]}[command]
    if command == "report":
        assert cli("run", "--range", "1-5", "--out", out).returncode == 0
    before = sorted(tmp_path.rglob("*"))

    def nothing_heavy_loaded(pid: int) -> None:
        loaded = mapped_libraries(pid)
        assert not [name for name in ("/numpy/", "/pyarrow/", "/pandas/", "/blackhole_stats/_core")
                    if name in loaded], "imported before the handler could record a signal"

    def send(pid: int) -> None:
        (os.killpg if signum == signal.SIGINT else os.kill)(pid, signum)  # Ctrl-C reaches the group

    done = signal_at_pause(tmp_path, [*STARTS[start], *args], "cli-starting", send, inspect=nothing_heavy_loaded,
                           release=True, timeout=60, text=False)
    line = assert_one_line_failure(done, -signum)
    if command == "run":
        assert line == f"interrupted; resume with: blackhole-stats {' '.join(args)}\n"
        assert not out.exists() and not Path(f"{out}.run").exists()  # nothing written, not even half
        resumed = cli(*args)
        assert resumed.returncode == 0 and resumed.stdout.startswith(b"20 deals solved now"), resumed
        assert deals_in(out) == list(range(1, 21))
    else:
        assert line == "interrupted\n"
        assert sorted(p for p in tmp_path.rglob("*") if "pauses" not in p.parts) == \
            [p for p in before if "pauses" not in p.parts]


def full_pipe() -> tuple[int, int]:
    """A pipe whose buffer is full: a process writing to its write end blocks until the read end is read."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        while True:
            os.write(write_end, b"x" * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(write_end, True)
    return read_end, write_end


def until_writing_to_a_pipe(pid: int, timeout: float = 30) -> None:
    """Wait until the process sleeps in a pipe write (the kernel names where: /proc/PID/wchan)."""
    deadline = time.monotonic() + timeout
    while "pipe_write" not in Path(f"/proc/{pid}/wchan").read_text():
        assert time.monotonic() < deadline, "the process never blocked writing to the pipe"
        time.sleep(0.01)


def drained(read_end: int) -> str:
    """All a pipe will hold until its writers are gone, without the bytes that filled it."""
    data = b""
    while chunk := os.read(read_end, 65536):
        data += chunk
    os.close(read_end)
    return data.replace(b"x", b"").decode()


@pytest.mark.parametrize("args, signum", [(["verify", "/no/such/run"], signal.SIGTERM),
                                          (["solve", "--no-such-option"], signal.SIGINT),
                                          ([], signal.SIGINT)], ids=["error", "usage error", "help"])
def test_a_signal_while_the_last_line_waits_for_stderr_is_the_interrupt(args, signum):
    """stderr slow to take the error line or the help (here a full pipe): a signal then escaped the
    handlers beside the one writing it, a traceback and exit 1 (a shell's loop went on)."""
    read_end, write_end = full_pipe()
    process = subprocess.Popen([str(SCRIPT), *args], stdout=subprocess.DEVNULL, stderr=write_end,
                               start_new_session=True)
    os.close(write_end)
    try:
        until_writing_to_a_pipe(process.pid)
        os.kill(process.pid, signum)
        err = drained(read_end)
        process.wait(timeout=30)
    finally:
        process.kill()
    assert process.returncode == -signum and "Traceback" not in err, err
    assert err.endswith("interrupted\n"), err


def test_the_second_of_two_signals_spares_the_last_word_and_a_third_ends_it(tmp_path):
    """GNU timeout signals the process, then its group: the second must not cut the line that says how to
    resume. Signals were ignored while it was written, so one that hung on a stalled terminal could be
    ended by SIGKILL alone; now a third signal ends it, of the first. (Held at "last-word", the moment
    before the line is written, with its handlers in place.)"""
    command = [str(SCRIPT), "run", "--range", "1-20", "--out", str(tmp_path / "run"), "--workers", "1"]
    for more in ([signal.SIGTERM], [signal.SIGTERM, signal.SIGINT]):
        (tmp_path / "pauses").mkdir(exist_ok=True)
        for marker in (tmp_path / "pauses").iterdir():
            marker.unlink()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env={**os.environ, **pause_env(tmp_path, **{"command-start": 120, "last-word": 120})})
        try:
            wait_for_pause(tmp_path, "command-start", process)
            os.kill(process.pid, signal.SIGTERM)
            wait_for_pause(tmp_path, "last-word", process)
            for signum in more:
                os.kill(process.pid, signum)
            if len(more) == 1:
                release_pause(tmp_path, "last-word")
            _, err = process.communicate(timeout=30)  # long before the pause would end
        finally:
            process.kill()
        assert process.returncode == -signal.SIGTERM, err
        assert err.startswith("interrupted; resume with:") if len(more) == 1 else err == "", err


HOST = """
import signal, sys
from blackhole_stats.cli import main
try:
    main.main(["solve", "2"], prog_name="blackhole-stats")
except SystemExit as stop:
    print("command:", stop.code)
print("host handler:", signal.getsignal(signal.SIGINT) is signal.default_int_handler, flush=True)
try:
    signal.raise_signal(signal.SIGINT)
except KeyboardInterrupt:
    print("host: its own KeyboardInterrupt", flush=True)
"""


def test_a_command_called_in_another_program_leaves_it_its_signals_and_its_ending(tmp_path):
    """A program that calls the command line in its own process (a notebook, click's CliRunner): a
    Ctrl-C during the command ends the command (130), then the program's own handlers are back, a
    later Ctrl-C is its own again (it was os._exit(0): its last lines lost) and it ends as it chooses
    (it was killed by SIGINT at exit)."""
    done = signal_at_pause(tmp_path, [sys.executable, "-c", HOST], "command-start",
                           lambda pid: os.kill(pid, signal.SIGINT), release=True)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done
    assert done.stdout == "command: 130\nhost handler: True\nhost: its own KeyboardInterrupt\n", done
    assert done.stderr == "interrupted\n"


END_OF_INPUT = """
from blackhole_stats import interrupts
interrupts.record_until_ready()  # as the console script starts
from blackhole_stats.cli import main

@main.command("eof")
def eof():
    raise EOFError("the server hung up")

main(prog_name="blackhole-stats")
"""


def test_an_end_of_input_is_an_error_not_a_ctrl_c():
    """click turns an EOFError (a library's, e.g. a server that hung up) into the same Abort as a
    KeyboardInterrupt: the command died of SIGINT, even one the caller ignored (and click wrote a blank
    line first). It is one line, exit 1."""
    done = subprocess.run([sys.executable, "-c", END_OF_INPUT, "eof"], capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert (done.returncode, done.stderr) == (1, "Error: unexpected end of input: the server hung up\n"), done


IN_A_WEAKREF_CALLBACK = """
import signal, sys, weakref
from blackhole_stats import interrupts
if sys.argv[1] == "program":
    interrupts.record_until_ready()
    interrupts.ready()
class Thing:
    pass
with interrupts.raised():
    thing = Thing()
    watch = weakref.ref(thing, lambda gone: signal.raise_signal(signal.SIGTERM))  # lands inside the callback
    del thing
    print("recorded:", interrupts.received())
"""


@pytest.mark.parametrize("where", ["program", "raised"])
def test_a_signal_that_lands_in_a_weakref_callback_is_recorded_without_a_traceback(where):
    """Python prints an exception raised in a weakref callback (one an import runs) as "Exception ignored
    in: ..." with its traceback, which a soak of runs showed on stderr once in about 1,100 signals; the
    signal itself was recorded and the run stopped for it at its next safe point, as it still does."""
    done = subprocess.run([sys.executable, "-c", IN_A_WEAKREF_CALLBACK, where], capture_output=True, text=True,
                          timeout=60)
    assert (done.stdout, done.stderr) == (f"recorded: {int(signal.SIGTERM)}\n", ""), done


SWALLOWED_IN_A_COMMAND = """
import signal, weakref
from blackhole_stats import interrupts
interrupts.record_until_ready()  # as the console script starts
from blackhole_stats.cli import main

class Thing:
    pass

@main.command("swallow")
def swallow():
    thing = Thing()
    watch = weakref.ref(thing, lambda gone: signal.raise_signal(signal.SIGTERM))
    del thing
    print("done")

main(prog_name="blackhole-stats")
"""


def test_a_signal_swallowed_during_a_command_still_ends_it_as_interrupted():
    """The command went on and exited 0, the SIGTERM recorded and lost."""
    done = subprocess.run([sys.executable, "-c", SWALLOWED_IN_A_COMMAND, "swallow"], capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (-signal.SIGTERM, "done\n", "interrupted\n"), done


HOST_RUN = """
import sys
from blackhole_stats.cli import main
try:
    main.main(sys.argv[2:], prog_name="blackhole-stats")
except SystemExit as stop:
    print("command:", stop.code)
"""


@pytest.mark.parametrize("second", [False, True], ids=["one signal", "a second at the last word"])
def test_a_run_in_another_program_says_how_to_resume_it_and_exits_with_the_first_signal(tmp_path, second):
    """Called in another program's process with its own words: the resume line was built from that
    program's sys.argv ("blackhole-stats --host-flag"); and a second signal as the line was written
    escaped from it, to end with the second's status and no counts."""
    out = tmp_path / "run"
    args = ["run", "--range", "1-40", "--out", str(out), "--workers", "1", "--chunk-size", "10"]
    process = subprocess.Popen([sys.executable, "-c", HOST_RUN, "--host-flag", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               env={**os.environ, **pause_env(tmp_path, **{"deal-15": 120, "last-word": 120})})
    try:
        wait_for_pause(tmp_path, "deal-15", process)
        os.kill(process.pid, signal.SIGINT)
        wait_for_pause(tmp_path, "last-word", process)
        if second:
            os.kill(process.pid, signal.SIGTERM)
        else:
            release_pause(tmp_path, "last-word")
        output, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert (process.returncode, output) == (0, "command: 130\n"), (output, err)
    assert "Traceback" not in err, err
    if not second:
        assert err.splitlines()[-1] == f"interrupted: 10 of 40 deals done; resume with: blackhole-stats {shlex.join(args)}"


def test_a_signal_before_a_closed_stdout_is_reported_is_the_interrupt(tmp_path):
    """`deal 5 >&-` signalled while it starts: the closed output was reported (exit 1) and the signal lost."""
    done = signal_at_pause(tmp_path, ["bash", "-c", f"exec >&-; exec '{SCRIPT}' deal 5"], "cli-starting",
                           lambda pid: os.kill(pid, signal.SIGTERM), release=True)
    assert (done.returncode, done.stderr) == (-signal.SIGTERM, "interrupted\n"), done


# ------------------------------------------------------------------ a resume finishes the whole run
def test_a_run_given_a_finished_range_finishes_the_older_interrupted_one(tmp_path):
    out = tmp_path / "run"
    interrupted_run(tmp_path, out, "1-40", "deal-25")
    assert deals_in(out) == list(range(1, 21))  # chunks 1-10 and 11-20 finished, the rest not

    result = cli("run", "--range", "1-10", "--out", out)  # 1-10 is done: the run's 21-40 are not
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    assert lines[0].startswith("20 deals solved now in "), lines
    assert lines[2] == f"20 of the run's 40 deals were already done; dataset: {out}", lines
    assert deals_in(out) == list(range(1, 41))
    checked = cli("verify", out)
    assert checked.returncode == 0 and checked.stdout.startswith(b"ok: 40 rows"), checked


# ------------------------------------------------------------------ damaged bytes in a finished chunk file
def flip_a_byte_inside(part: Path, column: str) -> None:
    """Flip a byte near the end of `column`'s last page: the page's payload, not its header or the footer."""
    chunk = pq.ParquetFile(part).metadata.row_group(0)
    where = next(chunk.column(i) for i in range(chunk.num_columns) if chunk.column(i).path_in_schema == column)
    position = (where.dictionary_page_offset or where.data_page_offset) + where.total_compressed_size - 3
    data = bytearray(part.read_bytes())
    data[position] ^= 0xFF
    part.write_bytes(bytes(data))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.mark.parametrize("column", ["iterations", "seconds", "solution"])
def test_a_damaged_chunk_file_is_named_by_run_and_verify_and_never_trusted(tmp_path, column):
    out = tmp_path / "run"
    assert cli("run", "--range", "1-30", "--out", out, "--workers", "1", "--chunk-size", "10").returncode == 0
    part = out / "part-11-20-10.parquet"
    flip_a_byte_inside(part, column)
    pq.read_metadata(part)  # the footer still reads: only the data is damaged
    before = snapshot(out)

    for args in (["run", "--out", out], ["run", "--range", "1-40", "--out", out]):
        line = assert_one_line_failure(cli(*args), 1)
        assert line.startswith(f"Error: {part} is damaged (") and line.endswith(
            f"): delete it, and the next run solves its deals again (blackhole-stats verify {out} lists every "
            "problem)\n"), line
    assert snapshot(out) == before  # nothing written, nothing solved again beside it

    checked = cli("verify", out)
    assert checked.returncode == 1
    problems = checked.stdout.decode().splitlines()
    assert problems[0].startswith("part-11-20-10.parquet: damaged (") and problems[0].endswith(
        "): delete it, and the next run solves its deals again"), problems
    assert problems[1:] == ["deals missing (or in the file above whose rows could not be read): 11-20"]
    if column != "solution":  # the one column a report does not read
        assert_one_line_failure(cli("report", out), 1)

    part.unlink()  # as told
    resumed = cli("run", "--out", out)
    assert resumed.returncode == 0 and resumed.stdout.startswith(b"10 deals solved now"), resumed
    assert deals_in(out) == list(range(1, 31))
    assert cli("verify", out).returncode == 0


def test_a_chunk_file_whose_column_name_is_damaged_is_named_not_a_traceback(tmp_path):
    """A flipped byte in a column name of the footer (not UTF-8 any more): one line, never a traceback."""
    out = tmp_path / "run"
    assert cli("run", "--range", "1-20", "--out", out, "--workers", "1", "--chunk-size", "10").returncode == 0
    part = out / "part-11-20-10.parquet"
    data = part.read_bytes()
    footer = len(data) - 8 - int.from_bytes(data[-8:-4], "little")  # Parquet: footer, its length, PAR1
    part.write_bytes(data[:footer] + data[footer:].replace(b"iterations", b"iter\xe5tions"))
    checked = cli("verify", out)
    assert checked.returncode == 1 and b"Traceback" not in checked.stderr
    assert checked.stdout.decode().startswith("part-11-20-10.parquet: ")
    assert_one_line_failure(cli("run", "--out", out), 1)
    assert_one_line_failure(cli("report", out), 1)


def flip_the_first_bit_that(part: Path, positions: range, leaves: Callable[[pa.Table], bool]) -> None:
    """Flip the first bit, trying bytes in `positions` order, after which pyarrow still reads `part`, its
    page checksums checked, and the table it reads `leaves` damaged as asked: damage no checksum sees."""
    data = part.read_bytes()
    for position in positions:
        for bit in range(8):
            flipped = bytearray(data)
            flipped[position] ^= 1 << bit
            try:
                table = pq.read_table(io.BytesIO(bytes(flipped)), page_checksum_verification=True)
            except (pa.ArrowException, OSError, UnicodeDecodeError):
                continue
            if leaves(table):
                part.write_bytes(bytes(flipped))
                return
    raise AssertionError(f"no bit of {part.name} flips into that damage")


def invalid(table: pa.Table) -> bool:
    try:
        table.validate(full=True)
    except pa.ArrowInvalid:
        return True
    return False


@pytest.mark.parametrize("damage", ["fewer rows", "invalid values"])
def test_damage_that_reads_without_error_is_refused_by_every_command(tmp_path, damage):
    """A flipped bit of the footer (a row group's count: 10 rows read as 2, by every reader, silently)
    or of a dictionary page's header (dictionary indexes out of range) is covered by no page checksum.
    `report` and `export` counted 2 rows where the file holds 10, with no warning but the one of any
    interrupted run, and `run` called the file misnamed ("rename it part-11-12-2.parquet"); the
    out-of-range indexes were a traceback from `report` and `export`."""
    out = tmp_path / "run"
    assert cli("run", "--range", "1-30", "--out", out, "--workers", "1", "--chunk-size", "10").returncode == 0
    part = out / "part-11-20-10.parquet"
    size = part.stat().st_size
    if damage == "fewer rows":
        flip_the_first_bit_that(part, range(size - 9, 3, -1), lambda table: 0 < table.num_rows < 10)
    else:
        flip_the_first_bit_that(part, range(4, size - 8), invalid)

    for args in (["report", out], ["export", out], ["report", part], ["run", "--out", out]):
        line = assert_one_line_failure(cli(*args), 1)
        assert f"{part}" in line and ("rows read where its footer counts 10" in line or damage != "fewer rows"), line
    checked = cli("verify", out)
    assert checked.returncode == 1
    assert checked.stdout.decode().startswith("part-11-20-10.parquet: damaged ("), checked.stdout


def test_a_chunk_file_whose_ms_column_lost_its_name_is_refused_by_report_and_export(tmp_path):
    """`ms` read as `mr` (one bit of the footer): report and export read the file's ms deals as ordinary
    ones, other deals, with exit 0 (a file without the column holds ordinary deals, as a notebook's may).
    A file that records a run's settings and is named like its chunk files must hold the deals its name
    says, whatever columns a notebook dropped (a check of the columns refused such copies)."""
    out = tmp_path / "run"
    assert cli("run", "--range", "ms1-ms30", "--out", out, "--workers", "1", "--chunk-size", "10").returncode == 0
    part = out / "part-ms11-ms20-10.parquet"
    data = part.read_bytes()
    footer = len(data) - 8 - int.from_bytes(data[-8:-4], "little")  # Parquet: footer, its length, PAR1
    part.write_bytes(data[:footer] + data[footer:].replace(b"\x02ms", b"\x02mr"))  # Thrift: length, name
    assert "mr" in pq.read_table(part).column_names  # it reads, every reader opens it
    for args in (["report", out], ["export", out], ["report", part]):
        line = assert_one_line_failure(cli(*args), 1)
        assert f"{part} holds deals 11-20, not what its name says" in line, line
    slim = tmp_path / "slim"  # a notebook's pyarrow copy keeps the run's metadata: fewer columns are fine
    slim.mkdir()
    original = out / "part-ms1-ms10-10.parquet"
    pq.write_table(pq.read_table(original).drop_columns(["solution", "seconds"]), slim / original.name)
    assert b"blackhole_stats.run_settings" in (pq.read_schema(slim / original.name).metadata or {})
    for args in (["report", slim], ["export", slim]):
        assert cli(*args).returncode == 0, cli(*args).stderr


def test_a_chunk_file_whose_two_copies_of_the_run_settings_differ_is_damaged_for_every_command(tmp_path):
    """The footer holds the run settings twice (a key-value entry and the Arrow schema); pyarrow gives a
    table one copy and `read_schema` the other. A flipped byte in one (search "fast" read as "last")
    made `verify` say "solved by a run of other settings" while `report` read the file as the run's."""
    out = tmp_path / "run"
    assert cli("run", "--range", "1-30", "--out", out, "--workers", "1", "--chunk-size", "10").returncode == 0
    part = out / "part-11-20-10.parquet"
    data = part.read_bytes()
    assert data.count(b'"search": "fast"') == 1  # the key-value copy; the schema's is base64
    part.write_bytes(data.replace(b'"search": "fast"', b'"search": "last"'))
    for args in (["report", out], ["export", out], ["report", part], ["run", "--out", out]):
        line = assert_one_line_failure(cli(*args), 1)
        assert f"{part}" in line and "two copies of the run settings in its footer differ" in line, line
    checked = cli("verify", out)
    assert checked.returncode == 1
    assert checked.stdout.decode().startswith("part-11-20-10.parquet: damaged (the two copies"), checked.stdout
    import polars as pl  # a notebook's copies that keep the settings in one copy only are no damage

    notebook = tmp_path / "notebook"
    notebook.mkdir()
    first = out / "part-1-10-10.parquet"
    settings = pq.read_schema(first).metadata[b"blackhole_stats.run_settings"].decode()
    pl.read_parquet(first).write_parquet(notebook / "polars.parquet", metadata={"blackhole_stats.run_settings": settings})
    table = pq.read_table(first).replace_schema_metadata(None)
    with pq.ParquetWriter(notebook / "writer.parquet", table.schema) as writer:
        writer.write_table(table)
        writer.add_key_value_metadata({"blackhole_stats.run_settings": settings})
    for name in ("polars.parquet", "writer.parquet"):
        assert cli("report", notebook / name).returncode == 0, cli("report", notebook / name).stderr


def test_a_file_being_replaced_stays_whole_when_the_writer_fails(tmp_path):
    """`replacing` (plots, study results, bitmaps): an error or Ctrl-C before the end leaves the old file
    or folder and no temporary; a temporary left by a writer killed outright is not reused; a symlink
    still points to the replaced file, whose permissions are kept."""
    from blackhole_stats.atomic import replacing

    target = tmp_path / "chart.png"
    target.write_bytes(b"old")
    with pytest.raises(OSError), replacing(target) as partial:
        partial.write_bytes(b"new, half")
        raise OSError("disk full")
    assert target.read_bytes() == b"old" and sorted(tmp_path.iterdir()) == [target]
    killed = tmp_path / ".chart.png.x.partial"  # what a writer killed with SIGKILL leaves
    killed.mkdir()
    (killed / "chart.png").write_bytes(b"stale")
    target.chmod(0o640)
    link = tmp_path / "latest.png"
    link.symlink_to(target)
    with replacing(link) as partial:
        partial.write_bytes(b"new")
    assert target.read_bytes() == b"new" and link.is_symlink() and (target.stat().st_mode & 0o777) == 0o640
    assert sorted(tmp_path.iterdir()) == sorted([target, killed, link])
    folder = tmp_path / "plots"
    folder.mkdir()
    (folder / "old.png").write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt), replacing(folder) as partial:
        partial.mkdir()
        (partial / "new.png").write_bytes(b"half")
        raise KeyboardInterrupt
    assert [path.name for path in folder.iterdir()] == ["old.png"]
    with replacing(folder) as partial:
        partial.mkdir()
        (partial / "new.png").write_bytes(b"new")
    assert [path.name for path in folder.iterdir()] == ["new.png"]
    assert sorted(tmp_path.iterdir()) == sorted([target, killed, link, folder])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RENAME_EXCHANGE is Linux's")
def test_a_folder_is_swapped_in_one_step_where_the_system_can(tmp_path, monkeypatch):
    """On Linux a folder replaces a folder by one atomic exchange, so no moment exists (not even for
    SIGKILL) at which the folder is missing or the old one is aside: two renames would be caught here."""
    from blackhole_stats import atomic

    folder = tmp_path / "plots"
    folder.mkdir()
    (folder / "old.png").write_bytes(b"old")

    def no_rename(source, destination):
        raise AssertionError(f"renamed {source} to {destination}")

    monkeypatch.setattr(atomic.os, "replace", no_rename)
    with atomic.replacing(folder) as partial:
        partial.mkdir()
        (partial / "new.png").write_bytes(b"new")
    assert [path.name for path in folder.iterdir()] == ["new.png"] and sorted(tmp_path.iterdir()) == [folder]


def test_a_signal_while_a_folder_is_swapped_waits_until_the_swap_is_done(tmp_path, monkeypatch):
    """Where no exchange exists (another system, a file system without it), a folder is swapped by two
    renames: Ctrl-C landing between them (sent from inside the first) is held until both are done and
    the temporary is gone; then it raises: the folder is the new one, nothing is left aside. Without
    the hold it would raise between the renames."""
    from blackhole_stats import atomic

    monkeypatch.setattr(atomic, "_exchanged", lambda first, second: False)
    folder = tmp_path / "plots"
    folder.mkdir()
    (folder / "old.png").write_bytes(b"old")
    real_replace = os.replace

    def replace_with_ctrl_c(source, destination):
        os.kill(os.getpid(), signal.SIGINT)
        real_replace(source, destination)

    monkeypatch.setattr(atomic.os, "replace", replace_with_ctrl_c)
    with pytest.raises(KeyboardInterrupt), atomic.replacing(folder) as partial:
        partial.mkdir()
        (partial / "new.png").write_bytes(b"new")
    assert [path.name for path in folder.iterdir()] == ["new.png"] and sorted(tmp_path.iterdir()) == [folder]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_expanding_a_bitmap_into_a_full_or_closed_output_blames_the_output(tmp_path):
    """One line naming standard output (it named the bitmap for a full disk, and a closed stdout was a
    traceback), exit 1, as for every script; a reader gone early (`| head -1`) is quiet, 141 (it was 0)."""
    script = [sys.executable, str(Path(__file__).resolve().parents[1] / "scripts" / "winnable_bitmap.py")]
    bitmap = str(Path(__file__).resolve().parents[1] / "results" / "golf" / "golf_1_1000000.bits")
    with open("/dev/full", "wb") as full:
        filled = subprocess.run([*script, "expand", bitmap], stdout=full, stderr=subprocess.PIPE)
    closed = subprocess.run([*script, "expand", bitmap], stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
    for result, words in ((filled, "cannot write to standard output: No space left on device"),
                          (closed, "standard output is closed")):
        assert (result.returncode, result.stderr.decode()) == (1, f"winnable_bitmap.py: {words}\n")
    read, write = os.pipe()
    os.close(read)
    try:
        gone = subprocess.run([*script, "expand", bitmap], stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert (gone.returncode, gone.stderr) == (141, b"")


def test_a_bitmap_written_to_a_pipe_goes_through_it(tmp_path):
    """`/dev/stdout` is written as given: a pipe cannot be replaced (it was a traceback), and the
    status line goes to stderr, out of the bitmap's way."""
    bits = tmp_path / "bits"
    script = [sys.executable, str(Path(__file__).resolve().parents[1] / "scripts" / "winnable_bitmap.py")]
    run = str(Path(__file__).resolve().parents[1] / "results" / "relaxed_golf" / "deals.parquet")
    written = subprocess.run([*script, "pack", run, str(bits)], capture_output=True)
    piped = subprocess.run([*script, "pack", run, "/dev/stdout"], capture_output=True)
    assert written.returncode == piped.returncode == 0, piped.stderr
    assert piped.stdout == bits.read_bytes() and written.stdout == b"" and b"marked" in piped.stderr
