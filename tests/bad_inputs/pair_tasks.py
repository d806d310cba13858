"""Bad inputs of dl4nlp.pair_tasks and its recipe (notebook 13's sentence-pair and span-selection tasks)."""

import functools

import torch

from bad_inputs.harness import cases, choice_variants, exempt, int_variants, semantic, vary
from dl4nlp import pair_tasks as P
from dl4nlp.bert import Bert, bert_config
from dl4nlp.wordpiece import WordPiece

exempt("a record the task builders return; nothing to validate", "dl4nlp.pair_tasks.PairExample")
exempt(
    "nn.Module plumbing called by train_pairs and pair_accuracy, which check the rows first",
    "dl4nlp.pair_tasks.PairClassifier.forward",
    "dl4nlp.pair_tasks.PairClassifier.loss",
    "dl4nlp.pair_tasks.PairClassifier.decode",
    "dl4nlp.pair_tasks.SpanSelector.forward",
    "dl4nlp.pair_tasks.SpanSelector.loss",
    "dl4nlp.pair_tasks.SpanSelector.decode",
)
exempt(
    "the command line of a recipe (argparse reports bad arguments; --out and --seeds are checked before training)",
    "dl4nlp.recipes.pair_tasks.main",
)
exempt("takes no arguments (the recipe's argument parser)", "dl4nlp.recipes.pair_tasks.parser")


@functools.cache
def vocab() -> WordPiece:
    return WordPiece(["the", "cat", "sat", "dog", "ran", "."])


@functools.cache
def encoder() -> Bert:
    torch.manual_seed(0)
    return Bert(bert_config("base", vocab_size=len(vocab()), d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=16))


def span_examples():
    v = vocab()
    return [P.PairExample((v["the"], v["[MASK]"]), (v["cat"], v["sat"]), (0, 0), "cat")]


def pair_examples():
    v = vocab()
    return [P.PairExample((v["the"], v["cat"]), (v["sat"],), 1), P.PairExample((v["the"],), (v["ran"],), 0)]


@cases("dl4nlp.pair_tasks.best_span")
def _():
    good = dict(start_logits=torch.zeros(2, 4), end_logits=torch.zeros(2, 4), max_length=2)
    yield from vary(P.best_span, good, "start_logits", [("integers", torch.zeros(2, 4, dtype=torch.long), "int64")])
    yield from vary(P.best_span, good, "end_logits", [("another shape", torch.zeros(2, 5), "(2, 5)")])
    yield from vary(P.best_span, good, "max_length", int_variants())


@cases("dl4nlp.pair_tasks.span_loss")
def _():
    good = dict(start_logits=torch.zeros(1, 4), end_logits=torch.zeros(1, 4), targets=torch.tensor([[1, 2]]))
    yield from vary(P.span_loss, good, "targets", [("past the end", torch.tensor([[1, 9]]), "9")])
    yield semantic(
        "targets: end before start",
        lambda: P.span_loss(torch.zeros(1, 4), torch.zeros(1, 4), torch.tensor([[2, 1]])),
        ("targets", "start <= end"),
    )


@cases("dl4nlp.pair_tasks.content_words")
def _():
    yield "words: numbers", lambda: P.content_words([1, 2]), ("words", "strings")


@cases("dl4nlp.pair_tasks.encode_pairs")
def _():
    yield "examples: tuples", lambda: P.encode_pairs([((1,), (2,), 0)], vocab()), ("examples", "PairExample")
    yield semantic(
        "examples: both tasks mixed",
        lambda: P.encode_pairs(span_examples() + pair_examples(), vocab()),
        ("examples", "span"),
    )


@cases("dl4nlp.pair_tasks.PairClassifier")
def _():
    yield "encoder: a string", lambda: P.PairClassifier("bert"), ("encoder", "Bert")
    yield "n_classes: 1", lambda: P.PairClassifier(encoder(), n_classes=1), ("n_classes", "1")


@cases("dl4nlp.pair_tasks.SpanSelector")
def _():
    yield "encoder: a string", lambda: P.SpanSelector("bert"), ("encoder", "Bert")
    yield "max_length: 0", lambda: P.SpanSelector(encoder(), max_length=0), ("max_length", "0")


