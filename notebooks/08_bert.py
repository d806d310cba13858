# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: cellView,jupyter,slideshow,tags,-all
#     notebook_metadata_filter: kernelspec,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] slideshow={"slide_type": "slide"}
# # 08 · BERT's masked language model
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/dl4nlp-course/dl4nlp/blob/main/notebooks/08_bert.ipynb)
#
# A language model that reads left to right cannot use the words that come
# after a gap. BERT reads in both directions, and learns by filling in words
# that were hidden from it: the *masked language model*. In this notebook you
# will build every piece of that recipe: the sub-word vocabulary (byte-pair
# encoding, checked merge by merge against a production tokenizer), BERT's
# three embeddings, the 15 % / 80-10-10 masking rule (checked against its
# binomial confidence intervals), next-sentence pairs, and a tiny BERT trained
# on children's stories that fills in blanks far better than guessing the most
# common word. At the end you will count the parameters of the real BERT-base
# and BERT-large without allocating a single one of them.
#
# **You will:**
# - learn byte-pair merges on the lecture's example and on a real corpus, and match Hugging Face's trainer merge for merge;
# - see how WordPiece scores a merge differently;
# - build BERT's input `[CLS] A [SEP] B [SEP]` from token, segment and position embeddings;
# - implement and verify BERT's masking, and build next-sentence-prediction pairs;
# - fill in blanks with a tiny BERT, beat a unigram baseline, and see what too little or too much masking does;
# - count the parameters of BERT-base and BERT-large on PyTorch's `meta` device.
#
# **Prerequisites:** notebooks 05 (self-attention), 06 (positional encoding) and 07 (the Transformer block).
#
# **Run time:** about 20 seconds on a laptop CPU.

# %%
# Set-up. In Google Colab (and only there) this first fetches the course and installs
# its library `dl4nlp` without touching Colab's torch; elsewhere `make lab` did that.
import os, subprocess, sys
if "google.colab" in sys.modules or os.environ.get("DL4NLP_BOOTSTRAP") == "1":
    _course = os.path.abspath("dl4nlp-course")
    if not os.path.isdir(_course):
        _url = os.environ.get("DL4NLP_REPO_URL", "https://github.com/dl4nlp-course/dl4nlp")
        subprocess.run(["git", "clone", "--quiet", "--depth=1", _url, _course], check=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "-e", _course], check=True)
    sys.path.insert(0, os.path.join(_course, "lib"))

import dl4nlp

device = dl4nlp.start(seed=0)


# %%
import csv
import json
import math
import random

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from dl4nlp.bert import (IGNORE_INDEX, KEEP_PROB, KEPT, MASK_PROB, MASK_TOKEN_PROB, MASKED, RANDOM_TOKEN_PROB,
                         RANDOMIZED, Bert, bert_config, mask_tokens, pair_inputs, parameter_breakdown)
from dl4nlp.bert_pretrain import PretrainingData, evaluate, load_checkpoint, make_model, pretrain
from dl4nlp.bpe import train_bpe, word_counts
from dl4nlp.data import data_path, load_text, md5sum
from dl4nlp.exercises import check
from dl4nlp.plots import plot_parameter_breakdown
from dl4nlp.transformer import count_parameters
from dl4nlp.widgets import interactive_figure

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. Tokenization: from characters to word pieces
#
# **Intuition.** A vocabulary of whole words is huge, still meets words it has
# never seen, and treats "old", "older" and "oldest" as unrelated. Characters
# never run out, but make sequences long and each symbol nearly meaningless.
# Sub-words sit in between: frequent words stay whole, rare words are spelled
# from frequent pieces.
#
# **Byte-pair encoding** (BPE; Sennrich et al., 2016) learns the pieces. Start
# with every word split into characters. Count every adjacent pair of symbols,
# weighted by how often the word occurs; merge the most frequent pair into a new
# symbol everywhere; repeat. The list of merges, in order, *is* the tokenizer.
#
# ### 1a. The lecture's example
#
# A corpus of four words: *low* ×5, *lower* ×2, *newest* ×6, *widest* ×3.
# `dl4nlp.bpe.train_bpe` prints nothing; we show each merge, its count, and the
# corpus after it.

# %%
# NBVAL_CHECK_OUTPUT
TOY = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
toy_bpe = train_bpe(TOY, num_merges=10)
print(f"alphabet: {toy_bpe.alphabet}")
for n, merge in enumerate(toy_bpe.merges, start=1):
    prefix = train_bpe(TOY, num_merges=n)  # the merges learned so far
    corpus = "  ".join(f"{' '.join(prefix.tokenize_word(w))} ×{c}" for w, c in TOY.items())
    print(f"merge {n:2d}: {merge.left} + {merge.right} -> {merge.left + merge.right:7s} (count {merge.count}) | {corpus}")

# %% [markdown]
# The first pairs are *e s* and *s t*, both 9 times (in *newest* ×6 and *widest*
# ×3). Ties are broken as Hugging Face's trainer breaks them, towards the pair of
# older symbols in alphabetical order, so *es* comes first; then *es t* (9),
# then *l o* and *o w* (7 each), and *lo* wins the tie. That is the lecture's
# "es, est: 9 times; lo: 7 times".
#
# **Checkpoint.** The first three merges and the vocabulary after them match the
# slide. The slide's vocabulary list, "l, o, w, e, r, n, w, s, t, i, d, es, est, lo",
# names *w* twice: there are 10 distinct characters, so 13 symbols, not 14.

# %%
# NBVAL_CHECK_OUTPUT
first_three = [(m.left + m.right, m.count) for m in toy_bpe.merges[:3]]
assert first_three == [("es", 9), ("est", 9), ("lo", 7)], first_three
vocabulary = train_bpe(TOY, num_merges=3).vocabulary
slide_vocabulary = ["l", "o", "w", "e", "r", "n", "w", "s", "t", "i", "d", "es", "est", "lo"]
assert sorted(vocabulary) == sorted(set(slide_vocabulary)) and len(vocabulary) == 13
print(f"{len(vocabulary)} symbols: {vocabulary}")
print("'lowest' ->", train_bpe(TOY, num_merges=3).tokenize("lowest"), "| 'newer' ->", toy_bpe.tokenize("newer"))

