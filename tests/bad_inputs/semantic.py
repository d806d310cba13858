"""Semantic bad inputs across the public API: arguments right in type, shape and range, wrong in meaning.

These are the mistakes a student makes that no type check sees (issue 22):
probabilities where log-probabilities are expected, quotation marks swapped,
a mask of the wrong polarity, an optimiser built on another model, a string
"no" for a flag, a data file cut short. Each is written with
``harness.semantic`` so the report tallies them apart from the clear cases of
the modules' own files; each error must name what was expected and what was given.
"""

import functools
import gzip
import math
from types import SimpleNamespace

import torch
from torch import nn

from bad_inputs.data import environment
from bad_inputs.harness import cases, scratch, semantic, semantic_vary
from dl4nlp import (
    bpe,
    checkpoint,
    date_task,
    dialogue,
    exercises,
    gradflow,
    lstm,
    phonemes,
    plots,
    positional,
    probes,
    recipes,
    sampling,
    scalar_nn,
    train,
)
from dl4nlp import data as D
from dl4nlp import finetune as F
from dl4nlp import seq2seq as S
from dl4nlp import taggers as TG
from dl4nlp.attention import MultiHeadAttention, masked_softmax, scaled_dot_product_attention
from dl4nlp.autograd import Value
from dl4nlp.bert import IGNORE_INDEX, Bert, bert_config
from dl4nlp.decoder import DecoderBlock
from dl4nlp.rnn import RecurrentTagger, language_model_loss
from dl4nlp.transformer import TransformerBlock, count_parameters
from dl4nlp.vocab import CharVocab, Seq2SeqVocab, WordVocab
from dl4nlp.wordpiece import WordPiece

NOT_A_BOOL = [("the string 'no'", "no", "'no'"), ("the number 0", 0, "int"), ("None", None, "None")]


# --- train ---------------------------------------------------------------------------------------
def _linear(seed=0):
    torch.manual_seed(seed)
    return nn.Linear(2, 1)


def _loss(model, batch):
    return model(batch).pow(2).mean()


@cases("dl4nlp.train.train")
def _():
    good = dict(model=_linear(), loss_fn=_loss, next_batch=lambda step: torch.ones(3, 2), steps=1, progress=False)
    other = _linear(1)
    yield semantic(
        "optimizer: built on another model's parameters",
        lambda: train.train(**good, optimizer=torch.optim.SGD(other.parameters(), lr=0.1)),
        ("optimizer", "model's parameters", "none"),
    )
    optimizer = torch.optim.SGD(good["model"].parameters(), lr=0.1)
    other_schedule = torch.optim.lr_scheduler.StepLR(torch.optim.SGD(other.parameters(), lr=0.1), 1)
    yield semantic(
        "scheduler: of another optimiser",
        lambda: train.train(**good, optimizer=optimizer, scheduler=other_schedule),
        ("scheduler", "optimizer", "another"),
    )
    yield semantic(
        "scheduler: without the optimiser it schedules (train would make its own)",
        lambda: train.train(**good, scheduler=torch.optim.lr_scheduler.StepLR(optimizer, 1)),
        ("scheduler", "optimizer=None"),
    )
    yield from semantic_vary(train.train, good, "progress", NOT_A_BOOL)


# --- seq2seq: searches ---------------------------------------------------------------------------
def _table_step(transform):
    step, state = S.table_step({(): [0.5, 0.5], (1,): [0.9, 0.1]})
    return (lambda tokens, s: (transform(step(tokens, s)[0]), step(tokens, s)[1])), state


@cases("dl4nlp.seq2seq.beam_search")
def _():
    probabilities, state = _table_step(torch.exp)
    yield semantic(
        "step: returns probabilities, not log-probabilities",
        lambda: S.beam_search(probabilities, state, bos=-1, eos=0, beam_size=2, max_len=2),
        ("log-probabilities", "0.5"),
    )
    logits, state = _table_step(lambda lp: lp + 3.0)
    yield semantic(
        "step: returns logits (positive), not log-probabilities",
        lambda: S.beam_search(logits, state, bos=-1, eos=0, beam_size=2, max_len=2),
        ("log-probabilities", "<= 0"),
    )
    unnormalised, state = _table_step(lambda lp: lp + math.log(1.5))  # every probability times 1.5
    yield semantic(
        "step: log-probabilities whose probabilities sum to more than 1",
        lambda: S.beam_search(unnormalised, state, bos=-1, eos=0, beam_size=2, max_len=2),
        ("sum to at most 1", "row"),
    )