@cases("dl4nlp.pair_tasks.train_pairs")
def _():
    rows = P.encode_pairs(pair_examples(), vocab())
    yield "model: the encoder", lambda: P.train_pairs(encoder(), rows, steps=1, lr=1e-3), ("model", "PairClassifier")
    yield "rows: a list", lambda: P.train_pairs(P.PairClassifier(encoder()), [1], steps=1, lr=1e-3), ("rows", "dict")
    yield "steps: 0", lambda: P.train_pairs(P.PairClassifier(encoder()), rows, steps=0, lr=1e-3), ("steps", "0")


@cases("dl4nlp.pair_tasks.pair_accuracy")
def _():
    rows = P.encode_pairs(pair_examples(), vocab())
    yield "model: the encoder", lambda: P.pair_accuracy(encoder(), rows), ("model", "PairClassifier")


@cases("dl4nlp.pair_tasks.span_accuracy")
def _():
    rows = P.encode_pairs(span_examples(), vocab())
    yield "spans: one column", lambda: P.span_accuracy(rows, torch.zeros(1, 1, dtype=torch.long)), ("spans", "(1, 1)")
    yield "rows: a list", lambda: P.span_accuracy([1], torch.zeros(1, 2, dtype=torch.long)), ("rows", "ids")


@cases("dl4nlp.pair_tasks.reader_scores")
def _():
    rows = P.encode_pairs(pair_examples(), vocab())
    yield "model: a string", lambda: P.reader_scores("bert", rows, vocab()["[MASK]"]), ("model", "Bert")
    yield semantic(
        "rows: next-sentence pairs (no [MASK])",
        lambda: P.reader_scores(encoder(), rows, vocab()["[MASK]"]),
        ("[MASK]", "none"),
    )


@cases("dl4nlp.pair_tasks.overlap_baseline")
def _():
    yield semantic(
        "train: cloze questions", lambda: P.overlap_baseline(span_examples(), pair_examples()), ("next-sentence",)
    )


@cases("dl4nlp.pair_tasks.frequent_word_baseline")
def _():
    yield semantic(
        "examples: next-sentence pairs", lambda: P.frequent_word_baseline(pair_examples(), vocab()), ("cloze",)
    )


@cases("dl4nlp.pair_tasks.next_sentence_sets")
def _():
    yield "sizes: a list", lambda: P.next_sentence_sets(vocab(), [10]), ("sizes", "dict")
    yield "sizes: unknown part", lambda: P.next_sentence_sets(vocab(), {"bogus": 1}), ("bogus", "train")


@cases("dl4nlp.pair_tasks.cloze_sets")
def _():
    yield "sizes: unknown part", lambda: P.cloze_sets(vocab(), {"bogus": 1}), ("bogus", "train")
    yield "sizes: 0 examples", lambda: P.cloze_sets(vocab(), {"test": 0}), ("sizes", "0")


@cases("dl4nlp.pair_tasks.task_sets")
def _():
    yield from vary(P.task_sets, {"task": "span"}, "task", choice_variants(P.TASKS))


@cases("dl4nlp.pair_tasks.pair_scores")
def _():
    good = dict(task="span", seed=0, budget=10, learning_rates={}, steps=1)
    yield from vary(P.pair_scores, good, "task", choice_variants(P.TASKS))
    yield from vary(P.pair_scores, good, "budget", [("0", 0, "0")])
    yield from vary(P.pair_scores, good, "learning_rates", [("a list", [1e-3], "dict")])


@cases("dl4nlp.pair_tasks.method_scores")
def _():
    yield "train: empty", lambda: P.method_scores([], pair_examples(), {}, 1), ("train",)
    yield "steps: 0", lambda: P.method_scores(pair_examples(), pair_examples(), {}, 0), ("steps", "0")


@cases("dl4nlp.pair_tasks.load_results")
def _():
    yield "path: missing", lambda: P.load_results("/nonexistent/pair_tasks.csv"), ("path", "pair_tasks.csv")
