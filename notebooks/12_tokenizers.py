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
# # 12 · Tokenizers
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/dl4nlp-course/dl4nlp/blob/main/notebooks/12_tokenizers.ipynb)
#
# Before a Transformer reads a word, something must cut the text into pieces
# and number them. Whole words run out (every new name is unknown), characters
# make sequences long and each symbol nearly meaningless; the models of the last
# chapters read characters. Real models read **sub-words**: frequent words stay
# whole, rare words are spelled from frequent pieces. In this chapter you learn
# the pieces the three ways the big models do (BPE on characters, WordPiece
# for BERT, byte-level BPE for GPT-2 and its successors), check each against Hugging
# Face's production tokenizers and against BERT's real vocabulary file, and
# build the vocabulary the tiny BERT of chapter 13 reads.
#
# **You will:**
# - write BPE's merge loop yourself, check it against Hugging Face's trainer, and run it on the lecture's `</w>` example;
# - see how WordPiece scores a merge differently;
# - train a 4,096-piece WordPiece vocabulary on two books, and check our BPE trainer merge for merge against Hugging Face's;
# - split new text WordPiece's way (greedy longest match), writing it yourself, and compare with Hugging Face on `bert-base-uncased`'s vocabulary;
# - round-trip accents and emoji through a byte-level BPE, equal to Hugging Face's `ByteLevelBPETokenizer`;
# - write the Viterbi split of a Unigram tokenizer, train one by EM and pruning, check it against Hugging Face's `Unigram`, and compare it with BPE and WordPiece.
#
# **Prerequisites:** chapter 00 (the course's conventions). Chapter 10 (a GPT
# that reads characters) shows why sub-words are wanted, but is not needed.
#
# **Study time:** about 2 hours for a person; **run time:** about 20 s on a laptop CPU.

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
import json
import math

from tokenizers import ByteLevelBPETokenizer, Tokenizer, models, normalizers, pre_tokenizers, trainers

from dl4nlp.bert import load_pretrained
from dl4nlp.bpe import merge_loop, pre_tokenize, train_bpe, word_counts
from dl4nlp.bytelevel import ByteBPE, to_bytes
from dl4nlp.data import data_path, load_text
from dl4nlp.dialogue import pretraining_documents
from dl4nlp.exercises import attempt, check
from dl4nlp.notebook import claim
from dl4nlp.unigram import Unigram, unigram_splits, viterbi
from dl4nlp.wordpiece import WordPiece

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. Byte-pair encoding: merge the most frequent pair
#
# **Intuition.** A vocabulary of whole words is huge, still meets words it has
# never seen, and treats "old", "older" and "oldest" as unrelated. Characters
# never run out, but make sequences long. Sub-words sit in between.
#
# **Byte-pair encoding** (BPE; Sennrich et al., 2016) learns the pieces. Start
# with every word split into characters. Count every adjacent pair of symbols,
# weighted by how often the word occurs; merge the most frequent pair into a new
# symbol everywhere; repeat. The list of merges, in order, is the tokenizer.
#
# The lecture's corpus has four words: *low* ×5, *lower* ×2, *newest* ×6,
# *widest* ×3.
#
# **Exercise 1.** Write the loop. `bpe_merges(words, num_merges)` gets each word
# as a tuple of symbols with its count (`{("l", "o", "w"): 5, ...}`) and returns the
# merges as `(left, right, count)`. Each round: count every adjacent pair, weighted
# by the word's count; take the most frequent; replace it by the joined symbol in
# every word, left to right. When two pairs tie, take the pair of **older** symbols:
# the starting symbols rank in code-point order (`sorted`), each merged symbol
# ranks after all existing ones, and pairs compare by (rank of left, rank of right).
# That is how Hugging Face's trainer breaks ties, so the check compares your merges
# with the ones its `BpeTrainer` learns on the same four words.

# %%
def bpe_merges(words, num_merges):
    raise NotImplementedError  # your code here: return [(left, right, count), ...]


toy_words = {tuple(word): count for word, count in {"low": 5, "lower": 2, "newest": 6, "widest": 3}.items()}
hf_toy = Tokenizer(models.BPE())
hf_toy.pre_tokenizer = pre_tokenizers.Whitespace()
hf_toy.train_from_iterator([" ".join(" ".join([w] * c) for w, c in (("low", 5), ("lower", 2), ("newest", 6),
                                                                    ("widest", 3)))],
                           trainers.BpeTrainer(vocab_size=10 + 10, show_progress=False))  # 10 letters + 10 merges
hf_toy_merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
                 for m in json.loads(hf_toy.to_str())["model"]["merges"]]


def exercise_1():
    """Where each of your merges sits in Hugging Face's list (-1: a pair it never merged); 0, 1, 2, ... is right."""
    return [hf_toy_merges.index((left, right)) if (left, right) in hf_toy_merges else -1
            for left, right, _ in bpe_merges(toy_words, 10)]


solved_1 = check("Exercise 1", exercise_1, list(range(10)), names=[f"merge {n}" for n in range(1, 11)])

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
def bpe_merges(words, num_merges):
    rank = {symbol: i for i, symbol in enumerate(sorted({s for word in words for s in word}))}
    merges = []
    for _ in range(num_merges):
        pairs = {}
        for word, count in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] = pairs.get(pair, 0) + count
        if not pairs:
            break
        (left, right), count = min(pairs.items(), key=lambda kv: (-kv[1], rank[kv[0][0]], rank[kv[0][1]]))
        joined = left + right
        rank.setdefault(joined, len(rank))
        merged = {}
        for word, n in words.items():
            out, i = [], 0
            while i < len(word):
                if word[i : i + 2] == (left, right):
                    out.append(joined)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + n
        words = merged
        merges.append((left, right, count))
    return merges


assert check("Exercise 1", exercise_1, list(range(10)), names=[f"merge {n}" for n in range(1, 11)])
solved_1 = True

# %% [markdown]
# `dl4nlp.bpe.train_bpe` is the same loop, made fast; below, your loop's
# merges side by side with the corpus after each.

