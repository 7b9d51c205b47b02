"""The abstention gate: decide "not in the documents" from retrieval evidence, before any answer.

Evidence: the top dense similarity (e5 similarities bunch up around 0.8–0.9, so alone it is weak) and
keyword coverage — the IDF-weighted share of the question's content words found in the best passages.
A question is answered when either signal is strong enough; thresholds can be calibrated per index.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class GateSettings:
    min_similarity: float = 0.86
    min_coverage: float = 0.6


@dataclass(frozen=True)
class GateDecision:
    found: bool
    similarity: float
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


def decide(similarity: float, cov: float, settings: GateSettings) -> GateDecision:
    if similarity >= settings.min_similarity:
        return GateDecision(True, similarity, cov, f"similarity {similarity:.3f} ≥ {settings.min_similarity}")
    if cov >= settings.min_coverage:
        return GateDecision(True, similarity, cov, f"keyword coverage {cov:.2f} ≥ {settings.min_coverage}")
    return GateDecision(False, similarity, cov,
                        f"similarity {similarity:.3f} < {settings.min_similarity} and "
                        f"keyword coverage {cov:.2f} < {settings.min_coverage}")
