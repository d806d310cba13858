"""The scaling sweep of notebook 14: tiny character-level Transformer LMs, tuned, at many sizes and budgets.

    python -m dl4nlp.recipes.scaling_sweep --out data/scaling_sweep.json --threads 1

Phases, each resumable (run the same command again after an interruption):

1. learning-rate search: for each size, cosine runs of ``lr_search_steps`` steps at peak rates on a grid
   of factor sqrt(2), starting from the previous size's best and extended downwards and upwards until
   ``lr_bracket`` tried rates on each side of the lowest loss are worse (two on each side by default:
   the loss against the rate is bumpy at this budget, so one worse neighbour does not bracket it);
   the size's rate is ``lr_backoff`` grid steps below the lowest-loss rate (0 by default: that rate);
2. the grid: for each size and each compute level C (counted training FLOPs), one cosine run of
   round(C / (FLOPs per token x tokens per step)) steps, if that lies in [min_steps, max_steps],
   so that every run sits on an IsoFLOP line (Hoffmann et al. 2022, approaches 1-3);
3. schedules: for ``constant_sizes``, one constant-rate run as long as the size's longest budget,
   and a warmup-stable-decay run at each budget, branched off the constant run where its decay starts;
4. shapes: the learning-rate search for several depth x width shapes at the non-embedding size of
   ``shape_reference`` (deeper versus wider at fixed N);
5. the second seed: the grid at ``second_seed_levels``, phase 3 there, and every size and shape at
   ``lr_search_steps`` steps, at the rates chosen in phases 1 and 4 (the first seed's runs at those
   rates are its phase-1 and phase-4 runs).

Everything is written to a work folder keyed by the spec (a different spec never resumes another's
runs); only when every run is finished are ``--out`` and ``<stem>_models.pt`` (each size's longest
cosine run, float16, in the ``dl4nlp.checkpoint`` format) written, and never over existing files
without ``--overwrite``. ``--reuse FILE`` takes the records of finished runs from an earlier sweep's
results file whose runs share every setting (a run is a function of its size, schedule, steps, rate,
seed and those settings): plain cosine runs whose weights are not shipped, marked ``reused_from``.
Taught in notebook 14.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import time
from dataclasses import asdict
from pathlib import Path
from typing import Optional

import torch
from tqdm.auto import tqdm

from dl4nlp._checks import check_bool, check_device, check_int, check_number, check_path, check_str, check_type, given
from dl4nlp._version import __version__
from dl4nlp.checkpoint import check_output, save_checkpoint, write_json
from dl4nlp.data import data_path, load_text, md5sum
from dl4nlp.device import describe_environment
from dl4nlp.recipes import command_line, provenance, recipe_parser, start
from dl4nlp.recipes.scaling_run import (
    Budget,
    OutOfSteps,
    Run,
    describe,
    finished,
    load_weights,
    timed_steps,
    train_run,
)
from dl4nlp.recipes.scaling_spec import (
    HISTORY,
    SweepSpec,
    check_unique,
    default_workdir,
    spec_dict,
    trunk_and_branches,
)
from dl4nlp.sweep import MODELS_KIND, CharData, decay_start, model_config


class Sweep:
    """The sweep's state in its work folder (``state.json`` after every finished run) and its phases."""

    def __init__(
        self,
        spec: SweepSpec,
        workdir: Path,
        device: torch.device,
        command: str = "",
        progress: bool = False,
        reuse: Optional[Path] = None,
    ):
        check_type("spec", spec, SweepSpec, "a SweepSpec")
        workdir, device = check_path("workdir", workdir), check_device("device", device)
        check_str("command", command)
        check_bool("progress", progress)
        self.spec, self.workdir, self.device = spec, workdir, device
        self.data = CharData(load_text(spec.corpus), spec.heldout_fraction)
        self.settings = spec.settings()
        if reuse is not None:
            reuse = check_path("reuse", reuse)
            if not Path(reuse).is_file():
                raise FileNotFoundError(f"reuse must be an earlier sweep's results file; {reuse} does not exist")
        self.reusable, self.reuse_name = ({}, "") if reuse is None else (reusable_runs(spec, reuse), Path(reuse).name)
        self.path = self.workdir / "state.json"
        if self.path.exists():
            self.state = json.loads(self.path.read_text(encoding="utf-8"))
            if self.state["recipe"]["spec"] != spec_dict(spec):
                raise ValueError(
                    f"{self.workdir} holds a sweep with a different spec; choose another --workdir.\n"
                    f"stored: {self.state['recipe']['spec']}\nasked:  {spec_dict(spec)}"
                )
        else:
            self.state = {
                "recipe": {
                    "command": command,
                    "history": list(HISTORY),
                    "spec": spec_dict(spec),
                    "library_version": __version__,
                    "torch_version": torch.__version__,
                    "corpus": spec.corpus,
                    "corpus_md5": md5sum(data_path(spec.corpus)),
                    "sessions": [],
                    "wall_seconds": 0.0,
                    "cpu_seconds": 0.0,
                },
                "chars": self.data.chars,
                "lr_search": {},
                "runs": {},
                "complete": False,
            }
        self.session = {
            "command": command,
            "started": dt.datetime.now().isoformat(timespec="seconds"),
            "device": describe_environment(device),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores",
            "torch_threads": torch.get_num_threads(),
            "resumed": bool(self.state["runs"]) or any((self.workdir / "ckpt").glob("*.pt")),
            "steps": 0,
            "wall_seconds": 0.0,
            "cpu_seconds": 0.0,
        }
        self.state["recipe"]["sessions"].append(self.session)
        self._clock = (time.perf_counter(), time.process_time())
        self.bar = tqdm(desc="sweep", unit="step", disable=not progress)
        self.budget = Budget()

    def save(self) -> None:
        """Record this session's steps and time so far and write the state atomically."""
        self.session["steps"] = self.budget.used
        self.session["wall_seconds"] = round(time.perf_counter() - self._clock[0], 1)
        self.session["cpu_seconds"] = round(time.process_time() - self._clock[1], 1)
        for key in ("wall_seconds", "cpu_seconds"):
            self.state["recipe"][key] = round(sum(s[key] for s in self.state["recipe"]["sessions"]), 1)
        write_json(self.path, self.state)

    def ensure(self, run: Run, role: str, budget: Budget, keep_model: bool = False, **info) -> dict:
        """The record of ``run``: stored already, or trained now (and stored)."""
        check_type("run", run, Run, "a Run")
        check_str("role", role, nonempty=True)
        check_type("budget", budget, Budget, "a Budget")
        check_bool("keep_model", keep_model)
        record = self.state["runs"].get(run.id)
        if record is None and not keep_model and run.schedule == "cosine" and run.branch is None:
            stored = self.reusable.get(run.id)
            if stored is not None and stored["steps"] == run.steps and stored["peak_lr"] == run.lr:
                record = {**stored, "roles": [], "reused_from": self.reuse_name}
                for key in ("level",):  # what an earlier role added
                    record.pop(key, None)
                self.state["runs"][run.id] = record
        if record is None:
            self.bar.set_postfix(run=run.id)
            record = train_run(run, self.data, self.settings, self.workdir, self.device, budget, keep_model)
            record["roles"] = []
            self.state["runs"][run.id] = record
        if role not in record["roles"]:
            record["roles"].append(role)
        record.update(info)
        self.save()
        finished(self.workdir, run)
        return record

    def search(self, size: str, start: int, budget: Budget) -> tuple[int, int]:
        """Grid indices (chosen, lowest-loss) of the peak learning rate of ``size``: try the rates within
        ``lr_bracket`` grid steps of ``start`` and extend the tried range downwards and upwards until
        ``lr_bracket`` tried rates on each side of the lowest loss are worse; the chosen rate is ``lr_backoff``
        grid steps below the lowest-loss one."""
        if size not in self.spec.sizes + self.spec.shapes:
            raise ValueError(
                f"size must be one of the spec's sizes or shapes {self.spec.sizes + self.spec.shapes}; got {size!r}"
            )
        check_int("start", start, low=None)
        check_type("budget", budget, Budget, "a Budget")
        spec, losses = self.spec, {}
        todo = list(range(start - spec.lr_bracket, start + spec.lr_bracket + 1))
        while todo:
            for k in todo:
                run = Run(size, "cosine", spec.lr_search_steps, spec.lr(k), spec.seed)
                record = self.ensure(run, "lr_search", budget)
                losses[k] = math.inf if record["diverged"] else record["curve"][-1]["heldout_loss"]
            best = min(losses, key=losses.get)
            todo = [k for k in range(best - spec.lr_bracket, best + spec.lr_bracket + 1) if k not in losses]
        chosen = best - spec.lr_backoff
        self.state["lr_search"][size] = {
            "steps": spec.lr_search_steps,
            "tried": {f"{spec.lr(k):.6g}": losses[k] for k in sorted(losses)},
            "lowest_lr": spec.lr(best),
            "chosen_lr": spec.lr(chosen),
            "rule": f"cosine runs of {spec.lr_search_steps} steps at rates a factor {spec.lr_factor:.4g} apart, "
            f"extended until the {spec.lr_bracket} tried rates on each side of the lowest final held-out loss are "
            f"worse; the chosen rate is {spec.lr_backoff} grid steps (a factor {spec.lr_factor**spec.lr_backoff:.3g}) "
            "below the lowest-loss rate",
        }
        self.save()
        return chosen, best

    def run_all(self, budget: Budget) -> dict:
        """Every phase in order (each run trained once; stored runs are skipped); returns the state."""
        check_type("budget", budget, Budget, "a Budget")
        self.budget, spec, best = budget, self.spec, {}
        k = spec.lr_index(spec.lr_start)
        lowest = {}
        for size in spec.sizes:  # 1. learning rates (each search starts at the previous size's lowest-loss rate)
            best[size], lowest[size] = self.search(size, k, budget)
            k = lowest[size]
        flops = {s: describe(Run(s, "cosine", 1, 1.0, 0), self.data, self.settings)["flops_per_token"] for s in best}
        phases = [(spec.seed, spec.compute_levels)]
        if spec.second_seed is not None:
            phases.append((spec.second_seed, spec.second_seed_levels))
        # Each run depends only on its own settings, so the order of the phases changes no number; it puts what
        # most claims need first (an interrupted sweep has both seeds' grids before the shapes).
        for seed, levels in phases:
            for size in spec.sizes:  # 2. the grid
                budgets = spec.budgets(flops[size], levels)
                runs = [Run(size, "cosine", steps, spec.lr(best[size]), seed) for steps in budgets.values()]
                check_unique(runs)
                for (level, steps), run in zip(budgets.items(), runs):
                    keep = seed == spec.seed and steps == max(budgets.values())
                    self.ensure(run, "grid", budget, keep_model=keep, level=level)
            for size in spec.sizes:  # every size at one budget, at its chosen rate
                self.ensure(Run(size, "cosine", spec.lr_search_steps, spec.lr(best[size]), seed), "fixed_data", budget)
            for size in spec.constant_sizes:  # 3. schedules
                budgets = sorted(spec.budgets(flops[size], levels).values())
                for run in trunk_and_branches(spec, size, budgets, spec.lr(best[size]), seed):
                    self.ensure(run, "schedules", budget)
        for shape in spec.shapes:  # 4. shapes: a search each (first seed), then both seeds at the search's budget
            best[shape] = self.search(shape, lowest[spec.shape_reference], budget)[0]
        for seed, _ in phases:
            for shape in spec.shapes:
                run = Run(shape, "cosine", spec.lr_search_steps, spec.lr(best[shape]), seed)
                self.ensure(run, "fixed_data", budget)
        self.state["complete"] = True
        self.save()
        return self.state


