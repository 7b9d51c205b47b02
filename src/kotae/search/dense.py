"""Exact cosine search over a matrix held in memory (numpy, no Python loops)."""
from __future__ import annotations

import numpy as np

from kotae.search.gate import margin_of
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
        return self.search_with_margin(query, k, doc_ids)[0]

    def search_with_margin(self, query: np.ndarray, k: int,
                           doc_ids: set[str] | None = None) -> tuple[list[tuple[int, float]], float]:
        """Top-k as `search`, plus the top similarity's margin over the mean of the searched chunks."""
        if not len(self):
            return [], 0.0
        sims = self.vectors @ query.astype(np.float32)
        if doc_ids is not None:
            allowed = [self._doc_code[d] for d in doc_ids if d in self._doc_code]
            mask = np.isin(self._codes, allowed)
            if not mask.any():
                return [], 0.0
            margin = margin_of(sims[mask])
            sims = np.where(mask, sims, -np.inf)
        else:
            margin = margin_of(sims)
        k = min(k, len(sims))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(int(self.rowids[i]), float(sims[i])) for i in top if np.isfinite(sims[i])], margin