# %% [markdown]
# A word never seen in training, *lowest*, is spelled from learned pieces. To
# split new text, the merges are replayed in the order they were learned.
#
# ### 1b. WordPiece scores a merge differently
#
# BERT's tokenizer, WordPiece (Schuster and Nakajima, 2012; Wu et al., 2016),
# grows its vocabulary the same way but picks the pair that most increases the
# likelihood of the training data, which amounts to the score
#
# $$\operatorname{score}(a, b) = \frac{P(ab)}{P(a)\,P(b)} \;\propto\; \frac{\operatorname{count}(ab)}{\operatorname{count}(a)\,\operatorname{count}(b)} .$$
#
# (The probabilities and the counts differ by normalising constants that are the
# same for every pair, so both choose the same pair.) BPE asks "which pair is
# frequent?"; WordPiece asks "which pair occurs together more often than its
# parts would by chance?", so it prefers pairs of rare symbols that always
# appear together.
#
# (The lecture's BPE slide words the rule as merging the symbols "having highest
# $\Pr(s^{(i)})$ and $\Pr(s^{(j)})$". What BPE maximises is the frequency of the
# *pair*, $\Pr(s^{(i)}, s^{(j)})$: in the toy corpus *e* and *w* are the two most
# frequent symbols, 17 and 16 times, yet they are adjacent only 8 times, and BPE
# merges *e s* (9 times) first.)

# %%
# NBVAL_CHECK_OUTPUT
wordpiece = train_bpe(TOY, num_merges=5, score="wordpiece")
print("BPE      :", [f"{m.left}+{m.right} ({m.count})" for m in toy_bpe.merges[:5]])
print("WordPiece:", [f"{m.left}+{m.right} ({m.score:.3f})" for m in wordpiece.merges])
first = wordpiece.merges[0]
assert (first.left, first.right) == ("i", "d") and math.isclose(first.score, 3 / (3 * 3))
es_score = 9 / (17 * 9)  # count(es) = 9, count(e) = 17, count(s) = 9
assert first.score > 5 * es_score
symbol_counts = {ch: sum(c * w.count(ch) for w, c in TOY.items()) for ch in toy_bpe.alphabet}
assert sorted(symbol_counts, key=symbol_counts.get)[-2:] == ["w", "e"] and symbol_counts["e"] == 17
assert sum(c * w.count("we") for w, c in TOY.items()) == 8 < toy_bpe.merges[0].count == 9
print(f"WordPiece's first merge i+d scores 3/(3·3) = {first.score:.3f}; BPE's e+s scores 9/(17·9) = {es_score:.3f}")

# %% [markdown]
# WordPiece also marks the pieces inside a word with `##`, so BERT writes
# *playing* as `play ##ing`; our tokenizer does the same with `continuation="##"`.
#
# ### 1c. A vocabulary learned on a real corpus, checked against Hugging Face
#
# Now 1,000 merges on the course's TinyStories sample (lowercased, split into
# words and punctuation). `train_bpe(..., fast=True)` updates the pair counts
# only for the words a merge touches; first we check on ten merges that it
# learns exactly what the readable version learns.

# %%
stories = load_text("tinystories.txt").lower()
counts = word_counts(stories)
print(f"{sum(counts.values()):,} words, {len(counts):,} distinct")
bpe = train_bpe(counts, num_merges=1000, fast=True)
readable = train_bpe(dict(counts.most_common(2000)), num_merges=10)
fast_on_same = train_bpe(dict(counts.most_common(2000)), num_merges=10, fast=True)
assert readable.merges == fast_on_same.merges, "the fast path must learn exactly the readable path's merges"
print("first 20 merges:", " ".join(m.left + m.right for m in bpe.merges[:20]))

# %% [markdown]
# The reference is the BPE trainer of Hugging Face's `tokenizers` library (a
# Rust implementation used in production), trained on the same text with the
# same word splitting and the same number of merges.

# %%
reference = Tokenizer(models.BPE())
reference.pre_tokenizer = pre_tokenizers.Whitespace()  # the same split into words and punctuation
reference.train_from_iterator([stories], trainers.BpeTrainer(vocab_size=len(bpe.alphabet) + 1000,
                                                             show_progress=False))
reference_merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
                    for m in json.loads(reference.to_str())["model"]["merges"]]
ours = [(m.left, m.right) for m in bpe.merges]
same = sum(a == b for a, b in zip(ours, reference_merges))
sentence = "the little dragon was unbelievably happy playing with his shiny new kite."
print(f"merges identical to the reference: {same} of {len(ours)}")
print("ours     :", bpe.tokenize(sentence))
print("reference:", reference.encode(sentence).tokens)

# %% [markdown]
# **Checkpoint.** All 1,000 merges agree with the production trainer, in the
# same order, and both split new text identically.

# %%
assert len(ours) == len(reference_merges) == 1000 and ours == reference_merges
assert bpe.tokenize(sentence) == reference.encode(sentence).tokens
print("dl4nlp.bpe == tokenizers' BpeTrainer, merge for merge")

# %% [markdown]
# The vocabulary reflects its corpus. In children's stories *playing* is common
# (it stays whole) while *cute* is rare (it is spelled from pieces); BERT's
# vocabulary, learned on books and Wikipedia, does the opposite.

