"""Bad inputs of dl4nlp.dependency_trees, of chapter 03's truncated-BPTT training loop (dl4nlp.bptt) and of
``dl4nlp.experiments.rnn.book_training`` (issue 25)."""

import torch

from bad_inputs.harness import cases, exempt, int_variants, scratch, semantic, vary
from dl4nlp import bptt
from dl4nlp import dependency_trees as D
from dl4nlp.experiments import rnn as E
from dl4nlp.rnn import RecurrentLM

exempt(
    "records returned by read_conllu and subject_verb_pairs (plain data)",
    "dl4nlp.dependency_trees.Token",
    "dl4nlp.dependency_trees.Sentence",
    "dl4nlp.dependency_trees.SubjectVerb",
    "dl4nlp.experiments.rnn.BookTraining",
)
exempt(
    "a method of a record: its argument is an id the record's own tokens index",
    "dl4nlp.dependency_trees.Sentence.children",
)

_SENTENCES = D.read_conllu("en_ewt-ud-dev.conllu")[:3]


@cases("dl4nlp.dependency_trees.read_conllu")
def _():
    yield from vary(D.read_conllu, {}, "source", [("a number", 3, "int"), ("an unknown file", "nope.conllu", "nope")])
    folder = scratch()
    (folder / "short.conllu").write_text("1\tcat\tcat\tNOUN\tNN\t_\t0\n")
    yield semantic("a line cut short (7 columns)", lambda: D.read_conllu(folder / "short.conllu"), ("10", "7"))
    (folder / "empty.conllu").write_text("# only a comment\n")
    yield semantic("no sentences", lambda: D.read_conllu(folder / "empty.conllu"), ("no", "sentences"))
    (folder / "two_roots.conllu").write_text(
        "1\ta\ta\tDET\tDT\t_\t0\troot\t_\t_\n2\tb\tb\tNOUN\tNN\t_\t0\troot\t_\t_\n\n"
    )
    yield semantic("two roots: not a tree", lambda: D.read_conllu(folder / "two_roots.conllu"), ("tree", "root"))


@cases("dl4nlp.dependency_trees.subject_verb_pairs")
def _():
    yield from vary(D.subject_verb_pairs, {}, "sentences", [("a string", "the cat", "str"), ("empty", [], "[]")])
    yield from vary(D.subject_verb_pairs, {}, "sentences", [("a list of strings", ["a"], ("Sentence", "str"))])


@cases("dl4nlp.dependency_trees.share_farther")
def _():
    yield from vary(D.share_farther, dict(distances=[1, 2]), "k", [("-1", -1, "-1"), ("a float", 2.5, "2.5")])
    yield from vary(D.share_farther, dict(k=1), "distances", [("empty", [], "[]"), ("a number", 3, "int")])


@cases("dl4nlp.dependency_trees.draw_dependency_tree")
def _():
    yield from vary(D.draw_dependency_tree, {}, "sentence", [("a string", "the cat sat", "str")])


@cases("dl4nlp.dependency_trees.describe")
def _():
    pair = D.subject_verb_pairs(_SENTENCES)[0]
    yield from vary(D.describe, dict(sentences=_SENTENCES), "pair", [("a tuple", (1, 2), "tuple")])
    yield from vary(D.describe, dict(pair=pair), "sentences", [("a string", "abc", "str")])


# --- the training loop of chapter 03 -----------------------------------------------------------
def _model():
    torch.manual_seed(0)
    return RecurrentLM(5, hidden_size=4, kind="rnn", embedding_dim=3)


@cases("dl4nlp.bptt.contiguous_streams")
def _():
    good = dict(ids=torch.arange(20), batch_size=2, length=3)
    yield from vary(bptt.contiguous_streams, good, "batch_size", int_variants(1)[:3])
    yield from vary(bptt.contiguous_streams, good, "length", int_variants(1)[:3])
    bad_ids = [
        ("a float tensor", torch.arange(20.0), "float32"),
        ("(2, 10)", torch.arange(20).reshape(2, 10), "(2, 10)"),
    ]
    yield from vary(bptt.contiguous_streams, good, "ids", bad_ids)
    yield semantic("streams longer than the text allows", lambda: bptt.contiguous_streams(torch.arange(20), 4, 9),
                   ("20", "10"))  # fmt: skip


