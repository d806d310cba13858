"""A vanilla recurrent network, written as a loop, and the models built on it.

``RNNCell`` computes one step, h(t) = act(W_ih x(t) + b_ih + W_hh h(t-1) + b_hh),
with the same parameter names and shapes as ``torch.nn.RNN`` so that weights
copy across; ``UnrolledRNN`` runs it over a sequence and returns every hidden
state. ``RecurrentLM`` and ``RecurrentClassifier`` wrap PyTorch's fast
``nn.RNN`` / ``nn.LSTM`` / ``nn.GRU`` (the fast path) for training.
``jacobian_norms`` measures backpropagation through time as a product of
Jacobians. Taught in notebook 03; the LSTM and GRU cells are in ``dl4nlp.lstm``.

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

from dl4nlp._checks import (
    check_bool,
    check_choice,
    check_ids,
    check_ids_list,
    check_int,
    check_not_probabilities,
    check_number,
    check_same_dtype,
    check_tensor,
    check_type,
    given,
)

NONLINEARITIES = {"tanh": torch.tanh, "relu": torch.relu}
KINDS = ("rnn", "lstm", "gru")


def _torch_weights(module: nn.Module, layer: int, reverse: bool, kind: type) -> dict[str, torch.Tensor]:
    """The four parameters of one layer (and direction) of a torch ``nn.RNN``/``nn.LSTM``/``nn.GRU``."""
    check_type("module", module, kind, f"a torch.nn.{kind.__name__}")
    check_int("layer", layer, low=0, high=module.num_layers - 1)
    check_bool("reverse", reverse)
    if reverse and not module.bidirectional:
        raise ValueError("reverse=True needs a bidirectional module; got bidirectional=False")
    if not module.bias:
        raise ValueError("module must have biases (bias=True), as the cells do; got bias=False")
    if getattr(module, "proj_size", 0):
        raise ValueError(f"module must have no projection (proj_size=0); got proj_size={module.proj_size}")
    suffix = f"_l{layer}" + ("_reverse" if reverse else "")
    names = ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]
    return {name: getattr(module, name + suffix).detach().clone() for name in names}


def load_weights_(target: nn.Module, weights: dict[str, torch.Tensor]) -> nn.Module:
    """Copy ``weights`` (name -> tensor) into the parameters of ``target`` of the same names and shapes."""
    check_type("target", target, nn.Module, "a torch.nn.Module")
    check_type("weights", weights, dict, "a dict from parameter name to tensor")
    params = dict(target.named_parameters())
    for name, value in weights.items():
        if name not in params:
            raise ValueError(f"weights holds {name!r}, which is not a parameter of the target; its: {sorted(params)}")
        check_tensor(f"weights[{name!r}]", value, dtype="float", finite=True)
        if params[name].shape != value.shape:
            raise ValueError(f"weights[{name!r}] must have shape {tuple(params[name].shape)}; got {tuple(value.shape)}")
    with torch.no_grad():
        for name, value in weights.items():
            params[name].copy_(value)
    return target


def _copy_of_torch(cls, module: nn.Module, weights: dict[str, torch.Tensor], *args) -> nn.Module:
    """``cls(*args)`` with the dtype and device of ``weights`` and the weights copied in."""
    weight = weights["weight_ih"]
    model = cls(*args).to(weight.device, weight.dtype)
    load_weights_(model.cell, weights)
    return model


def _check_step(cell: nn.Module, x: torch.Tensor, h: torch.Tensor, h_name: str = "h") -> None:
    """x (B, I) and a state (B, H) of the cell's dtype, finite, one state per sequence."""
    check_tensor("x", x, shape=("B", cell.input_size), dtype="float", finite=True)
    check_same_dtype("x", x, cell)
    _check_state(h_name, h, x.shape[0], cell.hidden_size, cell)


def _check_state(name: str, h: torch.Tensor, batch: int, hidden: int, module: nn.Module) -> None:
    check_tensor(name, h, shape=("B", hidden), dtype="float", finite=True)
    if h.shape[0] != batch:
        raise ValueError(f"{name} must have shape (B={batch}, {hidden}), one state per sequence; got {tuple(h.shape)}")
    check_same_dtype(name, h, module)


