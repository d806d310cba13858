"""dl4nlp.ngram: count-based baselines against closed forms."""

import math

import pytest
import torch

from dl4nlp.ngram import count_model_loss, count_probabilities, perplexity


def test_unigram_and_bigram_closed_forms():
    train = torch.tensor([0, 1, 1, 2, 0, 1])  # counts 2, 3, 1; bigrams 0->1 (2), 1->1, 1->2, 2->0
    windows = torch.tensor([[0, 1, 2]])  # predicts 1 after 0, then 2 after 1
    unigram = -(math.log(4 / 9) + math.log(2 / 9)) / 2  # add-one: (3, 4, 2) / 9
    bigram = -(math.log(3 / 5) + math.log(2 / 5)) / 2  # row 0: (1, 3, 1)/5; row 1: (1, 2, 2)/5
    assert count_model_loss(train, windows, 3, order=1) == pytest.approx(unigram, abs=1e-12)
    assert count_model_loss(train, windows, 3, order=2) == pytest.approx(bigram, abs=1e-12)


def test_count_probabilities_closed_forms_and_rows_sum_to_one():
    train = torch.tensor([0, 1, 1, 2, 0, 1])
    assert count_probabilities(train, 3).tolist() == pytest.approx([3 / 9, 4 / 9, 2 / 9], abs=1e-15)
    bigram = count_probabilities(train, 3, order=2, add=0.5)  # row 1: 1->1, 1->2 once each: (0.5, 1.5, 1.5) / 3.5
    assert bigram[1].tolist() == pytest.approx([0.5 / 3.5, 1.5 / 3.5, 1.5 / 3.5], abs=1e-15)
    assert bigram.dtype == torch.float64 and torch.allclose(bigram.sum(dim=1), torch.ones(3, dtype=torch.float64))


def test_perplexity_is_e_to_the_loss_and_uniform_gives_the_vocabulary_size():
    assert perplexity(0.0) == 1.0
    assert perplexity(math.log(65)) == pytest.approx(65)
    assert perplexity(1000.0) == math.inf  # beyond the largest float, as torch.exp(torch.tensor(1000.0))
    train = torch.arange(10)
    assert perplexity(count_model_loss(train, torch.tensor([[3, 4, 5]]), 10)) == pytest.approx(10)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: perplexity(-1.0), "loss must be a finite, non-negative number"),
        (lambda: perplexity(float("inf")), "loss must be a finite"),
        (lambda: count_model_loss(torch.tensor([0, 1]), torch.tensor([[0, 1]]), 2, order=3), "order must be 1"),
        (lambda: count_model_loss(torch.tensor([0, 1]), torch.tensor([[0, 1]]), 0), "vocab_size must be a positive"),
        (
            lambda: count_model_loss(torch.tensor([0, 5]), torch.tensor([[0, 1]]), 2),
            r"train_ids must hold int64 ids in \[0, 2\)",
        ),
        (lambda: count_model_loss(torch.tensor([0, 1]), torch.tensor([0, 1]), 2), "windows must be a non-empty 2-D"),
        (
            lambda: count_model_loss(torch.tensor([0, 1]), torch.tensor([[1]]), 2),
            r"windows must have shape \(B, T\+1\)",
        ),
        (lambda: count_model_loss(torch.tensor([0, 1]), torch.tensor([[0, 1]]), 2, add=0), "add must be a positive"),
        (lambda: count_model_loss(torch.tensor([1]), torch.tensor([[0, 1]]), 2, order=2), "at least 2 training ids"),
    ],
)
def test_bad_inputs_are_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_smoothing_curves_equal_counting_afresh():
    from dl4nlp.ngram import SmoothingCurves, count_probabilities, perplexity

    g = torch.Generator().manual_seed(0)
    train, heldout = torch.randint(7, (500,), generator=g), torch.randint(7, (80,), generator=g)
    sizes = [10, 100, 500]
    for k in (0.05, 1.0, 1.7):
        curves = SmoothingCurves(train, heldout, 7, sizes)(k)
        for i, n in enumerate(sizes):
            uni = count_probabilities(train[:n], 7, 1, k)
            bi = count_probabilities(train[:n], 7, 2, k)
            expected = {
                "unigram, held-out": -uni[heldout[1:]].log().mean().item(),
                "bigram, held-out": -bi[heldout[:-1], heldout[1:]].log().mean().item(),
                "bigram, its training text": -bi[train[: n - 1], train[1:n]].log().mean().item(),
            }
            for name, loss in expected.items():
                assert abs(curves[name][i] - perplexity(loss)) < 1e-9 * perplexity(loss)
