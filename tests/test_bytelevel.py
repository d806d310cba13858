"""dl4nlp.bytelevel: byte-level BPE equal to Hugging Face's ByteLevelBPETokenizer, and an exact round trip."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dl4nlp.bytelevel import BYTE_TO_CHAR, ByteBPE, from_bytes, split_words, to_bytes
from dl4nlp.data import load_text

tokenizers = pytest.importorskip("tokenizers")
TEXT = load_text("sherlock_holmes.txt")[:60_000] + " Café naïve résumé 🙂👍🏽 Ω≈ç 2024 ½ " * 3


@pytest.fixture(scope="module")
def trained():
    ours = ByteBPE.train([TEXT], num_merges=150)
    ref = tokenizers.ByteLevelBPETokenizer(add_prefix_space=False)
    ref.train_from_iterator([TEXT], vocab_size=256 + 150, min_frequency=0, show_progress=False, special_tokens=[])
    return ours, ref


def test_byte_table_is_gpt2s():
    assert len(set(BYTE_TO_CHAR.values())) == 256
    assert BYTE_TO_CHAR[ord(" ")] == "Ġ" and BYTE_TO_CHAR[ord("\n")] == "Ċ" and BYTE_TO_CHAR[ord("a")] == "a"
    assert to_bytes("é") == "Ã©" and len(to_bytes("🙂")) == 4


def test_merges_and_pieces_equal_hugging_face(trained):
    ours, ref = trained
    merges = json.loads(ref._tokenizer.to_str())["model"]["merges"]
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in merges]
    assert [(m.left, m.right) for m in ours.bpe.merges] == merges
    sentence = "Café naïve — “Holmes!” 🙂👍🏽 said Watson."
    assert ours.tokenize(sentence) == ref.encode(sentence).tokens
    assert set(ours.vocabulary) == set(ref.get_vocab())


def test_split_words_equals_the_byte_level_pre_tokenizer():
    pre = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    assert [to_bytes(w) for w in split_words(TEXT)] == [w for w, _ in pre.pre_tokenize_str(TEXT)]


@settings(max_examples=200, deadline=None)
@given(text=st.text(st.characters(exclude_categories=("Cs",)), max_size=40))
def test_round_trip_on_any_text(trained, text):
    ours, _ = trained
    pieces = ours.tokenize(text)
    assert ours.decode(pieces) == text
    assert "".join(split_words(text)) == text


def test_errors():
    with pytest.raises(ValueError, match="not one of the 256"):
        from_bytes("Ā€")
    with pytest.raises(TypeError, match="texts must be a list of strings; got str"):
        ByteBPE.train("abc", 3)
