"""Chapter 11's claims on other seeds.

The costly experiments (the induction heads, the race against chapter 06's GRU)
were run by their recipes on several seeds, with the same experiment functions
at the module's sizes; here their shipped numbers are checked seed by seed, that
they were made at the sizes the module fixes today, and the shipped induction
model on fresh sequences for every seed of ``CLAIM_SEEDS``.
"""

import math

from dl4nlp.experiments import CLAIM_SEEDS
from dl4nlp.experiments import transformer as ex


def test_induction_heads_on_every_trained_seed():
    """``train_induction_model`` / ``induction_heads`` on the recipe's seeds, and the shipped model on fresh data."""
    import torch

    model, checkpoint = ex.load_induction_model()
    assert checkpoint.extra["sizes"] == ex.INDUCTION_SIZES
    runs = checkpoint.provenance["results"]["seeds"]
    assert [r["seed"] for r in runs] == list(range(len(runs))) and len(runs) >= 4
    for run in runs:
        layer_2 = run["induction_attention"][1]
        assert run["repeat_loss"][-1] < ex.INDUCTION_LOSS, run["seed"]
        assert abs(run["first_loss"][-1] - math.log(32)) < ex.CHANCE_TOLERANCE, run["seed"]
        assert max(layer_2) >= ex.INDUCTION_ATTENTION, run["seed"]
        assert max(layer_2) >= ex.INDUCTION_OVER_UNIFORM * run["uniform_attention"], run["seed"]
    sharp = [max(run["induction_attention"][1]) >= ex.SHARP_INDUCTION for run in runs]
    assert sum(sharp) >= ex.SHARP_FRACTION * len(runs), sharp
    for seed in CLAIM_SEEDS:
        fresh = ex.repeat_batch(256, torch.Generator().manual_seed(100 + seed))
        first, repeat, induction, previous, uniform = ex.induction_scores(model, fresh)
        assert repeat < ex.INDUCTION_LOSS and abs(first - math.log(32)) < ex.CHANCE_TOLERANCE
        assert max(induction[1]) >= max(ex.INDUCTION_ATTENTION, ex.INDUCTION_OVER_UNIFORM * uniform)
        # chapter 11: every layer-2 head sharp (9 times uniform); no layer-1 head half on the previous position
        assert min(induction[1]) > ex.SHARP_INDUCTION and min(induction[1]) >= 9 * uniform, (induction, uniform)
        assert max(previous[0]) < 0.5, previous
        # chapter 11: the layer-2 heads park at least half their weight on token 0 in the first stretch, <= 0.15 after
        in_first, in_repeat = ex.first_token_attention(model, fresh)
        assert min(in_first[1]) >= 0.5 and max(in_repeat[1]) <= 0.15, (in_first, in_repeat)


def date_claims(c):
    """Chapter 11's race on one seed: equal sizes; the GRU ahead in every bin before the end, the Transformer's
    worst bin after 200 steps the longest dates; both above their floors in every bin at the end."""
    transformer, gru = c["parameters"]
    assert abs(transformer - gru) / gru < 0.02
    assert c["steps"][1] == 200
    for t_row, g_row in zip(c["transformer"][:-1], c["gru"][:-1]):
        assert all(g >= t for t, g in zip(t_row, g_row)), c
    assert min(c["transformer"][1]) == c["transformer"][1][-1], c
    assert min(c["transformer"][-1]) >= ex.DATE_TRANSFORMER_FLOOR and min(c["gru"][-1]) >= ex.DATE_GRU_FLOOR, c


def test_date_comparison_on_every_trained_seed():
    """``compare_on_dates`` / ``date_comparison`` on the recipe's seeds (three, made at today's sizes)."""
    model, checkpoint = ex.load_date_transformer()
    assert checkpoint.extra["sizes"] == ex.DATE_SIZES and checkpoint.config["d_model"] == ex.DATE_SIZES["d_model"]
    comparisons = checkpoint.provenance["results"]["seeds"]
    assert [c["seed"] for c in comparisons] == [0, 1, 2]
    for c in comparisons:
        date_claims(c)


def test_vit_against_baselines_on_other_seeds():
    """``dl4nlp.vit.vit_vs_baselines`` on seeds 1-3 (each its own split and initialisation): the notebook's claims."""
    from dl4nlp import vit

    for seed in CLAIM_SEEDS:
        result = vit.vit_vs_baselines(seed)
        acc, train_acc = result.accuracy, result.train_accuracy
        assert result.disjoint and result.n_train + result.n_test == vit.N_DIGITS, seed
        assert max(result.parameters.values()) <= 1.06 * min(result.parameters.values())
        assert acc["ViT"] > 0.85, (seed, acc)
        assert acc["CNN"] > acc["ViT"] and acc["MLP"] > acc["ViT"], (seed, acc)
        assert train_acc["CNN"] > train_acc["ViT"], (seed, train_acc)


def icl_holds(counts, accuracy, control, tolerance):
    """Chapter 11's in-context claims on one table: chance with no example; within ``tolerance`` of the
    majority-vote reader at every count; above copying the last example from three examples on; at least 0.95
    with eight; the control (examples of another table) at chance at every count."""
    from dl4nlp import icl

    row = dict(zip(counts, accuracy))
    assert abs(row[0] - icl.chance()) < tolerance, row
    assert all(abs(row[c] - icl.ideal_accuracy(c)) < tolerance for c in counts), row
    assert min(row[c] for c in counts if c >= 3) > icl.copy_last_accuracy(3) + 0.05, row
    assert row[8] >= 0.95, row
    assert all(abs(a - icl.chance()) < tolerance for a in control), control


def test_in_context_learning_on_every_trained_seed():
    """``dl4nlp.icl.train_icl_model`` / ``icl_table`` on the recipe's three seeds (made at today's sizes), and the
    shipped seed-0 model on fresh prompts from other streams for every seed of ``CLAIM_SEEDS``."""
    import torch

    from dl4nlp import icl

    model, checkpoint = icl.load_icl_model()
    assert checkpoint.extra["sizes"] == icl.ICL_SIZES
    tables = checkpoint.provenance["results"]["seeds"]
    assert [t["seed"] for t in tables] == list(range(len(tables))) and len(tables) >= 3
    for table in tables:
        assert table["counts"] == list(icl.COUNTS)
        icl_holds(table["counts"], table["accuracy"], table["control"], 0.04)  # 2,000 prompts per count
        assert table["loss"][-1] < table["loss"][0] - 1.0, table["loss"][::8]
    for seed in CLAIM_SEEDS:
        generator = torch.Generator().manual_seed(20_000 + seed)
        live = icl.accuracy_by_examples(model, generator, n=500)
        control = icl.accuracy_by_examples(model, generator, n=500, corrupt=True)
        icl_holds(icl.COUNTS, [live[c] for c in icl.COUNTS], [control[c] for c in icl.COUNTS], 0.06)
