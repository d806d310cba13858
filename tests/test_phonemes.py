"""dl4nlp.phonemes: the shipped CMU Pronouncing Dictionary, its held-out words, the phoneme error rate."""

import pytest
from reproduction import TOLERANCE, check_rerun

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


def test_dictionary_counts_the_notebook_states():
    import gzip

    with gzip.open(data_path(phonemes.DICTIONARY), "rt", encoding="utf-8") as handle:
        headwords = [line.split()[0] for line in handle if line.strip()]
    assert len(headwords) == 135_166 and len({w.split("(")[0] for w in headwords}) == 126_052
    assert len(phonemes.load_dictionary()) == 114_374


# --- the recipe of the shipped pronunciation model ----------------------------------------
def test_the_recipe_writes_a_verified_checkpoint_and_never_overwrites(tmp_path, one_thread):
    from dl4nlp.recipes import phoneme_model
    from dl4nlp.seq2seq import Seq2Seq

    out = tmp_path / "phonemes.pt"
    record = phoneme_model.main(["--steps", "2", "--out", str(out)])
    assert record["kind"] == "seq2seq" and len(record["results"]["loss"]) == 2
    assert 0.0 <= record["results"]["word_accuracy"] <= 1.0 and record["results"]["phoneme_error_rate"] > 0
    assert Seq2Seq.load(out).config.score == "dot"
    with pytest.raises(FileExistsError, match="pass --overwrite"):
        phoneme_model.main(["--steps", "2", "--out", str(out)])
    with pytest.raises(ValueError, match="the output must be a .pt file"):
        phoneme_model.main(["--steps", "2", "--out", str(tmp_path / "results.json")])


def test_the_recipe_reproduces_the_first_shipped_losses_bit_for_bit():
    from dl4nlp.checkpoint import read_provenance
    from dl4nlp.recipes import recorded_threads
    from dl4nlp.recipes.phoneme_model import PhonemeRecipe, held_out_pairs, train_phoneme_model

    record = read_provenance(data_path("seq2seq_cmudict.pt"))
    assert record["results"]["test_words"] == "sample_pairs(2000, 'test', seed=0)" and len(held_out_pairs()) == 2000
    with recorded_threads(record):
        recipe = PhonemeRecipe(**{k: v for k, v in record["arguments"].items() if k != "threads"})
        _, history = train_phoneme_model(recipe, progress=False, stop_after=3)
    check_rerun("phoneme_model", history.loss, record["results"]["loss"][:3], record, **TOLERANCE["phoneme_model"])


@pytest.mark.parametrize(
    "name",
    [
        "cmudict.dict.gz",
        "seq2seq_cmudict.pt",
        "seq2seq_dates_dot.pt",
        "seq2seq_dates_general.pt",
        "seq2seq_dates_additive.pt",
    ],
)
def test_data_readme_lists_each_shipped_file_of_notebook_04(name):
    from dl4nlp.checkpoint import read_provenance, sha256sum

    path, readme = data_path(name), data_path("README.md").read_text()
    row = next(line for line in readme.splitlines() if line.startswith(f"| `{name}`"))
    assert f"| {path.stat().st_size:,} |" in row and f"`{md5sum(path)}`" in row
    if name.endswith(".pt"):
        record = read_provenance(path)
        assert sha256sum(path) in row and record["artifact"]["sha256"] == sha256sum(path)
        recorded = record["command"].split(" --out ")[0]  # the recipe and its arguments before the path
        assert f"`{recorded} --out data/{name}" in row, (recorded, row)
        results = record["results"]
        if "word_accuracy" in results:  # the row states the recipe's own held-out scores
            assert f"word accuracy {results['word_accuracy']:.1%}" in row
            assert f"phoneme error rate {results['phoneme_error_rate']:.1%}" in row
        else:
            assert f"held-out accuracy {results['test_accuracy']:.1%}" in row
