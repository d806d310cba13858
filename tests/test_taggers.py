"""The position-probing model of notebooks 08 and 09, its tasks and the bag-of-words ceiling."""

import itertools
import math
from collections import Counter

import pytest
import torch

from dl4nlp.positional import RotaryAttention
from dl4nlp.taggers import (
    IGNORE,
    Tagger,
    TaggerConfig,
    Training,
    accuracy_by_position,
    bag_of_words_ceiling,
    position_batch,
    previous_token_batch,
    reversal_batch,
    tagging_loss,
    train_tagger,
)

pytestmark = pytest.mark.usefixtures("one_thread")


def brute_force_ceiling(length, vocab):
    """Best accuracy of any predictor that sees (own token, multiset): enumerate every sequence."""
    groups = {}  # (multiset, own token) -> Counter of previous tokens over every sequence and position >= 1
    for sequence in itertools.product(range(vocab), repeat=length):
        bag = tuple(sorted(sequence))
        for t in range(1, length):
            groups.setdefault((bag, sequence[t]), Counter())[sequence[t - 1]] += 1
    right = sum(max(counts.values()) for counts in groups.values())
    return right / (vocab**length * (length - 1))


@pytest.mark.parametrize("length, vocab", [(2, 2), (3, 2), (4, 3), (5, 3), (6, 2), (5, 4)])
def test_bag_of_words_ceiling_equals_the_best_predictor_found_by_enumeration(length, vocab):
    assert math.isclose(bag_of_words_ceiling(length, vocab), brute_force_ceiling(length, vocab), rel_tol=1e-12)


def test_bag_of_words_ceiling_by_sampling_at_the_notebook_sizes():
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 16, (20000, 16), generator=generator)
    counts = torch.nn.functional.one_hot(ids, 16).sum(1)  # (N, 16)
    own = counts.gather(1, ids)  # count of each position's own token
    others = counts[:, None, :].expand(-1, 16, -1).clone()
    others.scatter_add_(2, ids[:, :, None], -torch.ones_like(ids[:, :, None]))  # c_b - [b = a]
    best = others.max(-1).values[:, 1:]  # the best guess's count, positions 1..15
    expected = (own[:, 1:] * 0 + best).double() / 15  # P(right) at a position = max_b c_b' / (T - 1)
    assert abs(expected.mean().item() - bag_of_words_ceiling(16, 16)) < 0.003


def test_tasks():
    generator = torch.Generator().manual_seed(0)
    ids, targets = previous_token_batch(4, 6, 5, generator)
    assert torch.equal(targets[:, 1:], ids[:, :-1]) and (targets[:, 0] == IGNORE).all()
    ids, targets = reversal_batch(4, 6, 5, generator)
    assert torch.equal(targets, ids.flip(1))
    ids, targets = position_batch(4, 6, 5, generator)
    assert (ids[:, 0] == 0).all() and (ids[:, 1:] >= 1).all()
    assert torch.equal(targets[:, 1:], torch.arange(1, 6).expand(4, 5)) and (targets[:, 0] == IGNORE).all()
    with pytest.raises(ValueError, match="length must be a positive integer"):
        previous_token_batch(4, 0, 5, generator)
    with pytest.raises(TypeError, match="generator"):
        reversal_batch(4, 3, 5, 0)


@pytest.mark.parametrize("positional", ["none", "learned", "sinusoidal", "rope"])
def test_tagger_shapes_and_its_attention_layers(positional):
    config = TaggerConfig(vocab_size=7, n_labels=5, d_model=8, n_heads=2, n_layers=2, max_len=10, positional=positional)
    model = Tagger(config)
    assert model(torch.zeros(3, 10, dtype=torch.long)).shape == (3, 10, 5)
    assert [w.shape for w in model.attention_weights()] == [(3, 2, 10, 10)] * 2
    rotary = [isinstance(block.self_attn, RotaryAttention) for block in model.encoder.blocks]
    assert rotary == [positional == "rope"] * 2


def test_without_positions_the_tagger_is_permutation_equivariant_and_causal_is_not():
    torch.manual_seed(0)
    ids = torch.randint(0, 7, (2, 9))
    order = torch.randperm(9)
    for causal in (False, True):
        model = Tagger(TaggerConfig(vocab_size=7, d_model=8, max_len=9, positional="none", causal=causal)).double()
        gap = (model(ids[:, order]) - model(ids)[:, order]).abs().max().item()
        assert (gap < 1e-10) == (not causal), (causal, gap)


def test_a_causal_tagger_never_looks_ahead():
    torch.manual_seed(0)
    model = Tagger(TaggerConfig(vocab_size=7, d_model=8, max_len=9, positional="rope", causal=True))
    ids = torch.randint(0, 7, (1, 9))
    changed = ids.clone()
    changed[0, 6:] = (changed[0, 6:] + 1) % 7
    assert torch.allclose(model(ids)[:, :6], model(changed)[:, :6], atol=1e-6)


def test_config_and_input_errors_name_what_is_wrong():
    with pytest.raises(ValueError, match="positional must be one of"):
        TaggerConfig(vocab_size=4, positional="alibi")
    with pytest.raises(ValueError, match="even size for 'rope'"):
        TaggerConfig(vocab_size=4, d_model=6, n_heads=2, positional="rope")
    with pytest.raises(ValueError, match="vocab_size must be a positive integer"):
        TaggerConfig(vocab_size=0)
    model = Tagger(TaggerConfig(vocab_size=4, d_model=8, max_len=5))
    with pytest.raises(ValueError, match=r"ids must lie in \[0, 3\]"):
        model(torch.tensor([[0, 4]]))
    with pytest.raises(ValueError, match="exceeds max_len=5"):
        model(torch.zeros(1, 6, dtype=torch.long))
    with pytest.raises(TypeError, match="integer tensor"):
        model(torch.zeros(1, 3))
    with pytest.raises(ValueError, match="task must be one of"):
        Training(task="sort")


def test_training_is_reproducible_and_learns_the_previous_token():
    config = TaggerConfig(vocab_size=6, d_model=16, max_len=12)
    training = Training(task="previous", min_length=6, max_length=10, steps=60, batch_size=32)
    model, losses = train_tagger(config, training, seed=3)
    again, losses_again = train_tagger(config, training, seed=3)
    assert losses == losses_again
    assert losses[-1] < 0.5 * losses[0]
    ids, targets = previous_token_batch(200, 10, 6, torch.Generator().manual_seed(9))
    accuracy = accuracy_by_position(model, ids, targets)
    assert math.isnan(accuracy[0]) and accuracy[1:].mean() > 2 * bag_of_words_ceiling(10, 6)
    assert math.isclose(tagging_loss(model, (ids, targets)).item(), tagging_loss(again, (ids, targets)).item())
