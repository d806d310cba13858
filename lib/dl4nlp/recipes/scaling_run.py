"""One run of the scaling sweep, resumable: train a model of one size with one schedule, evaluate it along the way.

Used by ``dl4nlp.recipes.scaling_sweep`` (the whole sweep) and by
``dl4nlp.experiments.scaling`` (a live mini-sweep). A run is a plain ``Run``;
``train_run`` trains it from scratch, from its own checkpoint (an interrupted
run), or from a snapshot of another run (a warmup-stable-decay run branches off
the constant-rate run of the same size where its decay begins, which is
bit for bit what training it from scratch would give). Checkpoints and
snapshots hold only tensors, numbers and strings: ``torch.load(weights_only=True)``.
"""

from __future__ import annotations

import os
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

import torch

from dl4nlp._checks import (
    check_bool,
    check_callable,
    check_device,
    check_file,
    check_number,
    check_path,
    check_str,
    check_type,
    given,
)
from dl4nlp.checkpoint import atomic_write
from dl4nlp.scaling import non_embedding_parameters
from dl4nlp.sweep import (
    SCHEDULES,
    CharData,
    check_int,
    continuation_metrics,
    decay_start,
    eval_steps,
    heldout_loss,
    lr_factor,
    model_config,
    parse_size,
    training_flops_per_token,
)
from dl4nlp.train import train
from dl4nlp.transformer import TransformerLM, count_parameters


@dataclass(frozen=True)
class Run:
    """What to train: a size, a schedule, a number of steps, a peak learning rate and a seed."""

    size: str
    schedule: str
    steps: int
    lr: float
    seed: int
    extra_evals: tuple[int, ...] = ()  # more evaluation points (a trunk evaluates where its branches need)
    snapshots: tuple[int, ...] = ()  # steps at which to keep a snapshot for branches
    branch: Optional[tuple[str, int]] = None  # (run id, step): start from that run's snapshot

    def __post_init__(self) -> None:
        check_str("size", self.size, what="a size name 'LAYERSxWIDTH'")
        parse_size(self.size)
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {SCHEDULES}; got {self.schedule!r}")
        check_int("steps", self.steps)
        check_int("seed", self.seed, minimum=0)
        if isinstance(self.lr, bool) or not isinstance(self.lr, (int, float)) or not self.lr > 0:
            raise ValueError(f"lr must be a positive number (inf: a run meant to diverge); got {self.lr!r}")
        for name in ("extra_evals", "snapshots"):
            check_type(name, getattr(self, name), tuple, "a tuple of steps")
            for step in getattr(self, name):
                check_int(f"each of {name}", step)
        if self.branch is not None:
            if not (isinstance(self.branch, tuple) and len(self.branch) == 2 and isinstance(self.branch[0], str)):
                raise TypeError(f"branch must be None or (run id, step); got {given(self.branch)}")
            check_int("branch's step", self.branch[1], minimum=0)

    @property
    def id(self) -> str:
        return run_id(self.size, self.schedule, self.steps, self.lr, self.seed)

    def identity(self) -> dict:
        """The fields that head the run's record."""
        return {"id": self.id, "size": self.size, "schedule": self.schedule, "steps": self.steps, "peak_lr": self.lr,
                "seed": self.seed}  # fmt: skip

    def points(self) -> list[int]:
        extra = list(self.extra_evals) + ([decay_start(self.steps)] if self.schedule == "wsd" else [])
        return eval_steps(self.steps, extra)


def run_id(size: str, schedule: str, steps: int, lr: float, seed: int) -> str:
    """``'2x32-cosine-512-lr0.008-s0'``: every property that changes what a run computes."""
    Run(size, schedule, steps, lr, seed)  # checks each
    return f"{size}-{schedule}-{steps}-lr{lr:.6g}-s{seed}"


@dataclass
class Settings:
    """What every run of a sweep shares (taken from the sweep's spec)."""

    batch_size: int
    context: int
    warmup_steps: int
    min_lr_ratio: float
    decay_fraction: float
    betas: tuple[float, float]
    clip_norm: float
    eval_windows: int
    final_windows: int
    emergence_start: int
    max_k: int

    def __post_init__(self) -> None:
        for name in ("batch_size", "context", "eval_windows", "final_windows", "max_k"):
            check_int(name, getattr(self, name))
        check_int("warmup_steps", self.warmup_steps, minimum=0)
        check_int("emergence_start", self.emergence_start, minimum=0)
        check_number("min_lr_ratio", self.min_lr_ratio, 0, 1)
        check_number("decay_fraction", self.decay_fraction, 0, 1, low_open=True, high_open=True)
        if not (isinstance(self.betas, (tuple, list)) and len(self.betas) == 2):
            raise TypeError(f"betas must be a pair (beta1, beta2); got {given(self.betas)}")
        for beta in self.betas:
            check_number("each of betas", beta, 0, 1, high_open=True)
        check_number("clip_norm", self.clip_norm, 0, low_open=True)