# %%
# NBVAL_CHECK_OUTPUT
TOY = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
toy_bpe = train_bpe(TOY, num_merges=10)
learn = attempt(lambda: bpe_merges, lambda: merge_loop, name="Exercise 1", solved=solved_1)
print(f"alphabet: {toy_bpe.alphabet}")
print("your loop:", " ".join(f"{left}+{right}" for left, right, _ in learn(toy_words, 10)))
for n, merge in enumerate(toy_bpe.merges, start=1):
    prefix = train_bpe(TOY, num_merges=n)  # the merges learned so far
    corpus = "  ".join(f"{' '.join(prefix.tokenize_word(w))} ×{c}" for w, c in TOY.items())
    print(f"merge {n:2d}: {merge.left} + {merge.right} -> {merge.left + merge.right:7s} (count {merge.count}) | {corpus}")

# %% [markdown]
# The first pairs are *e s* and *s t*, both 9 times (in *newest* ×6 and *widest*
# ×3). Ties are broken as Hugging Face's trainer breaks them, towards the pair of
# older symbols (the alphabet in code-point order, then merges by age), so *es*
# comes first; then *es t* (9), then *l o* and *o w* (7 each), and *lo* wins the
# tie. That is the lecture's "es, est: 9 times; lo: 7 times". After three
# merges the vocabulary has the 10 characters and 3 merged symbols, and a word
# the corpus never had is spelled from them:

# %%
# NBVAL_CHECK_OUTPUT
vocabulary = train_bpe(TOY, num_merges=3).vocabulary
print(f"{len(vocabulary)} symbols: {vocabulary}")
print("'lowest' ->", train_bpe(TOY, num_merges=3).tokenize("lowest"), "| 'newer' ->", toy_bpe.tokenize("newer"))

# %% [markdown]
# **Where does a word end?** The lecture's other example appends an end-of-word
# symbol `</w>` to every word, so that a piece at the end of a word (*s</w>* in
# *takes*) differs from the same letters inside one (*s* in *boost*), and the
# spaces can be put back. Each word of *vietnam takes measures to boost rice
# exports* occurs once; run your loop on it until nothing is left to merge.

# %%
sentence = "vietnam takes measures to boost rice exports"
eow_words = {tuple(word) + ("</w>",): 1 for word in sentence.split()}
eow_merges = learn(eow_words, 100)
print(f"{len(eow_merges)} merges; the first three: {eow_merges[:3]}")
after_34 = {}
for word in eow_words:
    symbols = list(word)
    for left, right, _ in eow_merges[:34]:
        out, i = [], 0
        while i < len(symbols):
            if symbols[i : i + 2] == [left, right]:
                out.append(left + right)
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        symbols = out
    after_34[word] = symbols
print("after 34 merges:", " ".join(" ".join(symbols) for symbols in after_34.values()))

# %% [markdown]
# The first merge is *s </w>*, three times (*takes*, *measures*, *exports*), as on
# the slide. The slide stops at 34 merges, and its corpus column still shows
# *mea sures</w>* in two pieces: one word always needs one more merge, and which
# one depends on how ties among the many count-1 pairs are broken (ours leaves
# *expor ts</w>*). The 35th merge finishes.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The lecture's slide lists the vocabulary after three merges as
# "l, o, w, e, r, n, w, s, t, i, d, es, est, lo": it names *w* twice. There are
# 10 distinct characters, so 13 symbols, not 14 (the check below compares with
# the slide's list as a set).

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: the lecture's first merges and vocabulary
first_three = [(m.left + m.right, m.count) for m in toy_bpe.merges[:3]]
slide_vocabulary = ["l", "o", "w", "e", "r", "n", "w", "s", "t", "i", "d", "es", "est", "lo"]
claim(f"the first three merges are es (9), est (9) and lo (7): got {first_three}",
      first_three == [("es", 9), ("est", 9), ("lo", 7)])
claim(f"after them the vocabulary is the slide's, {len(vocabulary)} distinct symbols",
      sorted(vocabulary) == sorted(set(slide_vocabulary)) and len(vocabulary) == 13)
claim("the merge loop learns Hugging Face's 10 toy merges in order, and train_bpe's",
      [(a, b) for a, b, _ in learn(toy_words, 10)] == hf_toy_merges
      == [(m.left, m.right) for m in toy_bpe.merges])
claim(f"</w> example: the first merge is s+</w> (3 times); {len(eow_merges)} merges make every word one symbol",
      eow_merges[0] == ("s", "</w>", 3) and len(eow_merges) == 35
      and sum(len(symbols) > 1 for symbols in after_34.values()) == 1)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. WordPiece scores a merge differently
#
# BERT's tokenizer, WordPiece (Schuster and Nakajima, 2012; Wu et al., 2016),
# grows its vocabulary the same way but picks the pair that most increases the
# likelihood of the training data, which amounts to the score
#
# $$\operatorname{score}(a, b) = \frac{P(ab)}{P(a)\,P(b)} \;\propto\; \frac{\operatorname{count}(ab)}{\operatorname{count}(a)\,\operatorname{count}(b)} .$$
#
# BPE asks "which pair is frequent?"; WordPiece asks "which pair occurs together
# more often than its parts would by chance?", so it prefers pairs of rare
# symbols that always appear together. *e* and *w* are the two most frequent
# symbols of the toy corpus (17 and 16 times), yet adjacent only 8 times; BPE
# merged *e s* (9 times) first.
#
# **Exercise 2 (predict, then run).** Before running the next cell, find the
# pair of the toy corpus with the highest WordPiece score, by hand, and write
# down its score (a fraction is fine: `3 / 9`).

# %%
prediction_2 = None  # your prediction: the highest score of any adjacent pair in the toy corpus
solved_2 = check("Exercise 2", prediction_2, 1 / 3, atol=1e-3)

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 1
# i and d occur only in *widest* (3 times each) and always together: 3 / (3 · 3) = 1/3.
# No other pair comes close: e s scores 9 / (17 · 9) = 1/17.
prediction_2 = 3 / (3 * 3)
assert check("Exercise 2", prediction_2, 1 / 3, atol=1e-3)
solved_2 = True

