"""Chapter 08's experiment-level claims, re-run on the claim seeds (chapter 08 asserts them on seed 0).

Budget: a few seconds per seed on an idle 2-core CPU (one small model trained per seed).
"""

import pytest

from dl4nlp.experiments import CLAIM_SEEDS
from dl4nlp.experiments import attention as experiments


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_reversal_heads_layer_two_reads_the_mirror_and_is_sharper(seed):
    result = experiments.reversal_heads(seed)
    claims = experiments.heads_claims(result)
    assert all(claims.values()), (claims, result)


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_held_out_strings_are_never_training_strings(seed):
    seen = experiments.training_strings(seed)
    held_out = experiments.held_out(seed)
    assert len(held_out) == experiments.TEST_STRINGS
    assert not any(tuple(row) in seen for row in held_out.tolist())


def test_the_reverser_is_trained_once_per_seed():
    assert experiments.trained_reverser(1) is experiments.trained_reverser(1)


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_the_scaling_widget_shows_unscaled_scores_saturating(seed):
    """Chapter 08's widget (softmax_drawer): at d_k = 1024 one query's unscaled softmax puts more than 0.8 of its
    weight on one key, more than twice its largest weight when the scores are divided by sqrt(d_k)."""
    import matplotlib.pyplot as plt

    draw = experiments.softmax_drawer(n_keys=10, seed=seed)
    unscaled = max(bar.get_height() for bar in draw(d_k=1024, scaled=False).axes[0].patches)
    scaled = max(bar.get_height() for bar in draw(d_k=1024, scaled=True).axes[0].patches)
    plt.close("all")
    assert unscaled > 0.8 and unscaled > 2 * scaled, (unscaled, scaled)
