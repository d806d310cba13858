"""Bad inputs of chapter 02's word vectors: dl4nlp.skipgram, its recipe and its experiment functions."""

import torch

from bad_inputs.harness import cases, exempt, int_variants, scratch, semantic, vary
from dl4nlp import skipgram as S
from dl4nlp.experiments import before_recurrence as E
from dl4nlp.recipes import skipgram as R

exempt("the command line of a recipe (argparse reports bad arguments; --out is checked before training)",
       "dl4nlp.recipes.skipgram.main")  # fmt: skip
exempt(
    "records of a run's results, built by train_skipgram and load_vectors",
    "dl4nlp.skipgram.SkipGramRun",
    "dl4nlp.skipgram.ShippedVectors",
)

_VOCAB = S.SkipGramVocab(["a", "b", "c"], [3, 2, 1])
_VECTORS = torch.eye(3)


@cases("dl4nlp.skipgram.words")
def _():
    yield from vary(S.words, {}, "text", [("None", None, "None"), ("a list", ["a"], "list")])


@cases("dl4nlp.skipgram.SkipGramVocab")
def _():
    good = dict(itos=["a", "b"], counts=[2, 1])
    yield from vary(S.SkipGramVocab, good, "itos", [("a repeated word", ["a", "a"], "repeats")])
    yield from vary(S.SkipGramVocab, good, "counts", [("one count too few", [2], "[2]"), ("a zero", [2, 0], "0")])


@cases("dl4nlp.skipgram.SkipGramVocab.build")
def _():
    yield from vary(S.SkipGramVocab.build, dict(tokens=["a", "b"]), "min_count", int_variants(1)[:2])
    yield from vary(S.SkipGramVocab.build, dict(tokens=["a", "b"], min_count=5), "tokens", [("text", "a b", "'a b'")])
    yield semantic("min_count above every count", lambda: S.SkipGramVocab.build(["a", "b"], 5), ("min_count", "5"))


@cases("dl4nlp.skipgram.SkipGramVocab.encode")
def _():
    yield "a string for tokens", lambda: _VOCAB.encode("a b"), ("tokens", "'a b'")


@cases("dl4nlp.skipgram.SkipGramVocab.id")
def _():
    yield "an unknown word", lambda: _VOCAB.id("z"), ("word", "'z'")
    yield "an id for a word", lambda: _VOCAB.id(0), ("word", "0")


@cases("dl4nlp.skipgram.keep_probabilities")
def _():
    yield from vary(
        S.keep_probabilities, dict(counts=[3, 1]), "counts", [("a zero", [3, 0], "0"), ("empty", [], "(0,)")]
    )
    yield from vary(S.keep_probabilities, dict(counts=[3, 1]), "threshold", [("0", 0.0, "0.0"), ("2", 2.0, "2.0")])


@cases("dl4nlp.skipgram.subsample")
def _():
    good = dict(ids=torch.tensor([0, 1]), keep=torch.tensor([0.5, 1.0]))
    yield from vary(S.subsample, good, "keep", [("above 1", torch.tensor([1.5, 1.0]), "1.5")])
    yield from vary(S.subsample, good, "ids", [("an id beyond keep", torch.tensor([0, 2]), "2")])


@cases("dl4nlp.skipgram.context_pairs")
def _():
    yield from vary(S.context_pairs, dict(ids=torch.tensor([0, 1])), "window", int_variants(1)[:2])
    yield from vary(S.context_pairs, dict(window=1), "ids", [("2-D", torch.zeros(2, 2, dtype=torch.long), "(2, 2)")])


@cases("dl4nlp.skipgram.noise_distribution")
def _():
    yield from vary(S.noise_distribution, dict(counts=[3, 1]), "power", [("above 1", 1.5, "1.5")])
    yield from vary(S.noise_distribution, dict(counts=[3, 1]), "counts", [("negative", [3, -1], "-1")])


@cases("dl4nlp.skipgram.sample_negatives")
def _():
    good = dict(noise=torch.tensor([0.5, 0.5], dtype=torch.float64), shape=(2, 3))
    yield from vary(S.sample_negatives, good, "shape", [("an int", 3, "3"), ("a zero", (2, 0), "0")])
    yield semantic("counts for a distribution", lambda: S.sample_negatives(torch.tensor([3.0, 1.0]), (2,)),
                   ("noise", "4"))  # fmt: skip


@cases("dl4nlp.skipgram.sgns_loss")
def _():
    good = dict(centre=torch.zeros(2, 3), context=torch.zeros(2, 3), negatives=torch.zeros(2, 5, 3))
    yield from vary(S.sgns_loss, good, "negatives", [("(B, d): one negative, unbatched", torch.zeros(2, 3), "(2, 3)")])
    yield from vary(S.sgns_loss, good, "context", [("another size", torch.zeros(2, 4), "(2, 4)")])
    yield from vary(S.sgns_loss, good, "centre", [("word ids", torch.zeros(2, dtype=torch.long), "int64")])


