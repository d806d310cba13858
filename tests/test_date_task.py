"""dl4nlp.date_task: the date formats, the vocabularies, batching; and the attention heatmap."""

import datetime as dt
import random

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from reproduction import TOLERANCE, check_rerun

from dl4nlp import date_task
from dl4nlp.date_task import (
    FORMATS,
    SOURCE_VOCAB,
    TARGET_VOCAB,
    batch_sampler,
    encode_batch,
    format_date,
    make_pairs,
    ordinal_suffix,
    ordinal_word,
    reverse_pairs,
)
from dl4nlp.plots import plot_attention
from dl4nlp.seq2seq import Seq2Seq
from dl4nlp.vocab import Seq2SeqVocab


def test_every_format_on_a_known_date():
    date = dt.date(1998, 3, 3)  # a Tuesday
    written = {fmt: format_date(date, fmt) for fmt in FORMATS}
    assert written == {
        "d month yyyy": "3 march 1998",
        "month d, yyyy": "march 3, 1998",
        "d mon yyyy": "3 mar 1998",
        "dd/mm/yyyy": "03/03/1998",
        "yyyy.mm.dd": "1998.03.03",
        "weekday, month d, yyyy": "tuesday, march 3, 1998",
        "the dth of month yyyy": "the 3rd of march 1998",
        "the spelled day of month yyyy": "the third of march 1998",
    }


@pytest.mark.parametrize(
    "day, word, short",
    [
        (1, "first", "1st"),
        (2, "second", "2nd"),
        (11, "eleventh", "11th"),
        (12, "twelfth", "12th"),
        (13, "thirteenth", "13th"),
        (20, "twentieth", "20th"),
        (21, "twenty-first", "21st"),
        (22, "twenty-second", "22nd"),
        (23, "twenty-third", "23rd"),
        (30, "thirtieth", "30th"),
        (31, "thirty-first", "31st"),
    ],
)
def test_ordinals(day, word, short):
    assert ordinal_word(day) == word and ordinal_suffix(day) == short


def test_pairs_are_reproducible_and_their_targets_are_iso_dates():
    pairs = make_pairs(200, n_dates=(1, 2, 3), seed=5)
    assert pairs == make_pairs(200, n_dates=(1, 2, 3), seed=5)
    for source, target in pairs:
        dates = target.split(" ")
        assert source.count(" and ") == len(dates) - 1
        for iso in dates:
            date = dt.date.fromisoformat(iso)
            assert 1950 <= date.year <= 2049 and str(date.year) in source


def test_vocab_round_trip_and_specials():
    source, target = make_pairs(1, seed=1)[0]
    assert SOURCE_VOCAB.decode(SOURCE_VOCAB.encode(source)) == source
    ids = TARGET_VOCAB.encode(target)
    assert ids[-1] == Seq2SeqVocab.EOS and TARGET_VOCAB.decode([Seq2SeqVocab.BOS] + ids + [5, 6]) == target
    assert len(TARGET_VOCAB) == 3 + len(" -0123456789")


def test_encode_batch_pads_and_shifts_the_target():
    batch = encode_batch([("3 mar 1998", "1998-03-03"), ("1998.03.03", "1998-03-03")])
    assert batch["src"].shape == (2, 11) and batch["src_lengths"].tolist() == [11, 11]
    assert batch["tgt_in"][:, 0].tolist() == [Seq2SeqVocab.BOS] * 2
    assert torch.equal(batch["tgt_in"][:, 1:], batch["tgt_out"][:, :-1])
    assert TARGET_VOCAB.decode(batch["tgt_out"][0]) == "1998-03-03"
    short = encode_batch([("abc", "cba"), ("a", "a")], date_task.REVERSE_VOCAB, date_task.REVERSE_VOCAB)
    assert short["src"][1].tolist() == [
        date_task.REVERSE_VOCAB.stoi["a"],
        Seq2SeqVocab.EOS,
        Seq2SeqVocab.PAD,
        Seq2SeqVocab.PAD,
    ]


def test_reverse_pairs_and_the_batch_sampler():
    pairs = reverse_pairs(100, lengths=[2, 5], seed=0)
    assert all(t == s[::-1] and len(s) in (2, 5) for s, t in pairs)
    vocab = date_task.REVERSE_VOCAB
    first, again = (batch_sampler(pairs, 16, seed=0, source_vocab=vocab, target_vocab=vocab) for _ in range(2))
    batch = first(0)
    assert batch["src"].shape[0] == 16 and batch["src"].shape[1] == batch["src_lengths"].max()
    assert torch.equal(batch["src"], again(0)["src"]), "the same seed gives the same batches"
    for row, length, target in zip(batch["src"], batch["src_lengths"], batch["tgt_out"]):
        text = vocab.decode(row)
        assert len(text) + 1 == length and (text, vocab.decode(target)) in pairs


