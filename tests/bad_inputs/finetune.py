"""Bad inputs of dl4nlp.finetune, dl4nlp.objectives and dl4nlp.dialogue (notebook 13's tasks and objectives)."""

import functools
import random
from types import SimpleNamespace

import torch

from bad_inputs.harness import (
    cases,
    choice_variants,
    exempt,
    float_variants,
    id_variants,
    int_variants,
    prob_variants,
    shape,
    vary,
)
from dl4nlp import dialogue as D
from dl4nlp import finetune as F
from dl4nlp import objectives as O
from dl4nlp.bert import Bert, bert_config
from dl4nlp.wordpiece import WordPiece

WORDS = ["the", "cat", "sat", "dog", "ran", "a", "mat"]

exempt("a record that the objectives return; nothing to validate", "dl4nlp.objectives.TrainingExample")
exempt("takes no arguments (the task's fixed splits)", "dl4nlp.dialogue.task_sets")


@functools.cache
def vocab() -> WordPiece:
    return WordPiece(WORDS)


@functools.cache
def encoder() -> Bert:
    torch.manual_seed(0)
    config = bert_config("base", vocab_size=len(vocab()), d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=8)
    return Bert(config).eval()


def rows():
    ids, valid = F.encode_batch(vocab(), ["the cat sat", "a dog ran", "the mat", "a cat"], 8)
    return ids, valid, torch.tensor([0, 1, 0, 1])


@functools.cache
def classifier() -> F.SentenceClassifier:
    torch.manual_seed(0)
    return F.SentenceClassifier(encoder()).eval()


SEQ = [5, 6, 7, 8, 9, 10, 11, 5]
V = len(WORDS) + 5


# --- objectives -----------------------------------------------------------------------------
def seq_variants(vocab_size):
    return [
        ("one id", [5], "[5]"),
        ("a string", "the cat", "str"),
        ("floats", [5.0, 6.0], "5.0"),
        ("a negative id", [5, -1], "-1"),
        ("an id at the vocabulary size", [5, vocab_size], str(vocab_size)),
        ("a 2-D tensor", torch.tensor([SEQ]), "(1, 8)"),
        ("None", None, "None"),
    ]


@cases("dl4nlp.objectives.causal_lm")
def _():
    yield from vary(O.causal_lm, dict(ids=SEQ), "ids", seq_variants(V)[:4] + seq_variants(V)[5:])


@cases("dl4nlp.objectives.masked_lm")
def _():
    good = dict(ids=SEQ, vocab=vocab(), generator=torch.Generator().manual_seed(0))
    yield from vary(O.masked_lm, good, "ids", seq_variants(V))
    yield from vary(O.masked_lm, good, "vocab", [("a dict", {"[MASK]": 4}, "dict"), ("None", None, "None")])
    yield from vary(
        O.masked_lm, good, "generator", [("an int seed", 0, "int"), ("a random.Random", random.Random(0), "Random")]
    )
    yield from vary(O.masked_lm, good, "mask_prob", prob_variants(allow_zero=False))


@cases("dl4nlp.objectives.noise_spans")
def _():
    good = dict(length=10, noise_density=0.15, mean_span=3.0, rng=random.Random(0))
    yield from vary(O.noise_spans, good, "length", int_variants(2))
    yield from vary(O.noise_spans, good, "noise_density", prob_variants(allow_zero=False, allow_one=False))
    yield from vary(
        O.noise_spans,
        good,
        "mean_span",
        [("below one", 0.5, "0.5"), ("NaN", float("nan"), "nan"), ("a string", "3", "'3'")],
    )
    yield from vary(
        O.noise_spans, good, "rng", [("an int seed", 0, "int"), ("a torch.Generator", torch.Generator(), "Generator")]
    )


@cases("dl4nlp.objectives.span_corruption")
def _():
    good = dict(ids=SEQ, vocab_size=V, rng=random.Random(0))
    yield from vary(O.span_corruption, good, "ids", seq_variants(V))
    yield from vary(O.span_corruption, good, "vocab_size", int_variants(1))
    yield from vary(O.span_corruption, good, "start_id", [("negative", -1, "-1"), ("a string", "[CLS]", "'[CLS]'")])
    yield from vary(O.span_corruption, good, "noise_density", [("one", 1.0, "1.0")])
    yield from vary(O.span_corruption, good, "rng", [("None", None, "None")])


