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


def top_gap(scores: Sequence[tuple[int, float]], depth: int = 5) -> float:
    """How far one arm's best score stands above its `depth`-th, relative to the best (0: a flat list, no
    hit stands out; near 1: one hit does)."""
    if len(scores) < 2 or scores[0][1] <= 0:
        return 0.0
    return (scores[0][1] - scores[min(depth, len(scores)) - 1][1]) / scores[0][1]


def arm_trust(dense: Sequence[tuple[int, float]], keyword: Sequence[tuple[int, float]],
              dense_scale: float, keyword_scale: float) -> tuple[float, float]:
    """Per-query multipliers of the dense and keyword weights: 0.5 + scale × the arm's top gap, so an arm
    whose best hit stands out counts more than one whose list is flat."""
    return 0.5 + dense_scale * top_gap(dense), 0.5 + keyword_scale * top_gap(keyword)
