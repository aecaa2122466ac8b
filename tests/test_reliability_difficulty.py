"""Faults around difficulty scores, driven through the real CLI.

What it proves:
* a run made with --difficulty and one made without never mix: extending a
  plain run with --difficulty is refused in one line before anything is
  written, and a tagged run extended without the flag is tagged as it was
  made, so every chunk of a run has the same columns (readers of the
  directory see one schema);
* `verify` catches a stored score that is not the deal's (it computes the
  first solvable deal's score of each chunk again) and a tag that is not its
  score's on the run's scale, naming the deal;
* Ctrl-C while a deal is being scored (paused there on purpose) ends the run of it
  with the resume command, and the resume completes a run that verifies;
* `report`, `verify` and `export` still read a dataset made without the
  difficulty columns (the committed study, results format 1);
* `run --game G --difficulty` tags each game on its own scale (the tags are
  the scale's for the deal's score computed again here), verifies, and
  resumes with --difficulty but without --game on the run's own game's
  scale; a scale of another game is refused before anything is written;
* resuming with `--out DIR` alone keeps the run's --difficulty and
  --max-iters; giving another value is refused and changes nothing.
"""
from __future__ import annotations

import json
import shlex
import signal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from blackhole_stats import deal
from blackhole_stats.difficulty import SCALES, DifficultyError, current_scale, difficulty
from blackhole_stats.games import get_game
from conftest import REPO, SCRIPT, assert_one_line_failure, cli, ctrl_c_at_pause

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason=f"console script not installed at {SCRIPT}")


def snapshot(out):
    """Every file of the run and its side folder, with its bytes."""
    return {path: path.read_bytes() for folder in (out, out.parent / (out.name + ".run"))
            for path in sorted(folder.iterdir()) if path.is_file()}


def test_a_chunk_file_with_the_other_columns_is_refused_before_a_resume_writes(tmp_path):
    """A plain run's chunk copied into a --difficulty run (or the other way round): the resume wrote its new
    chunks beside it, and the directory was one polars and DuckDB refuse (two schemas); verify named it only
    afterwards. The resume refuses it first, naming the file, as a chunk of another game."""
    import shutil

    tagged, plain = tmp_path / "tagged", tmp_path / "plain"
    assert cli("run", "--range", "1-10", "--difficulty", "--out", tagged, "--workers", "1").returncode == 0
    assert cli("run", "--range", "11-20", "--out", plain, "--workers", "1").returncode == 0
    for into, source, words in ((tagged, plain, "has no difficulty columns, but the run has difficulty scale"),
                                (plain, tagged, "has difficulty columns, but the manifest records no difficulty")):
        stray = shutil.copy(next(source.glob("part-*")), into)
        before = snapshot(into)
        error = assert_one_line_failure(cli("run", "--range", "1-30", "--out", into))
        assert f"{stray} is named like a chunk file but {words}" in error, error
        assert snapshot(into) == before
        (into / stray.rsplit("/", 1)[-1]).unlink()


def test_difficulty_and_plain_runs_never_mix(tmp_path):
    tagged, plain = tmp_path / "tagged", tmp_path / "plain"
    assert cli("run", "--range", "1-12", "--difficulty", "--out", tagged, "--workers", "1").returncode == 0
    assert cli("run", "--range", "1-12", "--out", plain, "--workers", "1").returncode == 0
    before = snapshot(plain)
    error = assert_one_line_failure(cli("run", "--range", "1-20", "--difficulty", "--out", plain))
    assert "no difficulty" in error and "use the same settings" in error
    assert snapshot(plain) == before
    # without the flag, a tagged run is extended as it was made: its new chunks are tagged too
    assert cli("run", "--range", "1-20", "--out", tagged, "--workers", "1").returncode == 0
    table = pq.read_table(tagged)
    assert table.num_rows == 20 and table.schema.names == pq.read_table(next(tagged.glob("part-*"))).schema.names
    solved = [row for row in table.to_pylist() if row["outcome"] == "solved"]
    assert any(row["deal"] > 12 for row in solved) and all(row["tag"] is not None for row in solved)
    manifest = json.loads((tmp_path / "tagged.run" / "manifest.json").read_text())
    assert manifest["difficulty_scale"] == "black_hole/1"
    assert json.loads((tmp_path / "plain.run" / "manifest.json").read_text())["difficulty_scale"] is None