# %%
# NBVAL_CHECK_OUTPUT
print(bpe.tokenize("my dog is cute. he likes playing.", continuation="##"))
print({w: counts[w] for w in ["playing", "cute"]})
assert bpe.tokenize_word("playing") == ["playing"] and len(bpe.tokenize_word("cute")) > 1

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. BERT's input: three embeddings, added
#
# BERT reads a *pair* of segments, `[CLS] A [SEP] B [SEP]`. `[CLS]` is a
# position whose final vector summarises the pair (it feeds the next-sentence
# classifier), `[SEP]` closes each segment. Every position's input vector is
# the sum of three learned embeddings, followed by a LayerNorm:
#
# $$x_t = \operatorname{LayerNorm}\big(E_{\text{token}}[w_t] + E_{\text{segment}}[s_t] + E_{\text{position}}[t]\big).$$
#
# Here is the lecture's pair, tokenized with the word vocabulary of the tiny
# BERT we load in section 5: each word is one token there, so the pair has 10
# positions. BERT's WordPiece vocabulary splits *playing* into `play ##ing`,
# which gives the lecture's table its 11 positions (0 to 10).

# %%
# NBVAL_CHECK_OUTPUT
tokens, segments, positions = pair_inputs("my dog is cute".split(), "he likes playing".split())
rows = {"input": tokens, "token embedding": [f"E[{t}]" for t in tokens],
        "segment embedding": ["E_A" if s == 0 else "E_B" for s in segments],
        "position embedding": [f"E_{p}" for p in positions]}
