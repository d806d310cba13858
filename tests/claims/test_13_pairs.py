"""Chapter 13, section 8: sentence pairs and span selection, on the three shipped seeds and a cheap recomputation.

The shipped table (``python -m dl4nlp.recipes.pair_tasks``) is checked seed by
seed with the notebook's thresholds, and its learning-rate grids (validation
examples, seed 0) are checked to hold each chosen rate strictly inside; the
test examples are rebuilt to check that they come from paragraphs never
pre-trained on, the three parts' paragraphs are checked disjoint, and the cloze
baseline and the masked LM read as a zero-shot reader are recomputed on all
500 test questions.
"""

import pytest

from dl4nlp import pair_tasks
from dl4nlp.bert import load_pretrained

SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def shipped():
    results, record = pair_tasks.load_results()
    assert sorted({seed for _, seed, _ in results}) == list(SEEDS)
    return results


def test_the_test_paragraphs_were_never_pre_trained_on():
    from dl4nlp.dialogue import pretraining_documents

    _, tokenizer = load_pretrained()
    train_text = "\n".join(" ".join(tokenizer.decode(tokenizer.encode(s)) for s in d) for d in pretraining_documents())
    test = pair_tasks.cloze_sets(tokenizer, {"test": pair_tasks.SCORED}, seed=2026)["test"]
    seen = [e for e in test if tokenizer.decode(list(e.b)) in train_text]
    assert all(len(e.b) <= 5 for e in seen) and len(seen) <= 3, seen[
        :3
    ]  # only short common sentences ("sara smiles .")


@pytest.mark.parametrize("seed", SEEDS)
def test_does_b_follow_a_pre_training_helps_and_both_beat_shared_words(shipped, seed):
    result = {m: shipped["next_sentence", seed, m] for m in ("pretrained", "scratch", "baseline")}
    assert result["pretrained"] > result["scratch"] + 0.15, result
    assert result["baseline"] + 0.02 < result["scratch"] < result["baseline"] + 0.12, result


def test_the_masked_lm_reads_cloze_questions_better_than_the_baseline_before_fine_tuning():
    import torch

    model, tokenizer = load_pretrained()
    test = pair_tasks.cloze_sets(tokenizer, {"test": pair_tasks.SCORED}, seed=2026)["test"]
    rows = pair_tasks.encode_pairs(test, tokenizer)
    start = pair_tasks.reader_scores(model, rows, tokenizer["[MASK]"])
    reading = pair_tasks.span_accuracy(rows, pair_tasks.best_span(start, torch.zeros_like(start), 1))
    baseline = pair_tasks.frequent_word_baseline(test, tokenizer)
    assert reading > baseline + 0.05, (reading, baseline)


@pytest.mark.parametrize("seed", SEEDS)
def test_span_selection_from_scratch_stays_below_the_baseline_fine_tuned_beats_it(shipped, seed):
    result = {m: shipped["span", seed, m] for m in ("pretrained", "scratch", "baseline")}
    assert result["scratch"] < result["baseline"], result
    assert 0.035 < result["pretrained"] - result["baseline"] < 0.165, result


def test_each_learning_rate_was_chosen_on_validation_and_lies_inside_its_grid():
    from dl4nlp.checkpoint import load_table
    from dl4nlp.data import data_path

    _, record = pair_tasks.load_results()
    rows, _ = load_table(data_path(pair_tasks.RESULTS))
    grid = record["results"]["grid"]
    assert grid["scored"] == "validation" and grid["seed"] == 0
    for task, by_method in grid["by_task"].items():
        for method, found in by_method.items():
            accuracy = {float(lr): a for lr, a in found["validation_accuracy"].items()}
            listed = {float(r["lr"]): float(r["accuracy"]) for r in rows
                      if (r["task"], r["split"], r["method"]) == (task, "validation", method)}  # fmt: skip
            assert listed == accuracy, (task, method)
            rates = sorted(accuracy)
            best = max(rates, key=accuracy.get)
            assert best == found["chosen"] == record["results"]["chosen_learning_rates"][task][method]
            assert rates[0] < best < rates[-1], (task, method, accuracy)
            assert {float(r["lr"]) for r in rows if (r["task"], r["split"], r["method"]) == (task, "test", method)} == {
                best
            }


def test_training_validation_and_test_paragraphs_are_disjoint_and_validation_mixes_both_books():
    from dl4nlp.dialogue import CORPORA, split

    parts = {part: pair_tasks._documents(part) for part in ("train", "validation", "test")}
    n = {part: len(documents) for part, documents in parts.items()}
    assert n["train"] + n["validation"] == sum(len(split(c)["train"]) for c in CORPORA)
    first_book = len(split(CORPORA[0])["train"])
    assert n["validation"] == sum(len(split(c)["train"]) - round(len(split(c)["train"]) * 0.9) for c in CORPORA)
    assert round(first_book * 0.9) < first_book  # the first book gives validation paragraphs too
    texts = {part: {tuple(d) for d in documents} for part, documents in parts.items()}
    for a, b in (("train", "validation"), ("train", "test"), ("validation", "test")):
        shared = texts[a] & texts[b]  # only one-sentence replies such as "Yes." recur word for word
        assert len(shared) <= 10 and all(len(d) == 1 and len(d[0].split()) <= 5 for d in shared), (a, b, shared)