# %% [markdown]
# Now run WordPiece's trainer beside BPE's:

# %%
# NBVAL_CHECK_OUTPUT
wordpiece_toy = train_bpe(TOY, num_merges=6, score="wordpiece")
print("BPE      :", [f"{m.left}+{m.right} ({m.count})" for m in toy_bpe.merges[:6]])
print("WordPiece:", [f"{m.left}+{m.right} ({m.score:.4f})" for m in wordpiece_toy.merges])

# %% [markdown]
# **Why the scores go down, then up.** The fourth merge scores 0.0625 and the
# fifth 0.0769: a later merge can score more than an earlier one. Before merge
# 4, *w* occurs 16 times, and two pairs tie at exactly $1/16$: *w id*
# ($3 / (16 \cdot 3)$) and *lo w* ($7 / (7 \cdot 16)$). The tie goes to the pair
# of older symbols, and *w* (a character) is older than *lo* (a merge). Merging
# *w id* takes three *w* away, so count(*w*) drops to 13, and *lo w* now scores
# $7 / (7 \cdot 13) = 1/13 \approx 0.0769$. Scores are recomputed after every
# merge, and merges change the counts in the denominator.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** The lecture's slide words BPE's rule as merging the symbols
# "having highest $\Pr(s^{(i)})$ and $\Pr(s^{(j)})$". What BPE maximises is the
# frequency of the *pair*: *e* and *w*, the two most frequent symbols, are
# merged by neither trainer first.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: WordPiece's scores on the toy corpus
first, fourth, fifth = wordpiece_toy.merges[0], wordpiece_toy.merges[3], wordpiece_toy.merges[4]
claim(f"WordPiece merges i+d first, at 3 / (3 · 3) = {first.score:.4f}",
      (first.left, first.right) == ("i", "d") and math.isclose(first.score, 3 / (3 * 3)))
symbol_counts = {ch: sum(c * w.count(ch) for w, c in TOY.items()) for ch in toy_bpe.alphabet}
adjacent_we = sum(c * w.count("we") for w, c in TOY.items())
claim(f"e and w are the most frequent symbols ({symbol_counts['e']} and {symbol_counts['w']}), "
      f"adjacent only {adjacent_we} times, fewer than BPE's first merge's {toy_bpe.merges[0].count}",
      sorted(symbol_counts, key=symbol_counts.get)[-2:] == ["w", "e"] and symbol_counts["e"] == 17
      and adjacent_we == 8 < toy_bpe.merges[0].count == 9)
three = train_bpe(TOY, num_merges=3, score="wordpiece")
w_count = sum(c * three.tokenize_word(word).count("w") for word, c in TOY.items())
claim(f"before merge 4, w occurs {w_count} times, so w+id and lo+w tie at 1/16",
      w_count == 16 and 3 / (w_count * 3) == 7 / (7 * w_count) == 1 / 16)
claim(f"merge 4 is w+id at {fourth.score:.4f} = 1/16 (the tie broken by age), merge 5 lo+w at {fifth.score:.4f} = 1/13",
      (fourth.left, fourth.right, fourth.score) == ("w", "id", 1 / 16)
      and (fifth.left, fifth.right) == ("lo", "w") and math.isclose(fifth.score, 1 / 13))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. A vocabulary for BERT: pieces that start and pieces that continue
#
# BERT's pieces come in two kinds: a piece that *starts* a word (`play`) and a
# piece that *continues* one, marked `##` (`##ing`). Hugging Face trains such a
# vocabulary (`WordPieceTrainer`) with BPE in which every character after a
# word's first carries the prefix, `p ##l ##a ##y`, and `##` is dropped inside a
# merge (`##in` + `##g` = `##ing`); `train_bpe(..., continuation="##")` does the
# same. (Its merges are chosen by frequency, not by the likelihood score above.)
# Google never released WordPiece's trainer; Hugging Face's course calls its own
# "our best guess based on the published literature", and so is ours.
#
# `WordPiece.train` learns 4,096 pieces this way from the first 80 % of the
# paragraphs of *The Adventures of Sherlock Holmes* and of TinyStories, with
# every quotation mark removed (chapter 13 explains why). This is the
# vocabulary the tiny BERT of chapter 13 was pre-trained with.

# %%
documents = {"train": pretraining_documents("train"), "held_out": pretraining_documents("held_out")}
ours = WordPiece.train((sentence for doc in documents["train"] for sentence in doc), vocab_size=4096)
inner = [t for t in ours.itos if t.startswith("##")]
print(f"{len(ours):,} pieces: 5 special, {len(inner):,} word-inner (##), {len(ours) - 5 - len(inner):,} word-initial")
print(ours.tokenize("Sherlock Holmes was playing the violin, unbelievably happily."))

# %% [markdown]
# **Compare with the reference.** Without the prefix, our BPE learns exactly
# the merges of Hugging Face's `BpeTrainer` (a Rust implementation used in
# production), in the same order, on the same text and word splitting:

# %%
stories = load_text("tinystories.txt")[:300_000].lower()
bpe = train_bpe(word_counts(stories), num_merges=300, fast=True)
reference = Tokenizer(models.BPE())
reference.pre_tokenizer = pre_tokenizers.Whitespace()  # pre_tokenize splits like it (characters Python knows)
reference.train_from_iterator([stories], trainers.BpeTrainer(vocab_size=len(bpe.alphabet) + 300, show_progress=False))
reference_merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
                    for m in json.loads(reference.to_str())["model"]["merges"]]
print("first 12 merges:", " ".join(m.left + m.right for m in bpe.merges[:12]))

# %% [markdown]
# **Where they differ: characters never seen.** The same two tokenizers on a line
# of *Sherlock Holmes*, which has characters 300,000 characters of TinyStories
# never showed them:

