"""WordPiece, BERT's tokenizer: a vocabulary of word-initial and ``##`` word-inner pieces, split greedily.

Learning the vocabulary is byte-pair encoding with a continuation prefix:
every word starts as ``w ##o ##r ##d`` and the most frequent adjacent pair is
merged again and again (``dl4nlp.bpe.train_bpe(..., continuation='##')``, which
is what Hugging Face's ``WordPieceTrainer`` does). Splitting new text does not
replay those merges. For each word, BERT takes the *longest* vocabulary entry
that starts the word, then the longest ``##`` entry that continues from there,
and so on to the end; a word that cannot be split this way becomes ``[UNK]``
as a whole (Wu et al., 2016; BERT's ``tokenization.py``; the ``WordPiece``
model of Hugging Face's ``tokenizers``, against which this is tested).

>>> wp = WordPiece(["play", "##ing", "##s", "p", "##l", "##a", "##y", "i", "##n", "##g"])
>>> wp.tokenize("playing plays pay")
['play', '##ing', 'play', '##s', 'p', '##a', '##y']
>>> wp.decode(wp.encode("playing plays"))
'playing plays'

Taught in notebook 12.
"""

from __future__ import annotations

import os
from typing import Iterable, Iterator, Sequence, Union

from dl4nlp._checks import check_bool, check_file, check_ids_list, check_int, check_str, check_strings, given
from dl4nlp.bpe import SPECIAL_TOKENS, initial_alphabet, pre_tokenize, train_bpe, word_counts

CONTINUATION = "##"
MAX_WORD_CHARS = 100  # longer words become [UNK], as in BERT and Hugging Face
BERT_SPECIAL_IDS = {"[PAD]": 0, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102, "[MASK]": 103}  # BERT's vocab.txt files
BERT_BASE_UNCASED_SIZE = 30_522  # lines of bert-base-uncased's vocab.txt (data/bert_base_uncased_vocab.txt)


