"""A vanilla recurrent network, written as a loop, and the models built on it.

``RNNCell`` computes one step, h(t) = act(W_ih x(t) + b_ih + W_hh h(t-1) + b_hh),
with the same parameter names and shapes as ``torch.nn.RNN`` so that weights
copy across; ``UnrolledRNN`` runs it over a sequence and returns every hidden
state. ``RecurrentLM`` and ``RecurrentClassifier`` wrap PyTorch's fast
``nn.RNN`` / ``nn.LSTM`` / ``nn.GRU`` (the fast path) for training.
``jacobian_norms`` measures backpropagation through time as a product of
Jacobians. Taught in notebook 02; the LSTM and GRU cells are in ``dl4nlp.lstm``.

>>> cell = RNNCell(3, 4)
>>> cell(torch.zeros(2, 3), torch.zeros(2, 4)).shape
torch.Size([2, 4])
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Optional

import numpy as np
import torch
from torch import nn

NONLINEARITIES = {"tanh": torch.tanh, "relu": torch.relu}
KINDS = ("rnn", "lstm", "gru")


def _check_choice(name: str, value: str, choices) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}; got {value!r}")


def _torch_weights(module: nn.Module, layer: int, reverse: bool, kind: type) -> dict[str, torch.Tensor]:
    """The four parameters of one layer (and direction) of a torch ``nn.RNN``/``nn.LSTM``/``nn.GRU``."""
    if not isinstance(module, kind):
        raise TypeError(f"expected a torch.nn.{kind.__name__}; got {type(module).__name__}")
    if not 0 <= layer < module.num_layers:
        raise ValueError(f"layer must be in [0, {module.num_layers}); got {layer!r}")
    if reverse and not module.bidirectional:
        raise ValueError("reverse=True needs a bidirectional module; got bidirectional=False")
    suffix = f"_l{layer}" + ("_reverse" if reverse else "")
    names = ["weight_ih", "weight_hh"] + (["bias_ih", "bias_hh"] if module.bias else [])
    return {name: getattr(module, name + suffix).detach().clone() for name in names}


def load_weights_(target: nn.Module, weights: dict[str, torch.Tensor]) -> nn.Module:
    """Copy ``weights`` (name -> tensor) into the parameters of ``target`` of the same names and shapes."""
    with torch.no_grad():
        for name, value in weights.items():
            param = getattr(target, name)
            if param.shape != value.shape:
                raise ValueError(f"{name} must have shape {tuple(param.shape)}; got {tuple(value.shape)}")
            param.copy_(value)
    return target


class RNNCell(nn.Module):
    """One step of a vanilla RNN: h' = act(W_ih x + b_ih + W_hh h + b_hh); act is tanh or relu.

    Parameters are initialised like PyTorch's, uniformly in ±1/sqrt(hidden_size).
    """

    def __init__(self, input_size: int, hidden_size: int, nonlinearity: str = "tanh"):
        super().__init__()
        _check_choice("nonlinearity", nonlinearity, NONLINEARITIES)
        self.input_size, self.hidden_size, self.nonlinearity = input_size, hidden_size, nonlinearity
        bound = 1 / math.sqrt(hidden_size)
        self.weight_ih = nn.Parameter(torch.empty(hidden_size, input_size).uniform_(-bound, bound))  # (H, I)
        self.weight_hh = nn.Parameter(torch.empty(hidden_size, hidden_size).uniform_(-bound, bound))  # (H, H)
        self.bias_ih = nn.Parameter(torch.empty(hidden_size).uniform_(-bound, bound))  # (H,)
        self.bias_hh = nn.Parameter(torch.empty(hidden_size).uniform_(-bound, bound))  # (H,)

    def pre_activation(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """z = W_ih x + b_ih + W_hh h + b_hh for a batch: x (B, I), h (B, H) -> (B, H)."""
        return x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:  # (B, I), (B, H) -> (B, H)
        if x.dim() != 2 or x.shape[1] != self.input_size:
            raise ValueError(f"x must have shape (batch, {self.input_size}); got {tuple(x.shape)}")
        return NONLINEARITIES[self.nonlinearity](self.pre_activation(x, h))


class UnrolledRNN(nn.Module):
    """A vanilla RNN as an explicit loop over time (batch first).

    ``forward(x)`` with x (B, T, I) returns ``(outputs, h_T)``: every hidden
    state (B, T, H) and the last one (B, H), exactly what ``nn.RNN(batch_first=True)``
    returns (up to its extra layer dimension on h_T).
    """

    def __init__(self, input_size: int, hidden_size: int, nonlinearity: str = "tanh"):
        super().__init__()
        self.cell = RNNCell(input_size, hidden_size, nonlinearity)

    @classmethod
    def from_torch(cls, module: nn.RNN, layer: int = 0, reverse: bool = False) -> UnrolledRNN:
        """A copy of one layer (and direction) of a ``torch.nn.RNN``, weights included."""
        weights = _torch_weights(module, layer, reverse, nn.RNN)
        if "bias_ih" not in weights:
            raise ValueError("the torch module must have bias=True; got bias=False")
        hidden, inputs = weights["weight_ih"].shape
        model = cls(inputs, hidden, module.nonlinearity)
        load_weights_(model.cell, weights)
        return model

    def forward(self, x: torch.Tensor, h0: Optional[torch.Tensor] = None) -> tuple[torch.Tensor, torch.Tensor]:
        if x.dim() != 3:
            raise ValueError(f"x must have shape (batch, time, {self.cell.input_size}); got {tuple(x.shape)}")
        h = x.new_zeros(x.shape[0], self.cell.hidden_size) if h0 is None else h0  # (B, H)
        outputs = []
        for t in range(x.shape[1]):
            h = self.cell(x[:, t], h)  # (B, H)
            outputs.append(h)
        return torch.stack(outputs, dim=1), h  # (B, T, H), (B, H)


def _check_size(name: str, value, low: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")


def make_recurrent(
    kind: str,
    input_size: int,
    hidden_size: int,
    nonlinearity: str = "tanh",
    num_layers: int = 1,
    bidirectional: bool = False,
) -> nn.Module:
    """PyTorch's fast recurrent module of the given ``kind`` ('rnn', 'lstm' or 'gru'), batch first.

    >>> make_recurrent("gru", 3, 4, num_layers=2)
    GRU(3, 4, num_layers=2, batch_first=True)
    """
    _check_choice("kind", kind, KINDS)
    for name, value in [("input_size", input_size), ("hidden_size", hidden_size), ("num_layers", num_layers)]:
        _check_size(name, value)
    if not isinstance(bidirectional, bool):
        raise TypeError(f"bidirectional must be a bool; got {bidirectional!r}")
    options = dict(num_layers=num_layers, batch_first=True, bidirectional=bidirectional)
    if kind == "rnn":
        _check_choice("nonlinearity", nonlinearity, NONLINEARITIES)
        return nn.RNN(input_size, hidden_size, nonlinearity=nonlinearity, **options)
    return (nn.LSTM if kind == "lstm" else nn.GRU)(input_size, hidden_size, **options)


def check_token_ids(ids, vocab_size: int, name: str = "ids") -> None:
    """Raise unless ``ids`` is a (B, T) integer tensor with B, T >= 1 and every id in [0, vocab_size)."""
    if not isinstance(ids, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of token ids; got {type(ids).__name__}")
    if ids.dim() != 2 or ids.shape[0] == 0 or ids.shape[1] == 0:
        raise ValueError(f"{name} must have shape (batch, time) with both at least 1; got {tuple(ids.shape)}")
    if ids.dtype not in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8):
        raise TypeError(f"{name} must hold integer token ids; got dtype {ids.dtype}")
    low, high = int(ids.min()), int(ids.max())
    if low < 0 or high >= vocab_size:
        raise ValueError(f"{name} must lie in [0, {vocab_size}); got ids from {low} to {high}")


def identity_init_(module: nn.RNN) -> nn.RNN:
    """IRNN initialisation (Le, Jaitly & Hinton, 2015): W_hh = I, biases 0; use with ReLU."""
    with torch.no_grad():
        for layer in range(module.num_layers):
            getattr(module, f"weight_hh_l{layer}").copy_(torch.eye(module.hidden_size))
            getattr(module, f"bias_hh_l{layer}").zero_()
            getattr(module, f"bias_ih_l{layer}").zero_()
            getattr(module, f"weight_ih_l{layer}").normal_(0.0, 0.1)
    return module


class RecurrentClassifier(nn.Module):
    """Tokens -> embedding -> recurrent layer -> a linear read-out of the last hidden state.

    ``forward(tokens)`` with tokens (B, T) returns class logits (B, C).

    >>> RecurrentClassifier(vocab_size=12, num_classes=4, kind="lstm")(torch.zeros(2, 5, dtype=torch.long)).shape
    torch.Size([2, 4])
    """

    def __init__(
        self,
        vocab_size: int,
        num_classes: int,
        hidden_size: int = 32,
        kind: str = "rnn",
        embedding_dim: int = 16,
        nonlinearity: str = "tanh",
    ):
        super().__init__()
        for name, value in [("vocab_size", vocab_size), ("num_classes", num_classes), ("embedding_dim", embedding_dim)]:
            _check_size(name, value)
        self.vocab_size = vocab_size
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.recurrent = make_recurrent(kind, embedding_dim, hidden_size, nonlinearity)
        self.readout = nn.Linear(hidden_size, num_classes)

    def forward(self, tokens: torch.Tensor, embedded: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Logits (B, C); pass ``embedded`` (B, T, E) instead of tokens to differentiate with respect to it."""
        if embedded is None:
            check_token_ids(tokens, self.vocab_size, "tokens")
            x = self.embedding(tokens)  # (B, T, E)
        else:
            expected = self.embedding.embedding_dim
            if not isinstance(embedded, torch.Tensor) or embedded.dim() != 3 or embedded.shape[-1] != expected:
                got = tuple(embedded.shape) if isinstance(embedded, torch.Tensor) else type(embedded).__name__
                raise ValueError(f"embedded must have shape (batch, time, {expected}); got {got}")
            x = embedded
        outputs, _ = self.recurrent(x)  # (B, T, H)
        return self.readout(outputs[:, -1])  # (B, C)


