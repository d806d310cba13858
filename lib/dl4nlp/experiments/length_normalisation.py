"""Chapter 07's length-normalisation experiment: does it change the answers of a trained model?

The toy tables of chapter 07 show *when* dividing the score by a length
penalty (Wu et al., 2016) changes which finished output wins. Here the same
question is asked of the trained spelling -> pronunciation model
(``data/seq2seq_cmudict.pt``): beam search on held-out words, its finished
hypotheses ranked with ``alpha`` = 0 (plain log-probability), Wu et al.'s 0.2,
and 1 (a full division by the penalty). ``seed`` picks the words.

One search per word serves every ``alpha``: with ``alpha > 0`` beam search runs
until no hypothesis is open, and the plain winner among those finished
hypotheses is the one the early-stopping ``alpha = 0`` search returns (a
search stops only once no open hypothesis can beat its best; this module
checks it on every word).

The thresholds the notebook and ``tests/claims/test_07_decoding.py`` assert are
the named constants below.
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass
from functools import lru_cache

import torch

from dl4nlp._checks import check_int, check_type
from dl4nlp.data import data_path
from dl4nlp.date_task import encode_batch
from dl4nlp.experiments.lstm import _check_seed
from dl4nlp.phonemes import PHONEME_VOCAB, SPELLING_VOCAB, phoneme_error_rate, phoneme_pairs
from dl4nlp.recipes.phoneme_model import held_out_pairs
from dl4nlp.seq2seq import Hypothesis, Seq2Seq, beam_search, normalized_score

ALPHAS = (0.0, 0.2, 1.0)
BEAM_SIZE = 4
WORDS = 100
MAX_LEN = 20  # phonemes; the longest pronunciation in the dictionary has 15 (the EOS needs one more)

WU_CHANGED_MAX = 0.03  # at alpha = 0.2 at most this share of the answers changes ("hardly ever")
FULL_CHANGED_MAX = 0.05  # at alpha = 1 at most this share ("a few words in a hundred at most")
ACCURACY_SHIFT_MAX = 0.02  # and word accuracy moves by at most this much, either way
NO_LONGER_MIN = 0.4  # on at least this share of the words the beam finished no longer output at all
BREAK_EVEN_MEDIAN_MIN = 4.0  # where it did, the median break-even alpha is above this (Wu et al. used 0.2)


@dataclass(frozen=True)
class LengthNormalisationResult:
    words: int
    accuracy: dict[float, float]  # alpha -> share of words whose whole pronunciation is right
    error_rate: dict[float, float]  # alpha -> phoneme error rate
    changed: dict[float, int]  # alpha -> words whose answer differs from alpha = 0
    fixed: dict[float, int]  # ... of which wrong at alpha = 0 and right at alpha
    broken: dict[float, int]  # ... of which right at alpha = 0 and wrong at alpha
    longer: dict[float, int]  # ... of which the new answer is longer (all of them, by the arithmetic of lp)
    examples: tuple[tuple[str, str, str, str], ...]  # (word, right, alpha = 0, alpha = 1) where they differ
    break_even: tuple[
        float, ...
    ]  # per word: the smallest alpha at which a longer finished output would win (inf: none)


@lru_cache(maxsize=1)
def _model() -> Seq2Seq:
    model = Seq2Seq.load(data_path("seq2seq_cmudict.pt"), torch.device("cpu"))  # verifies the checksum
    return model.eval()


def held_out_words(seed: int, n: int = WORDS) -> list[tuple[str, str]]:
    """``n`` test-split words for ``seed``, none among the recipe's reported words nor the training words."""
    _check_seed(seed)
    check_int("n", n, 1, 2000)
    reported = {word for word, _ in held_out_pairs()}
    pairs = [
        pair for pair in random.Random(1000 + seed).sample(phoneme_pairs("test"), 3 * n) if pair[0] not in reported
    ]
    if {word for word, _ in phoneme_pairs("train")} & {word for word, _ in pairs}:
        raise RuntimeError("the test split of dl4nlp.phonemes overlaps its training split")
    return pairs[:n]