def reusable_runs(spec: SweepSpec, path: Path) -> dict:
    """The finished runs of an earlier sweep's results file ``path`` ({run id: record}), if that sweep shared
    every setting a run depends on (``SweepSpec.settings``, corpus, held-out fraction, characters); else an
    error."""
    check_type("spec", spec, SweepSpec, "a SweepSpec")
    path = check_path("path", path)
    if not Path(path).is_file():
        raise FileNotFoundError(f"path must be an earlier sweep's results file; {path} does not exist")
    state = json.loads(Path(path).read_text(encoding="utf-8"))
    _check_state(state)
    other = SweepSpec(**state["recipe"]["spec"])
    same = other.settings() == spec.settings() and (other.corpus, other.heldout_fraction) == (
        spec.corpus,
        spec.heldout_fraction,
    )
    chars = CharData(load_text(spec.corpus), spec.heldout_fraction).chars
    if not same or state["chars"] != chars:
        raise ValueError(f"path {path} comes from a sweep with other run settings; its runs cannot be reused")
    return {rid: r for rid, r in state["runs"].items() if r.get("branch") is None and r["schedule"] == "cosine"}


def _check_state(state) -> None:
    ok = isinstance(state, dict) and isinstance(state.get("runs"), dict) and "chars" in state
    if not ok or not isinstance(state.get("recipe"), dict) or "spec" not in state["recipe"]:
        raise TypeError(f"state must be a sweep's state (Sweep.state: 'recipe', 'runs', 'chars'); got {given(state)}")