def doctor(out, deal: int, column: str, value) -> None:
    """Rewrite one cell of the chunk that holds `deal`, keeping the file's schema."""
    [part] = list(out.glob("part-*.parquet"))
    table = pq.read_table(part)
    row = table["deal"].to_pylist().index(deal)
    index = table.schema.get_field_index(column)
    values = table[column].to_pylist()
    values[row] = value
    array = pa.array(values, table.schema.field(column).type) if column == "difficulty" else \
        pa.array(values).dictionary_encode().cast(table.schema.field(column).type)
    pq.write_table(table.set_column(index, table.schema.field(column), array), part)


def test_verify_finds_a_score_that_is_not_the_deals_and_a_tag_that_is_not_its_scores(tmp_path):
    out = tmp_path / "run"
    assert cli("run", "--range", "1-10", "--difficulty", "--out", out, "--workers", "1",
               "--chunk-size", "10").returncode == 0
    assert cli("verify", out).returncode == 0
    doctor(out, 2, "difficulty", 0.5)  # deal 2 is the chunk's first solvable deal
    result = cli("verify", out)
    assert result.returncode == 1 and b"deal 2: difficulty 0.5 stored" in result.stdout, result
    out2 = tmp_path / "run2"
    assert cli("run", "--range", "1-10", "--difficulty", "--out", out2, "--workers", "1",
               "--chunk-size", "10").returncode == 0
    table = pq.read_table(next(out2.glob("part-*.parquet")))
    tag = table["tag"].to_pylist()[table["deal"].to_pylist().index(4)]
    doctor(out2, 4, "tag", "very easy" if tag != "very easy" else "very hard")
    result = cli("verify", out2)
    assert result.returncode == 1 and b"deal 4: difficulty" in result.stdout and b"not 'very" in result.stdout, result


def test_ctrl_c_while_scoring_ends_the_run_of_it_and_the_same_command_resumes(tmp_path):
    out = tmp_path / "run"
    arguments = ["run", "--range", "1-20", "--difficulty", "--out", str(out), "--workers", "1", "--chunk-size", "5"]
    code, err = ctrl_c_at_pause(tmp_path, arguments, "trap-walks")
    assert code == -signal.SIGINT and "Traceback" not in err, err
    resume = shlex.split(err.splitlines()[-1].split("resume with: ")[1])
    assert resume[1:] == arguments
    assert cli(*resume[1:]).returncode == 0
    checked = cli("verify", out)
    assert checked.returncode == 0 and checked.stdout.startswith(b"ok: 20 rows"), checked


def test_datasets_without_difficulty_still_report_verify_and_export(tmp_path):
    study = REPO / "results" / "deals.parquet"
    report = cli("report", study)
    assert report.returncode == 0 and b"Difficulty" not in report.stdout
    exported = cli("export", study, "--unsolvable")
    assert exported.returncode == 0 and exported.stdout.count(b"\n") == 130_587  # the 2010 study's count
    out = tmp_path / "plain"
    assert cli("run", "--range", "1-5", "--out", out, "--workers", "1").returncode == 0
    assert cli("verify", out).returncode == 0


@pytest.mark.parametrize("game_key", ["golf", "all_in_a_row"])
def test_each_game_is_tagged_on_its_own_scale_and_resumes_without_game(tmp_path, game_key):
    out, game = tmp_path / "run", get_game(game_key)
    assert cli("run", "--range", "1-8", "--game", game_key, "--difficulty", "--out", out, "--workers", "1",
               "--chunk-size", "4").returncode == 0
    manifest = json.loads((tmp_path / "run.run" / "manifest.json").read_text())
    assert (manifest["game"], manifest["difficulty_scale"]) == (game_key, f"{game_key}/1")
    resumed = cli("run", "--range", "1-12", "--difficulty", "--out", out, "--workers", "1", "--chunk-size", "4")
    assert resumed.returncode == 0 and b"8 of the run's 12 deals were already done" in resumed.stdout, resumed
    rows = pq.read_table(out).to_pylist()
    scale = SCALES[f"{game_key}/1"]
    for row in rows:
        score = difficulty(deal(row["deal"], game)) if row["outcome"] == "solved" else None
        assert row["difficulty"] == score and row["tag"] == (None if score is None else scale.tag(score)), row
    assert any(row["tag"] for row in rows) and {row["game"] for row in rows} == {game_key}
    assert cli("verify", out).returncode == 0
    assert f"tags on scale {scale.name}".encode() in cli("report", out).stdout


