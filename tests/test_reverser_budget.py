"""Notebook 06's longer-training table: its recipe reproduces it (a short run, bit for bit), its loader refuses
what is not the table, and the recipe guards its output."""

import json

import pytest
from reproduction import TOLERANCE, check_rerun

from dl4nlp.experiments import seq2seq as experiments
from dl4nlp.recipes import recorded_threads, reverser_budget, save_rows


@pytest.fixture(scope="module")
def table():
    return experiments.load_budget_table()


def test_the_table_holds_every_seed_and_budget(table):
    assert table["budgets"] == [100, 300, 1000, 3000, 10_000] and len(table["seeds"]) >= 3
    assert experiments.STILL_LEARNING_STEPS in table["budgets"] and experiments.CAUGHT_UP_STEPS in table["budgets"]
    assert table["provenance"]["command"].startswith("python -m dl4nlp.recipes.reverser_budget")
    assert table["provenance"]["environment"]["torch_threads"] == 1


def test_the_100_step_runs_reproduce_bit_for_bit(table, one_thread):
    """The table's seed-0 run at 100 steps is the notebook's live bottleneck run: re-run, it gives the same
    accuracy at every length and the same final training loss."""
    with recorded_threads(table["provenance"]):
        rerun = experiments.longer_training(0, 100)
        attention = reverser_budget.attention_reference(0)
    shipped = table["runs"][0]
    assert shipped["steps"] == 100
    again = {"accuracy": list(rerun.accuracy), "final_loss": rerun.final_loss, "attention": attention}
    expected = {"accuracy": shipped["accuracy"], "final_loss": shipped["final_loss"],
                "attention": table["attention_at_100_steps"][0]}  # fmt: skip
    check_rerun("reverser_budget", again, expected, table["provenance"], **TOLERANCE["reverser_budget"])


def test_budget_accuracy_and_the_loader_refuse_what_they_cannot_read(table, tmp_path):
    assert experiments.budget_accuracy(table, 0, 100)[2] == table["runs"][0]["accuracy"][0]
    with pytest.raises(ValueError, match=r"got seed 99, steps 100"):
        experiments.budget_accuracy(table, 99, 100)
    with pytest.raises(ValueError, match=r"got seed 0, steps 7"):
        experiments.budget_accuracy(table, 0, 7)
    broken = tmp_path / "budget.json"
    broken.write_text(json.dumps({**table, "runs": table["runs"][:-1]}))
    with pytest.raises(ValueError, match="is incomplete"):
        experiments.load_budget_table(broken)
    broken.write_text("{not json")
    with pytest.raises(ValueError, match="is not JSON"):
        experiments.load_budget_table(broken)


def test_the_recipe_refuses_to_overwrite(tmp_path):
    existing = tmp_path / "budget.json"
    existing.write_text("shipped")
    with pytest.raises(FileExistsError, match="pass --overwrite"):
        reverser_budget.main(["--out", str(existing)])
    assert existing.read_text() == "shipped"


def test_the_recipe_checks_its_lists_and_resumes_only_its_own_runs(tmp_path):
    out = tmp_path / "budget.json"
    with pytest.raises(ValueError, match="--budgets must be comma-separated integers; got '100,abc'"):
        reverser_budget.main(["--out", str(out), "--budgets", "100,abc"])
    with pytest.raises(ValueError, match="--budgets must include the notebook's 100 steps"):
        reverser_budget.main(["--out", str(out), "--budgets", "300"])
    save_rows(tmp_path / "budget.json.partial", {"reversal": "another"}, [], elapsed=1.0)
    with pytest.raises(ValueError, match="holds a run with"):
        reverser_budget.main(["--out", str(out), "--resume"])
    assert not out.exists()