widths = [max(len(rows[r][i]) for r in rows) for i in range(len(tokens))]
for name, cells in rows.items():
    print(f"{name:>18} | " + " ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip())
assert segments == [0] * 6 + [1] * 4 and positions == list(range(10))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. Masking: 15 %, then 80 / 10 / 10
#
# BERT chooses 15 % of the ordinary tokens of each input (never `[CLS]`,
# `[SEP]` or padding) and trains the model to predict the original token at
# exactly those positions. Of the chosen tokens
#
# - 80 % are replaced by `[MASK]` (*went to the store* → *went to the [MASK]*),
# - 10 % by a random token (*went to the store* → *went to the running*),
# - 10 % are left unchanged (*went to the store* → *went to the store*).
#
# Why not always `[MASK]`? The symbol never occurs when the model is later
# fine-tuned on real text. Because any visible token might secretly be a
# prediction target, the model has to keep a good representation of every
# token, not only of the masked ones. `dl4nlp.bert.mask_tokens` implements the
# rule with the probabilities as named constants.

# %%
data = PretrainingData(load_text("tinystories.txt"))
vocab = data.vocab
print(f"word vocabulary: {len(vocab)} tokens, {vocab.itos[:5]} first")
print(f"MASK_PROB = {MASK_PROB}, MASK_TOKEN_PROB = {MASK_TOKEN_PROB}, "
      f"RANDOM_TOKEN_PROB = {RANDOM_TOKEN_PROB}, KEEP_PROB = {KEEP_PROB}")
example = data.batch(data.pairs(1, random.Random(3)), torch.Generator().manual_seed(5), mask_prob=0.3)
original = torch.where(example["labels"] != IGNORE_INDEX, example["labels"], example["input_ids"])[0]
print("original :", vocab.decode(original))
print("model in :", vocab.decode(example["input_ids"][0]))
print("targets  :", " ".join(vocab.itos[t] if t != IGNORE_INDEX else "_" for t in example["labels"][0].tolist()))

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** This one example uses a 30 % rate so that a short pair shows several choices.

# %% [markdown]
# **Verify the rates.** Over many samples the counts must look like draws from
# binomial distributions: the number of chosen tokens among $n$ ordinary ones
# is $\text{Binomial}(n, 0.15)$, and among the chosen ones the `[MASK]`, random and
# unchanged counts are $\text{Binomial}(\cdot, 0.8)$, $(\cdot, 0.1)$, $(\cdot, 0.1)$. We
# accept a count within 4 standard deviations of its mean (a 99.994 % interval).

# %%
big = data.batch(data.pairs(4000, random.Random(0)), torch.Generator().manual_seed(0))
ids = torch.where(big["labels"] != IGNORE_INDEX, big["labels"], big["input_ids"])  # (B, T) original tokens
masked = mask_tokens(ids, mask_id=vocab["[MASK]"], special_ids=vocab.special_ids, vocab_size=len(vocab),
                     generator=torch.Generator().manual_seed(1))
ordinary = ~torch.isin(ids, torch.tensor(vocab.special_ids))  # not [CLS], [SEP], [PAD], ...
n, chosen = int(ordinary.sum()), int(masked.chosen.sum())


def binomial_interval(trials, p, z=4.0):
    half = z * math.sqrt(trials * p * (1 - p))
    return trials * p - half, trials * p + half


rates = [("chosen among ordinary tokens", chosen, n, MASK_PROB)]
for name, code, p in [("[MASK] among chosen", MASKED, MASK_TOKEN_PROB), ("random among chosen", RANDOMIZED,
                      RANDOM_TOKEN_PROB), ("unchanged among chosen", KEPT, KEEP_PROB)]:
    rates.append((name, int((masked.action == code).sum()), chosen, p))
for name, count, trials, p in rates:
    low, high = binomial_interval(trials, p)
    print(f"{name:>29}: {count:6d} of {trials:6d} = {count / trials:.4f} (expected {p}, interval {low:.0f}-{high:.0f})")

# %% [markdown]
# **Checkpoint.** Every count is inside its interval; no special token or padding
# position is ever chosen or changed; a random replacement is never a special
# token; and the labels carry the original token exactly where a token was chosen.

# %%
for name, count, trials, p in rates:
    low, high = binomial_interval(trials, p)
    assert low <= count <= high, f"{name}: {count} outside [{low:.0f}, {high:.0f}]"
special_positions = ~ordinary
assert not masked.chosen[special_positions].any(), "a special token or padding was chosen"
assert torch.equal(masked.input_ids[special_positions], ids[special_positions])
assert not torch.isin(masked.input_ids[masked.action == RANDOMIZED], torch.tensor(vocab.special_ids)).any()
assert torch.equal(masked.labels[masked.chosen], ids[masked.chosen])
assert (masked.labels[~masked.chosen] == IGNORE_INDEX).all()
print(f"{int(special_positions.sum()):,} special and padding positions: none chosen, none changed")

# %% [markdown]
# ### Play with it
#
# Change the rate and the shares; the unchanged share is what is left,
# $1 - \text{[MASK]} - \text{random}$. The bars compare what `mask_tokens` did on
# 4,000 pairs with what the probabilities promise. Shares that do not add up
# (a negative remainder) are refused by the library, and the message says why.

# %%
def draw_masking(mask_prob, mask_token_prob, random_token_prob):
    """Observed vs expected shares of BERT's masking on the corpus sample (the widget's plain function)."""
    keep_prob = round(1 - mask_token_prob - random_token_prob, 10)
    out = mask_tokens(ids, mask_id=vocab["[MASK]"], special_ids=vocab.special_ids, vocab_size=len(vocab),
                      mask_prob=mask_prob, mask_token_prob=mask_token_prob, random_token_prob=random_token_prob,
                      keep_prob=keep_prob, generator=torch.Generator().manual_seed(0))
    n_chosen = max(int(out.chosen.sum()), 1)
    names = ["chosen / ordinary", "[MASK] / chosen", "random / chosen", "unchanged / chosen"]
    observed = [int(out.chosen.sum()) / n] + [int((out.action == a).sum()) / n_chosen for a in (MASKED, RANDOMIZED, KEPT)]
    expected = [mask_prob, mask_token_prob, random_token_prob, keep_prob]
    fig, ax = plt.subplots(figsize=(8, 3.5))
    x = torch.arange(4).numpy()
    ax.bar(x - 0.2, expected, width=0.4, label="probability")
    ax.bar(x + 0.2, observed, width=0.4, label=f"observed ({n:,} ordinary tokens)")
    ax.set_xticks(x)
    ax.set_xticklabels(names)
    ax.set_ylim(0, 1.05)
    ax.legend()
    return fig


interactive_figure(
    draw_masking,
    mask_prob=widgets.FloatSlider(value=MASK_PROB, min=0.0, max=1.0, step=0.05, description="mask_prob"),
    mask_token_prob=widgets.FloatSlider(value=MASK_TOKEN_PROB, min=0.0, max=1.0, step=0.05, description="[MASK]"),
    random_token_prob=widgets.FloatSlider(value=RANDOM_TOKEN_PROB, min=0.0, max=1.0, step=0.05, description="random"),
)

# %% [markdown]
# **The loss sees only the chosen positions.** Labels elsewhere are
# `IGNORE_INDEX` (−100), which `F.cross_entropy` skips. So the loss over the whole
# (B, T) grid equals the mean over the chosen positions alone, and a model is
# never rewarded for copying the tokens it can see.

# %%
sub_labels = masked.labels[:64]  # (64, T)
logits = torch.randn(*sub_labels.shape, len(vocab), generator=torch.Generator().manual_seed(0))  # (64, T, V)
everywhere = F.cross_entropy(logits.reshape(-1, len(vocab)), sub_labels.reshape(-1))  # ignores IGNORE_INDEX
only_chosen = F.cross_entropy(logits[sub_labels != IGNORE_INDEX], sub_labels[sub_labels != IGNORE_INDEX])
assert torch.allclose(everywhere, only_chosen)
print(f"loss over the grid with ignored labels {everywhere:.4f} == loss over the chosen positions {only_chosen:.4f}")
share = {"[MASK]": MASK_PROB * MASK_TOKEN_PROB, "random": MASK_PROB * RANDOM_TOKEN_PROB,
         "unchanged but predicted": MASK_PROB * KEEP_PROB}
print("share of all ordinary input tokens:", {k: f"{v:.1%}" for k, v in share.items()})
assert math.isclose(share["[MASK]"], 0.12) and math.isclose(share["random"], 0.015)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. Next-sentence prediction
#
# BERT's second task: given segments A and B, did B follow A in the text
# (*IsNext*), or was it taken from somewhere else (*NotNext*)? Half of the pairs
# are each. `PretrainingData.pairs` builds them from the corpus: segment A is one
# or more consecutive sentences of a paragraph; B is what follows in that
# paragraph, or sentences from a different paragraph.

# %%
pairs = data.pairs(2000, random.Random(0))
shown = [p for p in pairs if p[2]][:2] + [p for p in pairs if not p[2]][:2]  # two of each kind
for a, b, is_next in shown:
    print(f"{'IsNext ' if is_next else 'NotNext'} | A: {vocab.decode(a)}\n        | B: {vocab.decode(b)}")

# %% [markdown]
# **Checkpoint.** The share of IsNext pairs is within its binomial interval
# around 50 %; every IsNext pair appears in the corpus as A immediately followed
# by B; and (almost) no NotNext pair does.

# %%
paragraph_text = [" ".join(" ".join(map(str, s)) for s in doc) for doc in data.documents["train"]]
corpus_index = "\n".join(paragraph_text)


def contiguous(a, b):
    return (" ".join(map(str, a + b))) in corpus_index


is_next_count = sum(p[2] for p in pairs)
low, high = binomial_interval(len(pairs), 0.5)
assert low <= is_next_count <= high, is_next_count
sample = pairs[:300]
true_next = [contiguous(a, b) for a, b, is_next in sample if is_next]
false_next = [contiguous(a, b) for a, b, is_next in sample if not is_next]
assert all(true_next), "every IsNext pair must be consecutive text"
assert sum(false_next) <= 0.02 * len(false_next), "NotNext pairs should not be consecutive text"
print(f"IsNext: {is_next_count} of {len(pairs)}; IsNext pairs consecutive: {sum(true_next)}/{len(true_next)}; "
      f"NotNext pairs consecutive: {sum(false_next)}/{len(false_next)}")

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Later work (RoBERTa; Liu et al., 2019) found that dropping next-sentence
# prediction and training on longer contiguous text works at least as well; the
# masked language model is what matters.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. A tiny BERT trained on TinyStories
#
# `dl4nlp.bert.Bert` is BERT's architecture around `dl4nlp.transformer.TransformerEncoder`:
# the three embeddings and a LayerNorm, the encoder, an MLM head (a dense layer,
# GELU, LayerNorm and an output layer that shares its weights with the token
# embedding) and an NSP head on the pooled `[CLS]` vector. Training it well takes
# longer than a notebook cell should, so a library command trained one and
# saved it with its recipe:
#
# ```
# python -m dl4nlp.bert_pretrain train --out data/tiny_bert_tinystories.pt
# ```
#
# It ran for a quarter of an hour on one CPU thread (the recipe next to the
# checkpoint records the command, seed, library version, corpus checksum,
# device, steps and wall time). We load it, check the recipe, and then run a
# short training of a fresh model here to see the same loop at work.

# %%
checkpoint = data_path("tiny_bert_tinystories.pt")
recipe = json.loads(checkpoint.with_suffix(".json").read_text())
model, checkpoint_vocab = load_checkpoint(checkpoint, device=device)
print({k: recipe[k] for k in ["command", "seed", "library_version", "corpus", "corpus_md5", "device", "steps"]})
print(f"{count_parameters(model):,} parameters; norm_first = {model.config.norm_first}")
assert recipe["wall_time_s"] < 20 * 60, "the recipe trains in minutes, not hours"
assert recipe["corpus_md5"] == md5sum(data_path(recipe["corpus"])), "the checkpoint was trained on this corpus"
assert checkpoint_vocab.itos == vocab.itos, "the checkpoint's vocabulary is the one built here from the corpus"

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The tiny model is pre-LN (`norm_first=True`): a LayerNorm before each
# sublayer, as in GPT-2. The original BERT is post-LN. In our short trial runs
# (300 steps) the two reached about the same masked-token accuracy; we kept
# pre-LN because it is known to be less sensitive to the learning-rate warm-up
# (Xiong et al., 2020), which matters when there is no time to tune it.
# BERT-base and -large in section 7 are post-LN, like the originals.

# %% [markdown]
# **A short live run.** A fresh, smaller model trained for a few seconds with
# the same data, masking and loss (`dl4nlp.bert_pretrain.pretrain`, which uses
# the course's training loop `dl4nlp.train.train`).

# %%
torch.manual_seed(0)
live = make_model(len(vocab), d_model=64, n_heads=2, n_layers=1, d_ff=128)
live_history = pretrain(live, data, steps=40, batch_size=16, lr=3e-3, warmup=10, seed=0, device=device)
start, end = sum(live_history.loss[:5]) / 5, sum(live_history.loss[-10:]) / 10
print(f"loss (MLM + NSP): first 5 steps {start:.2f}, last 10 steps {end:.2f}; "
      f"log(vocabulary size) = {math.log(len(vocab)):.2f}")
assert end < start - 1.0, "the live run should lower the loss by more than one nat"

# %% [markdown]
# ### Filling in the blanks
#
# The lecture's sentence first. TinyStories has no gallons, so expect a
# children's-story answer. `top_predictions` puts `[MASK]` where the text says so and
# returns the model's five most probable words at each.

# %%
@torch.no_grad()
def top_predictions(text, k=5):
    """Top-k (word, probability) at every [MASK] of ``text`` (words and punctuation split as in training)."""
    pieces = text.split("[MASK]")
    ids = [vocab["[CLS]"]]
    for i, piece in enumerate(pieces):
        ids += vocab.encode(piece)
        if i < len(pieces) - 1:
            ids.append(vocab["[MASK]"])
    ids = torch.tensor([ids + [vocab["[SEP]"]]], device=device)
    hidden = model(ids)
    probs = torch.softmax(model.mlm_logits(hidden, ids == vocab["[MASK]"]), dim=-1)  # (masks, V)
    top = probs.topk(k, dim=-1)
    return [[(vocab.itos[i], p) for i, p in zip(idx.tolist(), val.tolist())] for val, idx in zip(*top)]


def show(text):
    print(text)
    for n, predictions in enumerate(top_predictions(text), start=1):
        print(f"   blank {n}: " + ", ".join(f"{w} {p:.2f}" for w, p in predictions))


show("the man went to the [MASK] to buy a [MASK] of milk .")
show("once upon a time , there was a little [MASK] named lily .")
show("she was very [MASK] and gave her mom a big hug .")
show("tom and his dog went to the [MASK] to play .")

# %% [markdown]
# The lecture's sentence gets places and objects from the stories, with low
# confidence. Where the stories are clear, so is the model.
#
# **Checkpoint.** A little *girl* named Lily, and a *happy* (or excited) child
# giving a hug, are the model's first guesses.

# %%
lily = top_predictions("once upon a time , there was a little [MASK] named lily .")[0]
hug = top_predictions("she was very [MASK] and gave her mom a big hug .")[0]
assert lily[0][0] == "girl" and lily[0][1] > 2 * lily[1][1], lily
assert hug[0][0] in {"happy", "excited"}, hug
print(f"little ___ named lily: {lily[0][0]} ({lily[0][1]:.2f}); very ___ and gave her mom a hug: {hug[0][0]}")

# %% [markdown]
# The answers fit the stories the model read. Sentences from the held-out
# paragraphs (never seen in training), with one word hidden each:

# %%
held_out_sentences = [s for doc in data.documents["held_out"][:40] for s in doc if 8 <= len(s) <= 14][:4]
for sentence in held_out_sentences:
    hidden_at = len(sentence) // 2
    text = " ".join(vocab.itos[i] if j != hidden_at else "[MASK]" for j, i in enumerate(sentence))
    guesses = top_predictions(text)[0]
    print(f"{text}\n   hidden: {vocab.itos[sentence[hidden_at]]:10s} model: "
          + ", ".join(f"{w} {p:.2f}" for w, p in guesses))

# %% [markdown]
# **How good is it?** On 512 held-out pairs, masked as in training, we count how
# often the model's top word is the hidden one, and compare with the **unigram
# baseline**: always answer the most frequent word of the training text.

# %%
results = evaluate(model, data, n_pairs=512)
print(f"masked-token accuracy on held-out text: {results['masked_accuracy']:.3f} "
      f"over {results['predicted_tokens']} predicted tokens")
print(f"unigram baseline (always '{results['unigram_token']}'): {results['unigram_accuracy']:.3f}")
print(f"next-sentence accuracy on held-out pairs: {results['nsp_accuracy']:.3f} (chance: 0.5)")

# %% [markdown]
# **Checkpoint.** The tiny BERT beats the unigram baseline by a clear margin,
# more than doubling its accuracy, and it predicts next sentences better than chance.

# %%
MLM_MARGIN = 0.15  # accuracy points above the unigram baseline
assert results["masked_accuracy"] > results["unigram_accuracy"] + MLM_MARGIN, results
assert results["masked_accuracy"] > 2 * results["unigram_accuracy"], results
assert results["nsp_accuracy"] > 0.6, results
print("tiny BERT > unigram baseline by more than", MLM_MARGIN)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. Too little and too much masking
#
# The lecture's two warnings: with too little masking each sequence teaches
# the model only a few predictions, so training is expensive; with too much,
# each prediction has too little context left to be learnable. Both halves
# can be measured.
#
# **Context.** Take the trained tiny BERT and evaluate it with more and more
# of the input masked. The number of predictions per sequence grows in
# proportion to the rate, but each prediction gets harder.

# %%
eval_rates = [0.05, 0.15, 0.3, 0.5, 0.8]
by_rate = {rate: evaluate(model, data, n_pairs=256, mask_prob=rate) for rate in eval_rates}
for rate, r in by_rate.items():
    print(f"mask {rate:4.0%} of the tokens: {r['predicted_tokens'] / 256:5.1f} predictions per pair, "
          f"accuracy {r['masked_accuracy']:.3f}")

# %% [markdown]
# **Checkpoint.** More masking means more predictions per pair, and lower
# accuracy at every step: each hidden word takes away context from the others.

# %%
predictions_per_pair = [by_rate[r]["predicted_tokens"] for r in eval_rates]
accuracies = [by_rate[r]["masked_accuracy"] for r in eval_rates]
assert predictions_per_pair == sorted(predictions_per_pair), "more masking, more predictions"
assert all(a > b for a, b in zip(accuracies, accuracies[1:])), "accuracy should fall as the rate grows"
assert accuracies[1] - accuracies[-1] > 0.05
print("more masking: more predictions, less context, lower accuracy")

# %% [markdown]
# **Cost.** The other half needs training runs. A tiny live version first: two
# small models trained for 40 steps on the same pairs, one with 5 % of the
# tokens masked, one with 50 %, both evaluated at the standard 15 %. The second
# has seen ten times as many prediction targets.

# %%
live_loss = {}
for rate in [0.05, 0.5]:
    torch.manual_seed(0)
    small = make_model(len(vocab), d_model=64, n_heads=2, n_layers=1, d_ff=128)
    pretrain(small, data, steps=40, batch_size=16, lr=3e-3, warmup=10, seed=0, mask_prob=rate, nsp_weight=0.0,
             device=device, desc=f"masking {rate:.0%}")
    live_loss[rate] = evaluate(small, data, n_pairs=256)["masked_loss"]
    print(f"trained for 40 steps with {rate:.0%} masked: held-out loss at 15 % masking {live_loss[rate]:.3f}")
assert live_loss[0.5] < live_loss[0.05] - 0.15, "more targets per step should train faster"

# %% [markdown]
# After 40 steps both models still guess mostly the frequent words, but the one
# that saw more targets has the lower loss. For longer runs, a library command
# trained a slightly larger model (64 hidden, 2 layers) for 800 steps at each of
# five masking rates, and evaluated every one of them at the standard 15 %:
#
# ```
# python -m dl4nlp.bert_pretrain mask-sweep --out data/bert_mask_rates.csv
# ```

# %%
sweep_path = data_path("bert_mask_rates.csv")
sweep_recipe = json.loads(sweep_path.with_suffix(".json").read_text())
with open(sweep_path) as handle:
    sweep = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(handle)]