class RecurrentTagger(nn.Module):
    """Tokens -> embedding -> (stacked, optionally bidirectional) recurrent layers -> logits at every position.

    ``forward(tokens)`` with tokens (B, T) returns logits (B, T, C). With
    ``bidirectional=True`` the read-out at position t sees the forward state
    (tokens 1..t) and the backward state (tokens t..T) side by side. Notebook 03.

    >>> RecurrentTagger(vocab_size=10, num_classes=3, num_layers=2, bidirectional=True)(
    ...     torch.zeros(2, 7, dtype=torch.long)).shape
    torch.Size([2, 7, 3])
    """

    def __init__(
        self,
        vocab_size: int,
        num_classes: int,
        hidden_size: int = 32,
        kind: str = "lstm",
        embedding_dim: int = 16,
        num_layers: int = 1,
        bidirectional: bool = False,
    ):
        super().__init__()
        for name, value in [("vocab_size", vocab_size), ("num_classes", num_classes), ("embedding_dim", embedding_dim)]:
            _check_size(name, value)
        self.vocab_size = vocab_size
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.recurrent = make_recurrent(
            kind, embedding_dim, hidden_size, num_layers=num_layers, bidirectional=bidirectional
        )
        self.readout = nn.Linear(hidden_size * (2 if bidirectional else 1), num_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        check_token_ids(tokens, self.vocab_size, "tokens")
        outputs, _ = self.recurrent(self.embedding(tokens))  # (B, T, H or 2H)
        return self.readout(outputs)  # (B, T, C)


@dataclass(frozen=True)
class RecurrentLMConfig:
    """The sizes of a ``RecurrentLM``; a checkpoint stores it as a dict (``dataclasses.asdict``)."""

    vocab_size: int
    hidden_size: int = 128
    kind: str = "lstm"
    embedding_dim: int = 32
    num_layers: int = 1
    nonlinearity: str = "tanh"

    def __post_init__(self):
        for name in ("vocab_size", "hidden_size", "embedding_dim", "num_layers"):
            _check_size(name, getattr(self, name))
        _check_choice("kind", self.kind, KINDS)
        _check_choice("nonlinearity", self.nonlinearity, NONLINEARITIES)


class RecurrentLM(nn.Module):
    """A recurrent language model: ŷ(t) = softmax(U h(t) + b), h(t) from an RNN, LSTM or GRU.

    ``forward(ids, state)`` with ids (B, T) returns next-token logits (B, T, V)
    and the recurrent state, so generation can continue from it. Its sizes are
    ``model.config``, a ``RecurrentLMConfig``.

    >>> model = RecurrentLM(vocab_size=5, hidden_size=8)
    >>> model.config.hidden_size, model(torch.zeros(2, 3, dtype=torch.long))[0].shape
    (8, torch.Size([2, 3, 5]))
    """

    def __init__(
        self,
        vocab_size: int,
        hidden_size: int = 128,
        kind: str = "lstm",
        embedding_dim: int = 32,
        num_layers: int = 1,
        nonlinearity: str = "tanh",
    ):
        super().__init__()
        self.config = RecurrentLMConfig(vocab_size, hidden_size, kind, embedding_dim, num_layers, nonlinearity)
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.recurrent = make_recurrent(kind, embedding_dim, hidden_size, nonlinearity, num_layers)
        self.head = nn.Linear(hidden_size, vocab_size)

    @classmethod
    def from_config(cls, config: RecurrentLMConfig) -> RecurrentLM:
        """A fresh model of the sizes in ``config`` (a ``RecurrentLMConfig`` or a dict of its fields)."""
        if isinstance(config, dict):
            unknown = set(config) - {f.name for f in fields(RecurrentLMConfig)}
            if unknown:
                raise ValueError(f"config has unknown fields {sorted(unknown)}; expected those of RecurrentLMConfig")
            config = RecurrentLMConfig(**config)
        if not isinstance(config, RecurrentLMConfig):
            raise TypeError(f"config must be a RecurrentLMConfig or a dict; got {type(config).__name__}")
        return cls(**asdict(config))

    def forward(self, ids: torch.Tensor, state=None):
        check_token_ids(ids, self.config.vocab_size)
        outputs, state = self.recurrent(self.embedding(ids), state)  # (B, T, H)
        return self.head(outputs), state  # (B, T, V)


def language_model_loss(logits: torch.Tensor, targets: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    """Cross-entropy of next-token ``logits`` (B, T, V) against ``targets`` (B, T).

    With teacher forcing the targets are the inputs shifted by one. ``reduction='sum'``
    gives the loss summed over time (and batch), ``'mean'`` the mean per token.
    """
    _check_choice("reduction", reduction, ("mean", "sum"))
    if logits.shape[:2] != targets.shape:
        raise ValueError(f"targets must have shape {tuple(logits.shape[:2])}; got {tuple(targets.shape)}")
    return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction=reduction)


def next_token_loss(model: nn.Module, windows: torch.Tensor) -> torch.Tensor:
    """The mean next-token loss of a language model on ``windows`` (B, T + 1) of token ids, with teacher forcing.

    The model reads ``windows[:, :-1]`` and is scored on predicting ``windows[:, 1:]``
    (notebooks 02 and 03 train with it).
    """
    if not isinstance(windows, torch.Tensor) or windows.dim() != 2 or windows.shape[1] < 2:
        got = tuple(windows.shape) if isinstance(windows, torch.Tensor) else type(windows).__name__
        raise ValueError(f"windows must have shape (batch, time + 1) with time + 1 >= 2; got {got}")
    logits, _ = model(windows[:, :-1])
    return language_model_loss(logits, windows[:, 1:])


@torch.no_grad()
def sample(
    model: RecurrentLM,
    prompt: list[int],
    length: int,
    temperature: float = 1.0,
    generator: Optional[torch.Generator] = None,
) -> list[int]:
    """``length`` new token ids drawn one at a time from softmax(logits / temperature)."""
    if not temperature > 0:
        raise ValueError(f"temperature must be positive; got {temperature!r}")
    if not prompt:
        raise ValueError("prompt must hold at least one token id; got an empty prompt")
    device = next(model.parameters()).device
    model.eval()
    logits, state = model(torch.tensor([prompt], device=device))
    out = []
    for _ in range(length):
        probs = torch.softmax(logits[0, -1].float() / temperature, dim=-1).cpu()
        token = int(torch.multinomial(probs, 1, generator=generator))
        out.append(token)
        logits, state = model(torch.tensor([[token]], device=device), state)
    return out


# --- backpropagation through time as a product of Jacobians ------------------
def scaled_orthogonal(size: int, radius: float, generator: Optional[torch.Generator] = None) -> torch.Tensor:
    """A random orthogonal matrix times ``radius``: every eigenvalue and singular value has modulus ``radius``."""
    if not radius > 0:
        raise ValueError(f"radius must be positive; got {radius!r}")
    q, r = torch.linalg.qr(torch.randn(size, size, generator=generator, dtype=torch.float64))
    return radius * q * torch.sign(torch.diagonal(r))  # sign fix makes Q uniformly distributed


def jacobian_norms(
    weight_hh: torch.Tensor, steps: int, nonlinearity: str = "tanh", input_scale: float = 1.0, seed: int = 0
) -> np.ndarray:
    """‖∂h(T)/∂h(T-k)‖₂ for k = 0..steps, for h(t) = act(W_hh h(t-1) + u(t)).

    The inputs u(t) are random, N(0, input_scale²), and everything runs in float64.
    ∂h(t)/∂h(t-1) = diag(act'(z(t))) W_hh, so ∂h(T)/∂h(T-k) is the product of the last
    k such Jacobians. ``nonlinearity='linear'`` drops act' and leaves ‖W_hh^k‖₂. Shape (steps+1,).
    """
    _check_choice("nonlinearity", nonlinearity, ("tanh", "relu", "linear"))
    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive integer; got {steps!r}")
    w = weight_hh.detach().to(torch.float64)
    size = w.shape[0]
    generator = torch.Generator().manual_seed(seed)
    h = torch.zeros(size, dtype=torch.float64)
    local = []  # diag(act'(z(t))) W_hh for t = 1..steps
    for _ in range(steps):
        z = w @ h + input_scale * torch.randn(size, generator=generator, dtype=torch.float64)
        if nonlinearity == "tanh":
            h, slope = torch.tanh(z), 1 - torch.tanh(z) ** 2
        elif nonlinearity == "relu":
            h, slope = torch.relu(z), (z > 0).to(torch.float64)
        else:
            h, slope = z, torch.ones_like(z)
        local.append(slope[:, None] * w)
    product = torch.eye(size, dtype=torch.float64)
    norms = [1.0]
    for jacobian in reversed(local):  # ∂h(T)/∂h(T-k) = J(T) J(T-1) ... J(T-k+1)
        product = product @ jacobian
        norms.append(torch.linalg.matrix_norm(product, ord=2).item())
    return np.array(norms)
