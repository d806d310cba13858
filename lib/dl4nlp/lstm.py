"""LSTM and GRU cells written out gate by gate, checked against PyTorch's modules.

``LSTMCell`` computes, from gate pre-activations W_ih x + b_ih + W_hh h + b_hh
split in PyTorch's order (input, forget, candidate, output):

    C(t) = f ⊙ C(t-1) + i ⊙ C̃(t),    h(t) = o ⊙ tanh(C(t)),

and returns every gate by name. ``UnrolledLSTM`` runs it over a sequence and
records the gates and cell states at every step; ``UnrolledLSTM.from_torch``
copies one layer (and direction) of a ``torch.nn.LSTM``. ``GRUCell`` and
``UnrolledGRU`` do the same for the GRU. Taught in notebook 04.

``load_char_model`` loads the character-level LSTM language model that
notebook 05 inspects (trained by ``python -m dl4nlp.recipes.char_lstm``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import NamedTuple, Optional, Sequence

import torch
from torch import nn

from dl4nlp._checks import (
    check_bool,
    check_device,
    check_number,
    check_same_dtype,
    check_strings,
    check_tensor,
    check_type,
    given,
    measures_in_eval_mode,
)
from dl4nlp.checkpoint import load_checkpoint
from dl4nlp.rnn import RecurrentLM, _check_sequence, _check_state, _torch_weights, load_weights_
from dl4nlp.vocab import CharVocab

LSTM_GATES = ("input", "forget", "candidate", "output")  # PyTorch's order of the four row blocks
GRU_GATES = ("reset", "update", "candidate")
LSTM_VARIANTS = ("standard", "peephole", "coupled")


def _check_sizes(**sizes: int) -> None:
    for name, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")


def _shape(value) -> str:
    return str(tuple(value.shape)) if isinstance(value, torch.Tensor) else type(value).__name__


class _GatedCell(nn.Module):
    """Parameters shared by the LSTM and GRU cells, named and shaped like PyTorch's."""

    n_blocks = 1

    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        _check_sizes(input_size=input_size, hidden_size=hidden_size)
        self.input_size, self.hidden_size = input_size, hidden_size
        rows, bound = self.n_blocks * hidden_size, 1 / math.sqrt(hidden_size)
        self.weight_ih = nn.Parameter(torch.empty(rows, input_size).uniform_(-bound, bound))  # (nH, I)
        self.weight_hh = nn.Parameter(torch.empty(rows, hidden_size).uniform_(-bound, bound))  # (nH, H)
        self.bias_ih = nn.Parameter(torch.empty(rows).uniform_(-bound, bound))  # (nH,)
        self.bias_hh = nn.Parameter(torch.empty(rows).uniform_(-bound, bound))  # (nH,)

    def _check(self, x: torch.Tensor, *states: tuple[str, torch.Tensor]) -> None:
        """x must be (B, I), finite, of the cell's dtype; each named state (B, H) likewise, with the same B."""
        check_tensor("x", x, shape=("B", self.input_size), dtype="float", finite=True)
        check_same_dtype("x", x, self)
        for name, state in states:
            _check_state(name, state, x.shape[0], self.hidden_size, self)


class LSTMStep(NamedTuple):
    h: torch.Tensor  # (B, H)
    c: torch.Tensor  # (B, H)
    gates: dict  # name -> (B, H)


def _split_state(state, hidden: int) -> tuple[torch.Tensor, torch.Tensor]:
    if not isinstance(state, (tuple, list)):
        raise TypeError(f"state must be a pair (h, c) of (B, {hidden}) tensors; got {given(state)}")
    if len(state) != 2:
        raise ValueError(f"state must be a pair (h, c) of (B, {hidden}) tensors; got {len(state)} tensors")
    return state[0], state[1]