# %%
line = "cold woodcock, a pheasant, a _pâté de foie gras_ pie with a group of"
unseen = sorted({ch for ch in line.lower() if not ch.isspace()} - set(bpe.alphabet))
print("characters outside the training alphabet:", unseen)
print("ours:        ", bpe.tokenize(line.lower()))
print("Hugging Face:", reference.encode(line.lower()).tokens)

# %% [markdown]
# Ours keeps *é* and the underscores as single-character pieces (a model would
# still need an unknown-token id for them); Hugging Face's BPE, given no unknown
# token, drops them without a word: *pâté* comes back as *p â t*.

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** `dl4nlp.bpe.pre_tokenize` equals Hugging Face's `Whitespace`
# pre-tokenizer on any text whose characters Python's Unicode database knows
# (a property test in `tests/test_bpe.py`): the Rust pattern `\w+|[^\w\s]+`
# uses Unicode's word class, which excludes numerals such as ½ and ² (Python's
# `\w` includes them) and includes combining accents (Python's excludes them).

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: our trainers against Hugging Face's and against chapter 13's model
ours_merges = [(m.left, m.right) for m in bpe.merges]
claim(f"dl4nlp.bpe learns the same {len(reference_merges)} merges as tokenizers' BpeTrainer, in the same order",
      ours_merges == reference_merges and len(reference_merges) == 300)
hf_pieces, our_pieces = reference.encode(line.lower()).tokens, bpe.tokenize(line.lower())
claim(f"on the Sherlock Holmes line, {unseen} are outside the alphabet; ours keeps them, Hugging Face drops "
      f"{len(our_pieces) - len(hf_pieces)} pieces", unseen == ["_", "é"] and "é" in our_pieces
      and not set(unseen) & set("".join(hf_pieces)) and [p for p in our_pieces if p not in unseen] == hf_pieces)
_, pretrained_tokenizer = load_pretrained()
claim(f"the {len(ours):,}-piece vocabulary built here is the one the tiny BERT of chapter 13 was trained with",
      ours.itos == pretrained_tokenizer.itos)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. Splitting new text: greedy longest match, not replaying merges
#
# BPE splits a new word by replaying its merges in the order they were learned.
# WordPiece does something else: it keeps only the *vocabulary* and, for each
# word, takes the **longest** piece that starts the word, then the longest
# `##` piece that continues from there, and so on (Wu et al., 2016; BERT's
# `tokenization.py`). If at some point no piece fits, the whole word becomes
# `[UNK]`. Greedy is not always right: with the pieces `ab`, `a`, `##bc`, `##d`,
# the word *abcd* has a split (`a ##bc ##d`), but greedy takes `ab` and is stuck.
#
# **Exercise 3.** Write `greedy_wordpiece(word, pieces)`: split `word` by
# taking the longest entry of `pieces` that starts the word, then the longest
# `"##" + ...` entry that continues it, and so on; if at some point nothing
# fits, return `["[UNK]"]` for the whole word. The check runs it on 300 words of
# held-out text with our vocabulary and compares with the library, piece by
# piece.

# %%
def greedy_wordpiece(word, pieces):
    # your code here: return the list of pieces of `word`
    raise NotImplementedError


held_out_text = [s for doc in documents["held_out"][:400] for s in doc]
exercise_words = sorted({w for s in held_out_text[:200] for w in s.lower().split() if w.isalpha()})[:300]
exercise_pieces = set(ours.itos)


def exercise_3():
    """The ids of your pieces, word after word (an id per piece, -1 where a piece is not in the vocabulary)."""
    return [ours.stoi.get(p, -1) for w in exercise_words for p in greedy_wordpiece(w, exercise_pieces)]


exercise_3_reference = [ours.stoi[p] for w in exercise_words for p in ours.tokenize_word(w)]
solved_3 = check("Exercise 3", exercise_3, exercise_3_reference)

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 2
def greedy_wordpiece(word, pieces):
    out, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):  # the longest candidate first
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in pieces:
                out.append(piece)
                start = end
                break
        else:  # nothing continues the word from here: the whole word is unknown
            return ["[UNK]"]
    return out


assert check("Exercise 3", exercise_3, exercise_3_reference)
solved_3 = True

# %% [markdown]
# Your function (or, until you solve exercise 2, the library's) on the toy
# vocabulary, where greedy gets stuck:

# %%
# NBVAL_CHECK_OUTPUT
split = attempt(lambda: greedy_wordpiece, lambda: (lambda word, pieces: WordPiece(sorted(pieces)).tokenize_word(word)),
                name="Exercise 3", solved=solved_3)
toy_pieces = ["ab", "a", "##bc", "##d"]
print("'abcd' with pieces ab, a, ##bc, ##d ->", split("abcd", set(toy_pieces)))

# %% [markdown]
# **Compare with the reference.** `dl4nlp.wordpiece.WordPiece` implements the
# same greedy rule. The reference is the `WordPiece` model of Hugging Face's
# `tokenizers`, given the same vocabulary; we run both on every held-out
# sentence.

# %%
def hugging_face_wordpiece(vocab):
    """Hugging Face's WordPiece model on ``vocab``'s pieces (ids kept), lowercased, split like ours."""
    hf = Tokenizer(models.WordPiece({t: i for i, t in enumerate(vocab.itos)}, unk_token="[UNK]"))
    hf.normalizer, hf.pre_tokenizer = normalizers.Lowercase(), pre_tokenizers.Whitespace()
    return hf


hf_ours = hugging_face_wordpiece(ours)
agree = sum(ours.encode(s) == hf_ours.encode(s).ids for s in held_out_text)
print(f"greedy longest match == tokenizers' WordPiece on {agree:,} of {len(held_out_text):,} held-out sentences")

