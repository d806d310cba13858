"""The BERT recipes reproduce what they shipped (short runs: bit for bit where this machine computes the recorded
bits, to the spread measured across CPU kernels everywhere, ``tests/reproduction.py``) and guard their outputs."""

import json

import pytest
import torch
from reproduction import TOLERANCE, check_rerun

from dl4nlp.bert import load_pretrained
from dl4nlp.checkpoint import load_table
from dl4nlp.data import data_path
from dl4nlp.dialogue import balanced_sample, task_sets
from dl4nlp.finetune import compare_methods
from dl4nlp.recipes import bert_learning_curve, bert_mask_sweep, tiny_bert


def recorded(name):
    return json.loads(data_path(name).read_text())


@pytest.fixture(scope="module")
def prepared():
    """The WordPiece vocabulary and encoded text every recipe here shares (``prepare`` reads only its size)."""
    assert recorded("tiny_bert.json")["arguments"]["vocab_size"] == 4096
    assert recorded("bert_mask_sweep.json")["arguments"]["vocab_size"] == 4096
    return tiny_bert.prepare(tiny_bert.parser().parse_args(["--out", "unused.pt", "--vocab-size", "4096"]))


def test_tiny_bert_recipe_reproduces_the_first_recorded_losses(one_thread, prepared):
    record = recorded("tiny_bert.json")
    args = tiny_bert.parser().parse_args(record["command"].split()[3:])
    assert args.vocab_size == 4096
    tokenizer, data = prepared
    model, shipped_tokenizer = load_pretrained()
    assert tokenizer.itos == shipped_tokenizer.itos
    trainer = tiny_bert.build(args, len(tokenizer), torch.device("cpu"), data)
    trainer.run(3, progress=False)
    check_rerun("tiny_bert", trainer.history.loss, record["results"]["losses"][:3], record, **TOLERANCE["tiny_bert"])


def test_learning_curve_row_reproduces(one_thread):
    rows, record = load_table(data_path("bert_learning_curve.csv"))
    chosen = record["results"]["chosen_settings"]
    steps = bert_learning_curve.steps_for(32, record["arguments"].get("steps"))
    model, tokenizer = load_pretrained()
    sets = task_sets()
    scores = compare_methods(model, tokenizer, balanced_sample(sets["train"], 32, 0), sets["test"], seed=0,
                             settings=chosen, steps=steps)  # fmt: skip
    shipped = {r["method"]: float(r["accuracy"]) for r in rows
               if r["task"] == "classification" and r["budget"] == "32" and r["seed"] == "0"}  # fmt: skip
    check_rerun("bert_learning_curve", {m: round(v, 6) for m, v in scores.items()}, shipped, record,
                **TOLERANCE["bert_learning_curve"])  # fmt: skip


def test_mask_sweep_run_is_deterministic(one_thread, prepared):
    args = bert_mask_sweep.parser().parse_args(["--out", "x.csv", "--steps", "3", "--eval-pairs", "8",
                                                "--d-model", "16", "--heads", "2", "--layers", "1"])  # fmt: skip
    tokenizer, data = prepared
    first = bert_mask_sweep.run(args, data, len(tokenizer), 0.5, 1, torch.device("cpu"))
    assert first == bert_mask_sweep.run(args, data, len(tokenizer), 0.5, 1, torch.device("cpu"))
    record = recorded("bert_mask_sweep.json")
    assert record["command"].startswith("python -m dl4nlp.recipes.bert_mask_sweep")
    assert record["history"] and "bert_pretrain mask-sweep" in record["history"][0]


@pytest.mark.parametrize("rate", [0.05, 1.0])
def test_mask_sweep_rerun_gives_the_shipped_rows_that_do_not_depend_on_training(one_thread, prepared, rate):
    """Re-run with the shipped command but one training step: the columns fixed by the data, the vocabulary
    and the masking (the unigram baseline at 15 %, prediction targets per batch at the run's rate) are the
    shipped ones, exactly. The trained columns are checked through their runs' recorded losses (next test)."""
    rows, record = load_table(data_path("bert_mask_sweep.csv"))
    args = bert_mask_sweep.parser().parse_args([*record["command"].split()[3:], "--steps", "1"])
    assert (args.eval_pairs, args.vocab_size, args.max_len) == (512, 4096, 64)
    tokenizer, data = prepared
    row = bert_mask_sweep.run(args, data, len(tokenizer), rate, 0, torch.device("cpu"))
    (shipped,) = [r for r in rows if float(r["rate"]) == rate and r["seed"] == "0"]
    assert row["unigram_at_15"] == float(shipped["unigram_at_15"])
    assert row["targets_per_batch"] == float(shipped["targets_per_batch"])


