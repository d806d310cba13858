"""dl4nlp.tasks (the long-lag memory task), dl4nlp.tokenize.CharVocab, dl4nlp.data.random_windows."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from dl4nlp.data import random_windows
from dl4nlp.rnn import RecurrentClassifier
from dl4nlp.tasks import fit_long_lag, long_lag_accuracy, long_lag_task
from dl4nlp.tokenize import CharVocab, straighten_quotes


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


@settings(max_examples=50, deadline=None)
@given(text=st.text(min_size=1, max_size=60))
def test_char_vocab_round_trip(text):
    vocab = CharVocab.from_text(text)
    ids = vocab.encode(text)
    assert vocab.decode(ids) == text and vocab.decode(torch.tensor(ids, dtype=torch.long)) == text
    assert len(vocab) == len(set(text)) and list(vocab.chars) == sorted(set(text))
    assert all(0 <= i < len(vocab) for i in ids)


def test_char_vocab_errors_name_the_problem():
    vocab = CharVocab("abc")
    with pytest.raises(KeyError, match="text has the character 'z', which is not in the vocabulary of 3 characters"):
        vocab.encode("az")
    with pytest.raises(ValueError, match=r"ids must hold ids in \[0, 3\); got 3"):
        vocab.decode([0, 3])
    with pytest.raises(ValueError, match=r"these repeat: \['a'\]"):
        CharVocab("aba")
    with pytest.raises(ValueError, match="non-empty string"):
        CharVocab("")


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


def test_char_vocab_refuses_what_is_not_text_or_integer_ids():
    vocab = CharVocab("abc")
    with pytest.raises(TypeError, match="text must be a string; got int"):
        vocab.encode(12)
    with pytest.raises(TypeError, match="ids must hold integer ids; got float 1.5"):
        vocab.decode([1.5])
    with pytest.raises(ValueError, match=r"ids must be a 1-D sequence of ids; got shape \(1, 2\)"):
        vocab.decode(torch.tensor([[0, 1]]))
    with pytest.raises(ValueError, match="non-empty str"):
        CharVocab.from_text("")
    with pytest.raises(TypeError, match="text must be a str"):
        straighten_quotes(None)