class LSTMCell(_GatedCell):
    """One LSTM step; ``forward(x, (h, c))`` returns ``LSTMStep(h, c, gates)``.

    >>> step = LSTMCell(2, 3)(torch.zeros(1, 2), (torch.zeros(1, 3), torch.zeros(1, 3)))
    >>> sorted(step.gates), tuple(step.c.shape)
    (['candidate', 'forget', 'input', 'output'], (1, 3))
    """

    n_blocks = 4

    def pre_activations(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """z = W_ih x + b_ih + W_hh h + b_hh, (B, nH): the gates before their non-linearities."""
        self._check(x, ("h", h))
        return self._pre_activations(x, h)

    def _pre_activations(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:  # unchecked
        return x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh

    def forward(self, x: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]) -> LSTMStep:
        h, c = _split_state(state, self.hidden_size)  # (B, H) each
        self._check(x, ("state h", h), ("state c", c))
        z_i, z_f, z_g, z_o = self._pre_activations(x, h).chunk(4, dim=1)  # (B, H) each
        i = torch.sigmoid(z_i)  # input gate: how much of the candidate to write
        f = torch.sigmoid(z_f)  # forget gate: how much of the old cell to keep
        g = torch.tanh(z_g)  # candidate C̃(t)
        o = torch.sigmoid(z_o)  # output gate: how much of the cell to show
        c = f * c + i * g
        h = o * torch.tanh(c)
        return LSTMStep(h, c, {"input": i, "forget": f, "candidate": g, "output": o})


class PeepholeLSTMCell(LSTMCell):
    """An LSTM step whose gates also see the cell (Gers & Schmidhuber, 2000: "peephole connections").

    i = σ(z_i + p_i ⊙ C(t-1)), f = σ(z_f + p_f ⊙ C(t-1)), then C(t) as usual, and
    o = σ(z_o + p_o ⊙ C(t)): the input and forget gates peek at the old cell, the
    output gate at the new one. ``weight_peephole`` (3, H) holds p_i, p_f, p_o as
    rows; it starts at zero, where the cell is exactly the standard LSTM.
    """

    def __init__(self, input_size: int, hidden_size: int):
        super().__init__(input_size, hidden_size)
        self.weight_peephole = nn.Parameter(torch.zeros(3, hidden_size))  # (3, H): p_i, p_f, p_o

    def forward(self, x: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]) -> LSTMStep:
        h, c = _split_state(state, self.hidden_size)
        self._check(x, ("state h", h), ("state c", c))
        z_i, z_f, z_g, z_o = self._pre_activations(x, h).chunk(4, dim=1)
        p_i, p_f, p_o = self.weight_peephole  # (H,) each
        i = torch.sigmoid(z_i + p_i * c)
        f = torch.sigmoid(z_f + p_f * c)
        g = torch.tanh(z_g)
        c = f * c + i * g
        o = torch.sigmoid(z_o + p_o * c)  # the output gate sees the new cell
        h = o * torch.tanh(c)
        return LSTMStep(h, c, {"input": i, "forget": f, "candidate": g, "output": o})


class CoupledLSTMCell(LSTMCell):
    """An LSTM step with the input gate tied to the forget gate, i = 1 - f (the CIFG of Greff et al., 2017).

    Whatever fraction of the old memory is forgotten is refilled from the candidate:
    C(t) = f ⊙ C(t-1) + (1 - f) ⊙ C̃(t). Three weight blocks (forget, candidate,
    output) instead of four, so a quarter fewer recurrent parameters.
    """

    n_blocks = 3

    def forward(self, x: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]) -> LSTMStep:
        h, c = _split_state(state, self.hidden_size)
        self._check(x, ("state h", h), ("state c", c))
        z_f, z_g, z_o = self._pre_activations(x, h).chunk(3, dim=1)
        f, g, o = torch.sigmoid(z_f), torch.tanh(z_g), torch.sigmoid(z_o)
        i = 1 - f  # coupled: write exactly as much as is forgotten
        c = f * c + i * g
        h = o * torch.tanh(c)
        return LSTMStep(h, c, {"input": i, "forget": f, "candidate": g, "output": o})


class GRUCell(_GatedCell):
    """One GRU step; ``forward(x, h)`` returns ``(h, gates)``.

    r = σ(W_ir x + b_ir + W_hr h + b_hr), z = σ(W_iz x + b_iz + W_hz h + b_hz), h' = (1 - z) ⊙ n + z ⊙ h, with the
    candidate n in one of two forms:

    - ``reset_after=True`` (PyTorch's ``nn.GRU``, cuDNN): n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)),
      the reset gate scales the recurrent term *after* the matrix product;
    - ``reset_after=False`` (Cho et al., 2014): n = tanh(W_in x + b_in + W_hn (r ⊙ h) + b_hn),
      the reset gate scales h *before* the matrix product.

    With the same weights the two compute different functions (notebook 04 shows how much).
    """

    n_blocks = 3

    def __init__(self, input_size: int, hidden_size: int, reset_after: bool = True):
        super().__init__(input_size, hidden_size)
        if not isinstance(reset_after, bool):
            raise TypeError(f"reset_after must be a bool; got {reset_after!r}")
        self.reset_after = reset_after

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}, reset_after={self.reset_after}"

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, dict]:
        self._check(x, ("h", h))
        x_r, x_z, x_n = (x @ self.weight_ih.T + self.bias_ih).chunk(3, dim=1)  # (B, H) each
        w_r, w_z, w_n = self.weight_hh.chunk(3, dim=0)  # (H, H) each
        b_r, b_z, b_n = self.bias_hh.chunk(3)  # (H,) each
        r = torch.sigmoid(x_r + h @ w_r.T + b_r)  # reset gate: how much of h the candidate may see
        z = torch.sigmoid(x_z + h @ w_z.T + b_z)  # update gate: how much of the old h to keep
        if self.reset_after:
            n = torch.tanh(x_n + r * (h @ w_n.T + b_n))  # PyTorch: reset the product
        else:
            n = torch.tanh(x_n + (r * h) @ w_n.T + b_n)  # Cho et al.: reset the state, then multiply
        return (1 - z) * n + z * h, {"reset": r, "update": z, "candidate": n}


