"""Notebook 07's shipped induction model: a short re-run of its recipe reproduces the recorded first steps."""

import pytest
import torch

from dl4nlp.experiments import transformer as ex


def test_a_short_induction_rerun_reproduces_the_shipped_curves():
    _, checkpoint = ex.load_induction_model()
    assert checkpoint.extra["sizes"] == ex.INDUCTION_SIZES
    shipped = checkpoint.provenance["results"]["seeds"][0]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the recipe ran
    try:
        _, rerun = ex.train_induction_model(0, {"steps": 50})
    finally:
        torch.set_num_threads(threads)
    assert rerun.steps == (0, 50) and tuple(shipped["steps"][:2]) == (0, 50)
    assert rerun.repeat_loss == pytest.approx(shipped["repeat_loss"][:2], abs=1e-5)
    assert rerun.first_loss == pytest.approx(shipped["first_loss"][:2], abs=1e-5)


def test_induction_training_refuses_bad_arguments():
    with pytest.raises(ValueError, match="eval_every must be an integer >= 1; got 0"):
        ex.train_induction_model(0, {"steps": 1}, eval_every=0)