@cases("dl4nlp.seq2seq.greedy_search")
def _():
    nan_step, state = _table_step(lambda lp: lp * math.nan)
    yield semantic(
        "step: returns NaN",
        lambda: S.greedy_search(nan_step, state, bos=-1, eos=0, max_len=2),
        ("log-probabilities", "nan"),
    )
    probabilities, state = _table_step(torch.exp)
    yield semantic(
        "step: returns probabilities",
        lambda: S.greedy_search(probabilities, state, bos=-1, eos=0, max_len=2),
        ("log-probabilities", "0.5"),
    )


@cases("dl4nlp.seq2seq.normalized_score")
def _():
    yield semantic(
        "hypothesis: a positive score (a probability, not a log-probability)",
        lambda: S.normalized_score(S.Hypothesis(0.7, [1, 4, 2]), alpha=0.6),
        ("hypothesis.score", "log-probability", "0.7"),
    )
    yield semantic(
        "hypothesis: a NaN score",
        lambda: S.normalized_score(S.Hypothesis(math.nan, [1, 4, 2]), alpha=0.6),
        ("hypothesis.score", "nan"),
    )


@cases("dl4nlp.seq2seq.Seq2Seq.load")
def _():
    yield semantic(
        "device: a name torch does not know ('tpu')",
        lambda: S.Seq2Seq.load(D.data_path("seq2seq_dates_dot.pt"), device="tpu"),
        ("device", "'tpu'"),
    )


# --- vocabularies --------------------------------------------------------------------------------
@cases("dl4nlp.vocab.WordVocab")
def _():
    yield semantic("vocab[3]: an id, not a token", lambda: WordVocab(["a"])[3], ("token", "string", "int", "itos[3]"))


@cases("dl4nlp.vocab.WordVocab.encode")
def _():
    yield from semantic_vary(WordVocab(["a"]).encode, dict(text="a"), "lowercase", NOT_A_BOOL[:2])


@cases("dl4nlp.vocab.WordVocab.build")
def _():
    yield from semantic_vary(WordVocab.build, dict(texts=["a b"], max_size=8), "lowercase", NOT_A_BOOL[:1])


@cases("dl4nlp.vocab.Seq2SeqVocab.encode")
def _():
    yield from semantic_vary(Seq2SeqVocab("abc").encode, dict(text="cab"), "eos", NOT_A_BOOL)