def shipped_models(state: dict, workdir: Path) -> tuple[dict, dict]:  # (config, state_dict)
    """Configs and float16 weights (keys ``SIZE/name``, tied output layer once) of each size's longest
    cosine run of the first seed."""
    _check_state(state)
    workdir = check_path("workdir", workdir)
    spec = SweepSpec(**state["recipe"]["spec"])
    configs, weights, runs_of = {}, {}, {}
    for size in spec.sizes:
        runs = [r for r in state["runs"].values() if r["size"] == size and "grid" in r["roles"]]
        runs = [r for r in runs if r["seed"] == spec.seed and not r["diverged"]]
        if not runs:  # no budget of this size lies within [min_steps, max_steps]
            continue
        longest = max(runs, key=lambda r: r["steps"])
        stored = load_weights(Path(workdir) / "models" / f"{longest['id']}.pt")
        config = model_config(size, len(state["chars"]), spec.context)
        configs[size] = asdict(config)
        runs_of[size] = longest["id"]
        weights.update({f"{size}/{k}": v.half() for k, v in stored.items() if k != "lm_head.weight"})
    return {"models": configs, "runs": runs_of}, weights


def write_outputs(state: dict, workdir: Path, out: Path, overwrite: bool, started: float, device) -> None:
    """Write the results JSON and the models checkpoint (with its provenance) once the sweep is complete."""
    _check_state(state)
    workdir, out = check_path("workdir", workdir), check_path("out", out)
    check_bool("overwrite", overwrite)
    check_number("started", started)
    models = models_path(out)
    configs, weights = shipped_models(state, workdir)
    spec = state["recipe"]["spec"]
    record = provenance(
        command=state["recipe"]["command"],
        arguments={"spec": spec},
        seed=spec["seed"],
        device=device,
        started=started,
        corpora=[spec["corpus"]],
        results={"results_file": out.name, "runs": len(state["runs"])},
        history=HISTORY,
    )
    record["wall_seconds"] = state["recipe"]["wall_seconds"]
    save_checkpoint(
        models,
        kind=MODELS_KIND,
        config=configs,
        state_dict=weights,
        provenance=record,
        extra={"chars": state["chars"]},
        overwrite=overwrite,
    )
    check_output(out, overwrite=overwrite, suffix=".json")
    write_json(out, state)


