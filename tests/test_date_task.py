"""dl4nlp.date_task: the date formats, the vocabularies, batching; and the attention heatmap."""

import datetime as dt
import random

import matplotlib.pyplot as plt
import pytest
import torch

from dl4nlp import date_task
from dl4nlp.date_task import (
    FORMATS,
    SOURCE_VOCAB,
    TARGET_VOCAB,
    Seq2SeqVocab,
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
    with pytest.raises(ValueError, match=r"text has characters \['!'\] that are not in the vocabulary"):
        SOURCE_VOCAB.encode("1 may 2000!")
    with pytest.raises(ValueError, match="alphabet must not repeat characters"):
        Seq2SeqVocab("aa")
    with pytest.raises(ValueError, match=r"batch_size must be an integer in \[1, 3\]; got 4"):
        batch_sampler(make_pairs(3), 4)
    with pytest.raises(ValueError, match="lengths must be an integer >= 1; got 0"):
        reverse_pairs(3, [0])
    with pytest.raises(ValueError, match="pairs must not be empty"):
        encode_batch([])
    model = Seq2Seq(len(SOURCE_VOCAB), len(date_task.TARGET_VOCAB), d_embed=4, d_hidden=4)
    with pytest.raises(TypeError, match="sources must be a list of strings; got str '3 may 2020'"):
        date_task.translate(model, "3 may 2020")  # a string used to be read as 10 one-character sources


def test_plot_attention_draws_one_cell_per_weight():
    weights = torch.tensor([[0.9, 0.1, 0.0], [0.2, 0.3, 0.5]])
    fig = plot_attention(weights, list("a c"), list("xy"), annotate=True, title="t")
    ax = fig.axes[0]
    assert ax.images[0].get_array().shape == (2, 3)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "␣", "c"]
    assert len(ax.texts) == 6 and ax.get_title() == "t"
    plt.close(fig)
    with pytest.raises(ValueError, match=r"weights must have shape \(2, 2\) to match the labels; got \(2, 3\)"):
        plot_attention(weights, list("ab"), list("xy"))


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


@pytest.mark.parametrize("score", ["dot", "general", "additive"])
def test_shipped_checkpoints_match_their_recipe_and_translate(score):
    import json

    from dl4nlp.data import data_path, md5sum
    from dl4nlp.seq2seq import Seq2Seq

    path = data_path(date_task.CHECKPOINT.format(score=score))
    recipe = json.loads(path.with_suffix(".json").read_text())
    assert md5sum(path) == recipe["md5"] and recipe["recipe"]["score"] == score
    assert recipe["md5"] in (data_path("README.md")).read_text()
    model = Seq2Seq.load(path)
    assert model.score_kind == score and not model.training
    assert date_task.sequence_accuracy(model, make_pairs(100, seed=77)) >= 0.98


def test_lengths_may_be_any_sequence_of_ints_but_not_a_string():
    assert len(reverse_pairs(3, range(2, 5))) == 3  # notebook 04 passes a range
    with pytest.raises(TypeError, match="lengths must be a list of lengths; got str '23'"):
        reverse_pairs(3, "23")
