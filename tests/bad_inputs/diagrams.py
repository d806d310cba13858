"""Bad inputs of dl4nlp.diagrams."""

import math

from bad_inputs.harness import cases, choice_variants, exempt, vary
from dl4nlp.diagrams import Diagram

exempt(
    "records of one box and one arrow, built by Diagram.box and Diagram.arrow, which check their arguments",
    "dl4nlp.diagrams.Box",
    "dl4nlp.diagrams.Arrow",
)


@cases("dl4nlp.diagrams.Diagram")
def _():  # usually built empty, then filled by box, arrow and group
    yield "boxes: a list", lambda: Diagram(boxes=["x"]), ("boxes", "list")
    yield "boxes: a name -> a string", lambda: Diagram(boxes={"x": "x"}), ("boxes", "str")
    yield "arrows: a list of pairs", lambda: Diagram(arrows=[("x", "h")]), ("arrows", "tuple")
    yield "groups: a dict", lambda: Diagram(groups={"encoder": (0, 0, 1, 1)}), ("groups", "dict")
    yield "groups: labels without rectangles", lambda: Diagram(groups=["encoder"]), ("groups", "encoder")


def two_boxes() -> Diagram:
    return Diagram().box("x", "x", (0, 0)).box("h", "h", (0, 1.5))


@cases("dl4nlp.diagrams.Diagram.box")
def _():
    good = dict(name="y", label="y", xy=(1, 0))
    yield from vary(
        lambda **kw: two_boxes().box(**kw), good, "kind", [("an unknown kind", "bogus", ("'bogus'", "input"))]
    )
    yield from vary(lambda **kw: two_boxes().box(**kw), good, "name", [("a name already used", "x", "'x'")])
    yield from vary(
        lambda **kw: two_boxes().box(**kw),
        good,
        "xy",
        [
            ("one number", 3, "3"),
            ("strings", ("a", "b"), "'a'"),
            ("NaN", (math.nan, 0), "nan"),
            ("three numbers", (1, 2, 3), "(1, 2, 3)"),
        ],
    )
    yield from vary(
        lambda **kw: two_boxes().box(**kw),
        good,
        "width",
        [("0", 0, "0"), ("negative", -1, "-1"), ("NaN", math.nan, "nan")],
    )
    yield from vary(lambda **kw: two_boxes().box(**kw), good, "height", [("a string", "1", "'1'")])
    yield from vary(lambda **kw: two_boxes().box(**kw), good, "label", [("None", None, "None"), ("a number", 3, "3")])


@cases("dl4nlp.diagrams.Diagram.arrow")
def _():
    good = dict(source="x", target="h")
    yield from vary(lambda **kw: two_boxes().arrow(**kw), good, "source", [("an unknown box", "zz", "'zz'")])
    yield from vary(lambda **kw: two_boxes().arrow(**kw), good, "target", [("an unknown box", "zz", "'zz'")])
    yield from vary(
        lambda **kw: two_boxes().arrow(**kw), good, "bend", [("a string", "0.3", "'0.3'"), ("NaN", math.nan, "nan")]
    )
    yield from vary(lambda **kw: two_boxes().arrow(**kw), good, "style", [("an unknown arrow style", "=>>", "'=>>'")])


@cases("dl4nlp.diagrams.Diagram.group")
def _():
    good = dict(label="layer", names=["x", "h"])
    yield from vary(
        lambda **kw: two_boxes().group(**kw),
        good,
        "names",
        [("an unknown box", ["x", "zz"], "'zz'"), ("empty", [], "[]"), ("a string", "xh", "str")],
    )
    yield from vary(
        lambda **kw: two_boxes().group(**kw), good, "pad", [("negative", -1, "-1"), ("NaN", math.nan, "nan")]
    )


@cases("dl4nlp.diagrams.Diagram.draw")
def _():
    yield "an empty diagram", lambda: Diagram().draw(), ("no boxes",)
    yield "scale: 0", lambda: two_boxes().draw(scale=0), ("scale", "0")
    yield "scale: negative", lambda: two_boxes().draw(scale=-1), ("scale", "-1")
    yield "ax: a string", lambda: two_boxes().draw(ax="left"), ("ax", "str")


