"""What the scaling sweep trains: its spec, its work folder, and the runs of its schedule phase.

``SweepSpec`` lists every choice of ``python -m dl4nlp.recipes.scaling_sweep`` (sizes, compute
levels, step range, the learning-rate grid and rule, schedules, shapes, seeds, evaluation); its hash
names the work folder, so a sweep never resumes another's runs. ``trunk_and_branches`` plans a
constant-rate run with a warmup-stable-decay branch per budget.
"""

from __future__ import annotations

import hashlib
import json
import math
import tempfile
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Optional

from dl4nlp._checks import check_int, check_number, check_sequence, check_type
from dl4nlp.data import CORPORA
from dl4nlp.recipes.scaling_run import Run, Settings
from dl4nlp.sweep import decay_start, parse_size

# The commands that made the file before the recipe moved (kept in its provenance as history).
HISTORY = (
    "python -m dl4nlp.scaling --threads 1  (the previous sweep: 37 runs, peak rate 3e-3 x (64/width)^0.5, "
    "not tuned; replaced by this recipe)",
    "python -m dl4nlp.recipes.scaling_sweep --out data/scaling_sweep.json --threads 1  (spec with lr_backoff=2: "
    "each size trained a factor 2 below its lowest-loss search rate, the search stopping at one worse rate on "
    "each side and never below 1e-3; replaced because that rate cost up to 0.16 nats at 512 steps)",
)


