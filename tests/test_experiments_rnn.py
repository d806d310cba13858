"""The controls of chapter 03's memory experiment: what the three networks share, and held-out
sequences that training never saw (the claims themselves are in tests/claims/test_03_rnns.py)."""

import torch
from torch import nn

from dl4nlp.experiments import rnn as e
from dl4nlp.tasks import fit_long_lag, long_lag_accuracy


class Recorder(nn.Module):
    """Wraps a model and keeps every batch of tokens it is trained on."""

    def __init__(self, model):
        super().__init__()
        self.model, self.seen = model, set()

    def forward(self, tokens):
        if self.training:
            self.seen.update(tuple(row) for row in tokens.tolist())
        return self.model(tokens)


def test_training_sequences_are_the_ones_fit_long_lag_trains_on():
    recorder = Recorder(e.memory_model(e.VARIANTS[0], seed=1))
    fit_long_lag(recorder, lag=3, steps=4, seed=1, progress=False)
    assert recorder.seen == e._training_sequences(lag=3, steps=4, seed=1)


def test_heldout_accuracy_scores_long_lag_accuracys_batch_minus_the_training_sequences():
    model = e.memory_model(e.VARIANTS[2], seed=0)
    score, left_out = e._heldout_accuracy(model, lag=5, training=set())
    assert left_out == 0 and score == long_lag_accuracy(model, lag=5)
    training = e._training_sequences(lag=2, steps=200, seed=0)
    assert len(training) == 4 * 8**2  # every sequence of lag 2: nothing would be held out
    assert e._heldout_accuracy(model, lag=5, training=e._training_sequences(lag=5, steps=200, seed=0))[1] > 0


def test_the_three_memory_models_differ_one_thing_at_a_time():
    default, identity, relu = (e.memory_model(variant, seed=2) for variant in e.VARIANTS)
    for name, value in default.state_dict().items():
        same = torch.equal(value, identity.state_dict()[name])
        assert same == (name != "recurrent.weight_hh_l0"), name  # only W_h differs
        assert torch.equal(identity.state_dict()[name], relu.state_dict()[name]), name  # nothing differs ...
    assert (identity.recurrent.nonlinearity, relu.recurrent.nonlinearity) == ("tanh", "relu")  # ... but this
    assert torch.equal(identity.recurrent.weight_hh_l0, torch.eye(32))
    assert default.recurrent.weight_hh_l0.abs().max() <= 32**-0.5  # PyTorch's uniform draw in ±1/√32
    for name, value in e.irnn(seed=2).state_dict().items():
        assert torch.equal(value, relu.state_dict()[name]), name  # the IRNN of irnn_learning_rate and clipping
