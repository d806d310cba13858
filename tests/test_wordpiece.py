"""dl4nlp.wordpiece: greedy longest-match-first, checked against Hugging Face's WordPiece on the same vocabulary."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dl4nlp.bpe import SPECIAL_TOKENS
from dl4nlp.data import data_path, load_text
from dl4nlp.wordpiece import WordPiece

tokenizers = pytest.importorskip("tokenizers")


def reference(vocab: WordPiece):
    """Hugging Face's WordPiece model on our vocabulary, with the same normalisation and pre-tokenizer."""
    model = tokenizers.models.WordPiece({t: i for i, t in enumerate(vocab.itos)}, unk_token="[UNK]")
    tokenizer = tokenizers.Tokenizer(model)
    tokenizer.normalizer = tokenizers.normalizers.Lowercase()
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    return tokenizer


@pytest.fixture(scope="module")
def trained():
    text = load_text("sherlock_holmes.txt")[:120_000]
    return WordPiece.train(text.splitlines(), vocab_size=600), text


def test_greedy_longest_match_on_a_small_vocabulary():
    wp = WordPiece(["un", "##aff", "##able", "##affable", "a", "##a", "ab", "##bc", "##d"])
    assert wp.tokenize_word("unaffable") == ["un", "##affable"]  # longest first: ##affable beats ##aff
    assert wp.tokenize_word("unx") == ["[UNK]"]  # no split of the whole word: the whole word is unknown
    assert wp.tokenize_word("abcd") == ["[UNK]"]  # greedy takes "ab" and is stuck, though a ##bc ##d exists
    assert wp.tokenize_word("aaa") == ["a", "##a", "##a"]
    assert wp.tokenize_word("a" * 101) == ["[UNK]"]
    assert wp.decode(wp.encode("unaffable a")) == "unaffable a"


def test_training_builds_word_initial_and_inner_pieces(trained):
    wp, _ = trained
    assert len(wp) == 600 and wp.itos[:5] == list(SPECIAL_TOKENS)
    assert {"##s", "##e"} <= set(wp.itos) and "the" in wp.stoi
    assert wp.is_word_start(wp.encode("holmes's")) == [not t.startswith("##") for t in wp.tokenize("holmes's")]


def test_equals_hugging_face_wordpiece_on_the_same_vocabulary(trained):
    wp, text = trained
    ref = reference(wp)
    sample = load_text("tinystories.txt")[:20_000] + text[-20_000:]  # new text, unknown characters included
    for line in sample.splitlines():
        assert wp.tokenize(line) == ref.encode(line).tokens, line
        assert wp.encode(line) == ref.encode(line).ids


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyz ,.'éQZ-"), max_size=60))
def test_equals_hugging_face_on_any_text(trained, text):
    wp, _ = trained
    assert wp.tokenize(text) == reference(wp).encode(text).tokens


def test_bert_base_uncased_vocabulary():
    wp = WordPiece.from_file(data_path("bert_base_uncased_vocab.txt"))
    assert len(wp) == 30522 and [wp[t] for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")] == [
        0,
        100,
        101,
        102,
        103,
    ]
    assert wp.tokenize("my dog is cute he likes playing") == "my dog is cute he likes playing".split()
    assert wp.tokenize("unbelievably") == ["un", "##bel", "##ie", "##va", "##bly"]
    ref = reference(wp)
    for line in load_text("sherlock_holmes.txt")[:30_000].splitlines():
        assert wp.encode(line) == ref.encode(line).ids


def test_errors():
    with pytest.raises(TypeError, match="tokens must be a list of strings; got str"):
        WordPiece("abc")
    with pytest.raises(ValueError, match="vocab_size must hold the 5 special tokens"):
        WordPiece.train(["abc abd"], vocab_size=6)
    with pytest.raises(TypeError, match="texts must be a list of strings; got str"):
        WordPiece.train("abc", vocab_size=50)  # one string, not a list of texts
    with pytest.raises(ValueError, match=r"tokens must be distinct; repeated: \['a'\]"):
        WordPiece(["a", "a"])
    with pytest.raises(ValueError, match=r"ids must hold ids in \[0, 6\); got 9"):
        WordPiece(["a"]).decode([9])


def test_a_byte_order_mark_is_not_part_of_the_first_piece(tmp_path):
    # issue 22: a vocab.txt saved with a UTF-8 byte-order mark is legal; its ids are those of its lines
    # (before, the mark joined '[PAD]', so [PAD] went missing and [CLS] became 2 instead of 101).
    lines = data_path("bert_base_uncased_vocab.txt").read_text(encoding="utf-8")
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"\xef\xbb\xbf" + lines.encode("utf-8"))
    wp = WordPiece.from_file(path)
    assert len(wp) == 30522 and [wp[t] for t in ("[PAD]", "[CLS]", "[SEP]", "[MASK]")] == [0, 101, 102, 103]
    assert wp.itos[0] == "[PAD]"


def test_a_vocabulary_file_must_keep_its_ids(tmp_path):
    # issue 22: a file without [MASK] renumbered [CLS] and [SEP]; a bert-base-uncased file cut short loaded.
    lines = data_path("bert_base_uncased_vocab.txt").read_text(encoding="utf-8").splitlines()
    without_mask = tmp_path / "vocab.txt"
    without_mask.write_text("\n".join(t for t in lines if t != "[MASK]"), encoding="utf-8")
    with pytest.raises(ValueError, match=r"missing \['\[MASK\]'\]"):
        WordPiece.from_file(without_mask)
    cut = tmp_path / "bert_base_uncased_vocab.txt"
    cut.write_text("\n".join(lines[:5000]), encoding="utf-8")
    with pytest.raises(ValueError, match="30,522 lines; .* has 5,000"):
        WordPiece.from_file(cut)
    shifted = tmp_path / "shifted.txt"
    shifted.write_text("\n".join(lines[:1] + lines[2:]), encoding="utf-8")  # [unused0] lost: [CLS] at 100
    with pytest.raises(ValueError, match="laid out as BERT's"):
        WordPiece.from_file(shifted)
    small = tmp_path / "small.txt"  # a vocabulary of one's own, special tokens anywhere: their lines are their ids
    small.write_text("\n".join(["the", *SPECIAL_TOKENS, "cat"]), encoding="utf-8")
    assert WordPiece.from_file(small)["[CLS]"] == 3