print({k: sweep_recipe[k] for k in ["command", "seed", "steps", "corpus_md5", "device"]})
for row in sweep:
    print(f"trained with {row['mask_prob']:4.0%} masked: accuracy at 15 % {row['accuracy_at_15']:.3f}, "
          f"at its own rate {row['accuracy_at_own_rate']:.3f}")
assert sweep_recipe["corpus_md5"] == md5sum(data_path(sweep_recipe["corpus"]))

fig, ax = plt.subplots()
ax.plot([r["mask_prob"] for r in sweep], [r["accuracy_at_15"] for r in sweep], marker="o",
        label="trained at this rate, evaluated at 15 %")
ax.plot(eval_rates, accuracies, marker="s", label="tiny BERT of section 5 (trained at 15 %), evaluated at this rate")
ax.set(xlabel="masking rate", ylabel="held-out masked-token accuracy", title="Too little and too much masking")
ax.legend()
plt.show()

# %% [markdown]
# **What it shows.** With the training budget fixed (800 steps of 32 pairs),
# masking 5 % is clearly worst: those models saw the fewest prediction targets.
# Accuracy then *rises* with the masking rate all the way to 80 %: at this small
# scale and short budget, the extra training signal outweighs the lost context.
# The context cost is still there: every model does better when it is evaluated
# with less masking than with more (the square-marked curve of the section-5 model, and each
# row's two columns). Which effect wins depends on model size and budget:
# Devlin et al. chose 15 %; Wettig et al. (2023) found 40 % better than 15 % for
# BERT-large, with very high rates eventually hurting. "Too much" masking is a
# regime you reach with more training than fits in a notebook.
#
# **Checkpoint.**

