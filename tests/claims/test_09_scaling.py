"""Notebook 09's claims: on both seeds of the shipped sweep, and the live schedule race on other seeds."""

import functools
import math

import numpy as np
import pytest

from dl4nlp.experiments import CLAIM_SEEDS
from dl4nlp.experiments.scaling import (
    BENDING_RATIO,
    BENDING_SIZES,
    EMERGENCE_RISE,
    SCHEDULE_MIN_STEPS,
    SMOOTH_R2,
    SMOOTH_RISE,
    STEADY_RATIO,
    STEADY_SIZES,
    schedule_race,
    sweep_claims,
)
from dl4nlp.sweep import load_sweep


@functools.cache
def sweep():
    return load_sweep()


@functools.cache
def claims(seed):
    return sweep_claims(sweep(), seed)


def sweep_seeds():
    spec = sweep()["recipe"]["spec"]
    return (spec["seed"], spec["second_seed"])


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("index", [0, 1], ids=["first seed", "second seed"])
def test_finished_cosine_runs_beat_constant_and_wsd_matches_cosine(index):
    c = claims(sweep_seeds()[index])
    assert c.schedules, "the sweep trained sizes with all three schedules"
    for pair in c.schedules:
        if pair["steps"] >= SCHEDULE_MIN_STEPS:
            assert pair["cosine"] < pair["constant"], pair
        assert pair["wsd"] <= pair["cosine"] + 0.005, pair
        if not math.isnan(pair["longest_cosine_at_steps"]):
            assert pair["cosine"] < pair["longest_cosine_at_steps"], pair


def test_l_of_d_bends_for_small_models_only():  # the first seed: the second has three budgets per size
    c = claims(sweep_seeds()[0])
    for size in BENDING_SIZES:
        assert c.slopes[size][-1] < BENDING_RATIO * c.slopes[size].max(), (size, c.slopes[size])
    for size in STEADY_SIZES:
        assert c.slopes[size][-1] > STEADY_RATIO * c.slopes[size].max(), (size, c.slopes[size])


@pytest.mark.parametrize("index", [0, 1], ids=["first seed", "second seed"])
def test_counting_non_embedding_parameters_steepens_the_allocation(index):
    c = claims(sweep_seeds()[index])
    assert c.a_envelope["kaplan"].value > c.a_envelope["chinchilla"].value, c.a_envelope


@pytest.mark.parametrize("index", [0, 1], ids=["first seed", "second seed"])
def test_emergence_is_in_the_metric(index):
    c = claims(sweep_seeds()[index])
    rise_exact = c.completion_exact[-1] / c.completion_exact[0]
    rise_chars = c.completion_chars[-1] / c.completion_chars[0]
    r2 = np.corrcoef(np.log(c.frontier_flops), c.completion_chars)[0, 1] ** 2
    assert rise_exact > EMERGENCE_RISE and rise_chars < SMOOTH_RISE and r2 > SMOOTH_R2, (rise_exact, rise_chars, r2)


def test_the_live_schedule_race_on_other_seeds():
    lr = sweep()["lr_search"]["1x8"]["chosen_lr"]
    for seed in CLAIM_SEEDS:
        race = schedule_race(seed, size="1x8", steps=512, lr=lr)
        assert race.wsd < race.cosine < race.constant, race