def _check_sequence(module: nn.Module, x: torch.Tensor, input_size: int, name: str = "x") -> None:
    """x (B, T, I) with T >= 1, finite, of the module's dtype."""
    check_tensor(name, x, shape=("B", "T", input_size), dtype="float", finite=True)
    check_same_dtype(name, x, module)


class RNNCell(nn.Module):
    """One step of a vanilla RNN: h' = act(W_ih x + b_ih + W_hh h + b_hh); act is tanh or relu.

    Parameters are initialised like PyTorch's, uniformly in ±1/sqrt(hidden_size).
    """

    def __init__(self, input_size: int, hidden_size: int, nonlinearity: str = "tanh"):
        super().__init__()
        check_int("input_size", input_size)
        check_int("hidden_size", hidden_size)
        check_choice("nonlinearity", nonlinearity, NONLINEARITIES)
        self.input_size, self.hidden_size, self.nonlinearity = input_size, hidden_size, nonlinearity
        bound = 1 / math.sqrt(hidden_size)
        self.weight_ih = nn.Parameter(torch.empty(hidden_size, input_size).uniform_(-bound, bound))  # (H, I)
        self.weight_hh = nn.Parameter(torch.empty(hidden_size, hidden_size).uniform_(-bound, bound))  # (H, H)
        self.bias_ih = nn.Parameter(torch.empty(hidden_size).uniform_(-bound, bound))  # (H,)
        self.bias_hh = nn.Parameter(torch.empty(hidden_size).uniform_(-bound, bound))  # (H,)

    def pre_activation(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """z = W_ih x + b_ih + W_hh h + b_hh for a batch: x (B, I), h (B, H) -> (B, H)."""
        _check_step(self, x, h)
        return self._pre_activation(x, h)

    def _pre_activation(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        return x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh

    def _step(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:  # unchecked: (B, I), (B, H) -> (B, H)
        return NONLINEARITIES[self.nonlinearity](self._pre_activation(x, h))

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:  # (B, I), (B, H) -> (B, H)
        _check_step(self, x, h)
        return self._step(x, h)


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
        """A copy of one layer (and direction) of a ``torch.nn.RNN``: weights, dtype and device included."""
        weights = _torch_weights(module, layer, reverse, nn.RNN)
        hidden, inputs = weights["weight_ih"].shape
        return _copy_of_torch(cls, module, weights, inputs, hidden, module.nonlinearity)

    def forward(self, x: torch.Tensor, h0: Optional[torch.Tensor] = None) -> tuple[torch.Tensor, torch.Tensor]:
        _check_sequence(self, x, self.cell.input_size)
        if h0 is not None:
            _check_state("h0", h0, x.shape[0], self.cell.hidden_size, self)
        h = x.new_zeros(x.shape[0], self.cell.hidden_size) if h0 is None else h0  # (B, H)
        outputs = []
        for t in range(x.shape[1]):
            h = self.cell._step(x[:, t], h)  # (B, H)
            outputs.append(h)
        return torch.stack(outputs, dim=1), h  # (B, T, H), (B, H)


def make_recurrent(
    kind: str,
    input_size: int,
    hidden_size: int,
    nonlinearity: str = "tanh",
    num_layers: int = 1,
    bidirectional: bool = False,
) -> nn.Module:
    """PyTorch's fast recurrent module of the given ``kind`` ('rnn', 'lstm' or 'gru'), batch first.

    ``nonlinearity`` ('tanh' or 'relu') applies to ``kind='rnn'`` only.

    >>> make_recurrent("gru", 3, 4, num_layers=2)
    GRU(3, 4, num_layers=2, batch_first=True)
    """
    check_choice("kind", kind, KINDS)
    check_choice("nonlinearity", nonlinearity, NONLINEARITIES)
    if kind != "rnn" and nonlinearity != "tanh":
        raise ValueError(f"nonlinearity applies to kind='rnn' only; got kind={kind!r}, nonlinearity={nonlinearity!r}")
    for name, value in [("input_size", input_size), ("hidden_size", hidden_size), ("num_layers", num_layers)]:
        check_int(name, value)
    check_bool("bidirectional", bidirectional)
    options = dict(num_layers=num_layers, batch_first=True, bidirectional=bidirectional)
    if kind == "rnn":
        return nn.RNN(input_size, hidden_size, nonlinearity=nonlinearity, **options)
    return (nn.LSTM if kind == "lstm" else nn.GRU)(input_size, hidden_size, **options)


def check_token_ids(ids, vocab_size: int, name: str = "ids") -> None:
    """Raise unless ``ids`` is a (B, T) integer tensor with B, T >= 1 and every id in [0, vocab_size)."""
    check_int("vocab_size", vocab_size)
    check_ids(name, ids, vocab_size, shape=("B", "T"))


def identity_init_(module: nn.RNN) -> nn.RNN:
    """IRNN initialisation (Le, Jaitly & Hinton, 2015): W_hh = I, biases 0; use with ReLU.

    Every layer and, in a bidirectional RNN, both directions are initialised.
    """
    check_type("module", module, nn.RNN, "a torch.nn.RNN")
    if not module.bias:
        raise ValueError("module must have biases (bias=True) to set them to 0; got bias=False")
    with torch.no_grad():
        for layer in range(module.num_layers):
            for suffix in ("", "_reverse") if module.bidirectional else ("",):  # every layer, both directions
                getattr(module, f"weight_hh_l{layer}{suffix}").copy_(torch.eye(module.hidden_size))
                getattr(module, f"bias_hh_l{layer}{suffix}").zero_()
                getattr(module, f"bias_ih_l{layer}{suffix}").zero_()
                getattr(module, f"weight_ih_l{layer}{suffix}").normal_(0.0, 0.1)
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
            check_int(name, value)
        self.vocab_size = vocab_size
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.recurrent = make_recurrent(kind, embedding_dim, hidden_size, nonlinearity)
        self.readout = nn.Linear(hidden_size, num_classes)

    def forward(self, tokens: torch.Tensor, embedded: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Logits (B, C); pass ``embedded`` (B, T, E) instead of tokens to differentiate with respect to it."""
        if embedded is None:
            check_ids("tokens", tokens, self.vocab_size, shape=("B", "T"))
        else:
            _check_sequence(self, embedded, self.embedding.embedding_dim, "embedded")
        x = self.embedding(tokens) if embedded is None else embedded  # (B, T, E)
        outputs, _ = self.recurrent(x)  # (B, T, H)
        return self.readout(outputs[:, -1])  # (B, C)


class RecurrentTagger(nn.Module):
    """Tokens -> embedding -> (stacked, optionally bidirectional) recurrent layers -> logits at every position.

    ``forward(tokens)`` with tokens (B, T) returns logits (B, T, C). With
    ``bidirectional=True`` the read-out at position t sees the forward state
    (tokens 1..t) and the backward state (tokens t..T) side by side. Notebook 05.

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
            check_int(name, value)
        check_bool("bidirectional", bidirectional)
        self.vocab_size = vocab_size
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.recurrent = make_recurrent(
            kind, embedding_dim, hidden_size, num_layers=num_layers, bidirectional=bidirectional
        )
        self.readout = nn.Linear(hidden_size * (2 if bidirectional else 1), num_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        check_ids("tokens", tokens, self.vocab_size, shape=("B", "T"))
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
            check_int(name, getattr(self, name))
        check_choice("kind", self.kind, KINDS)
        check_choice("nonlinearity", self.nonlinearity, NONLINEARITIES)


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
            try:
                config = RecurrentLMConfig(**config)
            except (TypeError, ValueError) as error:
                raise type(error)(f"config holds a bad field: {error}") from None
        if not isinstance(config, RecurrentLMConfig):
            raise TypeError(f"config must be a RecurrentLMConfig or a dict; got {type(config).__name__}")
        return cls(**asdict(config))

    def forward(self, ids: torch.Tensor, state=None):
        check_ids("ids", ids, self.config.vocab_size, shape=("B", "T"))
        if state is not None:
            self._check_state(state, ids.shape[0])
        outputs, state = self.recurrent(self.embedding(ids), state)  # (B, T, H)
        return self.head(outputs), state  # (B, T, V)

    def _check_state(self, state, batch: int) -> None:
        """The state the recurrent layer returned: h (L, B, H), or (h, c) for an LSTM."""
        L, H = self.config.num_layers, self.config.hidden_size
        if self.config.kind == "lstm":
            if not isinstance(state, (tuple, list)) or len(state) != 2:
                raise TypeError(f"state must be a pair (h, c) of ({L}, B, {H}) tensors for an LSTM; got {given(state)}")
            parts = {"state h": state[0], "state c": state[1]}
        else:
            parts = {"state": state}
        for name, h in parts.items():
            check_tensor(name, h, shape=(L, "B", H), dtype="float", finite=True)
            if h.shape[1] != batch:
                raise ValueError(f"{name} must have shape ({L}, B={batch}, {H}); got {tuple(h.shape)}")


def language_model_loss(logits: torch.Tensor, targets: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    """Cross-entropy of next-token ``logits`` (B, T, V) against ``targets`` (B, T).

    With teacher forcing the targets are the inputs shifted by one. ``reduction='sum'``
    gives the loss summed over time (and batch), ``'mean'`` the mean per token.
    """
    check_choice("reduction", reduction, ("mean", "sum"))
    check_tensor("logits", logits, shape=("B", "T", "V"), dtype="float", finite=True)
    check_not_probabilities("logits", logits)
    check_ids("targets", targets, logits.shape[-1], shape=tuple(logits.shape[:2]))
    return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction=reduction)


def next_token_loss(model: nn.Module, windows: torch.Tensor) -> torch.Tensor:
    """The mean next-token loss of a language model on ``windows`` (B, T + 1) of token ids, with teacher forcing.

    The model reads ``windows[:, :-1]`` and is scored on predicting ``windows[:, 1:]``
    (notebooks 03 and 05 train with it).
    """
    check_type("model", model, nn.Module, "a language model, ids (B, T) -> (logits (B, T, V), state)")
    if not isinstance(windows, torch.Tensor) or windows.dim() != 2 or windows.shape[1] < 2:
        got = tuple(windows.shape) if isinstance(windows, torch.Tensor) else type(windows).__name__
        raise ValueError(f"windows must have shape (batch, time + 1) with time + 1 >= 2; got {got}")
    embedding = getattr(model, "embedding", None)
    vocab = embedding.num_embeddings if isinstance(embedding, nn.Embedding) else None
    check_ids("windows", windows, vocab)
    windows = windows.to(next(model.parameters(), windows).device)  # the model's device (a GPU, maybe)
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
    check_type("model", model, RecurrentLM, "a RecurrentLM")
    prompt = check_ids_list("prompt", prompt, model.config.vocab_size)
    check_int("length", length, low=0)
    check_number("temperature", temperature, 0.0, low_open=True)
    if generator is not None:
        check_type("generator", generator, torch.Generator, "a torch.Generator or None")
    device = next(model.parameters()).device
    model.eval()
    logits, state = model(torch.tensor([prompt], device=device))
    out = []
    for _ in range(length):
        last = logits[0, -1].float()
        scaled = last / temperature
        if bool(torch.isinf(scaled).any()):  # a tiny temperature overflowed (inf - inf = NaN): the max first
            scaled = (last - last.max()) / temperature
        probs = torch.softmax(scaled, dim=-1).cpu()
        token = int(torch.multinomial(probs, 1, generator=generator))
        out.append(token)
        logits, state = model(torch.tensor([[token]], device=device), state)
    return out


# --- backpropagation through time as a product of Jacobians ------------------
def scaled_orthogonal(size: int, radius: float, generator: Optional[torch.Generator] = None) -> torch.Tensor:
    """A random orthogonal matrix times ``radius``: every eigenvalue and singular value has modulus ``radius``."""
    check_int("size", size)
    check_number("radius", radius, 0.0, low_open=True)
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
    check_choice("nonlinearity", nonlinearity, ("tanh", "relu", "linear"))
    check_int("steps", steps)
    check_tensor("weight_hh", weight_hh, shape=("H", "H"), dtype="float", finite=True)
    if weight_hh.shape[0] != weight_hh.shape[1]:
        raise ValueError(f"weight_hh must be square, (H, H); got {tuple(weight_hh.shape)}")
    check_number("input_scale", input_scale, 0.0)
    check_int("seed", seed, low=0)
    w = weight_hh.detach().cpu().to(torch.float64)  # on the CPU: a GPU's weights too (and MPS has no float64)
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