# %% [markdown]
# **BERT's real vocabulary.** `data/bert_base_uncased_vocab.txt` is
# `bert-base-uncased`'s `vocab.txt` (30,522 lines; its Git hash is the one the
# Hugging Face hub serves). The lecture's figure writes *playing* as
# `play ##ing`; in the real vocabulary *playing* is a single entry, and so is
# *cute*: the figure illustrates what WordPiece can do, not what BERT does to
# that sentence. A word the vocabulary lacks is split, and both tokenizers
# split it the same way.

# %%
# NBVAL_CHECK_OUTPUT
bert_vocab = WordPiece.from_file(data_path("bert_base_uncased_vocab.txt"))
hf_bert = hugging_face_wordpiece(bert_vocab)
examples = ["my dog is cute he likes playing", "unbelievably tokenization", "Sherlock Holmes and Dr. Watson"]
for text in examples:
    print(f"{text!r:38} -> {bert_vocab.tokenize(text)}")

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: greedy longest match, ours and Hugging Face's
claim(f"with pieces ab, a, ##bc, ##d, greedy gives up on 'abcd': {WordPiece(toy_pieces).tokenize_word('abcd')}",
      WordPiece(toy_pieces).tokenize_word("abcd") == ["[UNK]"])
claim(f"our WordPiece equals Hugging Face's on all {len(held_out_text):,} held-out sentences (our vocabulary)",
      agree == len(held_out_text))
bert_agree = sum(bert_vocab.encode(s) == hf_bert.encode(s).ids for s in held_out_text[:200] + examples)
claim(f"and on {bert_agree} of {200 + len(examples)} sentences with bert-base-uncased's vocabulary",
      bert_agree == 200 + len(examples))
claim(f"bert-base-uncased has {len(bert_vocab):,} entries; [PAD], [CLS], [SEP], [MASK] are ids 0, 101, 102, 103",
      len(bert_vocab) == 30522 and [bert_vocab[t] for t in ("[PAD]", "[CLS]", "[SEP]", "[MASK]")] == [0, 101, 102, 103])
claim("'playing' and 'cute' are single entries (so are 'play' and '##ing'): the lecture's sentence is not split",
      {"playing", "cute", "play", "##ing"} <= set(bert_vocab.stoi)
      and bert_vocab.tokenize(examples[0]) == examples[0].split())

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Marking words, and byte-level BPE
#
# A tokenizer must remember where words end, or it cannot put the spaces back.
# There are three conventions. The BPE of Sennrich et al. (and the lecture's
# slide) appends an **end-of-word marker** `</w>` to the last symbol of a word,
# so *rice* ends in `e</w>` and *es</w>* is a different symbol from the *es*
# inside *estimate*. WordPiece marks the **inside** of a word instead: every piece
# but the first carries `##`. GPT-2's **byte-level BPE** keeps the space itself:
# a word carries the space before it, written `Ġ`.
#
# Byte-level BPE (Radford et al., 2019) starts from the 256 possible *bytes*
# (the lecture's "Unicode bytes as base symbols"), so no text is ever unknown.
# UTF-8 writes a character as one to four bytes, and an emoji with a skin tone
# is two characters.
#
# **Exercise 4 (predict, then run).** How many bytes are *é*, *🙂* and *👍🏽*
# in UTF-8? Predict, then run the cell after the solution to see.

# %%
prediction_4 = None  # your predictions, as a dict: {"é": ..., "🙂": ..., "👍🏽": ...}
solved_4 = check("Exercise 4", prediction_4, {"é": 2, "🙂": 4, "👍🏽": 8})

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 3
# é is U+00E9: two bytes. 🙂 is U+1F642, above U+FFFF: four bytes. 👍🏽 is 👍 (four bytes)
# followed by the skin-tone modifier U+1F3FD (four more).
prediction_4 = {"é": 2, "🙂": 4, "👍🏽": 8}
assert check("Exercise 4", prediction_4, {"é": 2, "🙂": 4, "👍🏽": 8})
solved_4 = True

# %% [markdown]
# `dl4nlp.bytelevel` learns merges on those bytes with the same BPE trainer;
# the reference is Hugging Face's `ByteLevelBPETokenizer` trained on the same
# text, the first 100,000 characters of *Sherlock Holmes*.

# %%
sherlock = load_text("sherlock_holmes.txt")[:100_000]
byte_bpe = ByteBPE.train([sherlock], num_merges=200)
hf_bytes = ByteLevelBPETokenizer(add_prefix_space=False)
hf_bytes.train_from_iterator([sherlock], vocab_size=256 + 200, min_frequency=0, show_progress=False,
                             special_tokens=[])
hf_merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
             for m in json.loads(hf_bytes._tokenizer.to_str())["model"]["merges"]]
text = "Café naïve résumé — “Holmes!” 🙂👍🏽"
pieces = byte_bpe.tokenize(text)
print("byte-level pieces:", pieces)
print("decoded:          ", byte_bpe.decode(pieces))
print("our WordPiece:    ", ours.tokenize(text))
print(f"'é' is {len(to_bytes('é'))} bytes, '🙂' is {len(to_bytes('🙂'))}, '👍🏽' is {len(to_bytes('👍🏽'))}")

# %% [markdown]
# The byte-level pieces equal Hugging Face's, merge for merge and piece for
# piece, and decoding gives the text back exactly. Our WordPiece vocabulary has
# never seen an emoji: the word becomes `[UNK]` and the emoji is lost.
#
# **SentencePiece, briefly.** *SentencePiece* (Kudo and Richardson, 2018) is a
# library that runs BPE or the Unigram tokenizer of section 6 on raw text, with
# the space treated as an ordinary symbol (written `▁`), so no language-specific
# word splitting is needed; T5, ALBERT and XLNet use it.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: byte-level BPE against Hugging Face's
claim(f"our byte-level BPE learns Hugging Face's {len(hf_merges)} merges, in the same order",
      [(m.left, m.right) for m in byte_bpe.bpe.merges] == hf_merges and len(hf_merges) == 200)
claim(f"it splits the accented, emoji-laden sentence into the same {len(pieces)} pieces",
      pieces == hf_bytes.encode(text).tokens)