@dataclass
class Budget:
    """Steps this session may still train (``None``: no limit) and the steps trained so far."""

    limit: Optional[int] = None
    used: int = 0
    on_steps: Callable[[int, str, float], None] = field(default=lambda n, rid, loss: None)

    def __post_init__(self) -> None:
        if self.limit is not None:
            check_int("limit", self.limit, minimum=0)
        check_int("used", self.used, minimum=0)
        check_callable("on_steps", self.on_steps, "a function on_steps(steps, run_id, loss)")

    def allows(self, steps: int) -> bool:
        check_int("steps", steps, minimum=0)
        return self.limit is None or self.used + steps <= self.limit


class OutOfSteps(Exception):
    """This session's step budget ran out; the run's checkpoint holds its progress."""


def run_seed(size: str, seed: int) -> int:
    """Seed of the initial weights and the batch order: the same for every run of a size and seed."""
    check_str("size", size, nonempty=True)
    check_int("seed", seed, minimum=0)
    return seed * 100_003 + zlib.crc32(size.encode()) % 100_003


def _save(obj: dict, path: Path) -> None:
    atomic_write(path, lambda tmp: torch.save(obj, tmp))


def _load(path: Path) -> dict:
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:
        raise ValueError(f"{path} is not a readable sweep checkpoint ({type(error).__name__}: {error})") from None


class _Schedule(torch.optim.lr_scheduler.LRScheduler):  # only .optimizer and .step() are used; no super().__init__
    """Sets the learning rate of every step from ``lr_factor`` (its whole state is the step)."""

    def __init__(self, optimizer: torch.optim.Optimizer, run: Run, settings: Settings, step: int):
        self.optimizer, self.run, self.settings, self.t = optimizer, run, settings, step
        self._apply()

    def _apply(self) -> None:
        s = self.settings
        if self.t < self.run.steps:
            factor = lr_factor(
                self.t, self.run.steps, self.run.schedule, s.warmup_steps, s.min_lr_ratio, s.decay_fraction
            )
            for group in self.optimizer.param_groups:
                group["lr"] = self.run.lr * factor

    def step(self) -> None:
        self.t += 1
        self._apply()


def _check_run_data_settings(run, data, settings) -> None:
    check_type("run", run, Run, "a Run")
    check_type("data", data, CharData, "a dl4nlp.sweep.CharData")
    check_type("settings", settings, Settings, "a Settings (SweepSpec.settings())")


def describe(run: Run, data: CharData, settings: Settings) -> dict:
    """The run's sizes and costs: parameters (non-embedding, embedding, total) and FLOPs per token."""
    _check_run_data_settings(run, data, settings)
    config = model_config(run.size, len(data.chars), settings.context)
    model = TransformerLM(config)
    n = count_parameters(model, exclude_embeddings=True)
    assert n == non_embedding_parameters(config)
    total = count_parameters(model)
    return {
        "n_layers": config.n_layers,
        "d_model": config.d_model,
        "n_heads": config.n_heads,
        "non_embedding_params": n,
        "embedding_params": total - n,
        "total_params": total,
        "flops_per_token": training_flops_per_token(config, settings.context),
    }


