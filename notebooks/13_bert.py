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
# # 13 · BERT: pre-train, then adapt
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/dl4nlp-course/dl4nlp/blob/main/notebooks/13_bert.ipynb)
#
# Labels are expensive; text is not. BERT's idea is to *pre-train* one
# Transformer encoder on plain text, by filling in words hidden from it, and
# then to *adapt* it to each task with a few labelled examples. In this
# chapter you build BERT's input and its 15 % / 80-10-10 masking, load a tiny
# BERT pre-trained on *Sherlock Holmes* and TinyStories with the vocabulary of
# chapter 12, and measure the point of it all: adapted to classify sentences,
# tag words, judge sentence pairs and select answer spans, does it beat the
# same model trained from scratch and simple baselines? Then the other
# pre-training objectives (GPT, T5, BART, ELECTRA) on one sentence.
#
# **You will:**
# - build BERT's input (`[CLS] A [SEP] B [SEP]`, three embeddings) and next-sentence pairs;
# - predict BERT's masking counts by hand, then check its masking (and whole-word masking) against the binomial rates;
# - fill in blanks with a tiny BERT trained beforehand, and score it against a unigram baseline;
# - fine-tune it from `[CLS]` with few labels and see when pre-training helps, across seeds;
# - tag the parts of speech of real web text with it, against the same model from scratch and a majority baseline;
# - decode answer spans from start and end scores, and adapt it to sentence pairs and cloze questions;
# - turn one sentence into the training example of BERT, GPT, T5, BART and ELECTRA.
#
# **Prerequisites:** chapters 08 (self-attention), 09 (positional encoding),
# 10 (a GPT: the Transformer block and causal language modelling) and 12
# (tokenizers: the WordPiece vocabulary used here).
#
# **Study time:** about 2 hours for a person; **run time:** about 45 s on a laptop CPU.

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
import dataclasses
import json
import math
import random
import statistics

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F

from dl4nlp.bert import (IGNORE_INDEX, KEEP_PROB, KEPT, MASK_PROB, MASK_TOKEN_PROB, MASKED, RANDOM_TOKEN_PROB,
                         RANDOMIZED, Bert, bert_config, binomial_interval, load_pretrained, mask_tokens, pair_inputs,
                         parameter_breakdown)
from dl4nlp import pair_tasks
from dl4nlp.bert_pretrain import PretrainingData, evaluate
from dl4nlp.data import data_path, md5sum
from dl4nlp.diagrams import bert_diagram, objectives_diagram
from dl4nlp.dialogue import pretraining_documents, task_sets
from dl4nlp.exercises import attempt, check
from dl4nlp.experiments import bert as experiment
from dl4nlp.notebook import claim
from dl4nlp.objectives import causal_lm, masked_lm, replaced_token_detection, span_corruption, text_infilling
from dl4nlp.plots import plot_parameter_breakdown
from dl4nlp.transformer import count_parameters
from dl4nlp.widgets import interactive_figure
from dl4nlp.wordpiece import WordPiece

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. One pre-trained model, adapted everywhere
#
# **Intuition.** A model that has read a lot of text knows a lot about
# language before it sees a single label: which words go together, what a
# question looks like, who is speaking. Pre-training puts that knowledge into
# the weights with a *self-supervised* task, whose labels come from the text
# itself; adapting (fine-tuning) then needs far fewer labelled examples.
# The three families of Transformers pre-train differently:
#
# | family | reads | pre-trained by | examples |
# |---|---|---|---|
# | encoder | the whole input, in both directions | filling in hidden words (masked LM), spotting replaced words | BERT, RoBERTa, ELECTRA |
# | decoder | left to right only | predicting the next word (causal LM), chapter 10 | GPT |
# | encoder-decoder | an encoder reads, a decoder writes | rewriting corrupted text | T5, BART |
#
# BERT (Devlin et al., 2019) is an encoder. Ours is tiny: we pre-trained it
# beforehand (4,000 steps, about 9 minutes of CPU time) on the first 80 % of
# the paragraphs of *The Adventures of Sherlock Holmes* and of TinyStories,
# with the 4,096-piece vocabulary you built in chapter 12; the notebook loads
# it and draws it from its own configuration.
#
# **What BERT bought.** On GLUE's test sets (Devlin et al., 2019, table 1), fine-tuned
# BERT beat the fine-tuned GPT of the year before on every one of the eight tasks below,
# the small data sets included. And BERT need not be fine-tuned at all: used
# *feature-based*, its frozen layers fed to a new tagger for named entities (CoNLL-2003,
# dev F1, table 7), the last four layers concatenated came within 0.3 of fine-tuning
# the whole model; the embedding layer alone was five points behind. Section 6 puts the
# same question, frozen or fine-tuned, to our tiny model.

# %%
glue = {  # MNLI-m, MNLI-mm, QQP, QNLI, SST-2, CoLA, STS-B, MRPC, RTE; and the paper's average
    "OpenAI GPT": ([82.1, 81.4, 70.3, 87.4, 91.3, 45.4, 80.0, 82.3, 56.0], 75.1),
    "BERT-base": ([84.6, 83.4, 71.2, 90.5, 93.5, 52.1, 85.8, 88.9, 66.4], 79.6),
    "BERT-large": ([86.7, 85.9, 72.1, 92.7, 94.9, 60.5, 86.5, 89.3, 70.1], 82.1),
}
ner_dev_f1 = {"fine-tuned BERT-base": 96.4, "frozen: embeddings only": 91.0, "frozen: last hidden layer": 94.9,
              "frozen: second-to-last hidden": 95.6, "frozen: weighted sum of all 12": 95.5,
              "frozen: weighted sum of last four": 95.9, "frozen: last four concatenated": 96.1}
for name, (scores, average) in glue.items():
    print(f"{name:>10}: GLUE average {average} (" + " ".join(f"{x:.1f}" for x in scores) + ")")
for name, f1 in ner_dev_f1.items():
    print(f"{name:>34}: {f1}")

# %% [markdown]
# One choice differs from BERT: our layers are **pre-LN** (a LayerNorm
# *before* each sublayer, as in GPT-2, plus one at the end), where BERT is
# post-LN. Pre-LN trains stably without a carefully tuned learning-rate
# warm-up (Xiong et al., 2020). BERT-base and -large (*Going further*) are
# post-LN, like the originals.

# %%
model, tokenizer = load_pretrained(device=device)
record = json.loads(data_path("tiny_bert.json").read_text())  # how it was trained, and its scores then
print(f"{count_parameters(model):,} parameters, {len(tokenizer):,} WordPiece tokens, "
      f"{record['arguments']['steps']:,} steps of {record['arguments']['batch_size']} pairs; "
      f"pre-LN: {model.config.norm_first}")
bert_diagram(model).draw(title="The tiny BERT, drawn from its config", scale=0.75)
plt.show()

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the model loaded is the one described
claim(f"the loaded model has the {record['results']['parameters']:,} parameters it was trained with, "
      f"and pre-LN layers", record["results"]["parameters"] == count_parameters(model) and model.config.norm_first)
gpt_scores = glue["OpenAI GPT"][0]
claim("the paper's GLUE averages are the means of the nine scores: "
      + ", ".join(f"{statistics.mean(v):.2f}" for v, _ in glue.values()),
      all(abs(statistics.mean(v) - average) < 0.05 for v, average in glue.values()))
claim("BERT-base beats GPT on every one of the nine scores",
      all(b > g for b, g in zip(glue["BERT-base"][0], gpt_scores)))
gap = ner_dev_f1["fine-tuned BERT-base"] - ner_dev_f1["frozen: last four concatenated"]
claim(f"frozen, the last four layers concatenated come within {gap:.1f} of fine-tuning; the embeddings alone are "
      f"{ner_dev_f1['fine-tuned BERT-base'] - ner_dev_f1['frozen: embeddings only']:.1f} behind", abs(gap - 0.3) < 1e-9)
claim("it was trained on the two books shipped with the course (their checksums match)",
      all(record["corpora"][name]["md5"] == md5sum(data_path(name)) for name in record["corpora"]))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. BERT's input: three embeddings, added
#
# BERT reads a *pair* of segments, `[CLS] A [SEP] B [SEP]`. `[CLS]` is a
# position whose final vector summarises the pair (it feeds the next-sentence
# classifier in pre-training and the task's classifier in fine-tuning); `[SEP]`
# closes each segment. Every position's input vector is the sum of three learned
# embeddings, followed by a LayerNorm:
#
# $$x_t = \operatorname{LayerNorm}\big(E_{\text{token}}[w_t] + E_{\text{segment}}[s_t] + E_{\text{position}}[t]\big).$$
#
# Here is the lecture's pair, tokenized with our vocabulary. In ours, as in
# BERT's, *playing* is one piece, so the pair has 10 positions, not the 11 of
# the lecture's figure.

# %%
# NBVAL_CHECK_OUTPUT
tokens, segments, positions = pair_inputs(tokenizer.tokenize("my dog is cute"), tokenizer.tokenize("he likes playing"))
rows = {"input": tokens, "token embedding": [f"E[{t}]" for t in tokens],
        "segment embedding": ["E_A" if s == 0 else "E_B" for s in segments],
        "position embedding": [f"E_{p}" for p in positions]}
