"""The scaling sweep: its shared parts (dl4nlp.sweep) and its recipe (dl4nlp.recipes.scaling_sweep), on a tiny spec.

Resuming is bit for bit, a warmup-stable-decay branch equals the run trained from scratch, the recipe
never overwrites what it shipped, a different spec never resumes another's work folder, checkpoints
load with weights_only=True, and the shipped models file is checksummed.
"""

import json
import os
import pickle

import pytest
import torch
from reproduction import TOLERANCE, check_rerun

from dl4nlp.checkpoint import save_checkpoint
from dl4nlp.data import load_text
from dl4nlp.recipes.scaling_run import Budget, OutOfSteps, Run, train_run
from dl4nlp.recipes.scaling_sweep import (
    Sweep,
    SweepSpec,
    check_unique,
    default_workdir,
    main,
    models_path,
    trunk_and_branches,
)
from dl4nlp.sweep import (
    CharData,
    continuation_metrics,
    decay_start,
    eval_steps,
    load_models,
    load_sweep,
    lr_factor,
    model_config,
    parse_size,
)

TINY = dict(
    sizes=("1x8", "1x16"),
    compute_levels=(2.6e7, 5.2e7),  # 1x8: 44 steps (and 88, beyond max_steps); 1x16: 15 and 29 steps
    second_seed_levels=(5.2e7,),
    min_steps=8,
    max_steps=60,
    lr_search_steps=8,
    constant_sizes=("1x16",),
    shapes=("2x8",),
    shape_reference="1x16",
    context=16,
    batch_size=4,
    warmup_steps=2,
    eval_windows=4,
    final_windows=8,
    emergence_start=4,
    max_k=4,
)


pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def data():
    return CharData(load_text("tinyshakespeare.txt"))


def run_tiny(tmp_path, name, *extra, spec=None):
    args = ["--out", str(tmp_path / f"{name}.json"), "--workdir", str(tmp_path / f"w-{name}"), "--no-progress"]
    return main(args + ["--spec", json.dumps(spec or TINY), *extra])


# ---- the shared parts --------------------------------------------------------
def test_sizes_schedules_and_evaluation_points():
    assert parse_size("3x64") == (3, 64, 4) and parse_size("2x24") == (2, 24, 1) and parse_size("3x40") == (3, 40, 2)
    with pytest.raises(ValueError, match="LAYERSxWIDTH"):
        parse_size("big")
    with pytest.raises(ValueError, match="even width"):
        parse_size("2x7")
    assert model_config("2x32", 65, 64).n_heads == 2
    assert [lr_factor(s, 100, "cosine", 10) for s in (0, 9)] == [0.1, 1.0]
    assert lr_factor(99, 100, "cosine", 10) == pytest.approx(0.1)  # tenfold decay, reached at the last step
    assert lr_factor(10, 100, "cosine", 10) == pytest.approx(1.0)
    assert lr_factor(99, 100, "constant", 10) == 1.0
    assert decay_start(100) == 80 and lr_factor(79, 100, "wsd", 10) == 1.0 and lr_factor(80, 100, "wsd", 10) == 1.0
    assert lr_factor(99, 100, "wsd", 10) == pytest.approx(0.05)  # linear to zero after the last step
    assert [lr_factor(s, 100, "wsd", 10) for s in range(80)] == [lr_factor(s, 100, "constant", 10) for s in range(80)]
    with pytest.raises(ValueError, match="schedule must be one of"):
        lr_factor(50, 100, "linear", 10)
    with pytest.raises(ValueError, match="step must be an integer in"):
        lr_factor(100, 100, "cosine", 10)
    assert eval_steps(64) == [2, 4, 8, 16, 24, 32, 40, 48, 56, 64]
    assert eval_steps(10, extra=[3, 99]) == [1, 2, 3, 4, 5, 6, 8, 9, 10]


def test_spec_validation():
    with pytest.raises(ValueError, match="constant_sizes and shape_reference must be among sizes"):
        SweepSpec(sizes=("1x8",), constant_sizes=("2x32",), shapes=())
    with pytest.raises(ValueError, match="corpus must be one of"):
        SweepSpec(corpus="wiki.txt")
    with pytest.raises(ValueError, match="min_steps must be a positive integer; got 0"):
        SweepSpec(min_steps=0)
    with pytest.raises(ValueError, match="increase strictly"):
        SweepSpec(compute_levels=(2e10, 1e10))
    with pytest.raises(ValueError, match="must not repeat a size"):
        SweepSpec(sizes=("1x8", "1x8"), constant_sizes=(), shapes=())
    with pytest.raises(ValueError, match="second_seed must differ"):
        SweepSpec(second_seed=0)
    assert SweepSpec(**{**TINY, "sizes": list(TINY["sizes"])}) == SweepSpec(**TINY)  # JSON lists compare equal