# %%
by_sweep_rate = {row["mask_prob"]: row for row in sweep}
assert min(by_sweep_rate, key=lambda r: by_sweep_rate[r]["accuracy_at_15"]) == 0.05, "5 % should be worst"
assert by_sweep_rate[0.15]["accuracy_at_15"] - by_sweep_rate[0.05]["accuracy_at_15"] > 0.02
assert by_sweep_rate[0.8]["accuracy_at_15"] - by_sweep_rate[0.15]["accuracy_at_15"] > 0.02
for rate, row in by_sweep_rate.items():
    if rate > 0.15:  # a model trained at a high rate still does better when it sees more context
        assert row["accuracy_at_own_rate"] < row["accuracy_at_15"], row
    if rate < 0.15:
        assert row["accuracy_at_own_rate"] > row["accuracy_at_15"], row
print("too little masking trains slowly; more masking removes context, but at this budget more signal wins")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 7. The real sizes: BERT-base and BERT-large
#
# The paper's models: BERT-base has 12 layers, 768 hidden units and 12 heads,
# BERT-large 24 layers, 1024 hidden units and 16 heads; both use 30,522 word
# pieces, 512 positions, 2 segments and a feed-forward width of 4 × hidden. The
# paper reports 110M and 340M parameters. We build both from the same classes as
# the tiny model, on PyTorch's `meta` device: every tensor has a shape but no
# storage, so the 1.3 GB of BERT-large's weights are never allocated.