def models_path(out: Path) -> Path:
    """Where the models go: next to ``out``, ``<stem>_models.pt`` (its provenance ``<stem>_models.json``)."""
    out = check_path("out", out)
    return out.with_name(out.stem + "_models.pt")


def estimate(spec: SweepSpec, searches_per_size: float = 4.0) -> list[tuple[str, int, float]]:
    """(size, planned steps, estimated CPU seconds) from a few timed steps; the search is assumed to take
    ``searches_per_size`` runs per size."""
    check_type("spec", spec, SweepSpec, "a SweepSpec")
    check_number("searches_per_size", searches_per_size, 0)
    data = CharData(load_text(spec.corpus), spec.heldout_fraction)
    settings = spec.settings()
    rows = []
    for size in spec.sizes + spec.shapes:
        f = describe(Run(size, "cosine", 1, 1.0, 0), data, settings)["flops_per_token"]
        steps = searches_per_size * spec.lr_search_steps
        if size in spec.sizes:
            for levels in [spec.compute_levels] + ([spec.second_seed_levels] if spec.second_seed is not None else []):
                budgets = sorted(spec.budgets(f, levels).values())
                steps += sum(budgets)
                if size in spec.constant_sizes and budgets:
                    steps += max(budgets) + sum(b - decay_start(b, spec.decay_fraction) for b in budgets)
        rows.append((size, int(steps), steps * timed_steps(size, data, settings) * 1.1))  # +10 % evaluations
    return rows