def test_duplicate_budgets_are_rejected_not_looped():
    spec = SweepSpec(**{**TINY, "compute_levels": (2e8, 2.0001e8), "second_seed_levels": ()})
    with pytest.raises(ValueError, match="same number of steps"):
        spec.budgets(100_000)  # both levels round to 31 steps
    a, b = Run("1x8", "cosine", 10, 0.01, 0), Run("1x8", "cosine", 10, 0.01, 0, extra_evals=(3,))
    with pytest.raises(ValueError, match="share the id"):
        check_unique([a, b])
    check_unique([a, a])  # the same run twice is one run


def test_char_data_splits_and_windows():
    data = CharData("abcdefghij" * 10, heldout_fraction=0.2)
    assert len(data.chars) == 10 and len(data.train) == 80 and len(data.heldout) == 20 and data.split == 80
    x, y = data.batch(3, 5, torch.Generator().manual_seed(0))
    assert x.shape == y.shape == (3, 5) and torch.equal(x[:, 1:], y[:, :-1])
    assert data.windows("heldout", 4, 5).shape == (4, 6)
    with pytest.raises(ValueError, match=r"heldout_fraction must be a finite number in \(0, 1\)"):
        CharData("abc", heldout_fraction=1.5)
    with pytest.raises(ValueError, match="part must be"):
        data.windows("test", 4, 5)


def test_continuation_metrics_of_a_perfect_and_a_constant_predictor():
    chars = [" ", "a", "b"]
    windows = torch.tensor([[1, 2, 0, 1, 1, 2, 0, 2, 1]])  # "ab aab ba"

    class Oracle(torch.nn.Module):
        def __init__(self, answer):
            super().__init__()
            self.answer, self.w = answer, torch.nn.Parameter(torch.zeros(1))

        def forward(self, ids):
            return 10 * torch.nn.functional.one_hot(self.answer[:, : ids.shape[1]], 3).float()

    perfect = continuation_metrics(Oracle(windows[:, 1:]), windows, chars, start=0, max_k=3, min_completion=2)
    assert perfect["token_accuracy"] == 1.0 and perfect["exact_match"] == [1.0, 1.0, 1.0]
    assert perfect["words"] == 1 and perfect["word_exact_match"] == 1.0  # "aab"; "ba" runs into the window's edge
    assert perfect["completions"] == 1 and perfect["completion_exact_match"] == 1.0  # "ab" after the first "a"
    assert perfect["loss"] == pytest.approx(-torch.log_softmax(torch.tensor([10.0, 0, 0]), 0)[0].item())
    always_a = continuation_metrics(
        Oracle(torch.ones_like(windows[:, 1:])), windows, chars, start=0, max_k=3, min_completion=2
    )
    assert always_a["token_accuracy"] == pytest.approx(3 / 8)  # targets "b aab ba": an a at 3 of 8
    assert always_a["exact_match"][1] == pytest.approx(1 / 7) and always_a["exact_match"][2] == 0.0
    assert always_a["word_exact_match"] == 0.0 and always_a["completion_exact_match"] == 0.0
    assert always_a["completion_char_accuracy"] == 0.5
    with pytest.raises(ValueError, match="start \\+ max_k"):
        continuation_metrics(Oracle(windows[:, 1:]), windows, chars, start=6, max_k=3)


# ---- one run -------------------------------------------------------------------
def test_a_branched_wsd_run_equals_the_same_run_from_scratch(tmp_path, data):
    spec = SweepSpec(**TINY)
    settings = spec.settings()
    trunk, wsd = trunk_and_branches(spec, "1x8", [20, 40], 0.02, 0)[::2]
    assert wsd.branch == (trunk.id, decay_start(40)) and trunk.schedule == "constant" and trunk.steps == 40
    train_run(trunk, data, settings, tmp_path / "a", torch.device("cpu"))
    branched = train_run(wsd, data, settings, tmp_path / "a", torch.device("cpu"))
    scratch = train_run(Run("1x8", "wsd", 40, 0.02, 0), data, settings, tmp_path / "b", torch.device("cpu"))
    assert branched["curve"] == scratch["curve"] and branched["final"] == scratch["final"]
    assert [p["step"] for p in branched["curve"]] == Run("1x8", "wsd", 40, 0.02, 0).points()


