"""Bad inputs of dl4nlp.translation and its recipe (dl4nlp.recipes.translation)."""

from bad_inputs.harness import cases, exempt, semantic, vary
from dl4nlp import translation as T
from dl4nlp.recipes import translation as R
from dl4nlp.seq2seq import Seq2Seq

exempt(
    "the command line of a recipe (argparse reports bad arguments; --out is checked before training)",
    "dl4nlp.recipes.translation.main",
)
exempt("takes no arguments (the held-out English sentences)", "dl4nlp.recipes.translation.test_sentences")
exempt("takes no arguments (the training pairs as token strings)", "dl4nlp.translation.training_pairs")
exempt("takes no arguments (the source ids of punctuation and <eos>)", "dl4nlp.translation.punctuation_ids")


def _model():
    vocabs = T.vocabularies()
    return Seq2Seq(len(vocabs.source), len(vocabs.target), d_embed=4, d_hidden=6, score="dot")


@cases("dl4nlp.translation.tokenize")
def _():
    yield from vary(T.tokenize, {"text": "I see."}, "language", [("German", "de", "'de'"), ("None", None, "None")])
    yield from vary(T.tokenize, {"language": "en"}, "text", [("a list", ["I", "see"], "list")])


@cases("dl4nlp.translation.detokenize")
def _():
    yield from vary(T.detokenize, {}, "tokens", [("one string", "je vois", "str"), ("numbers", [1, 2], "int")])


@cases("dl4nlp.translation.split_of")
def _():
    yield from vary(T.split_of, {}, "english", [("empty", "", "''"), ("a number", 3, "int")])


@cases("dl4nlp.translation.sentence_pairs")
def _():
    yield from vary(T.sentence_pairs, {}, "split", [("an unknown split", "valid", "'valid'")])


@cases("dl4nlp.translation.references")
def _():
    yield from vary(T.references, {}, "split", [("an unknown split", "dev", "'dev'")])


@cases("dl4nlp.translation.vocabularies")
def _():
    yield from vary(T.vocabularies, {}, "min_count", [("zero", 0, "0"), ("a float", 2.5, "2.5")])


@cases("dl4nlp.translation.TranslationVocabs")
def _():
    yield "source: a string", lambda: T.TranslationVocabs("abc", T.vocabularies().target), ("source", "str")


@cases("dl4nlp.translation.TranslationVocabs.encode_pair")
def _():
    vocabs = T.vocabularies()
    yield "english: None", lambda: vocabs.encode_pair(None, "Je vois."), ("text", "None")


@cases("dl4nlp.translation.TranslationVocabs.source_text")
def _():
    vocabs = T.vocabularies()
    yield "english: a list", lambda: vocabs.source_text(["I", "see"]), ("text", "list")


@cases("dl4nlp.translation.corpus_scores")
def _():
    english = list(T.references("test"))[:2]
    yield "hypotheses: one fewer than the sentences", lambda: T.corpus_scores(["je"], english), ("same length", "1")
    yield "hypotheses: one string", lambda: T.corpus_scores("je vois", english[:1]), ("hypotheses", "str")
    yield semantic(
        "english: training sentences, which have no held-out references",
        lambda: T.corpus_scores(["cours !"], ["Run!"]),
        ("test sentences", "Run!"),
    )


@cases("dl4nlp.translation.greedy_translations")
def _():
    model = _model()
    yield from vary(T.greedy_translations, {"model": model}, "english", [("one string", "I see.", "str")])
    yield from vary(T.greedy_translations, {"model": model, "english": ["I see."]}, "max_len", [("zero", 0, "0")])
    yield "model: a string", lambda: T.greedy_translations("model", ["I see."]), ("model", "str")


@cases("dl4nlp.translation.alignment")
def _():
    model = _model()
    yield from vary(T.alignment, {"model": model}, "english", [("empty", "", "''"), ("a list", ["I"], "list")])


@cases("dl4nlp.recipes.translation.TranslationRecipe")
def _():
    yield from vary(R.TranslationRecipe, {}, "steps", [("zero", 0, "0")])
    yield from vary(R.TranslationRecipe, {}, "lr", [("negative", -1.0, "-1")])
    yield from vary(R.TranslationRecipe, {}, "lexical", [("a string", "yes", "'yes'")])
    yield from vary(R.TranslationRecipe, {}, "score", [("unknown", "cosine", "'cosine'")])