def parser() -> argparse.ArgumentParser:
    """The recipe's options: those of every recipe (--out, --overwrite, --seed, --threads, --device) and its own."""
    p = recipe_parser("scaling_sweep", __doc__.split("\n\n")[0])
    p.add_argument("--spec", default="{}", help="JSON object overriding fields of SweepSpec")
    p.add_argument("--workdir", type=Path, default=None, help="work folder (default: keyed by the spec, in tmp)")
    p.add_argument("--max-steps", type=int, default=None, help="stop this session after about this many steps")
    p.add_argument("--estimate", action="store_true", help="print the plan's estimated CPU time; train nothing")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--reuse", type=Path, default=None, help="an earlier sweep's results file whose identical runs are reused"
    )
    return p


def main(argv: Optional[list[str]] = None) -> int:
    args = parser().parse_args(argv)
    try:
        overrides = json.loads(args.spec)
    except json.JSONDecodeError as error:
        raise SystemExit(f"--spec must be a JSON object; got {args.spec!r} ({error})") from None
    if not isinstance(overrides, dict):
        raise SystemExit(f"--spec must be a JSON object (fields of SweepSpec); got {args.spec!r}")
    spec = SweepSpec(**{"seed": args.seed, **overrides})
    device = start(args)
    if args.estimate:
        rows = estimate(spec)
        for size, steps, seconds in rows:
            print(f"{size:>5}: {steps:>7,} steps, about {seconds:6.0f} CPU s")
        print(f"total: about {sum(r[2] for r in rows) / 60:.0f} CPU minutes on this machine")
        return 0
    out = Path(args.out)
    check_output(out, overwrite=args.overwrite, suffix=".json")  # refuse before any training
    check_output(models_path(out), overwrite=args.overwrite, suffix=".pt")
    started = time.perf_counter()
    workdir = args.workdir or default_workdir(spec)
    sweep = Sweep(
        spec, workdir, device, command_line("scaling_sweep", argv), progress=not args.no_progress, reuse=args.reuse
    )
    budget = Budget(args.max_steps, on_steps=lambda n, rid, loss: sweep.bar.update(n))
    try:
        state = sweep.run_all(budget)
    except OutOfSteps:
        sweep.save()
        print(f"stopped after {budget.used:,} steps; run the same command again to resume (work folder {workdir})")
        return 0
    finally:
        sweep.save()
        sweep.bar.close()
    write_outputs(state, workdir, out, args.overwrite, started, device)
    print(f"{len(state['runs'])} runs; wrote {out} and {models_path(out)} (work folder {workdir})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