def test_a_run_resumes_bit_for_bit_and_refuses_a_crafted_checkpoint(tmp_path, data):
    settings = SweepSpec(**TINY).settings()
    run = Run("1x16", "cosine", 24, 0.03, 0)
    whole = train_run(run, data, settings, tmp_path / "a", torch.device("cpu"))
    budget = Budget(limit=10)
    with pytest.raises(OutOfSteps):
        train_run(run, data, settings, tmp_path / "b", torch.device("cpu"), budget)
    assert budget.used == 9 and (tmp_path / "b" / "ckpt" / f"{run.id}.pt").exists()
    resumed = train_run(run, data, settings, tmp_path / "b", torch.device("cpu"))
    assert resumed["curve"] == whole["curve"] and resumed["final"] == whole["final"]

    class Payload:  # a pickle that would run code when loaded without weights_only
        def __reduce__(self):
            return (os.makedirs, (str(tmp_path / "pwned"),))

    crafted = tmp_path / "c" / "ckpt" / f"{run.id}.pt"
    crafted.parent.mkdir(parents=True)
    crafted.write_bytes(pickle.dumps(Payload()))
    with pytest.raises(ValueError, match="not a readable sweep checkpoint"):
        train_run(run, data, settings, tmp_path / "c", torch.device("cpu"))
    assert not (tmp_path / "pwned").exists()


def test_a_shipped_run_reproduces_bit_for_bit(tmp_path, data):
    """The sweep's cheapest shipped run (1x8, cosine, 512 steps, seed 0), re-run with the shipped spec: its
    whole curve (held-out and training loss at 13 points) and end-of-run scores are the recorded ones."""
    shipped = load_sweep()
    assert {s["torch_threads"] for s in shipped["recipe"]["sessions"]} == {torch.get_num_threads()} == {1}
    spec = SweepSpec(**shipped["recipe"]["spec"])
    assert (spec.corpus, spec.heldout_fraction) == ("tinyshakespeare.txt", 0.1)  # the `data` fixture's split
    recorded = shipped["runs"]["1x8-cosine-512-lr0.0452548-s0"]
    run = Run(recorded["size"], recorded["schedule"], recorded["steps"], recorded["peak_lr"], recorded["seed"])
    again = train_run(run, data, spec.settings(), tmp_path, torch.device("cpu"))
    assert len(recorded["curve"]) == 13
    record = {"environment": {"torch": shipped["recipe"]["torch_version"], "torch_threads": 1}}
    keys = ("curve", "final", *run.identity())
    check_rerun("scaling_sweep", {k: again[k] for k in keys}, {k: recorded[k] for k in keys}, record,
                **TOLERANCE["scaling_sweep"])  # fmt: skip


def test_a_diverging_run_is_recorded_as_such(tmp_path, data):
    record = train_run(Run("1x8", "constant", 16, float("inf"), 0), data, SweepSpec(**TINY).settings(), tmp_path, "cpu")
    assert record["diverged"] and record["final"] is None and record["diverged_before"] <= 16


# ---- the recipe ----------------------------------------------------------------
def test_the_recipe_resumes_to_the_same_numbers_and_never_overwrites(tmp_path):
    assert run_tiny(tmp_path, "whole") == 0
    whole = load_sweep(tmp_path / "whole.json")
    assert whole["complete"] and whole["recipe"]["command"].startswith("python -m dl4nlp.recipes.scaling_sweep --out")
    roles = {role for r in whole["runs"].values() for role in r["roles"]}
    assert roles == {"lr_search", "grid", "schedules", "fixed_data"} and set(whole["lr_search"]) == {
        "1x8",
        "1x16",
        "2x8",
    }
    for search in whole["lr_search"].values():  # the best rate is bracketed by two worse ones on each side
        losses = list(search["tried"].values())
        best = losses.index(min(losses))
        assert 2 <= best <= len(losses) - 3 and search["lowest_lr"] == float(list(search["tried"])[best])
        assert search["chosen_lr"] == search["lowest_lr"]  # lr_backoff = 0: the lowest-loss rate itself
    assert {r["seed"] for r in whole["runs"].values()} == {0, 1}
    fixed = {(r["size"], r["seed"]) for r in whole["runs"].values() if "fixed_data" in r["roles"]}
    assert fixed == {(size, seed) for size in ("1x8", "1x16", "2x8") for seed in (0, 1)}
    while run_tiny(tmp_path, "sliced", "--max-steps", "70") == 0 and not (tmp_path / "sliced.json").exists():
        pass
    sliced = load_sweep(tmp_path / "sliced.json")
    sessions = sliced["recipe"]["sessions"]
    assert len(sessions) > 3 and sessions[1]["resumed"] and all(s["wall_seconds"] >= 0 for s in sessions)
    assert sliced["recipe"]["wall_seconds"] == pytest.approx(sum(s["wall_seconds"] for s in sessions), abs=0.2)
    strip = ("wall_seconds", "cpu_seconds")
    for rid, run in whole["runs"].items():  # bit for bit: weights, optimiser, data order and schedule restored
        assert {k: v for k, v in sliced["runs"][rid].items() if k not in strip} == {
            k: v for k, v in run.items() if k not in strip
        }
    before = (tmp_path / "whole.json").read_bytes()
    with pytest.raises(FileExistsError, match="--overwrite"):
        run_tiny(tmp_path, "whole")
    assert (tmp_path / "whole.json").read_bytes() == before
    models, chars = load_models(models_path(tmp_path / "whole.json"))
    assert set(models) == {"1x8", "1x16"} and len(chars) == 65
    assert models["1x16"].lm_head.weight is models["1x16"].token_embedding.weight
    longest = max(
        (r for r in whole["runs"].values() if r["size"] == "1x16" and "grid" in r["roles"]),
        key=lambda r: (r["seed"] == 0, r["steps"]),
    )
    windows = CharData(load_text("tinyshakespeare.txt")).windows("heldout", 8, 16)
    again = continuation_metrics(models["1x16"], windows, chars, start=4, max_k=4)["loss"]
    assert again == pytest.approx(longest["final"]["loss"], abs=0.01)  # float16 storage changes it by less


