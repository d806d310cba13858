"""dl4nlp.finetune and dl4nlp.dialogue: the task's labels and splits, the heads, fine-tuning, probes, baselines."""

import pytest
import torch

from dl4nlp.bert import IGNORE_INDEX, Bert, bert_config
from dl4nlp.dialogue import (
    balanced_sample,
    label_sentences,
    strip_quotes,
    tag_words,
    task_sets,
)
from dl4nlp.finetune import (
    SentenceClassifier,
    TokenTagger,
    accuracy,
    bag_of_words,
    compare_methods,
    default_steps,
    encode_batch,
    encode_tagged,
    fine_tune,
    logistic_regression,
    predict,
)
from dl4nlp.wordpiece import WordPiece


def test_labels_come_from_the_quotation_marks_which_are_then_removed():
    sentences = label_sentences("“I am glad,” said he. “Sit down.” Mr. Holmes sat down.", "“", "”")
    assert sentences == [("I am glad, said he.", None), ("Sit down.", 1), ("Mr. Holmes sat down.", 0)]
    assert strip_quotes("“It’s ‘Holmes’!” he said.") == "It's Holmes! he said."
    words, tags = tag_words('"Come in," said Tom.', '"', '"')[0]
    assert words == ["come", "in", ",", "said", "tom", "."] and tags == [1, 1, 1, 0, 0, 0]


def test_the_task_splits_are_balanced_and_disjoint():
    sets = task_sets()
    texts = {k: {e.text for e in v} for k, v in sets.items()}
    assert not (
        texts["train"] & texts["test"] or texts["train"] & texts["validation"] or texts["validation"] & texts["test"]
    )
    for name, per_cell in [("validation", 60), ("test", 160)]:
        cells = {}
        for e in sets[name]:
            cells[e.corpus, e.label] = cells.get((e.corpus, e.label), 0) + 1
        assert sorted(cells.values()) == [per_cell] * 4
    assert not any(mark in e.text for e in sets["train"] for mark in '“”"')
    sample = balanced_sample(sets["train"], 64, seed=3)
    assert sample == balanced_sample(sets["train"], 64, seed=3) and len(set(sample)) == 64
    with pytest.raises(ValueError, match="n must be a positive multiple of 4; got 10"):
        balanced_sample(sets["train"], 10, seed=0)


VOCAB = WordPiece("he said it was good bad , . i am you are".split())


def toy_task():
    good = [("i am good .", 1), ("you are good .", 1), ("he said it was bad .", 0), ("it was bad , he said .", 0)]
    texts, labels = zip(*(good * 8))
    ids, valid = encode_batch(VOCAB, list(texts), max_len=16)
    return ids, valid, torch.tensor(labels), list(texts)


def test_fine_tuning_learns_a_separable_task_and_freezing_keeps_the_encoder():
    torch.manual_seed(0)
    ids, valid, labels, texts = toy_task()
    encoder = Bert(bert_config("base", vocab_size=len(VOCAB), d_model=16, n_heads=2, n_layers=1, max_len=16))
    model = SentenceClassifier(encoder)
    before = {k: v.clone() for k, v in encoder.state_dict().items()}
    fine_tune(model, ids, valid, labels, steps=30, lr=3e-3, freeze=True, batch_size=8)
    assert all(torch.equal(before[k], v) for k, v in encoder.state_dict().items()), "frozen: the encoder is unchanged"
    losses = fine_tune(model, ids, valid, labels, steps=60, lr=3e-3, batch_size=8)
    assert losses[-1] < losses[0] and accuracy(predict(model, ids, valid), labels) == 1.0
    assert bag_of_words(texts, labels.tolist(), texts, labels.tolist()) == 1.0
    with pytest.raises(TypeError, match="encoder must be a dl4nlp.bert.Bert"):
        SentenceClassifier(torch.nn.Linear(2, 2))


def test_tagger_and_tag_encoding():
    ids, valid, tags = encode_tagged(VOCAB, [(["i", "am", "good"], [1, 1, 0])], max_len=16)
    assert tags[0].tolist() == [IGNORE_INDEX, 1, 1, 0, IGNORE_INDEX]
    encoder = Bert(bert_config("base", vocab_size=len(VOCAB), d_model=16, n_heads=2, n_layers=1, max_len=16))
    assert TokenTagger(encoder)(ids, valid).shape == (1, 5, 2)
    with pytest.raises(ValueError, match=r"sentences\[0\] needs one tag per word; got 2 words and 1 tags"):
        encode_tagged(VOCAB, [(["i", "am"], [1])], max_len=8)


def test_logistic_regression_and_helpers():
    x = torch.tensor([[0.0, 1.0], [1.0, 0.0]] * 10)
    y = torch.tensor([1, 0] * 10)
    layer = logistic_regression(x, y)
    assert accuracy(layer(x).argmax(-1), y) == 1.0
    assert default_steps(32) == 50 and default_steps(512) == 96 and default_steps(4096) == 400
    with pytest.raises(ValueError, match="labels hold nothing to score"):
        accuracy(torch.zeros(3, dtype=torch.long), torch.full((3,), IGNORE_INDEX))
    with pytest.raises(ValueError, match="methods must be among"):
        compare_methods(None, VOCAB, [], [], seed=0, methods=["svm"])
    with pytest.raises(ValueError, match="settings must map each method to a positive number"):
        compare_methods(None, VOCAB, [], [], seed=0, settings={"probe": -1})


def test_first_piece_labels_and_the_majority_baseline():
    from dl4nlp.finetune import majority_tags

    wp = WordPiece(["play", "##ing", "##s", "dog"])
    _, _, every = encode_tagged(wp, [(["dog", "playing"], [3, 7])], max_len=8)
    _, _, first = encode_tagged(wp, [(["dog", "playing"], [3, 7])], max_len=8, first_piece=True)
    assert every[0].tolist() == [IGNORE_INDEX, 3, 7, 7, IGNORE_INDEX]
    assert first[0].tolist() == [IGNORE_INDEX, 3, 7, IGNORE_INDEX, IGNORE_INDEX]
    by_word, overall = majority_tags([(["Run", "run", "run"], [2, 1, 1]), (["a", "b"], [2, 2])])
    assert by_word == {"run": 1, "a": 2, "b": 2} and overall == 2  # 'run': 1 twice, 2 once; overall 2 three times
    cased, _ = majority_tags([(["Run", "run"], [2, 1])], lowercase=False)
    assert cased == {"Run": 2, "run": 1}


def test_the_ewt_reader_and_the_tagging_split():
    from dl4nlp.data import data_path
    from dl4nlp.experiments.bert import EWT_DEV, EWT_DEV_SENTENCES, UPOS, _read_upos

    dev = _read_upos(data_path(EWT_DEV))
    assert len(dev) == EWT_DEV_SENTENCES and len(UPOS) == 17
    words, tags, text = dev[0]
    assert text == "From the AP comes this story :" and words == text.split()
    assert [UPOS[t] for t in tags] == ["ADP", "DET", "PROPN", "VERB", "DET", "NOUN", "PUNCT"]
