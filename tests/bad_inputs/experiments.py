"""Bad inputs of dl4nlp.experiments.* (the seed-driven experiments behind the notebooks' claims).

Every case fails before any training starts (the experiments check their arguments first).
"""

from bad_inputs.harness import cases, choice_variants, exempt, int_variants, vary
from dl4nlp.experiments import length_normalisation as LN
from dl4nlp.experiments import seq2seq as E
from dl4nlp.seq2seq import Seq2Seq

exempt(
    "records of an experiment's numbers, returned by the experiment functions",
    "dl4nlp.experiments.seq2seq.BeamResult",
    "dl4nlp.experiments.seq2seq.BottleneckResult",
    "dl4nlp.experiments.seq2seq.BudgetResult",
    "dl4nlp.experiments.seq2seq.ExposureResult",
    "dl4nlp.experiments.seq2seq.ScoreResult",
)

SEEDS = [("negative", -1, "-1"), ("a float", 0.5, "0.5"), ("a string", "0", "'0'"), ("None", None, "None")]


@cases("dl4nlp.experiments.seq2seq.Reversal")
def _():
    yield from vary(E.Reversal, {}, "score", choice_variants(("dot", "general", "additive"))[:1])
    yield from vary(E.Reversal, {}, "sampling_prob", [("above 1", 1.5, "1.5"), ("negative", -0.1, "-0.1")])
    yield from vary(E.Reversal, {}, "steps", int_variants(1)[:3])
    yield from vary(E.Reversal, {}, "lr", [("0", 0.0, "0.0")])


@cases("dl4nlp.experiments.seq2seq.training_strings")
def _():
    yield from vary(E.training_strings, {}, "seed", SEEDS)


@cases("dl4nlp.experiments.seq2seq.held_out_strings")
def _():
    yield from vary(E.held_out_strings, dict(length=4, seed=0), "seed", SEEDS[:2])
    yield from vary(E.held_out_strings, dict(length=4, seed=0), "length", int_variants(1)[:3])
    yield from vary(E.held_out_strings, dict(length=4, seed=0), "n", int_variants(1)[:2])


@cases("dl4nlp.experiments.seq2seq.train_reverser")
def _():
    yield from vary(E.train_reverser, dict(variant=E.REVERSAL, seed=0), "seed", SEEDS[:2])
    yield from vary(
        E.train_reverser, dict(variant=E.REVERSAL, seed=0), "variant", [("a dict", (("score", "dot"),), "tuple")]
    )


@cases("dl4nlp.experiments.seq2seq.accuracy")
def _():
    model = Seq2Seq(len(E.REVERSE_VOCAB), len(E.REVERSE_VOCAB), d_embed=4, d_hidden=4)
    good = dict(model=model, pairs=[("abc", "cba")])
    yield from vary(
        E.accuracy,
        good,
        "pairs",
        [("empty", [], "[]"), ("one pair", ("abc", "cba"), "tuple"), ("an unknown letter", [("xyz", "zyx")], "'x'")],
    )
    yield from vary(E.accuracy, good, "model", [("a string", "model", "str")])


@cases("dl4nlp.experiments.seq2seq.bottleneck")
def _():
    yield from vary(E.bottleneck, {}, "seed", SEEDS)
    yield from vary(E.bottleneck, {}, "steps", int_variants(1)[:3])


@cases("dl4nlp.experiments.seq2seq.longer_training")
def _():
    yield from vary(E.longer_training, {}, "seed", SEEDS)
    yield from vary(E.longer_training, {}, "steps", int_variants(1)[:3])


def _budget_table() -> dict:
    run = {"steps": 100, "lengths": list(E.LENGTHS), "accuracy": [1.0] * 9, "final_loss": 0.1}
    return {"lengths": list(E.LENGTHS), "budgets": [100], "seeds": [0], "runs": [run],
            "attention_at_100_steps": [[1.0] * 9]}  # fmt: skip