@dataclass(frozen=True)
class SweepSpec:
    """What the sweep trains. Sizes are ``'LAYERSxWIDTH'`` (heads of width 16 where possible)."""

    sizes: tuple[str, ...] = ("1x8", "1x16", "2x16", "2x24", "2x32", "3x40", "3x64", "4x80")
    compute_levels: tuple[float, ...] = tuple(2.5e10 * 2**k for k in range(7))
    min_steps: int = 128
    max_steps: int = 8192
    lr_search_steps: int = 512
    lr_base: float = 1e-3  # the grid of peak learning rates: lr_base * lr_factor ** k
    lr_factor: float = 2**0.5
    lr_start: float = 0.064  # where the search of the first size starts
    lr_backoff: int = 0  # the chosen rate is this many grid steps below the lowest-loss rate (0: that rate)
    lr_bracket: int = 2  # the search goes on until this many tried rates on each side of the lowest are worse
    constant_sizes: tuple[str, ...] = ("1x16", "2x32", "3x64")
    shapes: tuple[str, ...] = ("1x46", "3x26", "4x22", "6x18", "8x16")
    shape_reference: str = "2x32"
    second_seed: Optional[int] = 1
    second_seed_levels: tuple[float, ...] = (1e11, 2e11, 4e11)
    batch_size: int = 32
    context: int = 64
    warmup_steps: int = 16
    min_lr_ratio: float = 0.1
    decay_fraction: float = 0.2
    betas: tuple[float, float] = (0.9, 0.95)
    clip_norm: float = 1.0
    corpus: str = "tinyshakespeare.txt"
    heldout_fraction: float = 0.1
    eval_windows: int = 256
    final_windows: int = 1024
    emergence_start: int = 32
    max_k: int = 16
    seed: int = 0

    def __post_init__(self) -> None:
        for f in fields(self):  # JSON gives lists; keep tuples so that equal specs compare equal
            if isinstance(getattr(self, f.name), list):
                object.__setattr__(self, f.name, tuple(getattr(self, f.name)))
        ints = ("min_steps", "max_steps", "lr_search_steps", "batch_size", "context", "warmup_steps")
        for name in ints + ("eval_windows", "final_windows", "max_k"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer; got {value!r}")
        for name in ("sizes", "compute_levels", "constant_sizes", "shapes", "second_seed_levels", "betas"):
            check_type(name, getattr(self, name), tuple, "a tuple (or list)")
        check_int("emergence_start", self.emergence_start, low=0)
        check_int("seed", self.seed, low=0)
        if self.second_seed is not None:
            check_int("second_seed", self.second_seed, low=0)
        for name in ("lr_base", "lr_factor", "lr_start", "min_lr_ratio", "decay_fraction", "clip_norm"):
            check_number(name, getattr(self, name), 0, low_open=True)
        check_number("heldout_fraction", self.heldout_fraction, 0, 1, low_open=True, high_open=True)
        if len(self.betas) != 2:
            raise ValueError(f"betas must be a pair (beta1, beta2); got {self.betas}")
        for beta in self.betas:
            check_number("each of betas", beta, 0, 1, high_open=True)
        if not self.sizes:
            raise ValueError("sizes must name at least one model size; got ()")
        for name, group in (("sizes", self.sizes), ("constant_sizes", self.constant_sizes), ("shapes", self.shapes),
                            ("shape_reference", (self.shape_reference,))):  # fmt: skip
            for size in group:
                try:
                    parse_size(size)
                except ValueError as error:
                    raise ValueError(f"{name}: {error}") from None
        for name, group in (("sizes", self.sizes), ("shapes", self.shapes)):
            if len(set(group)) != len(group):
                raise ValueError(f"{name} must not repeat a size; got {group}")
        if not set(self.constant_sizes) <= set(self.sizes) or (self.shapes and self.shape_reference not in self.sizes):
            raise ValueError(
                f"constant_sizes and shape_reference must be among sizes {self.sizes}; "
                f"got {self.constant_sizes} and {self.shape_reference!r}"
            )
        if set(self.shapes) & set(self.sizes):
            raise ValueError(f"shapes must differ from sizes (they would repeat runs); got {self.shapes}")
        if self.min_steps > self.max_steps:
            raise ValueError(f"min_steps must be <= max_steps; got {self.min_steps} > {self.max_steps}")
        levels = list(self.compute_levels)
        if not levels or any(not (isinstance(c, (int, float)) and math.isfinite(c) and c > 0) for c in levels):
            raise ValueError(f"compute_levels must be positive finite FLOP counts; got {self.compute_levels}")
        if levels != sorted(set(levels)) or not set(self.second_seed_levels) <= set(levels):
            raise ValueError(
                f"compute_levels must increase strictly and include second_seed_levels; got "
                f"{self.compute_levels} and {self.second_seed_levels}"
            )
        check_number("lr_factor", self.lr_factor, 1, low_open=True)  # the grid must grow
        if isinstance(self.lr_backoff, bool) or not isinstance(self.lr_backoff, int) or self.lr_backoff < 0:
            raise ValueError(f"lr_backoff must be a non-negative integer; got {self.lr_backoff!r}")
        if isinstance(self.lr_bracket, bool) or not isinstance(self.lr_bracket, int) or self.lr_bracket < 1:
            raise ValueError(f"lr_bracket must be a positive integer; got {self.lr_bracket!r}")
        check_number("min_lr_ratio", self.min_lr_ratio, 0, 1, low_open=True, high_open=True)
        check_number("decay_fraction", self.decay_fraction, 0, 1, low_open=True, high_open=True)
        if self.corpus not in CORPORA:
            raise ValueError(f"corpus must be one of {tuple(CORPORA)}; got {self.corpus!r}")
        if not self.emergence_start + self.max_k < self.context:
            raise ValueError(f"emergence_start + max_k must be < context={self.context}")
        if self.second_seed == self.seed:
            raise ValueError(f"second_seed must differ from seed; both are {self.seed}")

    def settings(self) -> Settings:
        names = {f.name for f in fields(Settings)}
        return Settings(**{k: v for k, v in asdict(self).items() if k in names})

    def key(self) -> str:
        """A short hash of the spec: the name of its work folder."""
        return hashlib.sha256(json.dumps(spec_dict(self), sort_keys=True).encode()).hexdigest()[:12]

    def lr(self, index: int) -> float:
        """The learning rate of grid point ``index``: lr_base * lr_factor ** index, rounded to 6 digits."""
        check_int("index", index, low=None)
        return float(f"{self.lr_base * self.lr_factor**index:.6g}")

    def lr_index(self, lr: float) -> int:
        """The grid point of a learning rate (the nearest): the inverse of ``lr``."""
        check_number("lr", lr, 0, low_open=True)
        return round(math.log(lr / self.lr_base) / math.log(self.lr_factor))

    def budgets(self, flops_per_token: int, levels: Optional[tuple[float, ...]] = None) -> dict[float, int]:
        """Steps of the cosine run at each compute level for a model of this cost: {level: steps}."""
        check_int("flops_per_token", flops_per_token)
        if levels is not None:
            levels = check_sequence("levels", levels, what="a list of compute levels (FLOPs)")
            for level in levels:
                check_number("each of levels", level, 0, low_open=True)
        out = {}
        for level in self.compute_levels if levels is None else levels:
            steps = round(level / (flops_per_token * self.batch_size * self.context))
            if self.min_steps <= steps <= self.max_steps:
                out[level] = steps
        if len(set(out.values())) != len(out):
            raise ValueError(f"two compute levels give the same number of steps: {out}; space the levels wider")
        return out


def spec_dict(spec: SweepSpec) -> dict:
    """The spec as JSON would store it (tuples as lists)."""
    check_type("spec", spec, SweepSpec, "a SweepSpec")
    return json.loads(json.dumps(asdict(spec)))


def default_workdir(spec: SweepSpec) -> Path:
    """``<tmp>/dl4nlp-scaling-sweep-<spec hash>``: keyed by the spec, so another spec never resumes these runs."""
    check_type("spec", spec, SweepSpec, "a SweepSpec")
    return Path(tempfile.gettempdir()) / f"dl4nlp-scaling-sweep-{spec.key()}"


def trunk_and_branches(spec: SweepSpec, size: str, budgets: list[int], lr: float, seed: int) -> list[Run]:
    """A constant-rate run as long as the longest budget, then a warmup-stable-decay run per budget,
    each branched off the constant run at its decay start."""
    check_type("spec", spec, SweepSpec, "a SweepSpec")
    budgets = check_sequence("budgets", budgets, nonempty=False, what="a list of steps")
    for b in budgets:
        check_int("each of budgets", b)
    Run(size, "constant", 1, lr, seed)  # checks size, lr and seed
    if not budgets:
        return []
    starts = {b: decay_start(b, spec.decay_fraction) for b in budgets}
    branch_points = [Run(size, "wsd", b, lr, seed).points() for b in budgets]
    extra = set(budgets) | set(starts.values())
    for b, points in zip(budgets, branch_points):
        extra |= {p for p in points if p <= starts[b]}
    trunk = Run(size, "constant", max(budgets), lr, seed, tuple(sorted(extra)), tuple(sorted(set(starts.values()))))
    return [trunk] + [Run(size, "wsd", b, lr, seed, branch=(trunk.id, starts[b])) for b in budgets]


def check_unique(runs: list[Run]) -> None:
    """Reject a plan with two runs of the same id (they would overwrite each other's checkpoints)."""
    for run in check_sequence("runs", runs, nonempty=False, what="a list of Run"):
        check_type("each of runs", run, Run, "a Run")
    seen: dict[str, Run] = {}
    for run in runs:
        if run.id in seen and seen[run.id] != run:
            raise ValueError(f"two different runs share the id {run.id!r}: {seen[run.id]} and {run}")
        seen[run.id] = run
