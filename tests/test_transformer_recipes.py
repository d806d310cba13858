"""The recipes of notebooks 10 and 11 reproduce what they shipped: short re-runs compared with the recorded numbers.

Bit for bit where this machine computes the recorded bits, to the spread measured across CPU kernels
everywhere (``tests/reproduction.py``).
"""

import pytest
from reproduction import TOLERANCE, check_rerun

from dl4nlp.checkpoint import read_provenance
from dl4nlp.data import data_path
from dl4nlp.experiments import transformer as ex
from dl4nlp.recipes import date_transformer, recorded_threads


def test_a_short_induction_rerun_reproduces_the_shipped_curves():
    _, checkpoint = ex.load_induction_model()
    assert checkpoint.extra["sizes"] == ex.INDUCTION_SIZES
    shipped = checkpoint.provenance["results"]["seeds"][0]
    with recorded_threads(checkpoint.provenance):
        _, rerun = ex.train_induction_model(0, {"steps": 50})
    assert rerun.steps == (0, 50) and tuple(shipped["steps"][:2]) == (0, 50)
    again = {"repeat_loss": list(rerun.repeat_loss), "first_loss": list(rerun.first_loss)}
    check_rerun("induction_heads", again, {k: shipped[k][:2] for k in again}, checkpoint.provenance,
                **TOLERANCE["induction_heads"])  # fmt: skip


def test_induction_training_refuses_bad_arguments():
    with pytest.raises(ValueError, match="eval_every must be an integer >= 1; got 0"):
        ex.train_induction_model(0, {"steps": 1}, eval_every=0)


def test_a_short_date_transformer_rerun_gives_the_recorded_first_losses(tmp_path):
    """Seed 0's first 5 steps of both models (Transformer and 06's GRU) of the 400-step schedule, re-run by
    the recipe with ``--stop-after 5 --eval-size 50``: the shipped provenance's first 5 losses, bit for bit.

    The shipped run recorded no kernel fingerprint; its ``rerun`` entry re-made the seed-0 weights identical
    tensor for tensor on the machine that made it.
    """
    record = read_provenance(data_path(ex.DATE_CHECKPOINT))
    shipped = record["results"]["seeds"][0]
    steps, size = 5, 50
    with recorded_threads(record):
        written = date_transformer.main(
            ["--out", str(tmp_path / "again.pt"), "--seeds", "1", "--steps", str(record["arguments"]["steps"]),
             "--stop-after", str(steps), "--eval-size", str(size)]
        )  # fmt: skip
    again = read_provenance(tmp_path / "again.pt")
    assert again["artifact"] == written["artifact"]
    assert again["environment"]["kernel_fingerprint"]  # a new run records its kernels
    assert again["arguments"]["stop_after"] == steps and again["arguments"]["eval_size"] == size
    (run,) = again["results"]["seeds"]
    assert run["steps"] == [steps] and sum(run["counts"]) == size
    assert run["parameters"] == shipped["parameters"]
    losses = {k: run[k] for k in ("transformer_loss", "gru_loss")}
    check_rerun("date_transformer", losses, {k: shipped[k][:steps] for k in losses}, record["rerun"],
                **TOLERANCE["date_transformer"])  # fmt: skip


def test_the_date_transformer_recipe_refuses_a_short_run_it_cannot_do(tmp_path):
    out = tmp_path / "x.pt"
    with pytest.raises(ValueError, match="--eval-size must be an integer in \\[1, 2000\\]; got 0"):
        date_transformer.main(["--out", str(out), "--eval-size", "0"])
    with pytest.raises(ValueError, match="--stop-after must be an integer in \\[1, 3\\]; got 4"):
        date_transformer.main(["--out", str(out), "--steps", "3", "--stop-after", "4"])
    with pytest.raises(ValueError, match="stop_after must be an integer in \\[1, 3\\]; got 4"):
        ex.compare_on_dates(0, steps=3, stop_after=4)
    assert not out.exists()


