"""dl4nlp.translation: the Tatoeba split is by English sentence and disjoint; tokens, vocabularies and scores."""

import pytest

from dl4nlp import translation as T


def test_the_split_is_by_english_sentence_and_disjoint():
    train, test = T.sentence_pairs("train"), T.sentence_pairs("test")
    assert len(train) + len(test) == len(T.sentence_pairs(None)) == 18_065
    assert not {e for e, _ in train} & {e for e, _ in test}
    refs = T.references("test")
    assert sum(len(r) for r in refs.values()) == len(test)
    assert 0.08 < len(refs) / len({e for e, _ in T.sentence_pairs(None)}) < 0.12  # about one English sentence in ten


def test_tokens_round_trip_and_vocabularies():
    assert T.tokenize("Don't go!", "en") == ["don't", "go", "!"]
    assert T.tokenize("C'est l’homme.", "fr") == ["c'", "est", "l'", "homme", "."]
    assert T.detokenize(T.tokenize("J'ai une voiture rouge.", "fr")) == "j'ai une voiture rouge."
    vocabs = T.vocabularies()
    assert vocabs.source.itos[3] == T.UNK and vocabs.target.itos[3] == T.UNK
    assert vocabs.encode_pair("I have a zzzq.", "J'ai un zzzq.") == ("i have a <unk> .", "j' ai un <unk> .")
    assert all(src and tgt for src, tgt in T.training_pairs()[:100])


def test_scores_use_every_reference():
    refs = T.references("test")
    english = [e for e in refs if len(refs[e]) > 1][:20]
    perfect_second = T.corpus_scores([refs[e][1] for e in english], english)
    assert perfect_second["bleu"] == pytest.approx(100) and perfect_second["chrf"] == pytest.approx(100)
    assert T.corpus_scores(["xyz"] * len(english), english)["bleu"] < 1
