"""The scaling sweep's models, data, schedules and scores, and the loaders of what it ships.

The sweep itself (training, resuming, writing ``data/``) is the recipe
``python -m dl4nlp.recipes.scaling_sweep``; this module holds what the recipe,
the notebook and the tests share: the model of each size (``model_config``),
the corpus as character ids with its held-out tail (``CharData``), the three
learning-rate schedules (``lr_factor``), where a run is evaluated
(``eval_steps``), the held-out loss and the end-of-run greedy-prediction scores
(``heldout_loss``, ``continuation_metrics``), and ``load_sweep`` /
``load_models`` for the shipped results. Taught in notebook 14.

>>> parse_size("3x64")
(3, 64, 4)
>>> [round(lr_factor(s, 100, "wsd", warmup=10), 2) for s in (0, 9, 50, 80, 90, 99)]
[0.1, 1.0, 1.0, 1.0, 0.5, 0.05]
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import torch

from dl4nlp._checks import check_bool, check_number, check_path, measures_in_eval_mode
from dl4nlp._checks import check_int as _check_int
from dl4nlp.checkpoint import load_checkpoint
from dl4nlp.data import data_dir
from dl4nlp.scaling import flops_breakdown
from dl4nlp.transformer import TransformerConfig, TransformerLM
from dl4nlp.vocab import CharVocab

SCHEDULES = ("cosine", "constant", "wsd")
MODELS_KIND = "scaling_sweep_models"


def check_int(name: str, value, minimum: int = 1) -> int:
    """``value`` if it is an integer (not a bool) of at least ``minimum``; else a ValueError naming both."""
    if not isinstance(name, str):
        raise TypeError(f"name must be the argument's name (a string); got {type(name).__name__} {name!r:.40}")
    return _check_int(name, value, low=_check_int("minimum", minimum, low=None))


def parse_size(size: str) -> tuple[int, int, int]:
    """``'3x64'`` -> (n_layers=3, d_model=64, n_heads=4): heads of width 16 where the width allows, at least one."""
    try:
        layers, width = (int(part) for part in str(size).lower().split("x"))
    except ValueError:
        raise ValueError(f"size must look like 'LAYERSxWIDTH', e.g. '2x32'; got {size!r}") from None
    if layers < 1 or width < 2 or width % 2:
        raise ValueError(f"size needs >= 1 layer and an even width >= 2; got {size!r}")
    heads = max(1, width // 16)
    while width % heads:
        heads -= 1
    return layers, width, heads


def model_config(size: str, vocab_size: int, context: int, fast: bool = True) -> TransformerConfig:
    """The ``TransformerConfig`` of one sweep size: pre-LayerNorm, tied output layer and learned positions
    (GPT-2's choice: at the N(0, 0.02) scale of the token embeddings, unit-amplitude sinusoids would drown
    the token's identity and leave a tiny model stuck at the unigram loss for hundreds of steps)."""
    layers, width, heads = parse_size(size)
    check_int("vocab_size", vocab_size)
    check_int("context", context)
    check_bool("fast", fast)
    return TransformerConfig(
        vocab_size=vocab_size,
        d_model=width,
        n_heads=heads,
        n_layers=layers,
        max_len=context,
        positional="learned",
        fast_attention=fast,
    )


def training_flops_per_token(config: TransformerConfig, context: int) -> int:
    """FLOPs of one training token as ``FlopCounterMode`` counts them: three forward passes
    (``dl4nlp.scaling.flops_breakdown``: linear layers, dense attention and the output layer)."""
    if not isinstance(config, TransformerConfig):
        raise TypeError(f"config must be a TransformerConfig; got {type(config).__name__}")
    return 3 * sum(flops_breakdown(config, check_int("context", context)).values())


class CharData:
    """A corpus as character ids (``dl4nlp.vocab.CharVocab`` of its sorted characters): the first
    ``1 - heldout_fraction`` for training, the tail held out."""

    def __init__(self, text: str, heldout_fraction: float = 0.1):
        if not isinstance(text, str) or len(text) < 2:
            raise ValueError(f"text must be a string of at least 2 characters; got {type(text).__name__} {text!r:.40}")
        check_number("heldout_fraction", heldout_fraction, 0, 1, low_open=True, high_open=True)
        self.vocab = CharVocab.from_text(text)
        self.chars = self.vocab.chars
        ids = torch.tensor(self.vocab.encode(text), dtype=torch.long)
        self.split = int(len(ids) * (1 - heldout_fraction))  # first held-out character
        self.train, self.heldout = ids[: self.split], ids[self.split :]

    def batch(self, batch_size: int, context: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """Random training windows: inputs (B, T) and next-character targets (B, T)."""
        check_int("batch_size", batch_size)
        if check_int("context", context) > len(self.train) - 2:
            raise ValueError(f"context must be shorter than the training text ({len(self.train)}); got {context}")
        if not isinstance(generator, torch.Generator):
            raise TypeError(f"generator must be a torch.Generator; got {type(generator).__name__}")
        starts = torch.randint(len(self.train) - context - 1, (batch_size,), generator=generator)
        windows = torch.stack([self.train[s : s + context + 1] for s in starts.tolist()])  # (B, T+1)
        return windows[:, :-1], windows[:, 1:]

    def windows(self, part: str, count: int, context: int) -> torch.Tensor:
        """``count`` evenly spaced windows of ``context + 1`` characters of ``part`` ('heldout' or 'train')."""
        if part not in ("heldout", "train"):
            raise ValueError(f"part must be 'heldout' or 'train'; got {part!r}")
        ids = self.heldout if part == "heldout" else self.train
        check_int("count", count)
        if check_int("context", context) + 1 > len(ids):
            raise ValueError(
                f"context + 1 must be at most the {len(ids)} characters of {part!r}; got context {context}"
            )
        starts = np.linspace(0, len(ids) - context - 1, count).astype(int)
        return torch.stack([ids[s : s + context + 1] for s in starts])  # (count, T+1)


def lr_factor(
    step: int, steps: int, schedule: str, warmup: int, min_ratio: float = 0.1, decay_fraction: float = 0.2
) -> float:
    """Multiplier of the peak learning rate at ``step`` (0-based) of a run of ``steps`` steps.

    All three warm up linearly for ``warmup`` steps. ``'cosine'`` then follows half a cosine down to
    ``min_ratio`` at the last step (Hoffmann et al. 2022: tenfold); ``'constant'`` stays at the peak;
    ``'wsd'`` (warmup-stable-decay) stays at the peak and decays linearly to zero over the last
    ``decay_fraction`` of the run, so that its first ``(1 - decay_fraction) steps`` steps equal a constant run's.
    """
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}; got {schedule!r}")
    steps = check_int("steps", steps)
    step = _check_int("step", step, low=0, high=steps - 1)
    check_int("warmup", warmup, minimum=0)
    check_number("min_ratio", min_ratio, 0, 1)
    check_number("decay_fraction", decay_fraction, 0, 1, low_open=True, high_open=True)
    if step < warmup:
        return (step + 1) / warmup
    if schedule == "constant":
        return 1.0
    if schedule == "cosine":
        progress = (step - warmup) / max(1, steps - 1 - warmup)
        return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress))
    start = decay_start(steps, decay_fraction)
    return 1.0 if step < start else (steps - step) / (steps - start)


