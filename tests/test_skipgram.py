"""dl4nlp.skipgram: the pieces of skip-gram with negative sampling, each against a closed form or a direct count."""

import math

import pytest
import torch
import torch.nn.functional as F

from dl4nlp.skipgram import (
    SkipGram,
    SkipGramConfig,
    SkipGramVocab,
    class_cosines,
    context_pairs,
    cooccurrence_vectors,
    keep_probabilities,
    load_vectors,
    nearest,
    noise_distribution,
    same_class_neighbours,
    sample_negatives,
    sgns_loss,
    subsample,
    train_skipgram,
    words,
)


def test_words_lower_cases_and_keeps_inner_apostrophes():
    assert words("It’s Holmes' case, 1891: he—left.") == ["it's", "holmes", "case", "he", "left"]


def test_vocabulary_keeps_frequent_words_most_frequent_first():
    vocab = SkipGramVocab.build("b a b c a b d".split(), min_count=2)
    assert vocab.itos == ["b", "a"] and vocab.counts == [3, 2]
    assert vocab.encode("a c b".split()).tolist() == [1, 0]  # c is dropped
    with pytest.raises(KeyError, match="'c'"):
        vocab.id("c")


def test_keep_probabilities_are_the_papers_discard_rule():
    counts = torch.tensor([900.0, 90.0, 10.0])  # frequencies 0.9, 0.09, 0.01
    keep = keep_probabilities(counts, threshold=0.01)
    expected = [math.sqrt(0.01 / 0.9), math.sqrt(0.01 / 0.09), 1.0]
    assert keep.tolist() == pytest.approx(expected, abs=1e-15)


def test_subsample_keeps_each_word_at_its_rate():
    ids = torch.tensor([0, 1] * 20_000)
    kept = subsample(ids, torch.tensor([0.25, 1.0], dtype=torch.float64), torch.Generator().manual_seed(0))
    n0 = int((kept == 0).sum())
    assert int((kept == 1).sum()) == 20_000
    assert abs(n0 - 5_000) < 4 * math.sqrt(20_000 * 0.25 * 0.75)  # four standard deviations of a binomial


@pytest.mark.parametrize("n, window", [(1, 2), (5, 1), (10, 3), (4, 10)])
def test_context_pairs_are_every_pair_within_the_window(n, window):
    ids = torch.arange(n)
    pairs = context_pairs(ids, window)
    expected = [(i, j) for i in range(n) for j in range(n) if i != j and abs(i - j) <= window]
    assert sorted(map(tuple, pairs.tolist())) == expected


def test_noise_distribution_and_negatives():
    noise = noise_distribution([16, 1], power=0.75)
    assert noise.tolist() == pytest.approx([8 / 9, 1 / 9])
    draws = sample_negatives(noise, (2_000, 5), torch.Generator().manual_seed(0))
    assert draws.shape == (2_000, 5)
    share = (draws == 1).double().mean().item()
    assert abs(share - 1 / 9) < 4 * math.sqrt(1 / 9 * 8 / 9 / 10_000)


def test_sgns_loss_equals_its_formula_and_logistic_regression():
    g = torch.Generator().manual_seed(0)
    v, u, neg = (torch.randn(*s, generator=g, dtype=torch.float64) for s in [(4, 3), (4, 3), (4, 6, 3)])
    direct = -torch.log(torch.sigmoid((u * v).sum(-1))) - torch.log(
        torch.sigmoid(-(neg @ v[:, :, None]).squeeze(-1))
    ).sum(-1)
    assert torch.allclose(sgns_loss(v, u, neg), direct, rtol=1e-12, atol=1e-12)
    scores = torch.cat([(u * v).sum(-1, keepdim=True), (neg @ v[:, :, None]).squeeze(-1)], dim=1)  # (4, 7)
    labels = torch.cat([torch.ones(4, 1), torch.zeros(4, 6)], dim=1).double()
    bce = F.binary_cross_entropy_with_logits(scores, labels, reduction="none").sum(-1)
    assert torch.allclose(sgns_loss(v, u, neg), bce, rtol=1e-12, atol=1e-12)


