"""An embedder wrapper that remembers every vector it has made, for evaluations that embed the same
text many times: a sweep builds one index per chunk setting, a benchmark asks each query in every mode.

This is the sweep's shared embedding cache. It lives in memory, keyed like the store's cache (model id +
text), so it works with any Store and never reaches into another index's database.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import numpy as np

from kotae.facade import Embedder


class MemoEmbedder(Embedder):
    """Delegates to `inner`; passages and queries already embedded are answered from memory."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name, self.version, self.dim = inner.name, inner.version, inner.dim
        self.batch_size = inner.batch_size
        self._passages: dict[str, np.ndarray] = {}
        self._queries: dict[str, np.ndarray] = {}
        self.requested = 0  # passages asked for
        self.embedded = 0  # passages the inner model really embedded

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def embed_batch(self, texts: Sequence[str], kind: str) -> np.ndarray:  # type: ignore[override]
        return self.inner.embed_batch(texts, kind)  # type: ignore[arg-type]

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def passages(self, texts: Sequence[str], on_batch: Callable[[int], None] | None = None) -> np.ndarray:
        self.requested += len(texts)
        keys = [_key(t) for t in texts]
        todo = sorted({k: i for i, k in enumerate(keys) if k not in self._passages}.values())
        if todo:
            fresh = self.inner.passages([texts[i] for i in todo], on_batch)
            self.embedded += len(todo)
            self._passages.update({keys[i]: fresh[j] for j, i in enumerate(todo)})
        if on_batch and len(texts) > len(todo):
            on_batch(len(texts) - len(todo))
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        return np.stack([self._passages[k] for k in keys])

    def query(self, text: str) -> np.ndarray:
        if text not in self._queries:
            self._queries[text] = self.inner.query(text)
        return self._queries[text]

    @property
    def remembered(self) -> int:
        """How many distinct passages are held."""
        return len(self._passages)


def _key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()
