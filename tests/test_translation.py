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


def _tiny_model(seed: int = 0):
    import torch

    from dl4nlp.seq2seq import Seq2Seq

    torch.manual_seed(seed)
    vocabs = T.vocabularies()
    return Seq2Seq(len(vocabs.source), len(vocabs.target), d_embed=8, d_hidden=12, score="general", lexical=True).eval()


def test_dice_names_the_translation_of_each_word():
    source = T.tokenize("I have a red car.", "en")
    assert source[T.dice_aligned(source, "voiture")] == "car" and source[T.dice_aligned(source, "rouge")] == "red"
    assert T.dice_aligned(source, ".") is None and T.dice_aligned(source, "<unk>") is None
    assert T.dice("car", "voiture") > T.dice("car", "rouge") and T.dice("zzzq", "voiture") == 0.0


def test_batched_alignments_equal_one_at_a_time():
    import torch

    model, refs = _tiny_model(), T.references("test")
    english = list(refs)[:5]
    for sentence, (source, target, weights) in zip(english, T.reference_alignments(model, english, batch_size=2)):
        one_source, one_target, one_weights = T.alignment(model, sentence, refs[sentence][0])
        assert (source, target) == (one_source, one_target)
        assert torch.allclose(weights, one_weights, atol=1e-6)


def test_agreement_and_crossings_are_read_from_the_weights(monkeypatch):
    """A model whose every French word looks at its Dice-aligned English word: all aligned, the swap found."""
    import torch

    def perfect(model, english, batch_size=256):
        out = []
        for e in english:
            source = T.vocabularies().source_text(e).split(" ") + ["<eos>"]
            target = T.vocabularies().encode_pair(e, T.references("test")[e][0])[1].split(" ") + ["<eos>"]
            weights = torch.zeros(len(target), len(source))
            for t, word in enumerate(target):
                i = T.dice_aligned(source[:-1], word)
                weights[t, len(source) - 1 if i is None else i] = 1.0
            out.append((source, target, weights))
        return out

    monkeypatch.setattr(T, "reference_alignments", perfect)
    english = list(T.references("test"))[:200]
    agreement = T.attention_agreement(None, english)
    assert agreement["on_aligned"] == 1.0 and agreement["aligned_words"] > 0
    crossings = T.crossing_alignments(None, english)
    for c in crossings:
        source = T.tokenize(c.english, "en")
        assert source.index(c.first[0]) > source.index(c.second[0])
    assert crossings and crossings == T.expected_crossings(english)  # peaks on the Dice words: the predicted ones
    shared = perfect(None, english)
    assert T.attention_agreement(None, english, alignments=shared) == agreement
    assert T.crossing_alignments(None, english, alignments=shared) == crossings


@pytest.mark.parametrize("name", T.CHECKPOINTS + T.ALIGNED_CHECKPOINTS)
def test_the_recipe_reproduces_the_first_shipped_losses(name):
    """The recipe re-run from a shipped translator's own recorded arguments gives its first five losses."""
    from reproduction import TOLERANCE, check_rerun

    from dl4nlp.checkpoint import read_provenance
    from dl4nlp.data import data_path
    from dl4nlp.recipes import recorded_threads
    from dl4nlp.recipes.translation import TranslationRecipe, train_translator

    record = read_provenance(data_path(name))
    assert record["command"].startswith("python -m dl4nlp.recipes.translation"), record["command"]
    with recorded_threads(record):
        recipe = TranslationRecipe(**{k: v for k, v in record["arguments"].items() if k != "threads"})
        _, history = train_translator(recipe, progress=False, stop_after=5)
    check_rerun(
        name.removesuffix(".pt"), history.loss, record["results"]["loss"][:5], record, **TOLERANCE["translation"]
    )