def test_reused_runs_are_those_the_sweep_would_train(tmp_path):
    first = {**TINY, "shapes": (), "second_seed": None, "second_seed_levels": (), "lr_backoff": 1}
    assert run_tiny(tmp_path, "first", spec=first) == 0
    second = {**first, "lr_backoff": 0}
    assert run_tiny(tmp_path, "reusing", "--reuse", str(tmp_path / "first.json"), spec=second) == 0
    assert run_tiny(tmp_path, "fresh", spec=second) == 0
    reusing, fresh = load_sweep(tmp_path / "reusing.json"), load_sweep(tmp_path / "fresh.json")
    reused = {rid for rid, r in reusing["runs"].items() if r.get("reused_from") == "first.json"}
    searched = {rid for rid, r in reusing["runs"].items() if "lr_search" in r["roles"]}
    assert searched <= reused and set(reusing["runs"]) == set(fresh["runs"])
    strip = ("wall_seconds", "cpu_seconds", "reused_from", "roles")
    for rid, run in fresh["runs"].items():
        assert {k: v for k, v in reusing["runs"][rid].items() if k not in strip} == {
            k: v for k, v in run.items() if k not in strip
        }
    other = {**second, "context": 20}
    with pytest.raises(ValueError, match="other run settings"):
        run_tiny(tmp_path, "other", "--reuse", str(tmp_path / "first.json"), spec=other)


def test_the_work_folder_is_keyed_by_the_spec(tmp_path):
    spec, other = SweepSpec(**TINY), SweepSpec(**{**TINY, "lr_start": 0.01})
    assert default_workdir(spec) != default_workdir(other) and default_workdir(spec) == default_workdir(
        SweepSpec(**TINY)
    )
    Sweep(spec, tmp_path / "w", torch.device("cpu")).save()
    with pytest.raises(ValueError, match="different spec"):
        Sweep(other, tmp_path / "w", torch.device("cpu"))


def test_the_shipped_models_file_is_checked(tmp_path):
    path = tmp_path / "m.pt"
    config = model_config("1x8", 65, 16)
    from dataclasses import asdict

    from dl4nlp.transformer import TransformerLM

    weights = {f"1x8/{k}": v for k, v in TransformerLM(config).state_dict().items() if k != "lm_head.weight"}
    save_checkpoint(
        path,
        kind="scaling_sweep_models",
        config={"models": {"1x8": asdict(config)}, "runs": {}},
        state_dict=weights,
        provenance={"command": "test"},
        extra={"chars": "x" * 65},
    )
    assert set(load_models(path)[0]) == {"1x8"}
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="damaged or was replaced"):
        load_models(path)
    path.write_bytes(bytes(data[:100]))
    with pytest.raises(ValueError, match="truncated"):
        load_models(path)
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        load_models(path)
    save_checkpoint(path, kind="char_lstm", config={}, state_dict={}, provenance={}, overwrite=True)
    with pytest.raises(ValueError, match="expected a 'scaling_sweep_models' checkpoint"):
        load_models(path)
    with pytest.raises(FileNotFoundError, match="no checkpoint at"):
        load_models(tmp_path / "missing.pt")


def test_cli_help_and_estimate(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0 and "--max-steps" in capsys.readouterr().out
    assert main(["--out", "unused.json", "--estimate", "--spec", json.dumps(TINY)]) == 0
    assert "CPU minutes" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="--spec must be a JSON object"):
        main(["--out", "x.json", "--spec", "{sizes"])
    with pytest.raises(SystemExit, match="--spec must be a JSON object .*got '\\[1\\]'"):
        main(["--out", "x.json", "--spec", "[1]"])  # JSON, but not an object
