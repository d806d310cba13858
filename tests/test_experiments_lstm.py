"""Unit tests of the helpers behind notebook 03's experiments (the claims themselves are in tests/claims/)."""

import numpy as np
import pytest
import torch

from dl4nlp.experiments import char_lstm as char_experiments
from dl4nlp.experiments import lstm as experiments
from dl4nlp.rnn import RecurrentLM
from dl4nlp.vocab import CharVocab


def test_sense_occurrences_label_left_by_the_word_before_it():
    pad = "x" * 10
    text = f"{pad} his left hand; she left us; a left turn; far left then; I left. {pad}"
    found = char_experiments.sense_occurrences(text, window=5)
    previous_word = [(text[:start].split()[-1], sense) for start, sense in found]
    assert previous_word == [("his", 1), ("she", 0), ("a", 1), ("I", 0)]  # "far left" names no sense: left out
    both = f"{pad} upon the right and left; she bowed and left the room. {pad}"
    assert [sense for _, sense in char_experiments.sense_occurrences(both, window=5)] == [1, 0]  # direction, verb
    assert char_experiments.sense_occurrences(text, window=len(text)) == []  # no use has that much context
    with pytest.raises(TypeError, match="text must be a str"):
        char_experiments.sense_occurrences(b"left")
    with pytest.raises(ValueError, match="window must be a positive integer"):
        char_experiments.sense_occurrences(text, window=0)


def test_elmo_vectors_see_only_their_own_side_of_the_word():
    vocab = CharVocab("abcdeflt ")
    torch.manual_seed(0)
    forward, backward = (RecurrentLM(len(vocab), hidden_size=6, embedding_dim=4) for _ in range(2))
    text = "abc de left fab cd"
    span = (text.index("left"), text.index("left") + 4)
    with torch.no_grad():
        vectors = char_experiments.elmo_vectors(forward, backward, vocab, text, [span])
        after = char_experiments.elmo_vectors(forward, backward, vocab, text[:-4] + "aaaa", [span])
        before = char_experiments.elmo_vectors(forward, backward, vocab, "aaaa" + text[4:], [span])
    assert vectors.shape == (1, 12)
    assert torch.equal(vectors[:, :6], after[:, :6]) and not torch.allclose(vectors[:, 6:], after[:, 6:])
    assert torch.equal(vectors[:, 6:], before[:, 6:]) and not torch.allclose(vectors[:, :6], before[:, :6])
    for bad in ([], [(5, 3)], [(0, len(text) + 1)], [[0, 2]]):
        with pytest.raises(ValueError, match="spans must be a non-empty list"):
            char_experiments.elmo_vectors(forward, backward, vocab, text, bad)


def test_distance_since_opening_counts_from_each_opening():
    labels = np.array([False, True, True, True, False, True, True])
    assert char_experiments.distance_since_opening(labels).tolist()[1:4] == [0, 1, 2]
    assert char_experiments.distance_since_opening(labels).tolist()[5:] == [0, 1]
    with pytest.raises(ValueError, match="labels must be a 1-D boolean array"):
        char_experiments.distance_since_opening(np.array([0, 1]))


def test_tagging_task_labels_each_rule():
    generator = torch.Generator().manual_seed(0)
    for rule in experiments.TAG_RULES:
        tokens, labels = experiments.tagging_task(3, rule, length=6, generator=generator)
        assert tokens.shape == labels.shape == (3, 6)
        if rule == "previous":
            assert torch.equal(labels[:, 1:], tokens[:, :-1]) and (labels[:, 0] == -100).all()
        elif rule == "next":
            assert torch.equal(labels[:, :-1], tokens[:, 1:]) and (labels[:, -1] == -100).all()
        else:
            assert torch.equal(labels[:, 1:-1], (tokens[:, :-2] == tokens[:, 2:]).long())
    with pytest.raises(ValueError, match="rule must be one of"):
        experiments.tagging_task(3, "later")
    with pytest.raises(ValueError, match="length must be an integer >= 3"):
        experiments.tagging_task(3, "next", length=2)


@pytest.mark.parametrize(
    "function", [char_experiments.boundary_gates, char_experiments.left_senses, char_experiments.quotation_cell]
)
@pytest.mark.parametrize("seed", [-1, 1.0, True, "0"])
def test_experiments_refuse_a_bad_seed(function, seed):
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        function(seed)


def test_join_lag_memory_keeps_each_kinds_numbers_and_refuses_a_kind_twice():
    rnn = experiments.LagMemory({"rnn": 0.3}, {"rnn": 1e-16}, {"rnn": 1e-15}, {"rnn": None}, {"rnn": [1.0]})
    lstm = experiments.LagMemory({"lstm": 1.0}, {"lstm": 0.1}, {"lstm": 0.2}, {"lstm": 40}, {"lstm": [2.0]})
    joined = experiments.join_lag_memory([rnn, lstm])
    assert joined.accuracy == {"rnn": 0.3, "lstm": 1.0} and joined.steps_to_solve == {"rnn": None, "lstm": 40}
    assert joined.gradient_ratio_end == {"rnn": 1e-15, "lstm": 0.2} and joined.norms_start["lstm"] == [2.0]
    with pytest.raises(ValueError, match="different kinds"):
        experiments.join_lag_memory([rnn, rnn])
