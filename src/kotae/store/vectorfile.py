"""A compact, memory-mapped copy of an index's vectors for dense search at a million chunks.

One file beside the SQLite database, rebuilt from it when the index's generation moves on. Rows are
ordered by (document, rowid), so one document is one contiguous range and a filter is a set of ranges.
Per row it holds int8 codes with one float scale (v ≈ scale · codes, 1 byte per dimension), stored as
unsigned bytes (code + 128: onnxruntime's fast u8 × s8 kernel takes them as they are; `kotae.search.dense`
scans every row with it). Per document it holds the float sum of its vectors (the gate's mean similarity over
any set of documents is exact). At 1M × 384 that is ~390 MB, paged in by the OS as it is read: opening the
file costs nothing, so a one-shot `kotae ask` does not pay for the whole matrix.

A `sections` file (magic KOTAEVF2, a JSON header, 4 KiB-aligned sections). A file of an older layout
(KOTAEVF1: sign bits for a Hamming first pass) is not loaded, so it is rebuilt.

Writes do not rebuild the whole file: a *delta* file beside it holds the rows of documents added or changed
since and names the base file's documents that are gone or changed (tombstones, skipped by the search).
`VectorSet` is the pair as one set of live rows.
"""
from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from kotae.store import sections

MAGIC = b"KOTAEVF2"
CODE_ZERO = 128  # a stored code byte minus this is the int8 code


@dataclass(frozen=True)
class VectorFile:
    """The sections of one vector file (read-only arrays over the mapping)."""

    generation: int
    model: str
    doc_ids: list[str]  # sorted; document code = position
    doc_sigs: list[str]  # per document: what it was built from (sha256, indexed_at, chunks)
    file_id: str  # a base file's identity; a delta file names the base it extends
    base_id: str  # "" in a base file
    dead: list[str]  # a delta file: the base file's documents that are gone or changed
    doc_start: np.ndarray  # int64 (docs + 1): rows of document c are doc_start[c]:doc_start[c + 1]
    rowids: np.ndarray  # int64 (n,)
    scales: np.ndarray  # float32 (n,)
    codes: np.ndarray  # uint8 (n, dim): int8 code + CODE_ZERO
    total: np.ndarray  # float64 (dim,): sum of all vectors
    doc_sums: np.ndarray  # float32 (docs, dim)

    def __len__(self) -> int:
        return len(self.rowids)

    @property
    def dim(self) -> int:
        return int(self.codes.shape[1]) if self.codes.ndim == 2 else 0


