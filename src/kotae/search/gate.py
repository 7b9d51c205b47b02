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

__all__ = ["GateDecision", "GateSettings", "GateStats", "calibrate", "coverage", "decide", "evaluate", "margin_of"]


@dataclass(frozen=True)
class GateDecision:
    found: bool
    similarity: float
    margin: float
    coverage: float
    reason: str


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
    `max_false_refusal` of the answerable ones (ties: fewer false refusals, then lower thresholds)."""
    margins = sorted({round(m, 4) for _, m, _ in samples} | {0.0})
    covers = sorted({round(c, 4) for _, _, c in samples} | {0.0, 1.01})
    best: tuple[tuple[float, ...], GateSettings, GateStats] | None = None
    for m in margins:
        for c in covers:
            s = GateSettings(float(m) + 1e-6, float(c) + 1e-6)
            st = evaluate(samples, s)
            if st.false_refusal_rate > max_false_refusal:
                continue
            key = (st.abstained, -st.false_refusals, -m, -c)
            if best is None or key > best[0]:
                best = (key, s, st)
    if best is None:  # cannot happen: the zero thresholds refuse nothing
        s = GateSettings(0.0, 0.0)
        return s, evaluate(samples, s)
    return best[1], best[2]


def margin_of(similarities: np.ndarray) -> float:
    """Top similarity minus the mean similarity (0 for no chunks)."""
    return float(similarities.max() - similarities.mean()) if len(similarities) else 0.0