def train_run(
    run: Run,
    data: CharData,
    settings: Settings,
    workdir: Path,
    device: torch.device,
    budget: Optional[Budget] = None,
    keep_model: bool = False,
) -> dict:
    """Train ``run`` (resuming from its checkpoint in ``workdir``) and return its record.

    Raises ``OutOfSteps`` when ``budget`` would be exceeded before the next evaluation point (the
    checkpoint then holds the progress). A run whose loss becomes NaN or infinite stops there and its
    record says ``diverged``. With ``keep_model`` the final float32 weights are written to
    ``workdir/models/<id>.pt``.
    """
    _check_run_data_settings(run, data, settings)
    workdir = check_path("workdir", workdir)
    device = check_device("device", device)
    if budget is not None:
        check_type("budget", budget, Budget, "a Budget or None")
    check_bool("keep_model", keep_model)
    budget = budget or Budget()
    checkpoint = workdir / "ckpt" / f"{run.id}.pt"
    torch.manual_seed(run_seed(run.size, run.seed))
    model = TransformerLM(model_config(run.size, len(data.chars), settings.context)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=run.lr, betas=settings.betas)
    generator = torch.Generator().manual_seed(run_seed(run.size, run.seed))
    state = {"step": 0, "curve": [], "wall_seconds": 0.0, "cpu_seconds": 0.0}
    source = checkpoint if checkpoint.exists() else None
    if source is None and run.branch is not None:
        source = workdir / "snap" / f"{run.branch[0]}@{run.branch[1]}.pt"
        if not source.exists():
            raise FileNotFoundError(f"run {run.id} branches from {source}, which is missing; train {run.branch[0]}")
    if source is not None:
        saved = _load(source)
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        generator.set_state(saved["generator"])
        state = saved["state"]
        if source != checkpoint:  # a branch keeps the trunk's evaluations up to the branch point
            keep = set(run.points())
            state = {**state, "curve": [p for p in state["curve"] if p["step"] in keep]}
    schedule = _Schedule(optimizer, run, settings, state["step"])
    heldout = data.windows("heldout", settings.eval_windows, settings.context)
    train_windows = data.windows("train", settings.eval_windows, settings.context)
    tokens_per_step = settings.batch_size * settings.context
    for target in run.points():
        if target <= state["step"]:
            continue
        steps = target - state["step"]
        if not budget.allows(steps):
            raise OutOfSteps(run.id)
        wall, cpu = time.perf_counter(), time.process_time()
        history = train(
            model,
            lambda m, b: m.loss(*b),
            lambda _: data.batch(settings.batch_size, settings.context, generator),
            steps=steps,
            optimizer=optimizer,
            scheduler=schedule,
            clip_norm=settings.clip_norm,
            device=device,
            progress=False,
        )
        if history.diverged:  # a rate too high for this size: recorded, never silently averaged in
            return {
                **run.identity(),
                "diverged": True,
                "diverged_before": target,
                "curve": state["curve"],
                "final": None,
            }
        state["step"] = target
        state["curve"].append(
            {
                "step": target,
                "tokens": target * tokens_per_step,
                "lr": history.lr[-1],
                "heldout_loss": heldout_loss(model, heldout),
                "train_loss": heldout_loss(model, train_windows),
            }
        )
        state["wall_seconds"] += time.perf_counter() - wall
        state["cpu_seconds"] += time.process_time() - cpu
        budget.used += steps
        budget.on_steps(steps, run.id, state["curve"][-1]["heldout_loss"])
        snapshot = {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "generator": generator.get_state(),
            "state": state,
        }
        _save(snapshot, checkpoint)
        if target in run.snapshots:
            _save(snapshot, workdir / "snap" / f"{run.id}@{target}.pt")
    windows = data.windows("heldout", settings.final_windows, settings.context)
    final = continuation_metrics(model, windows, data.chars, settings.emergence_start, settings.max_k)
    if keep_model:
        weights = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
        _save(weights, workdir / "models" / f"{run.id}.pt")
    info = describe(run, data, settings)
    tokens = run.steps * tokens_per_step
    record = {
        **run.identity(),
        "diverged": False,
        "branch": list(run.branch) if run.branch else None,
        **info,
        "tokens": tokens,
        "flops": info["flops_per_token"] * tokens,
        "kaplan_flops": 6 * info["non_embedding_params"] * tokens,
        "total_param_flops": 6 * info["total_params"] * tokens,
        "wall_seconds": round(state["wall_seconds"], 2),
        "cpu_seconds": round(state["cpu_seconds"], 2),
        "curve": state["curve"],
        "final": final,
    }
    return record


def finished(workdir: Path, run: Run) -> None:
    """Remove a finished run's checkpoint (its record is stored by the caller first)."""
    workdir = check_path("workdir", workdir)
    check_type("run", run, Run, "a Run")
    (Path(workdir) / "ckpt" / f"{run.id}.pt").unlink(missing_ok=True)


def load_weights(path: os.PathLike) -> dict:
    """Weights written by ``train_run(..., keep_model=True)``."""
    what = "a weights file written by train_run(..., keep_model=True)"
    try:
        return _load(check_file("path", path, what))
    except ValueError as error:
        raise ValueError(f"path must be {what}; {error}") from None


def timed_steps(size: str, data: CharData, settings: Settings, steps: int = 8) -> float:
    """CPU seconds per training step of one size (after two warm-up steps), to estimate a sweep's cost."""
    check_str("size", size, what="a size name 'LAYERSxWIDTH'")
    parse_size(size)
    check_type("data", data, CharData, "a dl4nlp.sweep.CharData")
    check_type("settings", settings, Settings, "a Settings (SweepSpec.settings())")
    check_int("steps", steps)
    torch.manual_seed(0)
    model = TransformerLM(model_config(size, len(data.chars), settings.context))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(0)
    for i in range(steps + 2):
        if i == 2:
            start = time.process_time()
        loss = model.loss(*data.batch(settings.batch_size, settings.context, generator))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return (time.process_time() - start) / steps


__all__: Sequence[str] = ("Run", "Settings", "Budget", "OutOfSteps", "train_run", "run_id", "run_seed", "describe")