# --- WordPiece files -----------------------------------------------------------------------------
BERT_HEAD = ["[PAD]", *(f"[unused{i}]" for i in range(99)), "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "##s"]


def _vocab_file(lines, name="vocab.txt"):
    path = scratch() / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@cases("dl4nlp.wordpiece.WordPiece.from_file")
def _():
    without_mask = _vocab_file([t for t in BERT_HEAD if t != "[MASK]"])
    yield semantic(
        "path: a vocab.txt without its [MASK] line",
        lambda: WordPiece.from_file(without_mask),
        ("path", "special tokens", "[MASK]"),
    )
    shifted = _vocab_file(BERT_HEAD[:50] + BERT_HEAD[51:])  # one [unusedN] line lost: [UNK] at 99
    yield semantic(
        "path: a BERT vocab.txt with a line missing above the special tokens",
        lambda: WordPiece.from_file(shifted),
        ("path", "[CLS]", "101", "100"),
    )
    cut = _vocab_file(D.data_path("bert_base_uncased_vocab.txt").read_text(encoding="utf-8").splitlines()[:2000],
                      name="bert_base_uncased_vocab.txt")  # fmt: skip
    yield semantic(
        "path: bert-base-uncased's vocab.txt cut to 2,000 lines",
        lambda: WordPiece.from_file(cut),
        ("path", "30,522", "2,000"),
    )
    fifty = _vocab_file(BERT_HEAD[:50])
    yield semantic(
        "path: a vocab.txt cut to 50 lines", lambda: WordPiece.from_file(fifty), ("path", "missing", "[CLS]")
    )
    latin = scratch() / "vocab.txt"
    latin.write_bytes("\n".join(BERT_HEAD + ["café"]).encode("latin-1"))
    yield semantic("path: a Latin-1 file", lambda: WordPiece.from_file(latin), ("path", "UTF-8", str(latin)))
    good = _vocab_file(BERT_HEAD)
    yield from semantic_vary(WordPiece.from_file, dict(path=good), "lowercase", NOT_A_BOOL[:1])


@cases("dl4nlp.wordpiece.WordPiece.train")
def _():
    yield from semantic_vary(WordPiece.train, dict(texts=["a b"], vocab_size=40), "lowercase", NOT_A_BOOL[:1])


# --- transformer, decoder, rnn -------------------------------------------------------------------
@cases("dl4nlp.transformer.count_parameters")
def _():
    yield from semantic_vary(count_parameters, dict(module=nn.Linear(2, 2)), "exclude_embeddings", NOT_A_BOOL)


def _decoder_reference(**change):
    torch.manual_seed(0)
    settings = dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, activation="gelu", batch_first=True)
    return nn.TransformerDecoderLayer(**{**settings, **change})


@cases("dl4nlp.decoder.DecoderBlock.from_torch")
def _():
    yield semantic(
        "reference: GELU approximated by tanh (outputs differ by ~1e-4)",
        lambda: DecoderBlock.from_torch(_decoder_reference(activation=nn.GELU(approximate="tanh"))),
        ("reference", "GELU (exact)", "GELU"),
    )
    yield semantic(
        "reference: ReLU",
        lambda: DecoderBlock.from_torch(_decoder_reference(activation="relu")),
        ("reference", "GELU", "relu"),
    )


@cases("dl4nlp.transformer.TransformerBlock.from_torch")
def _():
    reference = nn.TransformerEncoderLayer(8, 2, 16, 0.0, activation=nn.GELU(approximate="tanh"), batch_first=True)
    yield semantic(
        "reference: GELU approximated by tanh",
        lambda: TransformerBlock.from_torch(reference),
        ("reference", "GELU (exact)"),
    )


# --- dialogue ------------------------------------------------------------------------------------
PARAGRAPH = "“Come in,” said Holmes. He rose."


@cases("dl4nlp.dialogue.label_sentences")
def _():
    yield semantic(
        "open_quote and close_quote: swapped (” and “)",
        lambda: dialogue.label_sentences(PARAGRAPH, "”", "“"),
        ("open_quote", "close_quote", "swapped"),
    )
    yield semantic(
        "open_quote and close_quote: single marks swapped (’ and ‘)",
        lambda: dialogue.label_sentences("‘Yes,’ he said.", "’", "‘"),
        ("open_quote", "close_quote", "swapped"),
    )


@cases("dl4nlp.dialogue.tag_words")
def _():
    yield semantic(
        "open_quote and close_quote: swapped",
        lambda: dialogue.tag_words(PARAGRAPH, "”", "“"),
        ("open_quote", "close_quote", "swapped"),
    )


# --- exercises -----------------------------------------------------------------------------------
@cases("dl4nlp.exercises.check")
def _():
    # expected=True is legal: an exercise may ask a yes/no question ("expected True, got False", issue 23)
    yield semantic(
        "expected: a complex number",
        lambda: exercises.check("q", 1.0, 1 + 0j),
        ("expected", "numbers", "complex"),
    )


# --- sampling ------------------------------------------------------------------------------------
# next_token_probabilities with temperature=1e-39 is legal: the one-hot of the argmax (its doctest says so).


# --- finetune ------------------------------------------------------------------------------------
WORDS = ["the", "cat", "sat", "dog", "ran", "a", "mat"]


@functools.cache
def _wordpiece() -> WordPiece:
    return WordPiece(WORDS)


