"""dl4nlp.tasks (the long-lag memory task), dl4nlp.tokenize.straighten_quotes, dl4nlp.data.random_windows."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from dl4nlp.data import random_windows
from dl4nlp.rnn import RecurrentClassifier
from dl4nlp.tasks import fit_long_lag, long_lag_accuracy, long_lag_task
from dl4nlp.tokenize import straighten_quotes


@settings(max_examples=30, deadline=None)
@given(
    batch=st.integers(1, 20),
    lag=st.integers(1, 30),
    classes=st.integers(2, 6),
    distractors=st.integers(1, 9),
    seed=st.integers(0, 10_000),
)
def test_long_lag_task_layout(batch, lag, classes, distractors, seed):
    tokens, labels = long_lag_task(batch, lag, classes, distractors, torch.Generator().manual_seed(seed))
    assert tokens.shape == (batch, lag + 1) and labels.shape == (batch,)
    assert torch.equal(tokens[:, 0], labels) and bool(((labels >= 0) & (labels < classes)).all())
    assert bool(((tokens[:, 1:] >= classes) & (tokens[:, 1:] < classes + distractors)).all())
    again, _ = long_lag_task(batch, lag, classes, distractors, torch.Generator().manual_seed(seed))
    assert torch.equal(tokens, again)


def test_labels_are_balanced_and_distractors_carry_no_information():
    tokens, labels = long_lag_task(20_000, 3, generator=torch.Generator().manual_seed(0))
    counts = torch.bincount(labels, minlength=4).float() / 20_000
    assert torch.allclose(counts, torch.full((4,), 0.25), atol=0.015)
    same = (tokens[:, 1] - 4 == labels).float().mean().item()  # a distractor "equal" to the label by chance
    assert abs(same - 1 / 8) < 0.015


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(batch_size=0, lag=3), "batch_size must be an integer >= 1; got 0"),
        (dict(batch_size=2, lag=0), "lag must be an integer >= 1; got 0"),
        (dict(batch_size=2, lag=3, num_classes=1), "num_classes must be an integer >= 2; got 1"),
        (dict(batch_size=2, lag=2.5), "lag must be an integer >= 1; got 2.5"),
    ],
)
def test_long_lag_task_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        long_lag_task(**kwargs)


def test_a_short_lag_is_learned_quickly():
    torch.manual_seed(0)
    model = RecurrentClassifier(12, 4, hidden_size=16, kind="rnn")
    before = long_lag_accuracy(model, lag=2)
    history = fit_long_lag(model, lag=2, steps=150, lr=1e-2, progress=False)
    assert len(history.loss) == 150 and not history.diverged
    assert long_lag_accuracy(model, lag=2) > 0.95 > before + 0.3


def test_random_windows_are_contiguous_slices():
    ids = torch.arange(100)
    windows = random_windows(ids, 8, 10, torch.Generator().manual_seed(0))
    assert windows.shape == (8, 10)
    assert torch.all(windows[:, 1:] - windows[:, :-1] == 1) and int(windows.max()) < 100
    with pytest.raises(ValueError, match=r"at least length=200 ids; got shape \(100,\)"):
        random_windows(ids, 2, 200)


def test_straighten_quotes_replaces_only_double_curly_quotes():
    assert straighten_quotes("“It’s mine,” he said.") == '"It’s mine," he said.'
    assert straighten_quotes("no quotes") == "no quotes"
    with pytest.raises(TypeError, match="text must be a str"):
        straighten_quotes(None)