def test_errors_name_expected_and_received():
    with pytest.raises(ValueError, match="fmt must be one of .* got 'iso'"):
        format_date(dt.date(2000, 1, 1), "iso")
    with pytest.raises(ValueError, match="day must be an integer in \\[1, 31\\]; got 32"):
        ordinal_word(32)
    with pytest.raises(ValueError, match="n_dates must be an integer >= 1; got 0"):
        date_task.make_pair(random.Random(0), 0)
    with pytest.raises(ValueError, match=r"text has tokens \['!'\] that are not in the vocabulary"):
        SOURCE_VOCAB.encode("1 may 2000!")
    with pytest.raises(ValueError, match="alphabet must be non-empty and must not repeat tokens"):
        Seq2SeqVocab("aa")
    with pytest.raises(ValueError, match=r"batch_size must be an integer in \[1, 3\]; got 4"):
        batch_sampler(make_pairs(3), 4)
    with pytest.raises(ValueError, match="lengths must be an integer >= 1; got 0"):
        reverse_pairs(3, [0])
    with pytest.raises(ValueError, match="pairs must not be empty"):
        encode_batch([])
    model = Seq2Seq(len(SOURCE_VOCAB), len(TARGET_VOCAB), d_embed=4, d_hidden=4)
    with pytest.raises(TypeError, match="sources must be a list of strings; got str '3 may 2020'"):
        date_task.translate(model, "3 may 2020")  # a string used to be read as 10 one-character sources


def test_plot_attention_draws_one_cell_per_weight():
    weights = torch.tensor([[0.9, 0.1, 0.0], [0.2, 0.3, 0.5]])
    fig = plot_attention(weights, list("a c"), list("xy"), annotate=True, title="t")
    ax = fig.axes[0]
    assert ax.images[0].get_array().shape == (2, 3)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "␣", "c"]
    (numbers,) = ax.collections  # the six weights, written in their cells as one collection
    assert numbers.get_label() == "0.90 0.10 0.00 0.20 0.30 0.50" and ax.get_title() == "t"
    assert np.allclose(numbers.get_offsets(), [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)])
    plt.close(fig)
    with pytest.raises(ValueError, match=r"weights must have shape \(2, 2\) to match the labels; got \(2, 3\)"):
        plot_attention(weights, list("ab"), list("xy"))
    fig = plot_attention(0.5 * weights, ["a", "b", "<eos>"], list("xy"), vmax=1.0)
    image, labels = fig.axes[0].images[0], fig.axes[0].get_xticklabels()
    assert image.get_clim() == (0.0, 1.0), "a fixed scale: weights of at most 0.45 must not look like 1"
    assert [label.get_rotation() for label in labels] == [0.0, 0.0, 90.0]
    plt.close(fig)
    with pytest.raises(ValueError, match="vmax must be a positive number or None"):
        plot_attention(weights, list("abc"), list("xy"), vmax=0)


def test_attention_weights_of_a_model_row_per_output_column_per_input():
    from dl4nlp.seq2seq import Seq2Seq

    torch.manual_seed(0)
    model = Seq2Seq(len(SOURCE_VOCAB), len(TARGET_VOCAB), d_embed=4, d_hidden=8, score="dot").eval()
    weights = date_task.attention_weights(model, "3 mar 1998", "1998-03-03")
    assert weights.shape == (11, 11) and torch.allclose(weights.sum(-1), torch.ones(11))
    with pytest.raises(ValueError, match="no attention"):
        date_task.attention_weights(Seq2Seq(len(SOURCE_VOCAB), len(TARGET_VOCAB), score=None), "3 mar 1998", "x")
    with pytest.raises(TypeError, match="source and target must be strings"):
        date_task.attention_weights(model, ["3 mar 1998"], "1998-03-03")