def decay_start(steps: int, decay_fraction: float = 0.2) -> int:
    """First step of a warmup-stable-decay run's decay: ``steps - round(decay_fraction * steps)``."""
    check_int("steps", steps)
    check_number("decay_fraction", decay_fraction, 0, 1, low_open=True, high_open=True)
    return steps - max(1, round(decay_fraction * steps))


def eval_steps(steps: int, extra: Sequence[int] = ()) -> list[int]:
    """Where a run of ``steps`` steps is evaluated: powers of two, every eighth of the run, and ``extra``."""
    check_int("steps", steps)
    if isinstance(extra, (str, bytes)) or not hasattr(extra, "__iter__"):
        raise TypeError(f"extra must be a list of steps; got {type(extra).__name__} {extra!r:.40}")
    extra = [check_int("each of extra", e) for e in extra]
    points = {2**k for k in range(1, int(math.log2(steps)) + 1)}
    points |= {max(1, round(steps * j / 8)) for j in range(1, 9)} | {int(e) for e in extra}
    return sorted(p for p in points if 1 <= p <= steps)


def _check_windows(model: torch.nn.Module, windows: torch.Tensor) -> None:
    if not isinstance(model, torch.nn.Module) or not any(True for _ in model.parameters()):
        raise TypeError(
            f"model must be a language model (a torch.nn.Module with parameters); got {type(model).__name__}"
        )
    if not isinstance(windows, torch.Tensor) or windows.dim() != 2 or windows.shape[0] == 0 or windows.shape[1] < 2:
        shape = tuple(windows.shape) if isinstance(windows, torch.Tensor) else type(windows).__name__
        raise ValueError(f"windows must be a tensor of shape (N >= 1, T+1 >= 2); got {shape}")
    if windows.dtype != torch.long:
        raise ValueError(f"windows must hold character ids (torch.long); got {windows.dtype}")
    config = getattr(model, "config", None)
    if config is not None and windows.shape[1] - 1 > config.max_len:
        raise ValueError(f"windows must be at most {config.max_len} + 1 long; got {tuple(windows.shape)}")
    if windows.min() < 0 or (config is not None and windows.max() >= config.vocab_size):
        raise ValueError(f"windows must hold ids in [0, vocab_size); got {int(windows.min())}..{int(windows.max())}")


