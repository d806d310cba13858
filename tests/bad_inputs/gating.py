"""Bad inputs of chapter 04's comparisons: dl4nlp.experiments.lstm's gating sweep, forget bias and character LMs,
and the recipes dl4nlp.recipes.gating_sweep and dl4nlp.recipes.rnn_lm_compare.

Every case fails before any training starts (the experiments check their arguments first).
"""

from bad_inputs.harness import cases, choice_variants, exempt, int_variants, vary
from dl4nlp.experiments import lstm as EL
from dl4nlp.recipes import gating_sweep, rnn_lm_compare

SEEDS = [("negative", -1, "-1"), ("a float", 0.5, "0.5"), ("a string", "0", "'0'")]

exempt(
    "records of an experiment's numbers, returned by the experiment functions",
    "dl4nlp.experiments.lstm.ForgetBias",
    "dl4nlp.experiments.lstm.CharLMRun",
)
exempt("takes no arguments (reads the shipped corpus)", "dl4nlp.experiments.lstm.lm_split")
exempt(
    "the command line of a recipe (argparse reports bad arguments; --out is checked before training)",
    "dl4nlp.recipes.gating_sweep.main",
    "dl4nlp.recipes.rnn_lm_compare.main",
)


@cases("dl4nlp.experiments.lstm.comparison_model")
def _():
    yield from vary(EL.comparison_model, dict(name="IRNN", seed=0), "name", choice_variants(EL.COMPARISON_MODELS))
    yield from vary(EL.comparison_model, dict(name="IRNN", seed=0), "seed", SEEDS)


@cases("dl4nlp.experiments.lstm.gating_comparison")
def _():
    yield from vary(EL.gating_comparison, {}, "seed", SEEDS)
    yield from vary(EL.gating_comparison, {}, "lag", int_variants(1)[:3])
    yield from vary(EL.gating_comparison, {}, "lr", [("0", 0.0, "0.0"), ("negative", -1e-3, "-0.001")])
    yield from vary(EL.gating_comparison, {}, "models", [("a string", "IRNN", "str"), ("unknown", ("RNN",), "RNN")])
    yield from vary(EL.gating_comparison, {}, "steps", int_variants(1)[:3])


@cases("dl4nlp.experiments.lstm.forget_bias_memory")
def _():
    yield from vary(EL.forget_bias_memory, {}, "seed", SEEDS)
    bad_biases = [("a number", 3.0, "float"), ("a string in it", ("3",), "'3'")]
    yield from vary(EL.forget_bias_memory, {}, "biases", bad_biases)
    yield from vary(EL.forget_bias_memory, {}, "lag", int_variants(1)[:3])


@cases("dl4nlp.experiments.lstm.lm_parameters")
def _():
    good = dict(kind="lstm", hidden=8, vocab_size=10)
    yield from vary(EL.lm_parameters, good, "kind", choice_variants(EL.LM_KINDS))
    yield from vary(EL.lm_parameters, good, "hidden", int_variants(1)[:3])
    yield from vary(EL.lm_parameters, good, "vocab_size", int_variants(1)[:3])


@cases("dl4nlp.experiments.lstm.lm_sizes")
def _():
    yield from vary(EL.lm_sizes, dict(vocab_size=10), "vocab_size", int_variants(1)[:3])
    yield from vary(EL.lm_sizes, dict(vocab_size=10), "lstm_hidden", int_variants(1)[:3])


@cases("dl4nlp.experiments.lstm.lm_loss")
def _():
    import torch

    from dl4nlp.rnn import RecurrentLM

    model = RecurrentLM(10, hidden_size=4, kind="lstm", embedding_dim=EL.LM_EMBEDDING)
    good = dict(model=model, ids=torch.zeros(200, dtype=torch.long))
    yield from vary(EL.lm_loss, good, "model", [("a torch LSTM", torch.nn.LSTM(2, 2), "LSTM")])
    yield from vary(EL.lm_loss, good, "ids", [("too short", torch.zeros(10, dtype=torch.long), "10")])
    yield from vary(EL.lm_loss, good, "ids", [("out of the vocabulary", torch.full((200,), 11), "11")])