def _encoder() -> Bert:
    torch.manual_seed(0)
    config = bert_config("base", vocab_size=len(_wordpiece()), d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=8)
    return Bert(config).eval()


def _rows():
    ids, valid = F.encode_batch(_wordpiece(), ["the cat sat", "a dog ran", "the mat", "a cat"], 8)
    return ids, valid, torch.tensor([0, 1, 0, 1])


@cases("dl4nlp.finetune.fine_tune")
def _():
    ids, valid, labels = _rows()

    def call(model=None, **change):
        def run():
            torch.manual_seed(0)
            chosen = model() if model else F.SentenceClassifier(_encoder())
            return F.fine_tune(
                **{**dict(model=chosen, ids=ids, valid=valid, labels=labels, steps=1, lr=1e-3), **change}
            )

        return run

    ignored = torch.full_like(labels, IGNORE_INDEX)
    yield semantic(
        "labels: every one IGNORE_INDEX (the loss would be NaN)",
        call(labels=ignored),
        ("labels", "IGNORE_INDEX", "-100"),
    )
    yield semantic(
        "labels: a class outside n_classes (5 of 2)",
        call(labels=torch.tensor([0, 1, 5, 1])),
        ("labels", "n_classes=2", "5"),
    )
    yield semantic(
        "valid: the other polarity (True = padding)",
        call(valid=~valid),
        ("valid", "False", "polarity"),
    )
    tags = torch.where(valid, 1, IGNORE_INDEX)
    yield semantic(
        "labels: a tag per token for a SentenceClassifier",
        call(labels=tags),
        ("labels", "SentenceClassifier", str(tuple(ids.shape[:1]))),
    )
    tagger = lambda: F.TokenTagger(_encoder())  # noqa: E731
    yield semantic(
        "labels: one label per sentence for a TokenTagger",
        call(model=tagger, labels=labels),
        ("labels", "TokenTagger", "(4,)", str(tuple(ids.shape))),
    )
    yield semantic(
        "labels: a TokenTagger's padding labelled 0 instead of IGNORE_INDEX",
        call(model=tagger, labels=torch.where(valid, 1, 0)),
        ("labels", "padding", "IGNORE_INDEX", "0"),
    )
    yield semantic(
        "labels: a tag outside n_tags",
        call(model=tagger, labels=torch.where(valid, 3, IGNORE_INDEX)),
        ("labels", "n_tags=2", "3"),
    )


@cases("dl4nlp.finetune.predict")
def _():
    ids, valid, _ = _rows()
    torch.manual_seed(0)
    model = F.SentenceClassifier(_encoder()).eval()
    yield semantic(
        "valid: the other polarity (True = padding)",
        lambda: F.predict(model, ids, ~valid),
        ("valid", "False", "polarity"),
    )
    gap = valid.clone()
    gap[0, 1] = False
    yield semantic("valid: a hole inside a row", lambda: F.predict(model, ids, gap), ("valid", "padding", "True"))


# --- taggers -------------------------------------------------------------------------------------
@functools.cache
def _tagger() -> TG.Tagger:
    torch.manual_seed(0)
    return TG.Tagger(TG.TaggerConfig(vocab_size=5, d_model=8, n_heads=2, n_layers=1, max_len=6))


@cases("dl4nlp.taggers.tagging_loss")
def _():
    ids = torch.tensor([[1, 2, 3, 4]])
    yield semantic(
        "batch: targets outside the labels (7 of 5)",
        lambda: TG.tagging_loss(_tagger(), (ids, torch.tensor([[1, 2, 7, 4]]))),
        ("targets", "n_labels=5", "7"),
    )
    yield semantic(
        "batch: every target IGNORE (the loss would be NaN)",
        lambda: TG.tagging_loss(_tagger(), (ids, torch.full_like(ids, TG.IGNORE))),
        ("targets", "IGNORE", "-100"),
    )


