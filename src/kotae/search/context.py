"""Context assembly for generation: drop near-duplicate passages (MMR), put the best at both ends.

Pure functions over ranked hits. Redundancy is measured on character 3-gram sets (Jaccard), which works
the same for Japanese and English and needs no vectors; relevance is the hit's rank.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from kotae.types import Hit

T = TypeVar("T")


def shingles(text: str, n: int = 3) -> frozenset[str]:
    s = "".join(text.split())
    return frozenset(s[i : i + n] for i in range(max(1, len(s) - n + 1)))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def mmr(hits: Sequence[Hit], k: int, lambda_: float = 0.7, duplicate: float = 0.8) -> list[Hit]:
    """Pick up to `k` hits by maximal marginal relevance; hits at least `duplicate`-similar to a picked
    one are dropped outright. Relevance decays with rank: 1, 1/2, 1/3, …"""
    grams = [shingles(h.chunk.text) for h in hits]
    chosen: list[int] = []
    left = list(range(len(hits)))
    while left and len(chosen) < k:
        def value(i: int) -> float:
            redundancy = max((jaccard(grams[i], grams[j]) for j in chosen), default=0.0)
            return lambda_ / (i + 1) - (1 - lambda_) * redundancy

        best = max(left, key=lambda i: (value(i), -i))
        left.remove(best)
        if any(jaccard(grams[best], grams[j]) >= duplicate for j in chosen):
            continue
        chosen.append(best)
    return [hits[i] for i in chosen]


def ends_first(items: Sequence[T]) -> list[T]:
    """Reorder ranked items so the best sit at the start and the end, the weakest in the middle
    ("lost in the middle"): ranks 1,2,3,4,5 → 1,3,5,4,2."""
    front = list(items[0::2])
    back = list(items[1::2])
    return front + back[::-1]


def assemble(hits: Sequence[Hit], k: int = 6) -> list[Hit]:
    """The passages to show a generator: de-duplicated by MMR, best evidence at both ends."""
    return ends_first(mmr(hits, k))
