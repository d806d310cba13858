"""dl4nlp.ewt: the CoNLL-U reader on the shipped English-EWT files and on small made-up files."""

import pytest

from dl4nlp.data import data_path
from dl4nlp.ewt import GENRES, read_conllu

TOKEN = "{}\t{}\t_\t{}\t_\t_\t0\troot\t_\t_\n"


def write(tmp_path, text):
    path = tmp_path / "x.conllu"
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_splits():
    dev, test = read_conllu(data_path("en_ewt-ud-dev.conllu")), read_conllu(data_path("en_ewt-ud-test.conllu"))
    assert (len(dev), len(test)) == (2_001, 2_077)
    assert {s.genre for s in dev} == {s.genre for s in test} == set(GENRES)
    assert all(len(s.words) == len(s.upos) > 0 for s in dev + test)
    assert dev[0].words[:3] == ("From", "the", "AP") and dev[0].upos[:3] == ("ADP", "DET", "PROPN")


def test_multiword_tokens_and_empty_nodes_are_skipped(tmp_path):
    text = "# sent_id = reviews-1-0001\n" + TOKEN.format("1-2", "don't", "_") + TOKEN.format(1, "do", "AUX")
    text += TOKEN.format(2, "n't", "PART").replace("\t0\troot", "\t1\tadvmod") + TOKEN.format("2.1", "x", "_") + "\n"
    (sentence,) = read_conllu(write(tmp_path, text))
    assert sentence.words == ("do", "n't") and sentence.upos == ("AUX", "PART") and sentence.genre == "reviews"
    assert sentence.text == "do n't"


def test_last_sentence_without_blank_line(tmp_path):
    text = "# sent_id = email-1-1\n" + TOKEN.format(1, "Hi", "INTJ") + "\n# sent_id = email-1-2\n"
    text += TOKEN.format(1, "Bye", "INTJ")
    assert [s.words for s in read_conllu(write(tmp_path, text))] == [("Hi",), ("Bye",)]


@pytest.mark.parametrize(
    "text, message",
    [
        (TOKEN.format(1, "Hi", "INTJ") + "\n", "sent_id"),
        ("# sent_id = a-1\n1\tHi\tINTJ\n\n", "10 tab-separated columns"),
        ("\n\n", "it has none"),
        ("# sent_id = a-1\n\n", "it has none"),  # a sentence without tokens is no sentence
    ],
)
def test_bad_files_are_named(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        read_conllu(write(tmp_path, text))
