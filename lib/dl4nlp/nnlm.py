"""Bengio et al.'s (2003) neural probabilistic language model, and its averaging variant (chapter 02).

The model reads the previous ``context`` tokens, looks up a learned vector for
each (one shared table C), joins them, and maps the result through one tanh
layer to a softmax over the vocabulary:

    x = [C[w_{t-n}]; ...; C[w_{t-1}]]        (concatenation, n·m numbers)
    logits = tanh(x W_h + b_h) W_o + b_o      (V numbers, one per next token)

``combine="mean"`` replaces the concatenation by the average of the n vectors
(a continuous bag of words, as in word2vec's CBOW): fewer parameters, and the
order of the context is lost. Bengio et al. also had optional direct
connections from x to the output; this module leaves them out.

>>> config = NNLMConfig(vocab_size=5, context=3, embed_dim=2, hidden=4)
>>> parameter_count(config), parameter_count(NNLMConfig(5, 3, 2, 4, combine="mean"))
(63, 47)
>>> model = NNLM(config)
>>> model(torch.tensor([[0, 1, 2], [4, 4, 4]])).shape  # (B, V)
torch.Size([2, 5])
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn

from dl4nlp._checks import check_choice, check_ids, check_int, check_tensor

COMBINES = ("concat", "mean")


@dataclass(frozen=True)
class NNLMConfig:
    """Sizes of the model: V tokens, n tokens of context, m numbers per token, h hidden units."""

    vocab_size: int
    context: int = 5
    embed_dim: int = 16
    hidden: int = 128
    combine: str = "concat"

    def __post_init__(self) -> None:
        for name in ("vocab_size", "context", "embed_dim", "hidden"):
            check_int(name, getattr(self, name))
        check_choice("combine", self.combine, COMBINES)

    @property
    def joined(self) -> int:
        """How many numbers enter the hidden layer: n·m (concatenation) or m (average)."""
        return self.context * self.embed_dim if self.combine == "concat" else self.embed_dim


def nnlm_logits(
    contexts: torch.Tensor,
    embedding: torch.Tensor,
    W_h: torch.Tensor,
    b_h: torch.Tensor,
    W_o: torch.Tensor,
    b_o: torch.Tensor,
    combine: str = "concat",
) -> torch.Tensor:
    """Next-token logits (B, V) from ``contexts`` (B, n) of token ids, written out step by step.

    ``embedding`` is C (V, m); ``W_h`` (n·m, h) or (m, h) for ``combine="mean"``;
    ``b_h`` (h,); ``W_o`` (h, V); ``b_o`` (V,).

    >>> C = torch.eye(3)  # V = 3, m = 3
    >>> W_h, b_h = torch.zeros(6, 2), torch.zeros(2)
    >>> nnlm_logits(torch.tensor([[0, 1]]), C, W_h, b_h, torch.zeros(2, 3), torch.tensor([1.0, 2, 3]))
    tensor([[1., 2., 3.]])
    """
    check_choice("combine", combine, COMBINES)
    embedding = check_tensor("embedding", embedding, ndim=2, dtype="float", expected="(V, m)")
    V, m = embedding.shape
    contexts = check_ids("contexts", contexts, V, ndim=2, expected="(B, n)")
    n = contexts.shape[1]
    joined = n * m if combine == "concat" else m
    W_h = check_tensor("W_h", W_h, shape=(joined, None), dtype="float", expected=f"({joined}, h)")
    h = W_h.shape[1]
    check_tensor("b_h", b_h, shape=(h,), dtype="float")
    check_tensor("W_o", W_o, shape=(h, V), dtype="float")
    check_tensor("b_o", b_o, shape=(V,), dtype="float")
    vectors = embedding[contexts]  # (B, n, m): one row of C per context token
    x = vectors.flatten(1) if combine == "concat" else vectors.mean(dim=1)  # (B, n·m) or (B, m)
    hidden = torch.tanh(x @ W_h + b_h)  # (B, h)
    return hidden @ W_o + b_o  # (B, V)


class NNLM(nn.Module):
    """The model of ``nnlm_logits`` with its parameters: ``embedding`` C, ``hidden`` and ``output`` layers."""

    def __init__(self, config: NNLMConfig):
        super().__init__()
        if not isinstance(config, NNLMConfig):
            raise TypeError(f"config must be an NNLMConfig; got {type(config).__name__}")
        self.config = config
        self.embedding = nn.Embedding(config.vocab_size, config.embed_dim)
        self.hidden = nn.Linear(config.joined, config.hidden)
        self.output = nn.Linear(config.hidden, config.vocab_size)

    def weights(self) -> tuple[torch.Tensor, ...]:
        """(C, W_h, b_h, W_o, b_o) in the layout ``nnlm_logits`` takes (x @ W, not W @ x)."""
        return (self.embedding.weight, self.hidden.weight.T, self.hidden.bias, self.output.weight.T, self.output.bias)

    def forward(self, contexts: torch.Tensor) -> torch.Tensor:
        """Logits (B, V) for ``contexts`` (B, n) of exactly ``config.context`` ids each."""
        check_ids("contexts", contexts, self.config.vocab_size, shape=(None, self.config.context))
        return nnlm_logits(contexts, *self.weights(), combine=self.config.combine)


def parameter_count(config: NNLMConfig) -> int:
    """V·m (the table C) + (n·m or m)·h + h (hidden layer) + h·V + V (output layer)."""
    if not isinstance(config, NNLMConfig):
        raise TypeError(f"config must be an NNLMConfig; got {type(config).__name__}")
    V, m, h = config.vocab_size, config.embed_dim, config.hidden
    return V * m + config.joined * h + h + h * V + V


def flops_per_token(config: NNLMConfig) -> int:
    """Floating-point operations of one prediction's forward pass, a multiply-add counted as 2.

    The hidden layer costs 2·(n·m or m)·h, the output layer 2·h·V; averaging adds
    n·m additions (the lookups, biases, tanh and softmax are left out).

    >>> flops_per_token(NNLMConfig(vocab_size=65, context=5, embed_dim=16, hidden=128))
    37120
    """
    if not isinstance(config, NNLMConfig):
        raise TypeError(f"config must be an NNLMConfig; got {type(config).__name__}")
    n, m, h, V = config.context, config.embed_dim, config.hidden, config.vocab_size
    averaging = n * m if config.combine == "mean" else 0
    return 2 * config.joined * h + 2 * h * V + averaging


def context_windows(ids: torch.Tensor, context: int, start: int, stop: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Every prediction of ``ids[start:stop]`` (N,) from the ``context`` ids before it: contexts (N, n), targets (N,).

    >>> context_windows(torch.arange(6), context=2, start=3, stop=6)
    (tensor([[1, 2],
            [2, 3],
            [3, 4]]), tensor([3, 4, 5]))
    """
    ids = check_ids("ids", ids, None, ndim=1)
    context = check_int("context", context)
    start = check_int("start", start, low=context)
    stop = check_int("stop", stop, low=start + 1, high=len(ids))
    positions = torch.arange(start, stop)  # (N,): the targets' positions
    offsets = torch.arange(-context, 0)  # (n,): the positions before each target
    return ids[positions[:, None] + offsets], ids[positions]