claim("decoding gives the sentence back exactly, ours and Hugging Face's",
      byte_bpe.decode(pieces) == text == hf_bytes.decode(hf_bytes.encode(text).ids))
claim(f"é, 🙂 and 👍🏽 are {len(to_bytes('é'))}, {len(to_bytes('🙂'))} and {len(to_bytes('👍🏽'))} bytes",
      [len(to_bytes(c)) for c in ("é", "🙂", "👍🏽")] == [2, 4, 8])
claim("our WordPiece loses the emoji to [UNK]; the byte-level pieces never do",
      "[UNK]" in ours.tokenize(text) and "[UNK]" not in pieces)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. Unigram: start big, keep the pieces the likelihood needs
#
# BPE and WordPiece grow a vocabulary bottom-up, merge by merge. The **Unigram
# language model** (Kudo, 2018) goes top-down. Each piece $x$ of the vocabulary
# has a probability $p(x)$, and a word split into pieces $x_1, \dots, x_m$ has
# probability $\prod_i p(x_i)$: the pieces are drawn independently, a unigram
# model. A word has many splits; the tokenizer takes the most probable,
#
# $$\mathbf{x}^* = \arg\max_{x_1 \cdots x_m = w} \; \sum_{i=1}^{m} \log p(x_i).$$
#
# A word of $n$ characters has $2^{n-1}$ splits, but the best one is found in
# about $n \times$ (longest piece) steps by **Viterbi**: let $b_e$ be the best
# log-probability of the first $e$ characters; then
# $b_0 = 0$ and $b_e = \max_{s < e} \, b_s + \log p(w_{s:e})$ over the pieces
# $w_{s:e}$ in the vocabulary. Remember which $s$ won at each $e$, and walk
# back from the end. Below, a small vocabulary (log-probabilities made up for
# the example) and every split of *lowest* it allows:

# %%
# NBVAL_CHECK_OUTPUT
toy_counts = {"l": 8, "o": 6, "w": 10, "e": 12, "s": 9, "t": 9, "lo": 4, "low": 7, "es": 5, "est": 6, "we": 3}
toy_log_probs = {piece: math.log(c / sum(toy_counts.values())) for piece, c in toy_counts.items()}
toy_splits = sorted(((sum(toy_log_probs[p] for p in split), split) for split in unigram_splits("lowest", toy_log_probs)),
                    reverse=True)
print(f"{len(toy_splits)} splits of 'lowest' with these pieces; the best three:")
for score, split in toy_splits[:3]:
    print(f"  {' + '.join(split):22s} log-probability {score:.3f}")

# %% [markdown]
# Fewer pieces usually win, because every extra factor $p(x_i) < 1$ costs
# probability; but *low + est* beats *lo + w + est* only because *low* is
# probable enough on its own.
#
# **Exercise 5.** Write `viterbi_split(word, log_probs)`: the most probable
# split of `word` into pieces of the dict `log_probs` (piece → log-probability),
# as a list of pieces. Keep, for every end position, the best score and where
# its last piece started; on a tie keep the first start you tried, going from
# left to right. The check splits 300 held-out words with a vocabulary trained
# below and compares the log-probability of your split of each word with the
# best one.

# %%
def viterbi_split(word, log_probs):
    raise NotImplementedError  # your code here: return the list of pieces


def exercise_5():
    """The log-probability of your split of each held-out word (-inf where it is not a split into pieces)."""
    scores = {}
    for w in unigram_words:
        split = viterbi_split(w, unigram.log_probs)
        valid = "".join(split) == w and all(p in unigram.log_probs for p in split)
        scores[w] = sum(unigram.log_probs[p] for p in split) if valid else -math.inf
    return scores


stories_held_out = [t for t in load_text("tinystories.txt")[300_000:340_000].split("\n") if t.strip()]
unigram = Unigram.train(word_counts(stories), vocab_size=len(bpe.vocabulary))  # trained and explained below
unigram_words = sorted({w for t in stories_held_out for w in pre_tokenize(t) if set(w) <= set(unigram.log_probs)})[:300]
exercise_5_reference = {w: viterbi(w, unigram.log_probs)[1] for w in unigram_words}
solved_5 = check("Exercise 5", exercise_5, exercise_5_reference)

# %% cellView="form" jupyter={"source_hidden": true} tags=["solution"]
# @title Solution to exercise 5
def viterbi_split(word, log_probs):
    longest = max(len(p) for p in log_probs)
    best, start_of = [0.0] + [None] * len(word), [0] * (len(word) + 1)
    for end in range(1, len(word) + 1):
        for start in range(max(0, end - longest), end):
            piece = word[start:end]
            if best[start] is not None and piece in log_probs:
                score = best[start] + log_probs[piece]
                if best[end] is None or score > best[end]:  # strictly better: the first start keeps a tie
                    best[end], start_of[end] = score, start
    pieces, end = [], len(word)
    while end > 0:
        pieces.append(word[start_of[end] : end])
        end = start_of[end]
    return pieces[::-1]


assert check("Exercise 5", exercise_5, exercise_5_reference)
solved_5 = True

# %% [markdown]
# **Training: EM, then pruning.** Where do the probabilities come from? Kudo's
# trainer starts from a *seed* vocabulary far larger than wanted: every
# character and the most frequent substrings of the words (we take 10 times the
# final size, ranked by count × length). Then it alternates:
#
# - **E-step.** With the current probabilities, count how often each piece is
#   *expected* to be used: every split of every word contributes, weighted by
#   its probability. Summing over all splits is the forward–backward algorithm
#   on the word's lattice of pieces (Viterbi's recursion with a sum instead of
#   a max); `dl4nlp.unigram` does that exactly, as Hugging Face's trainer does,
#   rather than counting the best split only.
# - **M-step.** The new $p(x)$ is $x$'s expected count divided by the total.
# - **Prune.** For each piece, estimate how much the corpus's log-likelihood
#   would drop without it: its words would fall back to their next best split.
#   Keep the 75 % of pieces with the largest loss (single characters always
#   stay, so every word stays splittable) and repeat, until the vocabulary
#   has the size wanted.
#
# `Unigram.train` runs this on the same 300,000 characters of TinyStories as
# BPE in section 3, down to BPE's vocabulary size. Each line is one round: the
# pieces kept and the average log-likelihood of a training word.

