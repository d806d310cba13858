"""Bad inputs of dl4nlp.taggers, of RotaryAttention and rope_decay_bound, and of notebooks 08-09's experiments.

Every experiment case fails before any training starts (the experiments check their arguments first).
"""

import torch

from bad_inputs.harness import cases, choice_variants, exempt, float_variants, id_variants, int_variants, vary
from dl4nlp import positional as P
from dl4nlp import taggers as T
from dl4nlp.attention import MultiHeadAttention
from dl4nlp.diagrams import multi_head_attention_diagram, tagger_diagram
from dl4nlp.experiments import attention as EA
from dl4nlp.experiments import check_seed
from dl4nlp.experiments import positional as EP

exempt(
    "records of an experiment's numbers, returned by the experiment functions",
    "dl4nlp.experiments.attention.HeadsResult",
    "dl4nlp.experiments.positional.CausalPositionResult",
    "dl4nlp.experiments.positional.ExtrapolationResult",
)

SEEDS = [("negative", -1, "-1"), ("a float", 0.5, "0.5"), ("a string", "0", "'0'"), ("None", None, "None")]
SMALL = T.TaggerConfig(vocab_size=5, d_model=8, n_heads=2, max_len=6)
IDS = torch.zeros(2, 4, dtype=torch.long)


@cases("dl4nlp.taggers.TaggerConfig")
def _():
    good = dict(vocab_size=5)
    for name in ("vocab_size", "d_model", "n_heads", "n_layers", "max_len"):
        yield from vary(T.TaggerConfig, {**good, name: 4} if name != "vocab_size" else good, name, int_variants(1))
    yield from vary(T.TaggerConfig, good, "n_labels", int_variants(1))
    yield from vary(T.TaggerConfig, good, "positional", choice_variants(T.TAGGER_POSITIONS))
    yield from vary(T.TaggerConfig, good, "causal", [("an int", 1, "1"), ("a string", "yes", "'yes'")])
    yield from vary(T.TaggerConfig, dict(vocab_size=5, d_model=6, n_heads=4), "n_heads", [("not a divisor", 4, "4")])


@cases("dl4nlp.taggers.TaggerConfig.transformer")
def _():
    yield (
        "a config whose sizes were changed after the checks",
        lambda: T.TaggerConfig.transformer("config"),
        (
            "config",
            "str",
        ),
        "a method of a frozen dataclass, given a non-config by hand",
    )


@cases("dl4nlp.taggers.Tagger")
def _():
    yield from vary(T.Tagger, dict(config=SMALL), "config", [("a dict", {"vocab_size": 5}, "dict")])


@cases("dl4nlp.taggers.Tagger.forward")
def _():
    model = T.Tagger(SMALL)
    yield from vary(model, {}, "ids", id_variants(IDS, 5) + [("longer than max_len", torch.zeros(1, 7).long(), "7")])


@cases("dl4nlp.taggers.Tagger.attention_weights")
def _():
    yield (
        "called on a string",
        lambda: T.Tagger.attention_weights("model"),
        ("str",),
        "a method called unbound on a string",
    )


def _task_cases(fn):
    good = dict(batch_size=2, length=4, vocab_size=5, generator=torch.Generator())
    for name in ("batch_size", "length"):
        yield from vary(fn, good, name, int_variants(1))
    yield from vary(fn, good, "vocab_size", int_variants(2 if fn is T.position_batch else 1))
    yield from vary(fn, good, "generator", [("a seed", 0, "int")])


TASK_FUNCTIONS = {name: getattr(T, name) for name in ("previous_token_batch", "reversal_batch", "position_batch")}
for _name, _fn in TASK_FUNCTIONS.items():
    cases(f"dl4nlp.taggers.{_name}")(lambda fn=_fn: _task_cases(fn))


