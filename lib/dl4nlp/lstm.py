"""LSTM and GRU cells written out gate by gate, checked against PyTorch's modules.

``LSTMCell`` computes, from gate pre-activations W_ih x + b_ih + W_hh h + b_hh
split in PyTorch's order (input, forget, candidate, output):

    C(t) = f ⊙ C(t-1) + i ⊙ C̃(t),    h(t) = o ⊙ tanh(C(t)),

and returns every gate by name. ``UnrolledLSTM`` runs it over a sequence and
records the gates and cell states at every step; ``UnrolledLSTM.from_torch``
copies one layer (and direction) of a ``torch.nn.LSTM``. ``GRUCell`` and
``UnrolledGRU`` do the same for the GRU. Taught in notebook 03.

The command ``python -m dl4nlp.lstm train-char-model --out data/char_lstm_sherlock.pt``
trains the character-level LSTM language model that notebook 03 inspects
and writes its recipe next to it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import NamedTuple, Optional

import torch
from torch import nn

from dl4nlp._checks import (
    check_device,
    check_file,
    check_ids,
    check_int,
    check_number,
    check_tensor,
    check_type,
    given,
)
from dl4nlp.rnn import (
    RecurrentLM,
    _check_sequence,
    _check_state,
    _check_step,
    _copy_of_torch,
    _torch_weights,
    language_model_loss,
)

LSTM_GATES = ("input", "forget", "candidate", "output")  # PyTorch's order of the four row blocks
GRU_GATES = ("reset", "update", "candidate")


class _GatedCell(nn.Module):
    """Parameters shared by the LSTM and GRU cells, named and shaped like PyTorch's."""

    n_blocks = 1

    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        check_int("input_size", input_size)
        check_int("hidden_size", hidden_size)
        self.input_size, self.hidden_size = input_size, hidden_size
        rows, bound = self.n_blocks * hidden_size, 1 / math.sqrt(hidden_size)
        self.weight_ih = nn.Parameter(torch.empty(rows, input_size).uniform_(-bound, bound))  # (nH, I)
        self.weight_hh = nn.Parameter(torch.empty(rows, hidden_size).uniform_(-bound, bound))  # (nH, H)
        self.bias_ih = nn.Parameter(torch.empty(rows).uniform_(-bound, bound))  # (nH,)
        self.bias_hh = nn.Parameter(torch.empty(rows).uniform_(-bound, bound))  # (nH,)


def _check_pair(cell: nn.Module, name: str, state, batch: int) -> tuple[torch.Tensor, torch.Tensor]:
    """An LSTM state: a pair (h, c) of (B, H) tensors."""
    H = cell.hidden_size
    if not isinstance(state, (tuple, list)):
        raise TypeError(f"{name} must be a pair (h, c) of (B, {H}) tensors; got {given(state)}")
    if len(state) != 2:
        raise ValueError(f"{name} must be a pair (h, c) of (B, {H}) tensors; got {len(state)} tensors")
    _check_state(f"{name} h", state[0], batch, H, cell)
    _check_state(f"{name} c", state[1], batch, H, cell)
    return state[0], state[1]


class LSTMStep(NamedTuple):
    h: torch.Tensor  # (B, H)
    c: torch.Tensor  # (B, H)
    gates: dict  # name -> (B, H)


class LSTMCell(_GatedCell):
    """One LSTM step; ``forward(x, (h, c))`` returns ``LSTMStep(h, c, gates)``."""

    n_blocks = 4

    def forward(self, x: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]) -> LSTMStep:
        check_tensor("x", x, shape=("B", self.input_size), dtype="float", finite=True)
        _check_step(self, x, x.new_zeros(x.shape[0], self.hidden_size))
        h, c = _check_pair(self, "state", state, x.shape[0])
        return self._step(x, (h, c))

    def _step(self, x: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]) -> LSTMStep:
        h, c = state  # (B, H) each
        z = x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh  # (B, 4H)
        z_i, z_f, z_g, z_o = z.chunk(4, dim=1)
        i = torch.sigmoid(z_i)  # input gate: how much of the candidate to write
        f = torch.sigmoid(z_f)  # forget gate: how much of the old cell to keep
        g = torch.tanh(z_g)  # candidate C̃(t)
        o = torch.sigmoid(z_o)  # output gate: how much of the cell to show
        c = f * c + i * g
        h = o * torch.tanh(c)
        return LSTMStep(h, c, {"input": i, "forget": f, "candidate": g, "output": o})