# %%
print(f"{len(unigram)} pieces, BPE's {len(bpe.vocabulary)}; the most probable:",
      " ".join(p for p, _ in unigram.pieces[:16]))
for size, log_likelihood in unigram.history:
    print(f"{size:5,d} pieces: log-likelihood per word {log_likelihood:.3f}")

# %% [markdown]
# Every round keeps three quarters of the pieces (the last stops at 346), and
# the likelihood falls each time: the pruning removes what the corpus needs least, but a
# smaller vocabulary explains the text less well.
#
# **Compare with the reference.** Hugging Face's `tokenizers` has a `Unigram`
# model that takes exactly this: a list of (piece, log-probability) pairs.
# Given ours, plus `[UNK]` for characters outside the vocabulary, it must split
# every held-out sentence as ours does, and as your `viterbi_split` does.

# %%
hf_unigram = Tokenizer(models.Unigram([("[UNK]", 0.0)] + unigram.pieces, unk_id=0))
hf_unigram.normalizer, hf_unigram.pre_tokenizer = normalizers.Lowercase(), pre_tokenizers.Whitespace()
unigram_ids = {piece: i for i, (piece, _) in enumerate([("[UNK]", 0.0)] + unigram.pieces)}
my_split = attempt(lambda: viterbi_split, lambda: (lambda word, lp: viterbi(word, lp)[0]), name="Exercise 5",
                   solved=solved_5)
covered = [t for t in stories_held_out if set(t.lower()) - set(" ") <= set(unigram.log_probs)]
yours_agree = sum([p for w in pre_tokenize(t) for p in my_split(w, unigram.log_probs)] == hf_unigram.encode(t).tokens
                  for t in covered)
sherlock_lines = [t for t in load_text("sherlock_holmes.txt").split("\n") if t.strip()][:2000]
library_agree = sum([unigram_ids[p] for p in unigram.tokenize(t)] == hf_unigram.encode(t).ids for t in sherlock_lines)
print(f"your split == Hugging Face's on {yours_agree} of {len(covered)} held-out TinyStories lines")
print(f"dl4nlp.unigram == Hugging Face's on {library_agree:,} of {len(sherlock_lines):,} lines of Sherlock Holmes")
print("'pâté' line:", unigram.tokenize(line))

# %% [markdown]
# The Sherlock Holmes lines include characters TinyStories never had (*é*,
# *_*, curly quotes): both tokenizers make each of them `[UNK]`, scored 10
# below the least probable piece, as SentencePiece does.
#
# **Three tokenizers, one text.** BPE (section 3), Unigram, and a WordPiece
# vocabulary trained on the same text, all of about the same size, on two
# held-out sentences:

# %%
wordpiece_small = WordPiece.train([stories], vocab_size=len(bpe.vocabulary) + 5)  # + the 5 special tokens
three = {"BPE": bpe.tokenize, "Unigram": unigram.tokenize, "WordPiece": wordpiece_small.tokenize}
for t in stories_held_out[3:5]:
    print(t)
    for name, tokenize in three.items():
        print(f"  {name:9s}", " ".join(tokenize(t)))
held_out_words = sum(len(pre_tokenize(t)) for t in stories_held_out)
pieces_per_word = {name: sum(len(tokenize(t)) for t in stories_held_out) / held_out_words
                   for name, tokenize in three.items()}
print("pieces per held-out word:", {name: round(v, 3) for name, v in pieces_per_word.items()})

# %% [markdown]
# With the same budget of pieces, Unigram and BPE cut held-out text into about
# as many pieces per word (within 5 %; here Unigram needs fewer, but on other
# slices of TinyStories BPE does), and the pieces differ: Unigram keeps
# *wonderful*, *about*, *sure* and *two* whole, which BPE cuts, and spends
# pieces on single letters (*s a m*) where BPE has *sa m*. WordPiece, here trained
# by frequency, needs the most on every slice: its budget pays for two copies of
# the alphabet (*a* and *##a*).

# %% [markdown] slideshow={"slide_type": "notes"}
# **Aside.** Where ours is simpler than SentencePiece and Hugging Face's
# `UnigramTrainer`: both smooth the M-step (a digamma of the expected counts,
# the "Bayesianified" EM the source comments name), drop pieces expected less
# than half a time (so do we), find seed substrings with a suffix array, and
# compute the pruning loss with a renormalisation we leave out. Kudo's paper
# also samples splits in proportion to their probability during training
# ("subword regularisation"), which the Unigram model makes possible and BPE
# does not.

# %% cellView="form" jupyter={"source_hidden": true} slideshow={"slide_type": "skip"} tags=["check"]
# @title Check: Viterbi, EM and pruning, against Hugging Face's Unigram
claim(f"'lowest' has {len(toy_splits)} splits into the toy pieces; the best is low + est",
      toy_splits[0][1] == ["low", "est"] and toy_splits[0][1] == viterbi("lowest", toy_log_probs)[0])
claim(f"the trained Unigram has {len(unigram)} pieces, as many as BPE's vocabulary",
      len(unigram) == len(bpe.vocabulary) == 346)
sizes = [size for size, _ in unigram.history]
likelihoods = [ll for _, ll in unigram.history]
claim(f"pruning shrank {sizes[0]:,} pieces to {sizes[-1]} in {len(sizes) - 1} rounds, the likelihood falling each time "
      f"({likelihoods[0]:.2f} to {likelihoods[-1]:.2f} per word)",
      all(a > b for a, b in zip(sizes, sizes[1:])) and all(a > b for a, b in zip(likelihoods, likelihoods[1:])))
claim("the held-out TinyStories lines are not in the training text",
      not any(t.lower() in stories for t in stories_held_out) and len(stories_held_out) > 100)