@pytest.mark.parametrize("rate, seed", [(0.15, 0), (0.8, 1)])
def test_mask_sweep_recipe_reproduces_the_recorded_losses(one_thread, prepared, rate, seed):
    """Every shipped row's run recorded its training loss (steps 1-10, then every 10th); the first three steps
    of a re-run with the shipped command are the recorded ones, bit for bit."""
    rows, record = load_table(data_path("bert_mask_sweep.csv"))
    args = bert_mask_sweep.parser().parse_args(record["command"].split()[3:])
    results = record["results"]
    assert results["loss_steps"] == bert_mask_sweep.recorded_steps(args.steps)
    assert sorted(results["losses"]) == sorted(f"{float(r['rate'])},{int(r['seed'])}" for r in rows)
    assert all(len(trace) == len(results["loss_steps"]) for trace in results["losses"].values())
    tokenizer, data = prepared
    trainer = bert_mask_sweep.build(args, data, len(tokenizer), rate, seed, torch.device("cpu"))
    trainer.run(3, progress=False)
    check_rerun(f"bert_mask_sweep_{rate}_{seed}", trainer.history.loss, results["losses"][f"{rate},{seed}"][:3], record,
                **TOLERANCE["bert_mask_sweep"])  # fmt: skip


def test_learning_curve_steps_are_equal_across_budgets_when_asked(monkeypatch):
    assert [bert_learning_curve.steps_for(b) for b in (32, 512)] == [50, 96]  # the default grows with the budget
    assert [bert_learning_curve.steps_for(b, 96) for b in (32, 512)] == [96, 96]
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="steps must be a positive integer or None"):
            bert_learning_curve.steps_for(32, bad)
    seen = []
    monkeypatch.setattr(bert_learning_curve, "compare_methods", lambda *a, steps, **k: seen.append(steps) or {})
    monkeypatch.setattr(bert_learning_curve, "balanced_sample", lambda pool, n, seed: pool[:n])
    monkeypatch.setitem(bert_learning_curve._SHARED, "sets", {"train": list(range(600)), "test": []})
    monkeypatch.setitem(bert_learning_curve._SHARED, "model", None)
    monkeypatch.setitem(bert_learning_curve._SHARED, "tokenizer", None)
    monkeypatch.setitem(bert_learning_curve._SHARED, "threads", torch.get_num_threads())
    for steps in (None, 96):
        monkeypatch.setitem(bert_learning_curve._SHARED, "steps", steps)
        for budget in (32, 512):
            bert_learning_curve._unit(("classification", budget, 0, "probe", 1e-3))
    assert seen == [50, 96, 96, 96]


def test_learning_curve_grids_are_extended_until_the_best_setting_is_inside():
    up = [bert_learning_curve.next_setting(1e-4, up=True)]
    down = [bert_learning_curve.next_setting(1e-4, up=False)]
    for _ in range(3):
        up.append(bert_learning_curve.next_setting(up[-1], up=True))
        down.append(bert_learning_curve.next_setting(down[-1], up=False))
    assert up == [3e-4, 1e-3, 3e-3, 1e-2] and down == [3e-5, 1e-5, 3e-6, 1e-6]
    grid = [3e-5, 1e-4, 3e-4]  # grows from its end, not from its best setting (which repeated a setting)
    assert bert_learning_curve.grow(grid, up=True) == [3e-5, 1e-4, 3e-4, 1e-3]
    assert bert_learning_curve.grow(grid, up=False) == [1e-5, 3e-5, 1e-4, 3e-4]
    assert bert_learning_curve.best_setting({1e-4: 0.9, 3e-4: 0.8, 1e-3: 0.7}) == (1e-4, False)
    assert bert_learning_curve.best_setting({1e-4: 0.7, 3e-4: 0.8, 1e-3: 0.9}) == (1e-3, True)
    assert bert_learning_curve.best_setting({1e-4: 0.7, 3e-4: 0.9, 1e-3: 0.8}) == (3e-4, None)
    assert bert_learning_curve.best_setting({1e-4: 0.7, 3e-4: 0.9, 1e-3: 0.9}) == (3e-4, True)  # a tie at the end
    _, record = load_table(data_path("bert_learning_curve.csv"))
    results = record["results"]
    assert all(results["bracketed"].values()), results["bracketed"]  # every shipped choice has worse neighbours
    for method, chosen in results["chosen_settings"].items():
        grid = results["grids"][method]
        assert grid[0] < chosen < grid[-1] and grid == sorted(set(grid))


