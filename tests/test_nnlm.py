"""dl4nlp.nnlm: the readable forward pass equals the module and an explicit loop; counts match the modules."""

import torch

from dl4nlp.nnlm import NNLM, NNLMConfig, context_windows, flops_per_token, nnlm_logits, parameter_count


def _explicit(contexts, C, W_h, b_h, W_o, b_o, combine):
    rows = []
    for context in contexts.tolist():
        vectors = [C[i] for i in context]
        x = torch.cat(vectors) if combine == "concat" else sum(vectors) / len(vectors)
        rows.append(torch.tanh(x @ W_h + b_h) @ W_o + b_o)
    return torch.stack(rows)


def test_logits_equal_an_explicit_loop_in_float64():
    g = torch.Generator().manual_seed(0)
    for combine in ("concat", "mean"):
        config = NNLMConfig(vocab_size=7, context=3, embed_dim=4, hidden=5, combine=combine)
        model = NNLM(config).double()
        contexts = torch.randint(7, (6, 3), generator=g)
        expected = _explicit(contexts, *model.weights(), combine)
        assert torch.allclose(model(contexts), expected, atol=1e-12, rtol=0)
        assert torch.allclose(nnlm_logits(contexts, *model.weights(), combine=combine), expected, atol=1e-12, rtol=0)


def test_counts_match_the_modules():
    for combine in ("concat", "mean"):
        config = NNLMConfig(vocab_size=65, context=5, embed_dim=16, hidden=128, combine=combine)
        assert parameter_count(config) == sum(p.numel() for p in NNLM(config).parameters())
    concat = NNLMConfig(65, 5, 16, 128)
    mean = NNLMConfig(65, 5, 16, 128, combine="mean")
    assert flops_per_token(concat) == 2 * (80 * 128 + 128 * 65)
    assert flops_per_token(mean) == 2 * (16 * 128 + 128 * 65) + 80


def test_mean_ignores_order_and_concat_does_not():
    torch.manual_seed(0)
    contexts = torch.tensor([[1, 2, 3, 4]])
    shuffled = contexts[:, [3, 1, 0, 2]]
    mean = NNLM(NNLMConfig(10, 4, 3, 6, combine="mean")).double()
    concat = NNLM(NNLMConfig(10, 4, 3, 6)).double()
    assert torch.allclose(mean(contexts), mean(shuffled), atol=1e-12)
    assert not torch.allclose(concat(contexts), concat(shuffled), atol=1e-3)


def test_context_windows_reach_back_but_predict_only_the_range():
    ids = torch.arange(10, 20)
    contexts, targets = context_windows(ids, 3, 5, 10)
    assert targets.tolist() == [15, 16, 17, 18, 19]
    assert contexts[0].tolist() == [12, 13, 14]
    assert (contexts[:, -1] + 1 == targets).all()