class WordPiece:
    """A WordPiece vocabulary (special tokens first) and its greedy longest-match-first tokenizer.

    ``tokens`` are the pieces; inner pieces start with ``continuation``.
    ``lowercase`` lowercases text before splitting it into words
    (``dl4nlp.bpe.pre_tokenize``, equal to Hugging Face's ``Whitespace``).
    """

    def __init__(
        self,
        tokens: Sequence[str],
        specials: Sequence[str] = SPECIAL_TOKENS,
        continuation: str = CONTINUATION,
        lowercase: bool = True,
    ):
        tokens = check_strings("tokens", tokens)
        if "" in tokens:
            raise ValueError(f"tokens must be non-empty strings; got '' at position {tokens.index('')}")
        specials = check_strings("specials", specials)
        check_bool("lowercase", lowercase)
        missing = [s for s in SPECIAL_TOKENS if s not in specials]
        if missing:
            raise ValueError(f"specials must contain {SPECIAL_TOKENS}; missing {missing}")
        if not isinstance(continuation, str) or not continuation:
            raise ValueError(f"continuation must be a non-empty string; got {continuation!r}")
        if all(s in tokens for s in specials):  # a vocabulary file: keep its ids (BERT's has [CLS] at 101)
            self.itos = list(tokens)
        else:
            self.itos = list(specials) + [t for t in tokens if t not in specials]
        if len(set(self.itos)) != len(self.itos):
            repeated = sorted({t for t in self.itos if self.itos.count(t) > 1})[:5]
            raise ValueError(f"tokens must be distinct; repeated: {repeated}")
        self.stoi = {token: i for i, token in enumerate(self.itos)}
        self.specials = tuple(specials)
        self.continuation = continuation
        self.lowercase = lowercase
        self._cache: dict[str, list[str]] = {}

    @classmethod
    def train(
        cls, texts: Iterable[str], vocab_size: int, lowercase: bool = True, continuation: str = CONTINUATION
    ) -> WordPiece:
        """Learn a vocabulary of at most ``vocab_size`` pieces (specials included) from ``texts``.

        The alphabet (every character, plain and with the prefix) comes first,
        then BPE merges until the vocabulary is full or no pair is left.
        """
        texts = check_strings("texts", list(texts) if isinstance(texts, Iterator) else texts)
        check_int("vocab_size", vocab_size)
        check_bool("lowercase", lowercase)
        check_str("continuation", continuation, nonempty=True)
        counts = word_counts("\n".join(texts), lowercase=lowercase)
        if not counts:
            raise ValueError("texts hold no words to learn a vocabulary from")
        alphabet = initial_alphabet(counts, continuation)
        room = vocab_size - len(SPECIAL_TOKENS) - len(alphabet)
        if room < 0:
            raise ValueError(
                f"vocab_size must hold the {len(SPECIAL_TOKENS)} special tokens and the {len(alphabet)} "
                f"symbols of the alphabet, at least {len(SPECIAL_TOKENS) + len(alphabet)}; got {vocab_size!r}"
            )
        bpe = train_bpe(counts, room, fast=True, continuation=continuation)
        tokens = list(dict.fromkeys(bpe.vocabulary))  # two merges can make the same string: keep it once
        return cls(tokens, lowercase=lowercase, continuation=continuation)

    @classmethod
    def from_file(cls, path: Union[str, os.PathLike], lowercase: bool = True) -> WordPiece:
        """A vocabulary file with one piece per line (BERT's ``vocab.txt``); the line number is the id.

        A UTF-8 byte-order mark at the start is not part of the first piece (it is
        dropped, so the ids stay those of the lines). The file must hold every
        special token (``[PAD] [UNK] [CLS] [SEP] [MASK]``): without one the ids of
        the others would shift. A file laid out as BERT's (``[PAD]``, then
        ``[unusedN]`` lines) must have BERT's ids for them (``[UNK]`` 100, ``[CLS]`` 101,
        ``[SEP]`` 102, ``[MASK]`` 103), and one named as bert-base-uncased's must
        have all of its 30,522 lines: a file cut short is refused.
        """
        path = check_file("path", path, "a vocabulary file")
        check_bool("lowercase", lowercase)
        try:
            tokens = path.read_text(encoding="utf-8-sig").splitlines()  # -sig: a byte-order mark is dropped
        except UnicodeDecodeError as error:
            raise ValueError(f"path must be a UTF-8 vocabulary file; {path} is not UTF-8 ({error})") from None
        if not tokens:
            raise ValueError(f"{path} is empty; expected one WordPiece token per line")
        missing = [s for s in SPECIAL_TOKENS if s not in tokens]
        if missing:
            raise ValueError(
                f"path must be a vocabulary file holding the special tokens {SPECIAL_TOKENS} (their line is their id); "
                f"{path} ({len(tokens)} lines) is missing {missing}"
            )
        if tokens[0] == "[PAD]" and any(t.startswith("[unused") for t in tokens[1:3]):  # BERT's layout
            wrong = {s: tokens.index(s) for s, i in BERT_SPECIAL_IDS.items() if tokens.index(s) != i}
            if wrong:
                raise ValueError(
                    f"path is laid out as BERT's vocab.txt, whose special tokens have the ids {BERT_SPECIAL_IDS}; "
                    f"{path} has {wrong} (a line missing or added above them?)"
                )
        if any(name in path.name.lower() for name in ("bert_base_uncased", "bert-base-uncased")):
            if len(tokens) != BERT_BASE_UNCASED_SIZE:
                raise ValueError(
                    f"path is named as bert-base-uncased's vocabulary, which has {BERT_BASE_UNCASED_SIZE:,} lines; "
                    f"{path} has {len(tokens):,} (cut short, or another vocabulary?)"
                )
        return cls(tokens, lowercase=lowercase)

    def __len__(self) -> int:
        return len(self.itos)

    def __repr__(self) -> str:
        return f"WordPiece({len(self)} pieces)"

    def __getitem__(self, token: str) -> int:
        """The id of ``token`` (``[UNK]``'s for an unknown one); an id is refused: ``itos[i]`` is the token of id i."""
        if not isinstance(token, str):
            hint = f" (the token with id {token} is itos[{token}])" if isinstance(token, int) else ""
            raise TypeError(f"token must be a string, a word or piece to look up; got {given(token)}{hint}")
        return self.stoi.get(token, self.stoi["[UNK]"])

    @property
    def special_ids(self) -> list[int]:
        """Ids of the special tokens ([PAD], [UNK], [CLS], [SEP], [MASK])."""
        return [self.stoi[s] for s in self.specials]

    def tokenize_word(self, word: str) -> list[str]:
        """Greedy longest-match-first: the longest piece that starts ``word``, then the longest ``##`` piece, ...

        A word with no complete split (or longer than ``MAX_WORD_CHARS``) is ``['[UNK]']``.
        """
        check_str("word", word, nonempty=True)
        if word in self._cache:
            return self._cache[word]
        if len(word.split()) != 1 or word != word.strip():
            raise ValueError(f"word must be one word without white space; got {word!r}")
        pieces, start = [], 0
        if len(word) > MAX_WORD_CHARS:
            pieces = ["[UNK]"]
        while start < len(word) and pieces != ["[UNK]"]:
            for end in range(len(word), start, -1):  # longest candidate first
                piece = word[start:end] if start == 0 else self.continuation + word[start:end]
                if piece in self.stoi:
                    pieces.append(piece)
                    start = end
                    break
            else:  # nothing in the vocabulary continues the word from here
                pieces = ["[UNK]"]
        self._cache[word] = pieces
        return pieces

    def tokenize(self, text: str) -> list[str]:
        """Split ``text`` into words and punctuation, then every word into pieces."""
        check_str("text", text)
        return [piece for word in pre_tokenize(text, lowercase=self.lowercase) for piece in self.tokenize_word(word)]

    def encode(self, text: str) -> list[int]:
        """The ids of ``tokenize(text)``."""
        return [self.stoi[piece] for piece in self.tokenize(text)]

    def decode(self, ids: Iterable[int]) -> str:
        """The pieces of ``ids``, inner pieces glued to the piece before them, words separated by spaces."""
        ids = check_ids_list("ids", ids, len(self), nonempty=False)
        out = ""
        for i in ids:
            token = self.itos[i]
            if token.startswith(self.continuation) and out:
                out += token[len(self.continuation) :]
            else:
                out += (" " if out else "") + token
        return out

    def is_word_start(self, ids: Sequence[int]) -> list[bool]:
        """For each id: does its piece start a word (it is not a ``##`` continuation)? Used by whole-word masking."""
        ids = check_ids_list("ids", ids, len(self), nonempty=False)
        return [not self.itos[i].startswith(self.continuation) for i in ids]