def _break_even(winner: Hypothesis, finished: list[Hypothesis]) -> float:
    """The smallest alpha at which a longer finished hypothesis beats ``winner`` by normalised score.

    With lp(Y) = ((5 + |Y|) / 6)^alpha and log-probabilities s_w > s_l (both < 0), the longer one wins once
    ((5 + |Y_l|) / (5 + |Y_w|))^alpha > s_l / s_w, the break-even of chapter 07's toy table.
    """
    alphas = [
        math.log(h.score / winner.score) / math.log((5 + len(h.tokens)) / (5 + len(winner.tokens)))
        for h in finished
        if len(h.tokens) > len(winner.tokens) and winner.score < 0
    ]
    return min(alphas, default=math.inf)


def length_normalisation(seed: int = 0, n: int = WORDS) -> LengthNormalisationResult:
    """Beam search (k = ``BEAM_SIZE``) on ``n`` held-out words, ranked with each of ``ALPHAS``."""
    pairs = held_out_words(seed, n)
    model = _model()
    answers: dict[float, list[str]] = {alpha: [] for alpha in ALPHAS}
    break_even: list[float] = []
    with torch.no_grad():
        batch = encode_batch([(word, "") for word, _ in pairs], SPELLING_VOCAB, PHONEME_VOCAB)
        states = model.encode(batch["src"], batch["src_lengths"])
        for i in range(len(pairs)):
            state = tuple(part[i : i + 1] for part in states)
            search = dict(bos=PHONEME_VOCAB.BOS, eos=PHONEME_VOCAB.EOS, beam_size=BEAM_SIZE, max_len=MAX_LEN)
            finished = beam_search(model.step, state, alpha=max(ALPHAS), **search).hypotheses  # runs to the end
            plain = beam_search(model.step, state, **search).best  # stops early
            for alpha in ALPHAS:
                best = max(finished, key=lambda h: normalized_score(h, alpha))  # first of equals, as beam_search
                if alpha == 0 and best.tokens != plain.tokens:
                    raise RuntimeError(f"word {pairs[i][0]!r}: early stopping returned another plain winner")
                answers[alpha].append(PHONEME_VOCAB.decode(best.tokens))
            break_even.append(_break_even(plain, finished))
    targets = [target for _, target in pairs]
    right = {alpha: [a == t for a, t in zip(answers[alpha], targets)] for alpha in ALPHAS}
    differs = {alpha: [a != b for a, b in zip(answers[alpha], answers[0.0])] for alpha in ALPHAS}
    return LengthNormalisationResult(
        words=len(pairs),
        accuracy={alpha: sum(right[alpha]) / len(pairs) for alpha in ALPHAS},
        error_rate={alpha: phoneme_error_rate(answers[alpha], targets) for alpha in ALPHAS},
        changed={alpha: sum(differs[alpha]) for alpha in ALPHAS},
        fixed={a: sum(d and r and not r0 for d, r, r0 in zip(differs[a], right[a], right[0.0])) for a in ALPHAS},
        broken={a: sum(d and r0 and not r for d, r, r0 in zip(differs[a], right[a], right[0.0])) for a in ALPHAS},
        longer={
            a: sum(len(x.split()) > len(y.split()) for x, y, d in zip(answers[a], answers[0.0], differs[a]) if d)
            for a in ALPHAS
        },
        break_even=tuple(break_even),
        examples=tuple(
            (word, target, plain, full)
            for (word, target), plain, full in zip(pairs, answers[0.0], answers[1.0])
            if plain != full
        ),
    )


def length_normalisation_claim(result: LengthNormalisationResult) -> bool:
    """On outputs this short, normalisation hardly ever changes the answer: on about half the words the beam
    finished no longer output, and where it did, a longer output would win only for alpha far above Wu et al.'s
    0.2. Every change is to a longer output, and word accuracy moves by no more than ``ACCURACY_SHIFT_MAX``."""
    check_type("result", result, LengthNormalisationResult, "a LengthNormalisationResult (from length_normalisation)")
    n = result.words
    finite = sorted(b for b in result.break_even if math.isfinite(b))
    return (
        result.changed[0.2] <= WU_CHANGED_MAX * n
        and result.changed[1.0] <= FULL_CHANGED_MAX * n
        and all(result.longer[a] == result.changed[a] for a in ALPHAS)
        and abs(result.accuracy[1.0] - result.accuracy[0.0]) <= ACCURACY_SHIFT_MAX
        and n - len(finite) >= NO_LONGER_MIN * n
        and bool(finite)
        and statistics.median(finite) > BREAK_EVEN_MEDIAN_MIN
    )
