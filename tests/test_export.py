"""`blackhole-stats export`: the lists a player or PySolFC gets, checked against the peer's verdicts."""
from __future__ import annotations

import csv
import io
import json
import shutil
import signal
import subprocess
import sys

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from blackhole_stats import deal
from blackhole_stats.difficulty import TAGS, current_scale, difficulty
from conftest import REPO, SCRIPT, assert_one_line_failure, cli, require_reference

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason=f"console script not installed at {SCRIPT}")


def peer_outcomes(last: int) -> dict[int, str]:
    with require_reference("peer_1_1000.csv").open(newline="") as handle:
        return {int(row["deal"]): row["outcome"] for row in csv.DictReader(handle) if int(row["deal"]) <= last}


@pytest.fixture(scope="module")
def tagged(tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "run"
    result = cli("run", "--range", "1-40", "--difficulty", "--out", out, "--workers", "2")
    assert result.returncode == 0, result.stderr
    return out


def lines(result) -> list[str]:
    assert result.returncode == 0, result.stderr
    return result.stdout.decode().splitlines()


def test_solvable_and_unsolvable_lists_are_the_peers_verdicts_one_number_a_line_in_deal_order(tagged):
    peer = peer_outcomes(40)
    assert lines(cli("export", tagged, "--solvable")) == [str(n) for n in sorted(peer) if peer[n] == "solved"]
    assert lines(cli("export", tagged, "--unsolvable")) == [str(n) for n in sorted(peer) if peer[n] == "unsolved"]
    assert lines(cli("export", tagged)) == [str(n) for n in range(1, 41)]


def test_each_tag_lists_the_solvable_deals_whose_score_falls_in_it_and_the_tags_cover_them_all(tagged):
    peer = peer_outcomes(40)
    current = current_scale()
    expected = {tag: [] for tag in TAGS}
    for number in sorted(peer):
        if peer[number] == "solved":
            expected[current.tag(difficulty(deal(number)))].append(str(number))
    for tag in TAGS:
        assert lines(cli("export", tagged, "--tag", tag.replace(" ", "-"))) == expected[tag]
    assert lines(cli("export", tagged, "--tag", "very-easy", "--tag", "hard")) == sorted(
        expected["very easy"] + expected["hard"], key=int)


def test_json_and_csv_carry_every_column_with_the_deal_as_pysolfc_shows_it(tagged):
    records = json.loads(cli("export", tagged, "--format", "json").stdout)
    assert [record["deal"] for record in records] == [str(n) for n in range(1, 41)]
    assert set(records[0]) == {"game", "deal", "outcome", "iterations", "cards_played", "difficulty", "tag"}
    solved = [r for r in records if r["outcome"] == "solved"]
    assert all(r["tag"] in TAGS and isinstance(r["difficulty"], float) for r in solved)
    assert all(r["tag"] is None and r["difficulty"] is None for r in records if r["outcome"] != "solved")
    rows = list(csv.DictReader(io.StringIO(cli("export", tagged, "--solvable", "--format", "csv").stdout.decode())))
    assert [row["deal"] for row in rows] == [r["deal"] for r in solved]
    assert [float(row["difficulty"]) for row in rows] == [r["difficulty"] for r in solved]


def test_ms_deals_and_numbers_past_two_to_the_64_come_out_exactly(tmp_path):
    verdicts = tmp_path / "verdicts.csv"
    verdicts.write_text("deal,ms,outcome\n"
                        "5,true,solved\n99999999999999999999,false,solved\n"
                        "3,false,unsolved\n18446744073709551617,false,solved\n")
    assert lines(cli("export", verdicts, "--solvable")) == ["18446744073709551617", "99999999999999999999", "ms5"]
    records = json.loads(cli("export", verdicts, "--format", "json").stdout)
    assert [r["deal"] for r in records] == ["3", "18446744073709551617", "99999999999999999999", "ms5"]


def test_exported_20_digit_numbers_read_back_exactly_as_readme_tells(tmp_path):
    """README: `json.load` and pandas' `read_csv` read them exactly; pandas' `read_json`, polars and DuckDB
    when told to keep the text."""
    import duckdb
    import polars as pl

    verdicts = tmp_path / "verdicts.csv"
    verdicts.write_text("deal,outcome\n99999999999999999999,solved\n18446744073709551617,solved\n")
    for fmt in ("csv", "json"):
        (tmp_path / f"list.{fmt}").write_bytes(cli("export", verdicts, "--format", fmt).stdout)
    exact = [18446744073709551617, 99999999999999999999]
    spelt = list(map(str, exact))
    assert [row["deal"] for row in json.loads((tmp_path / "list.json").read_text())] == spelt
    assert pd.read_csv(tmp_path / "list.csv")["deal"].tolist() == exact
    assert pd.read_json(tmp_path / "list.json", dtype={"deal": str})["deal"].tolist() == spelt
    assert pl.read_csv(tmp_path / "list.csv", infer_schema_length=0)["deal"].to_list() == spelt
    relation = duckdb.sql(f"select deal from read_csv('{tmp_path / 'list.csv'}', types={{'deal': 'VARCHAR'}})")
    assert relation.df()["deal"].tolist() == spelt


@pytest.mark.parametrize("arguments, code, message", [
    (("--tag", "wild"), 2, "unknown tag 'wild'"),
    (("--tag", "very  hard"), 2, "unknown tag 'very  hard'; choose from very easy, easy, medium, hard, very hard "
                                 "(one space, '-' or '_' between words)"),  # accepted, while very--hard was not
    (("--solvable", "--unsolvable"), 2, "exclude each other"),
    (("--tag", "hard", "--unsolvable"), 2, "cannot go with --unsolvable"),
    (("--format", "xml"), 2, "'xml' is not one of"),
])
def test_bad_options_are_one_line(tagged, arguments, code, message):
    assert message in assert_one_line_failure(cli("export", tagged, *arguments), code)


def test_a_tagged_run_that_won_nothing_lists_no_deal_of_any_tag(tmp_path):
    """Its tag column exists, all null: nothing was there to tag (it was refused as an untagged run)."""
    out = tmp_path / "lost"
    assert cli("run", "--range", "1", "--game", "golf", "--difficulty", "--out", out, "--workers", "1").returncode == 0
    assert lines(cli("export", out, "--solvable")) == []  # Golf deal 1 cannot be won
    assert lines(cli("export", out, "--tag", "hard", "--tag", "very easy")) == []


def test_bad_datasets_are_one_line(tmp_path):
    untagged = tmp_path / "plain.csv"
    untagged.write_text("deal,outcome\n1,unsolved\n2,solved\n")
    assert "has no difficulty tags" in assert_one_line_failure(cli("export", untagged, "--tag", "hard"))
    twice = tmp_path / "twice.csv"
    twice.write_text("deal,outcome\n2,solved\n2,unsolved\n")
    assert "deal 2 is listed more than once" in assert_one_line_failure(cli("export", twice))
    contradicted = tmp_path / "contradicted.csv"  # one game under two names, won and lost: listed as winnable
    contradicted.write_text("deal,outcome\nms2,unsolved\n2,solved\n")
    line = assert_one_line_failure(cli("export", contradicted, "--solvable"))
    assert "deal 2 (or ms2: one game) is listed more than once, with different results" in line, line


def test_a_game_listed_as_n_and_as_ms_n_is_exported_under_both_names_with_a_warning(tmp_path):
    """PySolFC accepts both names of a game below 32000; a list that counts its games must know (helper 138:
    export said nothing where report warned)."""
    both = tmp_path / "both.csv"
    both.write_text("deal,outcome\n2,solved\nms2,solved\nms32002,solved\n32002,unsolved\n")
    result = cli("export", both, "--solvable", "--game", "black_hole")
    assert result.returncode == 0 and lines(result) == ["2", "ms2", "ms32002"], result.stderr
    assert result.stderr.decode().splitlines() == [
        "warning: 1 deal is listed both as N and as msN, below 32000 one game (PySolFC deals both with the same "
        "generator and shows N as msN): listed under both"]
    assert "no such file" in assert_one_line_failure(cli("export", tmp_path / "missing"))


@pytest.mark.skipif(not (REPO / "scripts").is_dir(), reason="scripts/ is in the repository, not the sdist")
def test_the_winnable_bitmap_expands_to_the_peers_solvable_deals(tagged, tmp_path):
    script = REPO / "scripts" / "winnable_bitmap.py"
    bits = tmp_path / "winnable.bits"
    packed = subprocess.run([sys.executable, script, "pack", tagged, bits], capture_output=True, text=True)
    assert packed.returncode == 0, packed.stderr
    assert bits.stat().st_size == 5  # 40 deals, 8 a byte
    expanded = subprocess.run([sys.executable, script, "expand", bits], capture_output=True, text=True)
    peer = peer_outcomes(40)
    assert expanded.stdout.splitlines() == [str(n) for n in sorted(peer) if peer[n] == "solved"]


def test_a_bitmap_path_that_is_not_there_is_one_line(tagged, tmp_path):
    """A typo in a bitmap's path, or a folder that does not exist for a new one: one line naming it."""
    script = REPO / "scripts" / "winnable_bitmap.py"
    for args, named in ((["expand", tmp_path / "typo.bits"], tmp_path / "typo.bits"),
                        (["pack", tagged, tmp_path / "no" / "x.bits"], tmp_path / "no" / "x.bits")):
        result = subprocess.run([sys.executable, script, *args], capture_output=True, text=True)
        assert result.returncode == 1 and result.stderr == \
            f"winnable_bitmap.py {args[0]}: {named}: No such file or directory\n", result.stderr


def test_the_tag_bitmaps_expand_to_exports_lists_per_tag(tagged, tmp_path):
    script = REPO / "scripts" / "winnable_bitmap.py"
    packed = subprocess.run([sys.executable, script, "pack-tags", tagged, tmp_path / "deals"],
                            capture_output=True, text=True)
    assert packed.returncode == 0, packed.stderr
    for tag in TAGS:
        bits = tmp_path / f"deals_{tag.replace(' ', '_')}.bits"
        expanded = subprocess.run([sys.executable, script, "expand", bits], capture_output=True, text=True)
        assert expanded.stdout.splitlines() == lines(cli("export", tagged, "--tag", tag)), tag
    refused = subprocess.run([sys.executable, script, "pack-tags", REPO / "results" / "deals.parquet",
                              tmp_path / "untagged"], capture_output=True, text=True)
    assert refused.returncode == 1 and "missing column tag" in refused.stderr and "Traceback" not in refused.stderr
    assert not list(tmp_path.glob("untagged*"))


def test_report_shows_how_many_solvable_deals_each_tag_holds(tagged):
    report = json.loads(cli("report", tagged, "--format", "json").stdout)
    peer = peer_outcomes(40)
    exported = {tag: len(lines(cli("export", tagged, "--tag", tag))) for tag in TAGS}
    assert {tag: row["deals"] for tag, row in report["difficulty"].items()} == exported
    assert sum(exported.values()) == sum(outcome == "solved" for outcome in peer.values())
    assert report["manifest"]["difficulty_scale"] == current_scale().name
    text = cli("report", tagged).stdout.decode()
    assert "Difficulty of the solvable deals" in text and f"tags on scale {current_scale().name}" in text


@pytest.mark.parametrize("number, shown", [("0", "0"), ("-5", "-5"), ("ms0", "'ms0'"), ("ms-3", "'ms-3'")])
def test_a_list_with_a_number_that_is_no_game_is_refused(tmp_path, number, shown):
    """PySolFC's game numbers start at 1: exporting 0 or -5 as winnable would be silently wrong. An ms deal
    is named as written (ms-3 was "game number -3": helper 143)."""
    listing = tmp_path / "verdicts.csv"
    listing.write_text(f"deal,outcome\n3,solved\n{number},solved\n")
    line = assert_one_line_failure(cli("export", listing), 1)
    assert f"row 2 has game number {shown}: game numbers start at 1" in line


@pytest.mark.parametrize("deal, shown", [
    (pa.array([3, 0], pa.int64()), "0"), (pa.array([3, -7], pa.int32()), "-7"), (pa.array([3, 0], pa.uint64()), "0"),
    (pa.array([3.0, -3.0]), "-3"), (pa.array([3, 0], pa.decimal128(38, 0)), "0")])
def test_a_parquet_file_with_a_number_that_is_no_game_is_refused(tmp_path, deal, shown):
    """The same in a typed Parquet column (a notebook's `astype("int64")` of deal 2^63-1 read as a float
    gives -2^63): report and export died in a traceback where a CSV's 0 got its line (helper 150)."""
    listing = tmp_path / "verdicts.parquet"
    pq.write_table(pa.table({"deal": deal, "outcome": ["solved"] * 2, "iterations": [5] * 2, "cards_played": [51] * 2}),
                   listing)
    for command in (("export", listing), ("report", listing)):
        line = assert_one_line_failure(cli(*command), 1)
        assert f"row 2 has game number {shown}: game numbers start at 1" in line, (command, line)


def test_an_exported_csv_reads_back_with_its_ms_deals(tmp_path):
    """export's CSV spells ms deals 'ms5' as PySolFC shows them; export and report read that back."""
    out = tmp_path / "run"
    assert cli("run", "--range", "ms1-ms3,31999-32001", "--out", out, "--workers", "1").returncode == 0
    listing = tmp_path / "verdicts.csv"
    listing.write_bytes(cli("export", out, "--format", "csv").stdout)
    assert b"\nblack_hole,ms2," in listing.read_bytes()
    for flags in ([], ["--solvable"], ["--unsolvable"]):
        again = cli("export", listing, *flags)
        assert again.returncode == 0 and again.stdout == cli("export", out, *flags).stdout, flags


@pytest.mark.parametrize("typed", ["-hard", "medium-", "very--hard", "_easy", "very  hard", "very\thard", "very -hard"])
def test_a_tag_with_stray_separators_is_refused(typed):
    from blackhole_stats.difficulty import DifficultyError, parse_tag
    with pytest.raises(DifficultyError):
        parse_tag(typed)
    assert parse_tag("Very_Hard") == parse_tag("very-hard") == parse_tag(" very hard ") == "very hard"


def test_a_list_of_an_interrupted_run_says_it_is_short(tmp_path):
    """export of a run stopped part-way gave a short "winnable deals" list with nothing on stderr, where
    report warned that the dataset holds fewer rows than its manifest asks for."""
    from conftest import ctrl_c_at_pause

    out = tmp_path / "run"
    code, _ = ctrl_c_at_pause(tmp_path, ["run", "--range", "1-40", "--out", out, "--chunk-size", "10",
                                         "--workers", "1"], "deal-25")
    assert code == -signal.SIGINT
    listed = cli("export", out, "--solvable")
    assert listed.returncode == 0 and 0 < len(listed.stdout.split()) < 40
    warning = "warning: the manifest asks for 40 deals, the dataset has 20 rows: 20 missing"
    assert listed.stderr.decode().startswith(warning), listed.stderr
    assert warning in cli("report", out).stdout.decode()
    packed = subprocess.run([sys.executable, REPO / "scripts" / "winnable_bitmap.py", "pack", out, tmp_path / "b.bits"],
                            capture_output=True, text=True)  # a bitmap as short as the list: said too
    assert packed.returncode == 0 and packed.stderr.startswith(warning), packed.stderr
    assert cli("run", "--out", out).returncode == 0
    assert cli("export", out, "--solvable").stderr == b""  # complete: no warning


def test_files_a_notebook_would_read_beside_the_runs_are_named_by_report_and_export(tmp_path):
    """A copy of a part (pandas read 60 rows of a 40-deal run) or notes in DIR: run and verify named them,
    report and export said nothing, though README promised report would."""
    out = tmp_path / "run"
    assert cli("run", "--range", "1-40", "--out", out, "--chunk-size", "20", "--workers", "1").returncode == 0
    part = sorted(out.glob("part-*.parquet"))[0]
    (out / (part.name + ".bak")).write_bytes(part.read_bytes())
    (out / "notes.txt").write_text("x\n")
    assert len(pd.read_parquet(out / (part.name + ".bak"))) == 20
    warning = (f"warning: the directory also holds notes.txt, {part.name}.bak, not the run's files, which other "
               "readers of it take for part of it (and read, or fail on): left out here")
    listed = cli("export", out)
    assert listed.returncode == 0 and len(listed.stdout.split()) == 40 and warning in listed.stderr.decode()
    shown = cli("report", out, "--format", "json")
    assert json.loads(shown.stdout)["against_manifest"]["strays"] == ["notes.txt", part.name + ".bak"]
    assert warning in " ".join(cli("report", out).stdout.decode().split())
    (out / "notes.txt").unlink()  # one level down, the same: readers read folders too
    (out / "backup").mkdir()
    (out / (part.name + ".bak")).rename(out / "backup" / (part.name + ".bak"))
    assert len(pd.read_parquet(out)) == 60
    assert json.loads(cli("report", out, "--format", "json").stdout)["against_manifest"]["strays"] == ["backup/"]
    for index in range(6):  # a folder may hold thousands: the line names five (verify names them all)
        (out / f"notes{index}.txt").write_text("x\n")
    assert ("warning: the directory also holds backup/, notes0.txt, notes1.txt, notes2.txt, notes3.txt, and 2 more, "
            "not the run's files") in " ".join(cli("report", out).stdout.decode().split())


def test_the_api_refuses_an_outcome_tag_or_format_that_is_none(tmp_path):
    """outcome='Solved' and tags=('Hard',) gave empty lists, tags='hard' a pandas TypeError, and an unknown
    format CSV or text; the commands' choices are the modules' own."""
    from blackhole_stats import cli, export, report
    from blackhole_stats.dataset import DatasetError

    data = pd.DataFrame({"deal": [1, 2], "ms": [False, False], "outcome": ["solved", "unsolved"],
                         "tag": ["hard", None]})
    for outcome in ("Solved", "solvable"):
        with pytest.raises(ValueError, match=f"outcome must be one of 'solved', 'unsolved', 'intractable' or None, "
                                             f"not '{outcome}'"):
            export.select(data, "d", outcome=outcome)
    assert export.select(data, "d", tags=("Hard",))["deal"].tolist() == [1]  # as the command reads tags
    with pytest.raises(ValueError, match="unknown tag 'harder'"):
        export.select(data, "d", tags=("harder",))
    with pytest.raises(TypeError, match=r"tags is a tuple of tags, such as \('hard',\), not one string"):
        export.select(data, "d", tags="hard")
    with pytest.raises(ValueError, match="fmt must be one of 'text', 'json', 'csv', not 'xml'"):
        export.render(data, "xml")
    with pytest.raises(DatasetError, match="build_report takes the frame report.load gives"):
        report.build_report(data, "d")  # (it counted the deals from 2^63 up, which pandas reads as null, as one)
    data.assign(iterations=[1, 2], cards_played=[51, 3]).drop(columns="tag").to_csv(tmp_path / "d.csv", index=False)
    with pytest.raises(ValueError, match="fmt must be one of 'text', 'markdown', 'json', not 'html'"):
        report.render(report.build_report(report.load(tmp_path / "d.csv"), "d"), "html")
    choices = {command: next(param.type.choices for param in cli.main.commands[command].params
                             if param.name == "fmt") for command in ("report", "export")}
    assert tuple(choices["report"]) == report.FORMATS and tuple(choices["export"]) == export.FORMATS


def test_a_tag_list_of_a_partly_tagged_dataset_says_what_it_leaves_out(tagged, tmp_path):
    """A CSV joining a tagged run's rows with an untagged run's (a notebook's work): `--tag hard` listed
    the tagged deals only, exit 0, without a word, where report shows them as 'no score' (helper 149)."""
    untagged = tmp_path / "untagged"
    assert cli("run", "--range", "41-60", "--out", untagged, "--workers", "1").returncode == 0
    both = tmp_path / "both.csv"
    tagged_rows = pd.read_csv(io.BytesIO(cli("export", tagged, "--format", "csv").stdout), dtype={"deal": str})
    other_rows = pd.read_csv(io.BytesIO(cli("export", untagged, "--format", "csv").stdout), dtype={"deal": str})
    pd.concat([tagged_rows, other_rows]).to_csv(both, index=False)
    missing = int((other_rows["outcome"] == "solved").sum())
    listed = cli("export", both, "--tag", "hard")
    assert lines(listed) == lines(cli("export", tagged, "--tag", "hard"))  # the same deals, and now a word
    assert listed.stderr.decode().splitlines() == [
        f"warning: {missing} solvable deals of the dataset have no difficulty tag (no score), so no --tag list holds "
        "them (report counts them as 'no score')"]
    assert json.loads(cli("report", both, "--format", "json").stdout)["difficulty"]["no score"]["deals"] == missing
    assert cli("export", tagged, "--tag", "hard").stderr == b"" and cli("export", both, "--solvable").stderr == b""


def test_a_tag_that_is_not_its_scores_is_warned_of(tagged, tmp_path):
    """A row's tag changed by hand to one its score cannot have on the run's scale went into `--tag` lists
    and the tags' table without a word; only verify saw it (helper 149)."""
    run = tmp_path / "run"
    shutil.copytree(tagged, run)
    shutil.copytree(f"{tagged}.run", f"{run}.run")
    part = sorted(run.glob("part-*.parquet"))[0]
    table = pq.read_table(part)
    tags = table["tag"].to_pylist()
    row = next(index for index, tag in enumerate(tags) if tag not in (None, "very easy"))
    tags[row] = "very easy"
    pq.write_table(table.set_column(table.schema.get_field_index("tag"), "tag", pa.array(tags, table["tag"].type)),
                   part)
    warning = ("warning: 1 solvable deal of the run: a tag that is not the score's on the run's difficulty scale "
               "(hand-edited?), taken here as it stands (blackhole-stats verify names them)")
    listed = cli("export", run, "--tag", "very-easy")
    assert warning in listed.stderr.decode().splitlines() and str(table["deal"][row]) in lines(listed)
    assert warning in " ".join(cli("report", run).stdout.decode().split())
    assert json.loads(cli("report", run, "--format", "json").stdout)["against_manifest"]["mistagged"] == 1
    assert "warning" not in cli("export", tagged, "--tag", "very-easy").stderr.decode()
    assert f"deal {table['deal'][row]}: difficulty " in cli("verify", run).stdout.decode()  # the one verify names