@cases("dl4nlp.taggers.tagging_loss")
def _():
    model = T.Tagger(SMALL)
    good = dict(model=model, batch=(IDS, IDS.clone()))
    yield from vary(T.tagging_loss, good, "batch", [("one tensor", IDS, "Tensor")])
    yield from vary(T.tagging_loss, good, "batch", [("float targets", (IDS, IDS.float()), ("targets", "float32"))])
    yield from vary(
        T.tagging_loss, good, "batch", [("targets of another shape", (IDS, IDS[:1]), ("targets", "(1, 4)"))]
    )


@cases("dl4nlp.taggers.accuracy_by_position")
def _():
    model = T.Tagger(SMALL)
    good = dict(model=model, ids=IDS, targets=IDS.clone())
    yield from vary(T.accuracy_by_position, good, "targets", [("float", IDS.float(), "float32")])
    yield from vary(T.accuracy_by_position, good, "targets", [("another shape", IDS[:1], "(1, 4)")])
    yield from vary(T.accuracy_by_position, good, "ids", [("out of vocabulary", IDS + 9, "9")])


@cases("dl4nlp.taggers.bag_of_words_ceiling")
def _():
    good = dict(length=4, vocab_size=3)
    yield from vary(T.bag_of_words_ceiling, good, "length", int_variants(1)[1:] + [("1", 1, "1")])
    yield from vary(T.bag_of_words_ceiling, good, "vocab_size", int_variants(1))


@cases("dl4nlp.taggers.Training")
def _():
    yield from vary(T.Training, {}, "task", choice_variants(tuple(T.TASKS)))
    for name in ("min_length", "max_length", "steps", "batch_size"):
        yield from vary(T.Training, {}, name, int_variants(1)[:3])
    yield from vary(T.Training, {}, "min_length", [("above max_length", 20, ("20", "16"))])
    yield from vary(
        T.Training, {}, "lr", [("0", 0.0, "0.0"), ("NaN", float("nan"), "nan"), ("a string", "1e-2", "'1e-2'")]
    )


@cases("dl4nlp.taggers.train_tagger")
def _():
    good = dict(config=SMALL, training=T.Training(max_length=6), seed=0)
    yield from vary(T.train_tagger, good, "config", [("a dict", {"vocab_size": 5}, "dict")])
    yield from vary(T.train_tagger, good, "training", [("a dict", {"steps": 5}, "dict")])
    yield from vary(T.train_tagger, good, "seed", SEEDS)
    yield from vary(T.train_tagger, good, "training", [("longer than max_len", T.Training(), ("16", "6"))])


@cases("dl4nlp.positional.RotaryAttention")
def _():
    good = dict(d_model=12, n_heads=2)
    yield from vary(P.RotaryAttention, good, "n_heads", [("heads of odd size", 4, "4")])
    yield from vary(P.RotaryAttention, good, "base", [("1", 1.0, "1.0"), ("a string", "10000", "'10000'")])


@cases("dl4nlp.positional.RotaryAttention.forward")
def _():
    x = torch.randn(2, 3, 8)
    for fast in (False, True):
        module, tag = P.RotaryAttention(8, 2, fast=fast), " (fast)" if fast else ""
        cases_ = [
            *vary(
                module, {}, "x", float_variants(x, empty=False) + [("another width", torch.randn(2, 3, 6), "(2, 3, 6)")]
            ),
            *vary(module, dict(x=x), "context", [("a context", x, "None")]),
            *vary(
                module,
                dict(x=x),
                "mask",
                [
                    ("a 0/1 float mask", torch.ones(3, 3), "float32"),
                    (
                        "a (B, T, T) mask, ambiguous against (B, H, T, T)",
                        torch.ones(2, 3, 3, dtype=torch.bool),
                        "(2, 3, 3)",
                    ),
                    ("a shape that does not broadcast", torch.ones(3, 5, dtype=torch.bool), "(3, 5)"),
                ],
            ),
            *vary(module, dict(x=x), "causal", [("an int", 1, "1"), ("a string", "yes", "'yes'")]),
            ("x: float64 into a float32 module", lambda module=module: module(x.double()), ("x", "float64")),
        ]
        for label, call, mentions in cases_:
            yield label + tag, call, mentions


