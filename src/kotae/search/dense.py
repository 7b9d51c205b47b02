"""Exact cosine search over a matrix held in memory (numpy, no Python loops)."""
from __future__ import annotations

import numpy as np

from kotae.store.base import DenseMatrix


class DenseIndex:
    def __init__(self, matrix: DenseMatrix) -> None:
        self.rowids = matrix.rowids
        self.vectors = matrix.vectors
        docs, codes = np.unique(matrix.doc_ids.astype(str), return_inverse=True) if len(matrix.rowids) else (
            np.zeros(0, str), np.zeros(0, np.int64))
        self._doc_code = {d: i for i, d in enumerate(docs.tolist())}
        self._codes = codes.astype(np.int32)

    def __len__(self) -> int:
        return len(self.rowids)

    def search(self, query: np.ndarray, k: int, doc_ids: set[str] | None = None) -> list[tuple[int, float]]:
        """Top-k (rowid, cosine) among chunks of `doc_ids` (all when None)."""
        if not len(self):
            return []
        sims = self.vectors @ query.astype(np.float32)
        if doc_ids is not None:
            allowed = [self._doc_code[d] for d in doc_ids if d in self._doc_code]
            sims = np.where(np.isin(self._codes, allowed), sims, -np.inf)
        k = min(k, len(sims))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(int(self.rowids[i]), float(sims[i])) for i in top if np.isfinite(sims[i])]