@cases("dl4nlp.objectives.text_infilling")
def _():
    good = dict(ids=SEQ, mask_id=4, rng=random.Random(0))
    yield from vary(O.text_infilling, good, "ids", seq_variants(V)[:4] + seq_variants(V)[5:])
    yield from vary(O.text_infilling, good, "mask_id", [("negative", -1, "-1"), ("a string", "[MASK]", "'[MASK]'")])
    yield from vary(O.text_infilling, good, "mask_ratio", prob_variants(allow_zero=False, allow_one=False))
    yield from vary(
        O.text_infilling,
        good,
        "poisson_lambda",
        [("zero", 0.0, "0.0"), ("inf", float("inf"), "inf"), ("a string", "3", "'3'")],
    )
    yield from vary(O.text_infilling, good, "rng", [("an int seed", 0, "int")])
    yield from vary(O.text_infilling, good, "start_id", [("negative", -1, "-1")])


@cases("dl4nlp.objectives.replaced_token_detection")
def _():
    good = dict(ids=SEQ, generator_model=encoder(), vocab=vocab(), generator=torch.Generator().manual_seed(0))
    yield from vary(O.replaced_token_detection, good, "ids", seq_variants(V))
    yield from vary(
        O.replaced_token_detection,
        good,
        "generator_model",
        [("a classifier", classifier(), "SentenceClassifier"), ("None", None, "None")],
    )
    yield from vary(
        O.replaced_token_detection,
        good,
        "vocab",
        [("a dict", {"[MASK]": 4}, "dict"), ("another size", WordPiece(WORDS + ["x"]), str(V + 1))],
    )
    yield from vary(O.replaced_token_detection, good, "generator", [("an int seed", 0, "int")])
    yield from vary(O.replaced_token_detection, good, "mask_prob", prob_variants(allow_zero=False))


# --- dialogue -----------------------------------------------------------------------------
def example(**change):
    return D.Example(**{**dict(text="He sat down.", label=0, corpus="tinystories.txt"), **change})


@cases("dl4nlp.dialogue.Example")
def _():
    yield "text: None", lambda: example(text=None), ("text", "None")
    yield "label: 2", lambda: example(label=2), ("label", "2")
    yield "label: a string", lambda: example(label="dialogue"), ("label", "'dialogue'")
    yield "corpus: None", lambda: example(corpus=None), ("corpus", "None")


@cases("dl4nlp.dialogue.paragraphs")
def _():
    yield from vary(
        D.paragraphs, {}, "corpus", choice_variants(D.CORPORA) + [("a path", "data/tinystories", "'data/tinystories'")]
    )


@cases("dl4nlp.dialogue.split")
def _():
    yield from vary(D.split, {}, "corpus", choice_variants(D.CORPORA))


@cases("dl4nlp.dialogue.strip_quotes")
def _():
    yield "text: None", lambda: D.strip_quotes(None), ("text", "NoneType")
    yield "text: a list", lambda: D.strip_quotes(["a"]), ("text", "list")


def _quote_cases(fn):
    good = dict(paragraph='"Hi," said Tom.', open_quote='"', close_quote='"')
    yield from vary(fn, good, "paragraph", [("None", None, "NoneType"), ("a list", ["a"], "list")])
    yield from vary(
        fn, good, "open_quote", [("two characters", "''", "\"''\""), ("empty", "", "''"), ("None", None, "None")]
    )
    yield from vary(fn, good, "close_quote", [("two characters", "''", "\"''\"")])


def _part_cases(fn):
    yield from vary(
        fn,
        {},
        "part",
        [("test", "test", "'test'"), ("None", None, "None"), ("validation", "validation", "'validation'")],
    )


for _fn in (D.label_sentences, D.tag_words):
    cases(f"dl4nlp.dialogue.{_fn.__name__}")(lambda fn=_fn: _quote_cases(fn))