def test_a_scale_of_another_game_is_refused_before_anything_is_written(tmp_path):
    from blackhole_stats.runner import run
    from blackhole_stats.deals import DealSet

    out = tmp_path / "run"
    with pytest.raises(DifficultyError, match="'black_hole/1' tags Black Hole deals, not Golf"):
        run(str(out), DealSet.parse(["1-5"]), difficulty_scale="black_hole/1", game="golf", workers=1)
    assert not out.exists() and not (tmp_path / "run.run").exists()
    assert cli("run", "--range", "1-4", "--game", "golf", "--out", out, "--workers", "1").returncode == 0
    before = snapshot(out)
    with pytest.raises(DifficultyError, match="'black_hole/1' tags Black Hole deals, not Golf"):
        run(str(out), DealSet.parse(["1-8"]), difficulty_scale="black_hole/1", workers=1)  # the run's game
    assert snapshot(out) == before


def test_resuming_with_only_out_keeps_the_runs_own_settings(tmp_path):
    """A run made with --difficulty and --max-iters resumes from `--out DIR` alone (the resume a
    user types), with its own settings; a setting given anew that differs is still refused."""
    out = tmp_path / "run"
    assert cli("run", "--range", "1-6", "--difficulty", "--max-iters", "100000", "--out", out, "--workers", "1",
               "--chunk-size", "3").returncode == 0
    resumed = cli("run", "--range", "7-9", "--out", out, "--workers", "1", "--chunk-size", "3")
    assert resumed.returncode == 0 and b"6 of the run's 9 deals were already done" in resumed.stdout, resumed
    assert cli("run", "--out", out).returncode == 0
    table = pq.read_table(out)
    assert sorted(table["deal"].to_pylist()) == list(range(1, 10))
    scale = current_scale()
    for row in table.to_pylist():
        score = difficulty(deal(row["deal"])) if row["outcome"] == "solved" else None
        assert row["difficulty"] == score and row["tag"] == (None if score is None else scale.tag(score)), row
    manifest = json.loads((tmp_path / "run.run" / "manifest.json").read_text())
    assert (manifest["max_iters"], manifest["difficulty_scale"]) == (100000, scale.name)
    before = snapshot(out)
    assert "max_iters=100000, not 500" in assert_one_line_failure(cli("run", "--out", out, "--max-iters", "500"))
    assert "classic" in assert_one_line_failure(cli("run", "--out", out, "--search", "classic"))
    assert snapshot(out) == before


def test_resuming_with_another_game_or_with_settings_this_version_lacks_is_one_line(tmp_path):
    """The run's own settings are checked before they are used: a resume never writes a manifest it
    cannot then solve with, and never ends in a traceback."""
    out = tmp_path / "run"
    assert cli("run", "--range", "1-4", "--difficulty", "--out", out, "--workers", "1").returncode == 0
    before = snapshot(out)
    for extra in ((), ("--difficulty",)):
        error = assert_one_line_failure(cli("run", "--out", out, "--game", "golf", *extra))
        assert "holds a run of black_hole (Black Hole), not golf" in error
    assert snapshot(out) == before
    path = tmp_path / "run.run" / "manifest.json"
    original = json.loads(path.read_text())
    for key, value, named in (("search", "turbo", "search 'turbo'"),
                              ("difficulty_scale", "black_hole/0", "difficulty scale 'black_hole/0'"),
                              ("difficulty_scale", "golf/1", "difficulty scale 'golf/1'")):
        path.write_text(json.dumps({**original, key: value}))
        manifest = path.read_bytes()
        for arguments in (("--out", out), ("--out", out, "--range", "5-8")):
            error = assert_one_line_failure(cli("run", *arguments))
            assert named in error and "cannot resume" in error, error
            assert path.read_bytes() == manifest
            assert {name: data for name, data in snapshot(out).items() if name != path} == \
                {name: data for name, data in before.items() if name != path}