class _Unrolled(nn.Module):
    torch_class: type = nn.LSTM

    def _check(self, x: torch.Tensor) -> None:
        _check_sequence(self, x, self.cell.input_size)  # (B, T, I), finite, the module's dtype

    @classmethod
    def _torch_weights(cls, module: nn.Module, layer: int, reverse: bool) -> dict:
        weights = _torch_weights(module, layer, reverse, cls.torch_class)
        if "bias_ih" not in weights:
            raise ValueError("the torch module must have bias=True; got bias=False")
        return weights


class UnrolledLSTM(_Unrolled):
    """An LSTM as an explicit loop over time (batch first), recording every gate.

    ``forward(x, state)`` with x (B, T, I) returns ``(outputs, (h_T, c_T), trace)``:
    outputs (B, T, H) as ``nn.LSTM(batch_first=True)`` gives them, and ``trace``
    mapping each gate name and ``'cell'`` to a (B, T, H) tensor. ``variant``
    picks the cell: ``'standard'`` (``LSTMCell``), ``'peephole'`` or ``'coupled'``.

    >>> outputs, (h, c), trace = UnrolledLSTM(3, 4)(torch.zeros(2, 5, 3))
    >>> tuple(outputs.shape), sorted(trace)
    ((2, 5, 4), ['candidate', 'cell', 'forget', 'input', 'output'])
    """

    def __init__(self, input_size: int, hidden_size: int, variant: str = "standard"):
        super().__init__()
        if variant not in LSTM_VARIANTS:
            raise ValueError(f"variant must be one of {LSTM_VARIANTS}; got {variant!r}")
        cell_class = {"standard": LSTMCell, "peephole": PeepholeLSTMCell, "coupled": CoupledLSTMCell}[variant]
        self.variant = variant
        self.cell = cell_class(input_size, hidden_size)

    @classmethod
    def from_torch(cls, module: nn.LSTM, layer: int = 0, reverse: bool = False) -> UnrolledLSTM:
        """A copy of one layer (``reverse=True``: the backward direction) of an ``nn.LSTM``: weights, dtype, device."""
        weights = cls._torch_weights(module, layer, reverse)
        like = weights["weight_ih"]
        model = cls(like.shape[1], module.hidden_size).to(device=like.device, dtype=like.dtype)
        load_weights_(model.cell, weights)
        return model

    def forward(self, x: torch.Tensor, state: Optional[tuple[torch.Tensor, torch.Tensor]] = None):
        self._check(x)
        zeros = x.new_zeros(x.shape[0], self.cell.hidden_size)  # (B, H)
        h, c = (zeros, zeros) if state is None else _split_state(state, self.cell.hidden_size)
        outputs, record = [], {name: [] for name in LSTM_GATES + ("cell",)}
        for t in range(x.shape[1]):
            h, c, gates = self.cell(x[:, t], (h, c))
            outputs.append(h)
            for name, value in {**gates, "cell": c}.items():
                record[name].append(value)
        trace = {name: torch.stack(values, dim=1) for name, values in record.items()}  # (B, T, H) each
        return torch.stack(outputs, dim=1), (h, c), trace