@cases("dl4nlp.experiments.seq2seq.load_budget_table")
def _():
    yield from vary(E.load_budget_table, {}, "path", [("a missing file", "no_such_table.json", "no_such_table.json"),
                                                       ("a number", 3, "int")])  # fmt: skip


@cases("dl4nlp.experiments.seq2seq.budget_accuracy")
def _():
    good = dict(table=_budget_table(), seed=0, steps=100)
    incomplete = {**_budget_table(), "runs": []}
    tables = [("a list", [], "list"), ("runs missing", incomplete, "incomplete")]
    yield from vary(E.budget_accuracy, good, "table", tables)
    yield from vary(E.budget_accuracy, good, "seed", [("not in the table", 5, "5"), ("a string", "0", "'0'")])
    yield from vary(E.budget_accuracy, good, "steps", [("not a budget", 300, "300"), ("a float", 100.0, "100.0")])


@cases("dl4nlp.experiments.seq2seq.budget_claim")
def _():
    good = dict(table=_budget_table(), seed=0)
    yield from vary(E.budget_claim, good, "table", [("a dict without runs", {"seeds": [0]}, "runs")])
    yield from vary(E.budget_claim, good, "seed", [("not in the table", 5, "5")])


@cases("dl4nlp.experiments.seq2seq.score_comparison")
def _():
    yield from vary(E.score_comparison, {}, "seed", SEEDS)


@cases("dl4nlp.experiments.seq2seq.exposure_bias")
def _():
    yield from vary(E.exposure_bias, {}, "seed", SEEDS)


@cases("dl4nlp.experiments.seq2seq.beam_vs_greedy")
def _():
    yield from vary(E.beam_vs_greedy, {}, "seed", SEEDS[:2])
    yield from vary(E.beam_vs_greedy, {}, "beam_size", int_variants(1)[:3])


def _bottleneck_result():
    return E.BottleneckResult((2, 3), (1.0, 0.9), (0.8, 0.1), 0.1, 0.5)


@cases("dl4nlp.experiments.seq2seq.BottleneckResult.at")
def _():
    good = dict(lengths=(2,), which="attention")
    yield from vary(_bottleneck_result().at, good, "which", [("an unknown name", "bogus", "'bogus'")])
    yield from vary(
        _bottleneck_result().at,
        good,
        "lengths",
        [("a length not measured", (9,), "9"), ("an int, not a tuple", 2, "2")],
    )


@cases("dl4nlp.experiments.seq2seq.bottleneck_claim")
def _():
    yield from vary(
        E.bottleneck_claim,
        {},
        "result",
        [("another result", E.BeamResult(1, 0, 0, 0, 0, 0, 0), "BeamResult"), ("a dict", {}, "dict")],
    )


@cases("dl4nlp.experiments.seq2seq.exposure_claim")
def _():
    yield from vary(E.exposure_claim, {}, "result", [("another result", _bottleneck_result(), "BottleneckResult")])


@cases("dl4nlp.experiments.seq2seq.beam_claim")
def _():
    yield from vary(E.beam_claim, {}, "result", [("a tuple of numbers", (40, 3, 1, 20, 21), "tuple")])


# --- dl4nlp.experiments.length_normalisation (notebook 07) --------------------------------------
exempt(
    "records of an experiment's numbers, returned by the experiment functions",
    "dl4nlp.experiments.length_normalisation.LengthNormalisationResult",
)


@cases("dl4nlp.experiments.length_normalisation.held_out_words")
def _():
    yield from vary(LN.held_out_words, dict(seed=0), "seed", SEEDS)
    yield from vary(LN.held_out_words, dict(seed=0), "n", int_variants(1)[:3] + [("too many", 5000, "5000")])


@cases("dl4nlp.experiments.length_normalisation.length_normalisation")
def _():
    yield from vary(LN.length_normalisation, {}, "seed", SEEDS[:2])
    yield from vary(LN.length_normalisation, {}, "n", int_variants(1)[:2])


@cases("dl4nlp.experiments.length_normalisation.length_normalisation_claim")
def _():
    yield from vary(LN.length_normalisation_claim, {}, "result", [("a dict", {"words": 100}, "dict")])