@cases("dl4nlp.bptt.train_truncated_bptt")
def _():
    model = _model()
    good = dict(model=model, streams=torch.randint(0, 5, (2, 9)), k=4,
                optimiser=torch.optim.SGD(model.parameters(), lr=0.1), clip_norm=1.0)  # fmt: skip
    yield from vary(bptt.train_truncated_bptt, good, "model", [("a torch RNN", torch.nn.RNN(3, 4), "RNN")])
    yield from vary(bptt.train_truncated_bptt, good, "k", int_variants(1)[:3])
    yield from vary(bptt.train_truncated_bptt, good, "streams", [("an id beyond the vocabulary",
                                                                 torch.full((2, 9), 5), "5")])  # fmt: skip
    yield from vary(bptt.train_truncated_bptt, good, "clip_norm", [("0", 0.0, "0.0"), ("negative", -1.0, "-1.0")])
    yield from vary(bptt.train_truncated_bptt, good, "optimiser", [("a learning rate", 0.1, "float")])


@cases("dl4nlp.bptt.check_truncated_training")
def _():
    yield from vary(bptt.check_truncated_training, dict(name="Exercise 1b"), "loop", [("a number", 3, "int")])
    yield from vary(bptt.check_truncated_training, dict(loop=bptt.train_truncated_bptt), "name",
                    [("empty", "", "''")])  # fmt: skip


@cases("dl4nlp.experiments.rnn.book_training")
def _():
    yield from vary(E.book_training, {}, "seed", [("negative", -1, "-1"), ("a float", 0.5, "0.5")])
    yield from vary(E.book_training, {}, "loop", [("a number", 3, "int")])


# --- dl4nlp.recursive (chapter 05's Going further) --------------------------------------------
from dl4nlp import recursive as R  # noqa: E402

exempt(
    "a torch module's forward, reached through compose (which checks its inputs)",
    "dl4nlp.recursive.RecursiveCell.forward",
)


@cases("dl4nlp.recursive.RecursiveCell")
def _():
    yield from vary(R.RecursiveCell, dict(embedding_dim=4, hidden_size=3), "hidden_size", int_variants(1)[:3])
    yield from vary(R.RecursiveCell, dict(embedding_dim=4, hidden_size=3), "seed", [("negative", -1, "-1")])


@cases("dl4nlp.recursive.compose")
def _():
    sentence, cell = _SENTENCES[0], R.RecursiveCell(4, 3)
    good = dict(sentence=sentence, embeddings=torch.zeros(len(sentence.tokens), 4), cell=cell)
    yield from vary(R.compose, good, "embeddings", [("one row short", torch.zeros(len(sentence.tokens) - 1, 4),
                                                    f"({len(sentence.tokens) - 1}, 4)")])  # fmt: skip
    yield from vary(R.compose, good, "sentence", [("a string", "the cat", "str")])
    yield from vary(R.compose, good, "cell", [("a torch RNN", torch.nn.RNN(4, 3), "RNN")])


@cases("dl4nlp.recursive.subtree")
def _():
    bad = [("0, the root's head", 0, "0"), ("beyond the sentence", 99, "99")]
    yield from vary(R.subtree, dict(sentence=_SENTENCES[0]), "token_id", bad)


@cases("dl4nlp.recursive.tree_depth")
def _():
    yield from vary(R.tree_depth, {}, "sentence", [("a string", "the cat", "str")])


@cases("dl4nlp.recursive.tree_shape")
def _():
    yield from vary(R.tree_shape, {}, "sentence", [("a list", [1, 2], "list")])


# --- chapter 03's section 6 trained beforehand (dl4nlp.recipes.rnn_memory_by_lag) -------------
from dl4nlp.recipes import rnn_memory_by_lag  # noqa: E402

exempt("a record returned by load_memory_by_lag (plain data)", "dl4nlp.experiments.rnn.ShippedMemory")
exempt(
    "the command line of a recipe (argparse reports bad arguments; --out is checked before training)",
    "dl4nlp.recipes.rnn_memory_by_lag.main",
)


@cases("dl4nlp.recipes.rnn_memory_by_lag.seed_row")
def _():
    yield from vary(rnn_memory_by_lag.seed_row, {}, "seed", [("negative", -1, "-1"), ("a string", "0", "'0'")])


@cases("dl4nlp.experiments.rnn.load_memory_by_lag")
def _():
    yield from vary(E.load_memory_by_lag, {}, "seed", [("negative", -1, "-1"), ("a float", 0.5, "0.5")])
    yield from vary(E.load_memory_by_lag, {}, "path", [("a missing file", "no_such_table.json", "no_such_table.json"),
                                                       ("a number", 3, "int")])  # fmt: skip