claim(f"dl4nlp.unigram splits all {len(sherlock_lines):,} Sherlock Holmes lines as Hugging Face's Unigram model",
      library_agree == len(sherlock_lines))
claim(f"and the Viterbi split equals Hugging Face's on all {len(covered)} held-out TinyStories lines",
      yours_agree == len(covered) > 100)
whole = ["wonderful", "about", "sure", "two"]
claim(f"{', '.join(whole)} are one Unigram piece each and split by BPE",
      all(unigram.tokenize(w) == [w] and len(bpe.tokenize(w)) > 1 for w in whole))
claim(f"pieces per held-out word: Unigram {pieces_per_word['Unigram']:.3f} and BPE {pieces_per_word['BPE']:.3f} "
      f"(within 5 %), WordPiece the most, {pieces_per_word['WordPiece']:.3f}",
      abs(pieces_per_word["Unigram"] / pieces_per_word["BPE"] - 1) < 0.05
      and max(pieces_per_word["Unigram"], pieces_per_word["BPE"]) < pieces_per_word["WordPiece"])

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Summary
#
# - BPE merges the most frequent adjacent pair, again and again: on the lecture's corpus *es* (9), *est* (9), then *lo* (7). You wrote the loop (ties to the older pair, as Hugging Face breaks them); with an end-of-word `</w>`, *s</w>* is the first merge of the lecture's sentence and 35 merges make every word one symbol. `dl4nlp.bpe` learns the same 300 merges as Hugging Face's trainer on TinyStories, but keeps characters it never saw (*é* in *pâté*) where Hugging Face's BPE drops them.
# - WordPiece's score count(ab) / (count(a) count(b)) prefers rare symbols that always occur together (*i d*, 1/3, first), and its scores can rise again after a tie broken by age (1/16, then 1/13).
# - BERT's vocabulary has word-initial pieces and `##` pieces; ours has 4,096, learned from two books, and is the one chapter 13's tiny BERT reads.
# - WordPiece splits new text greedily, longest piece first, and gives up on a word with `[UNK]`; our implementation equals Hugging Face's on every held-out sentence, with our vocabulary and with `bert-base-uncased`'s 30,522 entries, where *playing* and *cute* are single entries.
# - Byte-level BPE starts from 256 bytes, never meets an unknown character (*é* is 2 bytes, *👍🏽* is 8) and round-trips accents and emoji exactly; its 200 merges equal Hugging Face's.
# - Unigram (Kudo, 2018) goes top-down: pieces with probabilities, each word split by Viterbi into its most probable split (*low + est* of 11 toy splits). EM with forward–backward and pruning shrank 1,700 seed pieces to 346 in 6 rounds; the split equals Hugging Face's `Unigram` model on all 2,000 Sherlock Holmes lines and 200 held-out TinyStories lines, and at BPE's vocabulary size it needs about as many pieces per held-out word as BPE (1.57 and 1.61, within 5 % on every slice we tried) and fewer than WordPiece (1.74), with different pieces.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## What comes next
#
# Chapter 13 puts the vocabulary to work: a tiny BERT reads it, is pre-trained
# by filling in hidden pieces (15 % of them, 80/10/10), and is then adapted to a
# task with few labels. Whole-word masking there needs exactly the `##` marks
# of section 3.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## References
#
# - R. Sennrich, B. Haddow, A. Birch, *Neural machine translation of rare words with subword units*, ACL (2016).
# - M. Schuster, K. Nakajima, *Japanese and Korean voice search*, ICASSP (2012); Y. Wu et al., *Google's neural machine translation system*, arXiv (2016).
# - T. Kudo, *Subword regularization*, ACL (2018); T. Kudo, J. Richardson, *SentencePiece*, EMNLP (2018).
# - A. Radford, J. Wu, R. Child, D. Luan, D. Amodei, I. Sutskever, *Language models are unsupervised multitask learners* (GPT-2), OpenAI (2019).
# - J. Devlin, M.-W. Chang, K. Lee, K. Toutanova, *BERT: Pre-training of deep bidirectional Transformers for language understanding*, NAACL (2019), and its `tokenization.py`.
# - Hugging Face, *tokenizers* (the reference of sections 3 to 5).

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Check your understanding
#
# A few questions to answer without code, about what this chapter showed. Click an answer to see whether it is right and why; the section named under each question is where the chapter shows it.

# %%
from dl4nlp import quiz

quiz.show("12")

# %% [markdown] slideshow={"slide_type": "skip"}
# ## Instructor notes
#
# - Nothing here is trained beforehand: every vocabulary is learned live
#   (about 15 s in all). The check of section 3 loads `data/tiny_bert.pt`
#   (made by `python -m dl4nlp.recipes.tiny_bert --out data/tiny_bert.pt`) only
#   to compare its vocabulary with the one built here.
# - The tokenizers are deterministic (no seed); the library's equalities with
#   Hugging Face are also unit tests (`tests/test_bpe.py`,
#   `tests/test_wordpiece.py`, `tests/test_bytelevel.py`, `tests/test_unigram.py`),
#   and `tests/claims/test_12_tokenizers.py` checks section 6's comparison on
#   other slices of TinyStories.
# - Section 6's Unigram trainer (`dl4nlp.unigram`) is plain maximum-likelihood
#   EM with exact forward–backward expected counts and SentencePiece's
#   Viterbi-based pruning loss without its renormalisation; the reference for
#   the Viterbi split is `tokenizers.models.Unigram` built from our pieces
#   (there is no reference for the trainer: Hugging Face's `UnigramTrainer`
#   smooths the M-step with a digamma and seeds from a suffix array, so its
#   vocabulary differs). The live training takes about 2 s.
# - Hugging Face's `tokenizers` writes merges as `"a b"` strings in older
#   versions and as `["a", "b"]` pairs in newer ones; the cells accept both.
# - `data/bert_base_uncased_vocab.txt` is the hub's file for `bert-base-uncased`
#   (its provenance is in `data/README.md`).