for _fn in (D.labelled_sentences, D.tagged_sentences, D.pretraining_documents):
    cases(f"dl4nlp.dialogue.{_fn.__name__}")(lambda fn=_fn: _part_cases(fn))


@cases("dl4nlp.dialogue.balanced_sample")
def _():
    pool = [example(label=label, corpus=c, text=f"s{i}") for i in range(3) for label in (0, 1) for c in D.CORPORA]
    good = dict(examples=pool, n=4, seed=0)
    yield from vary(
        D.balanced_sample, good, "n", [("not a multiple of 4", 6, "6"), ("0", 0, "0"), ("a float", 4.0, "4.0")]
    )
    yield from vary(D.balanced_sample, good, "n", [("more than a cell holds", 16, ("only", "4"))])
    yield from vary(D.balanced_sample, good, "seed", [("a string", "0", "'0'"), ("negative", -1, "-1")])
    yield from vary(
        D.balanced_sample,
        good,
        "examples",
        [("strings", ["a", "b"], "str"), ("one string", "abc", "str"), ("None", None, "None")],
    )


# --- finetune -----------------------------------------------------------------------------
@cases("dl4nlp.finetune.encode_batch")
def _():
    good = dict(tokenizer=vocab(), texts=["the cat"], max_len=8)
    yield from vary(F.encode_batch, good, "tokenizer", [("a dict", {"[CLS]": 2}, "dict"), ("None", None, "None")])
    yield from vary(
        F.encode_batch, good, "texts", [("one string", "the cat", "str"), ("empty", [], "[]"), ("ints", [1, 2], "int")]
    )
    yield from vary(F.encode_batch, good, "max_len", int_variants(3))


@cases("dl4nlp.finetune.encode_tagged")
def _():
    good = dict(tokenizer=vocab(), sentences=[(["the", "cat"], [0, 1])], max_len=8)
    yield from vary(F.encode_tagged, good, "tokenizer", [("None", None, "None")])
    yield from vary(
        F.encode_tagged,
        good,
        "sentences",
        [
            ("empty", [], "[]"),
            ("one word short of tags", [(["the"], [0, 1])], ("1 words", "2 tags")),
            ("words as one string", [("the cat", [0, 1])], ("pairs", "'the cat'")),
            ("string tags", [(["the"], ["O"])], ("tags", "'O'")),
            ("a bare sentence", [["the", "cat"]], ("sentences", "list")),
        ],
    )
    yield from vary(F.encode_tagged, good, "max_len", int_variants(3))
    yield from vary(F.encode_tagged, good, "first_piece", [("a string", "yes", "'yes'")])


@cases("dl4nlp.finetune.SentenceClassifier")
def _():
    good = dict(encoder=encoder())
    yield from vary(
        F.SentenceClassifier,
        good,
        "encoder",
        [("None", None, "None"), ("a linear layer", torch.nn.Linear(2, 2), "Linear")],
    )
    yield from vary(F.SentenceClassifier, good, "n_classes", int_variants(2))
    yield from vary(F.SentenceClassifier, good, "dropout", prob_variants(allow_one=False))


@cases("dl4nlp.finetune.TokenTagger")
def _():
    good = dict(encoder=encoder())
    yield from vary(F.TokenTagger, good, "encoder", [("None", None, "None")])
    yield from vary(F.TokenTagger, good, "n_tags", int_variants(2))
    yield from vary(F.TokenTagger, good, "dropout", prob_variants(allow_one=False))


def _forward_cases(method):
    ids, valid, _ = rows()
    good = dict(ids=ids, valid=valid)
    yield from vary(method, good, "ids", id_variants(ids, V))
    yield from vary(
        method,
        good,
        "valid",
        [("a float mask", valid.float(), "float32"), ("another shape", valid[:, :2], shape(valid[:, :2]))],
    )


@cases("dl4nlp.finetune.SentenceClassifier.forward")
def _():
    yield from _forward_cases(classifier().forward)


@cases("dl4nlp.finetune.SentenceClassifier.features")
def _():
    yield from _forward_cases(classifier().features)


