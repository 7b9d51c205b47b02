"""The SQLite store's vector file: built from one read snapshot of the database, beside it."""
from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterator

import numpy as np

from kotae.store import vectorfile
from kotae.store.vectorfile import VectorFile

VECTOR_FILE = "vectors.kvf"
_BLOCK = 50_000
_ROWS = "FROM chunks c JOIN embeddings e ON e.text_hash = c.text_hash"


def current(db_path: str, generation: int, model: str) -> VectorFile | None:
    """The vector file of this generation and model, built (and kept for the next process) when the one on
    disk is missing or stale; None for an index without vectors."""
    path = os.path.join(os.path.dirname(db_path), VECTOR_FILE)
    found = vectorfile.load(path)
    if found is not None and found.generation == generation and found.model == model:
        return found
    return build(db_path, path)


def build(db_path: str, path: str) -> VectorFile | None:
    """Write the vector file from one snapshot (the generation read with the rows); where the index folder
    is read-only, into a temporary file that is unlinked once mapped."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, isolation_level=None)
    try:
        db.execute("BEGIN")  # one snapshot: the generation matches the rows
        generation = int(db.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0])
        model = (db.execute("SELECT value FROM meta WHERE key='model'").fetchone() or ("",))[0]
        docs = [(d, int(n)) for d, n in db.execute(
            f"SELECT c.doc_id, count(*) {_ROWS} GROUP BY c.doc_id ORDER BY c.doc_id")]
        if not docs:
            return None
        first = db.execute(f"SELECT e.vector {_ROWS} LIMIT 1").fetchone()[0]
        dim = len(first) // 4

        def blocks() -> Iterator[tuple[np.ndarray, np.ndarray]]:
            cur = db.execute(f"SELECT c.rowid, e.vector {_ROWS} ORDER BY c.doc_id, c.rowid")
            while rows := cur.fetchmany(_BLOCK):
                yield (np.fromiter((r[0] for r in rows), np.int64, len(rows)),
                       np.frombuffer(b"".join(r[1] for r in rows), np.float32).reshape(len(rows), dim))

        try:
            vectorfile.write(path, generation, model, dim, docs, blocks())
        except PermissionError:
            fd, path = tempfile.mkstemp(prefix="kotae-vectors-")
            os.close(fd)
            vectorfile.write(path, generation, model, dim, docs, blocks())
            found = vectorfile.load(path)
            os.unlink(path)
            return found
    finally:
        db.close()
    return vectorfile.load(path)


def exact_vectors(db: sqlite3.Connection, rowids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rowids found, their float32 vectors) for the exact rescoring of dense candidates."""
    ids = [int(r) for r in rowids]
    found: list[int] = []
    blobs: list[bytes] = []
    for lo in range(0, len(ids), 500):
        part = ids[lo : lo + 500]
        marks = ",".join("?" * len(part))
        for r, blob in db.execute(f"SELECT c.rowid, e.vector {_ROWS} WHERE c.rowid IN ({marks})", part):
            found.append(r)
            blobs.append(blob)
    if not found:
        return np.zeros(0, np.int64), np.zeros((0, 0), np.float32)
    return np.array(found, np.int64), np.frombuffer(b"".join(blobs), np.float32).reshape(len(found), -1)
