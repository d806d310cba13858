"""The claims of chapter 04 (LSTM and GRU), re-run on ``CLAIM_SEEDS`` with the notebook's thresholds."""

import pytest

from dl4nlp.experiments import CLAIM_SEEDS
from dl4nlp.experiments import lstm as experiments


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_gated_cells_remember_at_lag_50_where_the_rnn_is_at_chance(seed):
    lag = experiments.lag_memory(seed)
    assert lag.accuracy["rnn"] < experiments.AT_CHANCE, lag.accuracy
    assert min(lag.accuracy["lstm"], lag.accuracy["gru"]) > experiments.SOLVED, lag.accuracy
    for ratios in (lag.gradient_ratio_start, lag.gradient_ratio_end):
        assert ratios["lstm"] > experiments.LSTM_GRADIENT_FLOOR, ratios
        assert ratios["rnn"] < experiments.RNN_GRADIENT_CEILING, ratios
    assert lag.steps_to_solve["lstm"] < lag.steps_to_solve["gru"], lag.steps_to_solve  # "on each seed"


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_an_lstm_gradient_explodes_when_its_recurrent_weights_are_large(seed):
    boom = experiments.exploding_gradient(seed)
    assert 0.1 < boom.ratio[1.0] < 10, boom.ratio
    assert boom.ratio[6.0] > experiments.EXPLODES, boom.ratio
