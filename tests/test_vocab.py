"""dl4nlp.vocab: the character, word and seq2seq vocabularies."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from dl4nlp.bpe import SPECIAL_TOKENS
from dl4nlp.vocab import CharVocab, Seq2SeqVocab, WordVocab


@settings(max_examples=50, deadline=None)
@given(text=st.text(min_size=1, max_size=60))
def test_char_vocab_round_trip(text):
    vocab = CharVocab.from_text(text)
    ids = vocab.encode(text)
    assert vocab.decode(ids) == text and vocab.decode(torch.tensor(ids, dtype=torch.long)) == text
    assert len(vocab) == len(set(text)) and list(vocab.chars) == sorted(set(text))
    assert all(0 <= i < len(vocab) for i in ids)


def test_char_vocab_errors_name_the_problem():
    vocab = CharVocab("abc")
    with pytest.raises(KeyError, match="text has the character 'z', which is not in the vocabulary of 3 characters"):
        vocab.encode("az")
    with pytest.raises(ValueError, match=r"ids must hold ids in \[0, 3\); got 3"):
        vocab.decode([0, 3])
    with pytest.raises(ValueError, match=r"these repeat: \['a'\]"):
        CharVocab("aba")
    with pytest.raises(ValueError, match="non-empty string"):
        CharVocab("")


def test_char_vocab_refuses_what_is_not_text_or_integer_ids():
    vocab = CharVocab("abc")
    with pytest.raises(TypeError, match="text must be a string; got int"):
        vocab.encode(12)
    with pytest.raises(TypeError, match="ids must hold integer ids; got float 1.5"):
        vocab.decode([1.5])
    with pytest.raises(ValueError, match=r"ids must be a 1-D sequence of ids; got shape \(1, 2\)"):
        vocab.decode(torch.tensor([[0, 1]]))
    with pytest.raises(ValueError, match="non-empty str"):
        CharVocab.from_text("")


def test_word_vocab():
    vocab = WordVocab.build(["the cat sat on the mat .", "the dog sat ."], max_size=9)
    assert vocab.itos[:5] == list(SPECIAL_TOKENS)
    assert vocab.itos[5:] == ["the", ".", "sat", "cat"]  # by count, then alphabetically
    assert vocab.encode("The cat sat on a mat") == [5, 8, 7, 1, 1, 1]
    assert vocab.decode(vocab.encode("the cat")) == "the cat"
    assert vocab.special_ids == [0, 1, 2, 3, 4] and len(vocab) == 9
    with pytest.raises(ValueError, match="max_size must be an integer >= 6; got 3"):
        WordVocab.build(["a"], max_size=3)
    with pytest.raises(ValueError, match=r"missing \['\[MASK\]'\]"):
        WordVocab(["a"], specials=["[PAD]", "[UNK]", "[CLS]", "[SEP]"])
    with pytest.raises(TypeError, match="texts must be a list of strings .*; got str 'the cat'"):
        WordVocab.build("the cat", max_size=9)  # one string used to give a vocabulary of its characters


def test_phoneme_vocabulary_takes_symbols():
    vocab = Seq2SeqVocab(["K", "AE", "T"], separator=" ")
    assert vocab.decode(vocab.encode("K AE T")) == "K AE T" and vocab.tokens("") == []
    with pytest.raises(ValueError, match="need a separator"):
        Seq2SeqVocab(["AE", "T"])


def test_seq2seq_vocab_reserves_pad_bos_eos_and_decode_stops_at_eos():
    vocab = Seq2SeqVocab("abc")
    assert vocab.itos[:3] == list(Seq2SeqVocab.SPECIALS) and (vocab.PAD, vocab.BOS, vocab.EOS) == (0, 1, 2)
    assert vocab.encode("cab") == [5, 3, 4, 2] and vocab.encode("cab", eos=False) == [5, 3, 4]
    assert vocab.decode([1, 5, 0, 3, 2, 4]) == "ca"  # BOS and PAD skipped, nothing after EOS
    with pytest.raises(ValueError, match=r"text has tokens \['d'\] that are not in the vocabulary 'abc'"):
        vocab.encode("bad")
    with pytest.raises(ValueError, match=r"text has tokens \['<eos>'\]"):
        Seq2SeqVocab(["K", "AE1"], separator=" ").encode("K <eos>")  # the specials are ids, never text


def test_the_three_vocabularies_live_in_one_module():
    import dl4nlp.bpe
    import dl4nlp.date_task
    import dl4nlp.tokenize

    for klass in (CharVocab, WordVocab, Seq2SeqVocab):
        assert klass.__module__ == "dl4nlp.vocab"
    assert not hasattr(dl4nlp.tokenize, "CharVocab") and not hasattr(dl4nlp.bpe, "WordVocab")
    assert dl4nlp.date_task.Seq2SeqVocab is Seq2SeqVocab  # used there, defined here
