"""Other-language slots: in a corpus of Japanese and English chunks, an English question about a Japanese document
(or the reverse) loses to same-language chunks on the same topic, because e5's similarities run higher within one
language. When the other language's best chunk stands out of its own language's chunks at least as far as the
question language's best stands out of theirs (z-scores of the similarity against each language's mean and
spread over all its chunks), its best chunks are placed in the ranking from a fixed rank on; rank 1 is never
changed. Pure functions; `LangStats` is built once per store generation from the dense vectors.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["LANGS", "LangStats", "place_other", "take_back"]

LANGS = ("ja", "en")
_OTHER = {"ja": "en", "en": "ja"}


@dataclass(frozen=True)
class LangStats:
    """Per language: the mean vector and covariance of its chunks' vectors, so a query's mean similarity to the
    language's chunks is q·mean and its variance qᵀ·cov·q (exact, without scoring every chunk)."""

    mean: Mapping[str, np.ndarray]
    cov: Mapping[str, np.ndarray]

    @classmethod
    def from_vectors(cls, vectors: np.ndarray, langs: Sequence[str]) -> LangStats:
        """From the chunks' vectors and their languages (row for row); languages with fewer than 2 chunks and
        languages other than ja/en are left out."""
        lang = np.asarray(langs)
        mean, cov = {}, {}
        for la in LANGS:
            v = np.asarray(vectors[lang == la], dtype=np.float64) if len(lang) else np.zeros((0, 0))
            if len(v) >= 2:
                mean[la] = v.mean(axis=0)
                cov[la] = np.cov(v, rowvar=False, bias=True)
        return cls(mean, cov)

    def bilingual(self) -> bool:
        return all(la in self.mean for la in LANGS)

    def z(self, query: np.ndarray, lang: str, sim: float) -> float:
        """How many standard deviations `sim` lies above the query's mean similarity to `lang`'s chunks."""
        q = np.asarray(query, dtype=np.float64)
        mu = float(q @ self.mean[lang])
        sd = float(np.sqrt(max(q @ self.cov[lang] @ q, 0.0))) + 1e-6
        return (sim - mu) / sd


def place_other(ranked: Sequence[tuple[int, float]], dense: Sequence[tuple[int, float]], langs: Mapping[int, str],
                question_lang: str, query: np.ndarray, stats: LangStats, slots: int,
                rank: int) -> list[tuple[int, float]]:
    """`ranked` with the other language's best `slots` dense chunks placed from `rank` (1-based, ≥ 2) on, when
    the question is ja or en, the corpus holds both, none of the first `rank` hits is in the other language
    already, and the other language's best dense chunk has a z-score at least the question language's best's.
    A placed chunk takes the score of the hit before it."""
    other = _OTHER.get(question_lang)
    if other is None or slots <= 0 or not stats.bilingual() or not ranked:
        return list(ranked)
    rank = max(2, rank)
    if any(langs.get(r) == other for r, _ in ranked[:rank]):
        return list(ranked)
    best_o = [(r, s) for r, s in dense if langs.get(r) == other]
    best_q = next(((r, s) for r, s in dense if langs.get(r) == question_lang), None)
    if not best_o or best_q is None:
        return list(ranked)
    if stats.z(query, other, best_o[0][1]) < stats.z(query, question_lang, best_q[1]):
        return list(ranked)
    placed = [r for r, _ in best_o[:slots]]
    rest = [(r, s) for r, s in ranked if r not in placed]
    head = rest[: rank - 1]
    score = head[-1][1]
    return head + [(r, score) for r in placed] + rest[rank - 1 :]


def take_back(dense: Sequence[tuple[int, float]], mixed_hits: Sequence[tuple[int, float]], langs: Mapping[int, str],
              target: str, query: np.ndarray, mixed: np.ndarray, stats: LangStats | None,
              share: float) -> list[tuple[int, float]]:
    """One dense ranking from the question's (`dense`) and a mixed query vector's (`mixed_hits`: the question
    plus its translated words): `target`-language chunks take the mixed vector's score, the rest the question's.
    The mixed vector rates the whole target language higher; `share` of that lift is taken back, each such score
    moved that share of the way to the mean and spread the question's own vector has over the target language's
    chunks (none without statistics of that language). Best first, ties by rowid."""
    scale = lambda v: v
    if stats is not None and target in stats.mean:
        q, m = np.asarray(query, dtype=np.float64), np.asarray(mixed, dtype=np.float64)
        mu_q, mu_m = float(q @ stats.mean[target]), float(m @ stats.mean[target])
        sd = lambda v: float(np.sqrt(max(v @ stats.cov[target] @ v, 0.0))) + 1e-6
        ratio = sd(q) / sd(m)
        scale = lambda v: (1 - share) * v + share * (mu_q + (v - mu_m) * ratio)
    merged = {r: v for r, v in dense if langs.get(r) != target}
    merged.update({r: scale(v) for r, v in mixed_hits if langs.get(r) == target})
    return sorted(merged.items(), key=lambda x: (-x[1], x[0]))