# %%
with torch.device("meta"):
    bert_models = {size: Bert(bert_config(size)) for size in ["base", "large"]}
published = {"base": 110e6, "large": 340e6}
breakdowns = {size: parameter_breakdown(m) for size, m in bert_models.items()}
HEADS = ["MLM head (transform, LayerNorm, bias)", "NSP head"]
for size, m in bert_models.items():
    total = count_parameters(m)
    encoder_only = total - sum(breakdowns[size][h] for h in HEADS)
    print(f"BERT-{size}: {total:,} with the pre-training heads, {encoder_only:,} without "
          f"(published: {published[size] / 1e6:.0f}M); on the meta device: {next(m.parameters()).is_meta}")
print()
for component in breakdowns["base"]:
    print(f"{component:>38}: " + "  ".join(f"{breakdowns[s][component]:>12,}" for s in bert_models))

# %% [markdown]
# **Where the parameters are.** One layer has $4(C^2 + C)$ in the attention
# projections, $8C^2 + 5C$ in the feed-forward network ($C \to 4C \to C$) and
# $4C$ in two LayerNorms: $12C^2 + 13C$, which is 7,087,872 for $C = 768$. The
# embeddings add $(30522 + 512 + 2)\,C + 2C$; the token embedding alone is a fifth
# of BERT-base, and the MLM output layer reuses it (tied weights are counted once).

# %%
# NBVAL_CHECK_OUTPUT
def per_layer(C):
    return 12 * C * C + 13 * C


shares = {}
for size, C, L in [("base", 768, 12), ("large", 1024, 24)]:
    b = breakdowns[size]
    layers = b["self-attention (all layers)"] + b["feed-forward (all layers)"] + b["LayerNorms (all layers)"]
    embeddings = sum(b[k] for k in ["token embeddings", "position embeddings", "segment embeddings",
                                    "embedding LayerNorm"])
    assert layers == L * per_layer(C) and embeddings == (30522 + 512 + 2) * C + 2 * C
    encoder_only = embeddings + layers + b["pooler"]
    share = b["token embeddings"] / count_parameters(bert_models[size])
    print(f"BERT-{size}: {L} × {per_layer(C):,} per layer + {embeddings:,} embeddings + {b['pooler']:,} pooler "
          f"= {encoder_only:,}; token embedding share {share:.1%}")
    shares[size] = share
assert 0.2 < shares["base"] < 0.22, "the token embedding is about a fifth of BERT-base"
base_total = count_parameters(bert_models["base"]) - sum(breakdowns["base"][h] for h in HEADS)
large_total = count_parameters(bert_models["large"]) - sum(breakdowns["large"][h] for h in HEADS)
assert base_total == 109_482_240 and large_total == 335_141_888

# %% [markdown]
# **Comparing with 110M and 340M.** BERT-base's 109.5M rounds to the
# published 110M. BERT-large's 335.1M is 1.4 % below the published 340M, and no
# component we left out closes the gap of 4.9M: the MLM head adds 1.1M and the
# NSP head 2,050 parameters (still 3.8M short with both), while a separate,
# untied output layer would add 31M and overshoot. The 340M is best read as a
# loose rounding; the count here follows from the architecture alone.
#
# **Checkpoint.**

# %%
assert abs(base_total - 110e6) / 110e6 < 0.005, "BERT-base: within 0.5 % of the published 110M"
large_heads = sum(breakdowns["large"][h] for h in HEADS)
assert 0.01 < (340e6 - large_total) / 340e6 < 0.02, "BERT-large: 1-2 % below the published 340M"
assert 340e6 - (large_total + large_heads) > 3e6, "even with both heads, more than 3M short"
assert large_total + large_heads + 1024 * 30522 > 340e6 + 25e6, "an untied output layer would overshoot"
print(f"base: {base_total / 1e6:.1f}M vs 110M; large: {large_total / 1e6:.1f}M "
      f"({count_parameters(bert_models['large']) / 1e6:.1f}M with heads) vs 340M")

# %%
tiny_breakdown = parameter_breakdown(model)
plot_parameter_breakdown({f"BERT-{s}": b for s, b in breakdowns.items()},
                         title="BERT's parameters by component (millions)")
plt.show()
print(f"the tiny BERT of section 5: {count_parameters(model):,} parameters, "
      f"{tiny_breakdown['token embeddings'] / count_parameters(model):.0%} of them in the token embedding")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercises
#
# **Exercise 1.** In the lecture's toy corpus, before any merge, compute the
# WordPiece score $\operatorname{count}(ab) / (\operatorname{count}(a)\operatorname{count}(b))$ of the pair
# (*l*, *o*). Count symbols and pairs weighted by the word counts in `TOY`.

