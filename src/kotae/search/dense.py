"""Dense search: exact cosine over a matrix held in memory, or over a memory-mapped int8 vector file
(every row scored by onnxruntime's integer matrix product) with exact float rescoring of the best."""
from __future__ import annotations

import os
import threading
from collections.abc import Callable

import numpy as np

from kotae.search.gate import margin_of
from kotae.store.base import DenseMatrix
from kotae.store.vectorfile import VectorFile, VectorSet


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


# Rows scored exactly on float vectors after the int8 scan, as a multiple of k (with a floor).
# bench/dense_candidates.py: 4 per k finds the exact top 10 at 1M vectors on its hard set.
RESCORE_PER_K, RESCORE_MIN = 4, 200

# onnxruntime's MatMulInteger(rows uint8 with zero point 128, query int8 (d, m)) → int32 (n, m), serialised
# (tests/test_dense_quantized.py rebuilds it with `onnx`, which takes ~0.6 s to import: not paid per process).
SCAN_MODEL = bytes.fromhex(
    "080812056b6f7461653a8d010a280a04726f77730a0571756572790a047a65726f1204646f7473220d4d61744d756c496e74"
    "6567657212047363616e2a0c10022a02800142047a65726f5a180a04726f777312100a0e0802120a0a0312016e0a03120164"
    "5a190a05717565727912100a0e0803120a0a031201640a0312016d62180a04646f747312100a0e0806120a0a0312016e0a03"
    "12016d42040a00100d")
_scan_session = None
_scan_lock = threading.Lock()


def int8_dots(codes: np.ndarray, query: np.ndarray) -> np.ndarray:
    """codes (n, d) uint8 (int8 + 128) · query (d,) int8, exact, as int32 (n,): onnxruntime's u8 × s8 kernel
    (VNNI where the CPU has it) reads ~19 GB/s of codes on 2 cores, 1M × 384 in ~20 ms, where numpy would
    convert every row to float first (~220 ms)."""
    global _scan_session
    if _scan_session is None:
        with _scan_lock:
            if _scan_session is None:
                import onnxruntime as ort

                so = ort.SessionOptions()
                so.intra_op_num_threads = os.cpu_count() or 1
                so.inter_op_num_threads = 1
                so.log_severity_level = 3
                _scan_session = ort.InferenceSession(SCAN_MODEL, so, providers=["CPUExecutionProvider"])
    if not len(codes):
        return np.zeros(0, np.int32)
    out = _scan_session.run(None, {"rows": np.ascontiguousarray(codes), "query": query.reshape(-1, 1)})[0]
    return np.asarray(out).reshape(-1)


def quantize_query(q: np.ndarray) -> tuple[np.ndarray, float]:
    """int8 codes and scale of a query vector (q ≈ scale · codes, its max magnitude → 127)."""
    scale = float(np.abs(q).max()) / 127.0 or 1.0
    return np.rint(q / scale).astype(np.int8), scale


class QuantizedIndex:
    """Dense search over a memory-mapped `VectorSet` (a base file, maybe a delta): every live row's int8
    codes are scored against the int8 query in one pass (`int8_dots`), and the best are scored exactly on
    float vectors from `exact` ((rowids) → (rowids found, vectors)). Similarities returned are exact; a filter
    (and the tombstones of documents gone since the base file) selects whole documents' row ranges before any
    scoring, so it never empties the top k."""

    def __init__(self, vs: VectorSet, exact: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]) -> None:
        self.vs, self.exact = vs, exact
        self._segments: list[tuple[VectorFile, np.ndarray, np.ndarray, dict[str, int], np.ndarray | None]] = []
        for vf, live in vs.segments:
            counts = np.diff(vf.doc_start)
            row_live = None if live.all() else np.repeat(live, counts)
            self._segments.append((vf, live, counts, {d: i for i, d in enumerate(vf.doc_ids)}, row_live))

    def __len__(self) -> int:
        return len(self.vs)

    def search(self, query: np.ndarray, k: int, doc_ids: set[str] | None = None) -> list[tuple[int, float]]:
        """Top-k (rowid, cosine) among chunks of `doc_ids` (all when None)."""
        return self.search_with_margin(query, k, doc_ids)[0]

    def search_with_margin(self, query: np.ndarray, k: int,
                           doc_ids: set[str] | None = None) -> tuple[list[tuple[int, float]], float]:
        """Top-k as `search`, plus the top similarity's margin over the mean of the searched chunks."""
        q = np.ascontiguousarray(query, dtype=np.float32)
        if not len(self.vs) or k <= 0:
            return [], 0.0
        q8, q_scale = quantize_query(q)
        keep = max(RESCORE_PER_K * k, RESCORE_MIN)
        n, total = 0, np.zeros(len(q), np.float64)
        rows_approx: list[tuple[np.ndarray, np.ndarray]] = []
        for vf, live, counts, code, row_live in self._segments:
            if doc_ids is None and row_live is None:
                docs, m, seg_total = None, len(vf), vf.total
            else:
                wanted = live.nonzero()[0] if doc_ids is None else [code[d] for d in doc_ids if d in code]
                docs = np.array(sorted(c for c in wanted if live[c]), np.int64)
                if not len(docs):
                    continue
                m, seg_total = int(counts[docs].sum()), vf.doc_sums[docs].sum(axis=0, dtype=np.float64)
            n, total = n + m, total + seg_total
            if docs is None:
                rows = None
                approx = int8_dots(vf.codes, q8).astype(np.float32) * vf.scales
            elif 4 * m < len(vf):  # a few documents: copy their rows out rather than scan them all
                rows = np.concatenate([np.arange(vf.doc_start[c], vf.doc_start[c + 1]) for c in docs])
                approx = int8_dots(vf.codes[rows], q8).astype(np.float32) * vf.scales[rows]
            else:
                rows = None
                approx = int8_dots(vf.codes, q8).astype(np.float32) * vf.scales
                allowed = np.zeros(len(counts), bool)
                allowed[docs] = True
                approx[~np.repeat(allowed, counts)] = -np.inf
            best = (np.argpartition(approx, len(approx) - keep)[-keep:] if len(approx) > keep
                    else np.arange(len(approx)))
            best = best[np.isfinite(approx[best])]
            rows_approx.append((vf.rowids[best if rows is None else rows[best]], approx[best] * q_scale))
        if not n:
            return [], 0.0
        rows = np.concatenate([r for r, _ in rows_approx])
        approx = np.concatenate([a for _, a in rows_approx])
        if len(rows) > keep:
            rows = rows[np.argpartition(-approx, keep - 1)[:keep]]
        rowids, vectors = self.exact(rows)
        if not len(rowids):
            return [], 0.0
        sims = vectors @ q
        order = np.lexsort((rowids, -sims))[:k]
        hits = [(int(rowids[i]), float(sims[i])) for i in order]
        return hits, hits[0][1] - float(q @ total) / n