# --- dl4nlp.experiments.scaling (notebook 14) -------------------------------------------------
exempt(
    "records of an experiment's numbers, returned by the experiment functions",
    "dl4nlp.experiments.scaling.ScheduleRace",
    "dl4nlp.experiments.scaling.SweepClaims",
)
exempt(
    "figure plumbing of chapter 14's widgets: takes no arguments",
    "dl4nlp.experiments.scaling.power_of_ten_formatter",
    "dl4nlp.experiments.scaling.attention_share_figure",
)


@cases("dl4nlp.experiments.scaling.emergence_drawer")
def _():
    from dl4nlp.experiments import scaling as X

    good = dict(claims={}, fronts={})
    yield from vary(
        X.emergence_drawer, good, "claims", [("a list", [], "list"), ("a dict of strings", {0: "a"}, "dict")]
    )
    yield from vary(X.emergence_drawer, good, "fronts", [("a list", [], "list"), ("other seeds", {3: []}, "dict")])


@cases("dl4nlp.experiments.scaling.schedule_race")
def _():
    from dl4nlp.experiments import scaling as X

    good = dict(seed=0, steps=8)
    yield from vary(X.schedule_race, good, "seed", SEEDS)
    yield from vary(
        X.schedule_race,
        good,
        "size",
        [("no x", "2-32", "'2-32'"), ("a number", 8, "int"), ("an odd width", "1x9", "'1x9'")],
    )
    yield from vary(X.schedule_race, good, "steps", int_variants(1))
    yield from vary(
        X.schedule_race, good, "lr", [("zero", 0.0, "0.0"), ("NaN", float("nan"), "nan"), ("a string", "0.01", "str")]
    )


@cases("dl4nlp.experiments.scaling.retrace_run")
def _():
    from dl4nlp.experiments import scaling as X

    good = dict(seed=0, steps=8)
    yield from vary(X.retrace_run, good, "seed", SEEDS)
    yield from vary(
        X.retrace_run,
        good,
        "size",
        [("no x", "2-32", "'2-32'"), ("a number", 8, "int"), ("an odd width", "1x9", "'1x9'")],
    )
    yield from vary(X.retrace_run, good, "steps", int_variants(1))
    yield from vary(
        X.retrace_run, good, "lr", [("zero", 0.0, "0.0"), ("NaN", float("nan"), "nan"), ("a string", "0.01", "str")]
    )


@cases("dl4nlp.experiments.scaling.sweep_claims")
def _():
    from dl4nlp.experiments import scaling as X
    from dl4nlp.sweep import load_sweep

    good = dict(results=load_sweep(), seed=0, n_bootstrap=2)
    yield from vary(
        X.sweep_claims, good, "results", [("a list", [], "list"), ("a path", "data/scaling_sweep.json", "str")]
    )
    yield from vary(X.sweep_claims, good, "seed", SEEDS + [("not trained", 7, "7")])
    yield from vary(X.sweep_claims, good, "n_bootstrap", int_variants(1))


# --- chapters 04 and 05: the exercise's fallback step and the figures of the character LSTM ---
def _lstm_step_good():
    import torch
    from torch import nn

    cell = nn.LSTMCell(3, 4)
    x, h = torch.randn(2, 3), torch.zeros(2, 4)
    return dict(
        x=x, h=h, c=h, weight_ih=cell.weight_ih, weight_hh=cell.weight_hh, bias_ih=cell.bias_ih, bias_hh=cell.bias_hh
    )


@cases("dl4nlp.experiments.lstm.library_lstm_step")
def _():
    import torch

    from dl4nlp.experiments import lstm as EL

    good = _lstm_step_good()
    yield from vary(
        EL.library_lstm_step,
        good,
        "x",
        [("a list", [[0.0, 1.0, 2.0]], "list"), ("one dimension", torch.zeros(3), "(3,)")],
    )
    yield from vary(EL.library_lstm_step, good, "h", [("integers", torch.zeros(2, 4, dtype=torch.long), "int64")])
    yield from vary(EL.library_lstm_step, good, "weight_ih", [("transposed", torch.zeros(3, 16), "(3, 16)")])
    yield from vary(EL.library_lstm_step, good, "bias_hh", [("a quarter", torch.zeros(4), "(4,)")])
    yield from vary(EL.library_lstm_step, good, "c", [("another batch", torch.zeros(5, 4), "(5, 4)")])