def test_learning_curve_refuses_bad_steps_before_any_work(tmp_path):
    with pytest.raises(ValueError, match="steps must be a positive integer or None; got 0"):
        bert_learning_curve.main(["--out", str(tmp_path / "curve.csv"), "--steps", "0"])
    bad_lists = [  # a budget of 0 failed only after the validation stage; a non-integer named no option
        (["--budgets", "32,0"], "each of --budgets must be an integer >= 1; got 0"),
        (["--seeds", "x"], "--seeds must be comma-separated integers; got 'x'"),
        (["--selection-seeds", ""], "--selection-seeds must be comma-separated integers; got ''"),
        (["--tag-budgets", "-4"], "each of --tag-budgets must be an integer >= 1; got -4"),
    ]
    for args, message in bad_lists:
        with pytest.raises(ValueError, match=message):
            bert_learning_curve.main(["--out", str(tmp_path / "curve.csv"), *args])
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("module, suffix", [(tiny_bert, ".pt"), (bert_mask_sweep, ".csv"),
                                            (bert_learning_curve, ".csv")])  # fmt: skip
def test_recipes_refuse_to_overwrite_or_to_write_the_wrong_kind_of_file(tmp_path, module, suffix):
    existing = tmp_path / f"out{suffix}"
    existing.write_text("shipped")
    with pytest.raises(FileExistsError, match="pass --overwrite"):
        module.main(["--out", str(existing)])
    assert existing.read_text() == "shipped"
    with pytest.raises(ValueError, match=f"the output must be a {suffix} file"):
        module.main(["--out", str(tmp_path / "results.json")])


def test_mask_sweep_resumes_by_unit_and_keeps_only_the_rows_asked_for(tmp_path, one_thread):
    from dl4nlp.recipes import save_rows

    tiny = ["--steps", "2", "--eval-pairs", "4", "--d-model", "16", "--heads", "2", "--layers", "1"]
    out = tmp_path / "sweep.csv"
    args = bert_mask_sweep.parser().parse_args(["--out", str(out), *tiny])
    spec = {k: v for k, v in vars(args).items()
            if k not in ("out", "overwrite", "threads", "device", "jobs", "rates", "seeds")}  # fmt: skip
    columns = ("loss_at_15", "unigram_at_15", "accuracy_at_own_rate", "targets_per_batch", "final_training_loss")
    saved = dict(rate=1.0, seed=1, accuracy_at_15=-1.0, **dict.fromkeys(columns, 0.0), losses=[9.0, 8.0])  # kept
    other = dict(saved, rate=0.8, accuracy_at_15=-2.0)  # a unit this command does not ask for
    save_rows(out.with_name(".sweep.rows.json"), spec, [saved, other], elapsed=1.0)
    assert bert_mask_sweep.main(["--out", str(out), *tiny, "--rates", "0.5,1.0", "--seeds", "1"]) == 0
    rows, record = load_table(out)
    assert [(float(r["rate"]), int(r["seed"])) for r in rows] == [(0.5, 1), (1.0, 1)]
    assert float(rows[1]["accuracy_at_15"]) == -1.0 and float(rows[0]["accuracy_at_15"]) >= 0.0
    assert record["results"]["losses"]["1.0,1"] == [9.0, 8.0] and len(record["results"]["losses"]["0.5,1"]) == 2
    assert "losses" not in rows[0]  # the CSV keeps its columns; the losses go to the provenance
    assert not out.with_name(".sweep.rows.json").exists()


def test_the_pos_tagging_recipe_reproduces_its_smallest_budget():
    """The tagging curve's 32-sentence row of seed 0 (all three methods at the chosen rates), re-run."""
    from dl4nlp.experiments.bert import pos_scores
    from dl4nlp.recipes import recorded_threads

    rows, record = load_table(data_path("pos_tagging_curve.csv"))
    shipped = {r["method"]: float(r["accuracy"]) for r in rows
               if (r["task"], r["budget"], r["seed"]) == ("test", "32", "0")}  # fmt: skip
    with recorded_threads(record):
        again = pos_scores(0, 32, record["results"]["chosen_learning_rates"], scored="test")
    again = {method: round(value, 6) for method, value in again.items()}
    check_rerun("pos_tagging_curve", again, shipped, record, **TOLERANCE["pos_tagging_curve"])