# --- data files ----------------------------------------------------------------------------------
def _in_data_folder(files, call):
    """Run ``call`` with $DL4NLP_DATA pointing at a scratch folder holding ``files`` (name -> bytes)."""
    folder = scratch()
    for name, content in files.items():
        (folder / name).write_bytes(content)

    def run():
        with environment(DL4NLP_DATA=str(folder)):
            return call()

    return run


@cases("dl4nlp.data.load_text")
def _():
    yield semantic(
        "DL4NLP_DATA: a zero-byte tinyshakespeare.txt",
        _in_data_folder({"tinyshakespeare.txt": b""}, lambda: D.load_text("tinyshakespeare.txt")),
        ("tinyshakespeare.txt", "1,115,394", "0"),
    )
    shipped = D.data_path("tinyshakespeare.txt").read_bytes()
    altered = shipped[:-1] + b"?"
    yield semantic(
        "DL4NLP_DATA: a tinyshakespeare.txt of the right size, one byte changed",
        _in_data_folder({"tinyshakespeare.txt": altered}, lambda: D.load_text("tinyshakespeare.txt")),
        ("tinyshakespeare.txt", "md5", "6fb458f1232090904fb40fe944165e91"),
    )

    latin = "Holmes said: café.\n".encode("latin-1")
    yield semantic(
        "DL4NLP_DATA: a Latin-1 sherlock_holmes.txt",
        _in_data_folder({"sherlock_holmes.txt": latin}, lambda: D.load_text("sherlock_holmes.txt")),
        ("sherlock_holmes.txt", "575,794", str(len(latin))),
    )


@cases("dl4nlp.data.verified_path")
def _():
    yield semantic(
        "name: a file with no recorded checksum",
        lambda: D.verified_path("README.md"),
        ("name", "README.md", "tinyshakespeare.txt"),
    )
    yield semantic(
        "DL4NLP_DATA: a cut bert_base_uncased_vocab.txt",
        _in_data_folder(
            {"bert_base_uncased_vocab.txt": b"[PAD]\n"}, lambda: D.verified_path("bert_base_uncased_vocab.txt")
        ),
        ("bert_base_uncased_vocab.txt", "231,508", "6"),
    )


@cases("dl4nlp.phonemes.load_dictionary")
def _():
    one_line = gzip.compress(b"cat K AE1 T\n")

    def load():
        phonemes.load_dictionary.cache_clear()
        try:
            return phonemes.load_dictionary()
        finally:
            phonemes.load_dictionary.cache_clear()

    yield semantic(
        "DL4NLP_DATA: a one-line cmudict.dict.gz",
        _in_data_folder({"cmudict.dict.gz": one_line}, load),
        ("cmudict.dict.gz", "914,689", str(len(one_line))),
    )


# --- recipes -------------------------------------------------------------------------------------
@cases("dl4nlp.recipes.write_table")
def _():
    folder = scratch()
    yield semantic(
        "partial: the table itself (it would be deleted once written)",
        lambda: recipes.write_table(folder / "table.json", {"rows": []}, partial=folder / "table.json"),
        ("partial", "out", "table.json"),
    )
    yield semantic(
        "partial: the table, named another way",
        lambda: recipes.write_table(folder / "table.json", {"rows": []}, partial=folder / "sub" / ".." / "table.json"),
        ("partial", "out"),
    )


# --- rnn -----------------------------------------------------------------------------------------
# identity_init_ on a bidirectional or stacked nn.RNN is legal: every layer and direction is set (tests/test_rnn.py).


@cases("dl4nlp.train.train")
def _():
    def detached(model, batch):
        with torch.no_grad():
            return model(batch).pow(2).mean()

    good = dict(model=_linear(), loss_fn=detached, next_batch=lambda step: torch.ones(3, 2), steps=1, progress=False)
    yield semantic(
        "loss_fn: computed under torch.no_grad (nothing to backpropagate)",
        lambda: train.train(**good),
        ("loss_fn", "requires_grad", "does not require grad"),
    )