@torch.no_grad()
@measures_in_eval_mode
def heldout_loss(model: TransformerLM, windows: torch.Tensor, batch_size: int = 256) -> float:
    """Mean next-character cross-entropy (nats) over every position of the windows (N, T+1)."""
    _check_windows(model, windows)
    check_int("batch_size", batch_size)
    device = next(model.parameters()).device
    total, count = 0.0, 0
    for chunk in windows.split(batch_size):
        chunk = chunk.to(device)
        total += model.loss(chunk[:, :-1], chunk[:, 1:]).item() * chunk[:, 1:].numel()
        count += chunk[:, 1:].numel()
    return total / count


@torch.no_grad()
@measures_in_eval_mode
def continuation_metrics(
    model: TransformerLM, windows: torch.Tensor, chars: Sequence[str], start: int, max_k: int, min_completion: int = 3
) -> dict:
    """Scores of the greedy predictions of the characters after position ``start`` of each window (N, T+1).

    ``loss``: mean cross-entropy (nats) of those characters; ``token_accuracy``: fraction predicted
    right; ``exact_match[k-1]``: fraction of k-character stretches predicted entirely right (what greedy
    decoding of k characters scores), k = 1..max_k; ``word_exact_match``: whole words (a run of letters
    after a space or newline) entirely right; ``completion_exact_match`` / ``completion_char_accuracy``:
    the rest of each word of at least ``min_completion`` + 1 letters given its first letter, scored as a
    whole and character by character; ``completion_log_prob``: mean log-probability of a completion.
    """
    _check_windows(model, windows)
    check_int("max_k", max_k)
    if check_int("start", start, minimum=0) + max_k >= windows.shape[1]:
        raise ValueError(f"start + max_k must be < the window length {windows.shape[1]}; got {start} + {max_k}")
    vocab = int(windows.max()) + 1 if getattr(model, "config", None) is None else model.config.vocab_size
    if not isinstance(chars, (str, list, tuple)) or len(chars) < vocab:
        raise ValueError(f"chars must name all {vocab} ids (a string or list); got {type(chars).__name__}")
    device, windows = next(model.parameters()).device, windows.cpu()  # the scoring below is NumPy's, on the CPU
    correct, logp = [], []
    for chunk in windows.split(256):
        chunk = chunk.to(device)
        log_probs = torch.log_softmax(model(chunk[:, :-1]), dim=-1)  # (B, T, V)
        correct.append((log_probs.argmax(-1) == chunk[:, 1:]).cpu())
        logp.append(log_probs.gather(-1, chunk[:, 1:, None])[..., 0].cpu())
    correct, logp = torch.cat(correct)[:, start:], torch.cat(logp)[:, start:]  # (N, P): character start+1+p
    exact = [correct.unfold(1, k, 1).all(-1).float().mean().item() for k in range(1, max_k + 1)]
    is_letter = np.array([c.isalpha() for c in chars])[windows[:, start + 1 :].numpy()]  # (N, P)
    is_gap = np.array([c in " \n" for c in chars])[windows[:, start:-1].numpy()]  # before each target
    right, lp = correct.numpy(), logp.numpy()
    words = hits = completions = completion_hits = completion_chars = completion_right = 0
    completion_lp = 0.0
    for row, p in zip(*np.nonzero(is_gap & is_letter)):
        end = p
        while end < is_letter.shape[1] and is_letter[row, end]:
            end += 1
        if end == is_letter.shape[1]:
            continue  # the word runs past the window
        words += 1
        hits += bool(right[row, p:end].all())
        if end - p - 1 >= min_completion:
            completions += 1
            completion_hits += bool(right[row, p + 1 : end].all())
            completion_chars += int(end - p - 1)
            completion_right += int(right[row, p + 1 : end].sum())
            completion_lp += float(lp[row, p + 1 : end].sum())
    return {
        "loss": -float(logp.mean()),
        "token_accuracy": correct.float().mean().item(),
        "exact_match": exact,
        "word_exact_match": hits / max(words, 1),
        "words": words,
        "completion_exact_match": completion_hits / max(completions, 1),
        "completion_char_accuracy": completion_right / max(completion_chars, 1),
        "completion_log_prob": completion_lp / max(completions, 1),
        "completions": completions,
    }


