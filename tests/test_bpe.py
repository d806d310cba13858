"""dl4nlp.bpe: the lecture's worked example, readable == fast, and the Hugging Face trainer as the reference."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dl4nlp.bpe import merge_loop, pre_tokenize, train_bpe, word_counts

TOY = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def test_lecture_example_merges_es_est_lo():
    bpe = train_bpe(TOY, num_merges=3)
    assert [(m.left, m.right, m.count) for m in bpe.merges] == [("e", "s", 9), ("es", "t", 9), ("l", "o", 7)]
    assert bpe.vocabulary == ["d", "e", "i", "l", "n", "o", "r", "s", "t", "w", "es", "est", "lo"]
    assert bpe.tokenize("lowest newer") == ["lo", "w", "est", "n", "e", "w", "e", "r"]
    assert bpe.tokenize("widest", continuation="##") == ["w", "##i", "##d", "##est"]


def test_wordpiece_score_prefers_pairs_of_rare_symbols():
    wp = train_bpe(TOY, num_merges=1, score="wordpiece")
    first = wp.merges[0]
    assert (first.left, first.right) == ("i", "d")  # 3 / (3 * 3) beats e,s: 9 / (17 * 9)
    assert first.score == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="score='frequency' only; got score='wordpiece'"):
        train_bpe(TOY, 1, score="wordpiece", fast=True)


words = st.dictionaries(st.text(alphabet="abcde", min_size=1, max_size=7), st.integers(1, 20), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(counts=words, num_merges=st.integers(0, 25))
def test_fast_path_learns_the_same_merges(counts, num_merges):
    slow = train_bpe(counts, num_merges)
    fast = train_bpe(counts, num_merges, fast=True)
    assert slow.merges == fast.merges
    for word in counts:  # a training word splits into pieces that join back to it
        assert "".join(slow.tokenize_word(word)) == word


def test_training_stops_when_every_word_is_one_symbol():
    bpe = train_bpe({"ab": 3, "c": 1}, num_merges=10)
    assert [m.left + m.right for m in bpe.merges] == ["ab"]


def test_merges_equal_hugging_face_tokenizers_trainer():
    tokenizers = pytest.importorskip("tokenizers")
    text = " ".join(f"{w} " * c for w, c in TOY.items()) + " the theory of these other thermal things, they said."
    text = text * 3
    mine = train_bpe(word_counts(text), num_merges=40, fast=True)
    reference = tokenizers.Tokenizer(tokenizers.models.BPE())
    reference.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=len(mine.alphabet) + 40, show_progress=False)
    reference.train_from_iterator([text.lower()], trainer)
    merges = json.loads(reference.to_str())["model"]["merges"]
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in merges]
    assert [(m.left, m.right) for m in mine.merges] == merges
    sentence = "the lowest thermal newer widest"
    assert mine.tokenize(sentence) == reference.encode(sentence).tokens


# Characters Python's Unicode database knows (not unassigned, not surrogates): where Rust's newer tables
# assign a character Python's does not know yet, the two cannot agree (see dl4nlp.bpe).
known = st.characters(exclude_categories=("Cn", "Cs"))


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet=known, max_size=40)
    | st.text(alphabet=st.sampled_from("ab ½²\u0301é_-.,\u200d\u24b6\x1c\xa0"), max_size=20)
)
def test_pre_tokenize_equals_tokenizers_whitespace_on_any_text(text):
    tokenizers = pytest.importorskip("tokenizers")
    reference = [piece for piece, _ in tokenizers.pre_tokenizers.Whitespace().pre_tokenize_str(text)]
    assert pre_tokenize(text, lowercase=False) == reference


def test_pre_tokenize_numerals_and_accents():
    # ½ and ² are numerals Python's \w accepts but Unicode's word class does not; a combining accent is a mark
    assert pre_tokenize("x² ½ cafe\u0301!", lowercase=False) == ["x", "²", "½", "cafe\u0301", "!"]
    assert pre_tokenize("Ⓐb\x1cc", lowercase=False) == ["Ⓐb", "\x1c", "c"]  # circled letters are alphabetic
    with pytest.raises(TypeError, match="text must be a string; got int"):
        pre_tokenize(3)


def test_continuation_training_marks_inner_pieces():
    bpe = train_bpe({"hug": 10, "pug": 5, "hugs": 5}, num_merges=3, continuation="##")
    assert bpe.alphabet == ["g", "h", "p", "s", "u", "##g", "##s", "##u"]
    assert [bpe.joined(m) for m in bpe.merges] == ["##ug", "hug", "pug"]
    assert bpe.tokenize("hugs pug") == ["hug", "##s", "pug"]


@settings(max_examples=40, deadline=None)
@given(counts=words, num_merges=st.integers(0, 20))
def test_fast_path_with_continuation_learns_the_same_merges(counts, num_merges):
    slow = train_bpe(counts, num_merges, continuation="##")
    assert slow.merges == train_bpe(counts, num_merges, fast=True, continuation="##").merges
    for word in counts:
        pieces = slow.tokenize_word(word)
        assert pieces[0] + "".join(p.removeprefix("##") for p in pieces[1:]) == word
        assert all(p.startswith("##") for p in pieces[1:]) and not pieces[0].startswith("##")


def test_pre_tokenize_and_errors():
    assert pre_tokenize("The dog, barked!") == ["the", "dog", ",", "barked", "!"]
    assert pre_tokenize("The dog", lowercase=False) == ["The", "dog"]
    with pytest.raises(ValueError, match="num_merges must be an integer >= 0; got -1"):
        train_bpe(TOY, -1)
    with pytest.raises(ValueError, match="score must be one of"):
        train_bpe(TOY, 1, score="unigram")
    with pytest.raises(ValueError, match="positive integer counts"):
        train_bpe({"low": 0}, 1)


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(st.text(alphabet="abcde", min_size=1, max_size=6), st.integers(1, 9), min_size=1, max_size=8),
    st.integers(0, 20),
)
def test_merge_loop_is_train_bpe_on_words_split_into_characters(counts, num_merges):
    expected = [(m.left, m.right, m.count) for m in train_bpe(counts, num_merges).merges]
    assert merge_loop({tuple(w): c for w, c in counts.items()}, num_merges) == expected


def test_merge_loop_end_of_word_symbol_and_early_stop():
    words = {tuple(w) + ("</w>",): 1 for w in "vietnam takes measures to boost rice exports".split()}
    merges = merge_loop(words, 100)
    assert merges[0] == ("s", "</w>", 3) and len(merges) == 35