class GRUCell(_GatedCell):
    """One GRU step (PyTorch's convention); ``forward(x, h)`` returns ``(h, gates)``.

    r = σ(·), z = σ(·), n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)), h' = (1 - z) ⊙ n + z ⊙ h.
    """

    n_blocks = 3

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, dict]:
        _check_step(self, x, h)
        return self._step(x, h)

    def _step(self, x: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, dict]:
        x_r, x_z, x_n = (x @ self.weight_ih.T + self.bias_ih).chunk(3, dim=1)  # (B, H) each
        h_r, h_z, h_n = (h @ self.weight_hh.T + self.bias_hh).chunk(3, dim=1)
        r = torch.sigmoid(x_r + h_r)  # reset gate: how much of h the candidate may see
        z = torch.sigmoid(x_z + h_z)  # update gate: how much of the old h to keep
        n = torch.tanh(x_n + r * h_n)  # candidate
        return (1 - z) * n + z * h, {"reset": r, "update": z, "candidate": n}


class _Unrolled(nn.Module):
    cell_class: type = LSTMCell
    torch_class: type = nn.LSTM

    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.cell = self.cell_class(input_size, hidden_size)

    @classmethod
    def from_torch(cls, module: nn.Module, layer: int = 0, reverse: bool = False):
        """A copy of one layer (``reverse=True``: the backward direction) of a torch module: weights, dtype, device."""
        weights = _torch_weights(module, layer, reverse, cls.torch_class)
        return _copy_of_torch(cls, module, weights, weights["weight_ih"].shape[1], module.hidden_size)


class UnrolledLSTM(_Unrolled):
    """An LSTM as an explicit loop over time (batch first), recording every gate.

    ``forward(x, state)`` with x (B, T, I) returns ``(outputs, (h_T, c_T), trace)``:
    outputs (B, T, H) as ``nn.LSTM(batch_first=True)`` gives them, and ``trace``
    mapping each gate name and ``'cell'`` to a (B, T, H) tensor.
    """

    def forward(self, x: torch.Tensor, state: Optional[tuple[torch.Tensor, torch.Tensor]] = None):
        _check_sequence(self, x, self.cell.input_size)
        zeros = x.new_zeros(x.shape[0], self.cell.hidden_size)  # (B, H)
        h, c = (zeros, zeros) if state is None else _check_pair(self.cell, "state", state, x.shape[0])
        outputs, record = [], {name: [] for name in LSTM_GATES + ("cell",)}
        for t in range(x.shape[1]):
            h, c, gates = self.cell._step(x[:, t], (h, c))
            outputs.append(h)
            for name, value in {**gates, "cell": c}.items():
                record[name].append(value)
        trace = {name: torch.stack(values, dim=1) for name, values in record.items()}  # (B, T, H) each
        return torch.stack(outputs, dim=1), (h, c), trace


class UnrolledGRU(_Unrolled):
    """A GRU as an explicit loop over time; ``forward`` returns ``(outputs, h_T, trace)``."""

    cell_class, torch_class = GRUCell, nn.GRU

    def forward(self, x: torch.Tensor, h: Optional[torch.Tensor] = None):
        _check_sequence(self, x, self.cell.input_size)
        if h is not None:
            _check_state("h", h, x.shape[0], self.cell.hidden_size, self)
        h = x.new_zeros(x.shape[0], self.cell.hidden_size) if h is None else h  # (B, H)
        outputs, record = [], {name: [] for name in GRU_GATES}
        for t in range(x.shape[1]):
            h, gates = self.cell._step(x[:, t], h)
            outputs.append(h)
            for name, value in gates.items():
                record[name].append(value)
        return torch.stack(outputs, dim=1), h, {n: torch.stack(v, dim=1) for n, v in record.items()}