@cases("dl4nlp.finetune.TokenTagger.forward")
def _():
    torch.manual_seed(0)
    yield from _forward_cases(F.TokenTagger(encoder()).eval().forward)


@cases("dl4nlp.finetune.fresh_copy")
def _():
    yield "model: a classifier", lambda: F.fresh_copy(classifier()), ("model", "SentenceClassifier")
    yield "model: None", lambda: F.fresh_copy(None), ("model", "None")
    yield "pretrained: a string", lambda: F.fresh_copy(encoder(), pretrained="no"), ("pretrained", "'no'")


@cases("dl4nlp.finetune.fine_tune")
def _():
    ids, valid, labels = rows()

    def good():
        torch.manual_seed(0)
        return dict(model=F.SentenceClassifier(encoder()), ids=ids, valid=valid, labels=labels, steps=1, lr=1e-3)

    def call(**change):
        return lambda: F.fine_tune(**{**good(), **change})

    yield "model: the bare encoder", call(model=encoder()), ("model", "Bert")
    for label, value, mention in id_variants(ids, V):
        yield f"ids: {label}", call(ids=value), ("ids", mention)
    yield "valid: a float mask", call(valid=valid.float()), ("valid", "float32")
    yield "labels: one short", call(labels=labels[:3]), ("labels", "(3,)")
    yield "labels: floats", call(labels=labels.float()), ("labels", "float32")
    yield "labels: a list", call(labels=[0, 1, 0, 1]), ("labels", "list")
    for name, variants in (
        ("steps", int_variants(1)),
        ("lr", [("zero", 0.0, "0.0"), ("NaN", float("nan"), "nan"), ("a string", "1e-3", "'1e-3'")]),
        ("batch_size", int_variants(1)),
        ("seed", [("a string", "0", "'0'")]),
        ("freeze", [("a string", "yes", "'yes'")]),
        ("warmup", prob_variants()),
    ):
        for label, value, mention in variants:
            yield f"{name}: {label}", call(**{name: value}), (name, mention)


@cases("dl4nlp.finetune.predict")
def _():
    ids, valid, _ = rows()
    good = dict(model=classifier(), ids=ids, valid=valid)
    yield from vary(F.predict, good, "model", [("None", None, "None")])
    yield from vary(F.predict, good, "ids", id_variants(ids, V))
    yield from vary(F.predict, good, "valid", [("a float mask", valid.float(), "float32")])
    yield from vary(F.predict, good, "batch_size", int_variants(1))


@cases("dl4nlp.finetune.accuracy")
def _():
    labels = torch.tensor([0, 1, 1])
    good = dict(predicted=torch.tensor([0, 1, 0]), labels=labels)
    yield from vary(
        F.accuracy,
        good,
        "predicted",
        [("a list", [0, 1, 0], "list"), ("scores", torch.rand(3, 2), "float32"), ("one short", labels[:2], "(2,)")],
    )
    yield from vary(
        F.accuracy,
        good,
        "labels",
        [("all ignored", torch.full((3,), -100), "IGNORE_INDEX"), ("floats", labels.float(), "float32")],
    )


@cases("dl4nlp.finetune.logistic_regression")
def _():
    x = torch.randn(6, 3, generator=torch.Generator().manual_seed(0))
    good = dict(features=x, labels=torch.tensor([0, 1, 0, 1, 0, 1]))
    yield from vary(F.logistic_regression, good, "features", float_variants(x))
    yield from vary(
        F.logistic_regression,
        good,
        "labels",
        [
            ("one short", torch.tensor([0, 1, 0, 1, 0]), "(5,)"),
            ("floats", torch.zeros(6), "float32"),
            ("negative", torch.tensor([0, 1, 0, 1, 0, -1]), "-1"),
        ],
    )
    yield from vary(F.logistic_regression, good, "l2", [("negative", -1.0, "-1.0"), ("NaN", float("nan"), "nan")])
    yield from vary(F.logistic_regression, good, "iterations", int_variants(1))


