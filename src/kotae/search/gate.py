"""The abstention gate: decide "not in the documents" from retrieval evidence, before any answer.

e5 similarities bunch up around 0.8–0.9 and sit lower for English than for Japanese, so a raw cosine
cut is weak (measured on the sample golden sets: AUC 0.74). Two signals separate better:
- margin: the top dense similarity minus the mean similarity over the searched chunks (AUC 0.82);
- coverage: the IDF-weighted share of the question's content words found in one of the best passages.
A question is answered when either is strong enough. `calibrate` picks both thresholds on a labelled
set (answerable vs unanswerable); `kotae calibrate` stores them with the index.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kotae.config import GateSettings

__all__ = ["GateDecision", "GateSettings", "GateStats", "absent_terms", "calibrate", "coverage", "decide", "evaluate", "explain", "margin_of"]


@dataclass(frozen=True)
class GateDecision:
    found: bool
    similarity: float
    margin: float
    coverage: float
    reason: str  # the numbers that decided
    explanation: str = ""  # why not found, in plain words in the question's language (refusals only)


def coverage(query_tokens: Sequence[str], passage_tokens: Sequence[Sequence[str]],
             df: Mapping[str, int], n_chunks: int) -> float:
    """IDF-weighted share of distinct query tokens present in the best single passage (0..1)."""
    terms = set(query_tokens)
    if not terms or not passage_tokens:
        return 0.0
    idf = {t: math.log(1 + (n_chunks + 1) / (df.get(t, 0) + 0.5)) for t in terms}
    total = sum(idf.values())
    return max(sum(idf[t] for t in terms & set(p)) for p in passage_tokens) / total


def decide(similarity: float, margin: float, cov: float, settings: GateSettings) -> GateDecision:
    if margin >= settings.min_margin:
        why = f"similarity margin {margin:.3f} ≥ {settings.min_margin}"
        return GateDecision(True, similarity, margin, cov, why)
    if cov >= settings.min_coverage:
        why = f"keyword coverage {cov:.2f} ≥ {settings.min_coverage}"
        return GateDecision(True, similarity, margin, cov, why)
    return GateDecision(False, similarity, margin, cov,
                        f"similarity margin {margin:.3f} < {settings.min_margin} and "
                        f"keyword coverage {cov:.2f} < {settings.min_coverage}")


@dataclass(frozen=True)
class GateStats:
    """How the gate does on a labelled set; 'positive' = abstaining on an unanswerable question."""

    answerable: int
    unanswerable: int
    false_refusals: int  # answerable questions refused
    abstained: int  # unanswerable questions refused

    @property
    def recall(self) -> float:
        return self.abstained / self.unanswerable if self.unanswerable else 0.0

    @property
    def precision(self) -> float:
        refused = self.abstained + self.false_refusals
        return self.abstained / refused if refused else 0.0

    @property
    def false_refusal_rate(self) -> float:
        return self.false_refusals / self.answerable if self.answerable else 0.0


def evaluate(samples: Sequence[tuple[bool, float, float]], settings: GateSettings) -> GateStats:
    """samples: (answerable, margin, coverage) per question."""
    refused = [not decide(0.0, m, c, settings).found for _, m, c in samples]
    return GateStats(
        answerable=sum(a for a, _, _ in samples), unanswerable=sum(not a for a, _, _ in samples),
        false_refusals=sum(r for r, (a, _, _) in zip(refused, samples) if a),
        abstained=sum(r for r, (a, _, _) in zip(refused, samples) if not a),
    )


def calibrate(samples: Sequence[tuple[bool, float, float]],
              max_false_refusal: float = 0.05) -> tuple[GateSettings, GateStats]:
    """The thresholds that abstain on the most unanswerable questions while refusing at most
    `max_false_refusal` of the answerable ones (ties: fewer false refusals, then lower thresholds).

    Every pair of candidate thresholds (each distinct margin and coverage, rounded to 4 places) is tried;
    for one margin threshold, the counts for all coverage thresholds come at once from sorted coverages."""
    answerable = np.array([a for a, _, _ in samples], dtype=bool)
    margin = np.array([m for _, m, _ in samples], dtype=np.float64)
    cov = np.array([c for _, _, c in samples], dtype=np.float64)
    n_answerable = int(answerable.sum())
    margins = sorted({round(m, 4) for _, m, _ in samples} | {0.0})
    covers = sorted({round(c, 4) for _, _, c in samples} | {0.0, 1.01})
    cut_c = np.array([float(c) + 1e-6 for c in covers])
    best: tuple[tuple[float, ...], GateSettings] | None = None
    for m in margins:
        low = margin < float(m) + 1e-6  # refused = margin below its threshold and coverage below its own
        abstained = np.searchsorted(np.sort(cov[low & ~answerable]), cut_c, side="left")
        refused = np.searchsorted(np.sort(cov[low & answerable]), cut_c, side="left")
        rate = refused / n_answerable if n_answerable else np.zeros(len(cut_c))
        ok = np.flatnonzero(rate <= max_false_refusal)
        if not len(ok):
            continue
        j = ok[np.lexsort((ok, refused[ok], -abstained[ok]))[0]]  # most abstained, fewest refused, lowest c
        key = (int(abstained[j]), -int(refused[j]), -m, -covers[j])
        if best is None or key > best[0]:
            best = (key, GateSettings(float(m) + 1e-6, float(covers[j]) + 1e-6))
    s = best[1] if best is not None else GateSettings(0.0, 0.0)  # None cannot happen: 0, 0 refuses nothing
    return s, evaluate(samples, s)


# Words that ask rather than name what is asked about (教えてください, explain): never "absent from the documents".
ASKING = frozenset({"下さる", "頂く", "いただく", "教える", "説明", "知る", "思う", "欲しい", "言う", "explain",
                    "tell", "describ", "know", "pleas", "list", "give", "show", "much", "mani", "often", "long",
                    "far", "全部", "全て", "すべて", "挙げる", "一覧"})


def absent_terms(question_words: Sequence[tuple[str, Sequence[str]]], df: Mapping[str, int],
                 limit: int = 4) -> list[str]:
    """The question's words (as written) that no chunk of the documents contains after normalisation: words
    whose every search token has no document frequency. Adjacent such pieces of Japanese text are joined
    (ワールド + カップ → ワールドカップ); the longest first, at most `limit`."""
    out: list[str] = []
    run = ""
    for surface, tokens in [*question_words, ("", [])]:
        missing = bool(tokens) and all(df.get(t, 0) == 0 for t in tokens) and not set(tokens) <= ASKING
        if missing and (not run or run[-1].isascii() == surface[:1].isascii()):
            glue = " " if run and surface.isascii() else ""  # English words apart, Japanese pieces joined
            run = f"{run}{glue}{surface}"
            continue
        if run:
            out.append(run.strip())
        run = surface if missing else ""
    seen = list(dict.fromkeys(out))
    return sorted(seen, key=lambda w: (-len(w), seen.index(w)))[:limit]


def explain(absent: Sequence[str], cov: float, lang: str) -> str:
    """Why the documents do not answer, for people: the words they never mention, else how little of the
    question the closest passage holds."""
    ja = lang in ("ja", "mixed")
    if absent:
        if ja:
            return "資料には" + "".join(f"「{w}」" for w in absent) + "についての記載がありません"
        names = ", ".join(f'"{w}"' for w in absent)
        return f"The documents never mention {names}."
    if ja:
        return f"資料にこの質問に答える箇所が見つかりませんでした（最も近い箇所にも質問の語の{cov:.0%}しかありません）"
    return f"No passage of the documents answers this (the closest one holds only {cov:.0%} of the question's words)."


def margin_of(similarities: np.ndarray) -> float:
    """Top similarity minus the mean similarity (0 for no chunks)."""
    return float(similarities.max() - similarities.mean()) if len(similarities) else 0.0