def set_forget_bias_(module: nn.LSTM, value: float) -> nn.LSTM:
    """Start every forget gate at σ(value): b_ih's forget block = value, b_hh's = 0 (all layers, directions).

    A positive value (Gers et al., 2000; Jozefowicz et al., 2015 use 1) makes a
    fresh LSTM remember by default, so gradients reach far back from the start.
    """
    check_type("module", module, nn.LSTM, "a torch.nn.LSTM")
    if not module.bias:
        raise ValueError("module must have biases (bias=True) to set the forget bias; got bias=False")
    value = check_number("value", value)
    hidden = module.hidden_size
    with torch.no_grad():
        for name, param in module.named_parameters():
            if name.startswith("bias_"):
                param[hidden : 2 * hidden] = value if name.startswith("bias_ih") else 0.0
    return module


# --- the character-level LSTM of notebook 03 ---------------------------------
def load_char_model(path: str | Path, device: str | torch.device = "cpu"):
    """The ``(RecurrentLM, CharVocab)`` saved by ``train-char-model`` (loaded with ``weights_only=True``)."""
    from dl4nlp.tokenize import CharVocab

    path = check_file("path", path, "a char-model checkpoint (.pt)")
    device = check_device("device", device)
    checkpoint = torch.load(path, map_location=device, weights_only=True)
    missing = {"config", "vocab", "state_dict"} - set(checkpoint)
    if missing:
        raise ValueError(f"a char-model checkpoint holds config, vocab and state_dict; {path} lacks {sorted(missing)}")
    model = RecurrentLM(**checkpoint["config"]).to(device)
    model.load_state_dict(checkpoint["state_dict"])
    return model.eval(), CharVocab(checkpoint["vocab"])


