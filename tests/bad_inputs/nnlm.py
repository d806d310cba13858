"""Bad inputs of chapter 02's neural language model: dl4nlp.nnlm and dl4nlp.experiments.before_recurrence."""

import torch

from bad_inputs.harness import cases, exempt, int_variants, vary
from dl4nlp import nnlm
from dl4nlp.experiments import before_recurrence

exempt(
    "records of an experiment's numbers, returned by the experiment functions",
    "dl4nlp.experiments.before_recurrence.NNLMRun",
)
exempt("takes no arguments: the model's own weights, in nnlm_logits' layout", "dl4nlp.nnlm.NNLM.weights")

_CONFIG = dict(vocab_size=5, context=3, embed_dim=2, hidden=4)


@cases("dl4nlp.nnlm.NNLMConfig")
def _():
    yield from vary(nnlm.NNLMConfig, _CONFIG, "combine", [("unknown", "sum", "'sum'"), ("None", None, "None")])
    yield from vary(nnlm.NNLMConfig, _CONFIG, "context", int_variants(1)[:2])
    yield from vary(nnlm.NNLMConfig, _CONFIG, "vocab_size", [("a float", 5.0, "5.0")])


def _weights():
    model = nnlm.NNLM(nnlm.NNLMConfig(**_CONFIG))
    return dict(zip(("embedding", "W_h", "b_h", "W_o", "b_o"), model.weights()))


@cases("dl4nlp.nnlm.nnlm_logits")
def _():
    good = dict(contexts=torch.tensor([[0, 1, 2]]), **_weights())
    yield from vary(
        nnlm.nnlm_logits,
        good,
        "contexts",
        [("an id beyond the vocabulary", torch.tensor([[0, 1, 5]]), "5"), ("1-D", torch.tensor([0, 1, 2]), "(3,)")],
    )
    yield from vary(nnlm.nnlm_logits, good, "W_h", [("a context of the wrong length", torch.zeros(4, 4), "(4, 4)")])
    yield from vary(nnlm.nnlm_logits, good, "b_o", [("the wrong size", torch.zeros(4), "(4,)")])
    yield from vary(nnlm.nnlm_logits, good, "combine", [("unknown", "max", "'max'")])
    yield from vary(nnlm.nnlm_logits, good, "embedding", [("integer", torch.zeros(5, 2, dtype=torch.long), "int64")])


@cases("dl4nlp.nnlm.NNLM")
def _():
    yield "a dict for a config", lambda: nnlm.NNLM(dict(_CONFIG)), ("config", "dict")


@cases("dl4nlp.nnlm.NNLM.forward")
def _():
    model = nnlm.NNLM(nnlm.NNLMConfig(**_CONFIG))
    yield "a context of 4 ids for a model of 3", lambda: model(torch.tensor([[0, 1, 2, 3]])), ("contexts", "(1, 4)")
    yield "float ids", lambda: model(torch.zeros(1, 3)), ("contexts", "float32")


@cases("dl4nlp.nnlm.parameter_count")
def _():
    yield "a dict for a config", lambda: nnlm.parameter_count(dict(_CONFIG)), ("config", "dict")


@cases("dl4nlp.nnlm.flops_per_token")
def _():
    yield "a dict for a config", lambda: nnlm.flops_per_token(dict(_CONFIG)), ("config", "dict")


@cases("dl4nlp.nnlm.context_windows")
def _():
    good = dict(ids=torch.arange(10), context=3, start=3, stop=10)
    yield from vary(nnlm.context_windows, good, "start", [("before a whole context", 2, "2")])
    yield from vary(nnlm.context_windows, good, "stop", [("beyond the ids", 11, "11"), ("at start", 3, "3")])
    yield from vary(nnlm.context_windows, good, "ids", [("2-D", torch.zeros(2, 5, dtype=torch.long), "(2, 5)")])


@cases("dl4nlp.experiments.before_recurrence.heldout_predictions")
def _():
    yield from vary(before_recurrence.heldout_predictions, {}, "context", int_variants(1)[:2])


@cases("dl4nlp.experiments.before_recurrence.train_nnlm")
def _():
    good = dict(seed=0, steps=1)
    yield from vary(before_recurrence.train_nnlm, good, "combine", [("unknown", "sum", "'sum'")])
    yield from vary(before_recurrence.train_nnlm, good, "seed", [("negative", -1, "-1")])
    yield from vary(before_recurrence.train_nnlm, good, "lr", [("0", 0.0, "0.0")])
    yield from vary(before_recurrence.train_nnlm, good, "forward", [("not a function", 3, "3")])


@cases("dl4nlp.experiments.before_recurrence.plot_nnlm_training")
def _():
    yield (
        "a dict for a run",
        lambda: before_recurrence.plot_nnlm_training({}, {"bigram": 2.5}),
        ("run", "dict"),
    )


@cases("dl4nlp.experiments.before_recurrence.perplexity_drawer")
def _():
    yield from vary(before_recurrence.perplexity_drawer, {}, "curves", [("a dict", {}, "dict")])