@cases("dl4nlp.positional.rope_decay_bound")
def _():
    good = dict(distances=torch.arange(4), d=16)
    yield from vary(P.rope_decay_bound, good, "d", int_variants(2) + [("odd", 5, "5")])
    yield from vary(
        P.rope_decay_bound, good, "distances", [("2-D", torch.zeros(2, 2), "(2, 2)"), ("a string", "ab", "str")]
    )


@cases("dl4nlp.diagrams.multi_head_attention_diagram")
def _():
    good = dict(attention=MultiHeadAttention(8, 2))
    yield from vary(multi_head_attention_diagram, good, "attention", [("a string", "attention", "str")])
    yield from vary(multi_head_attention_diagram, good, "show_heads", int_variants(1))


@cases("dl4nlp.diagrams.tagger_diagram")
def _():
    good = dict(tagger=T.Tagger(SMALL))
    yield from vary(tagger_diagram, good, "tagger", [("a string", "tagger", "str")])
    yield from vary(tagger_diagram, good, "layers", int_variants(1))


@cases("dl4nlp.experiments.check_seed")
def _():
    yield from vary(check_seed, {}, "seed", SEEDS)


SEED_ONLY = {
    f"{module.__name__}.{name}": getattr(module, name)
    for module, names in [
        (EA, ("training_strings", "held_out", "trained_reverser", "reversal_heads")),
        (EP, ("training_sequences", "extrapolation", "causal_positions")),
    ]
    for name in names
}
for _target, _fn in SEED_ONLY.items():
    cases(_target)(lambda fn=_fn: vary(fn, {}, "seed", SEEDS))


@cases("dl4nlp.experiments.positional.held_out")
def _():
    yield from vary(EP.held_out, dict(length=16, seed=0), "seed", SEEDS)
    yield from vary(EP.held_out, dict(length=16, seed=0), "length", int_variants(2) + [("above max_len", 65, "65")])


@cases("dl4nlp.experiments.positional.trained")
def _():
    yield from vary(EP.trained, dict(kind="none", seed=0), "seed", SEEDS[:2])
    yield from vary(EP.trained, dict(kind="none", seed=0), "kind", choice_variants(EP.KINDS))
    yield from vary(EP.trained, dict(kind="none", seed=0), "task", choice_variants(("previous", "position")))


@cases("dl4nlp.experiments.attention.head_statistics")
def _():
    w = torch.softmax(torch.randn(2, 2, 4, 4), -1)
    yield from vary(
        EA.head_statistics,
        {},
        "weights",
        [("3-D", w[0], "(2, 4, 4)"), ("negative", -w, "weights"), ("a list", [1.0], "list")],
    )


@cases("dl4nlp.experiments.attention.dispatched_operations")
def _():
    yield from vary(EA.dispatched_operations, {}, "fn", [("a number", 3, "int")])


for _target, _fn, _cls in [
    ("dl4nlp.experiments.attention.heads_claims", EA.heads_claims, "HeadsResult"),
    ("dl4nlp.experiments.positional.extrapolation_claims", EP.extrapolation_claims, "ExtrapolationResult"),
    ("dl4nlp.experiments.positional.ceiling_tolerance", EP.ceiling_tolerance, "ExtrapolationResult"),
    ("dl4nlp.experiments.positional.causal_claims", EP.causal_claims, "CausalPositionResult"),
]:
    cases(_target)(lambda fn=_fn, cls=_cls: vary(fn, {}, "result", [("a dict", {}, ("dict", cls))]))


@cases("dl4nlp.experiments.positional.ExtrapolationResult.of")
def _():
    result = EP.ExtrapolationResult(("none",), (0.1,), (0.1,), (0.1,), ((0.1,),), 0.2, 0.1, 0.1, 0.1, 10)
    yield from vary(result.of, dict(field="in_range", kind="none"), "field", [("unknown", "ceiling", "'ceiling'")])
    yield from vary(result.of, dict(field="in_range", kind="none"), "kind", [("unknown", "rope", "'rope'")])