@cases("dl4nlp.experiments.lstm.char_lm")
def _():
    yield from vary(EL.char_lm, dict(kind="rnn"), "kind", choice_variants(EL.LM_KINDS))
    yield from vary(EL.char_lm, dict(kind="rnn"), "seed", SEEDS)
    yield from vary(EL.char_lm, dict(kind="rnn"), "lr", [("0", 0.0, "0.0")])
    yield from vary(EL.char_lm, dict(kind="rnn"), "steps", int_variants(1)[:3])


@cases("dl4nlp.experiments.lstm.load_gating_sweep")
def _():
    from bad_inputs.harness import scratch

    folder = scratch()
    empty = folder / "empty_sweep.json"
    empty.write_text('{"seeds": []}')
    gap = folder / "gap_sweep.json"
    gap.write_text('{"seeds": [{"seed": 1, "comparison": {}, "forget_bias": {}}]}')
    yield from vary(EL.load_gating_sweep, {}, "path", [("no such file", folder / "missing.json", "missing.json")])
    yield from vary(EL.load_gating_sweep, {}, "path", [("no seeds", empty, "empty_sweep.json")])
    yield from vary(EL.load_gating_sweep, {}, "path", [("first row is seed 1", gap, "seed 0")])


@cases("dl4nlp.experiments.lstm.sweep_accuracies")
def _():
    table = {"seeds": [{"comparison": {"lag 50, lr 0.01": {"GRU": 1.0}}}]}
    good = dict(table=table, setting="lag 50, lr 0.01", model="GRU")
    yield from vary(EL.sweep_accuracies, good, "table", [("a list", [1.0], "list")])
    yield from vary(EL.sweep_accuracies, good, "setting", [("unknown", "lag 7", "lag 7")])
    yield from vary(EL.sweep_accuracies, good, "model", [("unknown", "RNN", "RNN")])


@cases("dl4nlp.experiments.lstm.sweep_text")
def _():
    yield from vary(EL.sweep_text, {}, "table", [("a list", [1.0], "list"), ("no seeds", {"seeds": []}, "seeds")])


@cases("dl4nlp.experiments.lstm.load_lm_comparison")
def _():
    from bad_inputs.harness import scratch

    folder = scratch()
    one_kind = folder / "one_kind.json"
    one_kind.write_text('{"runs": [{"kind": "rnn"}]}')
    yield from vary(EL.load_lm_comparison, {}, "path", [("no such file", folder / "missing.json", "missing.json")])
    yield from vary(EL.load_lm_comparison, {}, "path", [("runs of one kind only", one_kind, "lstm")])


@cases("dl4nlp.recipes.gating_sweep.setting_key")
def _():
    yield from vary(gating_sweep.setting_key, dict(lag=50, lr=0.01), "lag", int_variants(1)[:3])
    yield from vary(gating_sweep.setting_key, dict(lag=50, lr=0.01), "lr", [("a string", "0.01", "'0.01'")])


@cases("dl4nlp.recipes.gating_sweep.seed_row")
def _():
    yield from vary(gating_sweep.seed_row, {}, "seed", [("negative", -1, "-1"), ("a string", "0", "'0'")])


@cases("dl4nlp.recipes.rnn_lm_compare.chosen_rates")
def _():
    yield from vary(rnn_lm_compare.chosen_rates, {}, "rows", [("a dict", {"kind": "rnn"}, "dict")])
    yield from vary(rnn_lm_compare.chosen_rates, {}, "rows", [("a row without its loss", [{"kind": "rnn", "seed": 0,
                    "lr": 0.01}], "validation_loss")])  # fmt: skip