def stream_batches(ids: torch.Tensor, batch_size: int, length: int):
    """``next_batch(step)`` for truncated BPTT over ``batch_size`` parallel streams of ``ids``.

    The text is cut into ``batch_size`` equal streams; step k returns the k-th
    window of ``length + 1`` ids of every stream, (B, length + 1), and whether
    the streams just started over (so the carried state must be reset).
    """
    check_ids("ids", ids, None, ndim=1, expected="(N,), one text as ids")
    check_int("batch_size", batch_size)
    check_int("length", length)
    if len(ids) // batch_size < length + 1:
        raise ValueError(
            f"ids must give each of the batch_size={batch_size} streams more than length={length} ids, "
            f"at least {batch_size * (length + 1)} in all; got {len(ids)}"
        )
    streams = ids[: len(ids) // batch_size * batch_size].view(batch_size, -1)  # (B, N / B)
    windows = (streams.shape[1] - 1) // length

    def next_batch(step: int):
        k = step % windows
        return streams[:, k * length : (k + 1) * length + 1], k == 0

    return next_batch


def train_char_model(
    out: Path,
    corpus: str = "sherlock_holmes.txt",
    hidden_size: int = 256,
    embedding_dim: int = 32,
    steps: int = 4000,
    batch_size: int = 32,
    seq_len: int = 128,
    lr: float = 3e-3,
    seed: int = 0,
    device: Optional[str] = None,
    straight_quotes: bool = True,
    progress: bool = True,
    command: str = "",
) -> dict:
    """Train a one-layer character LSTM on a shipped corpus; save it to ``out`` and its recipe beside it.

    Training is truncated BPTT as in char-rnn: the text is read as ``batch_size``
    parallel streams, ``seq_len`` characters at a time, and the LSTM state is
    carried (detached) from one window to the next, so the model can learn
    state that lasts longer than a window, such as being inside a quotation.
    With ``straight_quotes`` the curly double quotes become ``"``
    (``dl4nlp.tokenize.straighten_quotes``), so that only that state tells an
    opening quote from a closing one.
    The last 5% of the text is held out; the recipe (``<out>.json``) records the
    command, seed, versions, corpus md5, device and the final losses. Returns the recipe.
    """
    import dl4nlp
    from dl4nlp.data import data_path, load_text, md5sum
    from dl4nlp.tokenize import CharVocab, straighten_quotes
    from dl4nlp.train import train

    for name, value in dict(hidden_size=hidden_size, embedding_dim=embedding_dim, steps=steps).items():
        check_int(name, value)
    for name, value in dict(batch_size=batch_size, seq_len=seq_len).items():
        check_int(name, value)
    check_number("lr", lr, 0.0, low_open=True)
    dl4nlp.seed_everything(seed)
    device = dl4nlp.get_device(device)
    text = straighten_quotes(load_text(corpus)) if straight_quotes else load_text(corpus)
    vocab = CharVocab.from_text(text)
    ids = torch.tensor(vocab.encode(text))
    split = int(0.95 * len(ids))
    train_ids, valid_ids = ids[:split], ids[split:]
    model = RecurrentLM(len(vocab), hidden_size, "lstm", embedding_dim).to(device)
    set_forget_bias_(model.recurrent, 1.0)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps, eta_min=lr / 10)
    carried = {"state": None}

    def loss_fn(model, batch):
        windows, restart = batch
        logits, state = model(windows[:, :-1], None if restart else carried["state"])
        carried["state"] = tuple(s.detach() for s in state)  # truncated BPTT: keep the value, cut the graph
        return language_model_loss(logits, windows[:, 1:])

    start = time.perf_counter()
    history = train(
        model,
        loss_fn,
        stream_batches(train_ids, batch_size, seq_len),
        steps=steps,
        optimizer=optimizer,
        scheduler=scheduler,
        clip_norm=1.0,
        device=device,
        progress=progress,
        desc="char LSTM",
    )
    with torch.no_grad():
        logits, _ = model(valid_ids[None, :-1].to(device))  # the held-out text read in one pass
        valid_loss = language_model_loss(logits, valid_ids[None, 1:].to(device)).item()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    torch.save(
        {"config": model.config, "vocab": vocab.chars, "straight_quotes": straight_quotes, "state_dict": state}, out
    )
    recipe = {
        "command": command or f"dl4nlp.lstm.train_char_model(out={str(out)!r}, ...)",
        "arguments": dict(
            corpus=corpus,
            hidden_size=hidden_size,
            embedding_dim=embedding_dim,
            steps=steps,
            batch_size=batch_size,
            seq_len=seq_len,
            lr=lr,
            seed=seed,
            straight_quotes=straight_quotes,
            clip_norm=1.0,
            forget_bias=1.0,
            schedule="cosine to lr/10",
            optimizer="Adam",
            bptt="truncated, state carried across windows of parallel streams",
        ),
        "dl4nlp_version": dl4nlp.__version__,
        "torch_version": torch.__version__,
        "corpus_md5": md5sum(data_path(corpus)),
        "device": str(device),
        "torch_threads": torch.get_num_threads(),
        "train_seconds": round(time.perf_counter() - start, 1),
        "final_train_loss": round(sum(history.loss[-50:]) / len(history.loss[-50:]), 4),
        "valid_loss": round(valid_loss, 4),
        "held_out": "last 5% of the corpus",
        "parameters": sum(p.numel() for p in model.parameters()),
        "diverged": history.diverged,
    }
    out.with_suffix(".json").write_text(json.dumps(recipe, indent=2) + "\n")
    return recipe


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dl4nlp.lstm", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    char = commands.add_parser("train-char-model", help="train the character LSTM of notebook 03")
    char.add_argument("--out", required=True, type=Path, help="checkpoint path, e.g. data/char_lstm_sherlock.pt")
    char.add_argument("--corpus", default="sherlock_holmes.txt")
    char.add_argument("--hidden-size", type=int, default=256)
    char.add_argument("--embedding-dim", type=int, default=32)
    char.add_argument("--steps", type=int, default=4000)
    char.add_argument("--batch-size", type=int, default=32)
    char.add_argument("--seq-len", type=int, default=128)
    char.add_argument("--lr", type=float, default=3e-3)
    char.add_argument("--seed", type=int, default=0)
    char.add_argument("--device", default=None, help="cpu, cuda or mps (default: the best available)")
    char.add_argument(
        "--curly-quotes",
        dest="straight_quotes",
        action="store_false",
        help="keep “ and ” apart instead of replacing both by a straight quote",
    )
    args = vars(parser.parse_args(argv))
    args.pop("command")
    command = "python -m dl4nlp.lstm " + " ".join(sys.argv[1:] if argv is None else argv)
    recipe = train_char_model(**args, command=command)
    print(json.dumps(recipe, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
