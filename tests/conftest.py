"""Shared fixtures: a FakeEmbedder that really embeds (hashed bag of words), the real e5 model once."""
from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence

import numpy as np
import pytest

from kotae.embed.base import Embedder, Kind, register
from kotae.search.analyze import analyze

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples", "docs")


class FakeEmbedder(Embedder):
    """Hashed bag of analysed words: similar words → similar vectors, deterministic and fast."""

    name = "fake"
    version = "1"
    dim = 256

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []  # (kind, batch size), to check what was embedded

    def embed_batch(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        self.calls.append((kind, len(texts)))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for tok in analyze(t) or ["<empty>"]:
                out[i, int(hashlib.md5(tok.encode()).hexdigest(), 16) % self.dim] += 1.0
        return out

    def count_tokens(self, text: str) -> int:
        return 2 + len(text) // 2

    @property
    def embedded(self) -> int:
        return sum(n for kind, n in self.calls if kind == "passage")


@register("fake")
def _fake(arg: str) -> Embedder:
    return FakeEmbedder()


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture(scope="session")
def e5():
    from kotae.embed import get_embedder

    return get_embedder("e5-small")
