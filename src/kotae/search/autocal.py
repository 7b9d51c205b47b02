"""The gate calibrates itself on every index, with no user step and no labelled questions.

Negatives: a bundled set of questions that no ordinary document collection answers (general knowledge,
how-to, opinions, details of fictional organisations; kotae/data/negatives, written for kotae, never taken
from a user's documents). Their evidence over the index is the null: `fit` sets the thresholds at its quantiles
(top similarity per question language, margin, coverage). Positives: pseudo-questions made from the index's own
chunks without an LLM (a contiguous span of one sentence with some words swapped); they choose only the
absent-word cut and are reported beside the refused share of negatives. The index stores the thresholds with
how they were fitted.

The fit is redone when the corpus has grown or shrunk by `REFIT_GROWTH` since (similarities move with corpus
size); a gate the user fitted with `kotae calibrate` on labelled questions is never replaced.
"""
from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from importlib.resources import files

import numpy as np

from kotae.chunking import detect_lang, split_sentences
from kotae.config import GateSettings
from kotae.search.gate import ABSENT_CUTS, MIN_LANG_SHARE, GateStats, decide, evaluate

POSITIVES = 200  # pseudo-questions per fit (fewer on a small index: one per sentence sampled)
MAX_FALSE_REFUSAL = 0.05
REFIT_GROWTH = 0.25  # refit when the chunk count moved by 25 % since the last fit
# The gate's evidence as `Searcher` computes it now; a self-calibration fitted on other evidence is redone.
# 2: the margin within the top chunk's language, absent words looked for in both languages (2026-12-03).
# 3: the dense ranking without hubness (`search.hubness`), measured with the negatives' vectors the fit keeps
# (2026-12-05): the passages whose keyword coverage the gate weighs can differ.
# 4: keyword coverage counts a word a passage holds as its synonym, and synonyms inside longer entries count for
# what the documents hold (2026-12-05, bench/refusal.py).
# 5: the similarity evidence is taken over each document's null level (kotae.search.docnull, 2026-12-06).
# 6: a block of figures is no similarity evidence (`searcher.GATE_FIGURE_SHARE`), and a question is in its grammar's
# language (`chunking.question_lang`: a mixed question with hiragana is Japanese) (2026-12-06).
DESIGN = 6
# A pseudo-question keeps SPAN of a sentence, and NOISE of its words (or characters) are swapped for words of
# the bundled negatives: real questions share only part of their vocabulary with the passage that answers
# them. Both were chosen on the "fit" half of the golden sets (bench/refusal.py), never the held-out half.
SPAN = 0.3
NOISE = 0.3
MIN_SPAN_CHARS = 12
META = "gate_calibration"


@dataclass(frozen=True)
class CalibrationState:
    """How an index's gate thresholds were chosen: "auto" (self-calibrated), "user" (`kotae calibrate`) or
    "default" (never fitted: an empty index)."""

    source: str
    chunks: int = 0  # the corpus size it was fitted at
    positives: int = 0
    negatives: int = 0
    refused_negatives: float = 0.0  # share of the bundled negatives the fitted gate refuses
    refused_positives: float = 0.0  # share of the pseudo-questions it refuses
    fitted_at: str = ""
    min_margin: float | None = None
    min_coverage: float | None = None
    max_absent: float | None = None
    min_similarity_ja: float | None = None
    min_similarity_en: float | None = None
    design: int = 1  # the gate evidence it was fitted on (`DESIGN`); records written before it have none: 1

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def describe(self) -> str:
        """One line for people."""
        if self.source == "default":
            return "gate not calibrated yet (default thresholds)"
        if self.source == "user":
            older = ("; fitted by an older kotae, whose similarity margin differed over documents in two "
                     "languages: run `kotae calibrate` again") if self.design < DESIGN else ""
            return ("gate calibrated on your labelled questions" + (f" ({self.fitted_at})" if self.fitted_at else "")
                    + older)
        return (f"gate self-calibrated at {self.chunks} chunks: refuses {self.refused_negatives:.0%} of "
                f"{self.negatives} off-topic test questions (and {self.refused_positives:.0%} of {self.positives} "
                f"sentence fragments of the documents with words swapped, harder than real questions)")


def negatives() -> list[str]:
    """The bundled off-topic questions, Japanese and English."""
    out: list[str] = []
    for name in ("ja.jsonl", "en.jsonl"):
        text = (files("kotae") / "data" / "negatives" / name).read_text(encoding="utf-8")
        out += [json.loads(line)["q"] for line in text.splitlines() if line.strip()]
    return out