# --- attention masks -----------------------------------------------------------------------------
@cases("dl4nlp.attention.MultiHeadAttention.forward")
def _():
    torch.manual_seed(0)
    attention = MultiHeadAttention(8, 2)
    x = torch.randn(2, 3, 8)
    padding = torch.ones(2, 1, 1, 3, dtype=torch.bool)  # no padding in this batch: every key may be attended
    yield semantic(
        "mask: a padding mask of the other polarity (True = padding, torch's key_padding_mask)",
        lambda: attention(x, mask=~padding),
        ("mask", "True where attention is allowed", "False everywhere"),
    )


@cases("dl4nlp.attention.scaled_dot_product_attention")
def _():
    q = torch.randn(2, 3, 4)
    yield semantic(
        "mask: the causal mask inverted and cut to nothing (False everywhere)",
        lambda: scaled_dot_product_attention(q, q, q, mask=torch.zeros(3, 3, dtype=torch.bool)),
        ("mask", "False everywhere"),
    )


@cases("dl4nlp.attention.masked_softmax")
def _():
    yield semantic(
        "mask: False everywhere",
        lambda: masked_softmax(torch.randn(2, 3), torch.zeros(2, 3, dtype=torch.bool)),
        ("mask", "False everywhere"),
    )


# --- flags that must be True or False, not a string ----------------------------------------------
@cases("dl4nlp.bpe.pre_tokenize")
def _():
    yield from semantic_vary(bpe.pre_tokenize, dict(text="a b"), "lowercase", NOT_A_BOOL[:1])


@cases("dl4nlp.bpe.train_bpe")
def _():
    yield from semantic_vary(bpe.train_bpe, dict(counts={"ab": 2}, num_merges=1), "fast", NOT_A_BOOL[:1])


@cases("dl4nlp.checkpoint.load_checkpoint")
def _():
    good = dict(path=D.data_path("seq2seq_dates_dot.pt"), kind="seq2seq")
    yield from semantic_vary(checkpoint.load_checkpoint, good, "verify", NOT_A_BOOL[:1])


@cases("dl4nlp.plots.plot_curves")
def _():
    good = dict(curves={"a": ([1, 2], [3.0, 2.0])})
    yield from semantic_vary(plots.plot_curves, good, "logx", NOT_A_BOOL[:1])
    yield from semantic_vary(plots.plot_curves, good, "logy", NOT_A_BOOL[:1])


@cases("dl4nlp.plots.plot_heatmap")
def _():
    yield from semantic_vary(plots.plot_heatmap, dict(values=[[0.0, 1.0]]), "colorbar", NOT_A_BOOL[:1])


@cases("dl4nlp.plots.draw_graph")
def _():
    yield from semantic_vary(plots.draw_graph, dict(root=Value(2.0) * Value(3.0)), "show_grad", NOT_A_BOOL[:1])


@cases("dl4nlp.positional.rotary")
def _():
    yield from semantic_vary(positional.rotary, dict(x=torch.randn(3, 4)), "fast", NOT_A_BOOL[:1])


@cases("dl4nlp.rnn.RecurrentTagger")
def _():
    yield from semantic_vary(RecurrentTagger, dict(vocab_size=5, num_classes=2), "bidirectional", NOT_A_BOOL[:1])


@cases("dl4nlp.scalar_nn.flat_parameters")
def _():
    twin = scalar_nn.to_torch(scalar_nn.MLP(2, [3, 1], seed=0))
    yield from semantic_vary(scalar_nn.flat_parameters, dict(twin=twin), "grad", NOT_A_BOOL[:1])


@cases("dl4nlp.gradflow.DeepMLP")
def _():
    yield from semantic_vary(gradflow.DeepMLP, dict(depth=2, width=4), "residual", NOT_A_BOOL[:1])


@cases("dl4nlp.lstm.load_char_model")
def _():
    good = dict(path=D.data_path("char_lstm_sherlock_seed1.pt"))
    yield from semantic_vary(lstm.load_char_model, good, "reverse", NOT_A_BOOL[:1])


@cases("dl4nlp.recipes.comma_ints")
def _():
    yield from semantic_vary(recipes.comma_ints, dict(option="--seeds", text="0,1"), "empty", NOT_A_BOOL[:1])


