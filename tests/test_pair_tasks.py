"""dl4nlp.pair_tasks: the pair tasks' examples, encoding, heads, span loss and decoding, training and baselines."""

import itertools
import random

import torch

from dl4nlp.bert import Bert, bert_config
from dl4nlp.pair_tasks import (
    NEGATIVE,
    PairClassifier,
    PairExample,
    SpanSelector,
    _cloze,
    best_span,
    content_words,
    encode_pairs,
    frequent_word_baseline,
    pair_accuracy,
    span_loss,
    train_pairs,
)
from dl4nlp.wordpiece import WordPiece

WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", "lily", "saw", "a", "."]


def tiny():
    torch.manual_seed(0)
    vocab = WordPiece(WORDS)
    config = bert_config("base", vocab_size=len(vocab), d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=32)
    return Bert(config), vocab


def test_best_span_is_the_brute_force_maximum():
    generator = torch.Generator().manual_seed(0)
    start, end = torch.randn(20, 9, generator=generator), torch.randn(20, 9, generator=generator)
    for length in (1, 3, 9):
        found = best_span(start, end, length)
        for b in range(20):
            best = max(
                ((s, e) for s, e in itertools.product(range(9), repeat=2) if s <= e < s + length),
                key=lambda p: float(start[b, p[0]] + end[b, p[1]]),
            )
            assert tuple(found[b].tolist()) == best


def test_span_loss_is_the_mean_of_the_two_cross_entropies():
    start, end = torch.randn(3, 5), torch.randn(3, 5)
    targets = torch.tensor([[0, 1], [2, 2], [1, 4]])
    expected = (
        torch.nn.functional.cross_entropy(start, targets[:, 0]) + torch.nn.functional.cross_entropy(end, targets[:, 1])
    ) / 2
    assert torch.allclose(span_loss(start, end, targets), expected)


def test_a_cloze_question_hides_a_word_found_in_its_context():
    _, vocab = tiny()
    example = _cloze(
        ["lily saw the cat.", "the cat sat on the mat."], 1, vocab.encode, vocab["[MASK]"], random.Random(0), 32
    )
    assert example.answer == "cat"  # the only content word of the question that the context has
    assert vocab["[MASK]"] in example.a and vocab.encode(example.answer)[0] not in example.a
    start, end = example.target
    assert list(example.b[start : end + 1]) == vocab.encode(example.answer)
    assert content_words(["the", "cat", "on", "lily"]) == ["cat", "lily"]


def test_encoding_puts_the_span_in_segment_b_and_training_learns_it():
    encoder, vocab = tiny()
    question = (vocab["the"], vocab["[MASK]"], vocab["sat"])
    examples = [
        PairExample(question, tuple(vocab.encode(f"{w} ran . the {w} sat")), (0, 0), w)
        for w in ("cat", "dog", "lily", "mat")
    ]
    rows = encode_pairs(examples, vocab)
    assert rows["targets"][0].tolist() == [5, 5]  # [CLS] the [MASK] sat [SEP] -> b starts at 5
    assert rows["segments"][0].tolist()[:6] == [0, 0, 0, 0, 0, 1]
    assert rows["context"][0].tolist().count(True) == 6
    selector = SpanSelector(encoder)
    scores = selector(rows)
    assert (scores[~rows["context"]] == NEGATIVE).all()
    losses = train_pairs(selector, rows, steps=40, lr=3e-3, seed=0, batch_size=4)
    assert losses[-1] < losses[0]
    assert 0.0 <= pair_accuracy(selector, rows) <= 1.0
    assert frequent_word_baseline(examples, vocab) == 1.0  # the hidden word is the context's only repeated one


def test_the_pair_classifier_reads_segments():
    encoder, vocab = tiny()
    examples = [
        PairExample(tuple(vocab.encode("the cat")), tuple(vocab.encode(t)), y)
        for t, y in (("sat", 1), ("ran", 0), ("sat .", 1), ("ran .", 0))
    ]
    rows = encode_pairs(examples, vocab)
    classifier = PairClassifier(encoder)
    assert classifier(rows).shape == (4, 2)
    losses = train_pairs(classifier, rows, steps=60, lr=1e-2, batch_size=4)
    assert sum(losses[-10:]) < sum(losses[:10])
    assert pair_accuracy(classifier, rows) in (0.0, 0.25, 0.5, 0.75, 1.0)


def test_the_recipe_starts_its_grid_at_the_nearest_rung_and_breaks_ties_towards_the_smaller_rate():
    from dl4nlp.recipes.pair_tasks import LADDER, _best, _rung

    assert LADDER[_rung(0.003)] == 0.003 and LADDER[_rung(0.0012)] == 0.001
    assert _best({0.001: 0.5, 0.003: 0.7, 0.01: 0.7}) == 0.003


def test_the_recipe_reproduces_a_shipped_test_row():
    """One shipped row of data/pair_tasks.csv (next sentence, seed 1, fine-tuned at its chosen rate) re-run."""
    import csv
    import json

    from reproduction import TOLERANCE, check_rerun

    from dl4nlp.data import data_path
    from dl4nlp.recipes import recorded_threads
    from dl4nlp.recipes.pair_tasks import STEPS, _train_and_score

    record = json.loads(data_path("pair_tasks.json").read_text())
    with open(data_path("pair_tasks.csv"), newline="") as f:
        row = next(r for r in csv.DictReader(f) if (r["task"], r["split"], r["seed"], r["method"])
                   == ("next_sentence", "test", "1", "pretrained"))  # fmt: skip
    with recorded_threads(record):
        again = _train_and_score("next_sentence", 1, "pretrained", float(row["lr"]), STEPS)["test"]
    check_rerun("pair_tasks", round(again, 6), float(row["accuracy"]), record, **TOLERANCE["pair_tasks"])