@cases("dl4nlp.recipes.translation.train_translator")
def _():
    yield "recipe: a dict", lambda: R.train_translator({"steps": 3}), ("recipe", "dict")
    yield (
        "stop_after: beyond the schedule",
        lambda: R.train_translator(R.TranslationRecipe(steps=3), stop_after=4),
        (
            "stop_after",
            "4",
        ),
    )


@cases("dl4nlp.recipes.translation.beam_translate")
def _():
    yield "model: a string", lambda: R.beam_translate("model", "I see.", 2), ("model", "str")
    yield "beam_size: zero", lambda: R.beam_translate(_model(), "I see.", 0), ("beam_size", "0")


@cases("dl4nlp.recipes.translation.sequence_log_prob")
def _():
    yield "model: None", lambda: R.sequence_log_prob(None, "I see.", "Je vois."), ("model", "None")


@cases("dl4nlp.recipes.translation.judge")
def _():
    yield semantic(
        "english: a training sentence, which has no held-out references",
        lambda: R.judge(_model(), "Run!", 2),
        ("test sentences", "Run!"),
    )


@cases("dl4nlp.recipes.translation.evaluate")
def _():
    yield "english: one string", lambda: R.evaluate(_model(), "I see."), ("english", "str")


@cases("dl4nlp.translation.decoding_claim")
def _():
    yield "record: a list", lambda: T.decoding_claim([1, 2]), ("record", "list")
    yield semantic(
        "record: the phoneme model's provenance (no beam sizes)",
        lambda: T.decoding_claim({"results": {"word_accuracy": 0.5}}),
        ("beam sizes", "None"),
    )


@cases("dl4nlp.translation.decoding_claim_sentence")
def _():
    yield "record: None", lambda: T.decoding_claim_sentence(0, None), ("record", "NoneType")


@cases("dl4nlp.translation.dice")
def _():
    yield from vary(T.dice, {"french_word": "voiture"}, "english_word", [("empty", "", "''"), ("None", None, "None")])
    yield from vary(T.dice, {"english_word": "car"}, "french_word", [("a list", ["voiture"], "list")])


@cases("dl4nlp.translation.dice_aligned")
def _():
    yield from vary(T.dice_aligned, {"french_word": "voiture"}, "source", [("one string", "a red car", "str")])
    yield from vary(T.dice_aligned, {"source": ["car"]}, "french_word", [("empty", "", "''")])


@cases("dl4nlp.translation.reference_alignments")
def _():
    yield semantic(
        "english: a training sentence, which has no held-out references",
        lambda: T.reference_alignments(_model(), ["Run!"]),
        ("test sentences", "Run!"),
    )
    yield from vary(T.reference_alignments, {"model": _model()}, "english", [("one string", "I see.", "str")])
    english = list(T.references("test"))[:1]
    yield from vary(T.reference_alignments, {"model": _model(), "english": english}, "batch_size", [("zero", 0, "0")])


@cases("dl4nlp.translation.attention_agreement")
def _():
    yield from vary(T.attention_agreement, {"model": _model()}, "english", [("one string", "I see.", "str")])
    english = list(T.references("test"))[:2]
    yield from vary(
        T.attention_agreement,
        {"model": _model(), "english": english},
        "alignments",
        [("one per sentence short", [("a", "b", None)], "2; got 1"), ("a string", "weights", "str")],
    )


@cases("dl4nlp.translation.crossing_alignments")
def _():
    yield from vary(T.crossing_alignments, {"model": _model()}, "english", [("a number", 3, "int")])
    english = list(T.references("test"))[:2]
    yield from vary(
        T.crossing_alignments, {"model": _model(), "english": english}, "alignments", [("a dict", {}, "dict")]
    )


@cases("dl4nlp.translation.held_out_references")
def _():
    yield from vary(T.held_out_references, {}, "english", [("one string", "I see.", "str")])
    yield semantic(
        "english: a training sentence, which has no held-out references",
        lambda: T.held_out_references(["Run!"]),
        ("test sentences", "Run!"),
    )


@cases("dl4nlp.translation.expected_crossings")
def _():
    yield from vary(T.expected_crossings, {}, "english", [("one string", "I see.", "str")])
    yield semantic(
        "english: a training sentence, which has no held-out references",
        lambda: T.expected_crossings(["Run!"]),
        ("test sentences", "Run!"),
    )


@cases("dl4nlp.translation.Crossing")
def _():
    yield "first: a string", lambda: T.Crossing("a", "b", "car", ("red", "rouge"), True), ("first", "str")
