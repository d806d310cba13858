"""Notebook 03's seed sweep: its recipe reproduces a shipped row bit for bit, and its loader refuses what is not the
table."""

import json

import pytest
from reproduction import TOLERANCE, check_rerun

from dl4nlp.experiments import rnn as experiment
from dl4nlp.recipes import recorded_threads, rnn_seed_sweep, save_rows


@pytest.fixture(scope="module")
def table():
    return experiment.load_seed_sweep()


def test_the_table_holds_32_seeds_from_its_recipe(table):
    assert [row["seed"] for row in table["seeds"]] == list(range(32))
    assert table["lag"] == 50 and table["variant"] == experiment.VARIANTS[2]
    assert table["provenance"]["command"].startswith("python -m dl4nlp.recipes.rnn_seed_sweep")
    assert table["thresholds"] == {"solved": experiment.SOLVED, "clipped_final": experiment.CLIPPED_FINAL,
                                   "stuck": experiment.STUCK}  # fmt: skip


def test_a_shipped_row_reproduces_bit_for_bit(table, one_thread):
    """Seed 1's row (the IRNN at lag 50, eight clipping runs) re-run: every number is the shipped one."""
    with recorded_threads(table["provenance"]):
        again = rnn_seed_sweep.seed_row(1)
    check_rerun("rnn_seed_sweep", again, table["seeds"][1], table["provenance"], stable=stable_outcomes,
                **TOLERANCE["rnn_seed_sweep"])  # fmt: skip


def stable_outcomes(row: dict) -> dict:
    """What of a seed's row holds on every CPU: which runs diverged or failed, and the IRNN's accuracy. The clipped
    runs' final losses are chaotic (one shipped at 7e-7 ended at 1.26 under SSE4 kernels), never compared."""
    keys = ("seed", "clip_seeds", "clipped_diverged", "unclipped_diverged", "unclipped_failed", "irnn_lag50")
    return {k: row[k] for k in keys}


def test_the_loader_refuses_what_it_cannot_read(table, tmp_path):
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps({**table, "seeds": table["seeds"][1:]}))  # seed 0 missing
    with pytest.raises(ValueError, match="row 0 must be seed 0"):
        experiment.load_seed_sweep(path)
    path.write_text("[1, 2")
    with pytest.raises(ValueError, match="is not JSON"):
        experiment.load_seed_sweep(path)


def test_the_recipe_refuses_to_overwrite_and_resumes_only_its_own_runs(tmp_path):
    existing = tmp_path / "sweep.json"
    existing.write_text("shipped")
    with pytest.raises(FileExistsError, match="pass --overwrite"):
        rnn_seed_sweep.main(["--out", str(existing)])
    out = tmp_path / "new.json"
    save_rows(tmp_path / "new.json.partial", {"lag": 20}, [], elapsed=1.0)
    with pytest.raises(ValueError, match="holds a run with"):
        rnn_seed_sweep.main(["--out", str(out), "--resume"])
    assert existing.read_text() == "shipped" and not out.exists()