def pseudo_questions(texts: Sequence[str], n: int = POSITIVES, seed: int = 0,
                     noise: Sequence[str] = ()) -> list[str]:
    """Up to `n` questions made from `texts` (chunk texts): from a sampled chunk, one sentence, from it a
    contiguous span of `SPAN` of its words (or characters, in unspaced text) at a random place, with `NOISE` of
    them replaced by pieces of `noise` texts. Pure and deterministic for a seed."""
    return [q for q, _ in pseudo_pairs(texts, n, seed, noise)]


def pseudo_pairs(texts: Sequence[str], n: int = POSITIVES, seed: int = 0,
                 noise: Sequence[str] = ()) -> list[tuple[str, int]]:
    """`pseudo_questions`, each with the index in `texts` of the chunk it was made from."""
    rng = random.Random(seed)
    # noise of the pseudo-question's own kind: English words into spaced text, Japanese text into unspaced
    # (a whole unspaced Japanese question taken as one "word" would turn a positive into a negative)
    pieces = [w for t in noise if detect_lang(t) == "en" for w in t.replace("?", " ").split() if len(w) > 2]
    unspaced = [t for t in noise if detect_lang(t) in ("ja", "mixed")]
    order = list(range(len(texts)))
    rng.shuffle(order)
    out: list[tuple[str, int]] = []
    for i in order:
        text = texts[i]
        sentences = [" ".join(text[a:b].split()) for a, b in split_sentences(text)]
        sentences = [s for s in sentences if len(s) >= MIN_SPAN_CHARS / SPAN]
        if not sentences:
            continue
        s = rng.choice(sentences)
        words = s.split()
        if len(words) >= 6:  # space-separated text: a span of whole words
            size = max(3, int(len(words) * SPAN))
            start = rng.randrange(0, len(words) - size + 1)
            span = words[start : start + size]
            if pieces:
                span = [rng.choice(pieces) if rng.random() < NOISE else w for w in span]
            out.append((" ".join(span), i))
        else:  # Japanese and other unspaced text: a span of characters
            size = max(MIN_SPAN_CHARS, int(len(s) * SPAN))
            start = rng.randrange(0, len(s) - size + 1)
            q = s[start : start + size].strip()
            swap = int(len(q) * NOISE)
            if unspaced and swap:
                at = rng.randrange(0, len(q) - swap + 1)
                q = q[:at] + rng.choice(unspaced)[:swap] + q[at + swap :]
            out.append((q, i))
        if len(out) >= n:
            break
    return out


def languages(texts: Sequence[str]) -> dict[str, int]:
    """How many chunks are in each language (`detect_lang`): an English question over Japanese documents has
    no keyword evidence, which the gate must not read as "absent"."""
    return dict(Counter(detect_lang(t) for t in texts))


def state(meta: str | None) -> CalibrationState:
    """The calibration recorded in an index's meta (`META`)."""
    if not meta:
        return CalibrationState("default")
    return CalibrationState(**json.loads(meta))


def needs_fit(current: CalibrationState, chunks: int) -> bool:
    """Whether an index of `chunks` chunks should (re)fit its gate."""
    if current.source == "user" or chunks == 0:
        return False
    if current.source == "default" or current.design < DESIGN:
        return True
    return abs(chunks - current.chunks) > REFIT_GROWTH * max(current.chunks, 1)


# (language, margin, coverage, absent share, language share[, top similarity[, names in no document[, content
# words]]])
Signal = (tuple[str, float, float, float, float] | tuple[str, float, float, float, float, float]
          | tuple[str, float, float, float, float, float, int] | tuple[str, float, float, float, float, float, int, int])

# The bundled negatives are the null: over this index, a threshold at the Q_SIMILARITY quantile of their top
# dense similarity (per question language) refuses that share of them whatever the corpus; margin and coverage
# answer on their own above the Q_RESCUE quantile. Pseudo-questions, whose evidence differs from real
# questions' (measured: the noise that makes them paraphrase-like lowers their similarity below real ones'),
# only choose the absent-word cut. Both quantiles are the strictest that refuse at most 5 % of the answerable
# questions of the golden sets' fit half, over samples/docs and over samples/docs + the real files of
# ../shared/data/samples, and of JaQuAD train questions over their own paragraphs (0.9 / 0.95 refused
# 17 % of the fit half on the larger corpus); bench/refusal.py reports the held-out half and other corpora.
Q_SIMILARITY = 0.7
Q_RESCUE = 0.9
MIN_NULL = 20  # fewer negatives of a language than this: no similarity threshold for it
# On a small index most negatives hold none of its words, and the null coverage falls to 0: a passage holding
# less than this share of the question's words is never evidence on its own (every measured corpus: 0.23–0.40).
MIN_COVERAGE = 0.2