def quantize(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 codes and per-row scales with v ≈ scale · codes (symmetric, the row's max magnitude → 127)."""
    v = np.asarray(vectors, dtype=np.float32)
    scale = np.abs(v).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    return np.rint(v / scale[:, None]).astype(np.int8), scale.astype(np.float32)


def _layout(n: int, dim: int, docs: int) -> dict[str, tuple[str, tuple[int, ...]]]:
    return {"doc_start": ("<i8", (docs + 1,)), "rowids": ("<i8", (n,)), "scales": ("<f4", (n,)),
            "codes": ("u1", (n, dim)), "total": ("<f8", (dim,)), "doc_sums": ("<f4", (docs, dim))}


def write(path: str, generation: int, model: str, dim: int, docs: list[tuple[str, int, str]],
          blocks: Iterable[tuple[np.ndarray, np.ndarray]], *, base_id: str = "", dead: Iterable[str] = ()) -> None:
    """Write the file for `docs` ((doc id, rows, signature), sorted by id) from `blocks` of (rowids, float
    vectors) in (document, rowid) order; atomically (a temporary file renamed over `path`). A delta file
    passes its base file's `base_id` and the base's `dead` documents."""
    counts = np.array([c for _, c, _ in docs], dtype=np.int64)
    n = int(counts.sum())
    meta = {"generation": generation, "model": model, "n": n, "dim": dim, "doc_ids": [d for d, _, _ in docs],
            "doc_sigs": [g for _, _, g in docs], "file_id": uuid.uuid4().hex, "base_id": base_id,
            "dead": sorted(dead)}
    sections.write(path, MAGIC, meta, _layout(n, dim, len(docs)), lambda arr: _fill(arr, counts, blocks),
                   prefix=".vectors-")


def _fill(arr: dict[str, np.ndarray], counts: np.ndarray, blocks: Iterable[tuple[np.ndarray, np.ndarray]]) -> None:
    arr["doc_start"][0] = 0
    np.cumsum(counts, out=arr["doc_start"][1:])
    doc_of_row = np.repeat(np.arange(len(counts)), counts)
    sums = np.zeros(arr["doc_sums"].shape, np.float64)
    total = np.zeros(arr["total"].shape, np.float64)
    lo = 0
    for rowids, vectors in blocks:
        hi = lo + len(rowids)
        v = np.asarray(vectors, dtype=np.float32)
        arr["rowids"][lo:hi] = rowids
        codes, arr["scales"][lo:hi] = quantize(v)
        arr["codes"][lo:hi] = codes.view(np.uint8) ^ np.uint8(CODE_ZERO)  # two's complement: x + 128
        docs = doc_of_row[lo:hi]
        starts = np.flatnonzero(np.r_[True, docs[1:] != docs[:-1]])
        sums[docs[starts]] += np.add.reduceat(v.astype(np.float64), starts, axis=0)
        total += v.sum(axis=0, dtype=np.float64)
        lo = hi
    if lo != len(doc_of_row):
        raise ValueError(f"vector file: {lo} rows written, {len(doc_of_row)} expected")
    arr["doc_sums"][:] = sums
    arr["total"][:] = total


def load(path: str) -> VectorFile | None:
    """Map the file read-only; None when it is missing or not a vector file of this version."""
    found = sections.read(path, MAGIC)
    if found is None:
        return None
    header, arr = found
    try:
        return VectorFile(generation=int(header["generation"]), model=header["model"], doc_ids=header["doc_ids"],
                          doc_sigs=header["doc_sigs"], file_id=header["file_id"], base_id=header["base_id"],
                          dead=header["dead"], **arr)
    except (KeyError, TypeError):  # a file written before deltas: rebuilt
        return None


@dataclass
class VectorSet:
    """The live rows of a base file and its delta: the base's rows less its `dead` documents, plus the
    delta's. `segments` pairs each file with a bool per document (True: live)."""

    base: VectorFile
    delta: VectorFile | None = None
    segments: list[tuple[VectorFile, np.ndarray]] = field(init=False)

    def __post_init__(self) -> None:
        live = np.ones(len(self.base.doc_ids), bool)
        if self.delta is not None:
            code = {d: i for i, d in enumerate(self.base.doc_ids)}
            live[[code[d] for d in self.delta.dead if d in code]] = False
        self.segments = [(self.base, live)]
        if self.delta is not None and len(self.delta.doc_ids):
            self.segments.append((self.delta, np.ones(len(self.delta.doc_ids), bool)))

    @property
    def generation(self) -> int:
        return (self.delta or self.base).generation

    @property
    def model(self) -> str:
        return self.base.model

    def __len__(self) -> int:
        return sum(int(np.diff(vf.doc_start)[live].sum()) for vf, live in self.segments)

    @property
    def doc_ids(self) -> list[str]:
        """The live documents, sorted."""
        return sorted(d for vf, live in self.segments for d, ok in zip(vf.doc_ids, live, strict=True) if ok)

    def signatures(self) -> dict[str, str]:
        """Live document → the signature it was built from."""
        return {d: g for vf, live in self.segments
                for d, g, ok in zip(vf.doc_ids, vf.doc_sigs, live, strict=True) if ok}

    @property
    def rowids(self) -> np.ndarray:
        """The live rows' rowids (int64)."""
        parts = [vf.rowids[np.repeat(live, np.diff(vf.doc_start))] for vf, live in self.segments]
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)