@cases("dl4nlp.finetune.linear_probe")
def _():
    train = rows()
    good = dict(model=classifier(), train=train, test=train)
    yield from vary(F.linear_probe, good, "model", [("the bare encoder", encoder(), "Bert")])
    yield from vary(F.linear_probe, good, "train", [("ids and valid only", train[:2], "tuple"), ("None", None, "None")])
    yield from vary(
        F.linear_probe, good, "test", [("float labels", (*train[:2], train[2].float()), ("labels", "float32"))]
    )


@cases("dl4nlp.finetune.bag_of_words")
def _():
    texts = ["the cat", "a dog"]
    good = dict(train_texts=texts, train_labels=[0, 1], test_texts=texts, test_labels=[0, 1])
    yield from vary(F.bag_of_words, good, "train_texts", [("one string", "the cat", "str"), ("empty", [], "[]")])
    yield from vary(
        F.bag_of_words,
        good,
        "train_labels",
        [("one short", [0], ("1 labels",)), ("strings", ["a", "b"], "'a'"), ("negative", [0, -1], "-1")],
    )
    yield from vary(F.bag_of_words, good, "test_texts", [("ints", [1, 2], "int")])
    yield from vary(F.bag_of_words, good, "test_labels", [("None", None, "None")])


@cases("dl4nlp.finetune.default_steps")
def _():
    yield from vary(F.default_steps, dict(n=100), "n", int_variants(1))
    yield from vary(F.default_steps, dict(n=100), "batch_size", int_variants(1))
    yield from vary(F.default_steps, dict(n=100), "epochs", [("0", 0, "0")])


def _compare_cases(fn, train, test):
    good = dict(pretrained=encoder(), tokenizer=vocab(), seed=0, steps=1)
    first = "train_examples" if fn is F.compare_methods else "train_sentences"
    good.update({first: train, first.replace("train", "test"): test})
    yield from vary(
        fn, good, "pretrained", [("a classifier", classifier(), "SentenceClassifier"), ("None", None, "None")]
    )
    yield from vary(fn, good, "tokenizer", [("None", None, "None")])
    yield from vary(
        fn, good, "methods", [("an unknown method", ["pretrained", "bogus"], "bogus"), ("one string", "probe", "str")]
    )
    yield from vary(
        fn, good, "settings", [("a negative rate", {"pretrained": -1.0}, "-1.0"), ("a list", [1e-3], "list")]
    )
    yield from vary(fn, good, "seed", [("a string", "0", "'0'"), ("None", None, "None")])
    yield from vary(fn, good, "steps", int_variants(1)[1:])


@cases("dl4nlp.finetune.compare_methods")
def _():
    train = [SimpleNamespace(text=t, label=i % 2) for i, t in enumerate(["the cat", "a dog", "the mat", "a cat"])]
    yield from _compare_cases(F.compare_methods, train, train)
    good = dict(pretrained=encoder(), tokenizer=vocab(), train_examples=train, test_examples=train, seed=0, steps=1)
    yield from vary(F.compare_methods, good, "train_examples", [("strings", ["the cat"], "str"), ("empty", [], "[]")])
    yield from vary(F.compare_methods, good, "test_examples", [("pairs", [("the cat", 0)], "tuple")])


@cases("dl4nlp.finetune.compare_taggers")
def _():
    train = [(["the", "cat"], [0, 1]), (["a", "dog", "ran"], [1, 1, 0])]
    yield from _compare_cases(F.compare_taggers, train, train)
    good = dict(pretrained=encoder(), tokenizer=vocab(), train_sentences=train, test_sentences=train, seed=0, steps=1)
    yield from vary(
        F.compare_taggers, good, "train_sentences", [("empty", [], "[]"), ("string tags", [(["the"], ["O"])], "'O'")]
    )


@cases("dl4nlp.finetune.majority_tags")
def _():
    good = dict(train_sentences=[(["the", "cat"], [0, 1])])
    yield from vary(
        F.majority_tags,
        good,
        "train_sentences",
        [("empty", [], "[]"), ("one word short of tags", [(["the"], [0, 1])], ("1 words", "2 tags"))],
    )
    yield from vary(F.majority_tags, good, "lowercase", [("a string", "yes", "'yes'")])
