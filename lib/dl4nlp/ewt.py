"""A minimal reader of CoNLL-U files, for the Universal Dependencies English Web Treebank (chapters 02 and 13).

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
    """Every sentence of the CoNLL-U file ``path``, in order.

    Raises ``ValueError`` naming the line when a sentence has no ``sent_id``,
    a token line does not have 10 columns, or the file holds no sentence.
    """
    path = check_file("path", path, "a CoNLL-U file")
    sentences: list[Sentence] = []
    sent_id, words, upos, start = None, [], [], 1

    def finish(line_number: int) -> None:
        nonlocal sent_id, words, upos
        if words or sent_id is not None:
            if sent_id is None:
                raise ValueError(
                    f"{Path(path).name}: the sentence ending at line {line_number} has no '# sent_id = ...'"
                )
            if not words:
                raise ValueError(f"{Path(path).name}: sentence {sent_id!r} (line {start}) has no tokens")
            sentences.append(Sentence(sent_id, sent_id.split("-", 1)[0], tuple(words), tuple(upos)))
        sent_id, words, upos = None, [], []

    with open(path, encoding="utf-8") as lines:
        number = 0
        for number, line in enumerate(lines, start=1):
            line = line.rstrip("\n")
            if not line.strip():
                finish(number)
                continue
            if not words and sent_id is None:
                start = number
            if line.startswith("#"):
                key, _, value = line[1:].partition("=")
                if key.strip() == "sent_id":
                    sent_id = value.strip()
                continue
            columns = line.split("\t")
            if len(columns) != 10:
                raise ValueError(
                    f"{Path(path).name}, line {number}: a token line must have 10 tab-separated columns; "
                    f"got {len(columns)}: {line[:60]!r}"
                )
            if "-" in columns[0] or "." in columns[0]:  # a multi-word token or an empty node
                continue
            words.append(columns[1])
            upos.append(columns[3])
        finish(number + 1)
    if not sentences:
        raise ValueError(f"path must be a CoNLL-U file with at least one sentence; {Path(path).name} has none")
    return sentences
