"""dl4nlp.phonemes: the shipped CMU Pronouncing Dictionary, its held-out words, the phoneme error rate."""

import pytest

from dl4nlp import phonemes
from dl4nlp.data import data_path, md5sum
from dl4nlp.date_task import encode_batch


def test_the_shipped_dictionary_is_the_recorded_file_and_reads_right():
    assert md5sum(data_path(phonemes.DICTIONARY)) == phonemes.DICTIONARY_MD5
    assert phonemes.DICTIONARY_MD5 in data_path("README.md").read_text()
    entries = phonemes.load_dictionary()
    assert entries["knight"] == "N AY T" and entries["phone"] == "F OW N" and entries["cat"] == "K AE T"
    assert len(entries) > 100_000
    assert all(phonemes.MIN_LENGTH <= len(word) <= phonemes.MAX_LENGTH and word.isalpha() for word in entries)
    assert {p for pron in entries.values() for p in pron.split()} == set(phonemes.PHONEMES)


def test_test_words_are_never_training_words():
    train, test = phonemes.phoneme_pairs("train"), phonemes.phoneme_pairs("test")
    assert not {w for w, _ in train} & {w for w, _ in test}
    assert 0.08 < len(test) / (len(train) + len(test)) < 0.12
    sample = phonemes.sample_pairs(50, "test", seed=3)
    assert len({w for w, _ in sample}) == 50 and set(sample) <= set(test)
    batch = encode_batch(sample, phonemes.SPELLING_VOCAB, phonemes.PHONEME_VOCAB)
    assert batch["tgt_out"].max() < len(phonemes.PHONEME_VOCAB)


def test_phoneme_error_rate_is_edit_distance_over_true_phonemes():
    assert phonemes.phoneme_error_rate(["K AE T"], ["K AE T"]) == 0.0
    assert phonemes.phoneme_error_rate(["K AE", "B AE T S"], ["K AE T", "K AE T"]) == pytest.approx(3 / 6)
    with pytest.raises(ValueError, match="need as many predictions as targets"):
        phonemes.phoneme_error_rate(["K"], [])
    with pytest.raises(ValueError, match="n must be an integer in"):
        phonemes.sample_pairs(0)
