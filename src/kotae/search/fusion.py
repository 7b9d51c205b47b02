"""Fusing the dense and keyword arms: reciprocal rank fusion (score(d) = Σ_r w_r / (k + rank_r(d)), ranks from
1) with per-query weights, or a weighted sum of min-max normalised scores. Pure functions over plain lists."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kotae.config import FUSIONS, SearchSettings

__all__ = ["FUSIONS", "Arms", "add_weighted", "arm_trust", "fuse", "normalised", "rrf", "top_gap"]


@dataclass(frozen=True)
class Arms:
    """One question's two arms as the searcher found them: (rowid, score) best first, the keyword coverage of the
    best keyword hits (0..1) and the dense margin (top similarity over the mean)."""

    dense: list[tuple[int, float]]
    keyword: list[tuple[int, float]]
    coverage: float
    margin: float


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


def normalised(scores: Sequence[tuple[int, float]]) -> dict[int, float]:
    """Min-max normalised scores of one arm's list (best 1, last 0; all 1 when the list is flat)."""
    if not scores:
        return {}
    hi, lo = scores[0][1], scores[-1][1]
    span = hi - lo
    return {i: (s - lo) / span if span > 0 else 1.0 for i, s in scores}


def agreement(dense: Sequence[tuple[int, float]], keyword: Sequence[tuple[int, float]], depth: int = 10) -> float:
    """Share of the keyword arm's first `depth` hits that the dense arm also has in its first `depth` (0..1)."""
    top = {i for i, _ in dense[:depth]}
    kw = [i for i, _ in keyword[:depth]]
    return sum(i in top for i in kw) / len(kw) if kw else 0.0


def weights(arms: Arms, s: SearchSettings) -> tuple[float, float]:
    """The dense and keyword weights for this question."""
    wd, wk = s.dense_weight, s.keyword_weight
    if s.adaptive_keyword_weight:
        # Trust keyword ranks as far as the best keyword hits contain the question's rare words:
        # a paraphrase matching only common words (する, いつ, お金) should not pull noise up.
        wk *= s.keyword_weight_scale * arms.coverage ** s.coverage_power
    if s.arm_trust:
        td, tk = arm_trust(arms.dense, arms.keyword, s.dense_trust_scale, s.keyword_trust_scale)
        wd, wk = wd * td, wk * tk
    if s.fusion == "agreement":
        wk *= 0.5 + agreement(arms.dense, arms.keyword)
    return wd, wk


def fuse(arms: Arms, s: SearchSettings, mode: str | None = None) -> list[tuple[int, float]]:
    """The ranking of one question in `mode` (default the settings'): an arm alone, or both fused by
    `s.fusion` (rrf and agreement: weighted RRF; scores: weighted sum of normalised scores)."""
    mode = mode or s.mode
    if mode == "dense":
        return list(arms.dense)
    if mode == "keyword":
        return list(arms.keyword)
    wd, wk = weights(arms, s)
    if s.fusion == "scores":
        nd, nk = normalised(arms.dense), normalised(arms.keyword)
        rank = {i: r for r, (i, _) in enumerate(arms.dense)}
        krank = {i: r for r, (i, _) in enumerate(arms.keyword)}
        total = {i: wd * nd.get(i, 0.0) + wk * nk.get(i, 0.0) for i in nd.keys() | nk.keys()}
        far = len(arms.dense) + len(arms.keyword)
        return sorted(total.items(), key=lambda kv: (-kv[1], min(rank.get(kv[0], far), krank.get(kv[0], far)),
                                                     kv[0]))
    return rrf({"dense": [r for r, _ in arms.dense], "keyword": [r for r, _ in arms.keyword]}, k=s.rrf_k,
               weights={"dense": wd, "keyword": wk})