# --- probabilities where logits are expected -----------------------------------------------------
@cases("dl4nlp.sampling.next_token_probabilities")
def _():
    probabilities = torch.softmax(torch.randn(3, 5, generator=torch.Generator().manual_seed(0)), dim=-1)
    yield semantic(
        "logits: a batch of probabilities (softmax applied already)",
        lambda: sampling.next_token_probabilities(probabilities, temperature=0.7),
        ("logits", "probabilities", "summing to 1"),
    )


@cases("dl4nlp.sampling.sample_next")
def _():
    probabilities = torch.softmax(torch.randn(3, 5, generator=torch.Generator().manual_seed(0)), dim=-1)
    yield semantic(
        "logits: a batch of probabilities",
        lambda: sampling.sample_next(probabilities),
        ("logits", "probabilities"),
    )


@cases("dl4nlp.rnn.language_model_loss")
def _():
    probabilities = torch.softmax(torch.randn(2, 3, 5, generator=torch.Generator().manual_seed(0)), dim=-1)
    yield semantic(
        "logits: probabilities (cross-entropy would apply a second softmax)",
        lambda: language_model_loss(probabilities, torch.zeros(2, 3, dtype=torch.long)),
        ("logits", "probabilities"),
    )


@cases("dl4nlp.probes.inside_quotes")
def _():
    yield semantic(
        "open_quote and close_quote: swapped",
        lambda: probes.inside_quotes("“Yes,” he said.", open_quote="”", close_quote="“"),
        ("open_quote", "close_quote", "swapped"),
    )


@cases("dl4nlp.finetune.accuracy")
def _():
    labels = torch.tensor([[IGNORE_INDEX, 1, 0, IGNORE_INDEX]])  # [CLS] tag tag [SEP]
    predicted = torch.tensor([[1, 1, 1, 0]])
    yield semantic(
        "predicted and labels: swapped",
        lambda: F.accuracy(labels, predicted),
        ("predicted", "labels", "swapped", "-100"),
    )


@cases("dl4nlp.bert.Bert.forward")
def _():
    ids, valid, _ = _rows()
    encoder = _encoder()
    no_padding = torch.ones_like(valid)
    yield semantic(
        "valid: the other polarity on a batch without padding (False everywhere)",
        lambda: encoder(ids, valid=~no_padding),
        ("valid", "polarity", "no True"),
    )


@cases("dl4nlp.finetune.compare_methods")
def _():
    examples = [SimpleNamespace(text=t, label=i % 2) for i, t in enumerate(["the cat", "a dog", "the mat", "a cat"])]
    other = WordPiece([*WORDS, "bird", "fish"])  # another model's vocabulary: ids would mean other pieces
    yield semantic(
        "tokenizer: the vocabulary of another model",
        lambda: F.compare_methods(_encoder(), other, examples, examples, seed=0, methods=["probe"]),
        ("tokenizer", "vocab_size=12", "14"),
    )


# --- date task: vocabularies of the model --------------------------------------------------------
@functools.cache
def _date_model() -> S.Seq2Seq:
    torch.manual_seed(0)
    return S.Seq2Seq(len(date_task.SOURCE_VOCAB), len(date_task.TARGET_VOCAB), d_embed=4, d_hidden=6).eval()


@cases("dl4nlp.date_task.translate")
def _():
    yield semantic(
        "source_vocab and target_vocab: swapped",
        lambda: date_task.translate(_date_model(), ["1 March 2001"], date_task.TARGET_VOCAB, date_task.SOURCE_VOCAB),
        ("source_vocab", "target_vocab", "swapped"),
    )
    yield semantic(
        "vocabularies: another model's (the phoneme model's)",
        lambda: date_task.translate(_date_model(), ["abc"], phonemes.SPELLING_VOCAB, phonemes.PHONEME_VOCAB),
        ("source_vocab", "another model", str(len(phonemes.SPELLING_VOCAB))),
    )


@cases("dl4nlp.date_task.attention_weights")
def _():
    yield semantic(
        "source_vocab and target_vocab: swapped",
        lambda: date_task.attention_weights(
            _date_model(), "1 March 2001", "2001-03-01", date_task.TARGET_VOCAB, date_task.SOURCE_VOCAB
        ),
        ("source_vocab", "target_vocab", "swapped"),
    )


