"""A null per document for the gate's similarity: how near off-topic questions come to each document.

One similarity threshold for the whole corpus lets the documents that sit near every question set it: a FAQ
whose chunks come near any question raises the bundled off-topic questions' similarities, and a gazette or a
card leaflet asked about in its own words is then refused. Here each document has its own null level, per
question language: the mean over the bundled negatives (kotae/data/negatives) of their best similarity to the
document's chunks. The gate's similarity evidence is the best, over the question's dense candidates, of its
similarity less `ALPHA` × its document's level; its threshold is still a quantile of the negatives' own values
(kotae.search.autocal), so the share of off-topic questions it lets through stays what it was.

bench/gate_docnull.py chose `ALPHA` on the fit halves (samples/docs + the real files of ../shared/data/samples,
quantile 0.7: false refusals 0.075 → 0.056 at 0.5, 0.062 at 1). Pure functions; the index stores the levels
(`META`) when its gate calibrates itself.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["ALPHA", "BLOCK", "MAX_CHUNKS", "META", "STAMP", "DocNull", "document_levels", "lifted"]

ALPHA = 0.5  # share of a document's null level taken off its similarities
META = "gate_doc_null"
STAMP = "gate_doc_null_stamp"  # changes whenever META is written: a search reads META again only then
BLOCK = 8192  # chunks scored at once while measuring the levels
MAX_CHUNKS = 100_000  # larger corpora keep one threshold (the levels read every chunk vector into memory at once:
# ~150 MB of float32 at this size, twice that while SQLite hands them over)


def document_levels(null: np.ndarray, vectors: np.ndarray, codes: np.ndarray, n_docs: int) -> np.ndarray:
    """(n_docs,): for each document (its chunks' `codes`), the mean over the rows of `null` (unit question
    vectors) of their best cosine with the document's chunks (`vectors`, unit rows); NaN for a document with no
    chunk. Scored in blocks of BLOCK chunks, in document order."""
    if not len(null) or not len(vectors):
        return np.full(n_docs, np.nan)
    best = np.full((len(null), n_docs), -np.inf, np.float32)
    order = np.argsort(codes, kind="stable")
    q = np.asarray(null, np.float32)
    for start in range(0, len(order), BLOCK):
        rows = order[start:start + BLOCK]
        block_codes = codes[rows]
        cuts = np.flatnonzero(np.r_[True, block_codes[1:] != block_codes[:-1]])
        sims = q @ np.asarray(vectors[rows], np.float32).T
        part = np.maximum.reduceat(sims, cuts, axis=1)
        docs = block_codes[cuts]
        best[:, docs] = np.maximum(best[:, docs], part)
    return np.where(np.isfinite(best), best, np.nan).mean(axis=0, dtype=np.float64)


@dataclass(frozen=True)
class DocNull:
    """The null level of each document per question language ("ja", "en"), and the mean level per language for
    documents indexed after it was measured."""

    model: str
    levels: Mapping[str, Mapping[str, float]]  # language → document id → level
    default: Mapping[str, float]

    def level(self, lang: str, doc_id: str) -> float | None:
        per = self.levels.get(lang)
        if per is None:
            return None
        return per.get(doc_id, self.default.get(lang))

    def to_json(self) -> str:
        return json.dumps({"model": self.model, "levels": self.levels, "default": self.default},
                          ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> DocNull:
        d = json.loads(text)
        return cls(str(d["model"]), {la: {str(k): float(v) for k, v in per.items()} for la, per in d["levels"].items()},
                   {la: float(v) for la, v in d["default"].items()})

    @classmethod
    def measure(cls, model: str, null: Mapping[str, np.ndarray], vectors: np.ndarray,
                doc_ids: Sequence[str]) -> DocNull:
        """The levels of every document from the negatives' vectors per language and all chunk vectors."""
        docs, codes = np.unique(np.asarray(doc_ids, dtype=str), return_inverse=True)
        levels: dict[str, dict[str, float]] = {}
        default: dict[str, float] = {}
        for lang, q in null.items():
            values = document_levels(q, vectors, codes, len(docs))
            kept = {str(d): round(float(v), 5) for d, v in zip(docs.tolist(), values.tolist(), strict=True)
                    if np.isfinite(v)}
            levels[lang] = kept
            default[lang] = round(float(np.mean(list(kept.values()))), 5) if kept else 0.0
        return cls(model, levels, default)


def lifted(candidates: Sequence[tuple[str, float]], null: DocNull, lang: str,
           alpha: float | None = None) -> float | None:
    """The best of the candidates' similarities less `alpha` (default `ALPHA`) × their document's level
    (`candidates`: (document id, similarity)); None when there are no candidates or no levels for `lang`."""
    alpha = ALPHA if alpha is None else alpha
    values = [s - alpha * lv for d, s in candidates if (lv := null.level(lang, d)) is not None]
    return max(values) if values else None
