"""A scaling sweep: tiny character-level Transformer language models of several sizes and token budgets.

Every size is trained with a cosine schedule (decaying the learning rate ten
times) for several token budgets, each a separate run, as in approach 1 of
Hoffmann et al. (2022); a few sizes are also trained at a constant learning
rate. Held-out loss is logged along the way; at its end every run is scored
for per-character accuracy and exact match of multi-character continuations.
Results go to one JSON file together with the recipe that produced them, and
the weights of each size's longest cosine run to a file next to it. An
interrupted sweep resumes where it stopped (finished runs from the JSON, the
run in progress from its last checkpoint in ``workdir``).

    python -m dl4nlp.scaling --help

Taught (and its results loaded) in notebook 09.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import shlex
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from fractions import Fraction
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import torch
from tqdm.auto import tqdm

from dl4nlp._checks import (
    check_choice,
    check_file,
    check_ids,
    check_int,
    check_number,
    check_path,
    check_str,
    check_strings,
    check_type,
)
from dl4nlp.data import CORPORA, data_dir, data_path, load_text, md5sum
from dl4nlp.device import describe_environment, get_device
from dl4nlp.scaling import kaplan_forward_flops, non_embedding_parameters, training_flops
from dl4nlp.train import train
from dl4nlp.transformer import TransformerConfig, TransformerLM, count_parameters


@dataclass(frozen=True)
class SweepSpec:
    """What to train. Sizes are ``'LAYERSxWIDTH'``, e.g. ``'2x32'`` (heads of width 16 where possible)."""

    sizes: tuple[str, ...] = ("1x8", "1x16", "2x16", "2x24", "2x32", "3x40", "3x64")
    steps: int = 1024  # the longest budget, in optimiser steps
    budget_fractions: tuple[float, ...] = (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0)
    constant_lr_sizes: tuple[str, ...] = ("2x16", "3x40")
    batch_size: int = 32
    context: int = 64
    lr: float = 3e-3  # peak learning rate at width 64; scaled by (64 / width) ** 0.5 for other widths
    warmup_steps: int = 20
    min_lr_ratio: float = 0.1  # cosine ends at lr * min_lr_ratio
    clip_norm: float = 1.0
    corpus: str = "tinyshakespeare.txt"
    heldout_fraction: float = 0.1
    eval_windows: int = 256
    emergence_windows: int = 1024
    emergence_start: int = 32  # predictions scored from this position on (at least this much context)
    max_k: int = 16
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("steps", "batch_size", "context", "warmup_steps", "eval_windows", "emergence_windows", "max_k"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer; got {value!r}")
        if not self.sizes:
            raise ValueError("sizes must name at least one model size; got ()")
        for name in ("sizes", "constant_lr_sizes"):
            for size in check_strings(name, getattr(self, name), nonempty=False):
                try:
                    parse_size(size)
                except ValueError as error:
                    raise ValueError(f"{name} holds a bad size: {error}") from None
        check_number("lr", self.lr, 0.0, low_open=True)
        check_number("heldout_fraction", self.heldout_fraction, 0.0, 1.0, low_open=True, high_open=True)
        check_number("min_lr_ratio", self.min_lr_ratio, 0.0, 1.0)
        check_number("clip_norm", self.clip_norm, 0.0, low_open=True)
        if not set(self.constant_lr_sizes) <= set(self.sizes):
            raise ValueError(f"constant_lr_sizes must be among sizes {self.sizes}; got {self.constant_lr_sizes}")
        if not all(0 < f <= 1 for f in self.budget_fractions) or 1.0 not in self.budget_fractions:
            raise ValueError(f"budget_fractions must lie in (0, 1] and include 1; got {self.budget_fractions}")
        if self.corpus not in CORPORA:
            raise ValueError(f"corpus must be one of {tuple(CORPORA)}; got {self.corpus!r}")
        ids = [run["id"] for run in self.runs()]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(
                f"budget_fractions must give distinct step counts with steps={self.steps}; "
                f"got {self.budget_fractions}, which repeats runs {repeated[:3]}"
            )
        if not self.emergence_start + self.max_k <= self.context:
            raise ValueError(
                f"emergence_start + max_k must be <= context={self.context}; got {self.emergence_start} + {self.max_k}"
            )

    def runs(self) -> list[dict]:
        """Every run: a cosine run per (size, budget), then the constant-rate runs."""
        out = [
            dict(size=s, steps=max(1, round(f * self.steps)), schedule="cosine")
            for s in self.sizes
            for f in sorted(self.budget_fractions)
        ]
        out += [dict(size=s, steps=self.steps, schedule="constant") for s in self.constant_lr_sizes]
        for run in out:
            run["id"] = f"{run['size']}-{run['schedule']}-{run['steps']}"
        return out


def parse_size(size: str) -> tuple[int, int, int]:
    """``'3x64'`` -> (n_layers=3, d_model=64, n_heads=4): heads of width 16, at least one."""
    check_str("size", size, what="a size like '2x32' (LAYERSxWIDTH)")
    try:
        layers, width = (int(part) for part in size.lower().split("x"))
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
    return TransformerConfig(
        vocab_size=vocab_size,
        d_model=width,
        n_heads=heads,
        n_layers=layers,
        max_len=context,
        positional="learned",
        fast_attention=fast,
    )


class CharData:
    """A corpus as character ids: sorted vocabulary, a training part and a held-out tail."""

    def __init__(self, text: str, heldout_fraction: float = 0.1):
        check_str("text", text, nonempty=True, what="a corpus (one string)")
        if not 0 < heldout_fraction < 1:
            raise ValueError(f"heldout_fraction must be in (0, 1); got {heldout_fraction!r}")
        self.chars = sorted(set(text))
        index = {c: i for i, c in enumerate(self.chars)}
        ids = torch.tensor([index[c] for c in text], dtype=torch.long)
        split = int(len(ids) * (1 - heldout_fraction))
        self.train, self.heldout = ids[:split], ids[split:]

    def batch(self, batch_size: int, context: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """Random training windows: inputs (B, T) and next-character targets (B, T)."""
        check_int("batch_size", batch_size)
        check_int("context", context, 1, len(self.train) - 2)
        check_type("generator", generator, torch.Generator, "a torch.Generator")
        starts = torch.randint(len(self.train) - context - 1, (batch_size,), generator=generator)
        windows = torch.stack([self.train[s : s + context + 1] for s in starts.tolist()])  # (B, T+1)
        return windows[:, :-1], windows[:, 1:]

    def heldout_windows(self, count: int, context: int) -> torch.Tensor:
        """``count`` evenly spaced held-out windows of ``context + 1`` characters, (count, T+1)."""
        check_int("count", count)
        check_int("context", context, 1, len(self.heldout) - 1)
        starts = np.linspace(0, len(self.heldout) - context - 1, count).astype(int)
        return torch.stack([self.heldout[s : s + context + 1] for s in starts])


def lr_factor(step: int, steps: int, schedule: str, warmup: int, min_ratio: float) -> float:
    """Multiplier of the peak learning rate at ``step``: linear warm-up, then cosine decay or constant."""
    check_choice("schedule", schedule, ("cosine", "constant"))
    check_int("steps", steps)
    check_int("step", step, 0, steps)
    check_int("warmup", warmup, low=0)
    check_number("min_ratio", min_ratio, 0.0, 1.0)
    if step < warmup:
        return (step + 1) / warmup
    if schedule == "constant":
        return 1.0
    if schedule != "cosine":
        raise ValueError(f"schedule must be 'cosine' or 'constant'; got {schedule!r}")
    progress = min(1.0, (step - warmup) / max(1, steps - warmup))
    return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress))


def peak_lr(lr_at_64: float, width: int) -> float:
    """Peak learning rate of a model of this width: ``lr_at_64 * (64 / width) ** 0.5`` (narrow models take larger
    steps; a 256-step probe preferred about 1e-2 at width 8 and 3e-3 at width 64)."""
    check_number("lr_at_64", lr_at_64, 0.0, low_open=True)
    check_int("width", width)
    return lr_at_64 * (64 / width) ** 0.5


def eval_steps(steps: int) -> list[int]:
    """Where a run of ``steps`` steps is evaluated: powers of two and every eighth of the run."""
    check_int("steps", steps)
    points = {2**k for k in range(1, int(math.log2(steps)) + 1)}
    points |= {max(1, round(steps * j / 8)) for j in range(1, 9)}
    return sorted(p for p in points if p <= steps)


def _check_windows(model, windows: torch.Tensor) -> int:
    """windows (N, T+1) of ids the model knows; returns the number of ids the model knows (or that appear)."""
    check_type("model", model, torch.nn.Module, "a language model, ids (N, T) -> logits (N, T, V)")
    config = getattr(model, "config", None)
    known = config.vocab_size if isinstance(config, TransformerConfig) else None
    check_ids("windows", windows, known, shape=("N", "T+1"))
    longest = config.max_len + 1 if isinstance(config, TransformerConfig) else None
    if windows.shape[1] < 2 or (longest is not None and windows.shape[1] > longest):
        raise ValueError(f"windows must have 2 to max_len + 1 = {longest} columns; got shape {tuple(windows.shape)}")
    return known if known is not None else int(windows.max()) + 1


@torch.no_grad()
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
def continuation_metrics(
    model: TransformerLM, windows: torch.Tensor, chars: Sequence[str], start: int, max_k: int, min_completion: int = 3
) -> dict:
    """Greedy-prediction metrics of the characters after position ``start`` of each window (N, T+1).

    ``token_accuracy``: fraction of characters predicted right; ``exact_match[k-1]``: fraction of k-character
    stretches predicted entirely right (what greedy decoding of k characters scores), k = 1..max_k;
    ``word_exact_match``: whole words (a run of letters after a space or newline) entirely right;
    ``completion_exact_match`` and ``completion_char_accuracy``: the rest of each word of at least
    ``min_completion`` + 1 letters given its first letter, scored as a whole and character by character.
    """
    n = _check_windows(model, windows)
    chars = check_strings("chars", chars)
    if len(chars) < n:
        raise ValueError(f"chars must hold a character per id, {n}; got {len(chars)}")
    T = windows.shape[1] - 1
    check_int("start", start, 0, T - 1)
    check_int("max_k", max_k, 1, T - start)
    check_int("min_completion", min_completion, low=0)
    device = next(model.parameters()).device
    correct = []
    for chunk in windows.split(256):
        chunk = chunk.to(device)
        correct.append((model(chunk[:, :-1]).argmax(-1) == chunk[:, 1:]).cpu())
    correct = torch.cat(correct)[:, start:]  # (N, P): prediction of character start+1+p
    exact = [correct.unfold(1, k, 1).all(-1).float().mean().item() for k in range(1, max_k + 1)]
    is_letter = np.array([c.isalpha() for c in chars])[windows[:, start + 1 :].numpy()]  # (N, P)
    is_gap = np.array([c in " \n" for c in chars])[windows[:, start:-1].numpy()]  # before each target
    right = correct.numpy()
    words = hits = completions = completion_hits = completion_chars = completion_right = 0
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
    return {
        "token_accuracy": correct.float().mean().item(),
        "exact_match": exact,
        "word_exact_match": hits / max(words, 1),
        "words": words,
        "completion_exact_match": completion_hits / max(completions, 1),
        "completion_char_accuracy": completion_right / max(completion_chars, 1),
        "completions": completions,
    }


def _save(obj, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    if path.suffix == ".json":
        tmp.write_text(json.dumps(obj, indent=1) + "\n")
    else:
        torch.save(obj, tmp)
    os.replace(tmp, path)


def _train_run(
    run: dict,
    spec: SweepSpec,
    data: CharData,
    eval_windows: torch.Tensor,
    device: torch.device,
    checkpoint: Path,
    step_budget: Optional[int],
    bar: tqdm,
) -> tuple[Optional[dict], Optional[TransformerLM], int]:
    """Train one run from scratch or from its checkpoint; returns (record, model, steps done now), the
    record and model None when the step budget ran out first."""
    seed = spec.seed * 1000 + spec.sizes.index(run["size"])  # same init and data order for every budget
    torch.manual_seed(seed)
    config = model_config(run["size"], len(data.chars), spec.context)
    model = TransformerLM(config).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=peak_lr(spec.lr, config.d_model), betas=(0.9, 0.95))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: lr_factor(s, run["steps"], run["schedule"], spec.warmup_steps, spec.min_lr_ratio)
    )
    generator = torch.Generator().manual_seed(seed)
    state = {"step": 0, "curve": []}
    if checkpoint.exists():
        saved = torch.load(checkpoint, map_location=device, weights_only=False)
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        scheduler.load_state_dict(saved["scheduler"])
        generator.set_state(saved["generator"])
        state = saved["state"]
        bar.update(state["step"])
    n_params = count_parameters(model, exclude_embeddings=True)
    done_now = 0
    for target in eval_steps(run["steps"]):
        if target <= state["step"]:
            continue
        if step_budget is not None and done_now + target - state["step"] > step_budget:
            return None, None, done_now
        history = train(
            model,
            lambda m, b: m.loss(*b),
            lambda _: data.batch(spec.batch_size, spec.context, generator),
            steps=target - state["step"],
            optimizer=optimizer,
            scheduler=scheduler,
            clip_norm=spec.clip_norm,
            device=device,
            progress=False,
        )
        if history.diverged:
            raise RuntimeError(f"run {run['id']} diverged before step {target}")
        done_now += target - state["step"]
        bar.update(target - state["step"])
        bar.set_postfix(run=run["id"], loss=f"{history.loss[-1]:.3f}")
        state["step"] = target
        tokens = target * spec.batch_size * spec.context
        state["curve"].append(
            {
                "step": target,
                "tokens": tokens,
                "flops": training_flops(n_params, tokens),
                "train_loss": float(np.mean(history.loss)),
                "lr": history.lr[-1],
                "heldout_loss": heldout_loss(model, eval_windows),
            }
        )
        _save(
            {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "generator": generator.get_state(),
                "state": state,
            },
            checkpoint,
        )
    record = dict(
        run,
        n_layers=config.n_layers,
        d_model=config.d_model,
        n_heads=config.n_heads,
        peak_lr=peak_lr(spec.lr, config.d_model),
        non_embedding_params=n_params,
        total_params=count_parameters(model),
        forward_flops_per_token=kaplan_forward_flops(n_params, config.n_layers, spec.context, config.d_model),
        curve=state["curve"],
    )
    assert n_params == non_embedding_parameters(config)
    windows = data.heldout_windows(spec.emergence_windows, spec.context)
    record["continuation"] = continuation_metrics(model, windows, data.chars, spec.emergence_start, spec.max_k)
    return record, model, done_now


def run_sweep(
    spec: SweepSpec,
    out: Path,
    workdir: Optional[Path] = None,
    device: Optional[torch.device] = None,
    max_steps: Optional[int] = None,
    progress: bool = True,
    command: str = "",
) -> dict:
    """Run (or resume) the sweep, writing ``out`` (JSON) after every finished run; returns its content.

    ``max_steps`` stops this invocation before it would train more steps than that (resume later).
    """
    check_type("spec", spec, SweepSpec, "a SweepSpec")
    out = check_path("out", out)
    if out.suffix != ".json":
        raise ValueError(f"out must be a .json file (the models go beside it); got {str(out)!r}")
    if max_steps is not None:
        check_int("max_steps", max_steps)
    out = Path(out)
    device = device or get_device()
    workdir = Path(workdir) if workdir else Path(tempfile.gettempdir()) / f"dl4nlp-sweep-{out.stem}"
    workdir.mkdir(parents=True, exist_ok=True)
    if out.exists():
        results = json.loads(out.read_text())
        if results["recipe"]["spec"] != json.loads(json.dumps(asdict(spec))):
            raise ValueError(
                f"{out} holds a sweep with a different spec; choose another --out or delete it.\n"
                f"stored: {results['recipe']['spec']}\nasked:  {asdict(spec)}"
            )
    else:
        from dl4nlp import __version__

        models_path(out).unlink(missing_ok=True)  # weights of an older sweep
        results = {
            "recipe": {
                "command": command,
                "spec": asdict(spec),
                "library_version": __version__,
                "torch_version": torch.__version__,
                "corpus": spec.corpus,
                "corpus_md5": md5sum(data_path(spec.corpus)),
                "sessions": [],
                "wall_seconds": 0.0,
            },
            "runs": {},
        }
    session = {
        "command": command,
        "started": dt.datetime.now().isoformat(timespec="seconds"),
        "device": describe_environment(device),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "resumed": bool(results["runs"]) or any(workdir.glob("*.pt")),
        "steps": 0,
        "wall_seconds": 0.0,
    }
    results["recipe"]["sessions"].append(session)
    data = CharData(load_text(spec.corpus), spec.heldout_fraction)
    eval_windows = data.heldout_windows(spec.eval_windows, spec.context)
    todo = [run for run in spec.runs() if run["id"] not in results["runs"]]
    started = time.perf_counter()
    bar = tqdm(total=sum(run["steps"] for run in todo), desc="sweep", unit="step", disable=not progress)
    for run in todo:
        budget = None if max_steps is None else max_steps - session["steps"]
        try:
            record, model, steps = _train_run(
                run, spec, data, eval_windows, device, workdir / f"{run['id']}.pt", budget, bar
            )
        except KeyboardInterrupt:  # keep the wall time of this session; the checkpoint holds the progress
            _finish(results, session, started, spec, out)
            raise
        session["steps"] += steps
        if record is None:
            break
        if run["schedule"] == "cosine" and run["steps"] == spec.steps:
            _store_model(models_path(out), run["size"], model, data.chars)
        results["runs"][run["id"]] = record
        _finish(results, session, started, spec, out)
        (workdir / f"{run['id']}.pt").unlink(missing_ok=True)
    bar.close()
    _finish(results, session, started, spec, out)
    return results


def _finish(results: dict, session: dict, started: float, spec: SweepSpec, out: Path) -> None:
    session["wall_seconds"] = round(time.perf_counter() - started, 1)
    results["recipe"]["wall_seconds"] = round(sum(s["wall_seconds"] for s in results["recipe"]["sessions"]), 1)
    results["complete"] = len(results["runs"]) == len(spec.runs())
    _save(results, out)


def models_path(out: Path) -> Path:
    """Where the weights of each size's longest cosine run go: next to ``out``, ``<stem>_models.pt``."""
    out = check_path("out", out)
    return Path(out).with_name(Path(out).stem + "_models.pt")