@cases("dl4nlp.date_task.sequence_accuracy")
def _():
    pairs = [("abc", "K AE T")]
    yield semantic(
        "vocabularies: another model's",
        lambda: date_task.sequence_accuracy(_date_model(), pairs, phonemes.SPELLING_VOCAB, phonemes.PHONEME_VOCAB),
        ("source_vocab", "another model"),
    )


@cases("dl4nlp.finetune.logistic_regression")
def _():
    yield semantic(
        "labels: one class only (nothing to separate)",
        lambda: F.logistic_regression(torch.randn(4, 3), torch.zeros(4, dtype=torch.long)),
        ("labels", "two different classes", "0"),
    )


@cases("dl4nlp.finetune.bag_of_words")
def _():
    yield semantic(
        "train_labels: one class only",
        lambda: F.bag_of_words(["a b", "c d"], [1, 1], ["a"], [1]),
        ("labels", "two different classes", "1"),
    )


@cases("dl4nlp.lstm.final_states")
def _():
    model, _ = lstm.load_char_model(D.data_path("char_lstm_sherlock_seed1.pt"))
    other = CharVocab("abcdefgh ")  # another corpus's characters: ids would mean other characters
    yield semantic(
        "vocab: a vocabulary of another corpus",
        lambda: lstm.final_states(model, other, ["ab"]),
        ("vocab", "vocab_size=87", "9"),
    )


@cases("dl4nlp.attention.scaled_dot_product_attention")
def _():
    huge = torch.full((1, 2, 4), 1e30)  # finite, yet q·k overflows: unscaled activations?
    yield semantic(
        "q and k: so large that the scores q·k/√d overflow (softmax of inf: NaN)",
        lambda: scaled_dot_product_attention(huge, huge, torch.randn(1, 2, 4)),
        ("q and k", "finite", "1e+30"),
    )


# --- devices this machine does not have ----------------------------------------------------------
@cases("dl4nlp.seq2seq.Seq2Seq.load")
def _():
    if not torch.cuda.is_available():  # on a machine with a GPU, 'cuda' is a good device
        yield semantic(
            "device: 'cuda' on a machine without a GPU",
            lambda: S.Seq2Seq.load(D.data_path("seq2seq_dates_dot.pt"), device="cuda"),
            ("device", "this machine has", "'cuda'"),
        )
    yield semantic(
        "device: a GPU index beyond the machine's ('cuda:99')",
        lambda: S.Seq2Seq.load(D.data_path("seq2seq_dates_dot.pt"), device="cuda:99"),
        ("device", "this machine has", "'cuda:99'"),
    )


@cases("dl4nlp.checkpoint.load_checkpoint")
def _():
    yield semantic(
        "map_location: a GPU index beyond the machine's",
        lambda: checkpoint.load_checkpoint(D.data_path("seq2seq_dates_dot.pt"), kind="seq2seq", map_location="cuda:99"),
        ("map_location", "this machine has", "'cuda:99'"),
    )


@cases("dl4nlp.train.to_device")
def _():
    yield semantic(
        "device: a GPU index beyond the machine's",
        lambda: train.to_device(torch.ones(2), "cuda:99"),
        ("device", "this machine has", "'cuda:99'"),
    )


@cases("dl4nlp.phonemes.phoneme_error_rate")
def _():
    yield semantic(
        "targets: CMUdict's pronunciations with their stress digits (AE1 never equals AE)",
        lambda: phonemes.phoneme_error_rate(["K AE T"], ["K AE1 T"]),
        ("targets", "strip_stress", "AE1"),
    )
    yield semantic(
        "predictions: the spelling, not phonemes",
        lambda: phonemes.phoneme_error_rate(["c a t"], ["K AE T"]),
        ("predictions", "phonemes", "'a'"),
    )


@cases("dl4nlp.wordpiece.WordPiece")
def _():
    yield semantic("wp[3]: an id, not a piece", lambda: _wordpiece()[3], ("token", "string", "int", "itos[3]"))