widths = [max(len(rows[r][i]) for r in rows) for i in range(len(tokens))]
for name, cells in rows.items():
    print(f"{name:>18} | " + " ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip())

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the pair's segments and positions
claim(f"the pair has {len(tokens)} positions: 6 in segment A ([CLS] my dog is cute [SEP]), 4 in B, numbered 0 to 9",
      segments == [0] * 6 + [1] * 4 and positions == list(range(10)))

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
# rule.
#
# **Exercise 1 (predict, then run).** A batch holds 32 sequences of 128
# positions; in each, 2 positions are `[CLS]`/`[SEP]` and 20 are padding. On
# average, how many positions does BERT's rule replace by `[MASK]`, by a random
# token, and leave unchanged but predict? Work it out by hand; the check
# compares with what `mask_tokens` does to 100 such batches.

# %%
def exercise_1():
    raise NotImplementedError  # return the three expected counts: [MASK], random, unchanged


_batch = torch.full((32, 128), 10)  # the reference: the library masks 100 such batches; we average the counts
_batch[:, 0], _batch[:, 107], _batch[:, 108:] = tokenizer["[CLS]"], tokenizer["[SEP]"], tokenizer["[PAD]"]
_generator, _counts = torch.Generator().manual_seed(0), torch.zeros(3)
for _ in range(100):
    _m = mask_tokens(_batch, mask_id=tokenizer["[MASK]"], special_ids=tokenizer.special_ids,
                     vocab_size=len(tokenizer), generator=_generator)
    _counts += torch.tensor([float((_m.action == a).sum()) for a in (MASKED, RANDOMIZED, KEPT)])
exercise_1_reference = _counts / 100
solved_1 = check("Exercise 1", exercise_1, exercise_1_reference, atol=6.0, names=["[MASK]", "random", "unchanged"])

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
def exercise_1():
    ordinary = 32 * (128 - 2 - 20)  # 3,392 tokens that may be chosen
    chosen = MASK_PROB * ordinary  # 508.8 on average
    return torch.tensor([chosen * MASK_TOKEN_PROB, chosen * RANDOM_TOKEN_PROB, chosen * KEEP_PROB])


assert check("Exercise 1", exercise_1, exercise_1_reference, atol=6.0, names=["[MASK]", "random", "unchanged"])
solved_1 = True

# %% [markdown]
# The pre-training text is encoded once (`PretrainingData`) and cut into pairs
# of segments. One pair, masked with a 30 % rate so that a short pair shows
# several choices:

# %%
documents = {"train": pretraining_documents("train"), "held_out": pretraining_documents("held_out")}
data = PretrainingData(documents, tokenizer)
example = data.batch(data.pairs(1, random.Random(3)), torch.Generator().manual_seed(5), mask_prob=0.3)
original = torch.where(example["labels"] != IGNORE_INDEX, example["labels"], example["input_ids"])[0]
print("original :", tokenizer.decode(original))
print("model in :", " ".join(tokenizer.itos[i] for i in example["input_ids"][0]))
print("targets  :", " ".join(tokenizer.itos[t] if t != IGNORE_INDEX else "_" for t in example["labels"][0].tolist()))

# %% [markdown]
# **Compare with the probabilities.** Over many samples the counts must look
# like draws from binomial distributions: the number of chosen tokens among $n$
# ordinary ones is $\text{Binomial}(n, 0.15)$, and among the chosen ones the
# `[MASK]`, random and unchanged counts are $\text{Binomial}(\cdot, 0.8)$,
# $(\cdot, 0.1)$, $(\cdot, 0.1)$. `binomial_interval` gives the counts within 4
# standard deviations of the mean (a correct sampler lands outside with
# probability about 6 in 100,000).

# %%
big = data.batch(data.pairs(4000, random.Random(0)), torch.Generator().manual_seed(0))
ids = torch.where(big["labels"] != IGNORE_INDEX, big["labels"], big["input_ids"])  # (B, T) original tokens
masked = mask_tokens(ids, mask_id=tokenizer["[MASK]"], special_ids=tokenizer.special_ids, vocab_size=len(tokenizer),
                     generator=torch.Generator().manual_seed(1))
ordinary = ~torch.isin(ids, torch.tensor(tokenizer.special_ids))  # not [CLS], [SEP], [PAD], ...
n, chosen = int(ordinary.sum()), int(masked.chosen.sum())
rates = [("chosen among ordinary tokens", chosen, n, MASK_PROB)]
for name, code, p in [("[MASK] among chosen", MASKED, MASK_TOKEN_PROB), ("random among chosen", RANDOMIZED,
                      RANDOM_TOKEN_PROB), ("unchanged among chosen", KEPT, KEEP_PROB)]:
    rates.append((name, int((masked.action == code).sum()), chosen, p))
for name, count, trials, p in rates:
    low, high = binomial_interval(trials, p)
    print(f"{name:>29}: {count:6d} of {trials:6d} = {count / trials:.4f} (expected {p}, interval {low:.0f}-{high:.0f})")

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** How BERT's released code did it: Google's `create_pretraining_data.py` does not
# choose each token with probability 0.15. For every sequence it fixes the number of
# targets, round(0.15 × length) with the length counting `[CLS]` and both `[SEP]`, at
# least 1 and at most `max_predictions_per_seq` (20 for 128-token sequences); it
# shuffles the other positions and takes the first ones. Each chosen position becomes
# `[MASK]` with probability 0.8, and otherwise keeps its token or takes a random one
# with equal odds, the random one drawn from the whole vocabulary. With whole-word
# masking the candidates are whole words, and a word whose pieces would overshoot the
# count is skipped, so still about 15 % of the pieces are predicted. Ours differs in
# three ways: a binomial number of targets instead of a fixed one (the same on
# average), random replacements from the ordinary tokens only, and, below,
# whole-word masking that chooses each word with probability 0.15.

# %%
def bert_targets(length, max_predictions=20, rate=0.15):
    """The number of positions BERT's create_pretraining_data.py predicts in a sequence of ``length`` tokens."""
    return min(max_predictions, max(1, round(length * rate)))


print({length: bert_targets(length) for length in (8, 32, 64, 128)})

# %% [markdown]
# **Which random token?** Our library draws a random replacement from the
# *ordinary* tokens only. Hugging Face's `DataCollatorForLanguageModeling` (its
# `torch_mask_tokens`) draws from the whole vocabulary, so a replacement can be
# `[CLS]`, `[PAD]` or, with BERT's vocabulary, one of its `[unusedN]`
# placeholders: a signal the model never meets in real text. How often?

# %%
# NBVAL_CHECK_OUTPUT
bert_vocab = WordPiece.from_file(data_path("bert_base_uncased_vocab.txt"))
bert_non_words = [t for t in bert_vocab.itos if t.startswith("[") and t.endswith("]")]
for name, vocab, non_words in [("ours", tokenizer, tokenizer.specials), ("bert-base-uncased", bert_vocab,
                                                                          bert_non_words)]:
    share = len(non_words) / len(vocab)
    print(f"{name:>17}: {len(non_words):3d} of {len(vocab):,} entries are not words -> {share:.2%} of random "
          f"replacements, {MASK_PROB * RANDOM_TOKEN_PROB * share:.3%} of all tokens")

# %% [markdown]
# **Whole-word masking.** BERT masks word pieces independently, so it may hide
# `##ably` and leave `un ##be ##lie ##v` visible, an easy guess. *Whole-word
# masking* (added to BERT's release after the paper) chooses whole words:
# a word is chosen with probability 15 %, and then all of its pieces are
# predicted. `mask_tokens(..., word_start=...)` does this; a piece starts a word
# when it does not begin with `##`.

# %%
text = "Sherlock Holmes was unbelievably happy and remarkably talkative."
sentence = tokenizer.encode(text)
row = torch.tensor([[tokenizer["[CLS]"], *sentence, tokenizer["[SEP]"]]] * 2000)  # (2000, T): one sentence, many draws
starts = torch.tensor([tokenizer.is_word_start(r.tolist()) for r in row])
whole = mask_tokens(row, mask_id=tokenizer["[MASK]"], special_ids=tokenizer.special_ids, vocab_size=len(tokenizer),
                    word_start=starts, generator=torch.Generator().manual_seed(0))
word_of = starts.long().cumsum(1)  # (2000, T): which word each piece belongs to
split_words = [w for w in word_of[0].unique().tolist() if int((word_of[0] == w).sum()) > 1]
print("pieces:", tokenizer.tokenize(text))
print(f"{len(split_words)} words of several pieces; share of draws in which the first word is chosen: "
      f"{whole.chosen[:, 1].float().mean():.3f}")

# %% [markdown]
# ### Play with it
#
# Change the rate, the `[MASK]` share, and how the rest of the chosen tokens
# is split between a random token and the unchanged one (BERT: half and half).
# The bars compare what `mask_tokens` did on 500 of the pairs with what the
# probabilities promise.

# %%
interactive_figure(
    experiment.masking_drawer(ids[:500], tokenizer),
    mask_prob=widgets.FloatSlider(value=0.15, min=0.0, max=1.0, step=0.05, description="mask_prob"),
    mask_token_prob=widgets.FloatSlider(value=0.8, min=0.0, max=1.0, step=0.05, description="[MASK]"),
    random_share_of_rest=widgets.FloatSlider(value=0.5, min=0.0, max=1.0, step=0.05, description="random / rest"),
)

# %% [markdown]
# **The loss sees only the chosen positions.** Labels elsewhere are −100,
# which `F.cross_entropy` skips. So the loss over the whole (B, T) grid equals
# the mean over the chosen positions alone, and a model is never rewarded for
# copying the tokens it can see.

# %%
sub_labels = masked.labels[:64]  # (64, T)
logits = torch.randn(*sub_labels.shape, len(tokenizer), generator=torch.Generator().manual_seed(0))  # (64, T, V)
everywhere = F.cross_entropy(logits.reshape(-1, len(tokenizer)), sub_labels.reshape(-1))  # skips the -100 labels
only_chosen = F.cross_entropy(logits[sub_labels != IGNORE_INDEX], sub_labels[sub_labels != IGNORE_INDEX])
print(f"loss over the grid {everywhere:.4f}, loss over the chosen positions {only_chosen:.4f}")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: BERT's masking, its rates and its rules
for name, count, trials, p in rates:
    low, high = binomial_interval(trials, p)
    claim(f"{name}: {count:,} of {trials:,} is inside the interval {low:.0f}-{high:.0f} around {p}",
          low <= count <= high)
special = ~ordinary
claim(f"none of the {int(special.sum()):,} special and padding positions is chosen or changed",
      not masked.chosen[special].any() and torch.equal(masked.input_ids[special], ids[special]))
claim("a random replacement is never a special token",
      not torch.isin(masked.input_ids[masked.action == RANDOMIZED], torch.tensor(tokenizer.special_ids)).any())
claim("the labels hold the original token exactly where a token was chosen, and -100 everywhere else",
      torch.equal(masked.labels[masked.chosen], ids[masked.chosen])
      and bool((masked.labels[~masked.chosen] == IGNORE_INDEX).all()))
claim(f"bert-base-uncased has {len(bert_non_words)} non-words, {len(bert_non_words) / len(bert_vocab):.2%} "
      "of its vocabulary", len(bert_non_words) == 999
      and math.isclose(len(bert_non_words) / len(bert_vocab), 0.0327, abs_tol=5e-5))
whole_words = all(bool((whole.chosen[:, word_of[0] == w].all(1) | ~whole.chosen[:, word_of[0] == w].any(1)).all())
                  for w in split_words)
claim(f"whole-word masking chooses each of the {len(split_words)} split words whole or not at all", whole_words)
low, high = binomial_interval(2000, MASK_PROB)
claim(f"and chooses the first word in {int(whole.chosen[:, 1].sum())} of 2,000 draws (interval {low:.0f}-{high:.0f})",
      low <= int(whole.chosen[:, 1].sum()) <= high)
claim(f"BERT's code predicts a fixed {bert_targets(128)} positions in every 128-token sequence (round(0.15 x 128), "
      "under its cap of 20)", bert_targets(128) == 19 and bert_targets(8) == 1)
claim(f"the loss with -100 labels ({everywhere:.4f}) equals the loss over the chosen positions ({only_chosen:.4f})",
      torch.allclose(everywhere, only_chosen))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. Next-sentence prediction
#
# BERT's second task: given segments A and B, did B follow A in the text
# (*IsNext*), or was it taken from somewhere else (*NotNext*)? Half of the pairs
# are each. `PretrainingData.pairs` builds them: segment A is one or more
# consecutive sentences of a paragraph; B is what follows in that paragraph, or
# sentences from a different paragraph.

# %%
pairs = data.pairs(2000, random.Random(0))
shown = [p for p in pairs if p[2]][:2] + [p for p in pairs if not p[2]][:2]  # two of each kind
for a, b, is_next in shown:
    print(f"{'IsNext ' if is_next else 'NotNext'} | A: {tokenizer.decode(a)}\n        | B: {tokenizer.decode(b)}")

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Later work (RoBERTa; Liu et al., 2019) found that dropping next-sentence
# prediction and training on longer contiguous text works at least as well; the
# masked language model is what matters.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: half the pairs are IsNext, and only they are consecutive text
corpus_index = "\n".join(" ".join(" ".join(map(str, s)) for s in doc) for doc in data.documents["train"])


def contiguous(a, b):
    return (" ".join(map(str, a + b))) in corpus_index


is_next_count = sum(p[2] for p in pairs)
low, high = binomial_interval(len(pairs), 0.5)
claim(f"{is_next_count} of {len(pairs):,} pairs are IsNext (interval {low:.0f}-{high:.0f} around half)",
      low <= is_next_count <= high)
half = (model.config.max_len - 3) // 2  # the longest segment A (PretrainingData.pairs cuts a longer one)
true_next = [contiguous(a, b) for a, b, is_next in pairs[:300] if is_next and len(a) < half]
false_next = [contiguous(a, b) for a, b, is_next in pairs[:300] if not is_next]
claim(f"every IsNext pair of the first 300 (A not cut) is consecutive text: {sum(true_next)} of {len(true_next)}",
      all(true_next))
claim(f"at most 2 % of NotNext pairs are: {sum(false_next)} of {len(false_next)}",
      sum(false_next) <= 0.02 * len(false_next))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. The pre-trained tiny BERT
#
# `dl4nlp.bert.Bert` is BERT's architecture around
# `dl4nlp.transformer.TransformerEncoder`: the three embeddings and a LayerNorm,
# the encoder, an MLM head (a dense layer, GELU, LayerNorm and an output layer
# that shares its weights with the token embedding) and an NSP head on the
# pooled `[CLS]` vector. It was trained with masked LM and next-sentence
# prediction, AdamW, a linear warm-up and a linear decay, as BERT was, only
# much smaller and shorter. Side by side with BERT's paper (Devlin et al.,
# 2019, appendix A.2):

# %%
# NBVAL_CHECK_OUTPUT
for field, (theirs, ours) in experiment.compare_with_paper(record).items():
    print(f"{field:>11}  BERT: {theirs}\n{'':>11}  ours: {ours}")

# %% [markdown]
# BERT trained 90 % of its steps on 128-token sequences and only the last 10 % on
# 512, so it saw at most 256 × (0.9 × 128 + 0.1 × 512) × 10⁶ ≈ 4.3 × 10¹⁰ tokens, not
# the 256 × 512 × 10⁶ ≈ 1.3 × 10¹¹ that the batch of its last steps suggests (a
# threefold overstatement): about five thousand times as many as ours, both counted
# as if every sequence were full. Our model is a sketch,
# not a replica. How good is the sketch? `top_predictions` puts `[MASK]` where
# the text says so and returns the model's five most probable pieces at each
# blank.

# %%
@torch.no_grad()
def top_predictions(text, k=5):
    """Top-k (piece, probability) at every [MASK] of ``text``."""
    parts = text.split("[MASK]")
    ids = [tokenizer["[CLS]"]]
    for i, part in enumerate(parts):
        ids += tokenizer.encode(part)
        if i < len(parts) - 1:
            ids.append(tokenizer["[MASK]"])
    ids = torch.tensor([ids + [tokenizer["[SEP]"]]], device=device)
    probs = torch.softmax(model.mlm_logits(model(ids), ids == tokenizer["[MASK]"]), dim=-1)  # (blanks, V)
    top = probs.topk(k, dim=-1)
    return [[(tokenizer.itos[i], p) for i, p in zip(idx.tolist(), val.tolist())] for val, idx in zip(*top)]


def show(text):
    print(text)
    for n, predictions in enumerate(top_predictions(text), start=1):
        print(f"   blank {n}: " + ", ".join(f"{w} {p:.2f}" for w, p in predictions))


show("the man went to the [MASK] to buy a [MASK] of milk.")
show("once upon a time, there was a little [MASK] named lily.")
show("i have no doubt, said [MASK], that you are right.")

# %% [markdown]
# Where the books are clear, so is the model: a little *girl* named Lily, and
# *Holmes* as the one who says so. The lecture's sentence gets places and
# quantities from the stories, with low confidence.
#
# **How good is it?** On 512 held-out pairs (paragraphs it never trained on),
# masked as in training, we count how often the model's top piece is the
# hidden one, against the **unigram baseline**: always answer the most
# frequent piece of the training text.

# %%
results_live = evaluate(model, data, n_pairs=512)
print(f"masked-token accuracy on held-out text: {results_live['masked_accuracy']:.3f} "
      f"over {results_live['predicted_tokens']} predicted tokens")
print(f"unigram baseline (always '{results_live['unigram_token']}'): {results_live['unigram_accuracy']:.3f}")
print(f"next-sentence accuracy on held-out pairs: {results_live['nsp_accuracy']:.3f} (chance: 0.5)")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: what the tiny BERT knows
tokens_ours = record["arguments"]["steps"] * record["arguments"]["batch_size"] * record["arguments"]["max_len"]
claim(f"BERT's upper bound is {experiment.PAPER_TOKENS / tokens_ours:,.0f} times ours (more than 5,000), and "
      f"256 x 512 x 10^6 would overstate it {256 * 512 * 1e6 / experiment.PAPER_TOKENS:.2f}-fold (about three)",
      experiment.PAPER_TOKENS / tokens_ours > 5_000 and 2.9 < 256 * 512 * 1e6 / experiment.PAPER_TOKENS < 3.2)
lily = top_predictions("once upon a time, there was a little [MASK] named lily.")[0]
holmes = top_predictions("i have no doubt, said [MASK], that you are right.")[0]
claim(f"a little ___ named lily: '{lily[0][0]}' at {lily[0][1]:.2f}, more than twice the runner-up's {lily[1][1]:.2f}",
      lily[0][0] == "girl" and lily[0][1] > 2 * lily[1][1])
claim(f"said ___: '{holmes[0][0]}' at {holmes[0][1]:.2f}, more than three times the runner-up's {holmes[1][1]:.2f}",
      holmes[0][0] == "holmes" and holmes[0][1] > 3 * holmes[1][1])
ratio = results_live["masked_accuracy"] / results_live["unigram_accuracy"]
claim(f"masked-token accuracy {results_live['masked_accuracy']:.3f} is {ratio:.1f} times the unigram baseline's "
      f"{results_live['unigram_accuracy']:.3f} (more than 2.5 times)",
      results_live["masked_accuracy"] > 2.5 * results_live["unigram_accuracy"])
claim(f"next-sentence accuracy {results_live['nsp_accuracy']:.3f} is above 0.65 (chance 0.5)",
      results_live["nsp_accuracy"] > 0.65)
# The scores when the model was saved (float32, before its weights were stored as float16): the same to 0.01.
keys = ("masked_accuracy", "unigram_accuracy", "nsp_accuracy")
claim("the three scores are within 0.01 of those measured when the model was trained: "
      + ", ".join(f"{record['results'][k]:.3f}" for k in keys),
      all(abs(results_live[k] - record["results"][k]) < 0.01 for k in keys))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. Adapting: dialogue or narration?
#
# **The task.** Take a sentence from one of the two books and remove every
# quotation mark. Was it spoken by a character, or told by the narrator? The
# label comes from the text itself, but once the marks are gone the model has
# to hear speech in the words (Watson narrates *Sherlock Holmes* in the first
# person, so *I* and *my* occur on both sides). Mixed sentences are left out.
#
# Three splits: training sentences from the paragraphs the tiny BERT was
# pre-trained on; 240 validation sentences from the same paragraphs (for
# choosing learning rates); 640 test sentences from the held-out paragraphs.
# Every split has a quarter from each (book, label) pair.

# %%
sets = task_sets()
for name in ("train", "validation", "test"):
    counts = {(book[:8], label): 0 for book in ("sherlock", "tinystor") for label in (0, 1)}
    for e in sets[name]:
        counts[e.corpus[:8], e.label] += 1
    print(f"{name:>10}: {len(sets[name]):6,} sentences; (book, label) counts {counts}")
for e in [e for e in sets["test"] if e.corpus.startswith("sherlock")][:4]:
    print(f"   {['narration', 'dialogue'][e.label]:>9}: {e.text}")

# %% [markdown]
# **Fine-tuning from `[CLS]`.** BERT adapts to a classification task with one
# new layer: the pooled `[CLS]` vector, $\tanh(W h_{[CLS]} + b)$ (the pooler that
# next-sentence prediction pre-trained), goes through dropout and a linear layer
# to the class scores, and *every* weight is then trained on the labelled
# examples (`dl4nlp.finetune`). We compare four ways to use $n$ labels:
#
# - **pre-trained**: fine-tune the pre-trained tiny BERT;
# - **from scratch**: the same architecture and schedule, from random weights;
# - **linear probe**: keep the pre-trained encoder frozen and fit logistic
#   regression on its pooled `[CLS]` vector;
# - **bag of words**: logistic regression on which words occur (the classical
#   baseline, and the check that the label is not trivially in the words).

# %%
bert_diagram(model, head="classifier").draw(title="Fine-tuning: the classifier on the pooled [CLS]", scale=0.75)
plt.show()

# %% [markdown]
# **The learning curve.** We ran every method beforehand (about 13 minutes)
# at 5 label budgets, from 32 to 512 sentences, with 3 seeds each (the seed
# draws the sentences, the new head and the mini-batches), every budget and
# method with the same 96 steps of 32 sentences, so that only the number of
# labels varies. Each method's setting (learning rate, or the regression's
# weight decay) was chosen on the validation sentences, from a grid extended
# until both ends scored worse than the chosen setting.
#
# **Exercise 2 (predict, then run).** Before running the next cell, predict:
# with 32 labels, does the frozen pre-trained encoder (the linear probe) beat
# the model trained from scratch? And at 512 labels, is the probe still more
# than 5 points ahead?

# %%
curve_rows = experiment.load_learning_curve()
curve = experiment.curve_summary(curve_rows)
rows_classification = [r for r in curve_rows if r["task"] == "classification"]
probe_gain = {b: experiment.gains_by_seed(rows_classification, b, method="probe") for b in sorted(curve["probe"])}
fine_tune_gain = {b: experiment.gains_by_seed(rows_classification, b) for b in sorted(curve["pretrained"])}
prediction_2 = None  # your prediction, as a dict: {"probe ahead at 32": ..., "more than 5 points ahead at 512": ...}
solved_2 = check("Exercise 2", prediction_2, {"probe ahead at 32": statistics.mean(probe_gain[32]) > 0,
                                              "more than 5 points ahead at 512": statistics.mean(probe_gain[512]) > 0.05})

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 2
prediction_2 = {"probe ahead at 32": True, "more than 5 points ahead at 512": False}
assert check("Exercise 2", prediction_2, {"probe ahead at 32": statistics.mean(probe_gain[32]) > 0,
                                          "more than 5 points ahead at 512": statistics.mean(probe_gain[512]) > 0.05})
solved_2 = True

# %%
budgets = sorted(curve["pretrained"])
print(experiment.curve_table(curve))
experiment.plot_learning_curve(curve)
plt.show()
for b in budgets:
    print(f"{b:5d} labels: probe - scratch {statistics.mean(probe_gain[b]):+.3f}, "
          f"fine-tuned - scratch {statistics.mean(fine_tune_gain[b]):+.3f} (mean of {len(probe_gain[b])} seeds)")

# %%
# the validation accuracy of every setting tried (mean over 2 budgets x 2 seeds); * marks the chosen one
chosen_setting = experiment.chosen_settings()
validation = {}
for r in curve_rows:
    if r["task"] == "validation":
        validation.setdefault(r["method"], {}).setdefault(float(r["setting"]), []).append(r["accuracy"])
validation = {m: {k: statistics.mean(v) for k, v in sorted(by.items())} for m, by in validation.items()}
for method, means in validation.items():
    print(f"{method:>12}: " + "  ".join(f"{k:g}{'*' if k == chosen_setting[method] else ''} {a:.3f}"
                                        for k, a in means.items()))

# %% [markdown]
# **What it shows.** Pre-training is worth most when labels are few, and the
# gain shrinks as labels grow. With 256 labels or fewer, the frozen
# pre-trained features alone (the linear probe) beat the same architecture
# trained from scratch by more than 5 points for every seed, and fine-tuning
# it beats scratch by more than 5 points on average. Both gains fall at every
# step up in the budget; at 512 labels both mean gaps are under 4 points. With
# equal steps, this is the labels' doing: from scratch rises by more than 15
# points from 32 to 512 labels, while the pre-trained model starts high.
#
# Two caveats at this scale. Fine-tuning *all* weights buys nothing over the
# frozen probe: less than 2 points ahead up to 128 labels, behind at 256 and
# 512. That is not where the grids stopped (the table above): every chosen
# setting beats both ends of its grid, and fine-tuning is within half a point
# on validation from $10^{-4}$ to $3\times10^{-3}$, worse at $3\times10^{-5}$ and
# $10^{-2}$. And neither beats a bag of words: both are within 3 points of it at
# every budget (with 32 labels it gets about three sentences in four right).
# The label is largely in which words occur. What pre-training gives is a model
# of the *same architecture* that needs far fewer labels.
#
# **A live version.** 64 labels, one seed, 240 test sentences, the same
# settings and 96 steps (fine-tuning the pre-trained model stays in the curve).

# %%
live = experiment.few_labels(seed=0, methods=["probe", "bag_of_words"])  # loads the model and the sentences
print(f"{live.budget} labels, {live.test} test sentences: linear probe on the pre-trained model {live.probe:.3f}, "
      f"bag of words {live.bag_of_words:.3f}")

# %%
live_scratch = experiment.few_labels(seed=0, methods=["scratch"])  # about 8 s: 96 steps of training
live = dataclasses.replace(live, scratch=live_scratch.scratch)  # the same labels and test sentences
print(f"from scratch {live.scratch:.3f}")

# %% [markdown]
# **A token-level task.** Tag every word of a sentence as inside or outside
# quotation marks, the marks removed: *come in , said tom .* → 1 1 1 0 0 0.
# Now the model must find where speech starts and stops, from the words around
# each position; the head is a linear layer on every position's final vector
# (`dl4nlp.finetune.TokenTagger`). We ran this task beforehand too, with 32 and
# 128 tagged sentences, 3 seeds and 400 test sentences:

# %%
tags = experiment.curve_summary(curve_rows, task="tagging")
for b in sorted(tags["pretrained"]):
    print(f"{b:4d} tagged sentences: " + ", ".join(f"{m} {tags[m][b][0]:.3f} ± {tags[m][b][1]:.3f}" for m in tags))
tag_gain = {b: experiment.gains_by_seed(curve_rows, b, task="tagging") for b in sorted(tags["pretrained"])}

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: when pre-training helps, on the learning curve and live
texts = {name: {e.text for e in sets[name]} for name in sets}
claim("the training, validation and test sentences are three disjoint sets",
      not (texts["train"] & texts["test"]) and not (texts["validation"] & texts["test"])
      and not (texts["train"] & texts["validation"]))
claim("no quotation mark is left in a test sentence",
      not any(mark in e.text for e in sets["test"] for mark in "“”\"‘"))
steps = {r["steps"] for r in curve_rows}
claim(f"every budget and every method had the same {experiment.CURVE_STEPS} steps", steps == {experiment.CURVE_STEPS})
for name, gain in (("linear probe", probe_gain), ("fine-tuned model", fine_tune_gain)):
    means = [statistics.mean(gain[b]) for b in budgets]
    claim(f"the {name}'s mean gain over scratch falls at every budget: "
          + ", ".join(f"{m:+.3f}" for m in means), all(a > b for a, b in zip(means, means[1:])))
    claim(f"at 512 labels it is under 4 points: {means[-1]:+.3f}", statistics.mean(gain[512]) < 0.04)
for b in (32, 64, 128, 256):
    claim(f"{b} labels: the probe beats scratch by more than 5 points on every seed (least {min(probe_gain[b]):+.3f}); "
          f"fine-tuning on average ({statistics.mean(fine_tune_gain[b]):+.3f})",
          min(probe_gain[b]) > 0.05 and statistics.mean(fine_tune_gain[b]) > 0.05)
scratch = [curve["scratch"][b][0] for b in budgets]
claim(f"from scratch rises at every budget, by {scratch[-1] - scratch[0]:.3f} from 32 to 512 labels (more than 0.15)",
      all(a < b for a, b in zip(scratch, scratch[1:])) and scratch[-1] - scratch[0] > 0.15)
claim("fine-tuning is ahead of the probe by less than 2 points at 32, 64 and 128 labels",
      all(0 < curve["pretrained"][b][0] - curve["probe"][b][0] < 0.02 for b in (32, 64, 128)))
claim("and behind it at 256 and 512", all(curve["pretrained"][b][0] < curve["probe"][b][0] for b in (256, 512)))
gaps = [abs(curve[m][b][0] - curve["bag_of_words"][b][0]) for b in budgets for m in ("probe", "pretrained")]
claim(f"the probe and the fine-tuned model are within 3 points of the bag of words at every budget "
      f"(largest gap {max(gaps):.3f})", max(gaps) < 0.03)
claim(f"with 32 labels the bag of words gets about three in four right: {curve['bag_of_words'][32][0]:.3f}",
      0.70 < curve["bag_of_words"][32][0] < 0.80)
for method, means in validation.items():
    settings, best = list(means), chosen_setting[method]
    claim(f"{method}: the chosen setting {best:g} ({means[best]:.3f} on validation) scores above both ends of its "
          f"grid ({settings[0]:g}: {means[settings[0]]:.3f}, {settings[-1]:g}: {means[settings[-1]]:.3f})",
          means[settings[0]] < means[best] and means[settings[-1]] < means[best])
flat = [a for k, a in validation["pretrained"].items() if 1e-4 <= k <= 3e-3]
claim(f"fine-tuning's validation accuracy varies by {max(flat) - min(flat):.3f} from 1e-4 to 3e-3 (under 0.005), "
      "and is lower at both ends of its grid", max(flat) - min(flat) < 0.005
      and max(validation["pretrained"][k] for k in (3e-5, 1e-2)) < min(flat))
claim(f"live, 64 labels: the probe beats scratch by more than 5 points ({live.probe - live.scratch:+.3f})",
      live.probe - live.scratch > 0.05)
claim(f"tagging with 32 sentences: fine-tuning beats scratch by more than 5 points on average "
      f"({statistics.mean(tag_gain[32]):+.3f})", statistics.mean(tag_gain[32]) > 0.05)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 7. Tagging words: parts of speech on web text
#
# A real token-level task: give every word its **part of speech**, one of the
# 17 universal tags (NOUN, VERB, ADP, PUNCT, ...), on the English Web Treebank
# (EWT: blogs, emails, reviews, hand-annotated; Silveira et al., 2014). A linear
# layer on every position tags; as BERT's paper does for named entities, a
# word's tag is read from its **first piece** only.
#
# The 2,001 sentences of EWT's dev file are the labelled pool. Of its test file
# we keep sentences the dev file lacks that fit in 64 positions: 300 choose the
# learning rate, 1,000 are the test set. The baseline: each word's most frequent
# tag in the labelled sentences, the most frequent tag for unknown words.

# %%
# NBVAL_CHECK_OUTPUT
pos = experiment.pos_sets()
pos_texts = {name: {text for _, _, text in sentences} for name, sentences in pos.items()}
print({name: len(sentences) for name, sentences in pos.items()})
pos_words, pos_tags, _ = pos["test"][1]
pos_pieces = [tokenizer.encode(w) for w in pos_words]
print(" ".join(f"{w}/{experiment.UPOS[t]}" for w, t in zip(pos_words, pos_tags)))
print("pieces, the tag on the first:", " ".join(
    " ".join(tokenizer.itos[p] + (f"/{experiment.UPOS[t]}" if i == 0 else "") for i, p in enumerate(ps))
    for ps, t in zip(pos_pieces, pos_tags)))

# %% [markdown]
# Live: the tiny BERT fine-tuned for 20 steps on 128 sentences, and the
# baseline, on 200 test sentences.

# %%
pos_live = experiment.pos_live(seed=0)
noun_share = sum(t == experiment.UPOS.index("NOUN") for s in pos["test"][:200] for t in s[1]) / sum(
    len(s[1]) for s in pos["test"][:200])
print(f"fine-tuned: {pos_live['pretrained']:.3f}   majority tag per word: {pos_live['majority']:.3f}   "
      f"always NOUN: {noun_share:.3f}")

# %% [markdown]
# We ran the full comparison beforehand (about 35 minutes; the notebook loads
# it): learning rates chosen from 0.0003, 0.001, 0.003 and 0.01 on the
# validation sentences; 32 to 2,001 labelled sentences, two seeds, 48 to 128
# steps, and the same architecture from scratch with the same schedule.

# %%
pos_rows = experiment.load_pos_curve()
pos_curve = experiment.curve_summary(pos_rows, task="test")
pos_chosen = experiment.pos_chosen()
pos_validation = {(r["method"], r["lr"]): r["accuracy"] for r in pos_rows if r["task"] == "validation" and r["lr"]}
print("validation accuracy by learning rate:")
for method in ("pretrained", "scratch"):
    print(f"  {method:10s}", "  ".join(f"{lr:g}: {pos_validation[method, lr]:.3f}" for lr in experiment.POS_LEARNING_RATES),
          f"-> {pos_chosen[method]:g}")
print(experiment.curve_table(pos_curve))
experiment.plot_pos_curve(pos_curve)
plt.show()

# %% [markdown]
# **What it shows.** At every budget, for both seeds, pre-training beats the
# same model from scratch by more than 4 points. The majority tag per word is a
# hard baseline: from scratch never reaches it, even with 2,001 sentences; the
# pre-trained model beats it everywhere, with 32 sentences by only 1 to 3
# points. Both validation curves peak inside the grid (0.003 pre-trained, 0.001
# from scratch). Keep the scale in mind: this BERT read two books (Sherlock
# Holmes, TinyStories), never web text, and is fine-tuned for at most 128
# steps; BERT-base on EWT is another story.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: tagging EWT, the tiny BERT against scratch and the majority baseline (2 seeds; claims tests)
claim(f"no test or validation sentence's text is in the labelled pool ({len(pos['test']):,}, "
      f"{len(pos['validation'])} and {len(pos['train']):,} sentences)",
      not (pos_texts["test"] | pos_texts["validation"]) & pos_texts["train"] and len(pos["test"]) == 1000)
repeated = [t for _, _, t in pos["test"] if t in pos_texts["validation"]]
claim(f"test and validation are different sentences; {len(repeated)} test texts recur in validation, as EWT's test "
      f"file repeats them ({sorted(set(repeated))[:3]} ...)", len(repeated) <= 7)
claim(f"live: 20 steps take the tagger to {pos_live['pretrained']:.3f}, more than twice always-NOUN's {noun_share:.3f}",
      pos_live["pretrained"] > 2 * noun_share)
pos_by_rate = {m: {r["lr"]: r["accuracy"] for r in pos_rows if r["task"] == "validation" and r["method"] == m}
               for m in ("pretrained", "scratch")}
pos_grid = experiment.POS_LEARNING_RATES
claim(f"each learning rate is the validation optimum and inside the grid {pos_grid[0]:g} to {pos_grid[-1]:g}: {pos_chosen}",
      all(pos_grid[0] < pos_chosen[m] < pos_grid[-1] and max(pos_by_rate[m], key=pos_by_rate[m].get) == pos_chosen[m]
          for m in pos_by_rate))
pos_score = {(r["seed"], r["budget"], r["method"]): r["accuracy"] for r in pos_rows if r["task"] == "test"}
pos_seeds = sorted({seed for seed, _, _ in pos_score})
pos_gain = {(s, b): pos_score[s, b, "pretrained"] - pos_score[s, b, "scratch"]
            for s in pos_seeds for b in experiment.POS_BUDGETS}
claim(f"pre-trained beats scratch by more than 4 points at every budget, both seeds (least {min(pos_gain.values()):+.3f})",
      len(pos_seeds) == 2 and min(pos_gain.values()) > 0.04)
claim("from scratch stays below the majority baseline at every budget, both seeds",
      all(pos_score[s, b, "scratch"] < pos_score[s, b, "majority"] for s in pos_seeds for b in experiment.POS_BUDGETS))
claim("the pre-trained model beats the majority baseline at every budget, both seeds",
      all(pos_score[s, b, "pretrained"] > pos_score[s, b, "majority"] for s in pos_seeds for b in experiment.POS_BUDGETS))
gap_32 = [pos_score[s, 32, "pretrained"] - pos_score[s, 32, "majority"] for s in pos_seeds]
claim(f"with 32 sentences by 1 to 3 points ({', '.join(f'{g:+.3f}' for g in gap_32)})",
      all(0.01 < g < 0.03 for g in gap_32))
claim(f"with all 2,001 sentences, seed 0: {pos_score[0, 2001, 'pretrained']:.3f} against the baseline's "
      f"{pos_score[0, 2001, 'majority']:.3f}", f"{pos_score[0, 2001, 'pretrained']:.3f}" == "0.862"
      and f"{pos_score[0, 2001, 'majority']:.3f}" == "0.824")
claim("and it rises with every budget",
      all(pos_score[s, a, "pretrained"] < pos_score[s, b, "pretrained"] for s in pos_seeds
          for a, b in zip(experiment.POS_BUDGETS, experiment.POS_BUDGETS[1:])))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 8. Sentence pairs and span selection
#
# BERT reads two texts as one input, `[CLS] A [SEP] B [SEP]`, the segment
# embeddings telling A from B, and classifies a pair from `[CLS]` as in section
# 6. For question answering, A is the question, B the passage and the answer a
# **span** of B: a new linear layer gives every position of B a *start* and an
# *end* score. Training minimises the mean of two cross-entropies, over start
# positions and over end positions; the prediction is the span with the highest
# start + end score, start ≤ end, at most 8 pieces long. Two tasks whose
# labels come from the text itself:
#
# - **Does B follow A?** Pairs built as for next-sentence prediction, with a new
#   head. Baseline: B follows A when they share at least k content words.
# - **Cloze span selection.** The question is a sentence with one content word
#   replaced by `[MASK]`; the passage is the nearest sentences of its paragraph,
#   which contain that word; the answer is the word's first occurrence.
#   Baseline: the passage's most frequent content word absent from the question.
#
# Test examples come from the held-out paragraphs.

# %%
cloze_test = pair_tasks.cloze_sets(tokenizer, {"test": 300}, seed=2026)["test"]  # 300 test questions
e = cloze_test[0]
print(f"A: {tokenizer.decode(list(e.a))}\nB: {tokenizer.decode(list(e.b))}\nanswer: '{e.answer}' at {e.target} in B")

# %% [markdown]
# **Exercise 3.** Write `best_span(start_scores, end_scores, max_length)`: for
# each row of the (B, T) scores, the (start, end) that maximises
# `start_scores[start] + end_scores[end]` with start ≤ end < start + `max_length`,
# as a (B, 2) tensor. (Hint: a (B, T, T) tensor of sums, the forbidden pairs set
# to −∞, one `argmax`.)

# %%
def best_span(start_scores, end_scores, max_length):
    raise NotImplementedError  # your code here


_scores = torch.randn(2, 6, 10, generator=torch.Generator().manual_seed(13))
exercise_3_reference = pair_tasks.best_span(_scores[0], _scores[1], 3)
solved_3 = check("Exercise 3", lambda: best_span(_scores[0], _scores[1], 3), exercise_3_reference,
                 names=[f"row {i} (start, end)" for i in range(6)])

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 3
def best_span(start_scores, end_scores, max_length):
    T = start_scores.shape[1]
    sums = start_scores[:, :, None] + end_scores[:, None, :]  # (B, start, end)
    start, end = torch.arange(T)[:, None], torch.arange(T)[None, :]
    allowed = (start <= end) & (end < start + max_length)
    best = sums.masked_fill(~allowed, float("-inf")).flatten(1).argmax(1)
    return torch.stack([best // T, best % T], dim=1)


assert check("Exercise 3", lambda: best_span(_scores[0], _scores[1], 3), exercise_3_reference,
             names=[f"row {i} (start, end)" for i in range(6)])
solved_3 = True

# %% [markdown]
# **Live.** Before any fine-tuning, the masked LM can answer: at the question's
# `[MASK]` it gives every passage piece a log-probability. Use those as start
# scores, 0 as end scores, and decode with your `best_span`, spans of one piece.
# Then a next-sentence head, fine-tuned for 20 steps on 640 pairs, scored on 300
# held-out pairs.

# %%
cloze_rows = pair_tasks.encode_pairs(cloze_test, tokenizer)
decode = attempt(lambda: best_span, lambda: pair_tasks.best_span, name="Exercise 3", solved=solved_3)
reader_start = pair_tasks.reader_scores(model, cloze_rows, tokenizer["[MASK]"])
reading = pair_tasks.span_accuracy(cloze_rows, decode(reader_start, torch.zeros_like(reader_start), 1))
reading_baseline = pair_tasks.frequent_word_baseline(cloze_test, tokenizer)
print(f"cloze, masked LM as reader: {reading:.3f}; most frequent content word: {reading_baseline:.3f}")


def as_examples(pairs):
    return [pair_tasks.PairExample(tuple(a), tuple(b), y) for a, b, y in pairs]


nsp_train = as_examples(data.pairs(640, random.Random(1)))
nsp_test = as_examples(data.pairs(300, random.Random(2), split="held_out"))
nsp_live = pair_tasks.method_scores(nsp_train, nsp_test, {"pretrained": 0.003}, steps=20)
print(f"does B follow A? fine-tuned {nsp_live['pretrained']:.3f}, shared words {nsp_live['baseline']:.3f}")

# %%
# Run beforehand (about 10 minutes): per task 3,840 training examples seen once (120 steps of 32), the
# pre-trained model and the same architecture from scratch, three seeds, 500 test examples. Each learning rate was
# chosen on 500 validation examples (seed 0), from a grid in steps of about 3 extended until its best rate was inside.
pair_results, pair_record = pair_tasks.load_results()
pair_seeds = sorted({seed for _, seed, _ in pair_results})
pair_grids = pair_record["results"]["grid"]["by_task"]
for task in pair_tasks.TASKS:
    print(f"{task:>13}: " + "   ".join(
        f"{method} " + " / ".join(f"{pair_results[task, s, method]:.3f}" for s in pair_seeds)
        for method in ("pretrained", "scratch", "baseline")) + f"   (seeds {pair_seeds})")
    for method, grid in pair_grids[task].items():
        print(f"{'':15}{method:>10} learning rate -> validation accuracy: " + ", ".join(
            f"{float(lr):g}{'*' if float(lr) == grid['chosen'] else ''} {acc:.3f}"
            for lr, acc in grid["validation_accuracy"].items()))

# %% [markdown]
# **What it shows.** Rates chosen on validation examples, each best inside its
# grid (*). *Does B follow A?* is the tiny BERT's own pre-training task
# (section 4), so its lead is expected: more than 15 points over scratch on all
# three seeds; scratch beats shared words by 2 to 11. *Span selection* is
# harder: scratch stays below the baseline on every seed; fine-tuned beats it
# on every seed, by 4 to 16 points, a margin an earlier choice of
# validation paragraphs reversed. The masked LM read as it is, with no new
# head, beats the baseline too.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: sentence pairs and span selection (held-out paragraphs; all three seeds, also in the claims tests)
train_paragraphs = {tuple(map(tuple, d)) for d in data.documents["train"]}
claim(f"no held-out paragraph is a pre-training paragraph ({len(data.documents['held_out']):,} and "
      f"{len(data.documents['train']):,})", not train_paragraphs & {tuple(map(tuple, d)) for d in data.documents["held_out"]})
passages_seen = [tokenizer.decode(list(e.b)) for e in cloze_test if " ".join(map(str, e.b)) in corpus_index]
claim(f"{len(passages_seen)} of {len(cloze_test)} test passages occur word for word in the pre-training text, only "
      f"sentences of at most 5 pieces from other stories ({passages_seen})",
      len(passages_seen) <= 2 and all(len(tokenizer.encode(p)) <= 5 for p in passages_seen))
claim("no live test pair is a training pair", not {(e.a, e.b) for e in nsp_test} & {(e.a, e.b) for e in nsp_train})
claim(f"your best_span reads the masked LM better than the baseline: {reading:.3f} against {reading_baseline:.3f}",
      reading > reading_baseline + 0.03)
claim(f"live, 20 steps: does B follow A? {nsp_live['pretrained']:.3f}, more than 10 points above shared words "
      f"({nsp_live['baseline']:.3f})", nsp_live["pretrained"] > nsp_live["baseline"] + 0.10)
for task, by_method in pair_grids.items():
    for method, grid in by_method.items():
        rates = sorted(float(lr) for lr in grid["validation_accuracy"])
        best = max(rates, key=lambda lr: grid["validation_accuracy"][str(lr)])
        claim(f"{task}, {method}: the rate {best:g}, best on validation, lies inside its grid {rates}",
              pair_record["results"]["grid"]["scored"] == "validation" and best == grid["chosen"]
              and rates[0] < best < rates[-1])
nsp_shipped = {m: [pair_results["next_sentence", s, m] for s in pair_seeds] for m in ("pretrained", "scratch", "baseline")}
span_shipped = {m: [pair_results["span", s, m] for s in pair_seeds] for m in ("pretrained", "scratch", "baseline")}
claim(f"does B follow A? fine-tuned beats scratch by more than 15 points on all three seeds ({nsp_shipped['pretrained']} "
      f"against {nsp_shipped['scratch']}), and scratch beats shared words ({nsp_shipped['baseline']}) by 2 to 11 points",
      pair_seeds == [0, 1, 2] and all(p > s + 0.15 and b + 0.02 < s < b + 0.12 for p, s, b in zip(*nsp_shipped.values())))
claim(f"span selection: from scratch {span_shipped['scratch']} stays below the baseline {span_shipped['baseline']} on "
      f"every seed, and fine-tuned {span_shipped['pretrained']} beats it on every seed by 4 to 16 points",
      all(s < b and 0.035 < p - b < 0.165 for p, s, b in zip(*span_shipped.values())))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 9. The three families and ELECTRA, on one sentence
#
# Every pre-training objective turns plain text into inputs and targets. What
# differs is what the model reads, what it must predict, and at which positions
# the loss is counted. `dl4nlp.objectives` builds each from the same ids:
#
# - **masked LM** (BERT, an encoder): 15 % of the tokens chosen and corrupted
#   80/10/10; loss at the chosen positions only.
# - **causal LM** (GPT, a decoder, as in chapter 10): read tokens $1..T-1$,
#   predict tokens $2..T$; loss at every position.
# - **span corruption** (T5, an encoder-decoder; Raffel et al., 2020): spans
#   covering 15 % of the tokens, of mean length 3, each replaced by one
#   sentinel (`<X>`, `<Y>`, ...); the decoder writes each sentinel followed by
#   the span it hid, and a last sentinel. On our 12 tokens that is
#   round(0.15 × 12) = 2 tokens, in round(2 / 3) = 1 span.
# - **text infilling** (BART, an encoder-decoder; Lewis et al., 2020): spans
#   with Poisson(3) lengths covering 30 % of the tokens, each replaced by a
#   single `[MASK]` (so the model must also work out how many tokens are
#   missing); the decoder writes the whole original text.
# - **replaced-token detection** (ELECTRA, an encoder; Clark et al., 2020): a
#   small masked LM, the *generator*, fills the masked positions with sampled
#   tokens; the *discriminator* reads the result and says, at *every* position,
#   whether the token is the original or a replacement. Here our tiny BERT is
#   the generator.

# %%
sentence_ids = tokenizer.encode("thank you for inviting me to your party last week.")
V = len(tokenizer)


def name_of(i):
    """A piece's text; T5's sentinels are the ids just above the vocabulary."""
    return tokenizer.itos[i] if i < V else ["<X>", "<Y>", "<Z>", "<W>"][i - V]


with_specials = [tokenizer["[CLS]"], *sentence_ids, tokenizer["[SEP]"]]
objectives = [
    masked_lm(with_specials, tokenizer, torch.Generator().manual_seed(3)),
    causal_lm(sentence_ids),
    span_corruption(sentence_ids, V, random.Random(0), start_id=tokenizer["[PAD]"]),
    text_infilling(sentence_ids, tokenizer["[MASK]"], random.Random(2), start_id=tokenizer["[PAD]"]),
    replaced_token_detection(with_specials, model, tokenizer, torch.Generator().manual_seed(0), mask_prob=0.3),
]
for ex in objectives:
    print(f"{ex.objective} ({ex.family}): loss at {ex.predicted} of {len(ex.targets)} output positions")
objectives_diagram(objectives, name_of).draw(scale=0.55)
plt.show()

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The lecture's T5 example hides 3 of 10 words in two spans,
# *Thank you <X> me to your party <Y> week* → *<X> for inviting <Y> last <Z>*:
# more than T5's own rule (15 %, mean span length 3) would hide in so short a
# sentence.

# %% [markdown]
# **ELECTRA's point.** BERT learns from the 15 % of positions it masks;
# ELECTRA's discriminator gets a training signal from every position, so each
# step (and each FLOP) teaches it more. Clark et al. (2020) measured this
# where it matters, in downstream accuracy at equal pre-training compute:
# their small model, trained on one GPU for 4 days, "outperforms GPT (trained
# using 30x more compute)" on GLUE. Is it the every-position signal? Their
# ablation (table 5, GLUE dev) says yes: *ELECTRA 15 %*, the same discriminator graded
# only at the 15 % of positions that were masked, scored 82.4, against 85.0 for
# ELECTRA and 82.2 for BERT; an *all-tokens* masked LM that predicts every position
# reached 84.3. *Going further* counts the signal on our held-out text.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** ELECTRA trains generator and discriminator together (the sum of
# the generator's masked-LM loss and the discriminator's loss, weighted by a
# factor λ) and keeps only the discriminator for fine-tuning. The generator
# learns by plain masked LM, not by trying to fool the discriminator as in a
# GAN; the paper tried adversarial training and a two-stage schedule, and
# neither improved on joint training. Generators a quarter to half the size of
# the discriminator worked best, and a BERT-Small trained for 1.5M steps (the
# FLOPs of an ELECTRA-Small trained for 1M) lost to it.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: each example has the shape its paper describes
mlm, clm, t5, bart, electra = objectives
claim(f"masked LM: loss at {mlm.predicted} chosen positions, whose targets are the original tokens",
      [t for t, chosen in zip(mlm.targets, mlm.loss) if chosen] == [t for t, chosen in zip(with_specials, mlm.loss)
                                                                      if chosen])
claim(f"causal LM: reads {len(clm.inputs)} tokens, predicts the next one at every position",
      clm.inputs == sentence_ids[:-1] and clm.targets == sentence_ids[1:] and all(clm.loss))
spans, current = {}, None
for t in t5.targets[:-1]:
    current = t if t >= V else current
    spans.setdefault(current, []).extend([] if t >= V else [t])
claim("T5: the targets, put back in place of their sentinels, give the sentence",
      [p for t in t5.inputs for p in (spans[t] if t >= V else [t])] == sentence_ids)
claim(f"T5 hides round(0.15 × {len(sentence_ids)}) = {round(0.15 * len(sentence_ids))} tokens in {len(spans)} span",
      len(spans) == 1 and sum(map(len, spans.values())) == round(0.15 * len(sentence_ids)))
claim(f"BART: the decoder writes all {len(bart.targets)} tokens from a shorter input of {len(bart.inputs)}",
      bart.targets == sentence_ids and len(bart.inputs) < len(sentence_ids) and all(bart.loss))
claim("ELECTRA: the label is 1 exactly where the input differs from the original",
      electra.targets == [int(a != b) for a, b in zip(electra.inputs, with_specials)])
claim(f"ELECTRA has loss at all {electra.predicted} ordinary positions, more than masked LM's {mlm.predicted}",
      electra.predicted == len(with_specials) - 2 > mlm.predicted)
electra_glue = {"ELECTRA": 85.0, "all-tokens masked LM": 84.3, "ELECTRA 15 %": 82.4, "BERT": 82.2}  # Clark et al., table 5
claim(f"graded at 15 % of positions, ELECTRA falls from {electra_glue['ELECTRA']} to {electra_glue['ELECTRA 15 %']}, "
      f"within 0.2 of BERT's {electra_glue['BERT']}",
      electra_glue["ELECTRA 15 %"] - electra_glue["BERT"] < 0.2 + 1e-9 < electra_glue["ELECTRA"] - electra_glue["ELECTRA 15 %"])

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary
#
# - BERT's input is `[CLS] A [SEP] B [SEP]`, embedded as token + segment + position, then LayerNorm; the lecture's pair has 10 positions with our vocabulary.
# - Masking chooses 15 % of the ordinary tokens (80 % `[MASK]`, 10 % random, 10 % unchanged), every count inside its binomial interval on 4,000 pairs; whole-word masking chooses words, not pieces.
# - A tiny BERT of 967,426 parameters, pre-trained on two books, fills in held-out blanks more than 2.5 times as often as the unigram baseline and tells next sentences from random ones (above 0.65).
# - Telling dialogue from narration with equal steps, the pre-trained encoder beats the same model from scratch with up to 256 labels (a linear probe by more than 5 points on every seed, fine-tuning by more than 5 on average); at 512 labels the gain is under 4 points, and a bag of words is within 3 points throughout.
# - Masked LM, causal LM, span corruption, text infilling and replaced-token detection differ in what is read, what is predicted, and where the loss is; ELECTRA's discriminator is graded at every position.
# - Tagging parts of speech of web text, the fine-tuned tiny BERT beats the same model from scratch by more than 4 points and the majority tag per word at every budget (0.862 against 0.824 with 2,001 sentences); from scratch never reaches that baseline.
# - On pairs, `[CLS] A [SEP] B [SEP]`: whether B follows A, fine-tuning beats scratch by more than 15 points (three seeds); for cloze spans, scratch stays below the baseline, fine-tuning beats it on every seed, as does the masked LM read directly.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## What comes next
#
# Chapter 14 asks how the loss falls as models, data and compute grow: how big
# a model should be, and how long to train it.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## References
#
# - J. Devlin, M.-W. Chang, K. Lee, K. Toutanova, *BERT: Pre-training of deep bidirectional Transformers for language understanding*, NAACL (2019).
# - Y. Liu et al., *RoBERTa: A robustly optimized BERT pretraining approach*, arXiv (2019).
# - C. Raffel et al., *Exploring the limits of transfer learning with a unified text-to-text Transformer* (T5), JMLR (2020).
# - M. Lewis et al., *BART: Denoising sequence-to-sequence pre-training*, ACL (2020).
# - K. Clark, M.-T. Luong, Q. V. Le, C. D. Manning, *ELECTRA: Pre-training text encoders as discriminators rather than generators*, ICLR (2020).
# - R. Xiong et al., *On layer normalization in the Transformer architecture*, ICML (2020).
# - A. Wettig, T. Gao, Z. Zhong, D. Chen, *Should you mask 15% in masked language modeling?*, EACL (2023).
# - R. Eldan, Y. Li, *TinyStories: How small can language models be and still speak coherent English?*, arXiv (2023).
# - N. Silveira et al., *A gold standard dependency corpus for English* (the English Web Treebank), LREC (2014); J. Nivre et al., *Universal Dependencies v2*, LREC (2020).
# - Hugging Face, *transformers* (`DataCollatorForLanguageModeling`, `BertModel`).

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Going further
#
# Four optional studies: too much and too little masking, ELECTRA's signal (section 9), and BERT's real sizes.

# %% [markdown] slideshow={"slide_type": "slide"}
# ### A. Too much masking
#
# The lecture's two warnings: with **too little** masking each sequence gives
# only a few prediction targets, so learning is slow ("too expensive to
# train"); with **too much**, each prediction has too little context left to be
# learnable ("not enough context"). The first needs a model trained at each
# rate (B below); the second we can measure now.
#
# Take the pre-trained tiny BERT (trained at 15 %) and hide more and more of
# its held-out input: the same model, the same pairs, only the masking rate
# changes. Every masked position is then predicted from what is left.

# %%
context = experiment.less_context(seed=0)
for rate, accuracy, unigram_share, n in zip(context.rates, context.accuracy, context.unigram, context.targets):
    print(f"masked at {rate:4.0%}: accuracy {accuracy:.3f} on {n:5,} positions (unigram baseline {unigram_share:.3f})")

# %% [markdown]
# Accuracy falls at every step as more of the input is hidden, more than 10
# points from 15 % to 100 %. It stays above the unigram baseline even at
# 100 %: a chosen token is left unchanged 10 % of the time and replaced by a
# random one 10 % of the time, and the positions and segments are still there
# (a `[SEP]` is never masked, so the model knows where each segment ends).
# What is left is a little context the model cannot trust, and a prior over
# where words go.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: less context, worse predictions (seed 0; other seeds in the claims tests)
claim("accuracy falls at every step: " + ", ".join(f"{a:.3f}" for a in context.accuracy),
      all(a > b for a, b in zip(context.accuracy, context.accuracy[1:])))
claim(f"from 15 % to 100 % it drops by {context.accuracy[0] - context.accuracy[-1]:.3f} (more than 0.10)",
      context.accuracy[0] - context.accuracy[-1] > 0.10)
claim("it stays above the unigram baseline at every rate",
      all(a > u for a, u in zip(context.accuracy, context.unigram)))

# %% [markdown]
# ### B. Too little masking: training at other rates
#
# Study A hid more of the input of one model trained at 15 %. The other
# failure needs training: we pre-trained the same small masked LM (64 wide, 2
# layers, no next-sentence task) at masking rates from 5 % to 100 % for the
# same 1,500 steps on the same text and vocabulary, with two seeds (about 48
# minutes); only the rate changes. Every model is then scored the same way:
# masked-token accuracy on held-out pairs with the standard 15 % masking.

# %%
sweep_rows = experiment.load_mask_sweep()
by_seed = experiment.sweep_by_seed(sweep_rows)  # {seed: {rate: held-out accuracy at 15 %}}
targets = experiment.sweep_summary(sweep_rows, "targets_per_batch")
unigram = statistics.mean(r["unigram_at_15"] for r in sweep_rows)
rates_trained = sorted(targets)
print("trained at   targets per batch   " + "   ".join(f"seed {seed}" for seed in by_seed))
for rate in rates_trained:
    cells = [f"{by_seed[seed][rate]:.3f}" if rate in by_seed[seed] else "    -" for seed in by_seed]
    print(f"{rate:9.0%}   {targets[rate][0]:17.0f}   " + "   ".join(f"{c:>6}" for c in cells))
print(f"unigram baseline on the same positions: {unigram:.3f}")
experiment.plot_masking_rates(context, by_seed, unigram)
plt.show()

# %% [markdown]
# Trained at 5 %, a batch carries about a third of the targets it carries at
# 15 %, and after the same 1,500 steps the model is more than a point behind.
# From there accuracy rises with the rate up to 50 %: for this small model
# trained this briefly, the extra targets per step are worth more than the
# context they take away. Past it the curve turns and falls at every step: at
# 100 %, every ordinary token a target, the model is more than a point behind
# its 50 % twin and has given back more than half of its gain over 15 % (it is
# still ahead of 15 %). Too little context is left to learn from: the second
# failure mode, this time during training. Wettig et al. (2023) found the
# same shape for real BERTs: 15 % is not universally optimal; masking 40 %
# beat 15 % for BERT-large-size models on GLUE and SQuAD, and even 80 % kept
# 95 % of the fine-tuning performance.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: too few targets fall behind, and too much masking turns the curve (seed 0; seed 1 in the claims tests)
zero = by_seed[0]
claim(f"seed 0 was trained at six rates: {sorted(zero)}", sorted(zero) == rates_trained == [0.05, 0.15, 0.3, 0.5, 0.8, 1.0])
claim(f"trained at 5 %: {zero[0.05]:.3f}, more than a point behind 15 % ({zero[0.15]:.3f})", zero[0.15] > zero[0.05] + 0.01)
claim(f"accuracy is best at 50 % ({zero[0.5]:.3f})", max(zero, key=zero.get) == 0.5)
rising = [r for r in rates_trained if r <= 0.5]
falling = [r for r in rates_trained if r >= 0.5]
claim("it rises at every step up to 50 % and falls at every step after",
      all(zero[a] < zero[b] for a, b in zip(rising, rising[1:])) and all(zero[a] > zero[b] for a, b in zip(falling, falling[1:])))
claim(f"at 100 % ({zero[1.0]:.3f}) it is more than a point behind 50 %", zero[1.0] < zero[0.5] - 0.01)
gain = {r: zero[r] - zero[0.15] for r in (0.5, 1.0)}
claim(f"and keeps less than half of 50 %'s gain over 15 % ({gain[1.0]:+.3f} of {gain[0.5]:+.3f}), still above 15 %",
      0 < gain[1.0] < gain[0.5] / 2)
ratio_targets = targets[0.15][0] / targets[0.05][0]
claim(f"15 % gives {ratio_targets:.1f} times the targets per batch of 5 % (between 2.5 and 3.5)",
      2.5 < ratio_targets < 3.5)
claim(f"every model, every seed, beats the unigram baseline ({unigram:.3f})",
      all(value > unigram for accuracy in by_seed.values() for value in accuracy.values()))

# %% [markdown]
# ### C. ELECTRA's signal, counted
#
# Over 64 held-out pairs, count the positions that carry loss under masked LM
# and under ELECTRA, and how many of ELECTRA's are *hard* (the generator's
# sample differs from the original):

# %%
held_pairs = data.pairs(64, random.Random(7), split="held_out")
signal = {"masked LM": 0, "ELECTRA: every position": 0, "ELECTRA: replaced": 0, "tokens": 0}
for a, b, _ in held_pairs:
    seq = pair_inputs(a, b, cls=tokenizer["[CLS]"], sep=tokenizer["[SEP]"])[0]
    generator = torch.Generator().manual_seed(len(seq))
    signal["masked LM"] += masked_lm(seq, tokenizer, generator).predicted
    rtd = replaced_token_detection(seq, model, tokenizer, generator)
    signal["ELECTRA: every position"] += rtd.predicted
    signal["ELECTRA: replaced"] += sum(rtd.targets)
    signal["tokens"] += len(seq) - 3
for name in ("masked LM", "ELECTRA: every position", "ELECTRA: replaced"):
    print(f"{name:>24}: {signal[name]:5d} positions with loss = {signal[name] / signal['tokens']:.1%} of the tokens")

# %% [markdown]
# ELECTRA's discriminator is graded on all the positions, about 1/0.15 ≈ 6.7
# times as many as BERT's masked LM. And not every masked position becomes a
# replacement: the pre-trained generator often samples the original token back,
# which then counts as *original*. Whether the denser signal buys a better
# encoder at equal compute is a question about thousands of GPU hours; at our
# scale, with a generator that was pre-trained beforehand rather than trained
# jointly, a comparison of a few hundred CPU steps would measure our setup,
# not ELECTRA. We leave the claim to the paper and show its mechanism.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: ELECTRA is graded on every position
low, high = binomial_interval(signal["tokens"], MASK_PROB)
claim(f"masked LM predicts {signal['masked LM']} of {signal['tokens']:,} tokens (interval {low:.0f}-{high:.0f})",
      low <= signal["masked LM"] <= high)
claim("ELECTRA is graded on every one of them", signal["ELECTRA: every position"] == signal["tokens"])
claim(f"the generator often samples the original: {signal['ELECTRA: replaced']} replacements, "
      f"fewer than {signal['masked LM']} masked", signal["ELECTRA: replaced"] < signal["masked LM"])
electra_ratio = signal["ELECTRA: every position"] / signal["masked LM"]
claim(f"ELECTRA is graded on {electra_ratio:.1f} times as many positions (between 6 and 7.5)", 6.0 < electra_ratio < 7.5)

# %% [markdown] slideshow={"slide_type": "slide"}
# ### D. The real sizes: BERT-base and BERT-large
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
breakdowns = {size: parameter_breakdown(m) for size, m in bert_models.items()}
HEADS = ["MLM head (transform, LayerNorm, bias)", "NSP head"]
encoder_only = {size: count_parameters(m) - sum(breakdowns[size][h] for h in HEADS) for size, m in bert_models.items()}
for size, m in bert_models.items():
    print(f"BERT-{size}: {count_parameters(m):,} with the pre-training heads, {encoder_only[size]:,} without; "
          f"on the meta device: {next(m.parameters()).is_meta}")
print()
for component in breakdowns["base"]:
    print(f"{component:>38}: " + "  ".join(f"{breakdowns[s][component]:>12,}" for s in bert_models))

# %% [markdown]
# **Where the parameters are.** One layer has $4(C^2 + C)$ in the attention
# projections, $8C^2 + 5C$ in the feed-forward network ($C \to 4C \to C$) and
# $4C$ in two LayerNorms: $12C^2 + 13C$, which is 7,087,872 for $C = 768$. The
# embeddings add $(30522 + 512 + 2)\,C + 2C$; the token embedding alone is a fifth
# of BERT-base, and the MLM output layer reuses it (tied weights are counted once).
#
# **Exercise 4.** Write `bert_parameters(V, C, L, T)`: the number of
# parameters of a BERT encoder with vocabulary $V$, width $C$, $L$ layers and
# $T$ positions, with 2 segments, the embedding LayerNorm and the pooler
# ($C^2 + C$), but without the pre-training heads.

# %%
def bert_parameters(V, C, L, T):
    raise NotImplementedError  # your code here


def exercise_4():
    return [bert_parameters(30522, 768, 12, 512), bert_parameters(30522, 1024, 24, 512)]


solved_4 = check("Exercise 4", exercise_4, [encoder_only["base"], encoder_only["large"]],
                 names=["BERT-base", "BERT-large"])

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 4
def bert_parameters(V, C, L, T):
    embeddings = (V + T + 2) * C + 2 * C  # token, position, segment tables and their LayerNorm
    layer = 4 * (C * C + C) + (C * 4 * C + 4 * C) + (4 * C * C + C) + 4 * C  # attention, FFN, 2 LayerNorms
    pooler = C * C + C
    return embeddings + L * layer + pooler


assert check("Exercise 4", exercise_4, [encoder_only["base"], encoder_only["large"]], names=["BERT-base", "BERT-large"])
solved_4 = True

# %% [markdown]
# **Comparing with 110M and 340M.** BERT-base's 109.5M rounds to the
# published 110M. BERT-large's 335.1M is 1.4 % below the published 340M, and no
# component we left out closes the gap of 4.9M: the MLM head adds 1.1M and the
# NSP head 2,050 parameters (still 3.8M short with both), while a separate,
# untied output layer would add 31M and overshoot. The 340M is best read as a
# loose rounding; the count here follows from the architecture alone, and it
# equals Hugging Face's `BertModel` (109,482,240 for `bert-base-uncased`,
# 335,141,888 for `bert-large-uncased`).

# %%
plot_parameter_breakdown({f"BERT-{s}": b for s, b in breakdowns.items()}, title="BERT's parameters by component (millions)")
plt.show()
tiny_breakdown = parameter_breakdown(model)
print(f"the tiny BERT: {count_parameters(model):,} parameters, "
      f"{tiny_breakdown['token embeddings'] / count_parameters(model):.0%} of them in the token embedding")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: BERT's sizes, by component and against the paper
def per_layer(C):
    return 12 * C * C + 13 * C


for size, C, L in [("base", 768, 12), ("large", 1024, 24)]:
    b = breakdowns[size]
    layers = b["self-attention (all layers)"] + b["feed-forward (all layers)"] + b["LayerNorms (all layers)"]
    embeddings = sum(b[k] for k in ["token embeddings", "position embeddings", "segment embeddings",
                                    "embedding LayerNorm"])
    claim(f"BERT-{size}: {L} layers × {per_layer(C):,} = {layers:,}, embeddings {embeddings:,} = (30522 + 512 + 2)·C + 2C",
          layers == L * per_layer(C) and embeddings == (30522 + 512 + 2) * C + 2 * C)
share = breakdowns["base"]["token embeddings"] / count_parameters(bert_models["base"])
claim(f"the token embedding is about a fifth of BERT-base: {share:.1%}", 0.2 < share < 0.22)
claim(f"without the heads: {encoder_only['base']:,} and {encoder_only['large']:,}, Hugging Face's BertModel counts",
      encoder_only["base"] == 109_482_240 and encoder_only["large"] == 335_141_888)
claim(f"BERT-base is within 0.5 % of the published 110M ({abs(encoder_only['base'] - 110e6) / 110e6:.2%})",
      abs(encoder_only["base"] - 110e6) / 110e6 < 0.005)
claim(f"BERT-large is 1-2 % below the published 340M ({(340e6 - encoder_only['large']) / 340e6:.2%})",
      0.01 < (340e6 - encoder_only["large"]) / 340e6 < 0.02)
large_heads = sum(breakdowns["large"][h] for h in HEADS)
claim(f"even with both heads it is more than 3M short ({(340e6 - encoder_only['large'] - large_heads) / 1e6:.1f}M)",
      340e6 - (encoder_only["large"] + large_heads) > 3e6)
claim("an untied output layer (1024 × 30522 more) would overshoot by more than 25M",
      encoder_only["large"] + large_heads + 1024 * 30522 > 340e6 + 25e6)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Check your understanding
#
# A few questions to answer without code, about what this chapter showed. Click an answer to see whether it is right and why; the section named under each question is where the chapter shows it.

# %%
from dl4nlp import quiz

quiz.show("13")

# %% [markdown] slideshow={"slide_type": "skip"}
# ## Instructor notes
#
# **What ships in `data/`, and how it was made.**
# - `tiny_bert.pt` (+ `.json`): `python -m dl4nlp.recipes.tiny_bert --out data/tiny_bert.pt` (seed 0, one
#   thread; run with a scratch `--out`, whose path the JSON records). 4,000 steps of 32 pairs, AdamW, lr 0.002,
#   200 warm-up steps; 4,459 s of wall time on a shared, heavily loaded 2-core machine, about 9 minutes of CPU
#   time. The recipe scored the float32 model before saving float16 weights; the last claim of section 5 checks
#   that the shipped weights score the same to 0.01.
# - `bert_learning_curve.csv` (+ `.json`): `python -m dl4nlp.recipes.bert_learning_curve --out
#   data/bert_learning_curve.csv --seeds 0,1,2 --budgets 32,64,128,256,512 --tag-budgets 32,128 --steps 96`
#   (766 s). The recipe's defaults go further (5 seeds, up to 2,048 labels); the shipped run was shrunk to fit
#   a shared CPU, so the curve stops at 512 labels with 3 seeds. The chosen settings are in the JSON
#   (`results.chosen_settings`).
# - `bert_mask_sweep.csv` (+ `.json`): `python -m dl4nlp.recipes.bert_mask_sweep --out data/bert_mask_sweep.csv
#   --seeds 0,1 --rates 0.05,0.15,0.3,0.5,0.8,1.0` (2,855 s). The defaults train three seeds; only seeds 0 and 1
#   were run.
# - `pos_tagging_curve.csv` (+ `.json`, CC BY-SA 4.0 as derived from EWT): `python -m
#   dl4nlp.recipes.pos_tagging --out data/pos_tagging_curve.csv --jobs 2` (seeds 0 and 1; 2,242 s of wall time
#   on the loaded shared 2-core machine, about 5.5 CPU-minutes). The learning rates were chosen on 300
#   validation sentences (from the test file, never scored as test) with 128 labels and seed 100: 0.003 for the
#   pre-trained model and 0.001 from scratch, each inside the grid 0.0003, 0.001, 0.003, 0.01 (its validation
#   accuracies are the table's `validation` rows). Steps: 6 epochs of 32 sentences, at least 48 and at most
#   128, so 2,001 labels get about 2 epochs. EWT's CoNLL-U files are read by
#   `dl4nlp.experiments.bert._read_upos`, a chapter-local reader (a shared `dl4nlp.ewt` may replace it).
#   The tiny BERT was pre-trained on Sherlock Holmes and TinyStories with a 4,096-piece vocabulary, not on web
#   text: 1.3 % of the test set's word pieces are `[UNK]` (words with a character it never saw).
#
# - `pair_tasks.csv` (+ `.json`): `python -m dl4nlp.recipes.pair_tasks --out data/pair_tasks.csv` (run with `nice`
#   as `--out /tmp/k28_recipe2/pair_tasks.csv --threads 1` and copied; 589 s of wall time on the loaded shared
#   2-core machine, interrupted once and resumed from its state file). Both tasks are built by
#   `dl4nlp.pair_tasks.task_sets` (seed 2026): 5,000 training examples from the first 90 % of each book's
#   pre-training paragraphs, 500 validation examples from the last 10 % of each book's, 500 test examples from the
#   held-out paragraphs. Each run draws 3,840 of the training examples with its seed and trains 120 steps of 32 (one
#   epoch). Learning rates: for each task and method, seed 0 trains at 0.003 or 0.001 (the tagging task's choice)
#   and its neighbours in the ladder 1e-5, 3e-5, ..., 0.1, and the grid grows past whichever end scores best on
#   validation until the best is inside: next sentence fine-tuned 0.0003 / **0.001** / 0.003 / 0.01 (0.852, 0.862,
#   0.790, 0.644), from scratch 0.0003 / 0.001 / **0.003** / 0.01 (0.656, 0.666, 0.672, 0.496); span selection
#   fine-tuned 0.001 / **0.003** / 0.01 (0.386, 0.434, 0.388), from scratch 0.0003 / **0.001** / 0.003 (0.380, 0.390,
#   0.382). Test: seeds 0, 1, 2 at the chosen rates (seed 0's test score comes from the grid's model at that rate;
#   the others' test scores are never kept). Not done: a grid per seed, and more epochs for span selection (not
#   needed to beat its baseline now, and before that, a first try with 1,000 cloze examples for 150 steps, five
#   epochs, memorised them: 0.95 on 300 of its training questions, 0.17 on 300 test questions). Span selection
#   varies widely between seeds (fine-tuned 0.258 to 0.378); the claims say only what holds on all three.
#   An earlier version used the tagging task's rates (0.003, 0.001) untuned, two seeds, and validation paragraphs
#   from TinyStories alone; with those, fine-tuned span selection beat its baseline on one seed of two. A first run
#   of the grid with that TinyStories-only validation chose 0.01 for fine-tuned span selection (0.334 on validation,
#   0.326 at 0.001 and 0.003; its training pool also differed a little) and scored 0.172, 0.196, 0.194 on test,
#   below the baseline's 0.218: the span result depends on the rate and the split, and its margin now (5 and 4 points
#   on seeds 0 and 2) is small.
#
# **How the claims are checked.** The thresholds live in `dl4nlp.experiments.bert` (`FEW_MARGIN` 0.05,
# `CAUGHT_UP` 0.04, `SCRATCH_RISE` 0.15, `BAG_OF_WORDS_GAP` 0.03, `LIVE_MARGIN` 0.05, `CONTEXT_DROP` 0.10,
# `SWEEP_MARGIN` 0.01, `BEST_RATE` 0.5). `tests/claims/test_13_bert.py` re-runs `few_labels` and
# `less_context` on the claim seeds and checks the shipped learning curve (all 3 seeds) and mask sweep (seed 1
# as well as seed 0) with the same thresholds. The notebook and the claims tests also pass with ATen's
# `default` kernels and oneDNN/MKL limited to SSE4 (`ATEN_CPU_CAPABILITY=default ONEDNN_MAX_CPU_ISA=SSE41
# MKL_ENABLE_INSTRUCTIONS=SSE4_2`). The only comparison of a live computation with a shipped number is the
# tiny BERT's evaluation (section 5), an inference on fixed weights, checked to 0.01; with the SSE4 kernels above it
# reproduced the recorded scores to the last digit (0.3728, 0.0868, 0.8262), so 0.01 is a wide margin.
#
# **Timings.** The notebook ran in 38.6 s (idle 2-core machine) before section 8 was added; on the loaded
# machine of issue 28's last session it took 122 s with section 8. Section 8's live cell (20 next-sentence steps,
# the masked-LM reader on 300 questions) took a third as long as the live `few_labels` scratch run (13.0 s idle)
# in the same loaded process, so about 4 s idle: about 43 s in all, to be re-measured idle by `make bench`; the live `few_labels` run (section 6) and
# `less_context` (Going further A) are the slowest cells. The bench of issue 23 measured the live `few_labels`
# cell at 15.2 s (budget 15 s): it is now two cells, `few_labels(seed=0, methods=["scratch"])` (the 96
# training steps) and the probe and bag of words; `compare_methods` reseeds per method, so the numbers are
# those of one call. The masking widget redrew in 0.87 s on all 4,000 pairs; it now masks 500 of them.
#
# **Corrections (issue 28).** BERT's tokens seen were given as 256 × 512 × 10⁶ = 1.31e11; BERT trained 90 %
# of its steps on 128-token sequences (Devlin et al., appendix A.2), so at most 4.26e10, and the ratio to the
# tiny model's 8.2e6 is about 5,200, not over 16,000: the claim's threshold moved from 10,000 to 5,000.
# The masking aside of section 3 is read from google-research/bert's `create_pretraining_data.py`
# (`create_masked_lm_predictions`: `num_to_predict = min(max_predictions_per_seq, max(1,
# int(round(len(tokens) * masked_lm_prob))))`, candidates shuffled, whole words skipped when they would
# overshoot, random replacements from `vocab_words`, the whole vocabulary). The GLUE rows are Devlin et al.'s
# table 1, the feature-based rows their table 7 (the seed's "Sum" rows are weighted sums in the paper), the
# ELECTRA ablation Clark et al.'s table 5 (GLUE dev).