@cases("dl4nlp.diagrams.seq2seq_diagram")
def _():
    from dl4nlp.diagrams import seq2seq_diagram
    from dl4nlp.seq2seq import Seq2Seq

    model = Seq2Seq(12, 9, d_embed=4, d_hidden=6)
    good = dict(model=model)
    yield from vary(seq2seq_diagram, good, "model", [("a TransformerLM config", {"score": "dot"}, "dict")])
    yield from vary(seq2seq_diagram, good, "source", [("empty", "", "''"), ("a list", ["a", "b"], "list")])
    yield from vary(
        seq2seq_diagram,
        good,
        "step",
        [("beyond the target", 5, "5"), ("zero (steps count from 1)", 0, "0"), ("a string", "1", "'1'")],
    )


# --- notebooks 10 and 11 ------------------------------------------------------------------
def _config_cases(fn, wanted):
    from dl4nlp.decoder import Seq2SeqTransformerConfig
    from dl4nlp.transformer import TransformerConfig, TransformerLM

    other = Seq2SeqTransformerConfig(5, 5) if wanted == "TransformerConfig" else TransformerConfig(5)
    yield "config: a dict", lambda: fn(dict(d_model=8)), ("config", "dict", wanted)
    yield (
        "config: the model, not its config",
        lambda: fn(TransformerLM(TransformerConfig(5, d_model=8, n_heads=2))),
        ("config", "TransformerLM"),
    )
    yield f"config: a {type(other).__name__}", lambda: fn(other), ("config", type(other).__name__)


@cases("dl4nlp.diagrams.transformer_block_diagram")
def _():
    from dl4nlp.diagrams import transformer_block_diagram

    yield from _config_cases(transformer_block_diagram, "TransformerConfig")


@cases("dl4nlp.diagrams.decoder_only_diagram")
def _():
    from dl4nlp.diagrams import decoder_only_diagram

    yield from _config_cases(decoder_only_diagram, "TransformerConfig")


@cases("dl4nlp.diagrams.encoder_decoder_diagram")
def _():
    from dl4nlp.diagrams import encoder_decoder_diagram

    yield from _config_cases(encoder_decoder_diagram, "Seq2SeqTransformerConfig")


@cases("dl4nlp.diagrams.bert_diagram")
def _():
    import torch

    from dl4nlp.bert import Bert, bert_config
    from dl4nlp.diagrams import bert_diagram

    model = Bert(bert_config("base", vocab_size=20, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=8))
    yield "model: a linear layer", lambda: bert_diagram(torch.nn.Linear(2, 2)), ("model", "Linear")
    yield "model: a config", lambda: bert_diagram(model.config), ("model", "TransformerConfig")
    yield from vary(bert_diagram, dict(model=model), "head", choice_variants(["pretraining", "classifier"]))


@cases("dl4nlp.diagrams.objectives_diagram")
def _():
    from dl4nlp.diagrams import objectives_diagram
    from dl4nlp.objectives import causal_lm

    good = dict(examples=[causal_lm([5, 6, 7])], name_of=str)
    yield from vary(
        objectives_diagram,
        good,
        "examples",
        [
            ("empty", [], "[]"),
            ("one example, not a list", causal_lm([5, 6]), "TrainingExample"),
            ("id lists", [[5, 6]], "list"),
        ],
    )
    yield from vary(objectives_diagram, good, "name_of", [("a dict", {5: "a"}, "dict"), ("None", None, "None")])
    yield from vary(objectives_diagram, good, "width", [("zero", 0.0, "0.0"), ("NaN", math.nan, "nan")])


@cases("dl4nlp.diagrams.shapes_diagram")
def _():
    from dl4nlp.diagrams import shapes_diagram
    from dl4nlp.sweep import model_config

    good = dict(configs={"1x8": model_config("1x8", 65, 64)})
    yield from vary(
        shapes_diagram,
        good,
        "configs",
        [
            ("empty", {}, "none"),
            ("a list of configs", [model_config("1x8", 65, 64)], "list"),
            ("a size name for a config", {"1x8": "1x8"}, ("TransformerConfig", "str")),
        ],
    )
    yield from vary(
        shapes_diagram,
        good,
        "width_scale",
        [("zero", 0.0, "0.0"), ("NaN", math.nan, "nan"), ("a string", "0.05", "str")],
    )
    yield from vary(shapes_diagram, good, "gap", [("negative", -1.0, "-1.0"), ("a string", "1", "str")])