def _fake_quote(length=20):
    import numpy as np

    from dl4nlp.experiments.char_lstm import QuotationCell

    values = np.linspace(-1, 1, length)
    return QuotationCell(0, 1, 0.9, 0.5, 0.8, 0.8, {}, 0.5, 0.1, values, values, 0.7, 0.5)


@cases("dl4nlp.experiments.char_lstm.plot_quotation_cell")
def _():
    from dl4nlp.experiments import char_lstm as EC

    passage = 'he said "yes" and "no"'[:20]
    good = dict(passage=passage, quote=_fake_quote())
    yield from vary(EC.plot_quotation_cell, good, "quote", [("a string", "cell 3", "QuotationCell")])
    yield from vary(EC.plot_quotation_cell, good, "passage", [("too short", passage[:5], "5"), ("a number", 3, "int")])


@cases("dl4nlp.experiments.char_lstm.draw_cell")
def _():
    import numpy as np

    from dl4nlp.experiments import char_lstm as EC

    passage = 'he said "yes" and "no" to that'
    good = dict(passage=passage, cell_values=np.zeros((len(passage), 4)), cell=1, start=0, window=10)
    yield from vary(EC.draw_cell, good, "cell", [("past the last", 4, "4"), ("negative", -1, "-1")])
    yield from vary(EC.draw_cell, good, "start", [("past the end", 25, "25"), ("a float", 2.5, "2.5")])
    yield from vary(EC.draw_cell, good, "window", int_variants(1))
    yield from vary(
        EC.draw_cell,
        good,
        "cell_values",
        [("one row short", np.zeros((len(passage) - 1, 4)), "(29, 4)"), ("a list", [[0.0]], "list")],
    )


@cases("dl4nlp.experiments.char_lstm.plot_boundary_gates")
def _():
    import torch

    from dl4nlp.experiments import char_lstm as EC

    sentence = '"Yes," said he.'
    gates = {name: torch.rand(1, len(sentence), 6) for name in ("forget", "input", "output")}
    good = dict(sentence=sentence, gates=gates, space_cells=[0, 1], quote_cells=[2, 3])
    yield from vary(EC.plot_boundary_gates, good, "space_cells", [("past the last", [0, 6], "6")])
    yield from vary(
        EC.plot_boundary_gates,
        good,
        "gates",
        [
            ("no output gate", {k: v for k, v in gates.items() if k != "output"}, "output"),
            ("another sentence's", {k: v[:, :5] for k, v in gates.items()}, "(1, 5, 6)"),
            ("a list", [1, 2], "list"),
        ],
    )
    yield from vary(EC.plot_boundary_gates, good, "sentence", [("empty", "", "''")])


@cases("dl4nlp.experiments.lstm.library_gru_step")
def _():
    import torch
    from torch import nn

    from dl4nlp.experiments import lstm as EL

    cell = nn.GRUCell(3, 4)
    good = dict(
        x=torch.randn(2, 3),
        h=torch.zeros(2, 4),
        weight_ih=cell.weight_ih,
        weight_hh=cell.weight_hh,
        bias_ih=cell.bias_ih,
        bias_hh=cell.bias_hh,
        reset_after=True,
    )
    yield from vary(EL.library_gru_step, good, "x", [("one dimension", torch.zeros(3), "(3,)")])
    yield from vary(EL.library_gru_step, good, "weight_hh", [("an LSTM's", torch.zeros(16, 4), "(16, 4)")])
    yield from vary(EL.library_gru_step, good, "reset_after", [("a string", "yes", "'yes'")])
