"""Bad inputs of chapter 02's convolutions: dl4nlp.textcnn, its diagrams and its experiments (sections 6 and 7)."""

import torch

from bad_inputs.harness import cases, exempt, float_variants, id_variants, int_variants, semantic, vary
from dl4nlp import diagrams, textcnn
from dl4nlp.experiments import before_recurrence as br

exempt(
    "records of an experiment's numbers, returned by the experiment functions",
    "dl4nlp.experiments.before_recurrence.GenreData",
    "dl4nlp.experiments.before_recurrence.GenreRun",
    "dl4nlp.experiments.before_recurrence.BackboneRow",
)
exempt(
    "take no arguments: the genre task's fixed data and its majority baseline",
    "dl4nlp.experiments.before_recurrence.genre_data",
    "dl4nlp.experiments.before_recurrence.majority_accuracy",
)

_X = torch.randn(2, 3, 6)
_W = torch.randn(4, 3, 3)
_B = torch.zeros(4)
_CONFIG = dict(vocab_size=20, classes=5, embed_dim=4, filters=2)


@cases("dl4nlp.textcnn.conv1d")
def _():
    good = dict(x=_X, weight=_W, bias=_B)
    yield from vary(textcnn.conv1d, good, "x", float_variants(_X, nan=False, empty=False))
    yield from vary(textcnn.conv1d, good, "weight", [("the wrong input channels", torch.randn(4, 2, 3), "(4, 2, 3)")])
    yield from vary(textcnn.conv1d, good, "weight", [("wider than the input", torch.randn(4, 3, 7), "7")])
    yield from vary(textcnn.conv1d, good, "bias", [("one per input channel", torch.zeros(3), "(3,)")])
    yield semantic(
        "x: (B, T, C_in) instead of (B, C_in, T)",
        lambda: textcnn.conv1d(torch.randn(2, 6, 3), _W, _B),
        ("weight", "(4, 3, 3)", "6"),
    )


@cases("dl4nlp.textcnn.receptive_field")
def _():
    good = dict(k=3, layers=2)
    yield from vary(textcnn.receptive_field, good, "k", int_variants(1))
    yield from vary(textcnn.receptive_field, good, "layers", int_variants(1))
    yield from vary(textcnn.receptive_field, {**good, "dilation_growth": 2}, "dilation_growth", int_variants(1)[:2])


@cases("dl4nlp.textcnn.dilate")
def _():
    yield from vary(textcnn.dilate, dict(weight=_W, dilation=2), "dilation", int_variants(1)[:2])
    yield from vary(textcnn.dilate, dict(weight=_W, dilation=2), "weight", [("2-D", torch.zeros(4, 3), "(4, 3)")])


@cases("dl4nlp.textcnn.measured_receptive_field")
def _():
    good = dict(convolve=textcnn.conv1d, k=3, layers=2)
    yield from vary(textcnn.measured_receptive_field, good, "convolve", [("not a function", 3, "int")])
    yield from vary(textcnn.measured_receptive_field, good, "layers", int_variants(1)[:2])


@cases("dl4nlp.textcnn.TextCNNConfig")
def _():
    yield from vary(
        textcnn.TextCNNConfig, _CONFIG, "widths", [("a string", "345", "str"), ("a zero width", (3, 0), "0")]
    )
    yield from vary(textcnn.TextCNNConfig, _CONFIG, "dropout", [("1", 1.0, "1.0"), ("negative", -0.1, "-0.1")])
    yield from vary(textcnn.TextCNNConfig, _CONFIG, "classes", int_variants(1)[:2])


@cases("dl4nlp.textcnn.TextCNN")
def _():
    yield "config: a dict", lambda: textcnn.TextCNN(dict(_CONFIG)), ("config", "dict")


def _model():
    return textcnn.TextCNN(textcnn.TextCNNConfig(**_CONFIG))


_IDS = torch.tensor([[1, 2, 3, 4, 5, 0]])

for _method in ("forward", "features", "activations"):

    @cases(f"dl4nlp.textcnn.TextCNN.{_method}")
    def _(method=_method):
        model = _model()
        yield from vary(getattr(model, method), dict(ids=_IDS), "ids", id_variants(_IDS, 20, empty=False))
        yield semantic(
            "ids: a sentence of 3 words not padded to the widest filter",
            lambda: getattr(model, method)(torch.tensor([[1, 2, 3]])),
            ("ids", "5", "(1, 3)"),
        )