# %%
def exercise_1():
    # your counting here, then return the score of ("l", "o")
    raise NotImplementedError


# The reference is the score the library's WordPiece trainer recorded for its merge of l + o.
_lo = next(m for m in train_bpe(TOY, num_merges=3, score="wordpiece").merges if (m.left, m.right) == ("l", "o"))
exercise_1_reference = _lo.score
check("Exercise 1", exercise_1, exercise_1_reference);

# %% [markdown]
# *Solution (click the cell below to reveal it).*

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
def exercise_1():
    from collections import Counter

    symbols, pairs = Counter(), Counter()
    for word, count in TOY.items():
        for ch in word:
            symbols[ch] += count
        for a, b in zip(word, word[1:]):
            pairs[a, b] += count
    return pairs["l", "o"] / (symbols["l"] * symbols["o"])  # 7 / (7 * 7)


assert check("Exercise 1", exercise_1, exercise_1_reference)

# %% [markdown]
# **Exercise 2.** A batch holds 32 sequences of 128 positions; in each, 2
# positions are `[CLS]`/`[SEP]` and 20 are padding. On average, how many
# positions does BERT's rule replace by `[MASK]`, by a random token, and leave
# unchanged but predict? Return the three expected numbers.

# %%
def exercise_2():
    raise NotImplementedError


# The reference is a simulation: the library masks 300 such batches and we average the counts.
_batch = torch.full((32, 128), 10)
_batch[:, 0], _batch[:, 107], _batch[:, 108:] = vocab["[CLS]"], vocab["[SEP]"], vocab["[PAD]"]
_counts = torch.zeros(3)
_generator = torch.Generator().manual_seed(0)
for _ in range(300):
    _m = mask_tokens(_batch, mask_id=vocab["[MASK]"], special_ids=vocab.special_ids, vocab_size=len(vocab),
                     generator=_generator)
    _counts += torch.tensor([float((_m.action == a).sum()) for a in (MASKED, RANDOMIZED, KEPT)])
exercise_2_reference = _counts / 300
check("Exercise 2", exercise_2, exercise_2_reference, atol=5.0);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 2
def exercise_2():
    ordinary = 32 * (128 - 2 - 20)  # 3,392 tokens that may be chosen
    chosen = MASK_PROB * ordinary  # 508.8 on average
    return torch.tensor([chosen * MASK_TOKEN_PROB, chosen * RANDOM_TOKEN_PROB, chosen * KEEP_PROB])


assert check("Exercise 2", exercise_2, exercise_2_reference, atol=5.0)

# %% [markdown]
# **Exercise 3.** Write `bert_parameters(V, C, L, T)`: the number of parameters
# of a BERT encoder with vocabulary $V$, width $C$, $L$ layers and $T$ positions,
# with 2 segments, the embedding LayerNorm and the pooler, but without the
# pre-training heads. Return its values for BERT-base and BERT-large.

# %%
def bert_parameters(V, C, L, T):
    raise NotImplementedError


def exercise_3():
    return [bert_parameters(30522, 768, 12, 512), bert_parameters(30522, 1024, 24, 512)]


check("Exercise 3", exercise_3, [base_total, large_total]);

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 3
def bert_parameters(V, C, L, T):
    embeddings = (V + T + 2) * C + 2 * C  # token, position, segment tables and their LayerNorm
    layer = 4 * (C * C + C) + (C * 4 * C + 4 * C) + (4 * C * C + C) + 4 * C  # attention, FFN, 2 LayerNorms
    pooler = C * C + C
    return embeddings + L * layer + pooler


assert check("Exercise 3", exercise_3, [base_total, large_total])

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary
#
# - BPE merges the most frequent adjacent pair, again and again; on the lecture's corpus the first merges are *es*, *est*, *lo* (the slide's vocabulary lists *w* twice: 13 symbols, not 14). `dl4nlp.bpe` learns the same 1,000 merges as Hugging Face's trainer on TinyStories.
# - WordPiece scores a pair by count(ab) / (count(a) count(b)) and prefers rare symbols that always occur together.
# - BERT's input is `[CLS] A [SEP] B [SEP]`, embedded as token + segment + position, then LayerNorm.
# - Masking chooses 15 % of the ordinary tokens (never specials or padding); 80 % become `[MASK]`, 10 % a random token, 10 % stay; the loss sees only the chosen positions. The observed rates sit inside their binomial intervals.
# - Next-sentence pairs are half true continuations, half random; RoBERTa later dropped the task.
# - A tiny BERT trained for minutes on TinyStories fills in blanks with story-like words and beats the unigram baseline clearly; more masking gives more predictions but less context.
# - BERT-base has 109.5M parameters (the paper's 110M), BERT-large 335.1M (the paper says 340M, a loose rounding); a fifth of BERT-base is its token embedding.
#
# **Next:** notebook 09 asks how loss falls as models, data and compute grow: scaling laws.
#
# **References**
# - R. Sennrich, B. Haddow, A. Birch, *Neural machine translation of rare words with subword units*, ACL (2016).
# - M. Schuster, K. Nakajima, *Japanese and Korean voice search*, ICASSP (2012); Y. Wu et al., *Google's neural machine translation system*, arXiv (2016).
# - J. Devlin, M.-W. Chang, K. Lee, K. Toutanova, *BERT: Pre-training of deep bidirectional Transformers for language understanding*, NAACL (2019).
# - Y. Liu et al., *RoBERTa: A robustly optimized BERT pretraining approach*, arXiv (2019).
# - R. Xiong et al., *On layer normalization in the Transformer architecture*, ICML (2020).
# - A. Wettig, T. Gao, Z. Zhong, D. Chen, *Should you mask 15% in masked language modeling?*, EACL (2023).
# - R. Eldan, Y. Li, *TinyStories: How small can language models be and still speak coherent English?*, arXiv (2023).
# - Hugging Face, *tokenizers* (the BPE trainer used as the reference in section 1c).