def absent_cut(positive: Sequence[tuple[str, float, float, float, float, float | None, int]],
               max_false_refusal: float) -> float:
    """The lowest absent-word cut (`gate.ABSENT_CUTS`) at which the check alone refuses at most
    `max_false_refusal` of the pseudo-questions (their words are the documents', but for the swapped ones):
    above 1 (off) when there are none."""
    if not positive:
        return 1.01
    for cut in sorted(ABSENT_CUTS):
        if sum(p[3] >= cut and p[4] >= MIN_LANG_SHARE for p in positive) <= max_false_refusal * len(positive):
            return cut
    return 1.01


def fit(positive: Sequence[Sequence[float | str]], negative: Sequence[Sequence[float | str]], chunks: int,
        max_false_refusal: float = MAX_FALSE_REFUSAL) -> tuple[GateSettings, CalibrationState]:
    """Thresholds from the gate's evidence (`Signal`s, or bare (margin, coverage) pairs) for the pseudo-questions
    and for the bundled negatives: the null quantiles of the negatives' margin, coverage and top similarity
    (`Q_RESCUE`, `Q_SIMILARITY`; coverage never under `MIN_COVERAGE`), and the absent-word cut (`absent_cut`)."""
    pos, neg = [_parse(p) for p in positive], [_parse(n) for n in negative]
    sims = {lang: [n[5] for n in neg if n[0] == lang and n[5] is not None] for lang in ("ja", "en")}
    null = lambda xs, q: round(float(np.quantile(xs, q)) + 1e-6, 6) if len(xs) >= MIN_NULL else 1.01
    settings = GateSettings(null([n[1] for n in neg], Q_RESCUE),
                            max(MIN_COVERAGE, null([n[2] for n in neg], Q_RESCUE)), absent_cut(pos, max_false_refusal),
                            null(sims["ja"], Q_SIMILARITY), null(sims["en"], Q_SIMILARITY))
    return settings, _state(settings, stats(positive, negative, settings), chunks)


def stats(answerable: Sequence[Sequence[float | str]], unanswerable: Sequence[Sequence[float | str]],
          settings: GateSettings) -> GateStats:
    """How `settings` decide on the evidence of answerable and unanswerable questions (any signal form)."""
    def refused(signals: Sequence[Sequence[float | str]]) -> int:
        return sum(not decide(x[5] or 0.0, x[1], x[2], settings, absent=x[3], lang_share=x[4], lang=x[0],
                              content=x[6]).found for x in map(_parse, signals))
    return GateStats(len(answerable), len(unanswerable), refused(answerable), refused(unanswerable))


def _parse(signal: Sequence[float | str]) -> tuple[str, float, float, float, float, float | None, int]:
    """(language, margin, coverage, absent, language share, top similarity or None, content words or 0) of any
    signal form."""
    lang = str(signal[0]) if isinstance(signal[0], str) else "ja"
    x = [float(v) for v in signal if not isinstance(v, str)]
    absent = x[2] if len(x) > 2 else 0.0
    share = x[3] if len(x) > 3 else 1.0
    return lang, x[0], x[1], absent, share, x[4] if len(x) > 4 else None, int(x[6]) if len(x) > 6 else 0


def _state(settings: GateSettings, stats: GateStats, chunks: int) -> CalibrationState:
    return CalibrationState(
        "auto", chunks, stats.answerable, stats.unanswerable,
        round(stats.recall, 4), round(stats.false_refusal_rate, 4),
        datetime.now(UTC).isoformat(timespec="seconds"), round(settings.min_margin, 6),
        round(settings.min_coverage, 6), round(settings.max_absent, 6), round(settings.min_similarity_ja, 6),
        round(settings.min_similarity_en, 6), DESIGN)


def user_state(settings: GateSettings, stats: GateStats, chunks: int) -> CalibrationState:
    """The record of a `kotae calibrate` fit on the user's own labelled questions."""
    return CalibrationState("user", chunks, stats.answerable, stats.unanswerable, round(stats.recall, 4),
                            round(stats.false_refusal_rate, 4), datetime.now(UTC).isoformat(timespec="seconds"),
                            round(settings.min_margin, 6), round(settings.min_coverage, 6), design=DESIGN)


__all__ = ["META", "CalibrationState", "Signal", "evaluate", "fit", "languages", "needs_fit",
           "negatives", "pseudo_questions", "state", "stats", "user_state"]