@cases("dl4nlp.textcnn.parameter_count")
def _():
    yield "config: a dict", lambda: textcnn.parameter_count(dict(_CONFIG)), ("config", "dict")


@cases("dl4nlp.experiments.before_recurrence.GenreData.encode")
def _():
    data = br.genre_data()
    yield "sentences: a string", lambda: data.encode("Thanks ."), ("sentences", "str")
    yield semantic("sentences: plain strings", lambda: data.encode(["Thanks ."]), ("Sentence", "str"))


@cases("dl4nlp.experiments.before_recurrence.BagOfWords")
def _():
    yield from vary(br.BagOfWords, dict(vocab_size=10, classes=5), "classes", int_variants(1)[:2])


@cases("dl4nlp.experiments.before_recurrence.BagOfWords.forward")
def _():
    model = br.BagOfWords(10, 5)
    yield from vary(model.forward, dict(ids=_IDS), "ids", id_variants(_IDS, 10, empty=False))


@cases("dl4nlp.experiments.before_recurrence.train_textcnn")
def _():
    good = dict(seed=0, epochs=1)
    yield from vary(br.train_textcnn, good, "seed", [("negative", -1, "-1")])
    yield from vary(br.train_textcnn, good, "lr", [("0", 0.0, "0.0")])
    yield from vary(br.train_textcnn, good, "batch_size", int_variants(1)[:2])


@cases("dl4nlp.experiments.before_recurrence.train_bag_of_words")
def _():
    good = dict(seed=0, epochs=1)
    yield from vary(br.train_bag_of_words, good, "seed", [("negative", -1, "-1")])
    yield from vary(br.train_bag_of_words, good, "epochs", int_variants(1)[:2])


@cases("dl4nlp.experiments.before_recurrence.top_ngrams")
def _():
    model = textcnn.TextCNN(textcnn.TextCNNConfig(len(br.genre_data().words), 5, filters=2))
    sentences = br.genre_data().test[:5]
    good = dict(model=model, sentences=sentences, width_index=0, filter_index=0)
    yield from vary(br.top_ngrams, good, "model", [("a bag of words", br.BagOfWords(10, 5), "BagOfWords")])
    yield from vary(br.top_ngrams, good, "width_index", [("beyond the widths", 3, "3")])
    yield from vary(br.top_ngrams, good, "filter_index", [("beyond the filters", 2, "2")])


@cases("dl4nlp.experiments.before_recurrence.WindowMLP")
def _():
    yield from vary(br.WindowMLP, dict(d=4, n=3), "n", int_variants(1)[:2])


@cases("dl4nlp.experiments.before_recurrence.WindowMLP.forward")
def _():
    model = br.WindowMLP(4, 3)
    yield from vary(model.forward, dict(x=torch.randn(1, 5, 4)), "x", [("the wrong width", torch.randn(1, 5, 3), "3")])
    yield from vary(
        model.forward, dict(x=torch.randn(1, 5, 4)), "x", [("shorter than a window", torch.randn(1, 2, 4), "(1, 2, 4)")]
    )


@cases("dl4nlp.experiments.before_recurrence.backbones")
def _():
    yield from vary(br.backbones, dict(d=8, T=9), "T", [("shorter than the window", 4, "4")])
    yield from vary(br.backbones, dict(d=8, T=9), "d", int_variants(1)[:2])


@cases("dl4nlp.experiments.before_recurrence.compare_backbones")
def _():
    yield from vary(br.compare_backbones, dict(d=8, T=9), "k", int_variants(1)[:2])


@cases("dl4nlp.diagrams.textcnn_diagram")
def _():
    yield "model: a bag of words", lambda: diagrams.textcnn_diagram(br.BagOfWords(10, 5)), ("model", "BagOfWords")


@cases("dl4nlp.diagrams.connection_patterns")
def _():
    rows = br.compare_backbones(d=4, T=20)
    yield "rows: a string", lambda: diagrams.connection_patterns("rows"), ("rows", "str")
    yield "rows: numbers", lambda: diagrams.connection_patterns([1, 2]), ("rows", "int")
    yield semantic(
        "rows: a long sequence, few outputs measured", lambda: diagrams.connection_patterns(rows), ("T <= 16", "MLP")
    )