def test_a_rung_of_the_shipped_ladder_reproduces_bit_for_bit(one_thread):
    """The ablation table records each seed's held-out losses after the whole schedule; its cheapest
    rung ("no attention", seed 0, 250 steps) re-run gives the recorded loss, bigram and unigram exactly.
    (The warm-up study's deep models are too slow for a unit test; the claims suite checks its table.)"""
    table = ex.load_ablation_table()
    assert table["ladder_sizes"] == ex.LADDER_SIZES and table["provenance"]["environment"]["torch_threads"] == 1
    row = table["ladder"][0]
    assert row["seed"] == 0
    rerun = ex.ingredient_ladder(0, ("no attention",))
    again = {"heldout": rerun.heldout[0], "bigram": rerun.bigram, "unigram": rerun.unigram, "steps": rerun.steps}
    shipped = {"heldout": row["heldout"][row["variants"].index("no attention")], "bigram": row["bigram"],
               "unigram": row["unigram"], "steps": row["steps"]}  # fmt: skip
    check_rerun("transformer_ablation", again, shipped, table["provenance"], **TOLERANCE["transformer_ablation"])


def test_the_ablation_recipe_resumes_only_its_own_runs_and_records_every_sessions_time(tmp_path):
    """--resume refuses a partial table of other steps (it would mix schedules in one table) or of no known
    format, before any training; a resumed table's wall time is the sum of its sessions'."""
    import json

    from dl4nlp.recipes import save_rows, transformer_ablation

    out = tmp_path / "ablation.json"
    partial = tmp_path / "ablation.json.partial"
    none = ["--ladder-seeds", "0", "--warmup-seeds", "0", "--resume"]
    partial.write_text(json.dumps({"ladder": {"0": {}}, "warmup": {}}))  # the old format: no spec
    with pytest.raises(ValueError, match="must be a sweep state saved by save_rows"):
        transformer_ablation.main(["--out", str(out), *none])
    record = transformer_ablation.main(["--out", str(out), *none[:-1]])  # without --resume: a fresh table
    assert record["ladder"] == [] and not partial.exists()
    spec = {
        "ladder_sizes": {**ex.LADDER_SIZES, "steps": 7},
        "ladder_variants": ex.LADDER,
        "warmup_sizes": {**ex.WARMUP_SIZES, "steps": ex.WARMUP_SIZES["steps"]},
    }
    kept = {"seed": 0, "heldout": [9.0]}  # a finished ladder seed: kept, not trained again
    for name in ("other", "same"):
        save_rows(tmp_path / f"{name}.json.partial", spec, [["ladder", 0, kept]], elapsed=100.0)
    with pytest.raises(ValueError, match="holds a run with .* this command asks for"):
        transformer_ablation.main(["--out", str(tmp_path / "other.json"), *none])  # another number of steps
    assert not (tmp_path / "other.json").exists()
    one_seed = ["--ladder-seeds", "1", "--warmup-seeds", "0", "--resume", "--ladder-steps", "7"]
    resumed = transformer_ablation.main(["--out", str(tmp_path / "same.json"), *one_seed])
    assert resumed["ladder"] == [kept] and resumed["provenance"]["wall_seconds"] >= 100.0
    assert not (tmp_path / "same.json.partial").exists()


@pytest.mark.parametrize(
    "recipe, args, message",
    [
        ("induction_heads", ["--seeds", "0"], "--seeds must be an integer >= 1; got 0"),
        ("date_transformer", ["--seeds", "0"], "--seeds must be an integer >= 1; got 0"),
        ("transformer_ablation", ["--ladder-seeds", "-1"], "--ladder-seeds must be an integer >= 0; got -1"),
        ("transformer_ablation", ["--warmup-seeds", "-2"], "--warmup-seeds must be an integer >= 0; got -2"),
    ],
)
def test_the_recipes_refuse_seed_counts_they_cannot_run_before_any_work(tmp_path, recipe, args, message):
    """No seeds to train (an AttributeError or IndexError after the loop), or a negative count (an empty table)."""
    import importlib

    module = importlib.import_module(f"dl4nlp.recipes.{recipe}")
    suffix = ".json" if recipe == "transformer_ablation" else ".pt"
    with pytest.raises(ValueError, match=message):
        module.main(["--out", str(tmp_path / f"out{suffix}"), *args])
    assert not list(tmp_path.iterdir())
