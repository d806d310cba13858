"""Chapter 14's claims: on both seeds of the shipped sweep, and the live schedule race on other seeds."""

import functools
import math

import numpy as np
import pytest

from dl4nlp.experiments import CLAIM_SEEDS
from dl4nlp.experiments.scaling import (
    BENDING_RATIO,
    BENDING_SIZES,
    DEEP_SHAPES,
    EMERGENCE_RISE,
    FLAT_SIZES,
    FLAT_SLOPE,
    ISOFLOP_EXCLUDES,
    ISOFLOP_INCLUDES,
    NEAR_SHAPES,
    SCHEDULE_MIN_STEPS,
    SHAPE_FAR,
    SHAPE_NEAR,
    SHAPE_SPREAD_MAX,
    SHAPE_SPREAD_MIN,
    SMOOTH_R2,
    SMOOTH_RISE,
    STEADY_RATIO,
    STEADY_SIZES,
    retrace_run,
    schedule_race,
    sweep_claims,
)
from dl4nlp.sweep import load_sweep
from dl4nlp.sweep_analysis import final_loss, select


@functools.cache
def sweep():
    return load_sweep()


@functools.cache
def claims(seed):
    return sweep_claims(sweep(), seed)


def sweep_seeds():
    spec = sweep()["recipe"]["spec"]
    return (spec["seed"], spec["second_seed"])


@pytest.mark.parametrize("index", [0, 1], ids=["first seed", "second seed"])
def test_finished_cosine_runs_beat_constant_and_wsd_matches_cosine(index):
    c = claims(sweep_seeds()[index])
    assert c.schedules, "the sweep trained sizes with all three schedules"
    behind = []
    for pair in c.schedules:
        assert pair["wsd"] <= pair["cosine"] + 0.005, pair
        if pair["steps"] >= SCHEDULE_MIN_STEPS:
            if pair["cosine"] >= pair["constant"]:
                behind.append(pair["cosine"] - pair["constant"])
            if not math.isnan(pair["longest_cosine_at_steps"]):
                assert pair["cosine"] < pair["longest_cosine_at_steps"], pair
    # from 900 steps on: every comparison on the first seed, 2 of 4 turned over (by under 0.02) on the second
    assert len(behind) == (0 if index == 0 else 2) and max(behind, default=0) < 0.02, behind


@pytest.mark.parametrize("index", [0, 1], ids=["first seed", "second seed"])
def test_neither_seed_asks_for_a_floor_of_l_of_n_nor_rules_one_out(index):
    c = claims(sweep_seeds()[index])
    assert c.aicc_plain < c.aicc_floor and c.loo_plain < c.loo_floor < 1.1 * c.loo_plain, c
    assert c.floor_interval[0] < 0.05 and c.floor_interval[1] > 1.5, c.floor_interval
    assert np.any(np.diff(c.fixed_loss) > 0)


def test_l_of_d_bends_for_small_models_only():  # the first seed: the second has three budgets per size
    c = claims(sweep_seeds()[0])
    for size in BENDING_SIZES:
        assert c.slopes[size][-1] < BENDING_RATIO * c.slopes[size].max(), (size, c.slopes[size])
    steepest = min(c.slopes[size].max() for size in BENDING_SIZES)
    for size in FLAT_SIZES:
        assert c.slopes[size].max() < min(FLAT_SLOPE, steepest / 3), (size, c.slopes[size])
    for size in STEADY_SIZES:
        assert c.slopes[size][-1] > STEADY_RATIO * c.slopes[size].max(), (size, c.slopes[size])


@pytest.mark.parametrize("index", [0, 1], ids=["first seed", "second seed"])
def test_three_methods_put_a_above_one_half_and_isoflop_excludes_it(index):
    c = claims(sweep_seeds()[index])
    assert min(c.a_envelope["counted"].value, c.a_isoflop.value, c.parametric.a) > 0.5
    assert ISOFLOP_EXCLUDES < c.a_isoflop.ci[0] < ISOFLOP_INCLUDES < c.a_isoflop.ci[1], c.a_isoflop
    assert c.parametric.intervals["a"][0] > 0.5, c.parametric.intervals
    low, high = c.a_envelope["counted"].ci
    assert low < 0.5 and 0.73 < high, c.a_envelope["counted"]


@pytest.mark.parametrize("index", [0, 1], ids=["first seed", "second seed"])
def test_counting_non_embedding_parameters_steepens_the_allocation(index):
    c = claims(sweep_seeds()[index])
    a = c.a_envelope
    assert a["kaplan"].value > a["chinchilla"].value < a["counted"].value, a
    assert abs(a["chinchilla"].value - 0.5) < a["chinchilla"].se, a["chinchilla"]


@pytest.mark.parametrize("index", [0, 1], ids=["first seed", "second seed"])
def test_emergence_is_in_the_metric(index):
    c = claims(sweep_seeds()[index])
    rise_chars = c.completion_chars[-1] / c.completion_chars[0]
    r2 = np.corrcoef(np.log(c.frontier_flops), c.completion_chars)[0, 1] ** 2
    assert c.completion_exact[-1] > EMERGENCE_RISE * c.completion_exact[0], c.completion_exact
    assert rise_chars < SMOOTH_RISE and r2 > SMOOTH_R2, (rise_chars, r2)


def test_shape_matters_by_five_to_ten_percent_middle_shapes_stay_near_the_best():
    bests = []
    for seed in sweep_seeds():
        loss = {name: value for name, _, _, _, value in claims(seed).shapes}
        best = min(loss.values())
        assert SHAPE_SPREAD_MIN < max(loss.values()) / best - 1 < SHAPE_SPREAD_MAX, loss
        assert all(loss[name] / best - 1 < SHAPE_NEAR for name in NEAR_SHAPES), loss
        assert all(loss[name] / best - 1 > SHAPE_FAR for name in DEEP_SHAPES), loss
        bests.append(min(loss, key=loss.get))
    assert bests[0] == sweep()["recipe"]["spec"]["shape_reference"] != bests[1], bests


def test_the_live_schedule_race_on_other_seeds():
    lr = sweep()["lr_search"]["1x8"]["chosen_lr"]
    races = [schedule_race(seed, size="1x8", steps=512, lr=lr) for seed in CLAIM_SEEDS]
    for race in races:
        assert race.wsd < min(race.cosine, race.constant), race
    # under 900 steps cosine against constant is a close call: the constant run is ahead on exactly one seed
    assert sum(race.cosine > race.constant for race in races) == 1, races


def test_a_retraced_run_lands_on_the_sweeps_own_on_the_second_seed():
    """Chapter 14 retraces the first seed's smallest cosine run live and finds it within 0.02 of the sweep's; the
    second seed's run, retraced from its own initial weights and batches, lands as close."""
    second, size = sweep_seeds()[1], sweep()["recipe"]["spec"]["sizes"][0]
    shipped = select(sweep(), role="fixed_data", seed=second, size=size)[0]
    retraced = retrace_run(seed=second, size=size, steps=shipped["steps"], lr=shipped["peak_lr"])
    assert abs(final_loss(retraced) - final_loss(shipped)) < 0.02, (final_loss(retraced), final_loss(shipped))