def test_sgns_loss_does_not_overflow():
    big = torch.full((1, 1), 200.0)
    loss = sgns_loss(big, big, -big[None])  # u_o·v_c = 40,000 and u_k·v_c = -40,000: a perfect, confident pair
    assert loss.item() == 0.0 and sgns_loss(big, -big, big[None]).item() == pytest.approx(80_000)


def test_untrained_model_loss_is_k_plus_one_log_two():
    model = SkipGram(SkipGramConfig(vocab_size=7, dim=4, negatives=3))
    loss = model(torch.tensor([0, 1]), torch.tensor([2, 3]), torch.tensor([[4, 5, 6], [0, 1, 2]]))
    assert loss.item() == pytest.approx(4 * math.log(2), abs=1e-6)  # output vectors start at zero: every score 0


def test_training_lowers_the_loss_and_is_reproducible():
    tokens = ("the cat sat on the mat and the dog sat on the log " * 200).split()
    vocab = SkipGramVocab.build(tokens, min_count=1)
    ids = vocab.encode(tokens)
    config = SkipGramConfig(len(vocab), dim=8, window=2, negatives=3, threshold=0.1)
    first = train_skipgram(ids, vocab, config, seed=0, epochs=2, batch_size=128, lr=0.02)
    again = train_skipgram(ids, vocab, config, seed=0, epochs=2, batch_size=128, lr=0.02)
    assert first.losses == again.losses
    assert sum(first.losses[-5:]) / 5 < 0.8 * first.losses[0]
    half = train_skipgram(ids, vocab, config, seed=0, epochs=0.5, batch_size=128, lr=0.02)
    # the same first steps; the half pass's last batch is cut short
    assert half.losses[:-1] == first.losses[: len(half.losses) - 1] and half.pairs_seen < first.pairs_seen / 3
    student = train_skipgram(ids, vocab, config, seed=0, epochs=1, batch_size=128, lr=0.02, loss=sgns_loss)
    assert student.losses == first.losses[: len(student.losses)]


def test_nearest_and_class_measures():
    vocab = SkipGramVocab(["a", "b", "c", "d"], [4, 3, 2, 1])
    v = torch.tensor([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [-1.0, 0.0]])
    assert nearest(v, vocab, "a", k=3) == [("b", 0.8), ("c", 0.0), ("d", -1.0)]
    within, between = class_cosines(v, vocab, {"x": ["a", "b"], "y": ["c", "d"]})
    assert within == pytest.approx(0.4) and between == pytest.approx((0.0 - 1.0 + 0.6 - 0.8) / 4)
    assert same_class_neighbours(v, vocab, {"x": ["a", "b"], "y": ["c", "d"]}) == 0.75  # a->b, b->a, c->b, d->c


def test_cooccurrence_vectors_are_symmetric_counts():
    counts = cooccurrence_vectors(torch.tensor([0, 1, 0, 2]), 3, window=1)
    assert counts.tolist() == [[0, 2, 1], [2, 0, 0], [1, 0, 0]]


def test_shipped_vectors_load_and_match_their_record():
    shipped = load_vectors()
    assert len(shipped.vocab) == 2056 and sorted(shipped.vectors) == [0, 1, 2]
    for seed, vectors in shipped.vectors.items():
        recorded = shipped.provenance["results"]["seeds"][str(seed)]
        assert vectors.shape == (2056, 50)
        assert [list(pair) for pair in nearest(vectors, shipped.vocab, "three", 5)] == recorded["neighbours"]["three"]


def test_recipe_runs_small(tmp_path):
    from dl4nlp.recipes.skipgram import main

    record = main(["--out", str(tmp_path / "s.pt"), "--seeds", "0", "--epochs", "1", "--dim", "8"])
    shipped = load_vectors(tmp_path / "s.pt")
    assert shipped.vectors[0].shape == (2056, 8) and record["results"]["seeds"]["0"]["steps"] > 50