@cases("dl4nlp.skipgram.SkipGramConfig")
def _():
    yield from vary(S.SkipGramConfig, dict(vocab_size=5), "negatives", int_variants(1)[:2])
    yield from vary(S.SkipGramConfig, dict(vocab_size=5), "threshold", [("0", 0.0, "0.0")])


@cases("dl4nlp.skipgram.SkipGram")
def _():
    yield "a dict for a config", lambda: S.SkipGram({"vocab_size": 5}), ("config", "dict")


@cases("dl4nlp.skipgram.SkipGram.forward")
def _():
    model = S.SkipGram(S.SkipGramConfig(vocab_size=5, dim=2))
    good = dict(centres=torch.tensor([0, 1]), contexts=torch.tensor([2, 3]), negatives=torch.tensor([[4], [0]]))
    yield from vary(model, good, "centres", [("an id beyond the vocabulary", torch.tensor([0, 5]), "5")])
    yield from vary(model, good, "negatives", [("one row for two pairs", torch.tensor([[4]]), "(1, 1)")])


@cases("dl4nlp.skipgram.train_skipgram")
def _():
    config = S.SkipGramConfig(vocab_size=3, dim=2)
    good = dict(ids=torch.tensor([0, 1, 2, 0]), vocab=_VOCAB, config=config, epochs=0.1)
    yield from vary(S.train_skipgram, good, "config", [("another vocabulary size", S.SkipGramConfig(4), "4")])
    yield from vary(S.train_skipgram, good, "epochs", [("0", 0.0, "0.0")])
    yield from vary(S.train_skipgram, good, "loss", [("not a function", 3, "3")])


@cases("dl4nlp.skipgram.nearest")
def _():
    good = dict(vectors=_VECTORS, vocab=_VOCAB, word="a", k=1)
    yield from vary(S.nearest, good, "word", [("unknown", "z", "'z'")])
    yield from vary(S.nearest, good, "k", [("as many as the vocabulary", 3, "3")])
    yield from vary(S.nearest, good, "vectors", [("one row short", torch.eye(2), "2")])


@cases("dl4nlp.skipgram.class_cosines")
def _():
    good = dict(vectors=_VECTORS, vocab=_VOCAB, classes={"x": ["a", "b"], "y": ["b", "c"]})
    one_word = {"x": ["a"], "y": ["b", "c"]}
    yield from vary(
        S.class_cosines,
        good,
        "classes",
        [("one class", {"x": ["a", "b"]}, "dict"), ("a one-word class", one_word, "['a']")],
    )


@cases("dl4nlp.skipgram.same_class_neighbours")
def _():
    good = dict(vectors=_VECTORS, vocab=_VOCAB, classes={"x": ["a", "b"], "y": ["b", "c"]})
    yield from vary(S.same_class_neighbours, good, "classes", [("a list", [["a", "b"]], "list")])


@cases("dl4nlp.skipgram.cooccurrence_vectors")
def _():
    good = dict(ids=torch.tensor([0, 1]), vocab_size=2, window=1)
    yield from vary(S.cooccurrence_vectors, good, "ids", [("an id beyond vocab_size", torch.tensor([0, 2]), "2")])


@cases("dl4nlp.skipgram.load_vectors")
def _():
    missing = scratch() / "none.pt"
    yield "a missing file", lambda: S.load_vectors(missing), ("none.pt",)


@cases("dl4nlp.recipes.skipgram.Recipe")
def _():
    yield from vary(R.Recipe, {}, "epochs", int_variants(1)[:2])
    yield from vary(R.Recipe, {}, "lr", [("0", 0.0, "0.0")])


@cases("dl4nlp.recipes.skipgram.corpus_ids")
def _():
    yield from vary(R.corpus_ids, {}, "min_count", int_variants(1)[:2])
    yield from vary(R.corpus_ids, {}, "split_left", [("a string", "yes", "'yes'")])


@cases("dl4nlp.recipes.skipgram.left_senses")
def _():
    yield from vary(R.left_senses, {}, "tokens", [("text", "the left", "'the left'")])


@cases("dl4nlp.recipes.skipgram.evaluate")
def _():
    yield from vary(R.evaluate, dict(vectors=_VECTORS), "vocab", [("a list", ["a"], "list")])


@cases("dl4nlp.experiments.before_recurrence.train_live_skipgram")
def _():
    yield from vary(E.train_live_skipgram, {}, "seed", [("negative", -1, "-1")])
    yield from vary(E.train_live_skipgram, {}, "epochs", [("more than one pass", 2.0, "2.0")])
    yield from vary(E.train_live_skipgram, {}, "loss", [("not a function", 3, "3")])


@cases("dl4nlp.experiments.before_recurrence.skipgram_diagram")
def _():
    config = S.SkipGramConfig(vocab_size=5, negatives=2)
    yield from vary(E.skipgram_diagram, dict(config=config), "negatives", [("too few", ["a"], "['a']")])
    yield from vary(E.skipgram_diagram, dict(negatives=["a", "b"]), "config", [("a dict", {}, "dict")])