def _store_model(path: Path, size: str, model: TransformerLM, chars: Sequence[str]) -> None:
    """Add one model's weights (float16; the tied output layer is not stored twice) to the models file."""
    stored = torch.load(path, weights_only=False) if path.exists() else {"chars": list(chars), "models": {}}
    tied = model.config.tie_weights
    weights = {
        k: v.detach().cpu().half() for k, v in model.state_dict().items() if not (tied and k == "lm_head.weight")
    }
    stored["models"][size] = {"config": asdict(model.config), "state_dict": weights}
    _save(stored, path)


def load_models(path: Optional[Path] = None) -> tuple[dict[str, TransformerLM], list[str]]:
    """The stored models of a sweep (float32, eval mode) by size, and the character vocabulary."""
    path = Path(path) if path else data_dir() / "scaling_sweep_models.pt"
    if not path.is_file():
        raise FileNotFoundError(f"no sweep models at {path}; run `python -m dl4nlp.scaling` to make them")
    check_file("path", path, "a sweep's models file (.pt)")
    stored = torch.load(path, weights_only=False)
    if not isinstance(stored, dict) or not {"chars", "models"} <= set(stored):
        keys = sorted(stored) if isinstance(stored, dict) else type(stored).__name__
        raise ValueError(f"{path} is not a sweep's models file: expected the keys chars and models; got {keys}")
    models = {}
    for size, entry in stored["models"].items():
        model = TransformerLM(TransformerConfig(**entry["config"]))
        missing, unexpected = model.load_state_dict(
            {k: v.float() for k, v in entry["state_dict"].items()}, strict=False
        )
        expected = ["lm_head.weight"] if model.config.tie_weights else []
        if missing != expected or unexpected:
            raise ValueError(
                f"model {size} in {path}: expected missing weights {expected} (tied output layer); "
                f"got missing {missing}, unexpected {unexpected}"
            )
        models[size] = model.eval()
    return models, stored["chars"]