class UnrolledGRU(_Unrolled):
    """A GRU as an explicit loop over time; ``forward(x, h)`` returns ``(outputs, h_T, trace)``.

    ``reset_after`` picks the candidate's form (see ``GRUCell``); ``True`` is PyTorch's.
    """

    torch_class = nn.GRU

    def __init__(self, input_size: int, hidden_size: int, reset_after: bool = True):
        super().__init__()
        self.cell = GRUCell(input_size, hidden_size, reset_after)

    @classmethod
    def from_torch(cls, module: nn.GRU, layer: int = 0, reverse: bool = False, reset_after: bool = True):
        """A copy of one layer of an ``nn.GRU``: weights, dtype and device. ``reset_after=False`` puts the
        same weights into Cho et al.'s form of the cell, a different function (no longer a copy)."""
        weights = cls._torch_weights(module, layer, reverse)
        like = weights["weight_ih"]
        model = cls(like.shape[1], module.hidden_size, reset_after).to(device=like.device, dtype=like.dtype)
        load_weights_(model.cell, weights)
        return model

    def forward(self, x: torch.Tensor, h: Optional[torch.Tensor] = None):
        self._check(x)
        h = x.new_zeros(x.shape[0], self.cell.hidden_size) if h is None else h  # (B, H)
        outputs, record = [], {name: [] for name in GRU_GATES}
        for t in range(x.shape[1]):
            h, gates = self.cell(x[:, t], h)
            outputs.append(h)
            for name, value in gates.items():
                record[name].append(value)
        return torch.stack(outputs, dim=1), h, {n: torch.stack(v, dim=1) for n, v in record.items()}


def lstm_trace(module: nn.LSTM, x: torch.Tensor, cells: Optional[Sequence[int]] = None) -> tuple[torch.Tensor, dict]:
    """The fast path to ``UnrolledLSTM.from_torch(module)(x)``'s outputs and trace, for long sequences.

    ``nn.LSTM`` computes every hidden state at C speed; the gates then follow from
    h(t-1) and x(t) in one batched product, and the cell states from the
    element-wise recurrence C(t) = f ⊙ C(t-1) + i ⊙ C̃. A one-layer, one-direction
    ``module`` with ``batch_first=True``; x (B, T, I). Returns ``(outputs, trace)``:
    outputs (B, T, H) and each trace entry (B, T, H), or (B, T, len(cells)) for
    only the cells listed in ``cells`` (much cheaper when a few are wanted).
    """
    check_type("module", module, nn.LSTM, "a torch.nn.LSTM")
    if module.num_layers != 1 or module.bidirectional or not module.batch_first or module.proj_size:
        raise ValueError(f"module must be a one-layer, one-direction nn.LSTM with batch_first=True; got {module}")
    check_tensor("x", x, shape=("B", "T", module.input_size), dtype="float", finite=True)
    check_same_dtype("x", x, module)
    hidden = module.hidden_size
    cells = list(range(hidden)) if cells is None else [int(j) for j in cells]
    if not cells or not all(0 <= j < hidden for j in cells):
        raise ValueError(f"cells must be a non-empty list of indices in [0, {hidden}); got {cells}")
    rows = [block * hidden + j for block in range(4) for j in cells]  # the cells' rows in each gate block
    weights = {name: value[rows] for name, value in UnrolledLSTM._torch_weights(module, 0, False).items()}
    with torch.no_grad():
        outputs, _ = module(x)  # (B, T, H)
        previous = torch.cat([torch.zeros_like(outputs[:, :1]), outputs[:, :-1]], dim=1)  # h(t-1), (B, T, H)
        z = x @ weights["weight_ih"].T + weights["bias_ih"] + previous @ weights["weight_hh"].T + weights["bias_hh"]
        z_i, z_f, z_g, z_o = z.chunk(4, dim=-1)  # (B, T, H) each
        i, f, g, o = torch.sigmoid(z_i), torch.sigmoid(z_f), torch.tanh(z_g), torch.sigmoid(z_o)
        written = i * g
        cells = torch.empty_like(written)
        c = torch.zeros_like(written[:, 0])
        for t in range(x.shape[1]):  # element-wise only: cheap even for long texts
            c = f[:, t] * c + written[:, t]
            cells[:, t] = c
    return outputs, {"input": i, "forget": f, "candidate": g, "output": o, "cell": cells}


def _set_second_block_bias_(module: nn.Module, kind: type, value: float) -> nn.Module:
    """b_ih's second gate block = value and b_hh's = 0, in every layer and direction of ``module``."""
    check_type("module", module, kind, f"a torch.nn.{kind.__name__}")
    if not module.bias:
        raise ValueError("module must have biases (bias=True) to set its gate biases; got bias=False")
    value = check_number("value", value)
    hidden = module.hidden_size
    with torch.no_grad():
        for name, param in module.named_parameters():
            if name.startswith("bias_"):
                param[hidden : 2 * hidden] = value if name.startswith("bias_ih") else 0.0
    return module


