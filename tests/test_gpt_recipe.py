"""The GPT recipe: a short re-run reproduces the shipped record; interrupted runs resume exactly; the loader."""

import json

import pytest
import torch

from dl4nlp.checkpoint import load_checkpoint
from dl4nlp.data import data_path
from dl4nlp.gpt import CHECKPOINT, KIND, gpt_config, load_gpt, model_from_weights, weights_to_store
from dl4nlp.recipes import gpt_shakespeare
from dl4nlp.transformer import TransformerLM

TINY = ["--d-model", "16", "--n-heads", "2", "--n-layers", "1", "--context", "16", "--batch-size", "4"]
QUICK = ["--heldout-windows", "4", "--sample-chars", "5", "--eval-windows", "4"]


def test_a_short_rerun_reproduces_the_shipped_first_steps(tmp_path):
    shipped = json.loads(data_path(CHECKPOINT).with_suffix(".json").read_text())
    assert shipped["command"].startswith("python -m dl4nlp.recipes.gpt_shakespeare")
    assert shipped["arguments"]["threads"] == 1 and shipped["seed"] == 0
    steps = 3  # below the warm-up, so the learning rate does not depend on the total number of steps
    assert steps < shipped["arguments"]["warmup_steps"]
    record = gpt_shakespeare.main(["--out", str(tmp_path / "g.pt"), "--steps", str(steps), "--eval-every", "3", *QUICK])
    assert record["results"]["losses"] == pytest.approx(shipped["results"]["losses"][:steps], rel=1e-5)
    assert record["results"]["split_index"] == shipped["results"]["split_index"]


def test_an_interrupted_run_resumes_bit_for_bit(tmp_path, monkeypatch):
    args = [*TINY, *QUICK, "--steps", "6", "--eval-every", "3", "--warmup-steps", "2"]
    whole = gpt_shakespeare.main(["--out", str(tmp_path / "whole.pt"), *args])
    calls = {"n": 0}
    real_train = gpt_shakespeare.train

    def interrupted(*a, **k):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real_train(*a, **k)

    monkeypatch.setattr(gpt_shakespeare, "train", interrupted)
    with pytest.raises(KeyboardInterrupt):
        gpt_shakespeare.main(["--out", str(tmp_path / "cut.pt"), *args])
    assert (tmp_path / "cut.pt.partial").is_file() and not (tmp_path / "cut.pt").exists()
    monkeypatch.setattr(gpt_shakespeare, "train", real_train)
    state = gpt_shakespeare.load_state(tmp_path / "cut.pt.partial")
    torch.save({**state, "wall_seconds": 1000.0}, tmp_path / "cut.pt.partial")  # as if the first session took long
    resumed = gpt_shakespeare.main(["--out", str(tmp_path / "cut.pt"), "--resume", *args])
    assert resumed["wall_seconds"] >= 1000.0  # every session's wall time, not the last one's
    assert resumed["results"]["losses"] == whole["results"]["losses"]
    cut, full = (load_checkpoint(tmp_path / name, kind=KIND).state_dict for name in ("cut.pt", "whole.pt"))
    assert cut.keys() == full.keys() and all(torch.equal(cut[k], full[k]) for k in cut)  # bytes differ: torch.save
    assert not (tmp_path / "cut.pt.partial").exists()
    with pytest.raises(FileExistsError, match="--overwrite"):
        gpt_shakespeare.main(["--out", str(tmp_path / "whole.pt"), *args])


def test_the_shipped_gpt_loads_verified_and_small():
    model, vocab, checkpoint = load_gpt()
    assert checkpoint.kind == KIND and len(vocab) == model.config.vocab_size == 65
    assert data_path(CHECKPOINT).stat().st_size < 4_000_000
    assert all(v.dtype == torch.float16 for v in checkpoint.state_dict.values())
    assert model.lm_head.weight is model.token_embedding.weight
    results = checkpoint.provenance["results"]
    assert results["heldout_loss"] < 2.0 and results["heldout_perplexity"] == pytest.approx(
        torch.tensor(results["heldout_loss"]).exp().item(), rel=1e-6
    )


def test_weights_round_trip_and_refuse_mismatches():
    model = TransformerLM(gpt_config(10, d_model=16, n_heads=2, n_layers=1, max_len=8))
    weights = weights_to_store(model)
    again = model_from_weights(model.config, weights)
    ids = torch.randint(0, 10, (2, 8))
    assert torch.allclose(again(ids), model.eval()(ids), atol=1e-2)  # float16 rounding
    with pytest.raises(ValueError, match="does not fit"):
        model_from_weights(gpt_config(10, d_model=16, n_heads=2, n_layers=2, max_len=8), weights)
    with pytest.raises(TypeError, match="TransformerLM"):
        weights_to_store(torch.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="overrides must name TransformerConfig fields only"):
        gpt_config(10, width=3)