def load_sweep(path: Optional[Path] = None) -> dict:
    """The committed sweep results (``data/scaling_sweep.json`` by default)."""
    path = Path(path) if path else data_dir() / "scaling_sweep.json"
    if not path.is_file():
        raise FileNotFoundError(f"no sweep results at {path}; run `python -m dl4nlp.scaling --out {path}`")
    try:
        results = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not valid JSON ({error}); expected a sweep's results") from None
    if not isinstance(results, dict) or not {"recipe", "runs"} <= set(results):
        keys = sorted(results) if isinstance(results, dict) else type(results).__name__
        raise ValueError(f"{path} is not a sweep's results: expected the keys recipe and runs; got {keys}")
    return results


def _fractions(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(Fraction(part.strip())) for part in text.split(","))
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"budgets must be fractions like '1/16,1/4,1'; got {text!r}") from None


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    d = SweepSpec()
    p = argparse.ArgumentParser(
        prog="python -m dl4nlp.scaling",
        description=__doc__.split("\n\n    python")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--sizes", default=",".join(d.sizes), help="model sizes LAYERSxWIDTH (default: %(default)s)")
    p.add_argument(
        "--steps", type=int, default=d.steps, help="optimiser steps of the longest budget (default: %(default)s)"
    )
    p.add_argument(
        "--budgets",
        type=_fractions,
        default="1/16,1/8,1/4,1/2,1",
        help="budgets as fractions of --steps, one cosine run each (default: 1/16,1/8,1/4,1/2,1)",
    )
    p.add_argument(
        "--constant-lr-sizes",
        default=",".join(d.constant_lr_sizes),
        help="sizes also trained at a constant learning rate, '' for none (default: %(default)s)",
    )
    p.add_argument("--batch-size", type=int, default=d.batch_size, help="windows per step (default: %(default)s)")
    p.add_argument("--context", type=int, default=d.context, help="characters per window (default: %(default)s)")
    p.add_argument(
        "--lr",
        type=float,
        default=d.lr,
        help="peak Adam learning rate at width 64, times (64/width)^0.5 elsewhere (default: %(default)s)",
    )
    p.add_argument("--corpus", default=d.corpus, choices=list(CORPORA), help="(default: %(default)s)")
    p.add_argument("--seed", type=int, default=d.seed, help="(default: %(default)s)")
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="results JSON (default: data/scaling_sweep.json); the models go next to it as <name>_models.pt",
    )
    p.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="checkpoints of the run in progress (default: a folder in the system's temporary directory)",
    )
    p.add_argument("--device", default=None, help="cpu, cuda or mps (default: the best available)")
    p.add_argument(
        "--threads",
        type=int,
        default=None,
        help="CPU threads for torch; 1 is fastest for these tiny models (default: torch's choice)",
    )
    p.add_argument(
        "--max-steps",
        type=int,
        default=None,
        help="stop before training more than this many steps now; run the same command again to resume",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    spec = SweepSpec(
        sizes=tuple(args.sizes.split(",")),
        steps=args.steps,
        budget_fractions=args.budgets,
        constant_lr_sizes=tuple(s for s in args.constant_lr_sizes.split(",") if s),
        batch_size=args.batch_size,
        context=args.context,
        lr=args.lr,
        corpus=args.corpus,
        seed=args.seed,
    )
    out = args.out or data_dir() / "scaling_sweep.json"
    command = "python -m dl4nlp.scaling " + " ".join(shlex.quote(a) for a in argv)
    results = run_sweep(spec, out, args.workdir, get_device(args.device), args.max_steps, not args.no_progress, command)
    done = len(results["runs"])
    print(f"{done}/{len(spec.runs())} runs in {out} ({'complete' if results['complete'] else 'run again to resume'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