def set_forget_bias_(module: nn.LSTM, value: float) -> nn.LSTM:
    """Start every forget gate at σ(value): b_ih's forget block = value, b_hh's = 0 (all layers, directions).

    A positive value (Gers et al., 2000; Jozefowicz et al., 2015 use 1) makes a
    fresh LSTM remember by default, so gradients reach far back from the start.
    """
    return _set_second_block_bias_(module, nn.LSTM, value)  # blocks: input, forget, candidate, output


def set_update_bias_(module: nn.GRU, value: float) -> nn.GRU:
    """Start every GRU update gate at σ(value), so a fresh GRU copies h forward by default (notebook 04).

    The GRU's counterpart of ``set_forget_bias_``: b_ih's update block = value, b_hh's = 0.
    """
    return _set_second_block_bias_(module, nn.GRU, value)  # blocks: reset, update, new


# --- the character-level LSTM of notebook 05 ---------------------------------
CHAR_LSTM_KIND = "char_lstm"  # the checkpoint kind written by dl4nlp.recipes.char_lstm


def load_char_model(path: str | Path, *, reverse: bool = False, map_location: str | torch.device = "cpu"):
    """The ``(RecurrentLM, CharVocab)`` that ``python -m dl4nlp.recipes.char_lstm`` wrote to ``path``.

    The checkpoint's SHA-256 is verified against its provenance and it is loaded
    with ``weights_only=True`` (``dl4nlp.checkpoint.load_checkpoint``). Weights
    stored in float16 are returned in float32. ``reverse=True`` expects the
    backward (right-to-left) model; asking for one direction and finding the
    other is an error. The model is returned in eval mode.
    """
    check_device("map_location", map_location, available=True)
    check_bool("reverse", reverse)
    checkpoint = load_checkpoint(path, kind=CHAR_LSTM_KIND, map_location=map_location)
    missing = {"vocab", "reverse"} - set(checkpoint.extra)
    if missing:
        raise ValueError(f"{path} is a char_lstm checkpoint without {sorted(missing)} in its extras")
    if checkpoint.extra["reverse"] != reverse:
        direction = "backward" if checkpoint.extra["reverse"] else "forward"
        raise ValueError(f"{path} holds the {direction} language model; expected reverse={reverse}")
    model = RecurrentLM.from_config(checkpoint.config)
    model.load_state_dict({k: v.float() for k, v in checkpoint.state_dict.items()})
    return model.to(map_location).eval(), CharVocab(checkpoint.extra["vocab"])


@torch.no_grad()
@measures_in_eval_mode
def final_states(model: RecurrentLM, vocab: CharVocab, texts: Sequence[str]) -> torch.Tensor:
    """The last hidden state of ``model`` after reading each text from a fresh state, (N, H).

    Texts of the same length are read as one batch. For a backward model pass the
    texts reversed. Notebook 05 builds ELMo-style word vectors from these. The
    model runs on its own device; the states come back on the CPU.
    """
    check_type("model", model, RecurrentLM, "a dl4nlp.rnn.RecurrentLM")
    check_type("vocab", vocab, CharVocab, "a dl4nlp.vocab.CharVocab")
    if len(vocab) != model.config.vocab_size:
        raise ValueError(
            f"vocab must be the model's, of vocab_size={model.config.vocab_size} characters; got a vocabulary of "
            f"{len(vocab)} characters (from another corpus or model?)"
        )
    texts = check_strings("texts", texts)
    if not all(texts):
        raise ValueError(f"texts must be non-empty strings; got '' at index {texts.index('')}")
    for index, text in enumerate(texts):
        unknown = sorted(set(text) - set(vocab.stoi))
        if unknown:
            raise KeyError(f"texts[{index}] has characters {unknown} that are not in the vocabulary")
    states = [None] * len(texts)
    by_length: dict[int, list[int]] = {}
    for index, text in enumerate(texts):
        by_length.setdefault(len(text), []).append(index)
    for indices in by_length.values():
        ids = torch.tensor([vocab.encode(texts[i]) for i in indices], device=model.embedding.weight.device)  # (b, T)
        outputs, _ = model.recurrent(model.embedding(ids))  # (b, T, H)
        for row, index in enumerate(indices):
            states[index] = outputs[row, -1].cpu()
    return torch.stack(states)  # (N, H)
