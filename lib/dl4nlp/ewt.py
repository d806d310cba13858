"""English-EWT sentences as words, part-of-speech tags and genre (chapters 02, 13), read by `dl4nlp.dependency_trees`.

A CoNLL-U file holds sentences separated by blank lines; each sentence has
comment lines (``# sent_id = ...``, ``# text = ...``) and one line per token
with ten tab-separated columns, of which this reader keeps the word form
(column 2) and its universal part-of-speech tag (column 4). Multi-word tokens
(ids such as ``3-4``) and empty nodes (ids such as ``5.1``) are skipped, so
``words`` are the syntactic words the tags belong to. In English-EWT the
genre of a sentence is the prefix of its ``sent_id``: weblog, newsgroup,
email, reviews or answers.

>>> import tempfile, os
>>> text = "# sent_id = email-123-0001\\n# text = Hi !\\n1\\tHi\\thi\\tINTJ\\tUH\\t_\\t0\\troot\\t_\\t_\\n"
>>> text += "2\\t!\\t!\\tPUNCT\\t.\\t_\\t1\\tpunct\\t_\\t_\\n\\n"
>>> with tempfile.TemporaryDirectory() as folder:
...     path = os.path.join(folder, "tiny.conllu")
...     _ = open(path, "w", encoding="utf-8").write(text)
...     read_conllu(path)
[Sentence(sent_id='email-123-0001', genre='email', words=('Hi', '!'), upos=('INTJ', 'PUNCT'))]
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from dl4nlp import dependency_trees
from dl4nlp._checks import check_file

GENRES = ("answers", "email", "newsgroup", "reviews", "weblog")


class Sentence(NamedTuple):
    sent_id: str
    genre: str  # the sent_id's prefix, before the first "-"
    words: tuple[str, ...]
    upos: tuple[str, ...]  # one universal part-of-speech tag per word

    @property
    def text(self) -> str:
        """The words joined by single spaces (not the treebank's ``# text``, whose spacing differs)."""
        return " ".join(self.words)


def read_conllu(path) -> list[Sentence]:
    """Every sentence of the CoNLL-U file ``path``, in order: ``dl4nlp.dependency_trees.read_conllu``'s, with
    the words, their tags and the genre only.

    Raises ``ValueError`` naming the line when a sentence has no ``sent_id``,
    a token line does not have 10 columns, or the file holds no sentence.
    """
    path = Path(check_file("path", path, "a CoNLL-U file"))
    return [
        Sentence(
            s.sent_id, s.sent_id.split("-", 1)[0], tuple(t.form for t in s.tokens), tuple(t.upos for t in s.tokens)
        )
        for s in dependency_trees.read_conllu(path)
    ]