def load_sweep(path: Optional[Path] = None) -> dict:
    """The shipped sweep results (``data/scaling_sweep.json`` by default): recipe, learning-rate search, runs."""
    path = check_path("path", path) if path is not None else data_dir() / "scaling_sweep.json"
    if not path.is_file():
        raise FileNotFoundError(
            f"path must be a file of sweep results; no file at {path}; "
            f"run `python -m dl4nlp.recipes.scaling_sweep --out {path}` to make them"
        )
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"path must hold the results of a scaling sweep; {path} is not valid JSON ({error})") from None
    if not isinstance(results, dict) or not {"recipe", "runs"} <= set(results):
        raise ValueError(f"path must hold a scaling sweep (a JSON object with 'recipe' and 'runs'); {path} does not")
    return results


def load_models(path: Optional[Path] = None) -> tuple[dict[str, TransformerLM], str]:
    """The shipped models of the sweep (float32, eval mode) by size, and the character vocabulary.

    The file is one ``dl4nlp.checkpoint`` of kind ``'scaling_sweep_models'`` (weights loaded with
    ``weights_only=True``, SHA-256 verified against ``scaling_sweep_models.json`` beside it).
    """
    path = check_path("path", path) if path is not None else data_dir() / "scaling_sweep_models.pt"
    if path.is_dir():
        raise IsADirectoryError(f"path must be a checkpoint file; got the folder {path}")
    if not path.is_file():
        raise FileNotFoundError(f"path must be a checkpoint file; no checkpoint at {path}")
    checkpoint = load_checkpoint(path, kind=MODELS_KIND)
    models = {}
    for size, config in checkpoint.config["models"].items():
        model = TransformerLM(TransformerConfig(**config))
        prefix = f"{size}/"
        weights = {k[len(prefix) :]: v.float() for k, v in checkpoint.state_dict.items() if k.startswith(prefix)}
        missing, unexpected = model.load_state_dict(weights, strict=False)
        expected = ["lm_head.weight"] if model.config.tie_weights else []
        if missing != expected or unexpected:
            raise ValueError(
                f"model {size} in {path}: expected missing weights {expected} (tied output layer); "
                f"got missing {missing}, unexpected {unexpected}"
            )
        if model.config.tie_weights:
            model.lm_head.weight = model.token_embedding.weight
        models[size] = model.eval()
    return models, checkpoint.extra["chars"]
