"""Chapter 10's claims on other seeds.

The cheap experiments (the ladder's step the notebook trains live, gradient
norms at initialisation) are re-run here for every seed of ``CLAIM_SEEDS``, and
must reproduce the shipped table to within the spread measured across CPU
kernel configurations (``LADDER_KERNEL_SPREAD``). The costly ones (the ladder's
two ablations, the warm-up study) were run by their recipe on several seeds,
with the same experiment functions at the module's sizes; here their shipped
numbers are checked seed by seed, and that they were made at the sizes the
module fixes today.
"""

import pytest

from dl4nlp.experiments import CLAIM_SEEDS
from dl4nlp.experiments import transformer as ex


@pytest.fixture(scope="module")
def table():
    return ex.load_ablation_table()


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_ingredient_ladder(seed, table):
    """The step the notebook trains live, re-run: residuals gain more than RESIDUAL_GAIN and beat the bigram."""
    result = ex.ingredient_ladder(seed, variants=("+ feed-forward", "+ residual"))
    losses = dict(zip(result.variants, result.heldout))
    assert losses["+ feed-forward"] - losses["+ residual"] >= ex.RESIDUAL_GAIN, losses
    assert losses["+ residual"] < result.bigram, (losses, result.bigram)
    shipped = {row["seed"]: row for row in table["ladder"]}
    if seed in shipped:  # the table was made by this very function: the same numbers, up to the kernels' spread
        for variant, loss in losses.items():
            shipped_loss = shipped[seed]["heldout"][shipped[seed]["variants"].index(variant)]
            assert shipped_loss == pytest.approx(loss, abs=ex.LADDER_KERNEL_SPREAD), (variant, seed)


def test_ladder_table_with_its_ablations(table):
    assert table["ladder_sizes"] == ex.LADDER_SIZES
    assert len(table["ladder"]) >= 5
    for row in table["ladder"]:
        claims = ex.ladder_claims(dict(zip(row["variants"], row["heldout"])), row["bigram"], row["unigram"])
        assert all(claims.values()), (row, claims)


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_layer_gradient_norms(seed):
    norms = ex.layer_gradient_norms(seed)
    ratios = [post[-1] / pre[-1] for post, pre in zip(norms.post, norms.pre)]
    assert ratios[-1] >= ex.POST_OVER_PRE_DEEPEST and ratios[-1] > ratios[0], ratios
    post, pre = norms.post[-1], norms.pre[-1]
    assert all(a > b for a, b in zip(post, pre)), (post, pre)
    assert post[-1] / pre[-1] > post[0] / pre[0], (post, pre)
    assert max(pre) / min(pre) < 2.0, pre
    if seed in (2, 3):  # the notebook says: on these seeds post-LN's own last-block gradient is below its first's
        assert post[-1] < post[0], post


def test_warmup_runs_table(table):
    """``warmup_runs`` on the table's seeds: everything trains; post-LN within 0.15 nats of pre-LN; warm-up changes
    no run by 0.05 nats or more."""
    assert table["warmup_sizes"] == ex.WARMUP_SIZES
    assert len(table["warmup"]) >= 3
    for row in table["warmup"]:
        losses = dict(zip(row["runs"], row["heldout"]))
        assert not any(row["diverged"]), row
        assert abs(losses["post-LN, no warm-up"] - losses["pre-LN, no warm-up"]) < 0.15, losses
        for placement in ("post-LN", "pre-LN"):  # chapter 10: warm-up changes no run by 0.05 nats or more
            assert abs(losses[f"{placement}, warm-up"] - losses[f"{placement}, no warm-up"]) < 0.05, losses


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_scratch_gpt_trains_like_the_library(seed):
    """Chapter 10's GPT written out (the exercises' solution) and the library's, from the same weights on the same
    batches (each trained by train_live_gpt, as the notebook trains them): the same held-out loss to within
    SCRATCH_GPT_TOLERANCE, and both learn (below 2.8 nats at the end)."""
    scratch, library = ex.scratch_against_library(seed)
    assert abs(scratch.heldout - library.heldout) < ex.SCRATCH_GPT_TOLERANCE, (scratch.heldout, library.heldout)
    for run in (scratch, library):
        assert sum(run.loss[-10:]) / 10 < 2.8, run.loss[-10:]
