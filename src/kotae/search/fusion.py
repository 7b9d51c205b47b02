"""Reciprocal rank fusion: score(d) = Σ_r w_r / (k + rank_r(d)), ranks from 1."""
from __future__ import annotations

from collections.abc import Mapping, Sequence


def rrf(rankings: Mapping[str, Sequence[int]], k: int = 60,
        weights: Mapping[str, float] | None = None) -> list[tuple[int, float]]:
    """Fuse ranked id lists; ties go to the id ranked best by any retriever, then to the smaller id."""
    score: dict[int, float] = {}
    best: dict[int, int] = {}
    for name, ids in rankings.items():
        w = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, i in enumerate(ids, start=1):
            score[i] = score.get(i, 0.0) + w / (k + rank)
            best[i] = min(best.get(i, rank), rank)
    return sorted(score.items(), key=lambda kv: (-kv[1], best[kv[0]], kv[0]))


def add_weighted(first: Sequence[tuple[int, float]], second: Sequence[tuple[int, float]], weight: float,
                 limit: int) -> list[tuple[int, float]]:
    """Scores of two keyword searches summed, the second's times `weight` (BM25 adds over query terms, so
    this is one search in which the second's terms count `weight` as much); the best `limit`."""
    score = {i: s for i, s in first}
    for i, s in second:
        score[i] = score.get(i, 0.0) + weight * s
    return sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