def test_field_spans_point_at_each_field():
    date = dt.date(2031, 5, 21)
    for fmt in FORMATS:
        text, spans = format_date(date, fmt), date_task.field_spans(date, fmt)
        assert text[slice(*spans["year"])] == "2031"
        assert text[slice(*spans["month"])] in ("may", "05")
        assert text[slice(*spans["day"])] in ("21", "21st", "twenty-first")
    iso = date.isoformat()
    assert {kind: iso[slice(*span)] for kind, span in date_task.ISO_SPANS.items()} == {
        "year": "2031",
        "month": "05",
        "day": "21",
    }


def test_splits_are_disjoint_by_date_and_by_string():
    train, test = make_pairs(3000, n_dates=(1, 2), seed=3), make_pairs(500, n_dates=(1, 2), seed=4, split="test")
    assert date_task.overlap(train, test).disjoint
    assert all(date_task.split_of(iso) == "test" for iso in date_task.dates_of(test))
    naive = date_task.overlap(make_pairs(3000, seed=3, split=None), make_pairs(500, seed=4, split=None))
    assert naive.same_date > 0, "the naive draw shares dates: the split is what makes them disjoint"
    strings_train = reverse_pairs(3000, [2, 3], seed=0)
    strings_test = reverse_pairs(200, [2, 3], seed=1, split="test")
    assert date_task.overlap(strings_train, strings_test, dates=False).disjoint
    share = sum(date_task.split_of(dt.date.fromordinal(o).isoformat()) == "test" for o in range(730_000, 740_000))
    assert 0.08 < share / 10_000 < 0.12, "about one date in ten is held out"
    with pytest.raises(ValueError, match="split must be one of"):
        make_pairs(3, split="valid")


@pytest.mark.parametrize("score", ["dot", "general", "additive"])
def test_shipped_checkpoints_load_verified_and_translate_held_out_dates(score):
    from dl4nlp.checkpoint import read_provenance
    from dl4nlp.data import data_path
    from dl4nlp.recipes.date_models import training_pairs
    from dl4nlp.seq2seq import Seq2Seq

    path = data_path(date_task.CHECKPOINT.format(score=score))
    record = read_provenance(path)
    assert record["artifact"]["sha256"] in data_path("README.md").read_text()
    model = Seq2Seq.load(path)  # verifies the checksum
    assert model.config.score == score and not model.training
    seen = date_task.dates_of(training_pairs(record))
    test = [pair for pair in make_pairs(300, seed=77, split="test") if not date_task.dates_of([pair]) & seen][:100]
    assert len(test) == 100 and date_task.sequence_accuracy(model, test) >= 0.98


# --- the recipe of the shipped date models ----------------------------------------------
def test_the_recipe_writes_a_verified_checkpoint_and_never_overwrites(tmp_path):
    from dl4nlp.recipes import date_models
    from dl4nlp.seq2seq import Seq2Seq

    out = tmp_path / "dates.pt"
    record = date_models.main(["--score", "general", "--steps", "2", "--out", str(out)])
    assert record["kind"] == "seq2seq" and len(record["results"]["loss"]) == 2 and record["history"]
    assert Seq2Seq.load(out).config.score == "general"
    with pytest.raises(FileExistsError, match="pass --overwrite"):
        date_models.main(["--score", "general", "--steps", "2", "--out", str(out)])
    with pytest.raises(ValueError, match="must be a .pt file"):
        date_models.main(["--score", "dot", "--steps", "2", "--out", str(tmp_path / "results.json")])
    assert not (tmp_path / "results.json").exists()


def test_the_recipe_reproduces_the_first_shipped_losses_bit_for_bit():
    from dl4nlp.checkpoint import read_provenance
    from dl4nlp.data import data_path
    from dl4nlp.recipes import recorded_threads
    from dl4nlp.recipes.date_models import DateRecipe, train_date_model

    record = read_provenance(data_path(date_task.CHECKPOINT.format(score="dot")))
    if not record["command"].startswith("python -m dl4nlp.recipes.date_models"):
        pytest.skip(f"the shipped model was made by an earlier command: {record['command']}")
    with recorded_threads(record):
        recipe = DateRecipe(**{k: v for k, v in record["arguments"].items() if k != "threads"})
        _, history = train_date_model(recipe, progress=False, stop_after=5)
    check_rerun("date_models_dot", history.loss, record["results"]["loss"][:5], record, **TOLERANCE["date_models"])


def test_lengths_may_be_any_sequence_of_ints_but_not_a_string():
    assert len(reverse_pairs(3, range(2, 5))) == 3  # notebook 06 passes a range
    with pytest.raises(TypeError, match="lengths must be a list of lengths; got str '23'"):
        reverse_pairs(3, "23")
